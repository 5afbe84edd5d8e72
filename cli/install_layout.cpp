#include "install_layout.hpp"

#include <system_error>

namespace flopcast::cli {

std::filesystem::path program_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : p;
}

std::string installed_data_dir() {
  const auto exe = program_path();
  if (exe.empty()) return {};
  const auto dir = (exe.parent_path() / FLOPCAST_DATA_DIR_FROM_BIN).lexically_normal();
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / "gpus.yaml", ec) ? dir.string() : std::string{};
}

std::string installed_module_path(const std::string& file) {
  const auto exe = program_path();
  if (exe.empty()) return {};
  return (exe.parent_path() / FLOPCAST_MODULE_DIR_FROM_BIN / file).lexically_normal().string();
}

}  // namespace flopcast::cli

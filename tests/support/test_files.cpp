#include "test_files.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

namespace flopcast::test {

std::string scenario_file(const std::string& rel) { return std::string(FLOPCAST_SCENARIOS_DIR) + "/" + rel; }
std::string data(const std::string& rel) { return std::string(FLOPCAST_DATA_DIR) + "/" + rel; }

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> scenario_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(FLOPCAST_SCENARIOS_DIR))
    if (e.is_regular_file() && e.path().extension() == ".yaml" && e.path().parent_path().filename() != "fleets" &&
        e.path().filename() != "claims.yaml")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());  // directory iteration order is unspecified
  return files;
}

TempDir::TempDir(const std::string& tag) {
  const auto base = std::filesystem::temp_directory_path();
  for (int i = 0;; ++i) {
    path = base / ("flopcast-test-" + tag + "-" + std::to_string(i));
    if (std::filesystem::create_directory(path)) break;
  }
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(path, ec);
}

}  // namespace flopcast::test

#include "test_files.hpp"

#include <unistd.h>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
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
  // The process id keeps two test runs on one machine (two checkouts, or CI beside a developer's
  // run) out of each other's folders: without it one run's folder could be removed between the
  // other's mkdir and its check that the name is a folder, which throws.
  const std::string prefix = "flopcast-test-" + tag + "-" + std::to_string(::getpid()) + "-";
  for (int i = 0;; ++i) {
    path = base / (prefix + std::to_string(i));
    std::error_code ec;
    if (std::filesystem::create_directory(path, ec)) break;
    if (i >= 100000) throw std::runtime_error("no fresh folder under " + base.string() + ": " + ec.message());
  }
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(path, ec);
}

}  // namespace flopcast::test

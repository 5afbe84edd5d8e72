#pragma once
/// Shared helpers of the tests that run the CLI in-process (cli::run): the runner, paths to
/// the repository's scenarios and data, file reading and a self-removing temporary folder.
/// Header-only; each test file includes it inside its own translation unit.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "cli_context.hpp"

namespace flopcast::test {

struct CliResult {
  int code = -1;
  std::string out, err;
  bool operator==(const CliResult&) const = default;
};

/// `flopcast ARGS...` in-process: exit code, stdout and stderr.
inline CliResult run_cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"flopcast"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliResult r;
  r.code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

/// A file under scenarios/ or data/ of the source tree.
inline std::string scenario(const std::string& rel) { return std::string(FLOPCAST_SCENARIOS_DIR) + "/" + rel; }
inline std::string data(const std::string& rel) { return std::string(FLOPCAST_DATA_DIR) + "/" + rel; }

inline bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

/// The whole file, bytes as they are; "" when it cannot be read.
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Every .yaml under scenarios/ (recursively), sorted: directory iteration order is unspecified.
inline std::vector<std::string> scenario_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(FLOPCAST_SCENARIOS_DIR))
    // Fleet files (scenarios/fleets/*.yaml) are not scenarios; their job templates
    // (scenarios/fleets/jobs/) are. Sweep files end in .yml. Claims files (claims.yaml, for
    // `flopcast check`) are not scenarios either.
    if (e.is_regular_file() && e.path().extension() == ".yaml" && e.path().parent_path().filename() != "fleets" &&
        e.path().filename() != "claims.yaml")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

/// A fresh folder under the system temp dir named flopcast-test-<tag>-<n>, removed at scope
/// exit (with its write permission restored first, for tests that make it read-only).
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag = "cli") {
    const auto base = std::filesystem::temp_directory_path();
    for (int i = 0;; ++i) {
      path = base / ("flopcast-test-" + tag + "-" + std::to_string(i));
      if (std::filesystem::create_directory(path)) break;
    }
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace flopcast::test

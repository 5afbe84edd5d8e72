#pragma once
/// Files the tests read and write: paths into the source tree's scenarios/ and data/ (from the
/// FLOPCAST_SCENARIOS_DIR and FLOPCAST_DATA_DIR compile definitions, never "../"), whole-file
/// reading, the list of shipped scenarios and a self-removing temporary folder.
#include <filesystem>
#include <string>
#include <vector>

namespace flopcast::test {

/// A file under scenarios/ of the source tree.
std::string scenario_file(const std::string& rel);
/// A file under data/ of the source tree.
std::string data(const std::string& rel);

/// Whether `needle` occurs in `hay`.
bool contains(const std::string& hay, const std::string& needle);

/// The whole file, bytes as they are; "" when it cannot be read.
std::string read_file(const std::filesystem::path& p);

/// Every scenario file under scenarios/ (recursively), sorted: the .yaml files `flopcast
/// simulate` reads. Fleet files (scenarios/fleets/*.yaml) are not scenarios, their job
/// templates (scenarios/fleets/jobs/) are; sweep files end in .yml; claims files (claims.yaml,
/// for `flopcast check`) are not scenarios.
std::vector<std::string> scenario_files();

/// A fresh folder under the system temp dir named flopcast-test-<tag>-<pid>-<n>, removed at scope
/// exit (with its write permission restored first, for tests that make it read-only).
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag = "cli");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace flopcast::test

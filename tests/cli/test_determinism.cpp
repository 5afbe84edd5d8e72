// Deterministic outputs: every scenario in scenarios/ (recursively) gives byte-identical
// `simulate` output (JSON and text) when run twice, in another order (warm per-thread caches of
// the communication model hold other clusters) and on a fresh thread (cold caches). The commands
// that write files exit 4 when they cannot (io/test_atomic_file.cpp tests the writer itself).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cli_context.hpp"
#include "cli_runner.hpp"

using namespace flopcast;
namespace fs = std::filesystem;

namespace {

using Run = test::CliResult;
using test::run_cli;

/// `simulate [--json]` on each file, in the given order.
std::vector<Run> simulate_all(const std::vector<std::string>& files, bool json) {
  std::vector<Run> runs;
  for (const auto& f : files) runs.push_back(json ? run_cli({"simulate", "--json", f}) : run_cli({"simulate", f}));
  return runs;
}

/// A temporary folder named flopcast-test-outputs-<n>.
struct OutputsTempDir : test::TempDir {
  OutputsTempDir() : test::TempDir("outputs") {}

  /// The names in the folder, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace

TEST_CASE(
    "determinism: every scenario gives byte-identical simulate --json twice, in reverse order and on a fresh thread") {
  const auto files = test::scenario_files();
  REQUIRE(files.size() >= 17);  // scenarios/quickstart.yaml, published/ (10), seed-claims/ (6)
  const auto first = simulate_all(files, true);
  const auto second = simulate_all(files, true);

  auto reversed_files = files;
  std::reverse(reversed_files.begin(), reversed_files.end());
  auto reversed = simulate_all(reversed_files, true);
  std::reverse(reversed.begin(), reversed.end());

  std::vector<Run> fresh;
  std::thread([&] { fresh = simulate_all(files, true); }).join();

  int reports = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    CAPTURE(files[i]);
    CHECK(first[i] == second[i]);
    CHECK(first[i] == reversed[i]);
    CHECK(first[i] == fresh[i]);
    if (!first[i].out.empty()) ++reports;
  }
  // All but the seed claim rejected for its tp*pp*dp product produce a report.
  CHECK(reports >= static_cast<int>(files.size()) - 1);
}

TEST_CASE("determinism: the text report of every scenario is byte-identical twice") {
  const auto files = test::scenario_files();
  const auto first = simulate_all(files, false);
  const auto second = simulate_all(files, false);
  for (std::size_t i = 0; i < files.size(); ++i) {
    CAPTURE(files[i]);
    CHECK(first[i] == second[i]);
  }
}

TEST_CASE("outputs: the commands that write files exit 4 (I/O) naming the path when it cannot be written") {
  OutputsTempDir tmp;
  SUBCASE("quote -o into a missing folder") {
    const auto file = tmp.path / "no-such-folder" / "quote.md";
    const auto r = run_cli({"quote", std::string(FLOPCAST_SCENARIOS_DIR) + "/quickstart.yaml", "--date", "2026-07-01",
                            "-o", file.string()});
    CHECK(r.code == cli::kIoError);
    CHECK_MESSAGE(test::contains(r.err, "cannot write " + file.string() + ": folder " + file.parent_path().string() +
                                            " does not exist"),
                  r.err);
    CHECK(tmp.names().empty());
  }
  SUBCASE("calibrate -o into /proc (no new files there, even for root)") {
    const auto r = run_cli({"calibrate", std::string(FLOPCAST_DATA_DIR) + "/calibration/published-a100-h100.yaml", "-o",
                            "/proc/flopcast-test-profile.yaml", "--force"});
    CHECK(r.code == cli::kIoError);
    CHECK_MESSAGE(test::contains(r.err, "cannot write /proc/flopcast-test-profile.yaml: "), r.err);
    CHECK_FALSE(fs::exists("/proc/flopcast-test-profile.yaml"));
  }
}

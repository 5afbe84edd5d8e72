// `flopcast sweep` and `flopcast merge` end to end (in-process): -j2 equals -j1, shards merged
// equal the unsharded run, killed and resumed equals uninterrupted, --check, exit codes.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "cli_context.hpp"
#include "cli_runner.hpp"

using namespace flopcast;

namespace {

/// A temporary folder; `t / "name"` is the path of a file in it.
struct TempDir : test::TempDir {
  TempDir() : test::TempDir("sweep") {}
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

void spit(const std::string& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string slurp(const std::string& p) { return test::read_file(p); }

using test::run_cli;

}  // namespace

TEST_CASE("flopcast sweep and merge end to end") {
  TempDir t;
  spit(t / "s.sweep.yml", R"(
scenario:
  model: llama3-8b
  cluster: {gpu: H800, gpus: 16}
  parallel: {tp: 2, pp: 1, dp: auto, micro_batch: 1, global_batch: 64, recompute: selective, sequence_parallel: true, zero: 1}
  precision: bf16
  training: {tokens: 5B}
  reliability: {trials: 20, seed: 3}
  pricing: {catalog: seed-vendor}
axes:
  - key: cluster.gpus
    values: [8, 16, 24, 1]
  - key: parallel.micro_batch
    values: [1, 2]
)");
  const auto a = run_cli({"sweep", t / "s.sweep.yml", "-j", "1", "--out", t / "j1.csv"});
  REQUIRE_MESSAGE(a.code == 0, a.err);
  const auto b = run_cli({"sweep", t / "s.sweep.yml", "-j", "2", "--out", t / "j2.csv"});
  REQUIRE(b.code == 0);
  const auto j1 = slurp(t / "j1.csv");
  CHECK(j1 == slurp(t / "j2.csv"));
  CHECK(j1.find("cluster.gpus,parallel.micro_batch,feasible") != std::string::npos);
  CHECK(j1.find("dp auto needs tp*pp*cp = 2 to divide cluster.gpus = 1") != std::string::npos);  // the 1-GPU point
  CHECK(j1.find(",yes,") != std::string::npos);
  // Shards + merge == unsharded.
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--shard", "1/2", "--out", t / "p1.csv"}).code == 0);
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--shard", "2/2", "--out", t / "p2.csv"}).code == 0);
  const auto m = run_cli({"merge", t / "p1.csv", t / "p2.csv", "--out", t / "m.csv"});
  REQUIRE_MESSAGE(m.code == 0, m.err);
  CHECK(slurp(t / "m.csv") == j1);
  // Killed (--stop-after) and resumed == uninterrupted.
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--out", t / "r.csv", "--stop-after", "3"}).code == 0);
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--out", t / "r.csv", "--resume", "-j", "2"}).code == 0);
  CHECK(slurp(t / "r.csv") == j1);
  // No overwrite without --force; --check against itself passes, against a changed baseline fails.
  CHECK(run_cli({"sweep", t / "s.sweep.yml", "--out", t / "j1.csv"}).code == cli::kIoError);
  const auto ok = run_cli({"sweep", t / "s.sweep.yml", "--out", t / "c.csv", "--check", t / "j1.csv"});
  CHECK(ok.code == 0);
  CHECK(ok.out.find("0 differences") != std::string::npos);
  std::string changed = j1;
  const auto p = changed.find(",yes,");
  REQUIRE(p != std::string::npos);
  changed.replace(p, 5, ",no,");
  spit(t / "changed.csv", changed);
  const auto bad =
      run_cli({"sweep", t / "s.sweep.yml", "--out", t / "c2.csv", "--check", t / "changed.csv", "--tolerance", "2%"});
  CHECK(bad.code == cli::kCheckFailed);
  CHECK(bad.out.find("regression: point") != std::string::npos);
  // Bad sweep file: exit 3 with file:line.
  spit(t / "bad.sweep.yml", "scenario: {model: llama3-8b}\naxes:\n  - key: parallel.tp\n");
  const auto e = run_cli({"sweep", t / "bad.sweep.yml", "--out", t / "x.csv"});
  CHECK(e.code == cli::kBadInput);
  CHECK(e.err.find("bad.sweep.yml:3") != std::string::npos);
  // Usage errors.
  CHECK(run_cli({"sweep", t / "s.sweep.yml", "--out", t / "y.csv", "--shard", "3/2"}).code == cli::kUsage);
}

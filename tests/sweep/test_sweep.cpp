// Sweeps: the sweep-file loader (values, ranges, zipped axes, diagnostics with file:line), the
// runner (-j2 == -j1 byte for byte, shards merged == unsharded, killed and resumed ==
// uninterrupted, a torn last row dropped) and the baseline check. (`flopcast sweep` end to end:
// cli/test_cmd_sweep.cpp.)
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "flopcast/io/sweep_loader.hpp"
#include "flopcast/sweep/sweep_runner.hpp"

using namespace flopcast;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    static int n = 0;
    path =
        fs::temp_directory_path() / ("flopcast-sweep-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

/// A deterministic evaluation with a quoted cell and a comma, to exercise CSV quoting.
std::vector<std::string> fake_eval(std::int64_t i) {
  return {std::to_string(i * 7 % 13), i % 5 == 0 ? "no" : "yes", i % 3 == 0 ? "why, \"quoted\"" : "",
          std::to_string(1.5 * static_cast<double>(i))};
}
const std::vector<sweep::Column> kCols = {
    {"a", true, false}, {"feasible", false, true}, {"why"}, {"step_time_s", true, true}};

sweep::RunStats run(const std::string& out, int threads, int shard = 1, int shards = 1, std::int64_t stop = -1,
                    bool resume = false, std::int64_t points = 101) {
  sweep::RunOptions o;
  o.threads = threads;
  o.shard = shard;
  o.shards = shards;
  o.stop_after = stop;
  o.resume = resume;
  o.force = !resume;
  return sweep::run_sweep(out, "test-id", points, kCols, fake_eval, o, nullptr);
}

}  // namespace

TEST_CASE("sweep loader: values, ranges, factor ranges and zipped axes") {
  Diagnostics d;
  const auto spec = io::parse_sweep(R"(
scenario:
  model: llama3-8b
  cluster: {gpu: H800, gpus: 8}
  parallel: {tp: 1, pp: 1, dp: auto, micro_batch: 1, global_batch: 72}
  precision: bf16
axes:
  - key: cluster.gpu
    values: [H800, A100-80G]
  - key: cluster.gpus
    range: {from: 8, to: 32, step: 8}
  - key: parallel.micro_batch
    range: {from: 1, to: 4, factor: 2}
  - zip:
      parallel.tp: [1, 2]
      parallel.sequence_parallel: [false, true]
)",
                                    "mem.sweep.yml", d);
  REQUIRE_MESSAGE(spec, d.str());
  CHECK(spec->points() == 2 * 4 * 3 * 2);
  CHECK(spec->keys() == std::vector<std::string>{"cluster.gpu", "cluster.gpus", "parallel.micro_batch", "parallel.tp",
                                                 "parallel.sequence_parallel"});
  const auto p0 = spec->point_values(0);
  CHECK(p0[0].second == "H800");
  CHECK(p0[1].second == "8");
  CHECK(p0[3].second == "1");
  const auto last = spec->point_values(spec->points() - 1);  // last axis fastest
  CHECK(last[0].second == "A100-80G");
  CHECK(last[1].second == "32");
  CHECK(last[2].second == "4");
  CHECK(last[3].second == "2");
  CHECK(last[4].second == "true");
  // Point 1 differs from point 0 in the zipped axis only.
  CHECK(spec->point_values(1)[3].second == "2");
  CHECK(spec->point_values(1)[4].second == "true");

  Diagnostics cd;
  auto cat = io::load_catalog("", cd);
  REQUIRE(cat);
  // dp auto: 24 GPUs, tp 2 -> dp 12.
  const std::int64_t idx = (0 * 4 + 2) * 3 * 2 + 0 * 2 + 1;  // H800, 24 GPUs, mb 1, tp 2
  Diagnostics pd;
  const auto s = io::sweep_point_scenario(*spec, idx, *cat, pd);
  REQUIRE_MESSAGE(s, pd.str());
  CHECK(s->cluster.gpus == 24);
  CHECK(s->plan.tp == 2);
  CHECK(s->plan.dp == 12);
  CHECK(s->plan.sequence_parallel);
  // 24 GPUs, mb 4: 4 x 12 does not divide 72: a point error naming the sweep file and values.
  Diagnostics bad;
  const auto s2 = io::sweep_point_scenario(*spec, idx + 4, *cat, bad);
  CHECK(!s2);
  CHECK(bad.str().find("mem.sweep.yml") != std::string::npos);
  CHECK(bad.str().find("parallel.micro_batch=4") != std::string::npos);
}

TEST_CASE("sweep loader: diagnostics name file:line, key and fix") {
  auto err = [](const std::string& text) {
    Diagnostics d;
    auto s = io::parse_sweep(text, "bad.sweep.yml", d);
    CHECK(!s);
    return d.str();
  };
  const std::string base = "scenario: {model: llama3-8b}\n";
  auto e1 = err(base + "axes:\n  - zip:\n      parallel.tp: [1, 2]\n      parallel.pp: [1, 2, 4]\n");
  CHECK(e1.find("bad.sweep.yml:5") != std::string::npos);
  CHECK(e1.find("same number of values") != std::string::npos);
  auto e2 = err(base + "axes:\n  - key: parallel.tp\n    values: [1]\n  - key: parallel.tp\n    values: [2]\n");
  CHECK(e2.find("swept twice") != std::string::npos);
  CHECK(e2.find("bad.sweep.yml:5") != std::string::npos);
  auto e3 = err(base + "axes:\n  - key: parallel.tp\n    valuse: [1]\n");
  CHECK(e3.find("did you mean 'values'") != std::string::npos);
  auto e4 = err(base + "axes:\n  - key: cluster.gpus\n    range: {from: 64, to: 8, step: 8}\n");
  CHECK(e4.find("below from") != std::string::npos);
  auto e5 = err(base + "axes:\n  - key: cluster.gpus\n    range: {from: 1, to: 1e9, step: 1}\n");
  CHECK(e5.find("more than") != std::string::npos);
  auto e6 = err("axes: []\n");
  CHECK(e6.find("missing the base scenario") != std::string::npos);
  auto e7 = err("base: nowhere.yaml\naxes: []\n");
  CHECK(e7.find("bad.sweep.yml:1") != std::string::npos);
  auto e8 = err("axes: [\n");
  CHECK(e8.find("malformed YAML") != std::string::npos);
}

TEST_CASE("sweep point: dp auto with degrees whose product passes 64 bits is an error, not overflow") {
  // The sweep fuzzer's finding (session 6): tp 8888888888888888888 x pp 4 overflowed int64 in the
  // dp-auto division (undefined behaviour); now the point is refused with the degrees named.
  Diagnostics cd;
  auto cat = io::load_catalog("", cd);
  REQUIRE(cat);
  auto point_error = [&](const std::string& tp, const std::string& pp) {
    Diagnostics d;
    const auto spec = io::parse_sweep(
        "scenario:\n  model: llama3-8b\n  cluster: {gpu: H800, gpus: 64}\n"
        "  parallel: {tp: " +
            tp + ", pp: " + pp +
            ", dp: auto, micro_batch: 1, global_batch: 64}\n"
            "axes:\n  - key: parallel.cp\n    values: [1]\n",
        "big.sweep.yml", d);
    REQUIRE_MESSAGE(spec, d.str());
    Diagnostics pd;
    CHECK(!io::sweep_point_scenario(*spec, 0, *cat, pd));
    return pd.str();
  };
  const auto e = point_error("8888888888888888888", "4");
  CHECK(e.find("big.sweep.yml") != std::string::npos);
  CHECK(e.find("parallel.dp") != std::string::npos);
  CHECK(e.find("8888888888888888888*4*1 (beyond 64 bits)") != std::string::npos);
  // Negative degrees are named (two of them would multiply to a positive shape that divides 64).
  const auto n = point_error("-2", "-4");
  CHECK(n.find("parallel.tp") != std::string::npos);
  CHECK(n.find("tp = -2") != std::string::npos);
}

TEST_CASE("sweep runner: -j2 equals -j1 byte for byte") {
  TempDir t;
  REQUIRE(run(t / "j1.csv", 1).ok());
  REQUIRE(run(t / "j2.csv", 2).ok());
  REQUIRE(run(t / "j4.jsonl", 4).ok());
  REQUIRE(run(t / "j1.jsonl", 1).ok());
  const auto a = slurp(t / "j1.csv");
  CHECK(a == slurp(t / "j2.csv"));
  CHECK(slurp(t / "j1.jsonl") == slurp(t / "j4.jsonl"));
  CHECK(a.find("\"why, \"\"quoted\"\"\"") != std::string::npos);
  // 101 rows + 2 header lines.
  CHECK(std::count(a.begin(), a.end(), '\n') == 103);
}

TEST_CASE("sweep runner: shards merged equal the unsharded run (CSV and JSONL)") {
  TempDir t;
  for (const std::string ext : {".csv", ".jsonl"}) {
    REQUIRE(run(t / ("all" + ext), 2).ok());
    REQUIRE(run(t / ("s1" + ext), 1, 1, 3).ok());
    REQUIRE(run(t / ("s2" + ext), 2, 2, 3).ok());
    REQUIRE(run(t / ("s3" + ext), 1, 3, 3).ok());
    const auto errs =
        sweep::merge_shards({t / ("s3" + ext), t / ("s1" + ext), t / ("s2" + ext)}, t / ("merged" + ext), false);
    REQUIRE_MESSAGE(errs.empty(), errs.front());
    CHECK(slurp(t / ("merged" + ext)) == slurp(t / ("all" + ext)));
    // A missing shard is an error, not a short file.
    const auto missing = sweep::merge_shards({t / ("s1" + ext), t / ("s2" + ext)}, t / ("m2" + ext), false);
    REQUIRE(!missing.empty());
    CHECK(missing.front().find("missing") != std::string::npos);
    // The same shard twice.
    const auto twice = sweep::merge_shards({t / ("s1" + ext), t / ("s1" + ext), t / ("s2" + ext), t / ("s3" + ext)},
                                           t / ("m3" + ext), false);
    CHECK(!twice.empty());
    // The merged file is not overwritten without force.
    CHECK(!sweep::merge_shards({t / ("s1" + ext), t / ("s2" + ext), t / ("s3" + ext)}, t / ("merged" + ext), false)
               .empty());
  }
}

TEST_CASE("sweep runner: killed midway and resumed equals an uninterrupted run") {
  TempDir t;
  REQUIRE(run(t / "full.csv", 1).ok());
  const auto full = slurp(t / "full.csv");
  // Stopped after 37 rows (the test hook), then resumed with another thread count.
  const auto st = run(t / "part.csv", 2, 1, 1, 37);
  REQUIRE(st.ok());
  CHECK(st.stopped);
  CHECK(st.written == 37);
  CHECK(slurp(t / "part.csv").size() < full.size());
  const auto st2 = run(t / "part.csv", 3, 1, 1, -1, true);
  REQUIRE(st2.ok());
  CHECK(st2.resumed == 37);
  CHECK(st2.written == 101 - 37);
  CHECK(slurp(t / "part.csv") == full);
  // A torn last line (a crash mid-write): dropped, then redone.
  std::string torn = full.substr(0, full.find('\n', full.size() / 2) + 1);
  torn += "58,2,yes,,8";  // half a row, no newline
  spit(t / "torn.csv", torn);
  const auto st3 = run(t / "torn.csv", 2, 1, 1, -1, true);
  REQUIRE(st3.ok());
  CHECK(st3.torn_line_dropped);
  CHECK(slurp(t / "torn.csv") == full);
  // Resuming a complete file writes nothing.
  const auto st4 = run(t / "torn.csv", 2, 1, 1, -1, true);
  CHECK(st4.written == 0);
  CHECK(slurp(t / "torn.csv") == full);
  // Sharded resume.
  REQUIRE(run(t / "sh.jsonl", 1, 2, 2, 10).ok());
  REQUIRE(run(t / "sh.jsonl", 2, 2, 2, -1, true).ok());
  REQUIRE(run(t / "sh-full.jsonl", 1, 2, 2).ok());
  CHECK(slurp(t / "sh.jsonl") == slurp(t / "sh-full.jsonl"));
}

TEST_CASE("sweep runner: resume refuses another sweep's file, no overwrite without force") {
  TempDir t;
  REQUIRE(run(t / "a.csv", 1, 1, 1, 5).ok());
  // Other shard layout: refused.
  const auto st = run(t / "a.csv", 1, 1, 2, -1, true);
  REQUIRE(!st.ok());
  CHECK(st.errors.front().find("another sweep") != std::string::npos);
  // Other point count: refused.
  CHECK(!run(t / "a.csv", 1, 1, 1, -1, true, 50).ok());
  // Fresh run over an existing file without force.
  sweep::RunOptions o;
  const auto st2 = sweep::run_sweep(t / "a.csv", "test-id", 101, kCols, fake_eval, o, nullptr);
  REQUIRE(!st2.ok());
  CHECK(st2.errors.front().find("--force") != std::string::npos);
}

TEST_CASE("sweep runner: --check flags figures beyond the tolerance") {
  TempDir t;
  REQUIRE(run(t / "base.csv", 1, 1, 1, -1, false, 10).ok());
  auto text = slurp(t / "base.csv");
  // Point 4's step time 6 -> 6.18 (+3%).
  const auto pos = text.find("\n4,");
  REQUIRE(pos != std::string::npos);
  const auto eol = text.find('\n', pos + 1);
  std::string row = text.substr(pos + 1, eol - pos - 1);
  REQUIRE(row.substr(row.rfind(',') + 1) == "6.000000");
  row = row.substr(0, row.rfind(',') + 1) + "6.18";
  text = text.substr(0, pos + 1) + row + text.substr(eol);
  spit(t / "cur.csv", text);
  const auto c2 = sweep::check_against_baseline(t / "cur.csv", t / "base.csv", 0.02);
  REQUIRE(c2.errors.empty());
  CHECK(c2.compared == 10);
  REQUIRE(c2.findings.size() == 1);
  CHECK(c2.findings[0].point == 4);
  CHECK(c2.findings[0].column == "step_time_s");
  CHECK(c2.findings[0].relative == doctest::Approx(0.03));
  CHECK(sweep::check_against_baseline(t / "cur.csv", t / "base.csv", 0.05).findings.empty());
}

// Sweep files: the loader (values, ranges, zipped axes, diagnostics with file:line) and the
// scenario of a point (dp: auto resolved, its value as used). The runner, shards and resume:
// test_sweep_runner.cpp; the baseline check: test_sweep_check.cpp; `flopcast sweep` end to end:
// cli/test_cmd_sweep.cpp.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "flopcast/io/sweep_loader.hpp"

using namespace flopcast;

TEST_CASE("sweep loader: values, ranges, factor ranges and zipped axes") {
  scenario::Diagnostics d;
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

  scenario::Diagnostics cd;
  auto cat = io::load_catalog("", cd);
  REQUIRE(cat);
  // dp auto: 24 GPUs, tp 2 -> dp 12.
  const std::int64_t idx = (0 * 4 + 2) * 3 * 2 + 0 * 2 + 1;  // H800, 24 GPUs, mb 1, tp 2
  scenario::Diagnostics pd;
  const auto s = io::sweep_point_scenario(*spec, idx, *cat, pd);
  REQUIRE_MESSAGE(s, pd.str());
  CHECK(s->cluster.gpus == 24);
  CHECK(s->plan.tp == 2);
  CHECK(s->plan.dp == 12);
  CHECK(s->plan.sequence_parallel);
  // 24 GPUs, mb 4: 4 x 12 does not divide 72: a point error naming the sweep file and values.
  scenario::Diagnostics bad;
  const auto s2 = io::sweep_point_scenario(*spec, idx + 4, *cat, bad);
  CHECK(!s2);
  CHECK(bad.str().find("mem.sweep.yml") != std::string::npos);
  CHECK(bad.str().find("parallel.micro_batch=4") != std::string::npos);
}

TEST_CASE("sweep loader: diagnostics name file:line, key and fix") {
  auto err = [](const std::string& text) {
    scenario::Diagnostics d;
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
  // The sweep fuzzer's finding: tp 8888888888888888888 x pp 4 overflowed int64 in the
  // dp-auto division (undefined behaviour); now the point is refused with the degrees named.
  scenario::Diagnostics cd;
  auto cat = io::load_catalog("", cd);
  REQUIRE(cat);
  auto point_error = [&](const std::string& tp, const std::string& pp) {
    scenario::Diagnostics d;
    const auto spec = io::parse_sweep(
        "scenario:\n  model: llama3-8b\n  cluster: {gpu: H800, gpus: 64}\n"
        "  parallel: {tp: " +
            tp + ", pp: " + pp +
            ", dp: auto, micro_batch: 1, global_batch: 64}\n"
            "axes:\n  - key: parallel.cp\n    values: [1]\n",
        "big.sweep.yml", d);
    REQUIRE_MESSAGE(spec, d.str());
    scenario::Diagnostics pd;
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

TEST_CASE("sweep point: the values as used, dp auto resolved to the number (never 'auto' in a column)") {
  scenario::Diagnostics cd;
  auto cat = io::load_catalog("", cd);
  REQUIRE(cat);
  scenario::Diagnostics d;
  const auto spec = io::parse_sweep(
      "scenario:\n  model: llama3-8b\n  cluster: {gpu: H800, gpus: 8}\n"
      "  parallel: {tp: 1, pp: 1, dp: 8, micro_batch: 1, global_batch: 48}\n  precision: bf16\n"
      "axes:\n  - key: cluster.gpus\n    values: [8, 16, 5]\n  - key: parallel.tp\n    values: [2]\n"
      "  - key: parallel.dp\n    values: [auto, 4]\n",
      "used.sweep.yml", d);
  REQUIRE_MESSAGE(spec, d.str());
  auto used_at = [&](std::int64_t i) {
    std::vector<std::string> used;
    scenario::Diagnostics pd;
    (void)io::sweep_point_scenario(*spec, i, *cat, pd, &used);
    return used;
  };
  // 8 GPUs / tp 2 -> dp 4; 16 GPUs / tp 2 -> dp 8 (the value the scenario runs with).
  CHECK(used_at(0) == std::vector<std::string>{"8", "2", "4"});
  CHECK(used_at(2) == std::vector<std::string>{"16", "2", "8"});
  // A value written as a number stays as written.
  CHECK(used_at(3) == std::vector<std::string>{"16", "2", "4"});
  // 5 GPUs: tp 2 does not divide them, dp auto has no value: the cell is empty, not "auto".
  CHECK(used_at(4) == std::vector<std::string>{"5", "2", ""});
}

// Cross-validation by source group (cross_validation.hpp): the held-out group is predicted by a
// profile fitted without it; one group is refused; weighted quantiles follow numpy's rule.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/calibrate/cross_validation.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"

using namespace flopcast;

namespace {

/// A small GPT run on 8 A100, all settings stated, "measured" with `truth`.
scenario::Scenario run(int hidden, const std::string& group, const compute::ComputeProfile& truth) {
  const std::string text = "model:\n  layers: 4\n  hidden: " + std::to_string(hidden) +
                           "\n  heads: 16\n  vocab: 32000\n  seq_len: 2048\ncluster:\n  gpu: A100-80G\n  gpus: 8\n"
                           "parallel:\n  tp: 2\n  dp: 4\n  global_batch: 64\n  micro_batch: 4\nprecision: bf16\n";
  scenario::Diagnostics d;
  auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  s->id = group + "-" + std::to_string(hidden);
  s->source_group = group;
  s->measured["iteration_time_s"] = estimate::estimate_step(*s, truth).step.seconds();
  return *s;
}

compute::ComputeProfile with_gemm(double g) {
  compute::ComputeProfile p;
  p.of(hardware::GpuArch::Ampere).gemm = g;
  p.host_overhead_us = 40;
  return p;
}

}  // namespace

TEST_CASE("weighted_quantile: numpy's linear rule for equal weights, a heavy value pulls the quantile") {
  // numpy.quantile([1, 2, 3, 4], 0.5) = 2.5, 0.9 -> 3.7.
  CHECK(calibrate::weighted_quantile({{4, 1}, {1, 1}, {3, 1}, {2, 1}}, 0.5) == doctest::Approx(2.5));
  CHECK(calibrate::weighted_quantile({{4, 1}, {1, 1}, {3, 1}, {2, 1}}, 0.9) == doctest::Approx(3.7));
  CHECK(calibrate::quantile({1, 2, 3, 4}, 0.9) == doctest::Approx(3.7));
  // Weights 1, 1, 2 on 1, 2, 3: positions 0, 1/2, 1 (weight before / (4 - 2)); the median is 2.
  CHECK(calibrate::weighted_quantile({{1, 1}, {2, 1}, {3, 2}}, 0.5) == doctest::Approx(2.0));
  // Weights 2, 1, 1: positions 0, 2/3, 1; q = 0.5 lies 3/4 of the way from 1 to 2.
  CHECK(calibrate::weighted_quantile({{1, 2}, {2, 1}, {3, 1}}, 0.5) == doctest::Approx(1.75));
  CHECK(calibrate::weighted_quantile({}, 0.5) == 0);
}

TEST_CASE("cross-validation needs two source groups") {
  const auto truth = with_gemm(0.75);
  const std::vector<scenario::Scenario> runs = {run(1024, "only", truth), run(2048, "only", truth)};
  calibrate::CrossValidationOptions o;
  o.fit.parameters = {"ampere.gemm"};
  const auto r = calibrate::cross_validate(runs, with_gemm(0.5), o);
  CHECK(r.error == "cross-validation needs at least two source groups; the runs form 1 ('only')");
  CHECK(r.predictions.empty());
}

TEST_CASE("cross-validation predicts each group with a profile fitted on the others") {
  // Group a was measured with GEMM efficiency 0.75, group b with 0.60 (a slower testbed).
  // Fitted without b, the profile learns 0.75 from a and predicts b's runs too fast; fitted
  // without a, it learns 0.60 and predicts a's too slow. In-sample either group alone would fit.
  const std::vector<scenario::Scenario> runs = {run(1024, "a", with_gemm(0.75)), run(2048, "a", with_gemm(0.75)),
                                                run(1024, "b", with_gemm(0.60)), run(2048, "b", with_gemm(0.60))};
  calibrate::CrossValidationOptions o;
  o.fit.parameters = {"ampere.gemm"};
  o.simulate_predictions = false;
  o.jobs = 2;
  const auto r = calibrate::cross_validate(runs, with_gemm(0.5), o);
  REQUIRE(r.error.empty());
  REQUIRE(r.groups == std::vector<std::string>{"a", "b"});
  REQUIRE(r.folds.size() == 2);
  CHECK(r.folds[0].fit.profile.of(hardware::GpuArch::Ampere).gemm == doctest::Approx(0.60).epsilon(0.01));  // without a
  CHECK(r.folds[1].fit.profile.of(hardware::GpuArch::Ampere).gemm == doctest::Approx(0.75).epsilon(0.01));  // without b
  CHECK(r.folds[0].trained == 2);
  CHECK(r.folds[0].held_out == 2);
  REQUIRE(r.predictions.size() == 4);
  for (const auto& p : r.predictions) {
    CAPTURE(p.id);
    if (p.group == "a")
      CHECK(p.error_pct > 5);  // predicted slower (longer) than measured
    else
      CHECK(p.error_pct < -5);
  }
  const auto groups = calibrate::cv_by_group(r);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].median_speed_ratio < 1);  // a predicted too slow
  CHECK(groups[1].median_speed_ratio > 1);
  const auto overall = calibrate::cv_overall(r);
  CHECK(overall.runs == 4);
  CHECK(overall.groups == 2);
  CHECK(overall.memory_fits == 4);
  CHECK(calibrate::cv_by_generation(r).size() == 1);  // Ampere only
  // Deterministic, whatever the number of threads.
  o.jobs = 1;
  const auto again = calibrate::cross_validate(runs, with_gemm(0.5), o);
  for (std::size_t i = 0; i < again.predictions.size(); ++i)
    CHECK(again.predictions[i].predicted == r.predictions[i].predicted);
}

namespace {

/// A held-out prediction of a Hopper step time that came out `factor` x too short.
calibrate::CvPrediction held_out(const std::string& group, double factor) {
  calibrate::CvPrediction p;
  p.id = group;
  p.group = group;
  p.source_group = group;
  p.arch = hardware::GpuArch::Hopper;
  p.figure = "iteration_time_s";
  p.predicted = 1.0;
  p.measured = factor;
  return p;
}

}  // namespace

TEST_CASE("time_factor: measured / predicted step time, a throughput figure inverted") {
  CHECK(calibrate::time_factor(held_out("a", 1.25)) == doctest::Approx(1.25));
  calibrate::CvPrediction tps = held_out("a", 1);
  tps.figure = "tokens_per_gpu_s";
  tps.predicted = 800;  // predicted 800 tokens/s, measured 1,000: the step predicted 1.25x too long
  tps.measured = 1000;
  CHECK(calibrate::time_factor(tps) == doctest::Approx(0.8));
}

TEST_CASE("band quantiles and their coverage on held-out groups, worked by hand") {
  // Four source groups of one run each, measured / predicted 0.8, 1.0, 1.2, 1.4.
  calibrate::CrossValidationResult r;
  r.groups = {"A", "B", "C", "D"};
  for (auto [g, f] : {std::pair{"A", 0.8}, std::pair{"B", 1.0}, std::pair{"C", 1.2}, std::pair{"D", 1.4}})
    r.predictions.push_back(held_out(g, f));
  // All four, equal weights, numpy's linear rule: the 0.1 quantile sits at position 0.3 of the
  // sorted values (0.8 + 0.3 x 0.2 = 0.86), the median at 1.5 (1.1), the 0.9 quantile at 2.7
  // (1.2 + 0.7 x 0.2 = 1.34). Every run is dense: a "dense" entry as well as the pooled one.
  const auto q = calibrate::cv_band_quantiles(r);
  REQUIRE(q.size() == 2);
  CHECK(q[0].regime == std::string(compute::kBandRegimeAll));
  CHECK(q[1].regime == std::string(compute::kBandRegimeDense));
  CHECK(q[0].runs == 4);
  CHECK(q[0].groups == 4);
  CHECK(q[0].p10 == doctest::Approx(0.86));
  CHECK(q[0].p50 == doctest::Approx(1.1));
  CHECK(q[0].p90 == doctest::Approx(1.34));
  // Coverage: each run against the band of the other three.
  //   A 0.8 vs {1.0, 1.2, 1.4}: [1.04, 1.36], below;  B 1.0 vs {0.8, 1.2, 1.4}: [0.88, 1.36], in;
  //   C 1.2 vs {0.8, 1.0, 1.4}: [0.84, 1.32], in;     D 1.4 vs {0.8, 1.0, 1.2}: [0.84, 1.16], above.
  const auto c = calibrate::cv_band_coverage(r);
  REQUIRE(c.size() == 2);  // hopper, overall
  CHECK(c[0].name == "hopper");
  CHECK(c[0].covered_pct == doctest::Approx(50));
  CHECK(c[0].below_pct == doctest::Approx(25));
  CHECK(c[0].above_pct == doctest::Approx(25));
  CHECK(c[0].no_band == 0);
  CHECK(c[1].name == "overall");
  // The 0.025 tails: A's band starts at 1.0 + 0.05 x 0.2 = 1.01 and D's ends at 1.2 + 0.95 x 0.2
  // = 1.39: still 50%: every empirical tail covers the same here.
  const calibrate::BandRule wide{calibrate::BandShape::Empirical, 0.025};
  CHECK(calibrate::cv_band_coverage(r, calibrate::BandTails{wide, wide, wide})[0].covered_pct == doctest::Approx(50));
  // The log-normal ends reach past the others' range. D 1.4 against {0.8, 1.0, 1.2}: logs
  // -0.22314, 0, 0.18232, mean -0.01361, squared deviations 0.04389 + 0.00019 + 0.03838 =
  // 0.08246, variance 0.08246 / 3 x 3 / 2 = 0.04123, s = 0.20305; at the 0.025 tail z = 1.95996:
  // [exp(-0.41158), exp(0.38437)] = [0.6626, 1.4687], which holds 1.4. A 0.8 against
  // {1.0, 1.2, 1.4}: mean 0.17294, s = 0.16845, [exp(-0.15722), ...] = [0.8545, ...]: still below.
  // B and C stay inside: 75%, the closest to 80% of the eight rules, so it is chosen.
  const calibrate::BandRule ln{calibrate::BandShape::LogNormal, 0.025};
  const auto lc3 = calibrate::cv_band_coverage(r, calibrate::BandTails{ln, ln, ln});
  CHECK(lc3[0].covered_pct == doctest::Approx(75));
  CHECK(lc3[0].below_pct == doctest::Approx(25));
  CHECK(calibrate::choose_band_tails(r)[static_cast<std::size_t>(hardware::GpuArch::Hopper)] == ln);
  CHECK(to_string(ln) == "lognormal 0.025");
  const auto [lo, hi] = calibrate::log_normal_ends({{0.8, 1}, {1.0, 1}, {1.2, 1}}, 3, 0.025);
  CHECK(lo == doctest::Approx(0.6626).epsilon(1e-3));
  CHECK(hi == doctest::Approx(1.4687).epsilon(1e-3));
  // One group: its runs' own spread, uncorrected. Logs -0.22314 and 0.22314, mean 0, s =
  // 0.22314; at the 0.10 tail z = 1.28155: exp(-/+0.28597) = 0.7513, 1.3310.
  const auto [one_lo, one_hi] = calibrate::log_normal_ends({{0.8, 0.5}, {1.25, 0.5}}, 1, 0.10);
  CHECK(one_lo == doctest::Approx(0.7513).epsilon(1e-3));
  CHECK(one_hi == doctest::Approx(1.3310).epsilon(1e-3));
  // A group whose generation has no other group has no band: counted, and not as covered.
  calibrate::CrossValidationResult lone;
  lone.groups = {"A"};
  lone.predictions.push_back(held_out("A", 1.0));
  const auto lc = calibrate::cv_band_coverage(lone);
  CHECK(lc[0].no_band == 1);
  CHECK(lc[0].covered_pct == 0);
}

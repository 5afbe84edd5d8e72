// calibrate_profile on synthetic runs: the fit recovers the coefficient the measurements were
// made with, also when a run leaves its micro-batch open (resolved by the run-schema rule with
// the coefficients being fitted, never by the measurement).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/calibrate/calibrate.hpp"
#include "flopcast/cost/op_cost.hpp"
#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"

using namespace flopcast;

namespace {

/// A GPT-like run on 8 A100; `micro_batch` 0 leaves the key out (the loader applies the default 1).
scenario::Scenario run(int hidden, int micro_batch) {
  std::string text = "model:\n  layers: 4\n  hidden: " + std::to_string(hidden) +
                     "\n  heads: 16\n  vocab: 32000\n  seq_len: 2048\ncluster:\n  gpu: A100-80G\n  gpus: 8\n"
                     "parallel:\n  tp: 2\n  dp: 4\n  global_batch: 64\n";
  if (micro_batch > 0) text += "  micro_batch: " + std::to_string(micro_batch) + "\n";
  text += "precision: bf16\n";
  scenario::Diagnostics d;
  auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  return *s;
}

compute::ComputeProfile truth() {
  compute::ComputeProfile p;
  p.of(hardware::GpuArch::Ampere).gemm = 0.75;
  p.host_overhead_us = 40;
  return p;
}

/// Runs "measured" with the truth profile at micro-batch 4; `state_mb` says whether the file
/// states it.
std::vector<scenario::Scenario> measured_runs(bool state_mb) {
  std::vector<scenario::Scenario> out;
  for (int hidden : {1024, 2048, 3072}) {
    const scenario::Scenario at4 = run(hidden, 4);
    scenario::Scenario r = run(hidden, state_mb ? 4 : 0);
    r.measured["iteration_time_s"] = estimate::estimate_step(at4, truth()).step.seconds();
    out.push_back(r);
  }
  return out;
}

}  // namespace

TEST_CASE("calibrate recovers the GEMM efficiency the runs were measured with") {
  compute::ComputeProfile start = truth();
  start.of(hardware::GpuArch::Ampere).gemm = 0.5;
  calibrate::CalibrationOptions o;
  o.parameters = {"ampere.gemm"};
  const auto res = calibrate::calibrate_profile(measured_runs(true), start, o);
  CHECK(res.profile.of(hardware::GpuArch::Ampere).gemm == doctest::Approx(0.75).epsilon(0.01));
  CHECK(res.rms_after_pct < 0.5);
  CHECK(res.rms_before_pct > 5);
}

TEST_CASE("calibrate recovers an 8-bit GEMM efficiency apart from the 16-bit one, and leaves it tied unless fitted") {
  // H100 runs in BF16 and FP8 "measured" with hopper gemm 0.70 and gemm_fp8 0.55 apart; the start
  // profile has both tied at 0.60.
  auto h100_run = [](int hidden, const char* precision) {
    std::string text = "model:\n  layers: 4\n  hidden: " + std::to_string(hidden) +
                       "\n  heads: 16\n  vocab: 32000\n  seq_len: 2048\ncluster:\n  gpu: H100\n  gpus: 8\n"
                       "parallel:\n  tp: 2\n  dp: 4\n  micro_batch: 4\n  global_batch: 64\nprecision: " +
                       std::string(precision) + "\n";
    scenario::Diagnostics d;
    auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
    REQUIRE_MESSAGE(s.has_value(), d.str());
    return *s;
  };
  compute::ComputeProfile truth_apart = truth();
  truth_apart.of(hardware::GpuArch::Hopper).gemm = 0.70;
  truth_apart.of(hardware::GpuArch::Hopper).gemm_fp8 = 0.55;
  truth_apart.of(hardware::GpuArch::Hopper).fp8_apart = true;
  std::vector<scenario::Scenario> runs;
  for (int hidden : {2048, 4096, 6144})
    for (const char* precision : {"bf16", "fp8"}) {
      scenario::Scenario r = h100_run(hidden, precision);
      r.measured["iteration_time_s"] = estimate::estimate_step(r, truth_apart).step.seconds();
      runs.push_back(r);
    }
  compute::ComputeProfile start = truth_apart;
  start.of(hardware::GpuArch::Hopper).gemm = 0.60;
  start.of(hardware::GpuArch::Hopper).fp8_apart = false;
  calibrate::CalibrationOptions both;
  both.parameters = {"hopper.gemm", "hopper.gemm_fp8"};
  const auto apart = calibrate::calibrate_profile(runs, start, both);
  CHECK(apart.profile.of(hardware::GpuArch::Hopper).fp8_apart);
  CHECK(apart.profile.of(hardware::GpuArch::Hopper).gemm == doctest::Approx(0.70).epsilon(0.01));
  CHECK(apart.profile.of(hardware::GpuArch::Hopper).gemm_fp8 == doctest::Approx(0.55).epsilon(0.01));
  CHECK(apart.rms_after_pct < 0.5);
  // Fitting `gemm` alone keeps them tied: one efficiency for both, between the two truths.
  calibrate::CalibrationOptions one;
  one.parameters = {"hopper.gemm"};
  const auto tied = calibrate::calibrate_profile(runs, start, one);
  CHECK_FALSE(tied.profile.of(hardware::GpuArch::Hopper).fp8_apart);
  CHECK(tied.profile.of(hardware::GpuArch::Hopper).gemm > 0.55);
  CHECK(tied.profile.of(hardware::GpuArch::Hopper).gemm < 0.70);
  CHECK(tied.rms_after_pct > 1);
}

TEST_CASE("calibrate: an unstated micro-batch is resolved as the fastest that fits, with the profile being fitted") {
  // Runs measured with the truth profile at the micro-batch the run-schema rule picks with it
  // (the fastest that fits: setting_resolution.hpp); the files leave it open (`auto`).
  std::vector<scenario::Scenario> runs;
  std::vector<std::int64_t> truth_mb;
  for (int hidden : {1024, 2048, 3072}) {
    scenario::Scenario r = run(hidden, 0);
    r.open_settings.micro_batch = true;
    r.source_group = "synthetic";
    scenario::Scenario t = r;
    estimate::resolve_open_settings(t, truth());
    truth_mb.push_back(t.plan.micro_batch);
    r.measured["iteration_time_s"] = estimate::estimate_step(t, truth()).step.seconds();
    runs.push_back(r);
  }
  // The rule picks more than the default 1 here (host-bound small micro-batches are slower).
  CHECK(truth_mb[0] > 1);
  compute::ComputeProfile start = truth();
  start.of(hardware::GpuArch::Ampere).gemm = 0.5;
  calibrate::CalibrationOptions o;
  o.parameters = {"ampere.gemm"};
  const auto res = calibrate::calibrate_profile(runs, start, o);
  // With the fitted coefficient the rule picks what it picks with the truth, and the runs are
  // explained: the fit recovers the GEMM efficiency they were measured with.
  CHECK(res.profile.of(hardware::GpuArch::Ampere).gemm == doctest::Approx(0.75).epsilon(0.01));
  CHECK(res.rms_after_pct < 0.5);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    CAPTURE(i);
    scenario::Scenario r = runs[i];
    estimate::resolve_open_settings(r, res.profile);
    CHECK(r.plan.micro_batch == truth_mb[i]);
  }
  CHECK(res.profile.fitted_runs[static_cast<std::size_t>(hardware::GpuArch::Ampere)] == 3);
  CHECK(res.profile.fitted_runs[static_cast<std::size_t>(hardware::GpuArch::Hopper)] == 0);  // prior only
}

namespace {

/// An all-reduce point on `gpus` A100s in one node, "measured" with `latency_us` added to
/// NCCL's model: the time_us nccl-tests would print.
calibrate::MeasuredCollective allreduce_point(std::int64_t gpus, double bytes, double latency_us) {
  const auto& cat = test::shipped_catalog();
  calibrate::MeasuredCollective pt;
  pt.id = "ar-" + std::to_string(gpus) + "-" + std::to_string(static_cast<long long>(bytes));
  pt.gpu = *cat.find_gpu("A100-80G");
  pt.fabric = *cat.find_fabric(pt.gpu.default_fabric);
  pt.gpus = gpus;
  pt.message_bytes = bytes;
  pt.measured["time_us"] = 1.0;
  compute::ComputeProfile p;
  p.collective_latency_us = latency_us;
  std::string why;
  const auto c = calibrate::compare_collective(pt, p, why);
  REQUIRE_MESSAGE(why.empty(), why);
  REQUIRE(c.size() == 1);
  pt.measured["time_us"] = c[0].predicted;
  return pt;
}

}  // namespace

TEST_CASE("collective_latency_us adds its microseconds to every collective's time") {
  const auto pt = allreduce_point(8, 4.0 * 1048576, 0.0);
  compute::ComputeProfile p;
  std::string why;
  const double base = calibrate::compare_collective(pt, p, why)[0].predicted;
  p.collective_latency_us = 30;
  const double with = calibrate::compare_collective(pt, p, why)[0].predicted;
  CHECK(with - base == doctest::Approx(30.0).epsilon(1e-6));
}

TEST_CASE("calibrate recovers the collective latency nccl-tests points were measured with") {
  calibrate::CalibrationOptions o;
  for (std::int64_t n : {2, 4, 8})
    for (double mib : {1.0, 4.0, 16.0, 64.0}) o.collectives.push_back(allreduce_point(n, mib * 1048576, 25.0));
  compute::ComputeProfile start;  // latency 0: every point predicted too fast
  // Parameters left to the fit's own choice: only the latency is informed by these points
  // alone (no runs, so no compute coefficient; the link efficiencies stay out unless named).
  o.parameters = {"collective_latency_us"};
  const auto res = calibrate::calibrate_profile({}, start, o);
  CHECK(res.profile.collective_latency_us == doctest::Approx(25.0).epsilon(0.01));
  CHECK(res.rms_before_pct > 5);
  CHECK(res.rms_after_pct < 0.1);
  REQUIRE(res.fitted.size() == 1);
  CHECK(res.fitted[0] == "collective_latency_us");
}

TEST_CASE("calibrate leaves the collective latency alone without sized collective points") {
  calibrate::CalibrationOptions o;  // no parameters named: those the data can inform
  const auto res = calibrate::calibrate_profile(measured_runs(true), truth(), o);
  CHECK(std::find(res.fitted.begin(), res.fitted.end(), "collective_latency_us") == res.fitted.end());
  o.collectives.push_back(allreduce_point(8, 1048576, 10.0));
  const auto with_points = calibrate::calibrate_profile(measured_runs(true), truth(), o);
  CHECK(std::find(with_points.fitted.begin(), with_points.fitted.end(), "collective_latency_us") !=
        with_points.fitted.end());
}

TEST_CASE("a profile written by calibrate reads back with its collective latency, a negative one is refused") {
  compute::ComputeProfile p;
  p.collective_latency_us = 29.5;
  p.host_overhead_us = 45.8;
  scenario::Diagnostics d;
  const auto back = io::parse_profile(io::profile_to_yaml(p), "p.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(back.has_value(), d.str());
  CHECK(back->collective_latency_us == doctest::Approx(29.5));
  CHECK(back->host_overhead_us == doctest::Approx(45.8));
  scenario::Diagnostics bad;
  CHECK_FALSE(io::parse_profile("collective_latency_us: -3\n", "bad.yaml", compute::ComputeProfile{}, bad).has_value());
  CHECK_MESSAGE(bad.str().find("collective_latency_us") != std::string::npos, bad.str());
  CHECK_MESSAGE(bad.str().find("bad.yaml:1") != std::string::npos, bad.str());
}

TEST_CASE("a profile's held and kernel-fitted coefficients read back, an unknown name is refused with its file:line") {
  compute::ComputeProfile p;
  p.held = {"hopper.hbm", "kernel_overhead_us"};
  p.kernel_fitted = {"hopper.hbm", "dispatch_copy_ns"};
  p.dispatch_copy_ns = 377.5;
  scenario::Diagnostics d;
  const auto back = io::parse_profile(io::profile_to_yaml(p), "p.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(back.has_value(), d.str());
  CHECK(back->held == p.held);
  CHECK(back->kernel_fitted == p.kernel_fitted);
  CHECK(back->dispatch_copy_ns == doctest::Approx(377.5));
  scenario::Diagnostics bad;
  CHECK_FALSE(
      io::parse_profile("kernel_fitted: [hoper.hbm]\n", "bad.yaml", compute::ComputeProfile{}, bad).has_value());
  CHECK_MESSAGE(bad.str().find("bad.yaml:1") != std::string::npos, bad.str());
  CHECK_MESSAGE(bad.str().find("did you mean 'hopper.hbm'") != std::string::npos, bad.str());
}

TEST_CASE(
    "gemm_fp8 is written for Hopper and Blackwell and read back, a profile without it takes gemm, Ampere has none") {
  compute::ComputeProfile p;
  p.of(hardware::GpuArch::Hopper).gemm = 0.61;
  p.of(hardware::GpuArch::Hopper).gemm_fp8 = 0.55;
  p.of(hardware::GpuArch::Hopper).fp8_apart = true;
  p.of(hardware::GpuArch::Blackwell).gemm_fp8 = 0.48;
  p.of(hardware::GpuArch::Blackwell).fp8_apart = true;
  const std::string yaml = io::profile_to_yaml(p);
  CHECK(yaml.find("hopper: {gemm: 0.61, gemm_fp8: 0.55,") != std::string::npos);
  // Every coefficient a generation has, in profile_parameters() order; Ampere has no 8-bit path.
  CHECK(yaml.find("ampere: {gemm: 0.8, grouped_gemm: 1, flash_attention:") != std::string::npos);
  // Tied, it is not written: the file says what the model uses.
  compute::ComputeProfile tied;
  CHECK(io::profile_to_yaml(tied).find("gemm_fp8") == std::string::npos);
  scenario::Diagnostics d;
  const auto back = io::parse_profile(yaml, "p.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(back.has_value(), d.str());
  CHECK(back->of(hardware::GpuArch::Hopper).fp8_apart);
  CHECK(back->of(hardware::GpuArch::Hopper).gemm_fp8 == doctest::Approx(0.55));
  CHECK(back->of(hardware::GpuArch::Blackwell).gemm_fp8 == doctest::Approx(0.48));
  // A profile from before the two were apart: 8-bit GEMMs reach what 16-bit ones do.
  scenario::Diagnostics old;
  const auto before = io::parse_profile("hopper: {gemm: 0.7, flash_attention: 0.5, hbm: 0.6}\n", "old.yaml",
                                        compute::ComputeProfile{}, old);
  REQUIRE_MESSAGE(before.has_value(), old.str());
  CHECK_FALSE(before->of(hardware::GpuArch::Hopper).fp8_apart);
  CHECK(cost::gemm_efficiency(before->of(hardware::GpuArch::Hopper), hardware::Precision::FP8) == doctest::Approx(0.7));
  // Ampere has no 8-bit tensor cores: the key is an error at its line.
  scenario::Diagnostics bad;
  CHECK_FALSE(io::parse_profile("ampere: {gemm: 0.7, gemm_fp8: 0.6}\n", "bad.yaml", compute::ComputeProfile{}, bad)
                  .has_value());
  CHECK_MESSAGE(bad.str().find("bad.yaml:1") != std::string::npos, bad.str());
  CHECK_MESSAGE(bad.str().find("gemm_fp8") != std::string::npos, bad.str());
}

TEST_CASE("a profile's prediction bands read back, decreasing quantiles and unknown bands are refused") {
  compute::ComputeProfile p;
  compute::BandQuantiles b;
  b.arch = hardware::GpuArch::Hopper;
  b.regime = compute::kBandRegimeMoe;
  b.runs = 12;
  b.groups = 4;
  b.p10 = 0.62;
  b.p50 = 0.9;
  b.p90 = 1.3;
  p.bands = {b};
  p.bands_provenance = "flopcast calibrate runs.yaml --cv source -o p.yaml";
  scenario::Diagnostics d;
  const auto back = io::parse_profile(io::profile_to_yaml(p), "p.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(back.has_value(), d.str());
  REQUIRE(back->bands.size() == 1);
  CHECK(back->bands[0].arch == hardware::GpuArch::Hopper);
  CHECK(back->bands[0].regime == "moe");
  CHECK(back->bands[0].runs == 12);
  CHECK(back->bands[0].groups == 4);
  CHECK(back->bands[0].p10 == doctest::Approx(0.62));
  CHECK(back->bands[0].p90 == doctest::Approx(1.3));
  CHECK(back->bands_provenance == p.bands_provenance);
  scenario::Diagnostics bad;
  CHECK_FALSE(io::parse_profile("prediction_bands:\n  hopper: {runs: 3, groups: 2, p10: 1.2, p50: 1.0, p90: 1.4}\n",
                                "bad.yaml", compute::ComputeProfile{}, bad)
                  .has_value());
  CHECK_MESSAGE(bad.str().find("must not decrease") != std::string::npos, bad.str());
  scenario::Diagnostics typo;
  CHECK_FALSE(io::parse_profile("prediction_bands:\n  hoper: {runs: 3, groups: 2, p10: 0.8, p50: 1.0, p90: 1.4}\n",
                                "typo.yaml", compute::ComputeProfile{}, typo)
                  .has_value());
  CHECK_MESSAGE(typo.str().find("did you mean 'hopper'") != std::string::npos, typo.str());
  CHECK_MESSAGE(typo.str().find("typo.yaml:2") != std::string::npos, typo.str());
}

TEST_CASE("calibrate on collective points alone fits only the collective knobs") {
  calibrate::CalibrationOptions o;  // no parameters named
  for (double mib : {1.0, 8.0, 64.0}) o.collectives.push_back(allreduce_point(8, mib * 1048576, 20.0));
  const auto res = calibrate::calibrate_profile({}, compute::ComputeProfile{}, o);
  for (const auto& name : res.fitted) {
    CAPTURE(name);
    // The floor of the points' generation (A100: Ampere's) and the shared one it falls back to.
    CHECK((name == "collective_latency_us" || name == "ampere.collective_latency_us" || name == "nvlink_efficiency"));
  }
  // No Hopper point: Hopper's floor is not the data's to fit.
  CHECK(std::find(res.fitted.begin(), res.fitted.end(), "hopper.collective_latency_us") == res.fitted.end());
  CHECK(res.profile.collective_latency_of(hardware::GpuArch::Ampere) > 5.0);
}

TEST_CASE("the shared collective floor is not fitted on points whose generation has a floor of its own") {
  calibrate::CalibrationOptions o;
  o.parameters = {"collective_latency_us"};
  for (double mib : {1.0, 8.0, 64.0}) o.collectives.push_back(allreduce_point(8, mib * 1048576, 20.0));
  compute::ComputeProfile start;
  start.collective_latency_us = 5;
  start.of(hardware::GpuArch::Ampere).collective_latency_us = 20;  // the A100 points' own floor
  const auto res = calibrate::calibrate_profile({}, start, o);
  CHECK(std::find(res.fitted.begin(), res.fitted.end(), "collective_latency_us") == res.fitted.end());
  CHECK(res.profile.collective_latency_us == doctest::Approx(5));
  // Without Ampere's own floor the same points fit the shared one.
  start.of(hardware::GpuArch::Ampere).collective_latency_us = compute::kTied;
  const auto shared = calibrate::calibrate_profile({}, start, o);
  CHECK(std::find(shared.fitted.begin(), shared.fitted.end(), "collective_latency_us") != shared.fitted.end());
  CHECK(shared.profile.collective_latency_us == doctest::Approx(20).epsilon(0.1));
  // Named, Ampere's tied floor starts from the shared 5 us and is fitted apart, to the points' 20.
  o.parameters = {"ampere.collective_latency_us"};
  const auto own = calibrate::calibrate_profile({}, start, o);
  CHECK(std::find(own.fitted.begin(), own.fitted.end(), "ampere.collective_latency_us") != own.fitted.end());
  CHECK(own.profile.of(hardware::GpuArch::Ampere).collective_latency_us == doctest::Approx(20).epsilon(0.1));
  CHECK(own.profile.collective_latency_us == doctest::Approx(5));
}

TEST_CASE("a profile's held coefficients stay as they are unless --param names them, unknown names are refused") {
  compute::ComputeProfile start = truth();
  start.of(hardware::GpuArch::Ampere).gemm = 0.5;
  start.held = {"ampere.gemm"};
  calibrate::CalibrationOptions o;  // no parameters named: those the runs inform, less the held ones
  const auto res = calibrate::calibrate_profile(measured_runs(true), start, o);
  CHECK(std::find(res.fitted.begin(), res.fitted.end(), "ampere.gemm") == res.fitted.end());
  CHECK(res.profile.of(hardware::GpuArch::Ampere).gemm == 0.5);
  CHECK(res.profile.held == std::vector<std::string>{"ampere.gemm"});  // carried into the fitted profile
  o.parameters = {"ampere.gemm"};                                      // named: fitted after all
  CHECK(calibrate::calibrate_profile(measured_runs(true), start, o).profile.of(hardware::GpuArch::Ampere).gemm ==
        doctest::Approx(0.75).epsilon(0.01));
  // The YAML form round-trips; a misspelt name is an error with its line and a did-you-mean.
  scenario::Diagnostics d;
  const auto back = io::parse_profile(io::profile_to_yaml(res.profile), "p.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(back.has_value(), d.str());
  CHECK(back->held == std::vector<std::string>{"ampere.gemm"});
  CHECK(back->fitted_runs == res.profile.fitted_runs);
  scenario::Diagnostics bad;
  CHECK_FALSE(io::parse_profile("held: [kernel_overhead]\n", "bad.yaml", compute::ComputeProfile{}, bad).has_value());
  CHECK_MESSAGE(bad.str().find("bad.yaml:1:8: error: held: unknown coefficient 'kernel_overhead' (hint: did you mean "
                               "'kernel_overhead_us'?)") != std::string::npos,
                bad.str());
}

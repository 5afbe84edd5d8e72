#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "flopcast/job/job_simulation.hpp"
#include "flopcast/job/rng.hpp"
#include "flopcast/job/young_daly.hpp"

using namespace flopcast;

namespace {

/// 8 A100 (400 W TDP) in one DGX A100 (6,500 W, NV-DGXA100), 1 B params.
job::JobInput small_job() {
  job::JobInput in;
  in.step_time = units::Time::from_seconds(10);
  in.steps = 1000;
  in.gpus = 8;
  in.gpus_per_node = 8;
  in.params = 1e9;  // checkpoint 14 GB; at 5 GB/s: 2.8 s
  in.gpu_tdp_w = 400;
  in.node_power_w = 6500;
  in.reliability.failures_per_gpu_hour = 0.0;
  in.reliability.checkpoint_interval = units::Time::from_seconds(1000);  // 100 steps
  in.reliability.trials = 5;
  return in;
}

/// Failures at lambda = 1/h (1,000 GPUs x 1e-3 per GPU-hour), 36 s steps, 60 s sync
/// checkpoints every 50 steps (1,800 s), restart 600 s: the run of the closed-form test.
job::JobInput failing_job() {
  job::JobInput in;
  in.step_time = units::Time::from_seconds(36);
  in.steps = 1000;
  in.gpus = 1000;
  in.params = 15e9 / 14.0 * 20.0;  // 21.43e9 params x 14 B = 300 GB; at 5 GB/s = 60 s
  in.gpu_tdp_w = 700;
  in.reliability.failures_per_gpu_hour = 1e-3;
  in.reliability.restart_time = units::Time::from_seconds(600);
  in.reliability.checkpoint_interval = units::Time::from_seconds(1800);
  in.reliability.async_checkpoint = false;
  in.reliability.trials = 4000;
  in.reliability.seed = 2024;
  return in;
}

bool same(const job::JobTrial& a, const job::JobTrial& b) {
  return a.gpu_span == b.gpu_span && a.wall == b.wall && a.training == b.training && a.lost_work == b.lost_work &&
         a.checkpoint_stall == b.checkpoint_stall && a.restart == b.restart && a.failures == b.failures &&
         a.checkpoints == b.checkpoints && a.checkpoints_skipped == b.checkpoints_skipped &&
         a.it_energy_kwh == b.it_energy_kwh;
}

}  // namespace

TEST_CASE("job: without failures the span is the work plus sync checkpoint stalls") {
  job::JobInput in = small_job();
  in.reliability.async_checkpoint = false;
  in.reliability.provisioning = units::Time::from_seconds(3 * 86400);  // H100 "3-day queue"
  in.reliability.debug_phase = units::Time::from_seconds(7200);
  const job::JobOutcome out = job::simulate_job(in);
  REQUIRE(out.ok());
  const job::JobResult& r = out.result;
  // Checkpoint: 1e9 params x 14 B = 14 GB; 14e9 B / 5e9 B/s = 2.8 s.
  CHECK(r.checkpoint_size.value == doctest::Approx(14e9));
  CHECK(r.checkpoint_write.ns == 2'800'000'000);
  // 1,000 steps / 100 per checkpoint = 10 segments; the last needs no checkpoint:
  // 1,000 x 10 s + 9 x 2.8 s = 10,025.2 s.
  CHECK(r.steps_per_checkpoint == 100);
  CHECK(r.gpu_span_p50.ns == 10'025'200'000'000);
  CHECK(r.gpu_span_p90 == r.gpu_span_p50);
  // Wall adds the 3-day queue and the 2 h debug phase: 259,200 + 7,200 + 10,025.2 s.
  CHECK(r.wall_p50.ns == 276'425'200'000'000);
  CHECK(r.samples[0].checkpoints == 9);
  CHECK(r.checkpoint_stall_mean.seconds() == doctest::Approx(25.2));
  // Goodput 10,000 / 10,025.2 = 0.997486.
  CHECK(r.goodput_mean == doctest::Approx(0.997486).epsilon(1e-6));
  // GPU-hours 8 x 10,025.2 / 3,600 = 22.2782.
  CHECK(r.gpu_hours_mean == doctest::Approx(22.2782).epsilon(1e-5));
  CHECK(r.failures_mean == 0.0);
}

TEST_CASE("job: async checkpoints cost only their snapshot stall") {
  job::JobInput in = small_job();
  // Derived stall: each GPU's share of the 14 GB checkpoint over PCIe Gen4 x16 (24 GB/s, NCCL
  // topo model): 14e9 / 8 / 24e9 = 0.0729167 s -> 72,916,667 ns; 9 checkpoints:
  // span = 10,000 s + 9 x 72,916,667 ns.
  const job::JobOutcome out = job::simulate_job(in);
  REQUIRE(out.ok());
  CHECK(out.result.checkpoint_stall.ns == 72'916'667);
  CHECK(out.result.gpu_span_p50.ns == 10'000'000'000'000 + 9 * 72'916'667);
  CHECK(out.result.samples[0].checkpoints == 9);
  // Stall 0: span = 1,000 x 10 s exactly; the 9 writes of 2.8 s all finish inside the run.
  in.reliability.async_stall = units::Time{0};
  const job::JobResult r0 = job::simulate_job(in).result;
  CHECK(r0.gpu_span_p50.ns == 10'000'000'000'000);
  CHECK(r0.samples[0].checkpoints == 9);
  CHECK(r0.goodput_mean == 1.0);
  // An async stall of 1 s costs 9 s.
  in.reliability.async_stall = units::Time::from_seconds(1);
  CHECK(job::simulate_job(in).result.gpu_span_p50.ns == 10'009'000'000'000);
}

TEST_CASE("job: energy from GPU power, node overhead and PUE") {
  job::JobInput in = small_job();
  in.steps = 36000;  // 100 h of 10 s steps
  in.params = 0;     // free checkpoints: the span is exactly 100 h
  in.energy.pue = 1.5;
  const job::JobOutcome out = job::simulate_job(in);
  REQUIRE(out.ok());
  const job::EnergyResult& e = out.result.energy;
  // DGX A100 6,500 W, 8 x 400 W GPUs: overhead 3,300 W; at utilisation 1.0 the node draws
  // 3,200 + 3,300 = 6,500 W; 100 h -> 650 kWh IT, x PUE 1.5 = 975 kWh, x $0.08 = $78.00.
  CHECK(e.it_kwh == doctest::Approx(650.0));
  CHECK(e.facility_kwh == doctest::Approx(975.0));
  CHECK(e.avg_it_power_kw == doctest::Approx(6.5));
  CHECK(e.cost.minor == 7800);
  CHECK(e.cost.currency.str() == "USD");
  // Utilisation 0.5 with idle at 15 % of TDP: GPU 400 x (0.15 + 0.85 x 0.5) = 230 W;
  // 8 x 230 + 3,300 = 5,140 W -> 514 kWh IT.
  in.gpu_utilisation = 0.5;
  CHECK(job::simulate_job(in).result.energy.it_kwh == doctest::Approx(514.0));
  // Unknown node power: overhead 0.8 x 8 x 400 = 2,560 W; 3,200 + 2,560 = 5,760 W -> 576 kWh.
  in.gpu_utilisation = 1.0;
  in.node_power_w = 0;
  CHECK(job::simulate_job(in).result.energy.it_kwh == doctest::Approx(576.0));
}

TEST_CASE("job: Monte Carlo matches the closed-form expectation for exponential failures") {
  const job::JobInput in = failing_job();
  const job::JobOutcome out = job::simulate_job(in);
  REQUIRE(out.ok());
  const job::JobResult& r = out.result;
  REQUIRE(r.checkpoint_write.ns == 60'000'000'000);
  REQUIRE(r.steps_per_checkpoint == 50);
  // Closed form (test_young_daly.cpp): 19 x 2,876.79 + 2,758.95 = 57,417.9 s.
  const double expected_s = 57417.9;
  CHECK(r.gpu_span_expected_closed_form.seconds() == doctest::Approx(expected_s).epsilon(1e-5));
  // Standard error of the mean over 4,000 trials: sample sd / sqrt(4,000).
  double var = 0;
  for (const auto& t : r.samples) {
    const double d = t.gpu_span.seconds() - r.gpu_span_mean.seconds();
    var += d * d;
  }
  const double se = std::sqrt(var / double(r.samples.size() - 1)) / std::sqrt(double(r.samples.size()));
  MESSAGE("MC mean " << r.gpu_span_mean.seconds() << " s, closed form " << expected_s << " s, standard error " << se
                     << " s");
  CHECK(std::abs(r.gpu_span_mean.seconds() - expected_s) < 4.0 * se);
  // Expected failures: lambda x E[span] = 57,417.9 / 3,600 = 15.95 (Poisson arrivals over
  // the whole span, restarts included).
  CHECK(r.failures_mean == doctest::Approx(57417.9 / 3600.0).epsilon(0.03));
  // Accounting adds up in every trial: span = training + stalls + restarts; training = useful
  // + lost work.
  for (const auto& t : r.samples) {
    REQUIRE(t.gpu_span == t.training + t.checkpoint_stall + t.restart);
    REQUIRE(t.training == r.useful + t.lost_work);
  }
  CHECK(r.gpu_span_p50 <= r.gpu_span_p90);
  CHECK(r.goodput_mean < 1.0);
}

TEST_CASE("job: segment batching is exact (same trials as one event per segment)") {
  // Batching also takes a restart that ends before the next failure at once: at 5e-3 failures
  // per GPU-hour on 1,000 GPUs a failure comes every 12 minutes on average, so many strike
  // during a 10-minute restart and many do not.
  for (bool async : {false, true}) {
    for (double rate : {2e-4, 5e-3}) {
      job::JobInput in = failing_job();
      in.reliability.async_checkpoint = async;
      in.reliability.async_stall = units::Time::from_seconds(3);
      in.reliability.checkpoint_interval = units::Time::from_seconds(360);  // 10 steps, write 60 s fits
      in.reliability.failures_per_gpu_hour = rate;
      for (std::uint64_t seed = 0; seed < 50; ++seed) {
        const job::JobTrial a = job::simulate_trial(in, 10, seed, job::JobSimOptions{true});
        const job::JobTrial b = job::simulate_trial(in, 10, seed, job::JobSimOptions{false});
        CAPTURE(async);
        CAPTURE(rate);
        CAPTURE(seed);
        REQUIRE(same(a, b));
      }
    }
  }
}

namespace {

/// The trial of a job without checkpoint or restart cost (a failure only loses the step it
/// strikes), computed here from Rng(seed) directly: each failure strikes `Rng::exponential`
/// after the previous one; a failure at the instant a step ends strikes after it.
job::JobTrial reference_trial(const job::JobInput& in, std::uint64_t seed) {
  job::Rng rng(seed);
  const double rate = job::job_failure_rate_per_s(in);
  units::Time now{0};
  units::Time next = rng.exponential(rate);
  std::int64_t progress = 0;
  job::JobTrial t;
  while (progress < in.steps) {
    const units::Time end = now + in.step_time;
    if (next < end) {
      ++t.failures;
      now = next;
      next = now + rng.exponential(rate);
    } else {
      ++progress;
      now = end;
    }
  }
  t.gpu_span = now;
  return t;
}

}  // namespace

TEST_CASE("job: a trial's failures are its seed's exponential draws, whatever ran before it on the thread") {
  // The failure draws of a seed are kept per thread and shared by every trial with that seed
  // (another rate, step time or interval): each trial must still strike where Rng(seed) says,
  // including past the kept draws (at 20 per GPU-hour on 8 GPUs a trial fails about 13,000 times).
  job::JobInput in = small_job();
  in.params = 0;  // no checkpoint write
  in.steps = 20000;
  in.reliability.restart_time = units::Time{0};
  std::vector<std::pair<double, units::Time>> runs = {
      {0.1, units::Time::from_seconds(10)},   // ~45 failures
      {20.0, units::Time::from_seconds(10)},  // ~13,000: past the kept
      {0.5, units::Time::from_seconds(7)},    // a shorter prefix again
      {25.0, units::Time::from_seconds(9)},   // past the kept, from the cache
      {0.1, units::Time::from_seconds(10)}};  // the first one again
  for (const auto& run : runs) {
    const auto per_gpu_hour = run.first;  // not a structured binding: CAPTURE's lambda takes it (clang 14)
    const auto step = run.second;
    in.reliability.failures_per_gpu_hour = per_gpu_hour;
    in.step_time = step;
    for (std::uint64_t seed : {3u, 4u, 3u}) {
      for (bool batch : {true, false}) {
        const job::JobTrial a = job::simulate_trial(in, 1, seed, job::JobSimOptions{batch});
        const job::JobTrial ref = reference_trial(in, seed);
        CAPTURE(per_gpu_hour);
        CAPTURE(seed);
        CAPTURE(batch);
        REQUIRE(a.failures == ref.failures);
        REQUIRE(a.gpu_span == ref.gpu_span);
      }
    }
  }
  // The second and the fourth run have more than the kept draws' worth of failures.
  in.reliability.failures_per_gpu_hour = 20.0;
  in.step_time = units::Time::from_seconds(10);
  CHECK(reference_trial(in, 3).failures > 5000);
}

TEST_CASE("job: same seed, identical results, different seed, different results") {
  job::JobInput in = failing_job();
  in.reliability.trials = 100;
  const job::JobResult a = job::simulate_job(in).result;
  const job::JobResult b = job::simulate_job(in).result;
  REQUIRE(a.samples.size() == b.samples.size());
  for (std::size_t i = 0; i < a.samples.size(); ++i) REQUIRE(same(a.samples[i], b.samples[i]));
  CHECK(a.gpu_span_p90 == b.gpu_span_p90);
  in.reliability.seed = 2025;
  CHECK(job::simulate_job(in).result.gpu_span_mean != a.gpu_span_mean);
  // Trial i does not depend on the number of trials.
  in.reliability.seed = 2024;
  in.reliability.trials = 10;
  const job::JobResult c = job::simulate_job(in).result;
  for (std::size_t i = 0; i < c.samples.size(); ++i) REQUIRE(same(c.samples[i], a.samples[i]));
}

TEST_CASE("job: trials spread over threads give the same samples as one thread") {
  job::JobInput in = failing_job();
  in.reliability.trials = 200;
  job::JobSimOptions one;
  one.threads = 1;
  job::JobSimOptions four;
  four.threads = 4;
  const job::JobResult a = job::simulate_job(in, one).result;
  const job::JobResult b = job::simulate_job(in, four).result;
  REQUIRE(a.samples.size() == 200);
  REQUIRE(b.samples.size() == a.samples.size());
  for (std::size_t i = 0; i < a.samples.size(); ++i) REQUIRE(same(a.samples[i], b.samples[i]));
  CHECK(a.gpu_span_p90 == b.gpu_span_p90);
}

TEST_CASE("job: P50/P90 are nearest-rank percentiles of the GPU span") {
  job::JobInput in = failing_job();
  in.reliability.trials = 10;
  const job::JobResult r = job::simulate_job(in).result;
  // N = 10: P50 = 5th smallest, P90 = 9th smallest.
  std::vector<std::int64_t> spans;
  for (const auto& t : r.samples) spans.push_back(t.gpu_span.ns);
  std::sort(spans.begin(), spans.end());
  CHECK(r.gpu_span_p50.ns == spans[4]);
  CHECK(r.gpu_span_p90.ns == spans[8]);
  CHECK(r.samples[r.p90_trial].gpu_span.ns == spans[8]);
}

TEST_CASE("job: Young/Daly advice and its simulated saving") {
  job::JobInput in = failing_job();
  in.reliability.trials = 500;
  in.reliability.checkpoint_interval = units::Time::from_seconds(4 * 3600);  // 400 steps: too long
  const job::JobOutcome out = job::simulate_job(in);
  REQUIRE(out.ok());
  const job::CheckpointAdvice& a = out.result.advice;
  // M = 1 h = 3,600 s, C = 60 s: Young sqrt(2 x 60 x 3,600) = 657.27 s; Daly:
  // x = 60/7,200 = 0.008333; 657.27 x (1 + 0.091287/3 + 0.008333/9) - 60 = 617.87 s,
  // rounded to whole 36 s steps: 17 steps = 612 s.
  CHECK(a.job_mtbf_hours == doctest::Approx(1.0));
  CHECK(a.young.seconds() == doctest::Approx(657.267).epsilon(1e-5));
  CHECK(a.daly.seconds() == doctest::Approx(617.87).epsilon(1e-4));
  CHECK(a.suggested.ns == 612'000'000'000);
  CHECK_FALSE(a.write_bound);  // sync: Daly's interval, nothing raises it
  CHECK(a.scenario.ns == 14'400'000'000'000);
  // Waste at 4 h: 60/14,400 + (7,200 + 600)/3,600 = 2.171; at 612 s: 60/612 + (306 + 600)/3,600
  // = 0.0980 + 0.2517 = 0.3497.
  CHECK(a.waste_scenario == doctest::Approx(2.1708).epsilon(1e-4));
  CHECK(a.waste_suggested == doctest::Approx(0.34971).epsilon(1e-4));
  CHECK(a.simulated);
  CHECK(a.gpu_hours_saved > 0.0);
  CHECK(a.span_saved.ns > 0);
  // Async: C is the snapshot stall, 300 GB / 1,000 GPUs / 24 GB/s = 0.0125 s, so Daly gives
  // ~9.5 s; but a checkpoint protects nothing before its 60 s write ends, so the suggestion is
  // the write time, rounded to 2 steps = 72 s. Waste there: 0.0125/72 + (36 + 60 + 600)/3,600
  // = 0.00017 + 0.19333 = 0.19351.
  job::JobInput async = in;
  async.reliability.async_checkpoint = true;
  const job::CheckpointAdvice b = job::simulate_job(async).result.advice;
  CHECK(b.checkpoint_cost.ns == 12'500'000);
  CHECK(b.daly.seconds() == doctest::Approx(9.4785).epsilon(1e-4));
  CHECK(b.suggested.ns == 72'000'000'000);
  CHECK(b.write_bound);  // the report and the quote say the write, not Young/Daly, set it
  // A snapshot stall of 60 s gives Daly's 617.87 s again, longer than the 60 s write: Daly's.
  job::JobInput slow_snapshot = async;
  slow_snapshot.reliability.async_stall = units::Time::from_seconds(60);
  const job::CheckpointAdvice c = job::simulate_job(slow_snapshot).result.advice;
  CHECK(c.suggested.ns == 612'000'000'000);
  CHECK_FALSE(c.write_bound);
  CHECK(b.waste_suggested == doctest::Approx(0.19351).epsilon(1e-4));
  CHECK(b.gpu_hours_saved > 0.0);
  // Interval 0 = use the suggestion; nothing to save then.
  in.reliability.checkpoint_interval = units::Time{0};
  const job::JobResult r = job::simulate_job(in).result;
  CHECK(r.steps_per_checkpoint == 17);
  CHECK_FALSE(r.advice.simulated);
  CHECK(r.advice.gpu_hours_saved == 0.0);
}

TEST_CASE("job: async writes longer than the interval skip checkpoints and warn") {
  job::JobInput in = small_job();
  in.params = 1e10;  // 140 GB at 5 GB/s = 28 s > 2 steps of 10 s
  in.reliability.checkpoint_interval = units::Time::from_seconds(20);
  in.reliability.async_stall = units::Time{0};
  const job::JobResult r = job::simulate_job(in).result;
  REQUIRE(r.warnings.size() == 1);
  // Checkpoints fall due at steps 2, 4, ..., 998 (499). A write takes 28 s = 2.8 steps, so the
  // one due while a write runs is skipped: writes start at steps 2, 6, ..., 998 (250), 249 are
  // skipped, and the last write (from t = 9,980 s to 10,008 s) ends after the run: 249 durable.
  CHECK(r.samples[0].checkpoints_skipped == 249);
  CHECK(r.samples[0].checkpoints == 249);
  CHECK(r.gpu_span_p50.ns == 10'000'000'000'000);
}

TEST_CASE("job: the suggested async interval is never shorter than the write (rounded up, not to the nearest step)") {
  job::JobInput in = small_job();
  in.params = 7.5e9;                            // 105 GB at 5 GB/s = 21 s = 2.1 steps of 10 s
  in.reliability.failures_per_gpu_hour = 1e-2;  // 8 GPUs: MTBF 12.5 h
  in.reliability.async_checkpoint = true;
  in.reliability.async_stall = units::Time::from_seconds(1e-3);  // Daly ~9.5 s: the write bounds the suggestion
  in.reliability.checkpoint_interval = units::Time{0};           // checkpoint at the suggestion
  in.reliability.trials = 20;
  const job::JobResult r = job::simulate_job(in).result;
  REQUIRE(r.checkpoint_write.ns == 21'000'000'000);
  REQUIRE(r.advice.daly.seconds() < 21.0);
  // 2 steps (20 s, the nearest) would be shorter than the write and skip every other checkpoint.
  CHECK(r.steps_per_checkpoint == 3);
  CHECK(r.advice.suggested.ns == 30'000'000'000);
  CHECK(r.advice.write_bound);
  CHECK(r.warnings.empty());
  for (const auto& t : r.samples) CHECK(t.checkpoints_skipped == 0);
}

TEST_CASE("job: bad input is reported, never simulated") {
  job::JobInput in = small_job();
  in.steps = 0;
  in.gpus = -1;
  const job::JobOutcome out = job::simulate_job(in);
  CHECK_FALSE(out.ok());
  CHECK(out.errors.size() == 2);
  CHECK(out.errors[0] == "steps must be > 0 (got 0)");
  // An interval far above the MTBF would practically never finish: refused.
  job::JobInput slow = failing_job();
  slow.reliability.checkpoint_interval = units::Time::from_seconds(200 * 3600);
  slow.steps = 100000;
  const job::JobOutcome o2 = job::simulate_job(slow);
  REQUIRE_FALSE(o2.ok());
  CHECK(o2.errors[0].find("practically never finish") != std::string::npos);
}

TEST_CASE("job: without the advice's simulation the run is the same and only the suggested interval is not simulated") {
  job::JobInput in = failing_job();
  in.reliability.trials = 200;  // suggested interval (Young/Daly) differs from the 50 steps asked
  const job::JobResult with = job::simulate_job(in).result;
  REQUIRE(with.advice.simulated);
  job::JobSimOptions opt;
  opt.simulate_advice = false;
  const job::JobResult without = job::simulate_job(in, opt).result;
  CHECK_FALSE(without.advice.simulated);
  CHECK(without.advice.gpu_span_mean_suggested.ns == 0);
  CHECK(without.advice.gpu_hours_saved == 0.0);
  // The closed-form advice and the run itself, trial for trial, are as with it.
  CHECK(without.advice.suggested == with.advice.suggested);
  CHECK(without.advice.waste_suggested == with.advice.waste_suggested);
  CHECK(without.steps_per_checkpoint == with.steps_per_checkpoint);
  CHECK(without.wall_p50 == with.wall_p50);
  CHECK(without.wall_p90 == with.wall_p90);
  CHECK(without.gpu_span_mean == with.gpu_span_mean);
  REQUIRE(without.samples.size() == with.samples.size());
  for (std::size_t i = 0; i < with.samples.size(); ++i) CHECK(same(without.samples[i], with.samples[i]));
}

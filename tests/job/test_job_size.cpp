// The one job-size guard (flopcast/job/job_size.hpp) that `simulate`, `quote`, `sweep`, `fleet`,
// the plan search and the GUI ask before simulate_job.
#include <doctest/doctest.h>

#include "flopcast/job/job_size.hpp"

using namespace flopcast;

namespace {

/// 1,000 GPUs at 1e-3 failures per GPU-hour (1 failure per hour), 36 s steps, 1,000 steps (10 h).
job::JobInput ten_hour_job() {
  job::JobInput in;
  in.step_time = units::Time::from_seconds(36);
  in.steps = 1000;
  in.gpus = 1000;
  in.params = 1e9;
  in.gpu_tdp_w = 700;
  in.reliability.failures_per_gpu_hour = 1e-3;
  in.reliability.restart_time = units::Time::from_seconds(600);
  return in;
}

}  // namespace

TEST_CASE("job size: a ten-hour run with a failure an hour is simulated") {
  // 1/h x 10 h x e^(600/3600) = 11.8 failures per trial, x 2 runs x 200 trials = 4,700 draws.
  CHECK(job::job_too_big_to_simulate(ten_hour_job()).empty());
}

TEST_CASE("job size: a failure-free run over 100 years is refused with its length") {
  job::JobInput in = ten_hour_job();
  in.step_time = units::Time::from_seconds(10'000);
  in.steps = 1'000'000;  // 1e10 s = 317.1 years of 365 days
  CHECK(job::job_too_big_to_simulate(in) ==
        "the failure-free run alone takes 317 years: too long to put on a calendar (limit 100 years)");
}

TEST_CASE("job size: more than 5e6 failure draws are refused, naming the draws per trial") {
  job::JobInput in = ten_hour_job();
  in.reliability.failures_per_gpu_hour = 1.0;  // 1,000 failures per hour over 10 h
  in.reliability.restart_time = units::Time::from_seconds(1);
  // 1000/3600 /s x 36,000 s x e^(1000/3600) = 13,200 per trial; x 2 x 200 = 5.3e6 > 5e6.
  const std::string why = job::job_too_big_to_simulate(in);
  CHECK(why.rfind("about 1.32e+04 failures per trial x 200 trials: too many to simulate (limit 5e+06 in all)", 0) == 0);
  in.reliability.trials = 150;  // 4.0e6 draws: within the limit
  CHECK(job::job_too_big_to_simulate(in).empty());
}

TEST_CASE("job size: an input simulate_job rejects is left to simulate_job to report") {
  job::JobInput in = ten_hour_job();
  in.gpus = 0;
  CHECK(job::job_too_big_to_simulate(in).empty());
}

#include "flopcast/job/job_size.hpp"

#include <cmath>
#include <cstdio>

#include "flopcast/job/job_simulation.hpp"

namespace flopcast::job {
namespace {

constexpr double kSecondsPerYear = 365 * 86400.0;

}  // namespace

std::string job_too_big_to_simulate(const JobInput& in) {
  char buf[320];
  const double useful_s = in.step_time.seconds() * static_cast<double>(in.steps);
  if (useful_s > kMaxRunSeconds) {
    std::snprintf(buf, sizeof buf,
                  "the failure-free run alone takes %.3g years: too long to put on a calendar (limit %.0f years)",
                  useful_s / kSecondsPerYear, kMaxRunSeconds / kSecondsPerYear);
    return buf;
  }
  if (!validate_job_input(in).empty()) return "";
  // Expected failures of one trial: rate x time, restarts included (each lasts R and may be
  // interrupted, stretching the span by about e^(rate R)); each trial is run twice at most
  // (the scenario's interval and the Young/Daly one).
  const double rate = job_failure_rate_per_s(in);
  const double per_trial = rate * useful_s * std::exp(rate * in.reliability.restart_time.seconds());
  const double draws = per_trial * 2 * in.reliability.trials;
  if (draws > kMaxFailureDraws) {
    std::snprintf(buf, sizeof buf,
                  "about %.3g failures per trial x %d trials: too many to simulate (limit %.3g in all); "
                  "fewer GPUs, a lower failures_per_gpu_hour or fewer reliability.trials would fit",
                  per_trial, in.reliability.trials, kMaxFailureDraws);
    return buf;
  }
  return "";
}

}  // namespace flopcast::job

#pragma once
/// The one guard on how big a whole run may be before it is put on a calendar: every front and
/// the plan search ask it before simulate_job, so a run that would take minutes or overflow
/// the calendar's time is reported, not attempted.
#include <string>

#include "flopcast/job/job_input.hpp"

namespace flopcast::job {

/// Longest failure-free run put on a calendar: 100 years. Time is int64 nanoseconds (292
/// years) and failures, restarts and checkpoints stretch a run, so this keeps a factor of ~3
/// of headroom before the job simulation's times would overflow. (A fleet's horizon is at most
/// 10 years: a longer job simply does not finish within it.)
inline constexpr double kMaxRunSeconds = 100 * 365 * 86400.0;

/// Failures the Monte Carlo may draw for one job, all trials and the Young/Daly re-run
/// together. It draws about 2e6 per second on one core (quickstart at 0.1 failures per
/// GPU-hour: 200 trials x 9,380 failures in 1.0 s), so this bounds one job at a few seconds.
inline constexpr double kMaxFailureDraws = 5e6;

/// Why `in` is too big to simulate in reasonable time and memory (a failure-free run over
/// kMaxRunSeconds, or more than kMaxFailureDraws failures to draw), or "". Also "" when
/// validate_job_input rejects `in`: simulate_job reports that itself.
std::string job_too_big_to_simulate(const JobInput& in);

}  // namespace flopcast::job

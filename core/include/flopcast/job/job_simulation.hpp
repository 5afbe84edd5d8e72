#pragma once
/// The whole run on a calendar, as a small discrete-event simulation per trial:
/// provisioning -> CPU debug phase -> training in macro-steps (one checkpoint interval each)
/// -> checkpoints (sync: training stalls for the write; async: the write runs beside training
/// and protects work once finished) -> failures (Poisson, per-GPU-hour rate x GPUs), each
/// followed by a restart (failures may strike again during it) and a rollback to the last
/// durable checkpoint. A Monte Carlo over seeded trials summarises wall time, GPU-hours,
/// goodput and energy. Same input, same seed: byte-identical results.
#include <cstdint>
#include <string>
#include <vector>

#include "flopcast/job/job_input.hpp"
#include "flopcast/job/job_result.hpp"

namespace flopcast::job {

/// Knobs for tests; the defaults are what `simulate_job` uses.
struct JobSimOptions {
  /// Jump over whole failure-free checkpoint segments in one event instead of one event
  /// per segment, and take a restart that ends before the next failure at once instead of
  /// through the event queue. Exact (tests check identical trials); makes long runs cheap.
  bool batch_segments = true;
  /// Threads the trials are spread over (0: the machine's cores, at most 8). Each trial has
  /// its own seed and slot, so the result does not depend on it.
  int threads = 0;
  /// When the suggested checkpoint interval differs from the run's, simulate it too (the
  /// advice's `simulated`, mean span and savings). Off: only the run's own interval is
  /// simulated; the advice keeps its closed-form figures and its simulated ones stay unset
  /// (`simulated` false), for callers that read the run alone (the planner's re-simulation).
  bool simulate_advice = true;
};

/// Problems with a JobInput, one message each ("steps must be > 0 (got 0)"); empty = valid.
std::vector<std::string> validate_job_input(const JobInput& in);

/// Restartable checkpoint size: params x reliability.checkpoint_bytes_per_param.
units::Bytes checkpoint_size(const JobInput& in);

/// Time to write one checkpoint: size / storage write bandwidth (0 when bandwidth is 0).
units::Time checkpoint_write_time(const JobInput& in);

/// Training stall of one async checkpoint: reliability.async_stall when set, else each GPU's
/// share of the checkpoint (size / gpus, the fully sharded lower bound) over host_link.
units::Time async_stall_time(const JobInput& in);

/// Training stall of one checkpoint: the write time (sync) or async_stall_time (async).
units::Time checkpoint_stall_time(const JobInput& in);

/// Failures per second of the whole job: failures_per_gpu_hour x gpus / 3600.
double job_failure_rate_per_s(const JobInput& in);

/// Whole steps per checkpoint for an interval: round(interval / step_time), at least 1.
std::int64_t steps_per_checkpoint(units::Time interval, units::Time step_time);

/// The steps per checkpoint flopcast suggests (what `checkpoint_interval: auto` uses): the Daly
/// interval for the checkpoint's cost (sync write or async stall) and the job's MTBF; for async
/// checkpoints never shorter than the write, rounded up against it (a shorter interval would
/// skip every other checkpoint); the whole run when nothing fails.
std::int64_t suggested_steps_per_checkpoint(const JobInput& in);

/// One simulated run with a checkpoint every `steps_per_ckpt` steps, its random numbers drawn
/// from Rng(trial_seed). The input must be valid (validate_job_input).
JobTrial simulate_trial(const JobInput& in, std::int64_t steps_per_ckpt, std::uint64_t trial_seed,
                        const JobSimOptions& options = {});

/// The result of simulate_job, or why there is none.
struct JobOutcome {
  JobResult result;                 ///< filled only when ok()
  std::vector<std::string> errors;  ///< bad input, or a run that would practically never finish
  bool ok() const { return errors.empty(); }
};

/// Monte Carlo over in.reliability.trials trials; trial i is seeded with
/// mix_seed(in.reliability.seed, i). Also works out the Young/Daly interval and, when it
/// differs from the scenario's, simulates it with the same seeds to show the saving.
/// Bad input: `errors` lists the problems and nothing else is filled.
JobOutcome simulate_job(const JobInput& in, const JobSimOptions& options = {});

}  // namespace flopcast::job

#pragma once
/// Results of the whole-run simulation: one record per Monte Carlo trial and their summary.
#include <cstdint>
#include <string>
#include <vector>

#include "flopcast/units/money.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::job {

/// One simulated run. Times are durations; the GPU span starts when the GPUs are ready.
struct JobTrial {
  units::Time gpu_span;          ///< GPUs ready -> last step done: the GPU time that is paid for
  units::Time wall;              ///< provisioning + debug phase + gpu_span (calendar time)
  units::Time training;          ///< time spent computing steps, including steps later lost
  units::Time lost_work;         ///< training time redone after failures (part of `training`)
  units::Time checkpoint_stall;  ///< training stalled for checkpoints (sync writes, async snapshots)
  units::Time restart;           ///< restarting after failures (GPUs idle but paid)
  std::int64_t failures = 0;
  std::int64_t checkpoints = 0;          ///< checkpoints that completed (became durable)
  std::int64_t checkpoints_skipped = 0;  ///< async checkpoints skipped: previous write still running
  double it_energy_kwh = 0.0;            ///< IT energy of the GPU span (GPU boards + node overhead)
};

/// Young/Daly checkpoint interval and what it changes against the scenario's interval.
struct CheckpointAdvice {
  double job_mtbf_hours = 0.0;  ///< 1 / (failures per GPU-hour x GPUs); 0 when no failures
  units::Time checkpoint_cost;  ///< C of Young/Daly: the training stall per checkpoint (sync: the write)
  units::Time young;            ///< sqrt(2 C M) (Young 1974)
  units::Time daly;             ///< Daly 2006 higher-order optimum (M when C >= 2M)
  units::Time suggested;        ///< interval suggested (whole steps; async: at least the write time)
  units::Time scenario;         ///< interval the scenario used (whole steps)
  /// Async: the suggestion is the write's length, raised from Daly's shorter interval (a
  /// checkpoint protects nothing until its write ends).
  bool write_bound = false;
  /// First-order expected waste fraction S/T + (T/2 + W + R)/M at each interval
  /// (S = training stall per checkpoint: the sync write or the async snapshot; W = async write
  /// window, 0 for sync; Young/Daly, YD).
  double waste_scenario = 0.0;
  double waste_suggested = 0.0;
  bool simulated = false;               ///< suggested interval also simulated (it differs)
  units::Time gpu_span_mean_suggested;  ///< mean GPU span at the suggested interval
  double gpu_hours_saved = 0.0;         ///< mean GPU-hours saved by the suggested interval (< 0: costs)
  units::Time span_saved;               ///< mean GPU span saved by the suggested interval
};

/// Energy of the run (mean over trials).
struct EnergyResult {
  double it_kwh = 0.0;        ///< GPU boards + node overhead
  double facility_kwh = 0.0;  ///< it_kwh x PUE
  double pue = 0.0;
  double avg_it_power_kw = 0.0;  ///< it_kwh / mean GPU span
  units::Money cost;             ///< facility_kwh x price per kWh, rounded half away from zero
};

/// Summary of the Monte Carlo over `trials` seeded runs. Percentiles are nearest-rank:
/// the ceil(p N)-th smallest of N trials.
struct JobResult {
  int trials = 0;
  std::uint64_t seed = 0;
  // Inputs as used.
  units::Time step_time;
  std::int64_t steps = 0;
  std::int64_t gpus = 0;
  double failures_per_gpu_hour = 0.0;
  units::Time restart_time;
  bool async_checkpoint = false;
  units::Time provisioning;
  units::Time debug_phase;
  units::Bytes checkpoint_size;  ///< params x bytes per param
  units::Time checkpoint_write;  ///< checkpoint_size / storage write bandwidth
  units::Time checkpoint_stall;  ///< training stall per checkpoint (sync: the write)
  std::int64_t steps_per_checkpoint = 0;
  units::Time checkpoint_interval;  ///< steps_per_checkpoint x step_time
  // Results.
  units::Time useful;  ///< steps x step_time: the training work itself
  units::Time wall_p50, wall_p90, wall_mean;
  units::Time gpu_span_p50, gpu_span_p90, gpu_span_mean;
  double gpu_hours_mean = 0.0;  ///< gpus x mean GPU span
  double gpu_hours_p50 = 0.0;
  double gpu_hours_p90 = 0.0;
  double goodput_mean = 0.0;  ///< mean over trials of useful / gpu_span
  double failures_mean = 0.0;
  units::Time lost_work_mean, restart_mean, checkpoint_stall_mean;
  /// Closed-form expected GPU span for exponential failures and synchronous checkpoints
  /// (expected_gpu_span_sync); for async runs an approximation that ignores the write window.
  units::Time gpu_span_expected_closed_form;
  CheckpointAdvice advice;
  EnergyResult energy;
  std::vector<JobTrial> samples;      ///< every trial, in trial order
  std::size_t p50_trial = 0;          ///< index into samples of the P50 GPU span
  std::size_t p90_trial = 0;          ///< index into samples of the P90 GPU span
  std::vector<std::string> warnings;  ///< e.g. async write longer than the interval
};

}  // namespace flopcast::job

#pragma once
/// The scenario's `reliability:` block: failures, restarts and checkpoints of a whole run.
#include <cstdint>
#include <optional>

#include "flopcast/units/units.hpp"

namespace flopcast::job {

/// Inputs of the whole-run simulation (core/job). Defaults cite their sources.
struct ReliabilitySpec {
  /// Unexpected interruptions per GPU-hour: 419 / (16,384 GPUs x 1,296 h) = 1.97e-5
  /// (Llama 3 405B run, L3: arXiv 2407.21783 Table 5).
  double failures_per_gpu_hour = 1.97e-5;
  /// Time from a failure to training again (detect, replace node, reload); 10 min is an
  /// assumption in the range the seed vendor (90 s) and large runs (tens of minutes) report.
  /// Failures can also strike during a restart, which then starts over.
  units::Time restart_time = units::Time::from_seconds(600);
  /// Checkpoint interval; zero = use the Young/Daly optimum. Rounded to whole steps (>= 1).
  units::Time checkpoint_interval{0};
  /// Asynchronous checkpoints: training goes on while the state is written; a checkpoint
  /// protects work only once its write has finished. Synchronous: training stalls for the write.
  bool async_checkpoint = true;
  /// Aggregate write bandwidth of the checkpoint storage (default 5 GB/s: seed vendor's
  /// persistent disk figure, SEED).
  units::Bandwidth storage_write = units::Bandwidth::from_gbytes_per_s(5.0);
  /// Bytes of restartable state per parameter: 2 (bf16 weights) + 4 (fp32 master) + 8 (Adam
  /// m, v) = 14 (ZERO's 16 B less the 16-bit gradients, which are not saved; BLOOM 176B x 14 B =
  /// 2.3 TB checks it).
  double checkpoint_bytes_per_param = 14.0;
  /// Training stall of an asynchronous checkpoint (copying the state to host memory before
  /// the background write). Unset = derived: each GPU's share of the checkpoint over its host
  /// link (JobInput::host_link), see async_stall_time() in job_simulation.hpp.
  std::optional<units::Time> async_stall;
  units::Time provisioning{0};  ///< wait before the cluster is ready (queue, setup); not billed
  units::Time debug_phase{0};   ///< CPU-only debug phase before training (billed as CPU time)
  int trials = 200;             ///< Monte Carlo trials
  std::uint64_t seed = 1;       ///< RNG seed
};

}  // namespace flopcast::job

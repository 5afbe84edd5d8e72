#pragma once
// Internal: one seed of the fleet simulation (not installed). fleet.cpp aggregates seeds.
#include <cstdint>
#include <vector>

#include "flopcast/fleet/fleet.hpp"

namespace flopcast::fleet::detail {

/// One run attempt of a job in a pool (a job preempted k times has k + 1 attempts).
struct Attempt {
  std::size_t job = 0;
  std::size_t pool = 0;
  std::size_t variant = 0;
  std::int64_t gpus = 0;
  units::Time start, end;  ///< end: finish or preemption
};

/// What one seed produced.
struct SeedRun {
  std::vector<JobRecord> jobs;    ///< in arrival order
  std::vector<Attempt> attempts;  ///< in start order
  /// [pool][bin]: busy GPU-ns integrated over the bin (clipped to the horizon).
  std::vector<std::vector<double>> busy_gpu_ns;
  std::vector<double> queue_ns;          ///< [bin]: waiting jobs x ns
  std::vector<double> running_ns;        ///< [bin]: running jobs x ns
  std::vector<double> pool_busy_gpu_ns;  ///< [pool]: whole horizon
  std::uint64_t events = 0;
  units::Time drain_end;  ///< when the simulation stopped
};

/// Bin layout of the time series.
struct Bins {
  units::Time interval;
  std::size_t count = 0;
};
Bins bins_of(const Fleet& fleet);

/// Simulates seed number `seed_index` of the fleet.
SeedRun run_seed(const Fleet& fleet, std::uint64_t seed_index, const FleetOptions& options);

}  // namespace flopcast::fleet::detail

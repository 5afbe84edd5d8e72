#pragma once
/// The sweep runner: evaluates the points of a sweep on a thread pool and writes one row per
/// point to a CSV or JSONL file, in point order whatever the thread count, with the sweep's
/// identity in the sidecar FILE.meta.json (sweep_meta.hpp). Sharding (`--shard k/N`: points with
/// index % N == k-1), resuming from the output file (rows are appended one whole line per write;
/// a torn last line is detected and discarded) and merging shards. Checking a run against a
/// baseline: sweep_check.hpp.
#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "flopcast/sweep/sweep_meta.hpp"

namespace flopcast::sweep {

/// Evaluates point `index` (0-based over the whole sweep) into cells, one per column after
/// the leading "point" column. Must be thread-safe and deterministic.
using Evaluate = std::function<std::vector<std::string>(std::int64_t index)>;

struct RunOptions {
  int threads = 1;
  int shard = 1;  ///< 1-based shard number
  int shards = 1;
  bool resume = false;  ///< continue the output file
  bool force = false;   ///< overwrite an existing output file
  /// Test hook: stop (as if killed) after writing this many rows; < 0 = never.
  std::int64_t stop_after = -1;
  bool progress = false;  ///< progress bar on `progress_out`
  /// The command that computes the rows, for the sidecar (SweepMeta::command); --resume refuses a
  /// file whose command has other flags after the sweep file.
  std::vector<std::string> command;
  /// When it becomes true (a signal handler sets it) the run stops at the next whole row, as
  /// stop_after does: the file holds whole rows that --resume continues. Polled every 50 ms.
  const std::atomic<bool>* cancel = nullptr;
};

struct RunStats {
  std::int64_t points = 0;    ///< in the whole sweep
  std::int64_t in_shard = 0;  ///< this shard's points
  std::int64_t resumed = 0;   ///< rows already in the file
  std::int64_t written = 0;   ///< rows written by this run
  bool torn_line_dropped = false;
  bool stopped = false;      ///< stop_after reached
  bool interrupted = false;  ///< stopped by RunOptions::cancel
  double seconds = 0;
  std::vector<std::string> errors;  ///< I/O or resume problems (nothing more was written)
  bool ok() const { return errors.empty(); }
};

/// Runs the sweep `identity` into `out_path` and its sidecar meta_path(out_path). A fresh run
/// writes the sidecar, then the CSV header row (JSONL has none), then the rows. --resume reads
/// the sidecar and refuses a file of another sweep (other_sweep_reason), shard, column set or
/// flopcast version, or one without a sidecar.
RunStats run_sweep(const std::string& out_path, const SweepIdentity& identity, const std::vector<Column>& columns,
                   const Evaluate& evaluate, const RunOptions& options, std::ostream* progress_out);

/// Joins the shard files of one sweep into `out_path` (rows ordered by point) and its sidecar,
/// byte for byte what an unsharded run writes. Each shard's sidecar is read: errors for a
/// missing sidecar, shards of another sweep, version or column set, a shard given twice or
/// missing, an incomplete or torn shard, or rows outside their shard.
std::vector<std::string> merge_shards(const std::vector<std::string>& inputs, const std::string& out_path, bool force);

}  // namespace flopcast::sweep

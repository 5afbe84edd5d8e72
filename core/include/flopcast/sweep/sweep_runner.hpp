#pragma once
/// The sweep runner: evaluates the points of a sweep on a thread pool and writes one row per
/// point to a CSV or JSONL file, in point order whatever the thread count. Sharding
/// (`--shard k/N`: points with index % N == k-1), resuming from the output file (rows are
/// appended one whole line per write; a torn last line is detected and discarded), merging
/// shards, and checking a run against a baseline.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace flopcast::sweep {

enum class Format { Csv, Jsonl };
/// ".jsonl" -> Jsonl, anything else -> Csv.
Format format_of_path(const std::string& path);

/// A column: its name and whether its cells are numbers (JSONL writes them unquoted;
/// --check compares them).
struct Column {
  std::string name;
  bool numeric = false;
  bool compare = false;  ///< an output figure checked by --check
};

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
};

struct RunStats {
  std::int64_t points = 0;    ///< in the whole sweep
  std::int64_t in_shard = 0;  ///< this shard's points
  std::int64_t resumed = 0;   ///< rows already in the file
  std::int64_t written = 0;   ///< rows written by this run
  bool torn_line_dropped = false;
  bool stopped = false;  ///< stop_after reached
  double seconds = 0;
  std::vector<std::string> errors;  ///< I/O or resume problems (nothing more was written)
  bool ok() const { return errors.empty(); }
};

/// Runs the sweep into `out_path`. The file starts with a header identifying the sweep
/// (`sweep_id`, points, shard, columns); --resume refuses a file with another header.
RunStats run_sweep(const std::string& out_path, const std::string& sweep_id, std::int64_t points,
                   const std::vector<Column>& columns, const Evaluate& evaluate, const RunOptions& options,
                   std::ostream* progress_out);

/// Joins shard files into `out_path` (rows ordered by point). Errors: mixed sweeps, duplicate
/// or missing points, torn files.
std::vector<std::string> merge_shards(const std::vector<std::string>& inputs, const std::string& out_path, bool force);

/// One difference found by check_against_baseline.
struct CheckFinding {
  std::int64_t point = 0;
  std::string column;
  std::string baseline, current;
  double relative = 0;  ///< |current - baseline| / |baseline|
};
/// Compares the `compare` columns of `current_path` with `baseline_path` point by point.
/// Findings: numbers differing by more than `tolerance` (relative, 0.02 = 2 %), changed
/// non-numeric cells, points missing from either file. `errors` for unreadable files.
struct CheckResult {
  std::vector<CheckFinding> findings;
  std::vector<std::string> errors;
  std::int64_t compared = 0;
};
CheckResult check_against_baseline(const std::string& current_path, const std::string& baseline_path, double tolerance);

}  // namespace flopcast::sweep

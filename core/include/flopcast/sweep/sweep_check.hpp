#pragma once
/// Checking a sweep's output against a baseline output of the same sweep (`flopcast sweep
/// --check BASE`, `flopcast merge --check BASE`): point by point, each compared figure's signed
/// relative difference, classified by the figure's direction (sweep_meta.hpp Better) as a
/// regression or an improvement beyond the tolerance. A baseline of other points (other axes or
/// values: other_points_reason) is refused; a changed base scenario is compared, its changes
/// listed (base_changes).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/sweep/sweep_meta.hpp"

namespace flopcast::sweep {

/// What a difference is.
enum class Change {
  Regression,   ///< worse beyond the tolerance; a plan that stops fitting; a figure that is gone
  Improvement,  ///< better beyond the tolerance; a plan that starts fitting
  New,          ///< empty in the baseline, a figure now (never a percentage)
  Changed,      ///< a figure without a direction changed (a plan id, a currency)
};

/// One difference found by check_against_baseline.
struct CheckFinding {
  std::int64_t point = 0;
  std::string where;              ///< the point's swept values ("parallel.tp=2, parallel.pp=1")
  std::string column;             ///< "(row)" when the whole row is missing
  std::string baseline, current;  ///< cells as written ("" = empty)
  /// (current - baseline) / |baseline|, signed; nullopt when not both numbers or the baseline is 0.
  std::optional<double> relative;
  Change change = Change::Changed;
  Better better = Better::None;
};

struct CheckResult {
  std::vector<CheckFinding> findings;    ///< by point, then column order
  std::vector<std::string> errors;       ///< unreadable files, a baseline of another sweep
  bool unreadable = false;               ///< an error is a file or sidecar that cannot be read
  std::vector<std::string> notes;        ///< e.g. the versions that wrote the two, columns only in one
  std::vector<BaseChange> base_changes;  ///< what changed in the base scenario (baseline = theirs)
  std::int64_t compared = 0;             ///< points compared
  double rtol = 0;                       ///< the tolerance used (a fraction)
  SweepIdentity identity;                ///< of the current file
  std::int64_t count(Change c) const;
  bool failed() const { return count(Change::Regression) > 0; }
};

/// Whether `baseline_path` may serve as a baseline of the sweep `ours`: "" when its sidecar says
/// it has the same points (axes and values; its base scenario may differ), else the error (a
/// missing or unreadable sidecar: `unreadable`; other points: why, and how to write a new baseline).
/// check_against_baseline checks it too; `flopcast sweep --check` asks first, so that a wrong baseline fails before the
/// sweep runs.
std::string baseline_refusal(const std::string& baseline_path, const SweepIdentity& ours, bool& unreadable);

/// Compares the `compare` columns of `current_path` with `baseline_path` (CSV or JSONL, each with
/// its sidecar) point by point. Numbers differing by more than `rtol` (relative, 0.02 = 2 %) in
/// either direction are findings; a boolean or text cell that changed is one; a figure empty in
/// the baseline is New; a figure that is gone, and a point missing now, are regressions. Points
/// of the current file's shard only (a shard's output may be checked against a whole baseline).
CheckResult check_against_baseline(const std::string& current_path, const std::string& baseline_path, double rtol);

}  // namespace flopcast::sweep

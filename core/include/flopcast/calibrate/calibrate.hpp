#pragma once
/// Fitting the calibration profile to measured runs: bounded Levenberg-Marquardt on the
/// relative error of each run's speed figure (Eigen), so users can fit flopcast to their
/// own cluster's runs.
#include <array>
#include <string>
#include <vector>

#include "flopcast/calibrate/validation.hpp"
#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::calibrate {

/// What to fit and how.
struct CalibrationOptions {
  /// Names from profile_parameters(); empty = those the runs can inform, less those the start
  /// profile holds (ComputeProfile::held). Either way a generation's coefficients are fitted
  /// only when runs on that generation are given.
  std::vector<std::string> parameters;
  int max_iterations = 60;
  /// Weight of each run's residual (same order as the runs; empty = each run's source group
  /// gets the same total weight, 1/N per run of an N-run group, so one testbed's 1,440 runs do
  /// not drown a publication of 9).
  std::vector<double> run_weights;
  /// Predict with the discrete-event step simulation (core/step) rather than the closed form.
  bool simulate = false;
  /// Measured collective points (nccl-tests), fitted alongside the runs: they inform the
  /// collective knobs (collective_latency_us, the link efficiencies). One residual per point:
  /// its time_us when measured, else each bandwidth it gives.
  std::vector<MeasuredCollective> collectives;
  /// Weight of each collective point's residuals (same order; empty = all 1).
  std::vector<double> collective_weights;
  /// Rounds of (resolve open settings with the current profile, fit): a run's unstated settings
  /// are resolved as the fastest choice that fits (core/estimate/setting_resolution.hpp), which
  /// depends on the coefficients; the fit stops early once no run's choice changes.
  int resolution_rounds = 3;
};

/// The fit's outcome.
struct CalibrationResult {
  compute::ComputeProfile profile;  ///< with fitted_runs set per generation
  std::vector<std::string> fitted;  ///< parameters that were fitted
  double rms_before_pct = 0;        ///< RMS relative error before, percent (unweighted, each run's speed figure)
  double rms_after_pct = 0;
  double median_before_pct = 0;  ///< median absolute relative error before, percent
  double median_after_pct = 0;
  int iterations = 0;  ///< Levenberg-Marquardt iterations, all rounds
  int rounds = 0;      ///< resolution rounds run
  std::size_t residuals = 0;
  /// Fitted coefficients that ended at a bound of profile_parameters(), "name lower|upper".
  std::vector<std::string> at_bound;
};

/// Fits `start` to the speed figures of `runs` (each run's primary_figure) and to
/// `options.collectives`. Parameters stay inside their bounds.
CalibrationResult calibrate_profile(const std::vector<scenario::Scenario>& runs, const compute::ComputeProfile& start,
                                    const CalibrationOptions& options);

/// Each run's weight when none are given: 1 / (runs of its source group).
std::vector<double> source_group_weights(const std::vector<scenario::Scenario>& runs);

}  // namespace flopcast::calibrate

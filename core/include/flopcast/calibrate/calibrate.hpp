#pragma once
/// Fitting the calibration profile to measured runs: bounded Levenberg-Marquardt on the
/// relative error of each measured figure (Eigen), so users can fit flopcast to their
/// own cluster's runs.
#include <string>
#include <vector>

#include "flopcast/calibrate/validation.hpp"
#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast {

/// What to fit and how.
struct CalibrationOptions {
  std::vector<std::string> parameters;  ///< names from profile_parameters(); empty = those the runs can inform
  int max_iterations = 60;
  /// Weight of each run's residuals (same order as the runs; empty = all 1). `calibrate`
  /// gives every input file the same total weight, so a file of 1,440 runs does not drown
  /// one of 15.
  std::vector<double> run_weights;
  /// Predict with the discrete-event step simulation (core/step) rather than the closed form.
  bool simulate = false;
  /// Measured collective points (nccl-tests), fitted alongside the runs: they inform the
  /// collective knobs (collective_latency_us, the link efficiencies). One residual per point:
  /// its time_us when measured, else each bandwidth it gives.
  std::vector<MeasuredCollective> collectives;
  /// Weight of each collective point's residuals (same order; empty = all 1).
  std::vector<double> collective_weights;
};

/// The fit's outcome.
struct CalibrationResult {
  ComputeProfile profile;
  std::vector<std::string> fitted;  ///< parameters that were fitted
  double rms_before_pct = 0;        ///< RMS relative error before, percent
  double rms_after_pct = 0;
  double median_before_pct = 0;  ///< median absolute relative error before, percent
  double median_after_pct = 0;
  int iterations = 0;
  std::size_t residuals = 0;
};

/// Fits `start` to the measured figures of `runs` and `options.collectives`. Parameters stay
/// inside their bounds.
CalibrationResult calibrate_profile(const std::vector<Scenario>& runs, const ComputeProfile& start,
                                    const CalibrationOptions& options);

}  // namespace flopcast

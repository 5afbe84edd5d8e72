#pragma once
/// Cross-validation by source group (`flopcast calibrate --cv source`): each group's runs are
/// predicted by a profile fitted without them, so the errors are those of runs the fit has not
/// seen. A source group is a publication (run-schema.md, `source_group`: by default the run's
/// file); holding out a whole publication, not single runs, keeps a testbed's other runs from
/// standing in for the held-out ones.
#include <string>
#include <vector>

#include "flopcast/calibrate/calibrate.hpp"

namespace flopcast {

struct CrossValidationOptions {
  /// How each fold is fitted (its run weights are recomputed per fold: each training group
  /// weighs the same). Fitting with the discrete-event simulation is possible but slow.
  CalibrationOptions fit;
  /// Predict the held-out runs with the discrete-event simulation (what `simulate` and
  /// `validate` report); false: with the closed-form estimate.
  bool simulate_predictions = true;
  /// Folds fitted at once; 0 = one per hardware thread. The result does not depend on it.
  int jobs = 0;
};

/// One held-out run's prediction.
struct CvPrediction {
  std::string id;
  std::string group;
  GpuArch arch = GpuArch::Ampere;
  std::string figure;  ///< the run's primary_figure
  double measured = 0;
  double predicted = 0;
  double error_pct = 0;       ///< (predicted - measured) / measured x 100
  ResolvedSettings settings;  ///< its open settings as resolved with the fold's profile
  bool fits_memory = true;    ///< the memory model says it fits (it ran)
};

/// One fold: the profile fitted without `group`.
struct CvFold {
  std::string group;
  std::size_t held_out = 0;  ///< runs predicted
  std::size_t trained = 0;   ///< runs fitted on
  CalibrationResult fit;
};

struct CrossValidationResult {
  std::string error;                      ///< why nothing was cross-validated ("" when it ran)
  std::vector<std::string> groups;        ///< in order of first appearance
  std::vector<CvFold> folds;              ///< one per group, same order
  std::vector<CvPrediction> predictions;  ///< by group, then in input order
  std::vector<std::string> skipped;       ///< "id: reason" of runs that measure no speed figure
};

/// Leave-one-source-group-out cross-validation of calibrate_profile on `runs` from `start`.
/// Needs at least two groups (else `error` says so and nothing runs). Deterministic.
CrossValidationResult cross_validate(const std::vector<Scenario>& runs, const ComputeProfile& start,
                                     const CrossValidationOptions& options);

/// Absolute-error statistics of a set of predictions.
struct CvSummary {
  std::string name;  ///< group, generation or "overall"
  std::size_t runs = 0;
  std::size_t groups = 0;  ///< source groups among them
  /// Each source group weighs the same (a run weighs 1 / its group's runs here): the headline.
  double median_abs_pct = 0;
  double p90_abs_pct = 0;
  /// Every run weighs the same.
  double median_abs_runs_pct = 0;
  double p90_abs_runs_pct = 0;
  /// Bias: the median (groups-equal) of predicted speed / measured speed (1 is right, above 1
  /// predicted too fast), whichever speed figure a run measures.
  double median_speed_ratio = 1;
  std::size_t memory_fits = 0;  ///< runs the memory model says fit
};
/// One summary per source group (in the result's order), per generation that has runs
/// (Ampere, Hopper, Blackwell), and over all.
std::vector<CvSummary> cv_by_group(const CrossValidationResult& r);
std::vector<CvSummary> cv_by_generation(const CrossValidationResult& r);
CvSummary cv_overall(const CrossValidationResult& r);

/// The q-quantile (0..1) of values with weights, by linear interpolation: in sorted order value
/// i sits at (the weight before it) / (the total less the last weight), which is numpy's rule
/// (quantile()) when the weights are equal; 0 when empty.
double weighted_quantile(std::vector<std::pair<double, double>> value_weight, double q);

}  // namespace flopcast

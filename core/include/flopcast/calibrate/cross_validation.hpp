#pragma once
/// Cross-validation by source group (`flopcast calibrate --cv source`): each group's runs are
/// predicted by a profile fitted without them, so the errors are those of runs the fit has not
/// seen. A source group is a publication (run-schema.md, `source_group`: by default the run's
/// file); holding out a whole publication, not single runs, keeps a testbed's other runs from
/// standing in for the held-out ones.
#include <array>
#include <string>
#include <vector>

#include "flopcast/calibrate/calibrate.hpp"
#include "flopcast/compute/prediction_band.hpp"

namespace flopcast::calibrate {

struct CrossValidationOptions {
  /// How each fold is fitted (its run weights are recomputed per fold: each training group
  /// weighs the same). Fitting with the discrete-event simulation is possible but slow.
  CalibrationOptions fit;
  /// Predict the held-out runs with the discrete-event simulation (what `simulate` and
  /// `validate` report); false: with the closed-form estimate.
  bool simulate_predictions = true;
  /// Folds fitted at once; 0 = one per hardware thread. The result does not depend on it.
  int jobs = 0;
  /// Leave out a whole regime (generation and BandRegime) at a time instead of a source group:
  /// the error of a workload unlike any the fit has seen.
  bool by_regime = false;
};

/// The fold a run belongs to: its source group, or with by_regime "GENERATION.REGIME".
std::string cv_group_of(const scenario::Scenario& s, bool by_regime);

/// One held-out run's prediction.
struct CvPrediction {
  std::string id;
  std::string group;
  hardware::GpuArch arch = hardware::GpuArch::Ampere;
  std::string figure;  ///< the run's primary_figure
  double measured = 0;
  double predicted = 0;
  double error_pct = 0;                 ///< (predicted - measured) / measured x 100
  parallel::ResolvedSettings settings;  ///< its open settings as resolved with the fold's profile
  bool fits_memory = true;              ///< the memory model says it fits (it ran)
  bool moe = false;                     ///< a mixture-of-experts model (its band regime)
  compute::BandRegime regime;           ///< its band regime
  std::string source_group;             ///< its publication (== group when folds leave out source groups)
};

/// Measured / predicted step time of a prediction, whichever speed figure it scores (a
/// throughput figure is inverted): the factor prediction bands are made of.
double time_factor(const CvPrediction& p);

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
CrossValidationResult cross_validate(const std::vector<scenario::Scenario>& runs, const compute::ComputeProfile& start,
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

/// Where a generation's band ends sit.
/// - Empirical: at the `tail` and 1 - `tail` quantiles of the held-out residuals themselves. It
///   cannot reach past the most extreme source at hand, so with few sources a new one that is
///   more biased than all of them falls outside.
/// - LogNormal: at the same quantiles of a log-normal fitted to them (log_normal_ends), which
///   can: source groups' biases spread like a distribution, not like the few samples of it.
enum class BandShape { Empirical, LogNormal };
struct BandRule {
  BandShape shape = BandShape::Empirical;
  double tail = 0.10;
  bool operator==(const BandRule&) const = default;
};
/// "0.075" or "lognormal 0.05".
std::string to_string(const BandRule& r);
/// The rule of each generation's band (indexed by GpuArch).
using BandTails = std::array<BandRule, hardware::kGpuArchCount>;
inline constexpr BandTails kTenNinety{};
/// The same rule for every generation.
inline BandTails uniform_band_tails(const BandRule& rule) {
  BandTails t;
  t.fill(rule);
  return t;
}

/// Prediction-band quantiles (prediction_band.hpp) from the held-out predictions: per
/// generation with runs, the tail and 1 - tail quantiles of time_factor (and its median) over
/// all its runs ("all") and over its dense and its MoE runs, each source group weighing the same
/// (as the headline error). Only predictions whose group is not `exclude` count ("" = all).
/// Stored as p10 / p90: the ends of the 80% interval, placed by the generation's BandRule; p50 is
/// the residuals' median under either shape. The tail would be 0.10 if the groups at hand
/// represented a new group's residuals; rule and tail are chosen per generation by
/// cross-validation (choose_band_tails) because source groups differ in bias more than runs
/// within one do.
///
/// With `loro` (a leave-one-regime-out cross-validation of the same runs) each generation also
/// gets its regimes' own quantiles (BandRegime keys) and its kBandRegimeNovel spread: the
/// leave-one-regime-out residuals of its runs, at a log-normal's 10% / 90% (a spread from few
/// regimes is a distribution's, not its samples'), or of all generations' runs when it has fewer
/// than kRegimeMinRuns of kRegimeMinGroups groups.
std::vector<compute::BandQuantiles> cv_band_quantiles(const CrossValidationResult& r, const std::string& exclude = "",
                                                      const BandTails& tails = kTenNinety,
                                                      const CrossValidationResult* loro = nullptr);

/// How often the 80% band holds the measured step time, on cross-validation: each held-out
/// run is given the band made from the other source groups' held-out predictions
/// (cv_band_quantiles with its own group excluded, then find_band), so a run's own residual
/// never widens its band.
struct BandCoverage {
  std::string name;  ///< generation or "overall"
  std::size_t runs = 0;
  std::size_t groups = 0;
  double covered_pct = 0;       ///< groups-equal share of runs inside [p10, p90]
  double covered_runs_pct = 0;  ///< runs-equal
  double below_pct = 0;         ///< groups-equal share faster than p10 (measured < p10 x predicted)
  double above_pct = 0;         ///< groups-equal share slower than p90
  std::size_t no_band = 0;      ///< runs with no band from the other groups (counted as not covered)
};
/// Coverage per generation with runs, then over all, of bands made with `tails`.
std::vector<BandCoverage> cv_band_coverage(const CrossValidationResult& r, const BandTails& tails = kTenNinety,
                                           const CrossValidationResult* loro = nullptr);

/// The candidate tails of choose_band_tails, each tried with either shape.
inline constexpr double kBandTails[] = {0.10, 0.075, 0.05, 0.025};
/// The candidate rules, in the order ties are settled: the empirical ones first, each shape's
/// from the narrowest tail.
std::vector<BandRule> band_rules();
/// Per generation, the rule (of band_rules()) whose bands cover closest to 80% of its held-out
/// runs (groups-equal, cv_band_coverage); the earlier on a tie; empirical 0.10 for a generation
/// without runs.
BandTails choose_band_tails(const CrossValidationResult& r, const CrossValidationResult* loro = nullptr);

/// The ends of the log-normal band of weighted values (all > 0): exp(m -/+ z s), m and s the
/// weighted mean and standard deviation of their logarithms, z the standard normal's 1 - `tail`
/// quantile. s carries the factor g / (g - 1) on the variance, g = `groups` (each group weighs
/// the same, so the groups are the independent samples), as the sample variance does; with one
/// group, the runs' own spread without it. `tail` must be one of kBandTails.
std::pair<double, double> log_normal_ends(const std::vector<std::pair<double, double>>& value_weight, int groups,
                                          double tail);

/// The q-quantile (0..1) of values with weights, by linear interpolation: in sorted order value
/// i sits at (the weight before it) / (the total less the last weight), which is numpy's rule
/// (quantile()) when the weights are equal; 0 when empty.
double weighted_quantile(std::vector<std::pair<double, double>> value_weight, double q);

}  // namespace flopcast::calibrate

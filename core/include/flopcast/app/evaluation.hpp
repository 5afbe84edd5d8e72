#pragma once
/// Evaluating one scenario: the step (simulated or estimated), the claim checks, the whole run
/// on a calendar and its bills, built once and rendered by report_text.hpp and report_json.hpp.
/// Every front (`flopcast simulate`, `quote`, `sweep`, the GUI) gets its figures here, through
/// one whole-run path (simulate_whole_run) and one job-size guard (job/job_size.hpp).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flopcast/claims/scenario_runner.hpp"
#include "flopcast/compute/prediction_band.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/job/job_input.hpp"
#include "flopcast/job/job_result.hpp"
#include "flopcast/pricing/plan_comparison.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/quote/quote.hpp"
#include "flopcast/scenario/diagnostic.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "flopcast/step/step_result.hpp"

namespace flopcast::app {

/// A claimed figure checked against the simulation: the claims module's verdict (its words
/// and its tolerance, claims/verdict.hpp), which `flopcast check` takes over unchanged.
using ClaimCheck = claims::TrainingCheck;

/// The whole run on a calendar (core/job) over the step estimate.
struct WholeRun {
  job::JobInput input;                ///< what was simulated
  bool reliability_defaults = false;  ///< the scenario has no `reliability:` block
  job::JobResult result;              ///< valid when `errors` is empty (samples dropped)
  std::vector<std::string> errors;    ///< why there is no result (bad input, a run that never ends)
  /// Model uncertainty, apart from failures: the same Monte Carlo (same seed, so the same
  /// failure draws) with the step time at the prediction band's P10 and P90 (SimReport::band).
  /// Set when the band is known and the run was simulated; samples dropped. Their P50 trial
  /// is "this run, failures at their median, the step at the band's end".
  std::optional<job::JobResult> band_p10, band_p90;
  bool ok() const { return errors.empty(); }
};

/// The bill of the run under each plan of the scenario's price catalog.
struct RunBills {
  /// Shared, not copied: the comparison's plan pointers point into it.
  std::shared_ptr<const pricing::PriceCatalog> catalog;
  std::vector<std::string> gpu_names;  ///< the GPU's catalog name and aliases
  pricing::PlanComparison comparison;
  /// Model uncertainty of the bill: each row's `p50` bill is the run at the band's P10 step time
  /// and its `p90` bill the run at its P90, both at the failures' P50 trial (WholeRun::band_p10
  /// and band_p90). Set with them.
  std::optional<pricing::PlanComparison> model_uncertainty;
};

/// How the step time is obtained.
enum class StepEngine {
  Simulation,  ///< the discrete-event step simulation (core/step)
  Estimate,    ///< the closed-form estimate (core/estimate)
};

/// Everything `simulate` prints.
struct SimReport {
  const scenario::Scenario* scenario = nullptr;
  std::string profile_name;
  /// The 80% interval of the step time from the profile's cross-validated residuals for the
  /// scenario's generation and regime (compute/prediction_band.hpp): about 80% of runs like the
  /// calibration runs take between band.p10 x est.step and band.p90 x est.step. Throughputs and
  /// MFU scale by the inverse factors (step_band, mfu_band). Unknown (known = false) when the
  /// profile has no bands.
  compute::PredictionBand band;
  /// How the coefficients of the scenario's GPU generation were obtained, for the user:
  /// "hopper coefficients fitted on 26 measured runs", "blackwell coefficients: prior only (no
  /// measured run)", or "not recorded" for a hand-written profile.
  std::string coefficients_basis;
  /// The step: the simulation's step time, breakdown, MFU and throughput over the estimate's
  /// memory and FLOPs (StepResult::as_estimate), or the closed form's alone.
  estimate::StepEstimate est;
  std::optional<step::StepResult> sim;  ///< the simulated step (timeline, utilisation); absent for Estimate
  units::Time closed_form_step;         ///< the closed-form estimate's step time, for comparison
  bool fits_memory = true;
  double train_seconds = 0;  ///< ideal (failure-free) time to train training.tokens
  double gpu_hours = 0;
  double node_hours = 0;
  double steps = 0;
  std::vector<ClaimCheck> claims;
  std::optional<WholeRun> run;    ///< set by add_whole_run when training.tokens is given
  std::optional<RunBills> bills;  ///< set by add_whole_run when the scenario has `pricing:`
  /// A spot plan of the price catalog (its id; "" = none): add_whole_run then simulates the run
  /// with the plan's interruptions on top of the failures, as the planner does.
  std::string spot_plan;
};

/// The step time at the band's P10 and P90 ({est.step, est.step} when the band is unknown).
std::pair<units::Time, units::Time> step_band(const SimReport& r);
/// MFU at the band's ends: {at the P90 step time (the lower), at the P10 step time}.
std::pair<double, double> mfu_band(const SimReport& r);

/// The step (simulated by default) and the claim checks (no Monte Carlo, no prices: fast,
/// used by the GUI). Whole-run figures take the step time from `est`.
SimReport make_report(const scenario::Scenario& s, const compute::ComputeProfile& profile,
                      StepEngine engine = StepEngine::Simulation);

/// The JobInput of the scenario's whole run: steps = ceil(tokens / (global batch x seq len)),
/// the estimated step time, parameters, the GPU's TDP, the fabric's node power, the scenario's
/// reliability block (or ReliabilitySpec's cited defaults) and `energy`.
job::JobInput job_input_of(const scenario::Scenario& s, const SimReport& r, const job::EnergySpec& energy);

/// The whole run of `r`'s scenario (it needs training.tokens: r.steps > 0): its JobInput with
/// the energy figures of `catalog` (null: EnergySpec's defaults), the job-size guard, then the
/// Monte Carlo. The per-trial samples are kept (bills and cost curves are made from them).
WholeRun simulate_whole_run(const SimReport& r, const pricing::PriceCatalog* catalog);

/// The bills of a simulated run (run.ok()) under every plan of `catalog` that the scenario's
/// `pricing:` block selects, at the P50 and P90 trials.
RunBills bill_whole_run(const scenario::Scenario& s, const WholeRun& run,
                        std::shared_ptr<const pricing::PriceCatalog> catalog);

/// Sets run.band_p10 and band_p90 (the Monte Carlo again, same seed, with the step at the band's
/// P10 and P90) when the run was simulated and r.band is known; both or neither.
void add_band_runs(const SimReport& r, WholeRun& run);

/// The whole run of `r` again with the step time at `factor` x the prediction (same seed, so the
/// same failure draws) and its bills under the same plans as r.bills at its P50 and P90 trials.
/// Needs r.run simulated and r.bills; nullopt when either is missing or the run is too long to
/// simulate. Samples dropped.
struct BandedRun {
  job::JobResult result;
  pricing::PlanComparison bills;
};
std::optional<BandedRun> banded_run(const SimReport& r, double factor);

/// Whether add_whole_run keeps the runs' per-trial records.
enum class TrialSamples {
  Drop,  ///< the printed outputs: nothing reads them after the bills
  Keep,  ///< the GUI: its cost curves are drawn from the P90 trial's records
};

/// Adds the whole run (when the scenario gives training.tokens) with its model-uncertainty runs
/// (add_band_runs) and, when `catalog` is set and the run was simulated, the bills with their
/// model uncertainty to `r`: the one whole-run-and-bills path of `simulate`, `quote`, `sweep` and
/// the GUI. The per-trial samples are dropped afterwards unless `samples` is Keep.
void add_whole_run(SimReport& r, std::shared_ptr<const pricing::PriceCatalog> catalog,
                   TrialSamples samples = TrialSamples::Drop);

/// add_whole_run with the scenario's own price catalog (load_scenario_prices) from `data_dir`
/// ("" = the embedded copy), loaded only when there is a run to bill. Returns false, with
/// diagnostics in `diags` located at the scenario's `pricing.catalog` key, when it cannot be loaded.
bool add_whole_run(SimReport& r, const std::string& data_dir, scenario::Diagnostics& diags);

/// The quote's inputs from a report with a simulated run and bills (add_whole_run): the job,
/// the run (samples dropped), the comparison, the catalog, and the claim verdicts as lines.
quote::QuoteInput quote_input_of(const SimReport& r);

}  // namespace flopcast::app

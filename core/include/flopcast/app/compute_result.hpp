#pragma once
/// Everything the GUI's result tabs show for one state of the editor, computed off the UI
/// thread by compute_scenario(): the loader's diagnostics, the simulate report (step, memory,
/// claims) with its whole run and bills (evaluation.hpp's one whole-run path), the laid-out
/// step timeline, each stage's memory and what the run has cost after each day.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/app/evaluation.hpp"
#include "flopcast/app/step_timeline.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/job/job_result.hpp"
#include "flopcast/pricing/plan_comparison.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::app {

/// The results of one scenario text. Not copyable: `report.scenario` points at `scenario`.
struct ComputeResult {
  ComputeResult() = default;
  ComputeResult(const ComputeResult&) = delete;
  ComputeResult& operator=(const ComputeResult&) = delete;

  std::string yaml;                              ///< the text that was loaded
  scenario::Diagnostics diags;                   ///< the loader's (and the profile and price loaders') diagnostics
  std::unique_ptr<scenario::Scenario> scenario;  ///< null when the text has errors
  /// Valid when scenario is set, its whole run and bills added by add_whole_run as `simulate`
  /// adds them (model-uncertainty runs and bills included). Its `run` keeps the per-trial
  /// samples (the cost curves need them); `bills` holds the price catalog.
  SimReport report;
  Timeline timeline;
  /// Memory per GPU of each pipeline stage (the report's memory is the most loaded one).
  std::vector<workload::MemoryBreakdown> stage_memory;
  /// What the P90 run has cost after each day, for the cheapest plans (cost_over_calendar).
  struct CostCurve {
    std::string id;            ///< the option's id (short: the legend)
    std::string label;         ///< its human name
    bool recommended = false;  ///< the comparison's cheapest row
    std::vector<pricing::CostPoint> points;
  };
  std::vector<CostCurve> calendar;
  /// Why whole-run or cost figures are missing ("pricing is not loaded: ..."); empty = none missing.
  std::vector<std::string> cost_notes;

  bool ok() const { return scenario != nullptr; }
  /// The whole-run Monte Carlo, when it ran (needs training.tokens and a run small enough).
  const job::JobResult* job() const { return report.run && report.run->ok() ? &report.run->result : nullptr; }
  /// Bills per plan at P50 and P90, when the scenario has pricing and the run was simulated.
  const pricing::PlanComparison* plans() const { return report.bills ? &report.bills->comparison : nullptr; }
};

/// Told before each stage of compute_scenario: percent done (0..100) and what comes next
/// ("whole run (200 trials)"). Returns false to cancel: compute_scenario then returns null
/// at once (before the stage it was told of). Called on the computing thread.
using ComputeProgress = std::function<bool(int percent, std::string_view stage)>;

/// Loads `yaml` (named `file` in diagnostics) with the scenario loader `flopcast simulate` uses
/// and, when it is valid, computes every result. Thread-safe for a shared const catalog. Never throws for bad input.
/// Returns null only when `progress` cancelled it.
std::shared_ptr<const ComputeResult> compute_scenario(const std::string& yaml, const std::string& file,
                                                      const io::Catalog& catalog, const ComputeProgress& progress = {});

}  // namespace flopcast::app

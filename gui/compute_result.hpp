#pragma once
/// Everything the result tabs show for one state of the editor, computed off the UI thread
/// by compute_scenario(): the loader's diagnostics, the simulate report (step estimate,
/// memory, whole-run time), the laid-out step timeline and, where core/job and core/pricing
/// are built, the whole-run Monte Carlo and the bill per plan.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/app/step_timeline.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "report.hpp"

#include "flopcast/job/job_result.hpp"
#include "flopcast/pricing/plan_comparison.hpp"
#include "flopcast/pricing/price_catalog.hpp"

namespace flopcast::gui {

/// The results of one scenario text. Not copyable: `report.scenario` points at `scenario`.
struct ComputeResult {
  ComputeResult() = default;
  ComputeResult(const ComputeResult&) = delete;
  ComputeResult& operator=(const ComputeResult&) = delete;

  std::string yaml;                    ///< the text that was loaded
  Diagnostics diags;                   ///< the loader's (and the profile loader's) diagnostics
  std::unique_ptr<Scenario> scenario;  ///< null when the text has errors
  cli::SimReport report;               ///< valid when scenario is set
  app::Timeline timeline;
  /// Memory per GPU of each pipeline stage (the report's memory is the most loaded one).
  std::vector<MemoryBreakdown> stage_memory;
  std::optional<JobResult> job;                 ///< whole-run Monte Carlo (needs training.tokens)
  std::unique_ptr<PriceCatalog> price_catalog;  ///< kept alive: `plans` points into it
  std::optional<PlanComparison> plans;          ///< bills per plan at P50 and P90
  /// What the P90 run has cost after each day, for the cheapest plans (cost_over_calendar).
  struct CostCurve {
    std::string id;            ///< the option's id (short: the legend)
    std::string label;         ///< its human name
    bool recommended = false;  ///< the comparison's cheapest row
    std::vector<CostPoint> points;
  };
  std::vector<CostCurve> calendar;
  /// Why whole-run or cost figures are missing ("pricing is not loaded: ..."); empty = none missing.
  std::vector<std::string> cost_notes;

  bool ok() const { return scenario != nullptr; }
};

/// Told before each stage of compute_scenario: percent done (0..100) and what comes next
/// ("whole run (200 trials)"). Returns false to cancel: compute_scenario then returns null
/// at once (before the stage it was told of). Called on the computing thread.
using ComputeProgress = std::function<bool(int percent, std::string_view stage)>;

/// Loads `yaml` (named `file` in diagnostics) with the CLI's parse_scenario and, when it is
/// valid, computes every result. Thread-safe for a shared const catalog. Never throws for bad input.
/// Returns null only when `progress` cancelled it.
std::shared_ptr<const ComputeResult> compute_scenario(const std::string& yaml, const std::string& file,
                                                      const io::Catalog& catalog, const ComputeProgress& progress = {});

}  // namespace flopcast::gui

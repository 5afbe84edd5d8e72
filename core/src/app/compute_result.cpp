#include "flopcast/app/compute_result.hpp"

#include <algorithm>

#include "flopcast/app/des_timeline.hpp"
#include "flopcast/app/scenario_session.hpp"
#include "flopcast/pricing/bill.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::app {
namespace {

/// Stages whose memory the Memory tab draws (one bar each); deeper pipelines show the first ones.
constexpr int kMaxMemoryStages = 64;
/// Cost curves drawn (the cheapest options by P50 total) and points per curve.
constexpr std::size_t kCurves = 5;
constexpr int kPoints = 120;

/// The scenario's price catalog, or null with a note saying why there is none.
std::shared_ptr<const pricing::PriceCatalog> load_prices(ComputeResult& r, const io::Catalog& catalog) {
  const scenario::Scenario& s = *r.scenario;
  if (!s.has_pricing || s.pricing.catalog.empty()) {
    r.cost_notes.push_back(
        "pricing is not loaded: the scenario has no pricing block (choose a price catalog in the editor)");
    return nullptr;
  }
  scenario::Diagnostics pd;
  auto prices = load_scenario_prices(s, catalog.data_dir, pd);
  for (auto d : pd.items()) {
    if (d.key.empty()) d.key = "pricing.catalog";
    r.diags.add(d);
  }
  if (!prices) {
    r.cost_notes.push_back("pricing is not loaded: price catalog '" + s.pricing.catalog + "' could not be read");
    return nullptr;
  }
  return *prices;
}

/// The whole run and its bills through `flopcast simulate`'s path (add_whole_run: the same job
/// input, job-size guard, model-uncertainty runs and bills), the per-trial samples kept for the
/// cost curves.
void run_and_bill(ComputeResult& r, std::shared_ptr<const pricing::PriceCatalog> prices) {
  if (r.scenario->training.tokens <= 0 || r.report.steps <= 0) {
    r.cost_notes.push_back("no whole-run figures: the scenario gives no training.tokens");
    return;
  }
  add_whole_run(r.report, std::move(prices), TrialSamples::Keep);
  for (const auto& e : r.report.run->errors) r.cost_notes.push_back("whole-run simulation: " + e);
}

/// For the cheapest few options (by P50 total), the cost of the P90 run over its calendar.
void add_cost_curves(ComputeResult& r) {
  const job::JobResult* job = r.job();
  if (!r.report.bills || !job || job->samples.empty()) return;
  const scenario::Scenario& s = *r.scenario;
  const RunBills& bills = *r.report.bills;
  const pricing::PlanComparison& plans = bills.comparison;
  if (plans.rows.empty())
    r.cost_notes.push_back("price catalog '" + bills.catalog->name + "' has no plan for the " + s.cluster.gpu.name);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < plans.rows.size(); ++i)
    if (plans.rows[i].p50.ok() && plans.rows[i].p90.ok()) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return plans.rows[a].p50.total.minor < plans.rows[b].p50.total.minor;
  });
  const pricing::CompareOptions opt = pricing::compare_options(s.pricing);
  const pricing::BillUsage p90 = pricing::usage_of_trial(*job, job->p90_trial, s.pricing.checkpoints_kept);
  for (std::size_t k = 0; k < order.size() && k < kCurves; ++k) {
    const pricing::ComparisonRow& row = plans.rows[order[k]];
    ComputeResult::CostCurve c;
    c.id = row.option.id;
    c.label = row.option.label;
    c.recommended = row.cheapest;
    c.points = pricing::cost_over_calendar(*bills.catalog, row.option, p90, kPoints, opt.bill);
    if (!c.points.empty()) r.calendar.push_back(std::move(c));
  }
}

}  // namespace

std::shared_ptr<const ComputeResult> compute_scenario(const std::string& yaml, const std::string& file,
                                                      const io::Catalog& catalog, const ComputeProgress& progress) {
  // Percentages are a rough share of the time each stage takes on the shipped scenarios.
  const auto go_on = [&progress](int percent, std::string_view stage) { return !progress || progress(percent, stage); };
  if (!go_on(0, "loading the scenario")) return nullptr;
  auto r = std::make_shared<ComputeResult>();
  r->yaml = yaml;
  SessionOutcome loaded = parse_scenario_session(yaml, file, catalog);
  r->diags = std::move(loaded.diags);
  for (auto d : loaded.profile_diags.items()) {
    if (d.key.empty()) d.key = "calibration";
    r->diags.add(d);
  }
  if (!loaded.ok()) return r;
  r->scenario = std::make_unique<scenario::Scenario>(std::move(loaded.session->scenario));
  const compute::ComputeProfile& profile = loaded.session->profile;
  if (!go_on(5, "step simulation (DES)")) return nullptr;
  r->report = make_report(*r->scenario, profile);
  r->report.scenario = r->scenario.get();
  if (!go_on(20, "step timeline")) return nullptr;
  // The simulated step's own timeline; the closed-form layout when there is none.
  if (r->report.sim && !r->report.sim->timeline.empty())
    r->timeline = timeline_from_step(*r->report.sim, r->scenario->plan);
  else
    r->timeline = build_timeline(r->report.est, r->scenario->plan);
  if (!go_on(30, "memory per stage")) return nullptr;
  for (int stage = 0; stage < r->scenario->plan.pp && stage < kMaxMemoryStages; ++stage)
    r->stage_memory.push_back(workload::memory_of_stage(*r->scenario, profile, stage));
  if (!r->report.fits_memory)
    r->cost_notes.push_back("the plan does not fit the GPU's memory: whole-run figures assume it would");
  if (!go_on(35, "price catalog")) return nullptr;
  std::shared_ptr<const pricing::PriceCatalog> prices = load_prices(*r, catalog);
  const std::string run_stage = "whole run (" + std::to_string(r->scenario->reliability.trials) + " trials)";
  if (!go_on(40, run_stage)) return nullptr;
  run_and_bill(*r, std::move(prices));
  if (!go_on(90, "cost over the calendar")) return nullptr;
  add_cost_curves(*r);
  if (!go_on(100, "done")) return nullptr;
  return r;
}

}  // namespace flopcast::app

#include "compute_result.hpp"

#include <algorithm>
#include <cmath>

#include "flopcast/app/des_timeline.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/workload/workload.hpp"

#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/job/job_input.hpp"
#include "flopcast/job/job_simulation.hpp"
#include "flopcast/pricing/bill.hpp"

namespace flopcast::gui {

namespace {

/// Stages whose memory the Memory tab draws (one bar each); deeper pipelines show the first ones.
constexpr int kMaxMemoryStages = 64;

void compute_pricing(ComputeResult& r, const io::Catalog& catalog) {
  const Scenario& s = *r.scenario;
  if (!s.has_pricing || s.pricing.catalog.empty()) {
    r.cost_notes.push_back(
        "pricing is not loaded: the scenario has no pricing block (choose a price catalog in the editor)");
    return;
  }
  Diagnostics pd;
  auto cat = io::load_price_catalog(s.pricing.catalog, catalog.data_dir, pd);
  if (!cat) {
    for (auto d : pd.items()) {
      if (d.key.empty()) d.key = "pricing.catalog";
      r.diags.add(d);
    }
    r.cost_notes.push_back("pricing is not loaded: price catalog '" + s.pricing.catalog + "' could not be read");
    return;
  }
  r.price_catalog = std::make_unique<PriceCatalog>(std::move(*cat));
}

void compare(ComputeResult& r) {
  if (!r.price_catalog || !r.job) return;
  const Scenario& s = *r.scenario;
  const JobResult& job = *r.job;
  if (job.samples.empty()) return;
  CompareOptions opt;
  if (!s.pricing.currency.empty()) opt.bill.currency = Currency::of(s.pricing.currency);
  opt.bill.new_user = s.pricing.new_user;
  opt.bill.add_ons = s.pricing.add_ons;
  opt.plan_ids = s.pricing.plans;
  opt.mixes = s.pricing.mixes;
  std::vector<std::string> names{s.cluster.gpu.name};
  names.insert(names.end(), s.cluster.gpu.aliases.begin(), s.cluster.gpu.aliases.end());
  const int kept = s.pricing.checkpoints_kept;
  r.plans = compare_plans(*r.price_catalog, names, usage_of_trial(job, job.p50_trial, kept),
                          usage_of_trial(job, job.p90_trial, kept), opt);
  if (r.plans->rows.empty())
    r.cost_notes.push_back("price catalog '" + r.price_catalog->name + "' has no plan for the " + s.cluster.gpu.name);
  // Cost over the calendar of the P90 run for the cheapest few options (by P50 total).
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < r.plans->rows.size(); ++i)
    if (r.plans->rows[i].p50.ok() && r.plans->rows[i].p90.ok()) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return r.plans->rows[a].p50.total.minor < r.plans->rows[b].p50.total.minor;
  });
  constexpr std::size_t kCurves = 5;
  constexpr int kPoints = 120;
  const BillUsage p90 = usage_of_trial(job, job.p90_trial, kept);
  for (std::size_t k = 0; k < order.size() && k < kCurves; ++k) {
    const ComparisonRow& row = r.plans->rows[order[k]];
    ComputeResult::CostCurve c;
    c.id = row.option.id;
    c.label = row.option.label;
    c.recommended = row.cheapest;
    c.points = cost_over_calendar(*r.price_catalog, row.option, p90, kPoints, opt.bill);
    if (!c.points.empty()) r.calendar.push_back(std::move(c));
  }
}

void compute_job(ComputeResult& r) {
  const Scenario& s = *r.scenario;
  const cli::SimReport& rep = r.report;
  if (s.training.tokens <= 0 || rep.steps <= 0) {
    r.cost_notes.push_back("no whole-run figures: the scenario gives no training.tokens");
    return;
  }
  // The same job input as `flopcast simulate` (cli/report.hpp); energy is refined below.
  JobInput in = cli::job_input_of(s, rep, EnergySpec{});
  if (r.price_catalog && r.price_catalog->electricity) {
    in.energy.pue = r.price_catalog->electricity->pue;
    in.energy.price_per_kwh = r.price_catalog->electricity->per_kwh;
  }
  if (s.pricing.pue) in.energy.pue = *s.pricing.pue;
  if (s.pricing.electricity_per_kwh) in.energy.price_per_kwh = *s.pricing.electricity_per_kwh;
  JobOutcome out = simulate_job(in);
  if (!out.ok()) {
    for (const auto& e : out.errors) r.cost_notes.push_back("whole-run simulation: " + e);
    return;
  }
  r.job = std::move(out.result);
}

}  // namespace

std::shared_ptr<const ComputeResult> compute_scenario(const std::string& yaml, const std::string& file,
                                                      const io::Catalog& catalog, const ComputeProgress& progress) {
  // Percentages are a rough share of the time each stage takes on the shipped scenarios.
  const auto go_on = [&progress](int percent, std::string_view stage) { return !progress || progress(percent, stage); };
  if (!go_on(0, "loading the scenario")) return nullptr;
  auto r = std::make_shared<ComputeResult>();
  r->yaml = yaml;
  auto s = io::parse_scenario(yaml, file, catalog, r->diags);
  if (!s) return r;
  ComputeProfile profile = catalog.profile;
  if (!s->calibration.empty()) {
    Diagnostics pd;
    auto p = io::load_profile(s->calibration, catalog, pd);
    for (auto d : pd.items()) {
      if (d.key.empty()) d.key = "calibration";
      if (d.where.file.empty()) d.where = locate(s->locations, "calibration");
      r->diags.add(d);
    }
    if (!p) return r;
    profile = *p;
  }
  r->scenario = std::make_unique<Scenario>(std::move(*s));
  if (!go_on(5, "step simulation (DES)")) return nullptr;
  r->report = cli::make_report(*r->scenario, profile);
  r->report.scenario = r->scenario.get();
  if (!go_on(20, "step timeline")) return nullptr;
  // The simulated step's own timeline; the closed-form layout when there is none.
  if (r->report.sim && !r->report.sim->timeline.empty())
    r->timeline = app::timeline_from_step(*r->report.sim, r->scenario->plan);
  else
    r->timeline = app::build_timeline(r->report.est, r->scenario->plan);
  if (!go_on(30, "memory per stage")) return nullptr;
  for (int stage = 0; stage < r->scenario->plan.pp && stage < kMaxMemoryStages; ++stage)
    r->stage_memory.push_back(memory_of_stage(*r->scenario, profile, stage));
  if (!r->report.fits_memory)
    r->cost_notes.push_back("the plan does not fit the GPU's memory: whole-run figures assume it would");
  if (!go_on(35, "price catalog")) return nullptr;
  compute_pricing(*r, catalog);
  const std::string run_stage = "whole run (" + std::to_string(r->scenario->reliability.trials) + " trials)";
  if (!go_on(40, run_stage)) return nullptr;
  compute_job(*r);
  if (!go_on(90, "bills per plan")) return nullptr;
  compare(*r);
  if (!go_on(100, "done")) return nullptr;
  return r;
}

}  // namespace flopcast::gui

// The planner's choice: the ranked candidates of each GPU type re-simulated (the step with the
// step simulator, the whole run with the Monte Carlo, the bills under every price option), in
// rounds until one meets the deadline and the budget at the confidence percentile; the best for
// the objective is recommended. When none does, the closest plans and what would make one work.
#include <algorithm>
#include <cmath>
#include <limits>

#include "flopcast/exec/thread_pool.hpp"
#include "flopcast/job/job_simulation.hpp"
#include "flopcast/job/job_size.hpp"
#include "flopcast/job/scenario_job.hpp"
#include "flopcast/pricing/bill.hpp"
#include "flopcast/pricing/plan_comparison.hpp"
#include "flopcast/units/format.hpp"
#include "search_detail.hpp"

namespace flopcast::search::detail {
namespace {

pricing::CompareOptions compare_in(const pricing::PricingSpec& pricing, units::Currency currency) {
  pricing::CompareOptions opt = pricing::compare_options(pricing);
  opt.bill.currency = currency;
  opt.plan_ids.clear();
  opt.named_gpu_only = true;
  return opt;
}

/// A usage with its GPU time stretched by the model's uncertainty band.
pricing::BillUsage stretched(pricing::BillUsage u, double band) {
  if (band > 0) u.gpu_span = units::Time::from_seconds(u.gpu_span.seconds() * (1 + band));
  return u;
}

/// The whole run of `s` at `step`, with a spot plan's interruptions added when `spot` is set.
job::JobOutcome run_job(const SearchContext& ctx, const scenario::Scenario& s, units::Time step, std::int64_t steps,
                        const pricing::Plan* spot) {
  job::JobInput in = job::job_input_for(s, step, steps, ctx.energy);
  if (spot) spot->add_interruptions(in);
  if (const std::string why = job::job_too_big_to_simulate(in); !why.empty()) return job::JobOutcome{{}, {why}};
  // One thread: the candidates are re-simulated in parallel already (choose_by_simulation), and
  // the trials' result does not depend on the threads they are spread over.
  job::JobSimOptions opt;
  opt.threads = 1;
  opt.simulate_advice = false;  // the planner reads the run at its own interval only
  return job::simulate_job(in, opt);
}

/// What the run costs at the confidence percentile under each option of each catalog; the
/// cheapest is kept in `r` (with its P50/P90 bills and whether it is a spot plan).
struct Priced {
  bool ok = false;
  units::Money p50, p90, conf;
  std::string catalog, option, label;
  bool spot = false;
};

/// `want` (optional): only that catalog's option is priced.
void price_run(const SearchContext& ctx, const scenario::Scenario& s, const job::JobResult& job, bool spot_run,
               Priced& best, const Priced* want = nullptr) {
  const int kept = ctx.base.pricing.checkpoints_kept;
  const double band = ctx.options.model_uncertainty;
  const pricing::BillUsage u50 = stretched(pricing::usage_of_trial(job, job.p50_trial, kept), band);
  const pricing::BillUsage u90 = stretched(pricing::usage_of_trial(job, job.p90_trial, kept), band);
  for (const auto& cat : ctx.options.catalogs) {
    if (want && cat->name != want->catalog) continue;
    const pricing::PlanComparison cmp =
        pricing::compare_plans(*cat, gpu_names(s.cluster.gpu), u50, u90, compare_in(ctx.base.pricing, ctx.currency));
    for (const auto& row : cmp.rows) {
      if (!row.p50.ok() || !row.p90.ok() || !row.option.plan) continue;
      if (want && row.option.id != want->option) continue;
      const bool is_spot = row.option.plan->kind == pricing::PriceKind::Spot ||
                           (row.option.overflow && row.option.overflow->kind == pricing::PriceKind::Spot);
      if (is_spot != spot_run) continue;
      const units::Money conf = ctx.options.confidence == Confidence::P50 ? row.p50.total : row.p90.total;
      if (best.ok && conf.minor >= best.conf.minor) continue;
      best = {true, row.p50.total, row.p90.total, conf, cat->name, row.option.id, row.option.label, is_spot};
    }
  }
}

/// The spot plan (with the highest interruption rate, to be safe) among the catalogs' plans for
/// the GPU, or null.
const pricing::Plan* spot_plan_for(const SearchContext& ctx, const hardware::GpuSpec& gpu) {
  const pricing::Plan* worst = nullptr;
  for (const auto& cat : ctx.options.catalogs)
    for (const pricing::Plan* p : cat->plans_for(gpu_names(gpu)))
      if (p->kind == pricing::PriceKind::Spot && (!worst || p->interruptions_per_hour > worst->interruptions_per_hour))
        worst = p;
  return worst;
}

/// A simulated run and its cheapest price at the confidence percentile.
struct PricedRun {
  job::JobOutcome job;
  Priced price;
};

/// The whole run of `s` at `step`: on demand and, when a catalog has a spot plan for the GPU,
/// under spot; the one that bills less at the confidence percentile. `want`: only that option
/// (and its kind of run).
PricedRun priced_run(const SearchContext& ctx, const scenario::Scenario& s, units::Time step, std::int64_t steps,
                     const Priced* want = nullptr) {
  PricedRun best;
  const pricing::Plan* spot = spot_plan_for(ctx, s.cluster.gpu);
  const bool on_demand = !want || !want->spot || !spot;
  if (on_demand) {
    best.job = run_job(ctx, s, step, steps, nullptr);
    if (!best.job.ok()) return best;
    price_run(ctx, s, best.job.result, false, best.price, want);
  }
  if (spot && (!want || want->spot)) {
    PricedRun sp;
    sp.job = run_job(ctx, s, step, steps, spot);
    if (sp.job.ok()) price_run(ctx, s, sp.job.result, true, sp.price, want);
    const bool better = sp.price.ok && (!best.price.ok || sp.price.conf.minor < best.price.conf.minor);
    if (!on_demand || better) best = std::move(sp);
  }
  return best;
}

/// `r`'s figures: the point run's P50/P90 (`point`) and, at the confidence percentile, the
/// checked run's (`checked`: the step at the band's factor, or the point run itself).
void fill_run(const SearchContext& ctx, const PricedRun& point, const PricedRun& checked, Resimulated& r) {
  const PlannerOptions& o = ctx.options;
  const job::JobResult& job = checked.job.result;
  r.run_ok = true;
  r.wall_p50 = point.job.result.wall_p50;
  r.wall_p90 = point.job.result.wall_p90;
  const units::Time wall = o.confidence == Confidence::P50 ? job.wall_p50 : job.wall_p90;
  const units::Time fixed = job.provisioning + job.debug_phase;
  r.wall = o.model_uncertainty > 0
               ? fixed + units::Time::from_seconds((wall - fixed).seconds() * (1 + o.model_uncertainty))
               : wall;
  r.p90_meets_deadline = !o.deadline || r.wall_p90 <= *o.deadline;
  r.meets_deadline = !o.deadline || r.wall <= *o.deadline;
  const Priced& price = checked.price;
  if (price.ok) {
    r.cost_p50 = point.price.ok ? point.price.p50 : price.p50;
    r.cost_p90 = point.price.ok ? point.price.p90 : price.p90;
    r.cost = price.conf;
    r.plan.catalog = price.catalog;
    r.plan.price_option = price.option;
    r.plan.price_label = price.label;
    r.plan.cost = price.conf;
    r.spot = price.spot;
  }
  r.meets_budget = !o.budget || (price.ok && r.cost.minor <= o.budget->minor);
  r.plan.meets_deadline = r.meets_deadline;
  r.plan.meets_budget = r.meets_budget;
}

/// The scenario of a re-simulated plan and its optimizer steps.
std::pair<scenario::Scenario, std::int64_t> scenario_at(const SearchContext& ctx, const PlanCandidate& c,
                                                        double tokens) {
  scenario::Scenario s = scenario_of(ctx, c);
  if (tokens > 0) s.training.tokens = tokens;
  const double per_step = static_cast<double>(s.plan.global_batch) * static_cast<double>(s.model.seq_len);
  return {s, static_cast<std::int64_t>(std::ceil(s.training.tokens / per_step))};
}

}  // namespace

/// One candidate re-simulated at `tokens` training tokens (0 = the scenario's).
Resimulated resimulate(const SearchContext& ctx, const StepSimulator& sim, const PlanCandidate& c, double tokens) {
  Resimulated r;
  r.plan.candidate = c;
  const auto [s, steps] = scenario_at(ctx, c, tokens);
  r.tokens = s.training.tokens;
  r.step = sim(s, ctx.profile);
  if (!r.step.ok) {
    r.errors.push_back(r.step.error);
    return r;
  }
  r.arch = s.cluster.gpu.arch;
  if (ctx.options.bands) r.band = compute::band_of(ctx.profile.bands, s);
  if (r.band.known) r.band_factor = ctx.options.confidence == Confidence::P50 ? r.band.p50 : r.band.p90;
  // The constraints are checked on the run with the step at the band's factor; the point run
  // (the step as simulated) under the same price option gives the P50/P90 figures shown.
  const PricedRun checked =
      priced_run(ctx, s, units::Time::from_seconds(r.step.step.seconds() * r.band_factor), steps, nullptr);
  if (!checked.job.ok()) {
    r.errors = checked.job.errors;
    return r;
  }
  if (r.band_factor == 1) {
    fill_run(ctx, checked, checked, r);
    return r;
  }
  const PricedRun point = priced_run(ctx, s, r.step.step, steps, checked.price.ok ? &checked.price : nullptr);
  if (!point.job.ok()) {
    r.errors = point.job.errors;
    return r;
  }
  fill_run(ctx, point, checked, r);
  return r;
}

/// The recommended plan's run at the band's P10 and P90 step factors (failures at their
/// median), billed under its price option.
void add_band_ends(const SearchContext& ctx, Resimulated& r) {
  if (!r.band.known || !r.run_ok) return;
  const auto [s, steps] = scenario_at(ctx, r.plan.candidate, r.tokens);
  Priced want;
  want.catalog = r.plan.catalog;
  want.option = r.plan.price_option;
  want.spot = r.spot;
  const bool priced = !r.plan.price_option.empty();
  const PricedRun lo = priced_run(ctx, s, units::Time::from_seconds(r.step.step.seconds() * r.band.p10), steps,
                                  priced ? &want : nullptr);
  const PricedRun hi = priced_run(ctx, s, units::Time::from_seconds(r.step.step.seconds() * r.band.p90), steps,
                                  priced ? &want : nullptr);
  if (!lo.job.ok() || !hi.job.ok()) return;
  r.band_ends = true;
  r.band_wall_p10 = lo.job.result.wall_p50;
  r.band_wall_p90 = hi.job.result.wall_p50;
  if (lo.price.ok && hi.price.ok) {
    r.band_cost_p10 = lo.price.p50;
    r.band_cost_p90 = hi.price.p50;
  }
}

namespace {

/// Better for the objective (both meet the constraints); ties go to enumeration order.
bool better(const SearchContext& ctx, const Resimulated& a, const Resimulated& b) {
  switch (ctx.options.objective) {
    case Objective::Fastest:
      if (a.wall != b.wall) return a.wall < b.wall;
      if (a.cost.minor != b.cost.minor) return a.cost.minor < b.cost.minor;
      break;
    case Objective::MostTokens:
      if (a.tokens != b.tokens) return a.tokens > b.tokens;
      [[fallthrough]];
    case Objective::Cheapest:
      if (a.cost.minor != b.cost.minor) return a.cost.minor < b.cost.minor;
      if (a.wall != b.wall) return a.wall < b.wall;
      break;
  }
  return a.plan.candidate.index < b.plan.candidate.index;
}

/// How far a simulated plan misses: the larger of its time over the deadline and its cost
/// over the budget (1 = just meets).
double miss(const SearchContext& ctx, const Resimulated& r) {
  double m = 0;
  if (ctx.options.deadline) m = std::max(m, r.wall.seconds() / ctx.options.deadline->seconds());
  if (ctx.options.budget && ctx.options.budget->minor > 0)
    m = std::max(m, static_cast<double>(r.cost.minor) / static_cast<double>(ctx.options.budget->minor));
  return m;
}

/// MostTokens: the tokens the budget (and the deadline) allow for a simulated plan, scaled
/// from its run and re-simulated until the run meets both (at most four tries).
Resimulated most_tokens(const SearchContext& ctx, const StepSimulator& sim, const Resimulated& at_base) {
  const PlannerOptions& o = ctx.options;
  Resimulated r = at_base;
  double tokens = at_base.tokens;
  for (int attempt = 0; attempt < 4 && r.run_ok; ++attempt) {
    double scale = std::numeric_limits<double>::infinity();
    if (o.budget && r.cost.minor > 0)
      scale = std::min(scale, static_cast<double>(o.budget->minor) / static_cast<double>(r.cost.minor));
    const units::Time fixed = ctx.fixed_wall;
    if (o.deadline && r.wall > fixed)
      scale = std::min(scale, (*o.deadline - fixed).seconds() / (r.wall - fixed).seconds());
    if (!std::isfinite(scale)) break;
    if (r.meets() && scale >= 1 && scale < 1.02) break;  // within 2% of the limit
    tokens *= attempt == 0 ? scale : std::min(scale, 1.0) * 0.995;
    r = resimulate(ctx, sim, at_base.plan.candidate, tokens);
  }
  return r;
}

/// "P90", or "P90 with the model's band (x1.35)" when the run checked had the step at a band factor.
std::string at_pct(const SearchContext& ctx, const Resimulated& r) {
  std::string s = to_string(ctx.options.confidence);
  if (r.band_factor != 1) s += sfmt(" with the model's band (step x%.2f)", r.band_factor);
  return s;
}

/// Words for why the runner-up is not the choice, from the simulated figures.
std::string why_not(const SearchContext& ctx, const Resimulated& b, const Resimulated& r) {
  const double extra =
      b.cost.minor > 0 ? 100.0 * static_cast<double>(r.cost.minor - b.cost.minor) / static_cast<double>(b.cost.minor)
                       : 0;
  const std::string pct = at_pct(ctx, r);
  std::string why = sfmt("the runner-up (%s) costs %s at %s (%+.1f%%) and takes %s", describe(r.plan).c_str(),
                         r.cost.str().c_str(), pct.c_str(), extra, units::format_days(r.wall).c_str());
  if (ctx.options.objective == Objective::MostTokens)
    why += sfmt("; it trains %s tokens against %s", units::format_count_fixed(r.tokens).c_str(),
                units::format_count_fixed(b.tokens).c_str());
  return why;
}

void remedies(const SearchContext& ctx, PlanResult& res);

}  // namespace

void choose_by_simulation(const SearchContext& ctx, const std::vector<std::vector<PlanCandidate>>& ranked,
                          PlanResult& res) {
  const PlannerOptions& o = ctx.options;
  const StepSimulator sim = o.simulator ? o.simulator : StepSimulator(des_step_simulation);
  const auto per = static_cast<std::size_t>(std::max(1, o.candidates_per_gpu));
  for (int round = 0; round < std::max(1, o.rounds); ++round) {
    std::vector<const PlanCandidate*> batch;
    for (const auto& list : ranked)
      for (std::size_t k = per * static_cast<std::size_t>(round); k < list.size() && k < per * (round + 1); ++k)
        batch.push_back(&list[k]);
    if (batch.empty()) break;
    res.rounds = round + 1;
    std::vector<Resimulated> done(batch.size());
    exec::parallel_for(batch.size(), std::max(1, o.threads),
                       [&](std::size_t i, int) { done[i] = resimulate(ctx, sim, *batch[i], 0); });
    if (o.objective == Objective::MostTokens) {
      // The budget buys most where a token costs least: scale the cheapest few per round.
      std::vector<std::size_t> order;
      for (std::size_t i = 0; i < done.size(); ++i)
        if (done[i].run_ok) order.push_back(i);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return done[a].cost.minor < done[b].cost.minor; });
      if (order.size() > 8) order.resize(8);
      std::vector<Resimulated> scaled(order.size());
      exec::parallel_for(order.size(), std::max(1, o.threads),
                         [&](std::size_t i, int) { scaled[i] = most_tokens(ctx, sim, done[order[i]]); });
      for (std::size_t i = 0; i < order.size(); ++i) done[order[i]] = scaled[i];
    }
    bool any = false;
    for (auto& d : done) {
      any = any || d.meets();
      res.resimulated.push_back(std::move(d));
    }
    if (any) break;
  }
  const Resimulated* best = nullptr;
  const Resimulated* second = nullptr;
  for (const auto& r : res.resimulated) {
    if (!r.meets()) continue;
    if (!best || better(ctx, r, *best)) {
      second = best;
      best = &r;
    } else if (!second || better(ctx, r, *second)) {
      second = &r;
    }
  }
  if (best) {
    res.chosen = *best;
    add_band_ends(ctx, *res.chosen);
    res.best = best->plan;
    if (second) {
      res.runner_up = second->plan;
      res.why_runner_up_lost = why_not(ctx, *best, *second);
    }
    return;
  }
  remedies(ctx, res);
}

namespace {

/// Nothing meets: the closest simulated plans and, computed from the simulations, the deadline
/// and the budget that would have been met, and how many GPUs would meet the deadline.
void remedies(const SearchContext& ctx, PlanResult& res) {
  const PlannerOptions& o = ctx.options;
  std::vector<const Resimulated*> ok;
  for (const auto& r : res.resimulated)
    if (r.run_ok) ok.push_back(&r);
  std::stable_sort(ok.begin(), ok.end(),
                   [&](const Resimulated* a, const Resimulated* b) { return miss(ctx, *a) < miss(ctx, *b); });
  for (std::size_t i = 0; i < ok.size() && i < 3; ++i) res.closest.push_back(*ok[i]);
  if (o.deadline) {
    const Resimulated* fastest = nullptr;
    for (const auto* r : ok)
      if (r->meets_budget && (!fastest || r->wall < fastest->wall)) fastest = r;
    if (fastest)
      res.remedies.push_back(sfmt("a deadline of %.0f days: %s takes %s at %s%s", std::ceil(fastest->wall.days()),
                                  describe(fastest->plan).c_str(), units::format_days(fastest->wall).c_str(),
                                  at_pct(ctx, *fastest).c_str(), o.budget ? ", within the budget" : ""));
  }
  if (o.budget) {
    const Resimulated* cheapest = nullptr;
    for (const auto* r : ok)
      if (r->meets_deadline && (!cheapest || r->cost.minor < cheapest->cost.minor)) cheapest = r;
    if (cheapest)
      res.remedies.push_back(sfmt("a budget of %s: %s costs that at %s%s", cheapest->cost.str().c_str(),
                                  describe(cheapest->plan).c_str(), at_pct(ctx, *cheapest).c_str(),
                                  o.deadline ? " and meets the deadline" : ""));
  }
  bool deadline_met = false;
  for (const auto* r : ok) deadline_met = deadline_met || r->meets_deadline;
  if (!o.deadline || deadline_met || !o.find_remedies) return;
  // More GPUs: search counts above the limit (up to 4x) for the deadline alone.
  const std::int64_t limit = ctx.space.gpus_max > 0 ? ctx.space.gpus_max : ctx.base.cluster.gpus;
  PlanSpace wider = ctx.space;
  wider.gpus_min = limit + 1;
  wider.gpus_max = limit * 4;
  wider.gpu_counts.clear();
  PlannerOptions more = o;
  more.budget.reset();
  more.objective = Objective::Cheapest;
  more.find_remedies = false;
  more.rounds = 1;
  const PlanSearch r = search_plans(ctx.base, ctx.profile, wider, more);
  if (r.ok() && r.result.chosen)
    res.remedies.push_back(sfmt("%lld GPUs (above the limit of %lld): %s takes %s at %s and costs %s",
                                static_cast<long long>(r.result.chosen->plan.candidate.gpus),
                                static_cast<long long>(limit), describe(r.result.chosen->plan).c_str(),
                                units::format_days(r.result.chosen->wall).c_str(),
                                at_pct(ctx, *r.result.chosen).c_str(), r.result.chosen->cost.str().c_str()));
  else
    res.remedies.push_back(
        sfmt("no plan of up to %lld GPUs meets the deadline in simulation either", static_cast<long long>(limit * 4)));
}

}  // namespace

std::string describe(const PricedPlan& p) {
  std::string s = sfmt("%lld x %s %s", static_cast<long long>(p.candidate.gpus), p.candidate.gpu.c_str(),
                       parallel::plan_label(p.candidate.plan).c_str());
  if (p.candidate.precision != hardware::Precision::BF16) s += std::string(" ") + to_string(p.candidate.precision);
  if (!p.price_option.empty()) s += " under " + p.price_option;
  return s;
}

}  // namespace flopcast::search::detail

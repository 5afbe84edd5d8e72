#include "flopcast/search/planner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/exec/thread_pool.hpp"
#include "flopcast/job/job_simulation.hpp"
#include "flopcast/job/job_size.hpp"
#include "flopcast/job/scenario_job.hpp"
#include "flopcast/job/young_daly.hpp"
#include "flopcast/pricing/bill.hpp"
#include "flopcast/pricing/plan_comparison.hpp"
#include "flopcast/step/step_simulation.hpp"
#include "flopcast/units/assert.hpp"
#include "flopcast/units/format.hpp"
#include "flopcast/workload/fine_tuning.hpp"
#include "flopcast/workload/workload.hpp"
#include "plan_enumeration.hpp"
#include "search_detail.hpp"

namespace flopcast::search {

namespace detail {
std::string sfmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}
}  // namespace detail

using namespace detail;

namespace {

/// The scenario's comparison settings billed in the search's one currency, over every plan
/// that names the GPU type (the search compares GPU types; the scenario's plan ids do not apply).
pricing::CompareOptions search_compare_options(const pricing::PricingSpec& pricing, units::Currency currency) {
  pricing::CompareOptions opt = pricing::compare_options(pricing);
  opt.bill.currency = currency;
  opt.plan_ids.clear();
  opt.named_gpu_only = true;
  return opt;
}

}  // namespace

namespace {
/// Where a re-simulated step's time goes, one line.
std::string breakdown_line(const estimate::StepBreakdown& b) {
  return sfmt(
      "compute %.3f s, recompute %.3f s, bubble %.3f s, exposed communication %.3f s (TP %.3f, DP %.3f, PP %.3f)",
      b.compute.seconds(), b.recompute.seconds(), b.bubble.seconds(),
      (b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm).seconds(), b.tp_comm.seconds(), b.dp_comm.seconds(),
      b.pp_comm.seconds());
}
}  // namespace

StepSimulation estimate_step_simulation(const scenario::Scenario& s, const compute::ComputeProfile& profile) {
  StepSimulation r;
  const estimate::StepEstimate e = estimate::estimate_step(s, profile);
  r.step = e.step;
  r.mfu = e.mfu;
  r.method = "closed-form estimate";
  r.details.push_back(breakdown_line(e.breakdown));
  if (e.step.ns <= 0) {
    r.ok = false;
    r.error = "the estimate gave no step time";
  }
  return r;
}

StepSimulation des_step_simulation(const scenario::Scenario& s, const compute::ComputeProfile& profile) {
  StepSimulation r;
  step::StepSimOptions opt;
  opt.timeline = false;
  const step::StepResult e = step::simulate_step(s, profile, opt);
  r.step = e.step;
  r.mfu = e.mfu;
  r.method = "discrete-event simulation";
  r.details.push_back(breakdown_line(e.breakdown) + sfmt("; %llu events", static_cast<unsigned long long>(e.events)));
  if (e.step.ns <= 0) {
    r.ok = false;
    r.error = "the simulation gave no step time";
  }
  return r;
}

const char* to_string(Confidence c) { return c == Confidence::P50 ? "P50" : "P90"; }

std::string confidence_words(Confidence c, const compute::PredictionBand& band, hardware::GpuArch arch) {
  if (!band.known) return sfmt("%s (point prediction: no band for %s)", to_string(c), to_string(arch));
  // P50 / P90 are percentiles over failures; the model band is named apart (its median, its slow end).
  // A generation without runs of its own says so, and whose band it borrowed.
  const std::string prior = band.stand_in
                                ? sfmt("; %s, %s's band widened", compute::kPriorOnlyWords, to_string(*band.stand_in))
                                : std::string();
  if (c == Confidence::P50)
    return sfmt("P50 of failures, the step at the model band's median (%s band x%.2f to x%.2f, median x%.2f%s)",
                to_string(arch), band.p10, band.p90, band.p50, prior.c_str());
  return sfmt("P90 of failures, the step at the model band's slow end (%s band x%.2f to x%.2f%s)", to_string(arch),
              band.p10, band.p90, prior.c_str());
}

namespace detail {

std::vector<std::string> gpu_names(const hardware::GpuSpec& g) {
  std::vector<std::string> names{g.name};
  names.insert(names.end(), g.aliases.begin(), g.aliases.end());
  return names;
}

scenario::Scenario scenario_of(const SearchContext& ctx, const PlanCandidate& c) {
  scenario::Scenario s = ctx.base;
  s.locations = {};
  s.cluster = ctx.space.clusters[c.cluster];
  s.cluster.gpus = c.gpus;
  s.precision = c.precision;
  s.plan = c.plan;
  return s;
}

double ranking_key(const SearchContext& ctx, const PlanCandidate& c) {
  const PlannerOptions& o = ctx.options;
  const double base = o.objective == Objective::Fastest ? c.wall.seconds() : c.gpu_hours;
  if (o.objective == Objective::MostTokens) return base;
  // Candidates out of reach of the deadline come last (fastest first: the closest plans), then
  // those out of reach of the budget; each class is non-decreasing in wall time and GPU-hours,
  // so a subtree's bound (a plan faster and cheaper than all of it) still keys lowest.
  if (o.deadline && c.wall.seconds() > o.deadline->seconds() * (1 + kRankSlack))
    return 2 * kOutOfReach + c.wall.seconds();
  const double price = c.cluster < ctx.min_gpu_hour_price.size() ? ctx.min_gpu_hour_price[c.cluster] : 0;
  if (o.budget && price > 0 && o.budget->currency == ctx.currency &&
      c.gpu_hours * price > o.budget->major() * (1 + kRankSlack))
    return kOutOfReach + base;
  return base;
}

}  // namespace detail

namespace {
/// What a candidate bills: its expected span, GPUs, debug phase and checkpoint storage.
pricing::BillUsage usage_of(const SearchContext& ctx, const PlanCandidate& c) {
  const scenario::Scenario s = scenario_of(ctx, c);
  const job::JobInput in = job::job_input_for(s, c.step, ctx.steps, ctx.energy);
  pricing::BillUsage usage;
  usage.gpu_span = c.gpu_span;
  usage.gpus = c.gpus;
  usage.debug_phase = ctx.base.reliability.debug_phase;
  usage.storage = units::Bytes{job::checkpoint_size(in).value * std::max(0, ctx.base.pricing.checkpoints_kept)};
  return usage;
}

/// Prices each count's fastest plan under every price option of every catalog into
/// res.fastest_per_count; `priced_cluster[c]` says whether any plan of cluster type c was billed.
void price_fastest(const SearchContext& ctx, const std::vector<ItemResult>& item_results, PlanResult& res,
                   std::vector<bool>& priced_cluster) {
  std::vector<std::string> bill_problems;
  for (const auto& ir : item_results) {
    if (!ir.fastest) continue;
    PlanCandidate c = *ir.fastest;
    const scenario::ClusterSpec& cl = ctx.space.clusters[c.cluster];
    c.gpu = cl.gpu.name;
    const std::vector<std::string> names = gpu_names(cl.gpu);
    const pricing::BillUsage usage = usage_of(ctx, c);
    for (const auto& cat : ctx.options.catalogs) {
      if (cat->plans_for(names).empty()) continue;
      const pricing::PlanComparison cmp =
          pricing::compare_plans(*cat, names, usage, usage, search_compare_options(ctx.base.pricing, ctx.currency));
      for (const auto& row : cmp.rows) {
        if (!row.p50.ok()) {
          if (bill_problems.size() < 8) {
            const std::string why = cat->name + "/" + row.option.id + ": " + row.p50.errors.front();
            if (std::find(bill_problems.begin(), bill_problems.end(), why) == bill_problems.end())
              bill_problems.push_back(why);
          }
          continue;
        }
        PricedPlan pp;
        pp.candidate = c;
        pp.catalog = cat->name;
        pp.price_option = row.option.id;
        pp.price_label = row.option.label;
        pp.cost = row.p50.total;
        pp.meets_deadline = !ctx.options.deadline || c.wall <= *ctx.options.deadline;
        pp.meets_budget = !ctx.options.budget || pp.cost.minor <= ctx.options.budget->minor;
        res.fastest_per_count.push_back(std::move(pp));
        priced_cluster[c.cluster] = true;
      }
    }
  }
  for (const auto& b : bill_problems) res.notes.push_back("not billed: " + b);
  std::string unnamed;
  for (const auto& cat : ctx.options.catalogs)
    for (const pricing::Plan& p : cat->plans)
      if (std::find(p.gpus.begin(), p.gpus.end(), "*") != p.gpus.end())
        unnamed += (unnamed.empty() ? "" : ", ") + cat->name + "/" + p.id;
  if (!unnamed.empty())
    res.notes.push_back("left out: plans that do not name their GPU type (" + unnamed +
                        "); their price cannot be assumed for every GPU type searched");
}

/// "128 x B200 TP1 PP2 ... under spheron-b200-spot".

/// The Pareto front of every count's fastest plan, and a note on the cheapest plan overall
/// when it is not the choice, saying which constraint it breaks.
void front_and_cheapest(const SearchContext& ctx, PlanResult& res) {
  res.pareto = pareto_front(res.fastest_per_count);
  const PricedPlan* cheapest = nullptr;
  for (const auto& p : res.fastest_per_count)
    if (!cheapest || p.cost.minor < cheapest->cost.minor) cheapest = &p;
  if (!cheapest || (res.best && cheapest->cost.minor >= res.best->cost.minor)) return;
  const auto& c = *cheapest;
  const PlannerOptions& o = ctx.options;
  std::string why;
  if (!c.meets_deadline && o.deadline)
    why = sfmt("misses the deadline (%s > %s)", units::format_days(c.candidate.wall).c_str(),
               units::format_days(*o.deadline).c_str());
  if (!c.meets_budget && o.budget)
    why += (why.empty() ? "" : " and ") + std::string("exceeds the budget (") + c.cost.str() + " > " + o.budget->str() +
           ")";
  if (why.empty()) why = "is not the choice: its simulated run misses a constraint the closed form met";
  res.notes.push_back("the cheapest plan overall, " + describe(c) + " at " + c.cost.str() + " (closed form), " + why);
}

/// The cheapest of cluster type c's priced plans that pass `keep`, or null.
template <class Keep>
const PricedPlan* cheapest_of(const PlanResult& res, std::size_t c, Keep keep) {
  const PricedPlan* cheapest = nullptr;
  for (const auto& p : res.fastest_per_count)
    if (p.candidate.cluster == c && keep(p) && (!cheapest || p.cost.minor < cheapest->cost.minor)) cheapest = &p;
  return cheapest;
}

/// Why cluster type c could do nothing (or less): no plan, no price, the deadline, the budget.
void explain_cluster(const SearchContext& ctx, std::size_t c, const std::vector<ItemResult>& item_results,
                     const ClusterTotals& totals, bool priced, PlanResult& res) {
  const PlannerOptions& o = ctx.options;
  const std::string& g = ctx.space.clusters[c].gpu.name;
  if (totals.estimated[c] == 0) {
    res.infeasible.push_back(g + ": no plan fits in memory or divides the job (" +
                             std::to_string(totals.memory_pruned[c]) + " plans pruned for memory)");
    return;
  }
  if (!o.catalogs.empty() && !priced) {
    std::string names;
    for (const auto& cat : o.catalogs) names += (names.empty() ? "" : ", ") + cat->name;
    res.infeasible.push_back(g + ": no price plan for it in " + names + " (time only, no cost)");
  }
  const PlanCandidate* fastest = nullptr;
  for (const auto& ir : item_results)
    if (ir.fastest && ir.fastest->cluster == c && (!fastest || ir.fastest->wall < fastest->wall))
      fastest = &*ir.fastest;
  if (fastest && o.deadline && fastest->wall > *o.deadline)
    res.infeasible.push_back(sfmt("%s: even the fastest plan (%lld GPUs, %s) takes %s, over the deadline of %s",
                                  g.c_str(), static_cast<long long>(fastest->gpus),
                                  parallel::plan_label(fastest->plan).c_str(),
                                  units::format_days(fastest->wall).c_str(), units::format_days(*o.deadline).c_str()));
  if (o.budget && priced) {
    const PricedPlan* cheapest = cheapest_of(res, c, [](const PricedPlan& p) { return p.meets_deadline; });
    if (cheapest && !cheapest->meets_budget)
      res.infeasible.push_back(g + ": the cheapest plan meeting the deadline costs " + cheapest->cost.str() +
                               ", over the budget of " + o.budget->str());
  }
}

/// " with the step at the band's x1.09" when the run was checked with the model's band.
std::string band_words(const Resimulated& x) {
  return x.band_factor != 1 ? sfmt(" with the step at the band's x%.2f", x.band_factor) : std::string();
}

/// "640 x H800 TP1 PP5 ... under seed-vendor/h800-daily": a plan as the simulated list names it.
std::string simulated_name(const PricedPlan& p) {
  std::string s = sfmt("%lld x %s %s", static_cast<long long>(p.candidate.gpus), p.candidate.gpu.c_str(),
                       parallel::plan_label(p.candidate.plan).c_str());
  if (p.candidate.precision != hardware::Precision::BF16) s += std::string(" ") + to_string(p.candidate.precision);
  return s + " under " + p.catalog + "/" + p.price_option;
}

/// How another GPU type compares with the choice, on the same footing: its cheapest simulated
/// plan that meets the constraints (at the confidence, with the model's band, as the choice),
/// else why its cheapest plan by the closed form is not one.
std::string compare_cluster(const SearchContext& ctx, std::size_t c, const PlanResult& res) {
  const std::string& g = ctx.space.clusters[c].gpu.name;
  const Resimulated& choice = *res.chosen;
  const Resimulated* sim = nullptr;
  for (const auto& x : res.resimulated)
    if (x.plan.candidate.cluster == c && x.meets() && (!sim || x.cost.minor < sim->cost.minor)) sim = &x;
  const char* pct = to_string(ctx.options.confidence);
  if (sim) {
    const double over =
        choice.cost.minor > 0 && choice.cost.currency == sim->cost.currency
            ? 100.0 * static_cast<double>(sim->cost.minor - choice.cost.minor) / static_cast<double>(choice.cost.minor)
            : 0.0;
    return sfmt(
        "%s: its cheapest simulated plan meeting the constraints, %s, costs %s (%+.1f%% over the choice) and "
        "takes %.1f days, at %s%s",
        g.c_str(), simulated_name(sim->plan).c_str(), sim->cost.str().c_str(), over, sim->wall.days(), pct,
        band_words(*sim).c_str());
  }
  const PricedPlan* closed =
      cheapest_of(res, c, [](const PricedPlan& p) { return p.meets_deadline && p.meets_budget; });
  if (!closed) return "";
  for (const auto& x : res.resimulated)
    if (x.run_ok && x.plan.candidate.index == closed->candidate.index && x.plan.catalog == closed->catalog &&
        x.plan.price_option == closed->price_option)
      return sfmt(
          "%s: no simulated plan meets the constraints; %s, the cheapest that meets them by the closed form "
          "(%s expected), %s in simulation: %.1f days, %s at %s%s",
          g.c_str(), simulated_name(*closed).c_str(), units::format_days(closed->candidate.wall).c_str(),
          !x.meets_deadline ? "misses the deadline" : "is over the budget", x.wall.days(), x.cost.str().c_str(), pct,
          band_words(x).c_str());
  return sfmt(
      "%s: no simulated plan meets the constraints; %s meets them by the closed form only (%s expected, %s) "
      "and was not simulated",
      g.c_str(), simulated_name(*closed).c_str(), units::format_days(closed->candidate.wall).c_str(),
      closed->cost.str().c_str());
}

/// Infeasible choices per GPU type, then how each other GPU type compares with the choice.
void explain_clusters(const SearchContext& ctx, const std::vector<ItemResult>& item_results,
                      const ClusterTotals& totals, const std::vector<bool>& priced_cluster, PlanResult& res) {
  for (std::size_t c = 0; c < ctx.space.clusters.size(); ++c)
    explain_cluster(ctx, c, item_results, totals, priced_cluster[c], res);
  if (!res.best || !res.chosen) return;
  for (std::size_t c = 0; c < ctx.space.clusters.size(); ++c) {
    if (c == res.best->candidate.cluster) continue;
    if (std::string note = compare_cluster(ctx, c, res); !note.empty()) res.notes.push_back(std::move(note));
  }
}

/// The P50 and P90 bills of a re-simulated run under the plan's own price option.

/// The search's one currency: the options', else the first catalog's, else USD.
units::Currency search_currency(const PlannerOptions& options) {
  return !options.currency.empty()   ? units::Currency::of(options.currency)
         : !options.catalogs.empty() ? options.catalogs.front()->currency
                                     : units::Currency::of("USD");
}

/// The lowest price of one GPU-hour of `gpu` over the catalogs' plans that name it, in
/// `currency` (0 when none can be converted): each plan's price per unit over its unit's hours
/// and the GPUs it covers, less its commitment discount. A bill is never below it per GPU-hour
/// of GPU time (started units and minimum terms only add), credits aside.
double min_gpu_hour_price(const std::vector<std::shared_ptr<const pricing::PriceCatalog>>& catalogs,
                          const hardware::GpuSpec& gpu, units::Currency currency) {
  double best = 0;
  const std::vector<std::string> names = gpu_names(gpu);
  for (const auto& cat : catalogs)
    for (const pricing::Plan* p : cat->plans_for(names)) {
      bool named = false;
      for (const auto& n : names) named = named || p->names_gpu(n);
      if (!named) continue;
      const auto micro = pricing::convert_micro(*cat, p->price.micro, p->price.currency, currency);
      if (!micro) continue;
      const double gpus = p->basis == pricing::PriceBasis::PerNode ? std::max(1, p->gpus_per_node) : 1;
      const double per_hour = static_cast<double>(*micro) / 1e6 / pricing::billing_unit_length(p->unit).hours() / gpus *
                              (1.0 - static_cast<double>(p->discount_bp) / 10000.0);
      if (per_hour > 0 && (best == 0 || per_hour < best)) best = per_hour;
    }
  return best;
}

SearchContext make_context(const scenario::Scenario& base, const compute::ComputeProfile& profile,
                           const PlanSpace& space, const PlannerOptions& options) {
  const double tokens_per_step = static_cast<double>(base.plan.global_batch) * static_cast<double>(base.model.seq_len);
  SearchContext ctx{
      base,
      profile,
      space,
      options,
      static_cast<std::int64_t>(std::ceil(base.training.tokens / tokens_per_step)),
      base.reliability.provisioning + base.reliability.debug_phase,
      options.catalogs.empty() ? job::EnergySpec{} : pricing::energy_spec(*options.catalogs.front(), base.pricing),
      search_currency(options),
      static_cast<std::size_t>(std::max(0, options.top_k)),
      {},
      profile};
  for (const auto& cl : space.clusters)
    ctx.min_gpu_hour_price.push_back(min_gpu_hour_price(options.catalogs, cl.gpu, ctx.currency));
  ctx.bound_profile.host_overhead_us = 0;
  return ctx;
}

}  // namespace

PlanSearch search_plans(const scenario::Scenario& base, const compute::ComputeProfile& profile, const PlanSpace& space,
                        const PlannerOptions& options) {
  PlanSearch out;
  PlanResult& res = out.result;
  const auto t0 = std::chrono::steady_clock::now();
  out.errors = request_errors(base, space);
  if (!out.errors.empty()) return out;
  std::int64_t no_peak = 0;
  std::string missing;
  const std::vector<Item> items = work_items(base, space, no_peak, missing);
  if (items.empty()) {
    out.errors.push_back(
        no_peak > 0
            ? "no GPU type searched has a dense peak for the precisions asked (none in data/gpus.yaml for " + missing +
                  "; mxfp8 and nvfp4 need a Blackwell GPU such as B200 or GB200): choose "
                  "another --precision or --gpu"
            : "no GPU count to search (check --gpus-max and the node size)");
    return out;
  }
  const SearchContext ctx = make_context(base, profile, space, options);

  // Enumerate and rank: each worker has its own scratch scenario; each item its own lists.
  std::vector<Axes> axes;
  for (const auto& cl : space.clusters) axes.push_back(resolve_axes(space, base.model, cl.gpus_per_node));
  const int threads = std::max(1, options.threads);
  std::vector<ItemResult> item_results(items.size());
  std::vector<scenario::Scenario> scratch(static_cast<std::size_t>(threads), base);
  for (auto& s : scratch) s.locations = {};
  exec::parallel_for(
      items.size(), threads,
      [&](std::size_t i, int w) {
        search_item(ctx, axes[items[i].cluster], i, items[i], scratch[static_cast<std::size_t>(w)], item_results[i]);
      },
      options.cancel);
  if (options.cancel && options.cancel->load()) {
    out.errors.push_back("cancelled");
    return out;
  }
  if (options.prune) {
    const GlobalLists global = first_pass_lists(ctx, items, item_results);
    exec::parallel_for(
        items.size(), threads,
        [&](std::size_t i, int w) {
          search_item_rest(ctx, axes[items[i].cluster], i, items[i], scratch[static_cast<std::size_t>(w)], global,
                           item_results[i]);
        },
        options.cancel);
    if (options.cancel && options.cancel->load()) {
      out.errors.push_back("cancelled");
      return out;
    }
  }

  std::vector<std::vector<PlanCandidate>> ranked;
  const ClusterTotals totals = merge_items(ctx, items, item_results, res, ranked);
  if (no_peak > 0) res.pruned.push_back({kReasonText[kPrecision], no_peak, kReasonUnit[kPrecision]});
  res.currency = ctx.currency.str();
  std::vector<bool> priced_cluster(space.clusters.size(), false);
  price_fastest(ctx, item_results, res, priced_cluster);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const auto t1 = std::chrono::steady_clock::now();
  choose_by_simulation(ctx, ranked, res);
  res.resimulate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  front_and_cheapest(ctx, res);
  explain_clusters(ctx, item_results, totals, priced_cluster, res);
  return out;
}

}  // namespace flopcast::search

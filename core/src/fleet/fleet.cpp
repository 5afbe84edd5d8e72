#include "flopcast/fleet/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "fleet_engine.hpp"
#include "flopcast/exec/thread_pool.hpp"
#include "flopcast/pricing/bill.hpp"
#include "flopcast/units/assert.hpp"

namespace flopcast::fleet {

const char* to_string(ArrivalProcess a) { return a == ArrivalProcess::Poisson ? "poisson" : "uniform"; }
const char* to_string(PoolKind k) { return k == PoolKind::Owned ? "owned" : "rented"; }
const char* to_string(RentalBilling b) { return b == RentalBilling::Reserved ? "reserved" : "on_demand"; }
const char* to_string(QueueOrder o) { return o == QueueOrder::Fifo ? "fifo" : "priority"; }
const char* to_string(Backfill b) { return b == Backfill::None ? "none" : "easy"; }

Percentiles percentiles_of(std::vector<Time>& values) {
  Percentiles p;
  p.count = static_cast<std::int64_t>(values.size());
  if (values.empty()) return p;
  std::sort(values.begin(), values.end());
  const auto rank = [&](double q) {
    const auto n = values.size();
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
    return values[std::clamp<std::size_t>(k, 1, n) - 1];
  };
  p.p50 = rank(0.5);
  p.p90 = rank(0.9);
  // Mean in long double: 200k waits of up to 1e17 ns would overflow an int64 sum.
  long double sum = 0;
  for (Time t : values) sum += static_cast<long double>(t.ns);
  p.mean = Time{static_cast<std::int64_t>(std::llround(sum / static_cast<long double>(values.size())))};
  return p;
}

namespace {

const Plan* find_plan(const std::shared_ptr<const PriceCatalog>& catalog, const std::string& id) {
  return catalog ? catalog->find_plan(id) : nullptr;
}

bool same_gpu(const std::string& a, const std::string& b) { return normalize_gpu_name(a) == normalize_gpu_name(b); }

}  // namespace

std::vector<std::string> validate_fleet(const Fleet& f) {
  std::vector<std::string> e;
  if (f.pools.empty()) e.push_back("the fleet has no pools");
  if (f.classes.empty()) e.push_back("the fleet has no job classes");
  if (f.horizon.ns <= 0) e.push_back("horizon must be > 0");
  if (f.seeds < 1) e.push_back("seeds must be >= 1 (got " + std::to_string(f.seeds) + ")");
  std::set<std::string> names;
  for (const Pool& p : f.pools) {
    if (!names.insert(p.name).second) e.push_back("pool name '" + p.name + "' is used twice");
    if (p.nodes < 1) e.push_back("pool '" + p.name + "': nodes must be >= 1");
    if (p.gpus_per_node < 1) e.push_back("pool '" + p.name + "': gpus_per_node must be >= 1");
    if (p.kind == PoolKind::Owned) {
      if (p.owned.amortisation.ns <= 0) e.push_back("pool '" + p.name + "': amortisation must be > 0");
      if (p.owned.node_power_kw < 0) e.push_back("pool '" + p.name + "': node_power must be >= 0");
    } else {
      const Plan* plan = find_plan(p.rented.catalog, p.rented.plan);
      if (!plan)
        e.push_back("pool '" + p.name + "': plan '" + p.rented.plan + "' is not in its catalog");
      else if (!plan->applies_to(p.gpu))
        e.push_back("pool '" + p.name + "': plan '" + p.rented.plan + "' does not rent " + p.gpu);
    }
  }
  for (const JobClass& c : f.classes) {
    if (c.variants.empty()) e.push_back("job class '" + c.name + "' has no run profile");
    for (const RunProfile& v : c.variants) {
      if (v.gpus < 1) e.push_back("job class '" + c.name + "': a variant has no GPUs");
      if (v.spans.empty()) e.push_back("job class '" + c.name + "': a variant has no trials");
      if (!v.failures.empty() && v.failures.size() != v.spans.size())
        e.push_back("job class '" + c.name + "': failures and spans differ in length");
      for (Time s : v.spans)
        if (s.ns <= 0) {
          e.push_back("job class '" + c.name + "': a trial span is <= 0");
          break;
        }
    }
  }
  if (f.generator && !f.jobs.empty()) e.push_back("a fleet has either a job list or a generator, not both");
  if (!f.generator && f.jobs.empty()) e.push_back("the fleet has no jobs (give a job list or a generator)");
  for (const JobSpec& j : f.jobs)
    if (j.job_class >= f.classes.size()) e.push_back("job '" + j.name + "': unknown job class");
  if (f.generator) {
    const StreamGenerator& g = *f.generator;
    if (!(g.rate_per_day > 0) || !std::isfinite(g.rate_per_day)) e.push_back("generator: rate must be > 0");
    if (g.mix.empty()) e.push_back("generator: mix is empty");
    if (g.max_jobs < 0) e.push_back("generator: max_jobs must be >= 0");
    for (const MixEntry& m : g.mix) {
      if (m.job_class >= f.classes.size()) e.push_back("generator: unknown job class in the mix");
      if (!(m.weight > 0) || !std::isfinite(m.weight)) e.push_back("generator: weights must be > 0");
    }
  }
  if (f.revenue) {
    if (!f.revenue->catalog) e.push_back("revenue: no catalog");
    for (const auto& [gpu, plan] : f.revenue->plans)
      if (!find_plan(f.revenue->catalog, plan)) e.push_back("revenue: plan '" + plan + "' is not in the catalog");
  }
  for (const WhatIf& w : f.what_ifs) {
    const auto it = std::find_if(f.pools.begin(), f.pools.end(), [&](const Pool& p) { return p.name == w.pool; });
    if (it == f.pools.end()) {
      e.push_back("what-if '" + w.label + "': no pool '" + w.pool + "'");
      continue;
    }
    if (w.kind == WhatIf::Kind::AddNodes && it->nodes + w.nodes < 1)
      e.push_back("what-if '" + w.label + "': the pool would have no nodes");
    if (w.kind == WhatIf::Kind::ChangePlan) {
      if (it->kind != PoolKind::Rented)
        e.push_back("what-if '" + w.label + "': pool '" + w.pool + "' is owned, not rented");
      else if (!find_plan(it->rented.catalog, w.plan))
        e.push_back("what-if '" + w.label + "': plan '" + w.plan + "' is not in the pool's catalog");
    }
  }
  return e;
}

namespace {

using detail::SeedRun;

std::vector<SeedRun> run_seeds(const Fleet& f, const FleetOptions& o) {
  std::vector<SeedRun> runs(static_cast<std::size_t>(f.seeds));
  const int threads = std::clamp(o.threads, 1, f.seeds);
  exec::parallel_for(runs.size(), threads, [&](std::size_t s, int) { runs[s] = detail::run_seed(f, s, o); });
  return runs;
}

/// Mean of per-seed amounts, rounded half away from zero to the minor unit.
Money mean_money(const std::vector<Money>& v, Currency c) {
  if (v.empty()) return Money::zero(c);
  std::int64_t sum = 0;
  for (const Money& m : v) sum += m.minor;
  return Money::of_minor(mul_div_round(sum, 1, static_cast<std::int64_t>(v.size())), c);
}

MoneyStats money_stats(std::vector<Money> v, Currency c) {
  MoneyStats s;
  s.mean = mean_money(v, c);
  std::sort(v.begin(), v.end(), [](const Money& a, const Money& b) { return a.minor < b.minor; });
  s.p50 = v.empty() ? Money::zero(c) : v[(v.size() + 1) / 2 - 1];
  return s;
}

Time clip_end(Time end, Time horizon) { return std::min(end, horizon); }

/// A bill for `gpus` GPUs used for `span` under `plan`.
Bill bill_for(const PriceCatalog& catalog, const Plan& plan, std::int64_t gpus, Time span,
              std::optional<Currency> currency = {}) {
  BillUsage u;
  u.gpu_span = span;
  u.gpus = gpus;
  BillOptions o;
  o.currency = currency;
  return bill_plan(catalog, plan, u, o);
}

std::vector<PoolCost> pool_costs(const Fleet& f, const std::vector<SeedRun>& runs, std::vector<std::string>& warnings) {
  std::vector<PoolCost> costs;
  const double horizon_h = f.horizon.hours();
  const double seeds = static_cast<double>(runs.size());
  for (std::size_t p = 0; p < f.pools.size(); ++p) {
    const Pool& pool = f.pools[p];
    PoolCost c;
    c.pool = pool.name;
    c.kind = pool.kind;
    double busy_ns = 0;
    for (const SeedRun& r : runs) busy_ns += r.pool_busy_gpu_ns[p];
    busy_ns /= seeds;
    c.busy_gpu_hours = busy_ns / 3.6e12;
    c.utilisation = c.busy_gpu_hours / (static_cast<double>(pool.gpus()) * horizon_h);
    if (pool.kind == PoolKind::Owned) {
      const OwnedCosts& o = pool.owned;
      const Currency cur = o.capex_per_node.currency;
      // Straight-line amortisation of the horizon's share of the purchase.
      c.capex = Money::of_minor(
          mul_div_round(checked_mul(o.capex_per_node.minor, pool.nodes), f.horizon.ns, o.amortisation.ns), cur);
      const double busy_node_h = c.busy_gpu_hours / pool.gpus_per_node;
      const double all_node_h = static_cast<double>(pool.nodes) * horizon_h;
      const double it_kwh = o.node_power_kw * (busy_node_h + (all_node_h - busy_node_h) * o.idle_fraction);
      c.energy_kwh = it_kwh * o.pue;
      c.energy = Money::of_micro(std::llround(c.energy_kwh * static_cast<double>(o.price_per_kwh.micro)),
                                 o.price_per_kwh.currency);
      if (c.energy.currency == cur) {
        c.total = c.capex + c.energy;
      } else {
        c.total = c.capex;
        c.notes.push_back("energy is in " + c.energy.currency.str() + ", capex in " + cur.str() +
                          ": the total is capex only");
      }
      if (o.node_power_kw <= 0) c.notes.push_back("node power unknown: energy not counted");
      c.notes.push_back("capex " + o.capex_per_node.str() + " per node over " +
                        std::to_string(std::llround(o.amortisation.days())) + " days");
    } else {
      const PriceCatalog& cat = *pool.rented.catalog;
      const Plan* plan = cat.find_plan(pool.rented.plan);
      c.plan = plan->id;
      c.billing = pool.rented.billing;
      std::set<std::string> errors;
      // The pool's usage under `pl`: the whole pool for the horizon, or each run on its own.
      const auto bill_under = [&](const Plan& pl) {
        if (pool.rented.billing == RentalBilling::Reserved) {
          const Bill b = bill_for(cat, pl, pool.gpus(), f.horizon);
          errors.insert(b.errors.begin(), b.errors.end());
          return b.ok() ? std::optional<Money>(b.total) : std::nullopt;
        }
        std::vector<Money> per_seed;
        bool ok = true;
        for (const SeedRun& r : runs) {
          Money sum = Money::zero(cat.currency);
          for (const auto& a : r.attempts) {
            if (a.pool != p || a.start >= f.horizon) continue;
            const Bill b = bill_for(cat, pl, a.gpus, clip_end(a.end, f.horizon) - a.start);
            if (!b.ok()) {
              errors.insert(b.errors.begin(), b.errors.end());
              ok = false;
              continue;
            }
            sum += b.total;
          }
          per_seed.push_back(sum);
        }
        return ok ? std::optional<Money>(mean_money(per_seed, cat.currency)) : std::nullopt;
      };
      const auto own = bill_under(*plan);
      c.bill = own.value_or(Money::zero(cat.currency));
      for (const auto& e : errors) warnings.push_back("pool '" + pool.name + "': not billed: " + e);
      if (pool.rented.billing == RentalBilling::Reserved) {
        const Bill b = bill_for(cat, *plan, pool.gpus(), f.horizon);
        c.notes.push_back("billed " + std::to_string(std::llround(b.billed_gpu_time.hours())) + " h x " +
                          std::to_string(pool.gpus()) + " GPUs");
      } else {
        c.notes.push_back("on demand: each run billed on its own, clipped to the horizon");
      }
      for (const Plan* other : cat.plans_for({pool.gpu})) {
        errors.clear();
        if (other == plan)
          c.plan_bills.emplace_back(other->id, c.bill);
        else if (const auto m = bill_under(*other))
          c.plan_bills.emplace_back(other->id, *m);
      }
      c.total = c.bill;
    }
    costs.push_back(std::move(c));
  }
  return costs;
}

std::optional<RevenueResult> revenue_of(const Fleet& f, const std::vector<SeedRun>& runs) {
  if (!f.revenue) return std::nullopt;
  const RevenueSpec& rs = *f.revenue;
  const PriceCatalog& cat = *rs.catalog;
  RevenueResult out;
  out.currency = rs.currency.value_or(cat.currency);
  // Plan per pool (first matching GPU entry).
  std::vector<int> plan_of_pool(f.pools.size(), -1);
  for (std::size_t p = 0; p < f.pools.size(); ++p)
    for (std::size_t i = 0; i < rs.plans.size(); ++i)
      if (same_gpu(rs.plans[i].first, f.pools[p].gpu)) {
        plan_of_pool[p] = static_cast<int>(i);
        break;
      }
  for (std::size_t p = 0; p < f.pools.size(); ++p)
    if (plan_of_pool[p] < 0)
      out.notes.push_back("pool '" + f.pools[p].name + "' (" + f.pools[p].gpu +
                          "): no revenue plan, its runs are not billed");
  std::vector<std::vector<Money>> per_plan(rs.plans.size());
  std::vector<Money> totals;
  std::set<std::string> errors;
  for (const SeedRun& r : runs) {
    std::vector<Money> plan_sum(rs.plans.size(), Money::zero(out.currency));
    Money total = Money::zero(out.currency);
    for (const auto& a : r.attempts) {
      const int pi = plan_of_pool[a.pool];
      if (pi < 0 || a.start >= f.horizon) continue;
      const Plan* plan = cat.find_plan(rs.plans[static_cast<std::size_t>(pi)].second);
      const Bill b = bill_for(cat, *plan, a.gpus, clip_end(a.end, f.horizon) - a.start, out.currency);
      if (!b.ok()) {
        for (const auto& e : b.errors) errors.insert(e);
        continue;
      }
      plan_sum[static_cast<std::size_t>(pi)] += b.total;
      total += b.total;
    }
    for (std::size_t i = 0; i < plan_sum.size(); ++i) per_plan[i].push_back(plan_sum[i]);
    totals.push_back(total);
  }
  for (const auto& e : errors) out.notes.push_back("not billed: " + e);
  out.total = money_stats(totals, out.currency);
  for (std::size_t i = 0; i < rs.plans.size(); ++i)
    out.per_plan.emplace_back(rs.plans[i].second, mean_money(per_plan[i], out.currency));
  out.notes.push_back("each run billed on its own under its GPU's plan, clipped to the horizon");
  return out;
}

FleetSummary summary_of(const Fleet& f, const std::vector<SeedRun>& runs, const std::vector<PoolCost>& costs,
                        const std::optional<RevenueResult>& revenue) {
  FleetSummary s;
  std::vector<Time> waits, runs_t, seed_p90;
  double misses = 0, unfinished = 0, preemptions = 0, busy = 0, jobs = 0;
  for (const SeedRun& r : runs) {
    std::vector<Time> w;
    for (const JobRecord& j : r.jobs) {
      w.push_back(j.wait);
      if (j.finished) runs_t.push_back(j.run);
      misses += j.missed_deadline ? 1 : 0;
      unfinished += j.finished ? 0 : 1;
      preemptions += static_cast<double>(j.preemptions);
    }
    jobs += static_cast<double>(r.jobs.size());
    waits.insert(waits.end(), w.begin(), w.end());
    seed_p90.push_back(percentiles_of(w).p90);
    for (double b : r.pool_busy_gpu_ns) busy += b;
  }
  const double n = static_cast<double>(runs.size());
  s.jobs = std::llround(jobs / n);
  s.wait = percentiles_of(waits);
  s.wait_p90_over_seeds = percentiles_of(seed_p90);
  s.run = percentiles_of(runs_t);
  std::int64_t gpus = 0;
  for (const Pool& p : f.pools) gpus += p.gpus();
  s.utilisation = busy / n / (static_cast<double>(gpus) * static_cast<double>(f.horizon.ns));
  s.deadline_misses = misses / n;
  s.unfinished = unfinished / n;
  s.preemptions = preemptions / n;
  for (const PoolCost& c : costs) {
    auto it =
        std::find_if(s.cost.begin(), s.cost.end(), [&](const Money& m) { return m.currency == c.total.currency; });
    if (it == s.cost.end())
      s.cost.push_back(c.total);
    else
      *it += c.total;
  }
  if (revenue) s.revenue = revenue->total.mean;
  return s;
}

TimeSeries series_of(const Fleet& f, const std::vector<SeedRun>& runs) {
  const detail::Bins bins = detail::bins_of(f);
  TimeSeries ts;
  ts.interval = bins.interval;
  for (const Pool& p : f.pools) ts.pools.push_back(p.name);
  ts.utilisation.assign(f.pools.size(), std::vector<double>(bins.count, 0.0));
  ts.queue_length.assign(bins.count, 0.0);
  ts.queue_length_p90.assign(bins.count, 0.0);
  ts.running_jobs.assign(bins.count, 0.0);
  const double n = static_cast<double>(runs.size());
  std::vector<double> per_seed(runs.size());
  for (std::size_t b = 0; b < bins.count; ++b) {
    const Time start{static_cast<std::int64_t>(b) * bins.interval.ns};
    ts.bin_start.push_back(start);
    const double len = static_cast<double>(std::min(bins.interval.ns, f.horizon.ns - start.ns));
    for (std::size_t p = 0; p < f.pools.size(); ++p) {
      double sum = 0;
      for (const SeedRun& r : runs) sum += r.busy_gpu_ns[p][b];
      ts.utilisation[p][b] = sum / n / (len * static_cast<double>(f.pools[p].gpus()));
    }
    double q = 0, run = 0;
    for (std::size_t s = 0; s < runs.size(); ++s) {
      per_seed[s] = runs[s].queue_ns[b] / len;
      q += per_seed[s];
      run += runs[s].running_ns[b] / len;
    }
    ts.queue_length[b] = q / n;
    ts.running_jobs[b] = run / n;
    std::sort(per_seed.begin(), per_seed.end());
    const auto k = static_cast<std::size_t>(std::ceil(0.9 * n));
    ts.queue_length_p90[b] = per_seed[std::clamp<std::size_t>(k, 1, per_seed.size()) - 1];
  }
  return ts;
}

Fleet apply(const Fleet& f, const WhatIf& w) {
  Fleet g = f;
  g.what_ifs.clear();
  for (Pool& p : g.pools) {
    if (p.name != w.pool) continue;
    if (w.kind == WhatIf::Kind::AddNodes)
      p.nodes += w.nodes;
    else {
      p.rented.plan = w.plan;
      if (w.billing) p.rented.billing = *w.billing;
    }
  }
  return g;
}

/// Base-case figures only (the size sweep and what-ifs).
FleetSummary summarise_only(const Fleet& f, const FleetOptions& o, std::vector<PoolCost>* costs_out) {
  std::vector<std::string> warnings;
  const auto runs = run_seeds(f, o);
  auto costs = pool_costs(f, runs, warnings);
  const auto rev = revenue_of(f, runs);
  FleetSummary s = summary_of(f, runs, costs, rev);
  if (costs_out) *costs_out = std::move(costs);
  return s;
}

}  // namespace

std::vector<JobRecord> simulate_fleet_seed(const Fleet& fleet, std::uint64_t seed_index, const FleetOptions& options) {
  FLOPCAST_ASSERT(validate_fleet(fleet).empty(), "simulate_fleet_seed needs a valid fleet");
  return detail::run_seed(fleet, seed_index, options).jobs;
}

FleetResult simulate_fleet(const Fleet& f, const FleetOptions& o) {
  FLOPCAST_ASSERT(validate_fleet(f).empty(), "simulate_fleet needs a valid fleet");
  FleetResult r;
  r.name = f.name;
  r.horizon = f.horizon;
  r.seeds = f.seeds;
  r.seed = f.seed;
  r.policy = f.policy;
  auto runs = run_seeds(f, o);
  for (const SeedRun& s : runs) {
    r.events += s.events;
    r.simulated_jobs += s.jobs.size();
  }
  for (std::size_t c = 0; c < f.classes.size(); ++c) {
    bool runnable = false;
    for (const RunProfile& v : f.classes[c].variants)
      for (const Pool& p : f.pools)
        if (same_gpu(v.gpu, p.gpu) && v.gpus <= p.gpus() && (!f.policy.gang || v.gpus >= f.classes[c].gpus))
          runnable = true;
    if (!runnable)
      r.warnings.push_back("job class '" + f.classes[c].name + "' (" + std::to_string(f.classes[c].gpus) + " x " +
                           f.classes[c].gpu + ") fits no pool: its jobs never start");
  }
  r.costs = pool_costs(f, runs, r.warnings);
  r.revenue = revenue_of(f, runs);
  r.summary = summary_of(f, runs, r.costs, r.revenue);
  r.series = series_of(f, runs);

  // Per class.
  const double n = static_cast<double>(runs.size());
  for (std::size_t c = 0; c < f.classes.size(); ++c) {
    ClassStats cs;
    cs.name = f.classes[c].name;
    std::vector<Time> w, rt;
    double with_deadline = 0, missed = 0, replanned = 0, started = 0;
    for (const SeedRun& s : runs)
      for (const JobRecord& j : s.jobs) {
        if (j.job_class != c) continue;
        ++cs.jobs;
        w.push_back(j.wait);
        if (j.finished) rt.push_back(j.run);
        if (j.deadline) {
          ++with_deadline;
          missed += j.missed_deadline ? 1 : 0;
        }
        if (j.started) {
          ++started;
          replanned += j.variant != 0 ? 1 : 0;
        }
      }
    cs.wait = percentiles_of(w);
    cs.run = percentiles_of(rt);
    cs.deadline_miss_rate = with_deadline > 0 ? missed / with_deadline : 0.0;
    cs.replanned_rate = started > 0 ? replanned / started : 0.0;
    r.classes.push_back(std::move(cs));
  }
  // Per list job.
  if (!f.generator) {
    std::vector<std::vector<const JobRecord*>> by_index(f.jobs.size());
    for (const SeedRun& s : runs)
      for (const JobRecord& j : s.jobs) by_index[j.index].push_back(&j);
    for (std::size_t i = 0; i < f.jobs.size(); ++i) {
      const JobSpec& spec = f.jobs[i];
      JobStats js;
      js.name = spec.name;
      js.job_class = f.classes[spec.job_class].name;
      js.priority = spec.priority;
      js.arrival = spec.arrival;
      js.deadline = spec.deadline;
      std::vector<Time> w, rt, fin;
      double missed = 0, unfinished = 0;
      for (const JobRecord* j : by_index[i]) {
        w.push_back(j->wait);
        if (j->finished) {
          rt.push_back(j->run);
          fin.push_back(j->finish);
        } else {
          ++unfinished;
        }
        missed += j->missed_deadline ? 1 : 0;
      }
      js.wait = percentiles_of(w);
      js.run = percentiles_of(rt);
      js.finish = percentiles_of(fin);
      js.deadline_miss_rate = missed / n;
      js.unfinished_rate = unfinished / n;
      r.jobs.push_back(std::move(js));
    }
  }
  if (o.keep_per_seed_jobs)
    for (SeedRun& s : runs) r.per_seed_jobs.push_back(std::move(s.jobs));
  runs.clear();

  if (o.what_ifs)
    for (const WhatIf& w : f.what_ifs) {
      WhatIfResult wr;
      wr.what_if = w;
      wr.summary = summarise_only(apply(f, w), o, &wr.costs);
      r.what_ifs.push_back(std::move(wr));
    }
  return r;
}

SizeSweepResult sweep_pool_size(const Fleet& fleet, const SizeSweepSpec& spec, const FleetOptions& options) {
  FLOPCAST_ASSERT(validate_fleet(fleet).empty(), "sweep_pool_size needs a valid fleet");
  const auto it =
      std::find_if(fleet.pools.begin(), fleet.pools.end(), [&](const Pool& p) { return p.name == spec.pool; });
  FLOPCAST_ASSERT(it != fleet.pools.end(), "sweep_pool_size: unknown pool");
  const auto pool_index = static_cast<std::size_t>(it - fleet.pools.begin());
  SizeSweepResult out;
  out.pool = spec.pool;
  out.target_p90_wait = spec.target_p90_wait;
  std::int64_t lo = std::max<std::int64_t>(1, spec.min_nodes);
  std::int64_t hi = spec.max_nodes > 0 ? spec.max_nodes : 4 * it->nodes;
  hi = std::max(hi, lo);
  std::map<std::int64_t, SizeSweepPoint> tried;
  const auto meets = [&](std::int64_t nodes) {
    Fleet g = fleet;
    g.what_ifs.clear();
    g.pools[pool_index].nodes = nodes;
    FleetOptions o = options;
    o.what_ifs = false;
    const FleetSummary s = summarise_only(g, o, nullptr);
    SizeSweepPoint pt;
    pt.nodes = nodes;
    pt.wait_p90 = s.wait.p90;
    pt.utilisation = s.utilisation;
    pt.meets_target = s.wait.p90 <= spec.target_p90_wait;
    tried[nodes] = pt;
    return pt.meets_target;
  };
  if (meets(hi)) {
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (meets(mid))
        hi = mid;
      else
        lo = mid + 1;
    }
    out.nodes = hi;
  }
  for (const auto& [n, pt] : tried) out.tried.push_back(pt);
  return out;
}

}  // namespace flopcast::fleet

#include "flopcast/fleet/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "fleet_aggregate.hpp"
#include "flopcast/exec/thread_pool.hpp"
#include "flopcast/units/assert.hpp"

namespace flopcast::fleet {

const char* to_string(ArrivalProcess a) { return a == ArrivalProcess::Poisson ? "poisson" : "uniform"; }
const char* to_string(PoolKind k) { return k == PoolKind::Owned ? "owned" : "rented"; }
const char* to_string(RentalBilling b) { return b == RentalBilling::Reserved ? "reserved" : "on_demand"; }
const char* to_string(QueueOrder o) { return o == QueueOrder::Fifo ? "fifo" : "priority"; }
const char* to_string(Backfill b) { return b == Backfill::None ? "none" : "easy"; }

Percentiles percentiles_of(std::vector<SampleValue>& values) {
  Percentiles p;
  p.count = static_cast<std::int64_t>(values.size());
  if (values.empty()) return p;
  // Exact values before censored ones at a tie: a censored value at the rank makes it a bound.
  std::sort(values.begin(), values.end(), [](const SampleValue& a, const SampleValue& b) {
    return a.value != b.value ? a.value < b.value : (!a.censored && b.censored);
  });
  // first_censored: the 1-based position of the smallest censored value (n + 1 when none).
  const std::size_t n = values.size();
  std::size_t first_censored = n + 1;
  for (std::size_t i = 0; i < n; ++i)
    if (values[i].censored) {
      if (first_censored > n) first_censored = i + 1;
      ++p.censored;
    }
  const auto rank = [&](double q) {
    return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(q * static_cast<double>(n))), 1, n);
  };
  p.p50 = values[rank(0.5) - 1].value;
  p.p90 = values[rank(0.9) - 1].value;
  p.p50_lower_bound = first_censored <= rank(0.5);
  p.p90_lower_bound = first_censored <= rank(0.9);
  p.mean_lower_bound = p.censored > 0;
  // Mean in long double: 200k waits of up to 1e17 ns would overflow an int64 sum.
  long double sum = 0;
  for (const SampleValue& v : values) sum += static_cast<long double>(v.value.ns);
  p.mean = units::Time{static_cast<std::int64_t>(std::llround(sum / static_cast<long double>(n)))};
  return p;
}

Percentiles percentiles_of(std::vector<units::Time>& values) {
  std::vector<SampleValue> v;
  v.reserve(values.size());
  for (units::Time t : values) v.push_back(SampleValue{t, false});
  std::sort(values.begin(), values.end());
  return percentiles_of(v);
}

namespace {

const pricing::Plan* find_plan(const std::shared_ptr<const pricing::PriceCatalog>& catalog, const std::string& id) {
  return catalog ? catalog->find_plan(id) : nullptr;
}

bool same_gpu(const std::string& a, const std::string& b) {
  return pricing::normalize_gpu_name(a) == pricing::normalize_gpu_name(b);
}

void validate_pools(const Fleet& f, std::vector<std::string>& e) {
  std::set<std::string> names;
  for (const Pool& p : f.pools) {
    if (!names.insert(p.name).second) e.push_back("pool name '" + p.name + "' is used twice");
    if (p.nodes < 1) e.push_back("pool '" + p.name + "': nodes must be >= 1");
    if (p.gpus_per_node < 1) e.push_back("pool '" + p.name + "': gpus_per_node must be >= 1");
    if (p.kind == PoolKind::Owned) {
      if (p.owned.amortisation.ns <= 0) e.push_back("pool '" + p.name + "': amortisation must be > 0");
      if (p.owned.node_power_kw < 0) e.push_back("pool '" + p.name + "': node_power must be >= 0");
    } else {
      const pricing::Plan* plan = find_plan(p.rented.catalog, p.rented.plan);
      if (!plan)
        e.push_back("pool '" + p.name + "': plan '" + p.rented.plan + "' is not in its catalog");
      else if (!plan->applies_to(p.gpu))
        e.push_back("pool '" + p.name + "': plan '" + p.rented.plan + "' does not rent " + p.gpu);
    }
  }
}

void validate_classes(const Fleet& f, std::vector<std::string>& e) {
  for (const JobClass& c : f.classes) {
    if (c.variants.empty()) e.push_back("job class '" + c.name + "' has no run profile");
    for (const RunProfile& v : c.variants) {
      if (v.gpus < 1) e.push_back("job class '" + c.name + "': a variant has no GPUs");
      if (v.spans.empty()) e.push_back("job class '" + c.name + "': a variant has no trials");
      if (!v.failures.empty() && v.failures.size() != v.spans.size())
        e.push_back("job class '" + c.name + "': failures and spans differ in length");
      for (units::Time s : v.spans)
        if (s.ns <= 0) {
          e.push_back("job class '" + c.name + "': a trial span is <= 0");
          break;
        }
    }
  }
}

void validate_stream(const Fleet& f, std::vector<std::string>& e) {
  if (f.generator && !f.jobs.empty()) e.push_back("a fleet has either a job list or a generator, not both");
  if (!f.generator && f.jobs.empty()) e.push_back("the fleet has no jobs (give a job list or a generator)");
  for (const JobSpec& j : f.jobs)
    if (j.job_class >= f.classes.size()) e.push_back("job '" + j.name + "': unknown job class");
  if (!f.generator) return;
  const StreamGenerator& g = *f.generator;
  if (!(g.rate_per_day > 0) || !std::isfinite(g.rate_per_day)) e.push_back("generator: rate must be > 0");
  if (g.mix.empty()) e.push_back("generator: mix is empty");
  if (g.max_jobs < 0) e.push_back("generator: max_jobs must be >= 0");
  for (const MixEntry& m : g.mix) {
    if (m.job_class >= f.classes.size()) e.push_back("generator: unknown job class in the mix");
    if (!(m.weight > 0) || !std::isfinite(m.weight)) e.push_back("generator: weights must be > 0");
  }
}

/// Every amount converts into the reporting currency; every pool earns under a plan or is internal.
void validate_money(const Fleet& f, std::vector<std::string>& e) {
  const auto convertible = [&](units::Currency c, const std::string& what) {
    if (!convert_money(units::Money::zero(c), f.currency, f.fx))
      e.push_back(what + " in " + c.str() + ": no exchange rate into the reporting currency " + f.currency.str());
  };
  for (const Pool& p : f.pools) {
    if (p.kind == PoolKind::Owned) {
      convertible(p.owned.capex_per_node.currency, "pool '" + p.name + "': capex");
      convertible(p.owned.price_per_kwh.currency, "pool '" + p.name + "': electricity");
    } else if (p.rented.catalog) {
      convertible(p.rented.catalog->currency, "pool '" + p.name + "': bill");
    }
  }
  for (const FxQuote& q : f.fx)
    if (q.rate.micro <= 0) e.push_back("exchange rate " + q.rate.str() + " must be > 0");
  if (!f.revenue) return;
  if (!f.revenue->catalog) {
    e.push_back("revenue: no catalog");
    return;
  }
  convertible(f.revenue->currency.value_or(f.revenue->catalog->currency), "revenue");
  for (const auto& [gpu, plan] : f.revenue->plans)
    if (!find_plan(f.revenue->catalog, plan)) e.push_back("revenue: plan '" + plan + "' is not in the catalog");
  for (const Pool& p : f.pools)
    if (!p.internal && !detail::revenue_plan_of(f, p))
      e.push_back("pool '" + p.name + "' (" + p.gpu + "): no revenue plan for its GPU and not internal");
}

void validate_what_ifs(const Fleet& f, std::vector<std::string>& e) {
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
}

}  // namespace

std::vector<std::string> validate_fleet(const Fleet& f) {
  std::vector<std::string> e;
  if (f.pools.empty()) e.push_back("the fleet has no pools");
  if (f.classes.empty()) e.push_back("the fleet has no job classes");
  if (f.horizon.ns <= 0) e.push_back("horizon must be > 0");
  if (f.seeds < 1) e.push_back("seeds must be >= 1 (got " + std::to_string(f.seeds) + ")");
  validate_pools(f, e);
  validate_classes(f, e);
  validate_stream(f, e);
  validate_money(f, e);
  validate_what_ifs(f, e);
  return e;
}

namespace detail {

std::vector<SeedRun> run_seeds(const Fleet& f, const FleetOptions& o) {
  std::vector<SeedRun> runs(static_cast<std::size_t>(f.seeds));
  const int threads = std::clamp(o.threads, 1, f.seeds);
  exec::parallel_for(runs.size(), threads, [&](std::size_t s, int) { runs[s] = detail::run_seed(f, s, o); });
  return runs;
}

FleetSummary summary_of(const Fleet& f, const std::vector<SeedRun>& runs, const std::vector<PoolCost>& costs,
                        const std::optional<RevenueResult>& revenue) {
  FleetSummary s;
  std::vector<SampleValue> waits;
  std::vector<units::Time> runs_t, seed_p90;
  std::vector<std::vector<SampleValue>> class_waits(f.classes.size());
  std::vector<double> class_unstarted(f.classes.size(), 0.0);
  double misses = 0, unfinished = 0, unstarted = 0, preemptions = 0, busy = 0, jobs = 0;
  for (const SeedRun& r : runs) {
    std::vector<SampleValue> w;
    for (const JobRecord& j : r.jobs) {
      w.push_back(SampleValue{j.wait, j.censored});
      class_waits[j.job_class].push_back(SampleValue{j.wait, j.censored});
      if (j.finished) runs_t.push_back(j.run);
      misses += j.missed_deadline ? 1 : 0;
      unfinished += j.finished ? 0 : 1;
      if (!j.started_in_horizon) {
        ++unstarted;
        ++class_unstarted[j.job_class];
      }
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
  for (std::size_t c = 0; c < f.classes.size(); ++c) {
    s.class_wait.push_back(percentiles_of(class_waits[c]));
    s.class_unstarted.push_back(class_unstarted[c] / n);
  }
  std::int64_t gpus = 0;
  for (const Pool& p : f.pools) gpus += p.gpus();
  s.utilisation = busy / n / (static_cast<double>(gpus) * static_cast<double>(f.horizon.ns));
  s.deadline_misses = misses / n;
  s.unfinished = unfinished / n;
  s.unstarted = unstarted / n;
  s.preemptions = preemptions / n;
  s.cost = units::Money::zero(f.currency);
  for (const PoolCost& c : costs) s.cost += c.cost;
  if (revenue) {
    s.revenue = revenue->total.mean;
    s.margin = *s.revenue - s.cost;
  }
  return s;
}

FleetSummary summarise(const Fleet& f, const FleetOptions& o, std::vector<PoolCost>* costs_out,
                       std::vector<SeedRun>* runs_out) {
  std::vector<std::string> warnings;
  auto runs = run_seeds(f, o);
  auto costs = pool_costs(f, runs, warnings);
  const auto rev = add_revenue(f, runs, costs, warnings);
  FleetSummary s = summary_of(f, runs, costs, rev);
  if (costs_out) *costs_out = std::move(costs);
  if (runs_out) *runs_out = std::move(runs);
  return s;
}

}  // namespace detail

namespace {

using detail::SeedRun;

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
    const units::Time start{static_cast<std::int64_t>(b) * bins.interval.ns};
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

std::vector<ClassStats> class_stats(const Fleet& f, const std::vector<SeedRun>& runs) {
  std::vector<ClassStats> out;
  const double n = static_cast<double>(runs.size());
  for (std::size_t c = 0; c < f.classes.size(); ++c) {
    ClassStats cs;
    cs.name = f.classes[c].name;
    std::vector<SampleValue> w;
    std::vector<units::Time> rt;
    double with_deadline = 0, missed = 0, replanned = 0, started = 0, unstarted = 0, never = 0;
    for (const SeedRun& s : runs)
      for (const JobRecord& j : s.jobs) {
        if (j.job_class != c) continue;
        ++cs.jobs;
        w.push_back(SampleValue{j.wait, j.censored});
        if (j.finished) rt.push_back(j.run);
        if (j.deadline) {
          ++with_deadline;
          missed += j.missed_deadline ? 1 : 0;
        }
        if (j.started) {
          ++started;
          replanned += j.variant != 0 ? 1 : 0;
        }
        unstarted += j.started_in_horizon ? 0 : 1;
        never += j.started ? 0 : 1;
      }
    cs.wait = percentiles_of(w);
    cs.run = percentiles_of(rt);
    cs.deadline_miss_rate = with_deadline > 0 ? missed / with_deadline : 0.0;
    cs.replanned_rate = started > 0 ? replanned / started : 0.0;
    cs.unstarted = unstarted / n;
    cs.never_started = never / n;
    out.push_back(std::move(cs));
  }
  return out;
}

std::vector<JobStats> job_stats(const Fleet& f, const std::vector<SeedRun>& runs) {
  std::vector<JobStats> out;
  if (f.generator) return out;
  const double n = static_cast<double>(runs.size());
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
    std::vector<SampleValue> w;
    std::vector<units::Time> rt, fin;
    double missed = 0, unfinished = 0, unstarted = 0;
    for (const JobRecord* j : by_index[i]) {
      w.push_back(SampleValue{j->wait, j->censored});
      if (j->finished) {
        rt.push_back(j->run);
        fin.push_back(j->finish);
      } else {
        ++unfinished;
      }
      missed += j->missed_deadline ? 1 : 0;
      unstarted += j->started_in_horizon ? 0 : 1;
    }
    js.wait = percentiles_of(w);
    js.run = percentiles_of(rt);
    js.finish = percentiles_of(fin);
    js.deadline_miss_rate = missed / n;
    js.unfinished_rate = unfinished / n;
    js.unstarted_rate = unstarted / n;
    out.push_back(std::move(js));
  }
  return out;
}

}  // namespace

bool class_runs_on_pool(const Fleet& f, std::size_t c, std::size_t p) {
  const JobClass& jc = f.classes[c];
  const Pool& pool = f.pools[p];
  for (const RunProfile& v : jc.variants)
    if (same_gpu(v.gpu, pool.gpu) && v.gpus <= pool.gpus() && (!f.policy.gang || v.gpus >= jc.gpus)) return true;
  return false;
}

namespace {

void warn_unrunnable(const Fleet& f, const std::string& prefix, std::vector<std::string>& warnings) {
  for (std::size_t c = 0; c < f.classes.size(); ++c) {
    bool runnable = false;
    for (std::size_t p = 0; p < f.pools.size(); ++p) runnable = runnable || class_runs_on_pool(f, c, p);
    if (!runnable)
      warnings.push_back(prefix + "job class '" + f.classes[c].name + "' (" + std::to_string(f.classes[c].gpus) +
                         " x " + f.classes[c].gpu + ") fits no pool: its jobs never start");
  }
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
  r.currency = f.currency;
  r.fx = f.fx;
  auto runs = detail::run_seeds(f, o);
  for (const SeedRun& s : runs) {
    r.events += s.events;
    r.simulated_jobs += s.jobs.size();
  }
  warn_unrunnable(f, "", r.warnings);
  r.costs = detail::pool_costs(f, runs, r.warnings);
  r.revenue = detail::add_revenue(f, runs, r.costs, r.warnings);
  r.summary = detail::summary_of(f, runs, r.costs, r.revenue);
  r.series = series_of(f, runs);
  r.classes = class_stats(f, runs);
  r.jobs = job_stats(f, runs);
  if (o.keep_per_seed_jobs)
    for (SeedRun& s : runs) r.per_seed_jobs.push_back(std::move(s.jobs));
  runs.clear();

  if (o.what_ifs)
    for (const WhatIf& w : f.what_ifs) {
      WhatIfResult wr;
      wr.what_if = w;
      const Fleet g = apply(f, w);
      warn_unrunnable(g, "what-if '" + w.label + "': ", r.warnings);
      wr.summary = detail::summarise(g, o, &wr.costs);
      r.what_ifs.push_back(std::move(wr));
    }
  return r;
}

}  // namespace flopcast::fleet

#include "flopcast/search/planner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <thread>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/job/job_simulation.hpp"
#include "flopcast/job/job_size.hpp"
#include "flopcast/job/scenario_job.hpp"
#include "flopcast/job/young_daly.hpp"
#include "flopcast/pricing/bill.hpp"
#include "flopcast/pricing/plan_comparison.hpp"
#include "flopcast/step/step_simulation.hpp"
#include "flopcast/units/format.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::search {
namespace {

std::string sfmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string sfmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

bool key_less(double ka, std::int64_t ia, double kb, std::int64_t ib) { return ka < kb || (ka == kb && ia < ib); }

/// The scenario's comparison settings billed in the search's one currency, over every plan
/// that names the GPU type (the search compares GPU types; the scenario's plan ids do not apply).
CompareOptions search_compare_options(const PricingSpec& pricing, Currency currency) {
  CompareOptions opt = compare_options(pricing);
  opt.bill.currency = currency;
  opt.plan_ids.clear();
  opt.named_gpu_only = true;
  return opt;
}

}  // namespace

namespace {
/// Where a re-simulated step's time goes, one line.
std::string breakdown_line(const StepBreakdown& b) {
  return sfmt(
      "compute %.3f s, recompute %.3f s, bubble %.3f s, exposed communication %.3f s (TP %.3f, DP %.3f, PP %.3f)",
      b.compute.seconds(), b.recompute.seconds(), b.bubble.seconds(),
      (b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm).seconds(), b.tp_comm.seconds(), b.dp_comm.seconds(),
      b.pp_comm.seconds());
}
}  // namespace

StepSimulation estimate_step_simulation(const Scenario& s, const ComputeProfile& profile) {
  StepSimulation r;
  const StepEstimate e = estimate_step(s, profile);
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

StepSimulation des_step_simulation(const Scenario& s, const ComputeProfile& profile) {
  StepSimulation r;
  StepSimOptions opt;
  opt.timeline = false;
  const StepResult e = simulate_step(s, profile, opt);
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

// ---------------------------------------------------------------------------------------------
// TopK and Pareto front

void TopK::offer(const PlanCandidate& c, double key) {
  auto less = [](const std::pair<double, PlanCandidate>& a, const std::pair<double, PlanCandidate>& b) {
    return key_less(a.first, a.second.index, b.first, b.second.index);
  };
  if (k_ == 0) return;
  if (heap_.size() < k_) {
    heap_.emplace_back(key, c);
    std::push_heap(heap_.begin(), heap_.end(), less);
    return;
  }
  const auto& worst = heap_.front();
  if (!key_less(key, c.index, worst.first, worst.second.index)) return;
  std::pop_heap(heap_.begin(), heap_.end(), less);
  heap_.back() = {key, c};
  std::push_heap(heap_.begin(), heap_.end(), less);
}

void TopK::merge(const TopK& other) {
  for (const auto& [key, c] : other.heap_) offer(c, key);
}

std::vector<PlanCandidate> TopK::sorted() const {
  auto v = heap_;
  std::sort(v.begin(), v.end(),
            [](const auto& a, const auto& b) { return key_less(a.first, a.second.index, b.first, b.second.index); });
  std::vector<PlanCandidate> out;
  out.reserve(v.size());
  for (auto& [k, c] : v) out.push_back(std::move(c));
  return out;
}

std::vector<PricedPlan> pareto_front(std::vector<PricedPlan> points) {
  // Sort by wall, then cost, then enumeration order; sweep keeping strictly falling cost.
  std::stable_sort(points.begin(), points.end(), [](const PricedPlan& a, const PricedPlan& b) {
    if (a.candidate.wall != b.candidate.wall) return a.candidate.wall < b.candidate.wall;
    if (a.cost.minor != b.cost.minor) return a.cost.minor < b.cost.minor;
    return a.candidate.index < b.candidate.index;
  });
  std::vector<PricedPlan> front;
  for (auto& p : points) {
    if (front.empty() || p.cost.minor < front.back().cost.minor) front.push_back(std::move(p));
  }
  return front;
}

std::string plan_label(const ParallelPlan& p) {
  std::string s = sfmt("TP%d PP%d DP%lld", p.tp, p.pp, static_cast<long long>(p.dp));
  if (p.cp > 1) s += sfmt(" CP%d", p.cp);
  if (p.ep > 1) s += sfmt(" EP%d", p.ep);
  if (p.vpp > 1) s += sfmt(" VPP%d", p.vpp);
  s += sfmt(" mb%lld", static_cast<long long>(p.micro_batch));
  if (p.sequence_parallel) s += " SP";
  s += sfmt(" ZeRO-%d", p.zero);
  s += std::string(" rc-") + to_string(p.recompute);
  if (p.pp > 1) s += std::string(" ") + to_string(p.schedule);
  return s;
}

// ---------------------------------------------------------------------------------------------
// The search

namespace {

std::vector<int> powers_of_two_upto(int n) {
  std::vector<int> v;
  for (int x = 1; x <= n; x *= 2) v.push_back(x);
  return v;
}

/// The axis values after defaults.
struct Axes {
  std::vector<int> tp, pp, cp, ep, vpp, zero;
  std::vector<std::int64_t> mb;
  std::vector<bool> sp;
  std::vector<Recompute> rc;
  std::vector<Schedule> sched;
  Schedule flat_schedule = Schedule::OneFOneB;  ///< the schedule a plan without pipeline gets
  std::vector<int> vpp_interleaved;             ///< the vpp values > 1
};
const std::vector<int> kVppFlat{1};

Axes resolve_axes(const PlanSpace& sp, const ModelSpec& m, int gpus_per_node) {
  Axes a;
  a.tp = !sp.tp.empty() ? sp.tp : powers_of_two_upto(std::max(1, gpus_per_node));
  if (!sp.pp.empty())
    a.pp = sp.pp;
  else
    for (int i = 1; i <= m.layers; ++i) a.pp.push_back(i);
  a.cp = !sp.cp.empty() ? sp.cp : std::vector<int>{1, 2, 4, 8};
  if (!sp.ep.empty())
    a.ep = sp.ep;
  else if (m.moe) {
    for (int x = 1; x <= m.moe->experts; x *= 2)
      if (m.moe->experts % x == 0) a.ep.push_back(x);
  } else {
    a.ep = {1};
  }
  a.vpp = !sp.vpp.empty() ? sp.vpp : std::vector<int>{1, 2, 4};
  a.zero = !sp.zero.empty() ? sp.zero : std::vector<int>{0, 1, 2, 3};
  a.mb = !sp.micro_batch.empty() ? sp.micro_batch : std::vector<std::int64_t>{1, 2, 4, 8};
  a.sp = !sp.sequence_parallel.empty() ? sp.sequence_parallel : std::vector<bool>{false, true};
  a.rc = !sp.recompute.empty() ? sp.recompute
                               : std::vector<Recompute>{Recompute::None, Recompute::Selective, Recompute::Full};
  a.sched = !sp.schedule.empty() ? sp.schedule
                                 : std::vector<Schedule>{Schedule::OneFOneB, Schedule::Interleaved,
                                                         Schedule::ZeroBubble, Schedule::GPipe};
  for (const Schedule x : a.sched)
    if (x != Schedule::Interleaved) {
      a.flat_schedule = x;
      break;
    }
  for (const int v : a.vpp)
    if (v > 1) a.vpp_interleaved.push_back(v);
  return a;
}

enum Reason : int {
  kTpHeads,   // tp does not divide heads / kv_heads / ffn, or exceeds vocab
  kTpGpus,    // tp*cp*pp exceeds or does not divide the GPU count
  kCpSeq,     // cp does not divide seq_len
  kPpLayers,  // pp*vpp exceeds layers
  kEp,        // ep does not divide dp*cp or experts
  kBatch,     // micro_batch*dp does not divide global batch
  kMemory,    // does not fit memory
  kReasonCount
};
const char* const kReasonText[kReasonCount] = {
    "tp does not divide heads, kv_heads or ffn (or exceeds vocab)",
    "tp*cp*pp does not divide the GPU count",
    "cp does not divide seq_len",
    "pp*vpp exceeds the layers",
    "ep does not divide dp*cp or the experts",
    "micro_batch*dp does not divide the global batch",
    "does not fit in GPU memory",
};
const char* const kReasonUnit[kReasonCount] = {
    "(GPU type, count, tp) choices",
    "(GPU type, count, tp, cp, pp) choices",
    "(GPU type, count, tp, cp) choices",
    "(GPU type, count, tp, cp, pp[, vpp]) choices",
    "(..., ep) choices",
    "(..., ep, micro-batch) choices",
    "plans",
};

/// What one work item (a GPU type and count) produced.
struct ItemResult {
  std::int64_t counts[kReasonCount] = {};
  std::int64_t enumerated = 0, estimated = 0;
  std::optional<PlanCandidate> fastest;
  std::string error;  ///< a candidate the estimate rejected (should not happen; reported)
};

/// The whole-run constants of a job: steps, failures, checkpoints.
struct RunModel {
  std::int64_t steps = 0;
  Time fixed_wall;  ///< provisioning + debug phase
};

/// Expected GPU span of the run (closed form; exact for synchronous checkpoints, an
/// approximation ignoring the write window for asynchronous ones), as simulate_job's
/// gpu_span_expected_closed_form.
Time expected_span(const JobInput& in) {
  const double rate = job_failure_rate_per_s(in);
  const Time stall = checkpoint_stall_time(in);
  const std::int64_t k = in.reliability.checkpoint_interval.ns > 0
                             ? steps_per_checkpoint(in.reliability.checkpoint_interval, in.step_time)
                             : suggested_steps_per_checkpoint(in);
  return expected_gpu_span_sync(in.step_time, in.steps, k, stall, in.reliability.restart_time, rate);
}

}  // namespace

PlanSearch search_plans(const Scenario& base, const ComputeProfile& profile, const PlanSpace& space,
                        const PlannerOptions& options) {
  PlanSearch out;
  PlanResult& res = out.result;
  const auto t0 = std::chrono::steady_clock::now();
  const ModelSpec& m = base.model;
  if (space.clusters.empty()) out.errors.push_back("no GPU type to search");
  if (base.training.tokens <= 0)
    out.errors.push_back("training.tokens is not given: the run length is needed to rank plans");
  if (base.plan.global_batch <= 0) out.errors.push_back("parallel.global_batch must be > 0");
  if (m.seq_len <= 0 || m.layers <= 0) out.errors.push_back("the model has no layers or no sequence length");
  if (!out.errors.empty()) return out;

  const double tokens_per_step = static_cast<double>(base.plan.global_batch) * static_cast<double>(m.seq_len);
  const auto steps = static_cast<std::int64_t>(std::ceil(base.training.tokens / tokens_per_step));
  const Time fixed_wall = base.reliability.provisioning + base.reliability.debug_phase;

  // Energy figures do not change step or span; any catalog's serve (bills come from each).
  const EnergySpec energy =
      options.catalogs.empty() ? EnergySpec{} : energy_spec(*options.catalogs.front(), base.pricing);

  // Work items: (cluster type, GPU count).
  struct Item {
    std::size_t cluster;
    std::int64_t gpus;
  };
  std::vector<Item> items;
  for (std::size_t c = 0; c < space.clusters.size(); ++c) {
    const auto& cl = space.clusters[c];
    const std::int64_t gmax = space.gpus_max > 0 ? space.gpus_max : base.cluster.gpus;
    const std::int64_t gmin = std::max<std::int64_t>(1, space.gpus_min);
    std::vector<std::int64_t> counts = space.gpu_counts;
    if (counts.empty()) {
      const int gpn = std::max(1, cl.gpus_per_node);
      for (std::int64_t g = 1; g < gpn && g <= gmax; g *= 2) counts.push_back(g);
      for (std::int64_t g = gpn; g <= gmax; g += gpn) counts.push_back(g);
    }
    for (const auto g : counts)
      if (g >= gmin && (space.gpus_max <= 0 || g <= space.gpus_max)) items.push_back({c, g});
  }
  if (items.empty()) {
    out.errors.push_back("no GPU count to search (check --gpus-max and the node size)");
    return out;
  }

  std::vector<Axes> axes;
  for (const auto& cl : space.clusters) axes.push_back(resolve_axes(space, m, cl.gpus_per_node));

  std::vector<ItemResult> item_results(items.size());
  std::atomic<std::size_t> next{0};
  const int threads = std::max(1, options.threads);
  const std::size_t k = static_cast<std::size_t>(std::max(0, options.top_k));
  std::vector<TopK> tops(static_cast<std::size_t>(threads), TopK(k));

  auto work = [&](int tid) {
    Scenario s = base;
    s.locations = {};
    TopK& top = tops[static_cast<std::size_t>(tid)];
    for (;;) {
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) break;
      const std::size_t i = next.fetch_add(1);
      if (i >= items.size()) break;
      const Item& it = items[i];
      const Axes& a = axes[it.cluster];
      ItemResult& ir = item_results[i];
      s.cluster = space.clusters[it.cluster];
      s.cluster.gpus = it.gpus;
      const std::int64_t n = it.gpus;
      std::int64_t local = 0;
      auto next_index = [&] { return static_cast<std::int64_t>(i) * (std::int64_t{1} << 32) + local++; };
      for (const int tp : a.tp) {
        if (tp < 1 || m.heads % tp != 0 || (m.kv_heads % tp != 0 && tp % m.kv_heads != 0) || m.ffn % tp != 0 ||
            (m.vocab > 0 && tp > m.vocab)) {
          ++ir.counts[kTpHeads];
          continue;
        }
        for (const int cp : a.cp) {
          if (cp < 1 || m.seq_len % cp != 0) {
            ++ir.counts[kCpSeq];
            continue;
          }
          for (const int pp : a.pp) {
            const std::int64_t shape = static_cast<std::int64_t>(tp) * cp * pp;
            if (pp < 1 || n % shape != 0) {
              ++ir.counts[kTpGpus];
              continue;
            }
            if (pp > m.layers) {
              ++ir.counts[kPpLayers];
              continue;
            }
            const std::int64_t dp = n / shape;
            for (const int ep : a.ep) {
              if (ep < 1 || (!m.moe && ep != 1) || (m.moe && ((dp * cp) % ep != 0 || m.moe->experts % ep != 0))) {
                ++ir.counts[kEp];
                continue;
              }
              for (const std::int64_t mb : a.mb) {
                if (mb < 1 || base.plan.global_batch % (mb * dp) != 0) {
                  ++ir.counts[kBatch];
                  continue;
                }
                for (const Schedule sch : a.sched) {
                  // Without a pipeline every schedule is the same plan: keep the list's first flat one.
                  if (pp == 1 && sch != a.flat_schedule) continue;
                  // vpp belongs to the interleaved schedule (vpp > 1); the others have vpp 1.
                  for (const int vpp : sch == Schedule::Interleaved ? a.vpp_interleaved : kVppFlat) {
                    if (pp * vpp > m.layers) {
                      ++ir.counts[kPpLayers];
                      continue;
                    }
                    for (const bool spar : a.sp) {
                      if (spar && tp == 1) continue;  // no effect without TP: the same plan
                      for (const int zero : a.zero) {
                        for (const Recompute rc : a.rc) {
                          ParallelPlan& p = s.plan;
                          p = base.plan;
                          p.tp = tp;
                          p.pp = pp;
                          p.dp = dp;
                          p.cp = cp;
                          p.ep = ep;
                          p.vpp = vpp;
                          p.micro_batch = mb;
                          p.sequence_parallel = spar;
                          p.zero = zero;
                          p.recompute = rc;
                          p.schedule = sch;
                          ++ir.enumerated;
                          const std::int64_t index = next_index();
                          const MemoryBreakdown mem = memory_per_gpu(s, profile);
                          if (!mem.fits()) {
                            ++ir.counts[kMemory];
                            continue;
                          }
                          const StepEstimate e = estimate_step(s, profile);
                          ++ir.estimated;
                          if (e.step.ns <= 0) {
                            if (ir.error.empty()) ir.error = "the estimate gave no step time for " + plan_label(p);
                            continue;
                          }
                          PlanCandidate c;
                          c.index = index;
                          c.cluster = it.cluster;
                          c.gpus = n;
                          c.plan = p;
                          c.step = e.step;
                          c.mfu = e.mfu;
                          c.memory = mem.total();
                          c.capacity = mem.capacity;
                          c.steps = steps;
                          const bool faster = !ir.fastest || e.step < ir.fastest->step;
                          const JobInput in = job_input_for(s, e.step, steps, energy);
                          c.gpu_span = expected_span(in);
                          c.wall = c.gpu_span + fixed_wall;
                          c.gpu_hours = static_cast<double>(n) * c.gpu_span.hours();
                          if (faster) ir.fastest = c;
                          top.offer(c, c.gpu_hours);
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  if (options.cancel && options.cancel->load()) {
    out.errors.push_back("cancelled");
    return out;
  }

  // Merge (deterministic: keys tie-break on enumeration index).
  std::int64_t counts[kReasonCount] = {};
  std::vector<std::int64_t> est_per_cluster(space.clusters.size(), 0), mem_per_cluster(space.clusters.size(), 0);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& ir = item_results[i];
    for (int r = 0; r < kReasonCount; ++r) counts[r] += ir.counts[r];
    res.enumerated += ir.enumerated;
    res.estimated += ir.estimated;
    est_per_cluster[items[i].cluster] += ir.estimated;
    mem_per_cluster[items[i].cluster] += ir.counts[kMemory];
    if (!ir.error.empty()) res.notes.push_back(ir.error);
  }
  for (int r = 0; r < kReasonCount; ++r)
    if (counts[r] > 0) res.pruned.push_back({kReasonText[r], counts[r], kReasonUnit[r]});
  TopK top(k);
  for (const auto& t : tops) top.merge(t);
  res.top = top.sorted();
  for (auto& c : res.top) c.gpu = space.clusters[c.cluster].gpu.name;

  // Price each count's fastest plan under every price option of every catalog.
  Currency currency = !options.currency.empty()   ? Currency::of(options.currency)
                      : !options.catalogs.empty() ? options.catalogs.front()->currency
                                                  : Currency::of("USD");
  res.currency = currency.str();
  std::vector<bool> priced_cluster(space.clusters.size(), false);
  std::vector<std::string> bill_problems;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!item_results[i].fastest) continue;
    PlanCandidate c = *item_results[i].fastest;
    const ClusterSpec& cl = space.clusters[c.cluster];
    c.gpu = cl.gpu.name;
    std::vector<std::string> names{cl.gpu.name};
    names.insert(names.end(), cl.gpu.aliases.begin(), cl.gpu.aliases.end());
    Bytes storage{0};
    {
      Scenario s = base;
      s.cluster = cl;
      s.cluster.gpus = c.gpus;
      const JobInput in = job_input_for(s, c.step, steps, energy);
      storage = Bytes{checkpoint_size(in).value * std::max(0, base.pricing.checkpoints_kept)};
    }
    BillUsage usage;
    usage.gpu_span = c.gpu_span;
    usage.gpus = c.gpus;
    usage.debug_phase = base.reliability.debug_phase;
    usage.storage = storage;
    for (const auto& cat : options.catalogs) {
      if (cat->plans_for(names).empty()) continue;
      const CompareOptions opt = search_compare_options(base.pricing, currency);
      const PlanComparison cmp = compare_plans(*cat, names, usage, usage, opt);
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
        pp.meets_deadline = !options.deadline || c.wall <= *options.deadline;
        pp.meets_budget = !options.budget || pp.cost.minor <= options.budget->minor;
        res.fastest_per_count.push_back(std::move(pp));
        priced_cluster[c.cluster] = true;
      }
    }
  }
  for (const auto& b : bill_problems) res.notes.push_back("not billed: " + b);
  {
    std::string unnamed;
    for (const auto& cat : options.catalogs)
      for (const Plan& p : cat->plans)
        if (std::find(p.gpus.begin(), p.gpus.end(), "*") != p.gpus.end())
          unnamed += (unnamed.empty() ? "" : ", ") + cat->name + "/" + p.id;
    if (!unnamed.empty())
      res.notes.push_back("left out: plans that do not name their GPU type (" + unnamed +
                          "); their price cannot be assumed for every GPU type searched");
  }

  res.pareto = pareto_front(res.fastest_per_count);

  // Cheapest meeting deadline and budget; runner-up the next in the same order.
  std::vector<const PricedPlan*> order;
  for (const auto& p : res.fastest_per_count) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const PricedPlan* a, const PricedPlan* b) {
    if (a->cost.minor != b->cost.minor) return a->cost.minor < b->cost.minor;
    if (a->candidate.wall != b->candidate.wall) return a->candidate.wall < b->candidate.wall;
    return a->candidate.index < b->candidate.index;
  });
  for (const PricedPlan* p : order) {
    if (!p->meets_deadline || !p->meets_budget) continue;
    if (!res.best)
      res.best = *p;
    else if (!res.runner_up) {
      res.runner_up = *p;
      break;
    }
  }
  auto describe = [&](const PricedPlan& p) {
    return sfmt("%lld x %s %s under %s", static_cast<long long>(p.candidate.gpus), p.candidate.gpu.c_str(),
                plan_label(p.candidate.plan).c_str(), p.price_option.c_str());
  };
  if (res.best && res.runner_up) {
    const auto& b = *res.best;
    const auto& r = *res.runner_up;
    const double extra =
        b.cost.minor > 0 ? 100.0 * static_cast<double>(r.cost.minor - b.cost.minor) / static_cast<double>(b.cost.minor)
                         : 0;
    if (r.cost.minor == b.cost.minor)
      res.why_runner_up_lost = sfmt("the runner-up (%s) costs the same, %s", describe(r).c_str(), r.cost.str().c_str());
    else
      res.why_runner_up_lost = sfmt("the runner-up (%s) costs %s, %s more (+%.1f%%)", describe(r).c_str(),
                                    r.cost.str().c_str(), (r.cost - b.cost).str().c_str(), extra);
    if (r.candidate.wall < b.candidate.wall)
      res.why_runner_up_lost +=
          sfmt(", though it finishes %.1f days sooner (%s vs %s)", (b.candidate.wall - r.candidate.wall).days(),
               format_days(r.candidate.wall).c_str(), format_days(b.candidate.wall).c_str());
    else
      res.why_runner_up_lost +=
          sfmt(", and takes %s vs %s", format_days(r.candidate.wall).c_str(), format_days(b.candidate.wall).c_str());
  }
  // The cheapest overall when it is not the choice: say which constraint it breaks.
  if (!order.empty() && (!res.best || order.front()->cost.minor < res.best->cost.minor)) {
    const auto& c = *order.front();
    std::string why;
    if (!c.meets_deadline && options.deadline)
      why = sfmt("misses the deadline (%s > %s)", format_days(c.candidate.wall).c_str(),
                 format_days(*options.deadline).c_str());
    if (!c.meets_budget && options.budget)
      why += (why.empty() ? "" : " and ") + std::string("exceeds the budget (") + c.cost.str() + " > " +
             options.budget->str() + ")";
    res.notes.push_back("the cheapest plan overall, " + describe(c) + " at " + c.cost.str() + ", " + why);
  }

  // Infeasible choices, per GPU type.
  for (std::size_t c = 0; c < space.clusters.size(); ++c) {
    const std::string& g = space.clusters[c].gpu.name;
    if (est_per_cluster[c] == 0) {
      res.infeasible.push_back(g + ": no plan fits in memory or divides the job (" +
                               std::to_string(mem_per_cluster[c]) + " plans pruned for memory)");
      continue;
    }
    if (!options.catalogs.empty() && !priced_cluster[c]) {
      std::string names;
      for (const auto& cat : options.catalogs) names += (names.empty() ? "" : ", ") + cat->name;
      res.infeasible.push_back(g + ": no price plan for it in " + names + " (time only, no cost)");
    }
    // Fastest of this type.
    const PlanCandidate* fastest = nullptr;
    for (const auto& ir : item_results)
      if (ir.fastest && ir.fastest->cluster == c && (!fastest || ir.fastest->wall < fastest->wall))
        fastest = &*ir.fastest;
    if (fastest && options.deadline && fastest->wall > *options.deadline)
      res.infeasible.push_back(sfmt("%s: even the fastest plan (%lld GPUs, %s) takes %s, over the deadline of %s",
                                    g.c_str(), static_cast<long long>(fastest->gpus), plan_label(fastest->plan).c_str(),
                                    format_days(fastest->wall).c_str(), format_days(*options.deadline).c_str()));
    if (options.budget && priced_cluster[c]) {
      const PricedPlan* cheapest = nullptr;
      for (const auto& p : res.fastest_per_count)
        if (p.candidate.cluster == c && p.meets_deadline && (!cheapest || p.cost.minor < cheapest->cost.minor))
          cheapest = &p;
      if (cheapest && !cheapest->meets_budget)
        res.infeasible.push_back(g + ": the cheapest plan meeting the deadline costs " + cheapest->cost.str() +
                                 ", over the budget of " + options.budget->str());
    }
  }
  // How each other GPU type compares with the choice.
  if (res.best) {
    for (std::size_t c = 0; c < space.clusters.size(); ++c) {
      if (c == res.best->candidate.cluster) continue;
      const PricedPlan* cheapest = nullptr;
      for (const auto& p : res.fastest_per_count)
        if (p.candidate.cluster == c && p.meets_deadline && p.meets_budget &&
            (!cheapest || p.cost.minor < cheapest->cost.minor))
          cheapest = &p;
      if (!cheapest) continue;
      const auto& b = *res.best;
      res.notes.push_back(sfmt(
          "%s: its cheapest plan meeting the constraints, %s, costs %s (+%.1f%% over the choice) and takes %s",
          space.clusters[c].gpu.name.c_str(), describe(*cheapest).c_str(), cheapest->cost.str().c_str(),
          b.cost.minor > 0
              ? 100.0 * static_cast<double>(cheapest->cost.minor - b.cost.minor) / static_cast<double>(b.cost.minor)
              : 0.0,
          format_days(cheapest->candidate.wall).c_str()));
    }
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Re-simulate the chosen plan, the runner-up and the front's fastest.
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<const PricedPlan*> chosen;
  if (res.best) chosen.push_back(&*res.best);
  if (res.runner_up) chosen.push_back(&*res.runner_up);
  if (!res.pareto.empty()) chosen.push_back(&res.pareto.front());
  const StepSimulator sim = options.simulator ? options.simulator : StepSimulator(des_step_simulation);
  for (const PricedPlan* p : chosen) {
    if (static_cast<int>(res.resimulated.size()) >= options.resimulate) break;
    bool seen = false;
    for (const auto& r : res.resimulated)
      if (r.plan.candidate.index == p->candidate.index && r.plan.price_option == p->price_option) seen = true;
    if (seen) continue;
    Resimulated r;
    r.plan = *p;
    Scenario s = base;
    s.cluster = space.clusters[p->candidate.cluster];
    s.cluster.gpus = p->candidate.gpus;
    s.plan = p->candidate.plan;
    r.step = sim(s, profile);
    if (!r.step.ok) {
      r.errors.push_back(r.step.error);
      res.resimulated.push_back(std::move(r));
      continue;
    }
    const JobInput in = job_input_for(s, r.step.step, steps, energy);
    // The one job-size guard (job_size.hpp), as `simulate` applies it.
    if (const std::string why = job_too_big_to_simulate(in); !why.empty()) r.errors.push_back(why);
    if (r.errors.empty()) {
      JobOutcome job = simulate_job(in);
      r.errors = job.errors;
      if (job.ok()) {
        r.run_ok = true;
        r.wall_p50 = job.result.wall_p50;
        r.wall_p90 = job.result.wall_p90;
        r.p90_meets_deadline = !options.deadline || r.wall_p90 <= *options.deadline;
        for (const auto& cat : options.catalogs) {
          if (cat->name != p->catalog) continue;
          std::vector<std::string> names{s.cluster.gpu.name};
          names.insert(names.end(), s.cluster.gpu.aliases.begin(), s.cluster.gpu.aliases.end());
          const CompareOptions opt = search_compare_options(base.pricing, currency);
          const int kept = base.pricing.checkpoints_kept;
          const PlanComparison cmp = compare_plans(*cat, names, usage_of_trial(job.result, job.result.p50_trial, kept),
                                                   usage_of_trial(job.result, job.result.p90_trial, kept), opt);
          for (const auto& row : cmp.rows)
            if (row.option.id == p->price_option && row.p50.ok() && row.p90.ok()) {
              r.cost_p50 = row.p50.total;
              r.cost_p90 = row.p90.total;
            }
        }
      }
    }
    res.resimulated.push_back(std::move(r));
  }
  res.resimulate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  return out;
}

}  // namespace flopcast::search

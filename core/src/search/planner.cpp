#include "flopcast/search/planner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/exec/thread_pool.hpp"
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

/// What one search reads, shared by every worker (read-only).
struct SearchContext {
  const Scenario& base;
  const ComputeProfile& profile;
  const PlanSpace& space;
  const PlannerOptions& options;
  std::int64_t steps = 0;  ///< optimizer steps of the run
  Time fixed_wall;         ///< provisioning + debug phase
  EnergySpec energy;       ///< energy figures do not change step or span: any catalog's serve
  Currency currency;       ///< of every cost
  std::size_t top_k = 0;
};

/// One work item: a cluster type and a GPU count.
struct Item {
  std::size_t cluster;
  std::int64_t gpus;
};

/// A model-parallel shape that divides the job: what the outer axes (tp, cp, pp, ep,
/// micro-batch) choose; dp follows from the GPU count.
struct Shape {
  int tp = 1, cp = 1, pp = 1, ep = 1;
  std::int64_t dp = 1, mb = 1;
};

/// Why `base` and `space` cannot be searched (empty: they can).
std::vector<std::string> request_errors(const Scenario& base, const PlanSpace& space) {
  std::vector<std::string> errors;
  const ModelSpec& m = base.model;
  if (space.clusters.empty()) errors.push_back("no GPU type to search");
  if (base.training.tokens <= 0)
    errors.push_back("training.tokens is not given: the run length is needed to rank plans");
  if (base.plan.global_batch <= 0) errors.push_back("parallel.global_batch must be > 0");
  if (m.seq_len <= 0 || m.layers <= 0) errors.push_back("the model has no layers or no sequence length");
  return errors;
}

/// The work items: every GPU count of every cluster type, in the space's order.
std::vector<Item> work_items(const Scenario& base, const PlanSpace& space) {
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
  return items;
}

bool tp_divides_model(const ModelSpec& m, int tp) {
  return tp >= 1 && m.heads % tp == 0 && (m.kv_heads % tp == 0 || tp % m.kv_heads == 0) && m.ffn % tp == 0 &&
         (m.vocab <= 0 || tp <= m.vocab);
}

bool ep_divides(const ModelSpec& m, int ep, std::int64_t dp, int cp) {
  if (ep < 1) return false;
  if (!m.moe) return ep == 1;
  return (dp * cp) % ep == 0 && m.moe->experts % ep == 0;
}

/// The micro-batches of one (tp, cp, pp, ep) shape that divide the global batch.
void add_micro_batches(const Axes& a, Shape sh, std::int64_t global_batch, ItemResult& ir, std::vector<Shape>& out) {
  for (const std::int64_t mb : a.mb) {
    if (mb < 1 || global_batch % (mb * sh.dp) != 0) {
      ++ir.counts[kBatch];
      continue;
    }
    sh.mb = mb;
    out.push_back(sh);
  }
}

/// The (tp, cp) choices' pipelines and expert splits that divide `n` GPUs.
void add_pipelines(const ModelSpec& m, const Axes& a, int tp, int cp, std::int64_t n, std::int64_t global_batch,
                   ItemResult& ir, std::vector<Shape>& out) {
  for (const int pp : a.pp) {
    if (pp < 1 || n % (static_cast<std::int64_t>(tp) * cp * pp) != 0) {
      ++ir.counts[kTpGpus];
      continue;
    }
    if (pp > m.layers) {
      ++ir.counts[kPpLayers];
      continue;
    }
    const std::int64_t dp = n / (static_cast<std::int64_t>(tp) * cp * pp);
    for (const int ep : a.ep) {
      if (!ep_divides(m, ep, dp, cp)) {
        ++ir.counts[kEp];
        continue;
      }
      add_micro_batches(a, Shape{tp, cp, pp, ep, dp, 1}, global_batch, ir, out);
    }
  }
}

/// The shapes of `n` GPUs along the axes, in enumeration order (tp, cp, pp, ep, micro-batch),
/// counting the choices pruned on the way in `ir`.
std::vector<Shape> valid_shapes(const ModelSpec& m, const Axes& a, std::int64_t n, std::int64_t global_batch,
                                ItemResult& ir) {
  std::vector<Shape> out;
  for (const int tp : a.tp) {
    if (!tp_divides_model(m, tp)) {
      ++ir.counts[kTpHeads];
      continue;
    }
    for (const int cp : a.cp) {
      if (cp < 1 || m.seq_len % cp != 0) {
        ++ir.counts[kCpSeq];
        continue;
      }
      add_pipelines(m, a, tp, cp, n, global_batch, ir, out);
    }
  }
  return out;
}

/// Ranks the plan in `s` (its cluster and plan set; `index` its enumeration order): memory,
/// then the closed-form step and the expected span of the whole run.
void evaluate_plan(const SearchContext& ctx, const Scenario& s, const Item& it, std::int64_t index, ItemResult& ir,
                   TopK& top) {
  ++ir.enumerated;
  const MemoryBreakdown mem = memory_per_gpu(s, ctx.profile);
  if (!mem.fits()) {
    ++ir.counts[kMemory];
    return;
  }
  const StepEstimate e = estimate_step(s, ctx.profile);
  ++ir.estimated;
  if (e.step.ns <= 0) {
    if (ir.error.empty()) ir.error = "the estimate gave no step time for " + plan_label(s.plan);
    return;
  }
  PlanCandidate c;
  c.index = index;
  c.cluster = it.cluster;
  c.gpus = it.gpus;
  c.plan = s.plan;
  c.step = e.step;
  c.mfu = e.mfu;
  c.memory = mem.total();
  c.capacity = mem.capacity;
  c.steps = ctx.steps;
  const bool faster = !ir.fastest || e.step < ir.fastest->step;
  const JobInput in = job_input_for(s, e.step, ctx.steps, ctx.energy);
  c.gpu_span = expected_span(in);
  c.wall = c.gpu_span + ctx.fixed_wall;
  c.gpu_hours = static_cast<double>(it.gpus) * c.gpu_span.hours();
  if (faster) ir.fastest = c;
  top.offer(c, c.gpu_hours);
}

/// Every plan of one shape (schedule, vpp, SP, ZeRO, recompute), evaluated in order; `local`
/// numbers them within the item.
void search_shape(const SearchContext& ctx, const Axes& a, const Shape& sh, std::size_t i, const Item& it, Scenario& s,
                  std::int64_t& local, ItemResult& ir, TopK& top) {
  for (const Schedule sch : a.sched) {
    // Without a pipeline every schedule is the same plan: keep the list's first flat one.
    if (sh.pp == 1 && sch != a.flat_schedule) continue;
    // vpp belongs to the interleaved schedule (vpp > 1); the others have vpp 1.
    for (const int vpp : sch == Schedule::Interleaved ? a.vpp_interleaved : kVppFlat) {
      if (sh.pp * vpp > ctx.base.model.layers) {
        ++ir.counts[kPpLayers];
        continue;
      }
      for (const bool spar : a.sp) {
        if (spar && sh.tp == 1) continue;  // no effect without TP: the same plan
        for (const int zero : a.zero)
          for (const Recompute rc : a.rc) {
            ParallelPlan& p = s.plan;
            p = ctx.base.plan;
            p.tp = sh.tp;
            p.pp = sh.pp;
            p.dp = sh.dp;
            p.cp = sh.cp;
            p.ep = sh.ep;
            p.vpp = vpp;
            p.micro_batch = sh.mb;
            p.sequence_parallel = spar;
            p.zero = zero;
            p.recompute = rc;
            p.schedule = sch;
            evaluate_plan(ctx, s, it, static_cast<std::int64_t>(i) * (std::int64_t{1} << 32) + local++, ir, top);
          }
      }
    }
  }
}

/// Searches work item `i` on a worker's scratch scenario `s`.
void search_item(const SearchContext& ctx, const Axes& a, std::size_t i, const Item& it, Scenario& s, ItemResult& ir,
                 TopK& top) {
  s.cluster = ctx.space.clusters[it.cluster];
  s.cluster.gpus = it.gpus;
  std::int64_t local = 0;
  for (const Shape& sh : valid_shapes(ctx.base.model, a, it.gpus, ctx.base.plan.global_batch, ir))
    search_shape(ctx, a, sh, i, it, s, local, ir, top);
}

/// What the merge keeps per cluster type for the explanations.
struct ClusterTotals {
  std::vector<std::int64_t> estimated, memory_pruned;
};

/// Sums the items' counts into `res` (pruning, enumerated, estimated, notes) and merges the
/// workers' top-K (deterministic: keys tie-break on enumeration index).
ClusterTotals merge_items(const SearchContext& ctx, const std::vector<Item>& items,
                          const std::vector<ItemResult>& item_results, const std::vector<TopK>& tops, PlanResult& res) {
  std::int64_t counts[kReasonCount] = {};
  ClusterTotals totals{std::vector<std::int64_t>(ctx.space.clusters.size(), 0),
                       std::vector<std::int64_t>(ctx.space.clusters.size(), 0)};
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& ir = item_results[i];
    for (int r = 0; r < kReasonCount; ++r) counts[r] += ir.counts[r];
    res.enumerated += ir.enumerated;
    res.estimated += ir.estimated;
    totals.estimated[items[i].cluster] += ir.estimated;
    totals.memory_pruned[items[i].cluster] += ir.counts[kMemory];
    if (!ir.error.empty()) res.notes.push_back(ir.error);
  }
  for (int r = 0; r < kReasonCount; ++r)
    if (counts[r] > 0) res.pruned.push_back({kReasonText[r], counts[r], kReasonUnit[r]});
  TopK top(ctx.top_k);
  for (const auto& t : tops) top.merge(t);
  res.top = top.sorted();
  for (auto& c : res.top) c.gpu = ctx.space.clusters[c.cluster].gpu.name;
  return totals;
}

/// The catalog name and aliases of a GPU, as plans name it.
std::vector<std::string> gpu_names(const GpuSpec& g) {
  std::vector<std::string> names{g.name};
  names.insert(names.end(), g.aliases.begin(), g.aliases.end());
  return names;
}

/// What a candidate bills: its expected span, GPUs, debug phase and checkpoint storage.
BillUsage usage_of(const SearchContext& ctx, const PlanCandidate& c) {
  Scenario s = ctx.base;
  s.cluster = ctx.space.clusters[c.cluster];
  s.cluster.gpus = c.gpus;
  const JobInput in = job_input_for(s, c.step, ctx.steps, ctx.energy);
  BillUsage usage;
  usage.gpu_span = c.gpu_span;
  usage.gpus = c.gpus;
  usage.debug_phase = ctx.base.reliability.debug_phase;
  usage.storage = Bytes{checkpoint_size(in).value * std::max(0, ctx.base.pricing.checkpoints_kept)};
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
    const ClusterSpec& cl = ctx.space.clusters[c.cluster];
    c.gpu = cl.gpu.name;
    const std::vector<std::string> names = gpu_names(cl.gpu);
    const BillUsage usage = usage_of(ctx, c);
    for (const auto& cat : ctx.options.catalogs) {
      if (cat->plans_for(names).empty()) continue;
      const PlanComparison cmp =
          compare_plans(*cat, names, usage, usage, search_compare_options(ctx.base.pricing, ctx.currency));
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
    for (const Plan& p : cat->plans)
      if (std::find(p.gpus.begin(), p.gpus.end(), "*") != p.gpus.end())
        unnamed += (unnamed.empty() ? "" : ", ") + cat->name + "/" + p.id;
  if (!unnamed.empty())
    res.notes.push_back("left out: plans that do not name their GPU type (" + unnamed +
                        "); their price cannot be assumed for every GPU type searched");
}

/// "128 x B200 TP1 PP2 ... under spheron-b200-spot".
std::string describe(const PricedPlan& p) {
  return sfmt("%lld x %s %s under %s", static_cast<long long>(p.candidate.gpus), p.candidate.gpu.c_str(),
              plan_label(p.candidate.plan).c_str(), p.price_option.c_str());
}

/// Why the runner-up lost to the best: its extra cost, and its wall time against the best's.
std::string why_runner_up_lost(const PricedPlan& b, const PricedPlan& r) {
  const double extra =
      b.cost.minor > 0 ? 100.0 * static_cast<double>(r.cost.minor - b.cost.minor) / static_cast<double>(b.cost.minor)
                       : 0;
  std::string why = r.cost.minor == b.cost.minor
                        ? sfmt("the runner-up (%s) costs the same, %s", describe(r).c_str(), r.cost.str().c_str())
                        : sfmt("the runner-up (%s) costs %s, %s more (+%.1f%%)", describe(r).c_str(),
                               r.cost.str().c_str(), (r.cost - b.cost).str().c_str(), extra);
  if (r.candidate.wall < b.candidate.wall)
    why += sfmt(", though it finishes %.1f days sooner (%s vs %s)", (b.candidate.wall - r.candidate.wall).days(),
                format_days(r.candidate.wall).c_str(), format_days(b.candidate.wall).c_str());
  else
    why += sfmt(", and takes %s vs %s", format_days(r.candidate.wall).c_str(), format_days(b.candidate.wall).c_str());
  return why;
}

/// The Pareto front, the cheapest plan meeting deadline and budget, the runner-up (the next in
/// the same order) and why it lost, and a note on the cheapest overall when it is not the choice.
void choose_plan(const SearchContext& ctx, PlanResult& res) {
  res.pareto = pareto_front(res.fastest_per_count);
  std::vector<const PricedPlan*> order;
  for (const auto& p : res.fastest_per_count) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const PricedPlan* a, const PricedPlan* b) {
    if (a->cost.minor != b->cost.minor) return a->cost.minor < b->cost.minor;
    if (a->candidate.wall != b->candidate.wall) return a->candidate.wall < b->candidate.wall;
    return a->candidate.index < b->candidate.index;
  });
  for (const PricedPlan* p : order) {
    if (!p->meets_deadline || !p->meets_budget) continue;
    if (!res.best) {
      res.best = *p;
    } else if (!res.runner_up) {
      res.runner_up = *p;
      break;
    }
  }
  if (res.best && res.runner_up) res.why_runner_up_lost = why_runner_up_lost(*res.best, *res.runner_up);
  if (order.empty() || (res.best && order.front()->cost.minor >= res.best->cost.minor)) return;
  // The cheapest overall is not the choice: say which constraint it breaks.
  const auto& c = *order.front();
  const PlannerOptions& o = ctx.options;
  std::string why;
  if (!c.meets_deadline && o.deadline)
    why =
        sfmt("misses the deadline (%s > %s)", format_days(c.candidate.wall).c_str(), format_days(*o.deadline).c_str());
  if (!c.meets_budget && o.budget)
    why += (why.empty() ? "" : " and ") + std::string("exceeds the budget (") + c.cost.str() + " > " + o.budget->str() +
           ")";
  res.notes.push_back("the cheapest plan overall, " + describe(c) + " at " + c.cost.str() + ", " + why);
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
                                  g.c_str(), static_cast<long long>(fastest->gpus), plan_label(fastest->plan).c_str(),
                                  format_days(fastest->wall).c_str(), format_days(*o.deadline).c_str()));
  if (o.budget && priced) {
    const PricedPlan* cheapest = cheapest_of(res, c, [](const PricedPlan& p) { return p.meets_deadline; });
    if (cheapest && !cheapest->meets_budget)
      res.infeasible.push_back(g + ": the cheapest plan meeting the deadline costs " + cheapest->cost.str() +
                               ", over the budget of " + o.budget->str());
  }
}

/// Infeasible choices per GPU type, then how each other GPU type compares with the choice.
void explain_clusters(const SearchContext& ctx, const std::vector<ItemResult>& item_results,
                      const ClusterTotals& totals, const std::vector<bool>& priced_cluster, PlanResult& res) {
  for (std::size_t c = 0; c < ctx.space.clusters.size(); ++c)
    explain_cluster(ctx, c, item_results, totals, priced_cluster[c], res);
  if (!res.best) return;
  const auto& b = *res.best;
  for (std::size_t c = 0; c < ctx.space.clusters.size(); ++c) {
    if (c == b.candidate.cluster) continue;
    const PricedPlan* cheapest =
        cheapest_of(res, c, [](const PricedPlan& p) { return p.meets_deadline && p.meets_budget; });
    if (!cheapest) continue;
    res.notes.push_back(
        sfmt("%s: its cheapest plan meeting the constraints, %s, costs %s (+%.1f%% over the choice) and takes %s",
             ctx.space.clusters[c].gpu.name.c_str(), describe(*cheapest).c_str(), cheapest->cost.str().c_str(),
             b.cost.minor > 0
                 ? 100.0 * static_cast<double>(cheapest->cost.minor - b.cost.minor) / static_cast<double>(b.cost.minor)
                 : 0.0,
             format_days(cheapest->candidate.wall).c_str()));
  }
}

/// The P50 and P90 bills of a re-simulated run under the plan's own price option.
void bill_resimulated(const SearchContext& ctx, const Scenario& s, const JobResult& job, Resimulated& r) {
  for (const auto& cat : ctx.options.catalogs) {
    if (cat->name != r.plan.catalog) continue;
    const int kept = ctx.base.pricing.checkpoints_kept;
    const PlanComparison cmp =
        compare_plans(*cat, gpu_names(s.cluster.gpu), usage_of_trial(job, job.p50_trial, kept),
                      usage_of_trial(job, job.p90_trial, kept), search_compare_options(ctx.base.pricing, ctx.currency));
    for (const auto& row : cmp.rows)
      if (row.option.id == r.plan.price_option && row.p50.ok() && row.p90.ok()) {
        r.cost_p50 = row.p50.total;
        r.cost_p90 = row.p90.total;
      }
  }
}

/// One chosen plan re-simulated: the step with the step simulator, then the whole run (the
/// one job-size guard first, as `simulate` applies it) and its bills.
Resimulated resimulate(const SearchContext& ctx, const StepSimulator& sim, const PricedPlan& p) {
  Resimulated r;
  r.plan = p;
  Scenario s = ctx.base;
  s.cluster = ctx.space.clusters[p.candidate.cluster];
  s.cluster.gpus = p.candidate.gpus;
  s.plan = p.candidate.plan;
  r.step = sim(s, ctx.profile);
  if (!r.step.ok) {
    r.errors.push_back(r.step.error);
    return r;
  }
  const JobInput in = job_input_for(s, r.step.step, ctx.steps, ctx.energy);
  if (const std::string why = job_too_big_to_simulate(in); !why.empty()) {
    r.errors.push_back(why);
    return r;
  }
  JobOutcome job = simulate_job(in);
  r.errors = job.errors;
  if (!job.ok()) return r;
  r.run_ok = true;
  r.wall_p50 = job.result.wall_p50;
  r.wall_p90 = job.result.wall_p90;
  r.p90_meets_deadline = !ctx.options.deadline || r.wall_p90 <= *ctx.options.deadline;
  bill_resimulated(ctx, s, job.result, r);
  return r;
}

/// Re-simulates the chosen plan, the runner-up and the front's fastest (each once, at most
/// options.resimulate in all).
void resimulate_chosen(const SearchContext& ctx, PlanResult& res) {
  std::vector<const PricedPlan*> chosen;
  if (res.best) chosen.push_back(&*res.best);
  if (res.runner_up) chosen.push_back(&*res.runner_up);
  if (!res.pareto.empty()) chosen.push_back(&res.pareto.front());
  const StepSimulator sim = ctx.options.simulator ? ctx.options.simulator : StepSimulator(des_step_simulation);
  for (const PricedPlan* p : chosen) {
    if (static_cast<int>(res.resimulated.size()) >= ctx.options.resimulate) break;
    bool seen = false;
    for (const auto& r : res.resimulated)
      if (r.plan.candidate.index == p->candidate.index && r.plan.price_option == p->price_option) seen = true;
    if (!seen) res.resimulated.push_back(resimulate(ctx, sim, *p));
  }
}

/// The search's one currency: the options', else the first catalog's, else USD.
Currency search_currency(const PlannerOptions& options) {
  return !options.currency.empty()   ? Currency::of(options.currency)
         : !options.catalogs.empty() ? options.catalogs.front()->currency
                                     : Currency::of("USD");
}

}  // namespace

PlanSearch search_plans(const Scenario& base, const ComputeProfile& profile, const PlanSpace& space,
                        const PlannerOptions& options) {
  PlanSearch out;
  PlanResult& res = out.result;
  const auto t0 = std::chrono::steady_clock::now();
  out.errors = request_errors(base, space);
  if (!out.errors.empty()) return out;
  const std::vector<Item> items = work_items(base, space);
  if (items.empty()) {
    out.errors.push_back("no GPU count to search (check --gpus-max and the node size)");
    return out;
  }
  const double tokens_per_step = static_cast<double>(base.plan.global_batch) * static_cast<double>(base.model.seq_len);
  const SearchContext ctx{
      base,
      profile,
      space,
      options,
      static_cast<std::int64_t>(std::ceil(base.training.tokens / tokens_per_step)),
      base.reliability.provisioning + base.reliability.debug_phase,
      options.catalogs.empty() ? EnergySpec{} : energy_spec(*options.catalogs.front(), base.pricing),
      search_currency(options),
      static_cast<std::size_t>(std::max(0, options.top_k))};

  // Enumerate and rank: each worker has its own scratch scenario and top-K.
  std::vector<Axes> axes;
  for (const auto& cl : space.clusters) axes.push_back(resolve_axes(space, base.model, cl.gpus_per_node));
  const int threads = std::max(1, options.threads);
  std::vector<ItemResult> item_results(items.size());
  std::vector<TopK> tops(static_cast<std::size_t>(threads), TopK(ctx.top_k));
  std::vector<Scenario> scratch(static_cast<std::size_t>(threads), base);
  for (auto& s : scratch) s.locations = {};
  exec::parallel_for(
      items.size(), threads,
      [&](std::size_t i, int w) {
        const auto wi = static_cast<std::size_t>(w);
        search_item(ctx, axes[items[i].cluster], i, items[i], scratch[wi], item_results[i], tops[wi]);
      },
      options.cancel);
  if (options.cancel && options.cancel->load()) {
    out.errors.push_back("cancelled");
    return out;
  }

  const ClusterTotals totals = merge_items(ctx, items, item_results, tops, res);
  res.currency = ctx.currency.str();
  std::vector<bool> priced_cluster(space.clusters.size(), false);
  price_fastest(ctx, item_results, res, priced_cluster);
  choose_plan(ctx, res);
  explain_clusters(ctx, item_results, totals, priced_cluster, res);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const auto t1 = std::chrono::steady_clock::now();
  resimulate_chosen(ctx, res);
  res.resimulate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  return out;
}

}  // namespace flopcast::search

// Enumerating and ranking the plans of each work item (a GPU type, count and precision): the
// valid shapes of the count, every plan of each shape ranked by the closed-form estimate, and
// the subtrees a lower bound shows cannot matter skipped (plan_bounds.cpp). planner.cpp drives
// it over the items and prices and explains what it keeps.
#include "plan_enumeration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/job/job_simulation.hpp"
#include "flopcast/job/scenario_job.hpp"
#include "flopcast/job/young_daly.hpp"
#include "flopcast/units/assert.hpp"
#include "flopcast/workload/fine_tuning.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::search::detail {

namespace {

std::vector<int> powers_of_two_upto(int n) {
  std::vector<int> v;
  for (int x = 1; x <= n; x *= 2) v.push_back(x);
  return v;
}

const std::vector<int> kVppFlat{1};

}  // namespace

Axes resolve_axes(const PlanSpace& sp, const workload::ModelSpec& m, int gpus_per_node) {
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
  a.rc = !sp.recompute.empty()
             ? sp.recompute
             : std::vector<parallel::Recompute>{parallel::Recompute::None, parallel::Recompute::Selective,
                                                parallel::Recompute::Full};
  a.sched = !sp.schedule.empty()
                ? sp.schedule
                : std::vector<parallel::Schedule>{parallel::Schedule::OneFOneB, parallel::Schedule::Interleaved,
                                                  parallel::Schedule::ZeroBubble, parallel::Schedule::GPipe};
  for (const parallel::Schedule x : a.sched)
    if (x != parallel::Schedule::Interleaved) {
      a.flat_schedule = x;
      break;
    }
  for (const int v : a.vpp)
    if (v > 1) a.vpp_interleaved.push_back(v);
  return a;
}

namespace {

/// Expected GPU span of the run (closed form; exact for synchronous checkpoints, an
/// approximation ignoring the write window for asynchronous ones), as simulate_job's
/// gpu_span_expected_closed_form.
units::Time expected_span(const job::JobInput& in) {
  const double rate = job::job_failure_rate_per_s(in);
  const units::Time stall = job::checkpoint_stall_time(in);
  const std::int64_t k = in.reliability.checkpoint_interval.ns > 0
                             ? job::steps_per_checkpoint(in.reliability.checkpoint_interval, in.step_time)
                             : job::suggested_steps_per_checkpoint(in);
  return job::expected_gpu_span_sync(in.step_time, in.steps, k, stall, in.reliability.restart_time, rate);
}

}  // namespace

std::vector<std::string> request_errors(const scenario::Scenario& base, const PlanSpace& space) {
  std::vector<std::string> errors;
  const workload::ModelSpec& m = base.model;
  if (space.clusters.empty()) errors.push_back("no GPU type to search");
  if (base.training.tokens <= 0)
    errors.push_back("training.tokens is not given: the run length is needed to rank plans");
  if (base.plan.global_batch <= 0) errors.push_back("parallel.global_batch must be > 0");
  if (m.seq_len <= 0 || m.layers <= 0) errors.push_back("the model has no layers or no sequence length");
  return errors;
}

std::vector<Item> work_items(const scenario::Scenario& base, const PlanSpace& space, std::int64_t& no_peak,
                             std::string& missing) {
  std::vector<Item> items;
  const std::vector<hardware::Precision> precisions =
      space.precisions.empty() ? std::vector<hardware::Precision>{base.precision} : space.precisions;
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
    for (const hardware::Precision p : precisions) {
      if (!cl.gpu.peak(p)) {
        ++no_peak;
        const std::string name = cl.gpu.name + ": " + to_string(p);
        if (missing.find(name) == std::string::npos) missing += (missing.empty() ? "" : ", ") + name;
        continue;
      }
      for (const auto g : counts)
        if (g >= gmin && (space.gpus_max <= 0 || g <= space.gpus_max)) items.push_back({c, g, p});
    }
  }
  return items;
}

namespace {

bool tp_divides_model(const workload::ModelSpec& m, int tp) {
  return tp >= 1 && m.heads % tp == 0 && (m.kv_heads % tp == 0 || tp % m.kv_heads == 0) && m.ffn % tp == 0 &&
         (m.vocab <= 0 || tp <= m.vocab);
}

bool ep_divides(const workload::ModelSpec& m, int ep, std::int64_t dp, int cp) {
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
void add_pipelines(const workload::ModelSpec& m, const Axes& a, int tp, int cp, std::int64_t n,
                   std::int64_t global_batch, ItemResult& ir, std::vector<Shape>& out) {
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
std::vector<Shape> valid_shapes(const workload::ModelSpec& m, const Axes& a, std::int64_t n, std::int64_t global_batch,
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

/// Ranks the plan in `s` (its cluster and plan set; `index` its enumeration order): the
/// frameworks that run it, memory, then the closed-form step and the expected span of the run.
void evaluate_plan(const SearchContext& ctx, const scenario::Scenario& s, const Item& it, std::int64_t index,
                   ItemResult& ir, bool known_unfit = false) {
  ++ir.enumerated;
  const FrameworkSet fw = frameworks_for(s.plan, s.model, s.training.method);
  if (fw.empty()) {
    ++ir.counts[kFramework];
    return;
  }
  if (known_unfit) {  // a plan needing no more memory does not fit (unfit_without_zero3)
    ++ir.counts[kMemory];
    return;
  }
  // memory_per_gpu is the most-loaded stage's, so at least the first stage's: a plan whose first
  // stage does not fit does not fit, and most plans that do not fit fail there (it holds the
  // most micro-batches in flight), without the other stages computed.
  if (s.plan.pp > 1 && !workload::memory_of_stage(s, ctx.profile, 0).fits()) {
    ++ir.counts[kMemory];
    return;
  }
  const workload::MemoryBreakdown mem = workload::memory_per_gpu(s, ctx.profile);
  if (!mem.fits()) {
    ++ir.counts[kMemory];
    return;
  }
  const estimate::StepEstimate e = estimate::estimate_step(s, ctx.profile);
  ++ir.estimated;
  if (e.step.ns <= 0) {
    if (ir.error.empty()) ir.error = "the estimate gave no step time for " + parallel::plan_label(s.plan);
    return;
  }
  PlanCandidate c;
  c.index = index;
  c.cluster = it.cluster;
  c.gpus = it.gpus;
  c.precision = it.precision;
  c.plan = s.plan;
  c.frameworks = fw;
  c.step = e.step;
  c.mfu = e.mfu;
  c.memory = mem.total();
  c.capacity = mem.capacity;
  c.steps = ctx.steps;
  const job::JobInput in = job::job_input_for(s, e.step, ctx.steps, ctx.energy);
  c.gpu_span = expected_span(in);
  c.wall = c.gpu_span + ctx.fixed_wall;
  c.gpu_hours = static_cast<double>(it.gpus) * c.gpu_span.hours();
  if (!ir.fastest || key_less(c.step.seconds(), c.index, ir.fastest->step.seconds(), ir.fastest->index)) ir.fastest = c;
  ir.top.offer(c, c.gpu_hours);
  ir.ranked.offer(c, ranking_key(ctx, c));
}

/// Whether the subtree of a shape whose plans all take at least `lb` per step can hold a plan
/// any of the item's lists would keep: its fastest plan, the top-K by GPU-hours, the ranked
/// candidates. Each list only admits a plan strictly better than its threshold (ties go to the
/// lower enumeration index, which a later plan of the subtree may have: so ">" prunes only
/// when even the bound is strictly worse).
bool subtree_may_matter(const SearchContext& ctx, const Item& it, units::Time lb, const ItemResult& ir,
                        const GlobalLists* global) {
  if (!ir.fastest || lb <= ir.fastest->step) return true;
  PlanCandidate probe;  // the best any plan of the subtree could be
  probe.cluster = it.cluster;
  probe.gpus = it.gpus;
  probe.precision = it.precision;
  probe.step = lb;
  probe.steps = ctx.steps;
  probe.gpu_span = units::Time::from_seconds(static_cast<double>(ctx.steps) * lb.seconds() * (1 - 1e-9));
  probe.wall = probe.gpu_span + ctx.fixed_wall;
  probe.gpu_hours = static_cast<double>(it.gpus) * probe.gpu_span.hours();
  // A list built over more plans keeps nothing worse than one built over fewer (the k-th best
  // of a superset is no worse; for the ranked list the greedy basis of a partition matroid
  // improves elementwise): each threshold below is at least the final lists' own.
  double top = ir.top.threshold(), ranked = ir.ranked.threshold(probe);
  if (global) {
    top = std::min(top, global->top.threshold());
    ranked = std::min(ranked, global->ranked[it.cluster].threshold(probe));
  }
  if (probe.gpu_hours <= top) return true;
  return ranking_key(ctx, probe) <= ranked;
}

/// Sets the plan of the scratch scenario `s`: the shape and the choices of search_shape.
void set_plan(const SearchContext& ctx, const Shape& sh, parallel::Schedule sch, int vpp, bool spar, int zero,
              parallel::Recompute rc, scenario::Scenario& s) {
  parallel::ParallelPlan& p = s.plan;
  p = ctx.base.plan;
  sh.apply_to(p);
  p.vpp = vpp;
  p.sequence_parallel = spar;
  p.zero = zero;
  p.recompute = rc;
  p.schedule = sch;
}

/// For each recompute choice of `a.rc` (at the shape, schedule and vpp): whether no plan with
/// ZeRO 0, 1 or 2 fits, from one plan that needs no more memory than any of them: ZeRO-2 (it
/// shards gradients and optimizer states, the weights are the same below ZeRO-3) with sequence
/// parallelism (it splits the replicated activations over TP; without TP it changes nothing).
/// The first stage bounds memory per GPU from below (the most-loaded stage's). Decided only with
/// a margin of 1e-9 of the capacity, far above the rounding of the sums; never for fine-tuning,
/// whose adapter terms are not covered by this argument.
std::vector<char> unfit_without_zero3(const SearchContext& ctx, const Axes& a, const Shape& sh, parallel::Schedule sch,
                                      int vpp, scenario::Scenario& s) {
  std::vector<char> unfit(a.rc.size(), 0);
  if (workload::is_fine_tuning(s)) return unfit;
  for (std::size_t r = 0; r < a.rc.size(); ++r) {
    set_plan(ctx, sh, sch, vpp, sh.tp > 1, 2, a.rc[r], s);
    const workload::MemoryBreakdown m = workload::memory_of_stage(s, ctx.profile, 0);
    unfit[r] = m.total().value > m.capacity.value * (1 + 1e-9) ? 1 : 0;
  }
  return unfit;
}

/// Every plan of one shape (schedule, vpp, SP, ZeRO, recompute), evaluated in order; the
/// index numbers the item, the shape (its place in enumeration order) and the plan in it, so
/// that it does not depend on the order shapes are searched in.
void search_shape(const SearchContext& ctx, const Axes& a, const Shape& sh, std::int64_t shape_index, std::size_t i,
                  const Item& it, scenario::Scenario& s, ItemResult& ir) {
  std::int64_t local = 0;
  for (const parallel::Schedule sch : a.sched) {
    // Without a pipeline every schedule is the same plan: keep the list's first flat one.
    if (sh.pp == 1 && sch != a.flat_schedule) continue;
    // vpp belongs to the interleaved schedule (vpp > 1); the others have vpp 1.
    for (const int vpp : sch == parallel::Schedule::Interleaved ? a.vpp_interleaved : kVppFlat) {
      if (sh.pp * vpp > ctx.base.model.layers) {
        ++ir.counts[kPpLayers];
        continue;
      }
      const std::vector<char> unfit = unfit_without_zero3(ctx, a, sh, sch, vpp, s);
      for (const bool spar : a.sp) {
        if (spar && sh.tp == 1) continue;  // no effect without TP: the same plan
        for (const int zero : a.zero)
          for (std::size_t r = 0; r < a.rc.size(); ++r) {
            set_plan(ctx, sh, sch, vpp, spar, zero, a.rc[r], s);
            const std::int64_t index =
                (static_cast<std::int64_t>(i) << 40) | (shape_index << 16) | std::min<std::int64_t>(local++, 0xFFFF);
            evaluate_plan(ctx, s, it, index, ir, zero <= 2 && unfit[r] != 0);
          }
      }
    }
  }
}

/// The shapes of item `it` (on the scratch scenario `s`, its cluster set) and their search
/// order: (lower bound, shape index), best first (so the lists fill with good plans early).
/// `ir` counts the choices pruned on the way (null: not counted again).
std::vector<std::pair<units::Time, std::int64_t>> shape_order(const SearchContext& ctx, const Axes& a, const Item& it,
                                                              scenario::Scenario& s, std::vector<Shape>& shapes,
                                                              ItemResult* ir) {
  ItemResult scratch_counts;
  shapes = valid_shapes(ctx.base.model, a, it.gpus, ctx.base.plan.global_batch, ir ? *ir : scratch_counts);
  std::vector<std::pair<units::Time, std::int64_t>> order;
  order.reserve(shapes.size());
  for (std::size_t k = 0; k < shapes.size(); ++k)
    order.emplace_back(
        ctx.options.prune ? shape_step_lower_bound_in(s, ctx.bound_profile, a, shapes[k]) : units::Time{0},
        static_cast<std::int64_t>(k));
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return order;
}

void set_scratch(const SearchContext& ctx, const Item& it, scenario::Scenario& s) {
  s.cluster = ctx.space.clusters[it.cluster];
  s.cluster.gpus = it.gpus;
  s.precision = it.precision;
}

}  // namespace

void search_item(const SearchContext& ctx, const Axes& a, std::size_t i, const Item& it, scenario::Scenario& s,
                 ItemResult& ir) {
  set_scratch(ctx, it, s);
  ir.top = TopK(ctx.top_k);
  ir.ranked = RankedList(static_cast<std::size_t>(std::max(0, ctx.options.candidates_per_count)),
                         static_cast<std::size_t>(std::max(0, ctx.options.candidates_per_count)));
  std::vector<Shape> shapes;
  const auto order = shape_order(ctx, a, it, s, shapes, &ir);
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const auto& [lb, k] = order[pos];
    if (ctx.options.prune && ir.fastest && lb > ir.fastest->step) {
      // The order is by bound: every later shape's bound is past the fastest plan too.
      ir.resume = pos;
      ir.remaining = order.size() - pos;
      ir.next_bound = lb;
      ir.rest.assign(order.begin() + static_cast<std::ptrdiff_t>(pos), order.end());
      return;
    }
    search_shape(ctx, a, shapes[static_cast<std::size_t>(k)], k, i, it, s, ir);
  }
}

void search_item_rest(const SearchContext& ctx, const Axes& a, std::size_t i, const Item& it, scenario::Scenario& s,
                      const GlobalLists& global, ItemResult& ir) {
  if (ir.remaining == 0) return;
  if (!subtree_may_matter(ctx, it, ir.next_bound, ir, &global)) {
    ir.counts[kBound] += static_cast<std::int64_t>(ir.remaining);
    return;
  }
  set_scratch(ctx, it, s);
  // The shapes as the first pass enumerated them (their bounds are in ir.rest).
  ItemResult uncounted;
  const std::vector<Shape> shapes = valid_shapes(ctx.base.model, a, it.gpus, ctx.base.plan.global_batch, uncounted);
  FLOPCAST_ASSERT(ir.rest.size() == ir.remaining, "the second pass needs the first pass's bound order");
  for (const auto& [lb, k] : ir.rest) {
    if (!subtree_may_matter(ctx, it, lb, ir, &global)) {
      ++ir.counts[kBound];
      continue;
    }
    search_shape(ctx, a, shapes[static_cast<std::size_t>(k)], k, i, it, s, ir);
  }
  ir.rest = {};
}

GlobalLists first_pass_lists(const SearchContext& ctx, const std::vector<Item>& items,
                             const std::vector<ItemResult>& item_results) {
  GlobalLists g;
  g.top = TopK(ctx.top_k);
  const auto per_gpu = static_cast<std::size_t>(std::max(0, ctx.options.candidates_per_gpu));
  const auto rounds = static_cast<std::size_t>(std::max(1, ctx.options.rounds));
  const auto per_count = static_cast<std::size_t>(std::max(0, ctx.options.candidates_per_count));
  g.ranked.assign(ctx.space.clusters.size(), RankedList(per_gpu * rounds, per_count));
  for (std::size_t i = 0; i < items.size(); ++i) {
    g.top.merge(item_results[i].top);
    g.ranked[items[i].cluster].merge(item_results[i].ranked);
  }
  return g;
}

ClusterTotals merge_items(const SearchContext& ctx, const std::vector<Item>& items,
                          const std::vector<ItemResult>& item_results, PlanResult& res,
                          std::vector<std::vector<PlanCandidate>>& ranked) {
  std::int64_t counts[kReasonCount] = {};
  const std::size_t nc = ctx.space.clusters.size();
  ClusterTotals totals{std::vector<std::int64_t>(nc, 0), std::vector<std::int64_t>(nc, 0)};
  TopK top(ctx.top_k);
  const auto per_gpu = static_cast<std::size_t>(std::max(0, ctx.options.candidates_per_gpu));
  const auto rounds = static_cast<std::size_t>(std::max(1, ctx.options.rounds));
  const auto per_count = static_cast<std::size_t>(std::max(0, ctx.options.candidates_per_count));
  std::vector<RankedList> lists(nc, RankedList(per_gpu * rounds, per_count));
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& ir = item_results[i];
    for (int r = 0; r < kReasonCount; ++r) counts[r] += ir.counts[r];
    res.enumerated += ir.enumerated;
    res.estimated += ir.estimated;
    totals.estimated[items[i].cluster] += ir.estimated;
    totals.memory_pruned[items[i].cluster] += ir.counts[kMemory];
    if (!ir.error.empty()) res.notes.push_back(ir.error);
    top.merge(ir.top);
    lists[items[i].cluster].merge(ir.ranked);
  }
  for (int r = 0; r < kReasonCount; ++r) {
    if (counts[r] == 0) continue;
    // Fine-tuning is judged by the families' fine-tuning routes (framework_rules.hpp).
    const bool adapters = r == kFramework && ctx.base.training.method != workload::TrainingMethod::Full;
    res.pruned.push_back({adapters ? "no fine-tuning framework runs the combination (NeMo, DeepSpeed with Hugging Face "
                                     "PEFT, torchtune)"
                                   : kReasonText[r],
                          counts[r], kReasonUnit[r]});
  }
  res.top = top.sorted();
  for (auto& c : res.top) c.gpu = ctx.space.clusters[c.cluster].gpu.name;
  ranked.clear();
  for (const auto& l : lists) {
    ranked.push_back(l.sorted());
    for (auto& c : ranked.back()) c.gpu = ctx.space.clusters[c.cluster].gpu.name;
  }
  return totals;
}

}  // namespace flopcast::search::detail

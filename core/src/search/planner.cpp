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

double TopK::threshold() const {
  if (k_ == 0) return -std::numeric_limits<double>::infinity();
  return heap_.size() < k_ ? std::numeric_limits<double>::infinity() : heap_.front().first;
}

const char* to_string(Confidence c) { return c == Confidence::P50 ? "P50" : "P90"; }

std::string confidence_words(Confidence c, const PredictionBand& band, GpuArch arch) {
  if (!band.known) return sfmt("%s (point prediction: no band for %s)", to_string(c), to_string(arch));
  // P50 / P90 are percentiles over failures; the model band is named apart (its median, its slow end).
  // A generation without runs of its own says so, and whose band it borrowed.
  const std::string prior =
      band.stand_in ? sfmt("; %s, %s's band widened", kPriorOnlyWords, to_string(*band.stand_in)) : std::string();
  if (c == Confidence::P50)
    return sfmt("P50 of failures, the step at the model band's median (%s band x%.2f to x%.2f, median x%.2f%s)",
                to_string(arch), band.p10, band.p90, band.p50, prior.c_str());
  return sfmt("P90 of failures, the step at the model band's slow end (%s band x%.2f to x%.2f%s)", to_string(arch),
              band.p10, band.p90, prior.c_str());
}

namespace detail {

namespace {
bool same_bucket(const PlanCandidate& a, const PlanCandidate& b) {
  return a.gpus == b.gpus && a.precision == b.precision && a.cluster == b.cluster;
}
}  // namespace

void RankedList::offer(const PlanCandidate& c, double key) {
  if (capacity_ == 0 || per_count_ == 0) return;
  auto less = [](const std::pair<double, PlanCandidate>& a, double k, std::int64_t i) {
    return key_less(a.first, a.second.index, k, i);
  };
  // The bucket's members, worst last (kept_ is sorted).
  std::size_t in_bucket = 0, worst = kept_.size();
  for (std::size_t i = 0; i < kept_.size(); ++i)
    if (same_bucket(kept_[i].second, c)) {
      ++in_bucket;
      worst = i;
    }
  if (in_bucket >= per_count_) {
    if (less(kept_[worst], key, c.index)) return;  // worse than every member of its bucket
    kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(worst));
  }
  auto at = std::lower_bound(kept_.begin(), kept_.end(), std::make_pair(key, c),
                             [&](const auto& a, const auto& b) { return less(a, b.first, b.second.index); });
  kept_.insert(at, {key, c});
  if (kept_.size() > capacity_) kept_.pop_back();
}

void RankedList::merge(const RankedList& other) {
  for (const auto& [key, c] : other.kept_) offer(c, key);
}

double RankedList::threshold(const PlanCandidate& c) const {
  double t = std::numeric_limits<double>::infinity();
  if (capacity_ == 0 || per_count_ == 0) return -t;
  if (kept_.size() >= capacity_) t = kept_.back().first;
  std::size_t in_bucket = 0;
  double worst = t;
  for (const auto& [key, x] : kept_)
    if (same_bucket(x, c)) {
      ++in_bucket;
      worst = key;
    }
  return in_bucket >= per_count_ ? std::min(t, worst) : t;
}

std::vector<PlanCandidate> RankedList::sorted() const {
  std::vector<PlanCandidate> out;
  out.reserve(kept_.size());
  for (const auto& [k, c] : kept_) out.push_back(c);
  return out;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// The search

namespace {

std::vector<int> powers_of_two_upto(int n) {
  std::vector<int> v;
  for (int x = 1; x <= n; x *= 2) v.push_back(x);
  return v;
}

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
  kTpHeads,    // tp does not divide heads / kv_heads / ffn, or exceeds vocab
  kTpGpus,     // tp*cp*pp exceeds or does not divide the GPU count
  kCpSeq,      // cp does not divide seq_len
  kPpLayers,   // pp*vpp exceeds layers
  kEp,         // ep does not divide dp*cp or experts
  kBatch,      // micro_batch*dp does not divide global batch
  kPrecision,  // the GPU has no dense peak for the precision
  kFramework,  // no training framework runs the combination
  kMemory,     // does not fit memory
  kBound,      // the subtree's lower bound cannot beat what is kept
  kReasonCount
};
const char* const kReasonText[kReasonCount] = {
    "tp does not divide heads, kv_heads or ffn (or exceeds vocab)",
    "tp*cp*pp does not divide the GPU count",
    "cp does not divide seq_len",
    "pp*vpp exceeds the layers",
    "ep does not divide dp*cp or the experts",
    "micro_batch*dp does not divide the global batch",
    "the GPU has no dense peak for the precision",
    "no training framework runs the combination (Megatron-core, DeepSpeed, torchtitan)",
    "does not fit in GPU memory",
    "lower bound on the step time cannot beat the plans kept (never estimated)",
};
const char* const kReasonUnit[kReasonCount] = {
    "(GPU type, count, tp) choices",
    "(GPU type, count, tp, cp, pp) choices",
    "(GPU type, count, tp, cp) choices",
    "(GPU type, count, tp, cp, pp[, vpp]) choices",
    "(..., ep) choices",
    "(..., ep, micro-batch) choices",
    "(GPU type, count, precision) choices",
    "plans",
    "plans",
    "(GPU type, count, tp, cp, pp, ep, micro-batch) shapes",
};

/// What one work item (a GPU type, count and precision) produced. Its lists prune the item's
/// own subtrees: they depend only on the item, so the counts do not depend on the threads.
struct ItemResult {
  std::int64_t counts[kReasonCount] = {};
  std::int64_t enumerated = 0, estimated = 0;
  std::optional<PlanCandidate> fastest;
  std::string error;  ///< a candidate the estimate rejected (should not happen; reported)
  TopK top{0};
  RankedList ranked{0, 0};
  /// Where the first pass stopped (search_item): the position in the bound order of the first
  /// shape not searched, its bound, and the shapes from there on (0: the item is done).
  std::size_t resume = 0, remaining = 0;
  Time next_bound;
  /// The bound order from `resume` on, (lower bound, shape index): the second pass reads it
  /// instead of bounding every shape of the item again.
  std::vector<std::pair<Time, std::int64_t>> rest;
};

/// What every item's first pass kept, merged: the final lists (over every item's plans) keep
/// nothing worse than these thresholds, so a subtree whose bound is worse cannot matter.
struct GlobalLists {
  TopK top{0};
  std::vector<RankedList> ranked;  ///< per cluster type
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

/// The work items: every GPU count of every cluster type in every precision, in the space's
/// order; a precision the GPU has no peak for is counted and left out, and named in `missing`
/// ("H100: nvfp4").
std::vector<Item> work_items(const Scenario& base, const PlanSpace& space, std::int64_t& no_peak,
                             std::string& missing) {
  std::vector<Item> items;
  const std::vector<Precision> precisions =
      space.precisions.empty() ? std::vector<Precision>{base.precision} : space.precisions;
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
    for (const Precision p : precisions) {
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

/// Ranks the plan in `s` (its cluster and plan set; `index` its enumeration order): the
/// frameworks that run it, memory, then the closed-form step and the expected span of the run.
void evaluate_plan(const SearchContext& ctx, const Scenario& s, const Item& it, std::int64_t index, ItemResult& ir,
                   bool known_unfit = false) {
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
  if (s.plan.pp > 1 && !memory_of_stage(s, ctx.profile, 0).fits()) {
    ++ir.counts[kMemory];
    return;
  }
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
  c.precision = it.precision;
  c.plan = s.plan;
  c.frameworks = fw;
  c.step = e.step;
  c.mfu = e.mfu;
  c.memory = mem.total();
  c.capacity = mem.capacity;
  c.steps = ctx.steps;
  const JobInput in = job_input_for(s, e.step, ctx.steps, ctx.energy);
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
bool subtree_may_matter(const SearchContext& ctx, const Item& it, Time lb, const ItemResult& ir,
                        const GlobalLists* global) {
  if (!ir.fastest || lb <= ir.fastest->step) return true;
  PlanCandidate probe;  // the best any plan of the subtree could be
  probe.cluster = it.cluster;
  probe.gpus = it.gpus;
  probe.precision = it.precision;
  probe.step = lb;
  probe.steps = ctx.steps;
  probe.gpu_span = Time::from_seconds(static_cast<double>(ctx.steps) * lb.seconds() * (1 - 1e-9));
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
void set_plan(const SearchContext& ctx, const Shape& sh, Schedule sch, int vpp, bool spar, int zero, Recompute rc,
              Scenario& s) {
  ParallelPlan& p = s.plan;
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
std::vector<char> unfit_without_zero3(const SearchContext& ctx, const Axes& a, const Shape& sh, Schedule sch, int vpp,
                                      Scenario& s) {
  std::vector<char> unfit(a.rc.size(), 0);
  if (is_fine_tuning(s)) return unfit;
  for (std::size_t r = 0; r < a.rc.size(); ++r) {
    set_plan(ctx, sh, sch, vpp, sh.tp > 1, 2, a.rc[r], s);
    const MemoryBreakdown m = memory_of_stage(s, ctx.profile, 0);
    unfit[r] = m.total().value > m.capacity.value * (1 + 1e-9) ? 1 : 0;
  }
  return unfit;
}

/// Every plan of one shape (schedule, vpp, SP, ZeRO, recompute), evaluated in order; the
/// index numbers the item, the shape (its place in enumeration order) and the plan in it, so
/// that it does not depend on the order shapes are searched in.
void search_shape(const SearchContext& ctx, const Axes& a, const Shape& sh, std::int64_t shape_index, std::size_t i,
                  const Item& it, Scenario& s, ItemResult& ir) {
  std::int64_t local = 0;
  for (const Schedule sch : a.sched) {
    // Without a pipeline every schedule is the same plan: keep the list's first flat one.
    if (sh.pp == 1 && sch != a.flat_schedule) continue;
    // vpp belongs to the interleaved schedule (vpp > 1); the others have vpp 1.
    for (const int vpp : sch == Schedule::Interleaved ? a.vpp_interleaved : kVppFlat) {
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
std::vector<std::pair<Time, std::int64_t>> shape_order(const SearchContext& ctx, const Axes& a, const Item& it,
                                                       Scenario& s, std::vector<Shape>& shapes, ItemResult* ir) {
  ItemResult scratch_counts;
  shapes = valid_shapes(ctx.base.model, a, it.gpus, ctx.base.plan.global_batch, ir ? *ir : scratch_counts);
  std::vector<std::pair<Time, std::int64_t>> order;
  order.reserve(shapes.size());
  for (std::size_t k = 0; k < shapes.size(); ++k)
    order.emplace_back(ctx.options.prune ? shape_step_lower_bound_in(s, ctx.bound_profile, a, shapes[k]) : Time{0},
                       static_cast<std::int64_t>(k));
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return order;
}

void set_scratch(const SearchContext& ctx, const Item& it, Scenario& s) {
  s.cluster = ctx.space.clusters[it.cluster];
  s.cluster.gpus = it.gpus;
  s.precision = it.precision;
}

/// Searches work item `i` on a worker's scratch scenario `s`, first pass: its shapes in order
/// of their lower bound while the bound is no worse than the item's fastest plan (every plan
/// that could be the item's fastest is searched here). With pruning on, it stops at the first
/// shape past that and records where (ir.resume): the second pass (search_item_rest) goes on
/// from there against every item's lists.
void search_item(const SearchContext& ctx, const Axes& a, std::size_t i, const Item& it, Scenario& s, ItemResult& ir) {
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

/// The second pass of item `i`: the shapes after ir.resume, each subtree skipped when its bound
/// cannot beat what the item's lists or every item's first-pass lists (`global`) keep. When
/// even the first of them cannot, the whole rest is skipped without enumerating it again.
void search_item_rest(const SearchContext& ctx, const Axes& a, std::size_t i, const Item& it, Scenario& s,
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

/// Every item's first-pass lists merged (lists as merge_items builds them).
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

/// What the merge keeps per cluster type for the explanations.
struct ClusterTotals {
  std::vector<std::int64_t> estimated, memory_pruned;
};

/// Sums the items' counts into `res` (pruning, enumerated, estimated, notes), merges their
/// top-K into res.top and their ranked candidates into one list per GPU type (deterministic:
/// keys tie-break on enumeration index).
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
    const bool adapters = r == kFramework && ctx.base.training.method != TrainingMethod::Full;
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

}  // namespace

namespace detail {

std::vector<std::string> gpu_names(const GpuSpec& g) {
  std::vector<std::string> names{g.name};
  names.insert(names.end(), g.aliases.begin(), g.aliases.end());
  return names;
}

Scenario scenario_of(const SearchContext& ctx, const PlanCandidate& c) {
  Scenario s = ctx.base;
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
BillUsage usage_of(const SearchContext& ctx, const PlanCandidate& c) {
  const Scenario s = scenario_of(ctx, c);
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
    why =
        sfmt("misses the deadline (%s > %s)", format_days(c.candidate.wall).c_str(), format_days(*o.deadline).c_str());
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
                                  g.c_str(), static_cast<long long>(fastest->gpus), plan_label(fastest->plan).c_str(),
                                  format_days(fastest->wall).c_str(), format_days(*o.deadline).c_str()));
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
                       plan_label(p.candidate.plan).c_str());
  if (p.candidate.precision != Precision::BF16) s += std::string(" ") + to_string(p.candidate.precision);
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
          g.c_str(), simulated_name(*closed).c_str(), format_days(closed->candidate.wall).c_str(),
          !x.meets_deadline ? "misses the deadline" : "is over the budget", x.wall.days(), x.cost.str().c_str(), pct,
          band_words(x).c_str());
  return sfmt(
      "%s: no simulated plan meets the constraints; %s meets them by the closed form only (%s expected, %s) "
      "and was not simulated",
      g.c_str(), simulated_name(*closed).c_str(), format_days(closed->candidate.wall).c_str(),
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
Currency search_currency(const PlannerOptions& options) {
  return !options.currency.empty()   ? Currency::of(options.currency)
         : !options.catalogs.empty() ? options.catalogs.front()->currency
                                     : Currency::of("USD");
}

/// The lowest price of one GPU-hour of `gpu` over the catalogs' plans that name it, in
/// `currency` (0 when none can be converted): each plan's price per unit over its unit's hours
/// and the GPUs it covers, less its commitment discount. A bill is never below it per GPU-hour
/// of GPU time (started units and minimum terms only add), credits aside.
double min_gpu_hour_price(const std::vector<std::shared_ptr<const PriceCatalog>>& catalogs, const GpuSpec& gpu,
                          Currency currency) {
  double best = 0;
  const std::vector<std::string> names = gpu_names(gpu);
  for (const auto& cat : catalogs)
    for (const Plan* p : cat->plans_for(names)) {
      bool named = false;
      for (const auto& n : names) named = named || p->names_gpu(n);
      if (!named) continue;
      const auto micro = convert_micro(*cat, p->price.micro, p->price.currency, currency);
      if (!micro) continue;
      const double gpus = p->basis == PriceBasis::PerNode ? std::max(1, p->gpus_per_node) : 1;
      const double per_hour = static_cast<double>(*micro) / 1e6 / billing_unit_length(p->unit).hours() / gpus *
                              (1.0 - static_cast<double>(p->discount_bp) / 10000.0);
      if (per_hour > 0 && (best == 0 || per_hour < best)) best = per_hour;
    }
  return best;
}

SearchContext make_context(const Scenario& base, const ComputeProfile& profile, const PlanSpace& space,
                           const PlannerOptions& options) {
  const double tokens_per_step = static_cast<double>(base.plan.global_batch) * static_cast<double>(base.model.seq_len);
  SearchContext ctx{base,
                    profile,
                    space,
                    options,
                    static_cast<std::int64_t>(std::ceil(base.training.tokens / tokens_per_step)),
                    base.reliability.provisioning + base.reliability.debug_phase,
                    options.catalogs.empty() ? EnergySpec{} : energy_spec(*options.catalogs.front(), base.pricing),
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

PlanSearch search_plans(const Scenario& base, const ComputeProfile& profile, const PlanSpace& space,
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
  std::vector<Scenario> scratch(static_cast<std::size_t>(threads), base);
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

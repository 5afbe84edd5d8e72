// A lower bound on the closed-form step time of every plan of one shape: the planner skips a
// shape's whole subtree (schedules, virtual stages, sequence parallelism, ZeRO stages,
// recompute modes) when even the bound cannot beat the plans it keeps.
//
// Admissibility. estimate_step (core/src/estimate/step_estimate.cpp) returns
//   step = compute + recompute + tp + cp + ep + pp + bubble + dp + optimizer + overhead
// (StepBreakdown::total), every term >= 0, where the first six are micro x the critical stage's
// per-micro-batch times and bubble = max(0, pipeline - steady). Hence
//   step >= max(steady, pipeline) + overhead,   steady = micro x crit,
//   crit = max_i (F_i + B_i + R_i + TP_i + CP_i + EP_i + 2 P2P),
// and pipeline is, for pp > 1, (micro - 1) crit + fill (1F1B, GPipe), (micro - 1) crit + fill/v
// + a p2p term >= 0 (interleaved, v virtual stages), or micro crit + (fill - crit)/3
// (zero-bubble), with fill = sum_i (per-micro-batch time of stage i + 2 P2P). Each of these is
// non-decreasing in every stage's time (fill - crit is a sum without its largest term).
// Within a shape (tp, cp, pp, ep, dp, micro-batch fixed) the plans differ only in schedule, v,
// sequence parallelism, ZeRO and recompute, and per stage:
// - F_i, B_i: the GEMMs and attention do not depend on them; the elementwise traffic is divided
//   by tp under sequence parallelism (never larger with it); the host dispatch floor only adds
//   (max(device, host)). So F_i + B_i >= their value with sequence parallelism on (tp > 1) and
//   the host overhead off.
// - R_i >= 0 (recompute none).
// - TP_i = one collective's time x 4 or 6 calls (+ the vocab-parallel cross-entropy's), with
//   one = all-reduce (no SP) or all-gather + reduce-scatter (SP): >= min of the two at 4 calls.
// - CP_i, EP_i, P2P depend on none of them.
// So each stage's lower time below is <= its time in every plan of the subtree, crit and fill
// built from them are lower bounds, and the formula of the most favourable schedule the space
// allows is a lower bound on the pipeline. The whole-run span is >= steps x step (each
// checkpoint segment's expected time exceeds its failure-free length; young_daly.cpp), so the
// bound on the span and on the GPU-hours follows. tests/search checks the pruned search against
// the unpruned one on random small spaces.
#include <algorithm>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/units/assert.hpp"
#include "search_detail.hpp"

namespace flopcast::search::detail {
namespace {

/// Per-stage lower times of `s`'s plan: forward + backward + CP + EP (host floor off).
std::vector<double> stage_floor(const std::vector<cost::StageTimes>& stages) {
  std::vector<double> v;
  v.reserve(stages.size());
  for (const auto& st : stages) v.push_back((st.forward + st.backward + st.cp_comm + st.ep_comm).seconds());
  return v;
}

}  // namespace

units::Time shape_step_lower_bound(const scenario::Scenario& scratch, const compute::ComputeProfile& profile,
                                   const Axes& a, const Shape& sh) {
  scenario::Scenario s = scratch;
  compute::ComputeProfile prof = profile;
  prof.host_overhead_us = 0;
  return shape_step_lower_bound_in(s, prof, a, sh);
}

units::Time shape_step_lower_bound_in(scenario::Scenario& s, const compute::ComputeProfile& prof, const Axes& a,
                                      const Shape& sh) {
  FLOPCAST_ASSERT(prof.host_overhead_us == 0, "the bound's profile has the host dispatch floor off");
  parallel::ParallelPlan& p = s.plan;
  sh.apply_to(p);
  p.vpp = 1;
  p.zero = 0;
  p.recompute = parallel::Recompute::None;
  p.schedule = parallel::Schedule::OneFOneB;
  p.sequence_parallel = sh.tp > 1;
  // The stages alone (stage_costs): the terms after them are not in the bound. With
  // tp > 1 the same call gives each stage's TP time without sequence parallelism too.
  std::vector<units::Time> tp_without_sp;
  const std::vector<cost::StageTimes> with_sp = cost::stage_costs(s, prof, sh.tp > 1 ? &tp_without_sp : nullptr);
  std::vector<double> floor = stage_floor(with_sp);
  std::vector<double> tp(with_sp.size(), 0.0);
  for (std::size_t i = 0; i < tp.size(); ++i) tp[i] = with_sp[i].tp_comm.seconds();
  for (std::size_t i = 0; i < tp.size() && i < tp_without_sp.size(); ++i)
    tp[i] = std::min(tp[i], tp_without_sp[i].seconds());
  const double p2p = with_sp.empty() ? 0.0 : 2 * with_sp.front().p2p.seconds();
  double crit = 0, fill = 0;
  for (std::size_t i = 0; i < floor.size(); ++i) {
    const double per = floor[i] + tp[i] + p2p;
    crit = std::max(crit, per);
    fill += per;
  }
  const double micro = static_cast<double>(std::max<std::int64_t>(1, p.microbatches()));
  double pipeline = micro * crit;
  if (sh.pp > 1) {
    double best = -1;
    auto consider = [&best](double v) { best = best < 0 ? v : std::min(best, v); };
    for (const parallel::Schedule sch : a.sched) {
      switch (sch) {
        case parallel::Schedule::GPipe:
        case parallel::Schedule::OneFOneB:
          consider((micro - 1) * crit + fill);
          break;
        case parallel::Schedule::Interleaved:
          for (const int v : a.vpp_interleaved)
            if (sh.pp * v <= s.model.layers) consider((micro - 1) * crit + fill / v);
          break;
        case parallel::Schedule::ZeroBubble:
          consider(micro * crit + (fill - crit) / 3.0);
          break;
        case parallel::Schedule::DualPipe:
        case parallel::Schedule::DualPipeV:
          // Never enumerated (framework_rules.hpp); with its communication hidden a step takes
          // at least its computation, the floor alone.
          consider(micro * crit - micro * p2p);
          break;
      }
    }
    if (best >= 0) pipeline = std::max(pipeline, best);
  }
  // Rounding slack: the estimate sums Time values rounded to the nanosecond.
  const double overhead = prof.iteration_overhead_ms * 1e-3;
  return units::Time::from_seconds(std::max(0.0, (pipeline + overhead) * (1 - 1e-9) - 1e-6));
}

}  // namespace flopcast::search::detail

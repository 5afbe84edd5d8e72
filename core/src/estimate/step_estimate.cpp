#include "flopcast/estimate/step_estimate.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "flopcast/workload/fine_tuning.hpp"

namespace flopcast::estimate {
namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

/// One micro-batch's forward and backward of a DualPipe / DualPipeV rank, overlapped: DualPipe
/// runs the forward of one micro-batch beside the backward of another so that each one's
/// all-to-all and pipeline sends hide under the other's computation (DeepSeek-V3, arXiv
/// 2412.19437 §3.2.1: "both all-to-all and PP communication can be fully hidden"). The TP and CP
/// collectives stay in the computation's path. Returns the pair's time (the README's F&B, per
/// micro-batch) and the part of the EP and PP communication left exposed.
struct DualPair {
  double pair = 0;  ///< seconds per micro-batch
  double exposed_ep = 0, exposed_pp = 0;
};
DualPair dual_pair(const cost::StageTimes& st) {
  const double work = (st.forward + st.backward + st.recompute + st.tp_comm + st.cp_comm).seconds();
  const double ep = st.ep_comm.seconds(), pp = 2 * st.p2p.seconds();
  DualPair d;
  d.pair = std::max(work, ep + pp);
  d.exposed_ep = std::max(0.0, ep - work);
  d.exposed_pp = std::max(0.0, ep + pp - work) - d.exposed_ep;
  return d;
}

/// The DualPipe / DualPipeV bubble (deepseek-ai/DualPipe README, "Pipeline Bubbles and Memory
/// Usage Comparison"): (PP/2 - 1)(F&B + B - 3W), PP the number of stages, F&B a forward and a
/// backward chunk overlapped, B a full backward chunk, W its weight-gradient part. DualPipe: PP =
/// pp stages of the rank's size. DualPipeV: PP = 2 pp half-size stages, so in the rank's units
/// (pp - 1)(F&B + B - 3W) / 2.
double dual_bubble(const parallel::ParallelPlan& p, const cost::StageTimes& st) {
  const double pair = dual_pair(st).pair;
  const double b = (st.backward + st.recompute).seconds(), w = (st.backward - st.backward_input).seconds();
  const double chunk = pair + b - 3 * w;
  const double k = p.schedule == parallel::Schedule::DualPipe ? p.pp / 2.0 - 1 : (p.pp - 1) / 2.0;
  return std::max(0.0, k * chunk);
}

/// The pipeline's time for `micro` micro-batches under the plan's schedule, and its critical
/// (slowest) stage.
std::pair<units::Time, std::size_t> pipeline_time(const parallel::ParallelPlan& p,
                                                  const std::vector<cost::StageTimes>& stages, double micro) {
  units::Time crit{0};
  std::size_t crit_i = 0;
  units::Time sum_stages{0};
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto& st = stages[i];
    const units::Time per = st.per_microbatch() + st.p2p * 2;
    sum_stages += per;
    if (per > crit) {
      crit = per;
      crit_i = i;
    }
  }
  if (p.pp == 1) return {units::Time::from_seconds(micro * crit.seconds()), crit_i};
  // 1F1B / GPipe: the slowest stage sets the steady state; every stage is crossed once in
  // fill and drain: T = (m-1) max_i t_i + sum_i t_i, = (m+p-1) t for equal stages
  // (bubble (p-1)/(m+p-1) of the step; Narayanan et al. 2021 §2.2).
  const double fill = sum_stages.seconds();
  units::Time pipeline{0};
  switch (p.schedule) {
    case parallel::Schedule::GPipe:
    case parallel::Schedule::OneFOneB:
      pipeline = units::Time::from_seconds((micro - 1) * crit.seconds() + fill);
      break;
    case parallel::Schedule::Interleaved:
      // v model chunks per rank shrink fill and drain v-fold: bubble (p-1)/(v m) of ideal;
      // the p2p messages grow v-fold.
      pipeline = units::Time::from_seconds((micro - 1) * crit.seconds() + fill / p.vpp +
                                           micro * (p.vpp - 1) * 2 * stages[crit_i].p2p.seconds());
      break;
    case parallel::Schedule::ZeroBubble: {
      // ZB-H1 (Qi et al. 2024, arXiv 2401.10241): weight-gradient work fills the drain;
      // the bubble shrinks to about a third of 1F1B's.
      const double bubble_1f1b = fill - crit.seconds();
      pipeline = units::Time::from_seconds(micro * crit.seconds() + bubble_1f1b / 3.0);
      break;
    }
    case parallel::Schedule::DualPipe:
    case parallel::Schedule::DualPipeV:
      // Every micro-batch a forward-backward pair with its communication hidden, and the
      // README's bubble (dual_pair, dual_bubble).
      pipeline = units::Time::from_seconds(micro * dual_pair(stages[crit_i]).pair + dual_bubble(p, stages[crit_i]));
      break;
  }
  return {pipeline, crit_i};
}

/// Data-parallel gradient sync of the critical stage (into est.dp_sync) and what of it stays
/// exposed; ZeRO-3's per-micro-batch gathers beyond the compute they hide under are added to
/// `pipeline`.
units::Time exposed_dp_sync(const scenario::Scenario& s, const cost::ClusterCollectives& coll, StepEstimate& est,
                            std::size_t crit_i, const cost::StageParameters& params, double micro,
                            units::Time& pipeline) {
  const auto& p = s.plan;
  const std::int64_t dp_group = p.dp * p.cp;
  const units::Time dp_sync = cost::dp_sync_time(s, coll, params);
  if (dp_group > 1 && p.zero == 3) {
    // ZeRO-3 gathers every layer's parameters for forward and again for backward in each
    // micro-batch; prefetch hides them under compute where compute is longer.
    const units::Time per_mb = cost::zero3_gather_time(s, coll, params) * 2;
    const units::Time compute_mb = est.stages[crit_i].forward + est.stages[crit_i].backward;
    if (per_mb > compute_mb) pipeline += units::Time::from_seconds(micro * (per_mb - compute_mb).seconds());
  }
  est.dp_sync = dp_sync;
  units::Time dp_exposed = dp_sync;
  if (p.overlap_dp_comm && dp_sync.ns > 0) {
    // Bucketed reduction overlaps the last micro-batch's backward; the last bucket stays exposed.
    const units::Time window = est.stages[crit_i].backward;
    dp_exposed = dp_sync > window ? dp_sync - window : units::Time{dp_sync.ns / 10};
  }
  return dp_exposed;
}

/// The breakdown on the critical stage, the step time and the figures derived from it.
void finish_estimate(const scenario::Scenario& s, const compute::ComputeProfile& prof, StepEstimate& est,
                     std::size_t crit_i, double micro, units::Time pipeline, units::Time dp_exposed,
                     units::Time optimizer) {
  const auto& m = s.model;
  const auto& p = s.plan;
  const auto& cs = est.stages[crit_i];
  StepBreakdown& br = est.breakdown;
  br.compute = units::Time::from_seconds(micro * (cs.forward + cs.backward).seconds());
  br.recompute = units::Time::from_seconds(micro * cs.recompute.seconds());
  br.tp_comm = units::Time::from_seconds(micro * cs.tp_comm.seconds());
  br.cp_comm = units::Time::from_seconds(micro * cs.cp_comm.seconds());
  br.ep_comm = units::Time::from_seconds(micro * cs.ep_comm.seconds());
  br.pp_comm = units::Time::from_seconds(micro * 2 * cs.p2p.seconds());
  if (parallel::is_dual_pipe(p.schedule) && p.pp > 1) {  // only what the overlapped pairs leave exposed
    const DualPair pair = dual_pair(cs);
    br.ep_comm = units::Time::from_seconds(micro * pair.exposed_ep);
    br.pp_comm = units::Time::from_seconds(micro * pair.exposed_pp);
  }
  const units::Time steady = br.compute + br.recompute + br.tp_comm + br.cp_comm + br.ep_comm + br.pp_comm;
  br.bubble = pipeline > steady ? pipeline - steady : units::Time{0};
  br.dp_comm = dp_exposed;
  br.optimizer = optimizer;
  br.overhead = units::Time::from_seconds(prof.iteration_overhead_ms * 1e-3);
  est.step = br.total();

  // Full training: model_flops_per_step; LoRA: no frozen weight gradients (fine_tuning.hpp).
  est.model_flops = workload::training_model_flops(s);
  est.hardware_flops = workload::training_hardware_flops(s);
  const auto& gpu = s.cluster.gpu;
  const double peak = gpu.peak(s.precision) ? gpu.peak(s.precision)->flops_per_s : 0;
  const double denom = est.step.seconds() * d(s.cluster.gpus) * peak;
  est.mfu = denom > 0 ? est.model_flops.value / denom : 0;
  est.hfu = denom > 0 ? est.hardware_flops.value / denom : 0;
  est.tokens_per_s = est.step.ns > 0 ? d(p.global_batch) * d(m.seq_len) / est.step.seconds() : 0;
}

}  // namespace

StepEstimate estimate_step(const scenario::Scenario& s, const compute::ComputeProfile& prof) {
  return estimate_over(s, prof, cost::stage_costs(s, prof));
}

StepEstimate estimate_over(const scenario::Scenario& s, const compute::ComputeProfile& prof,
                           std::vector<cost::StageTimes> stages) {
  StepEstimate est;
  est.stages = std::move(stages);
  const double micro = d(std::max<std::int64_t>(1, s.plan.microbatches()));
  auto [pipeline, crit_i] = pipeline_time(s.plan, est.stages, micro);
  est.memory = workload::memory_per_gpu(s, prof);
  // Parameters on the critical stage's GPU (dense split by TP, experts by EP x TP).
  const cost::StageParameters crit_params = cost::stage_parameters(s, crit_i);
  const units::Time dp_exposed =
      exposed_dp_sync(s, cost::ClusterCollectives(s, prof), est, crit_i, crit_params, micro, pipeline);
  const units::Time optimizer = cost::optimizer_time(s, prof, crit_params);
  finish_estimate(s, prof, est, crit_i, micro, pipeline, dp_exposed, optimizer);
  return est;
}

}  // namespace flopcast::estimate

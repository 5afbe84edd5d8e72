#pragma once
/// Closed-form step time from op-level compute costs and collective costs: per pipeline
/// stage forward, backward and recompute, the schedule's bubble, exposed communication,
/// the optimizer. Fast enough for the planner to rank millions of plans.
#include <vector>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast {

/// Where one step's time goes, on the critical path. Sums to the step time.
struct StepBreakdown {
  Time compute;    ///< forward + backward GEMMs, attention, elementwise (steady state)
  Time recompute;  ///< recomputed forward passes
  Time tp_comm;    ///< exposed tensor/sequence-parallel collectives
  Time cp_comm;    ///< exposed context-parallel exchanges
  Time ep_comm;    ///< exposed expert-parallel all-to-all
  Time pp_comm;    ///< exposed pipeline send/recv
  Time dp_comm;    ///< exposed data-parallel gradient sync (and ZeRO gathers)
  Time bubble;     ///< pipeline fill and drain
  Time optimizer;  ///< optimizer step over the local shard
  Time overhead;   ///< per-iteration host overhead
  Time total() const {
    return compute + recompute + tp_comm + cp_comm + ep_comm + pp_comm + dp_comm + bubble + optimizer + overhead;
  }
};

/// Per-micro-batch times of one pipeline stage.
struct StageTimes {
  int layers = 0;
  Time forward;         ///< compute of one micro-batch's forward
  Time backward;        ///< compute of its backward (input + weight gradients)
  Time backward_input;  ///< the input-gradient part of backward (zero-bubble's B)
  Time recompute;       ///< recomputed forward before backward
  Time tp_comm;         ///< exposed TP/SP collectives, forward + backward + recompute
  Time cp_comm;
  Time ep_comm;
  Time p2p;  ///< one send/recv of activations to the next stage
  Time per_microbatch() const { return forward + backward + recompute + tp_comm + cp_comm + ep_comm; }
};

/// A step estimate.
struct StepEstimate {
  Time step;
  StepBreakdown breakdown;
  std::vector<StageTimes> stages;
  Time dp_sync;       ///< the full DP gradient sync (before overlap)
  Flops model_flops;  ///< per step, whole job
  Flops hardware_flops;
  double mfu = 0;  ///< model FLOPs / (step x GPUs x dense peak of the precision)
  double hfu = 0;
  double tokens_per_s = 0;  ///< whole job
  MemoryBreakdown memory;
};

/// Estimates one training step. The scenario must have passed check_scenario.
StepEstimate estimate_step(const Scenario& s, const ComputeProfile& profile);

/// estimate_step(s, profile).stages alone: the per-stage times without the step's pipeline,
/// data-parallel, optimizer and memory terms (the planner's lower bound needs only these, and
/// the data-parallel group's network share is the costliest part of a cold estimate).
std::vector<StageTimes> estimate_stage_times(const Scenario& s, const ComputeProfile& profile);

/// TP/SP collective calls one layer makes per micro-batch: 2 in the forward pass (after
/// attention and after the MLP), 2 in the backward pass, and 2 more when full recompute replays
/// the forward (Megatron-LM's f/g operators: Shoeybi et al. 2019, Fig. 3; with sequence
/// parallelism each becomes an all-gather/reduce-scatter pair, counted once here). One figure
/// for the estimate, its host floor and the discrete-event step.
constexpr int tp_collectives_per_layer(Recompute r) { return 4 + (r == Recompute::Full ? 2 : 0); }

/// Collective kinds the step needs.
enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };

/// Time of one collective over `ranks` ranks whose consecutive members are `rank_stride`
/// global ranks apart (Megatron order: TP 1, CP tp, DP tp*cp, PP tp*cp*dp), moving `bytes`
/// (nccl-tests' size S), while every group of that kind runs at once. Costed by the
/// topology-based NCCL model (core/comm), built once per cluster and cached per thread.
Time collective_time(const Scenario& s, const ComputeProfile& profile, CollectiveKind op, std::int64_t ranks,
                     std::int64_t rank_stride, Bytes bytes);

/// Parameters held by one GPU of pipeline stage `stage` (dense split by TP; experts by EP x TP).
struct StageParameters {
  double dense = 0;
  double expert = 0;
};
StageParameters stage_parameters(const Scenario& s, std::size_t stage);

/// The stage's data-parallel gradient sync (all-reduce, or reduce-scatter + all-gather with a
/// distributed optimizer; expert gradients over their own group) for `params` parameters.
Time dp_sync_time(const Scenario& s, const ComputeProfile& profile, const StageParameters& params);
/// One ZeRO-3 all-gather of the stage's parameters (zero unless ZeRO-3 and DP > 1).
Time zero3_gather_time(const Scenario& s, const ComputeProfile& profile, const StageParameters& params);
/// The optimizer step over the stage's local shard.
Time optimizer_time(const Scenario& s, const ComputeProfile& profile, const StageParameters& params);

}  // namespace flopcast

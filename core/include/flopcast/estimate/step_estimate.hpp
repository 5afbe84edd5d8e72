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
/// the data-parallel group's network share is the costliest part of a cold estimate). When
/// `tp_comm_without_sp` is given it receives each stage's tp_comm as it would be with sequence
/// parallelism off and the rest of the plan as it is (the same sums as a second estimate of
/// that plan, without the second estimate).
std::vector<StageTimes> estimate_stage_times(const Scenario& s, const ComputeProfile& profile,
                                             std::vector<Time>* tp_comm_without_sp = nullptr);

/// TP/SP collective calls one layer makes per micro-batch: 2 in the forward pass (after
/// attention and after the MLP), 2 in the backward pass, and 2 more when full recompute replays
/// the forward (Megatron-LM's f/g operators: Shoeybi et al. 2019, Fig. 3; with sequence
/// parallelism each becomes an all-gather/reduce-scatter pair, counted once here). One figure
/// for the estimate, its host floor and the discrete-event step.
constexpr int tp_collectives_per_layer(Recompute r) { return 4 + (r == Recompute::Full ? 2 : 0); }

/// TP collective time one layer leaves exposed per micro-batch under Transformer Engine's
/// comm-GEMM overlap (Megatron-LM --tp-comm-overlap, which requires sequence parallelism; TE
/// userbuffers, transformer_engine/pytorch/module/base.py initialize_ub, default methods). The
/// forward's two all-gathers (QKV and FC1 inputs) run as a ring exchange that feeds each GEMM
/// chunk as it arrives, and its two reduce-scatters (projection and FC2 outputs) as a
/// "pipeline" of num_splits = 4 chunks, each reduced while the next chunk's GEMM runs, so the
/// last quarter of each reduce-scatter waits for no GEMM. The backward's collectives overlap the
/// data- and weight-gradient GEMMs (ring exchange for the projection and FC2 data gradients,
/// "bulk" overlap of the QKV and FC1 input all-gather and gradient reduce-scatter). Beyond that,
/// a direction's collectives hide only under that direction's GEMMs, and the pipeline and bulk
/// communication kernels run on SMs taken from the GEMMs (the ring exchange uses the copy
/// engines), which slows the GEMM they overlap by comm_sm_share of the communication's time:
///   forward  = min(C_f, max(C_f - G_f, s 2 rs) + 2 rs / 4),      C_f = 2 (ag + rs)
///   backward = min(C_b, max(0, C_b - G_b, s 2 (ag + rs))),       C_b = 2 (ag + rs)
/// with ag and rs one all-gather and one reduce-scatter of the layer's activations, G_f the
/// layer's forward GEMM time, G_b its data- plus weight-gradient GEMM time and s the SM share
/// (tp_overlap_sm_share); full recompute replays the forward's. comm_sm_share is in [0, 1).
Time tp_overlap_exposed(Time all_gather, Time reduce_scatter, Time gemm_fwd, Time gemm_bwd, Recompute recompute,
                        double comm_sm_share);

/// The share of a GPU's SMs Transformer Engine's pipeline and bulk overlap kernels take:
/// num_sm 16 (initialize_ub's add_ub default) over the GPU's sm_count (the GPU catalog keeps
/// it above 16).
double tp_overlap_sm_share(int sm_count);

/// The precision of the ops Transformer Engine's FP8 recipes leave in 16 bits: core attention
/// (TE's DotProductAttention runs FP8 only when asked, NVTE_FP8_DPA / fp8_dpa, off by default:
/// transformer_engine/pytorch/attention/dot_product_attention), the LM head (Megatron-core's
/// output_layer is a tensor_parallel ColumnParallelLinear, not a TE module:
/// megatron/core/models/gpt/gpt_model.py) and the MoE router (a plain matmul of the hidden state
/// with the gate weight: megatron/core/transformer/moe/router.py). BF16 for fp8, mxfp8, fp4 and
/// nvfp4 runs; the run's own precision otherwise.
Precision non_gemm_precision(Precision run);

/// Share of the MoE dispatch (or combine) bytes that crosses the NIC under node-deduplicated
/// dispatch, relative to one copy per (token, routed expert): DeepEP's internode kernels send
/// a token once to each remote node holding any of its experts (over RDMA, to the GPU of the
/// same local index) and forward it inside that node over NVLink (DeepEP README, "normal
/// kernels"; DeepSeek-V3, arXiv 2412.19437 §3.2.2), as Megatron-core's flex dispatcher does
/// with --moe-enable-deepep (megatron/core/transformer/moe/token_dispatcher.py,
/// MoEFlexTokenDispatcher; fused_a2a.py). With experts spread evenly over `nodes` nodes and
/// balanced routing (the calibration runs force-balance), a token's top_k experts miss a given
/// node with probability (1 - 1/n)^k, so it reaches (n - 1)(1 - (1 - 1/n)^k) remote nodes
/// against k (n - 1)/n remote copies per expert: factor n (1 - (1 - 1/n)^k) / k (1 for one
/// node or top-1).
double moe_dispatch_internode_factor(int top_k, std::int64_t nodes);

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
  /// LoRA: bytes of the frozen base weights (dense and expert above are then the adapters',
  /// the trained parameters); gathered by ZeRO-3, never synchronised or stepped.
  double frozen_bytes = 0;
  /// Of dense + expert, the GEMM weights (stage_gemm_parameters): gathered in FP8 with
  /// fp8_params. 0 for fine-tuning (the adapters are not FP8 parameters).
  double gemm = 0;
};
/// Bytes one data-parallel all-gather of `params` moves: 2 per parameter (the 16-bit weights),
/// and with fp8_params 1 copy of fp8_weight_copy_bytes / 2 per GEMM weight instead (Megatron-LM
/// --fp8-param-gather: "perform the param all-gather in fp8", megatron/training/arguments.py;
/// torchtitan's FSDP2 float8 all-gather likewise), the frozen bytes of fine-tuning as they are.
/// `expert_only`: the routed experts' group (all GEMM weights).
Bytes parameter_gather_bytes(const Scenario& s, const StageParameters& params, bool expert_only);
StageParameters stage_parameters(const Scenario& s, std::size_t stage);

/// The stage's data-parallel gradient sync (all-reduce, or reduce-scatter + all-gather with a
/// distributed optimizer; expert gradients over their own group) for `params` parameters.
Time dp_sync_time(const Scenario& s, const ComputeProfile& profile, const StageParameters& params);
/// One ZeRO-3 all-gather of the stage's parameters (zero unless ZeRO-3 and DP > 1).
Time zero3_gather_time(const Scenario& s, const ComputeProfile& profile, const StageParameters& params);
/// The optimizer step over the stage's local shard.
Time optimizer_time(const Scenario& s, const ComputeProfile& profile, const StageParameters& params);

}  // namespace flopcast

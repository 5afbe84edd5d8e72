#pragma once
/// What one pipeline stage of a training step costs on one GPU, per micro-batch: the ops of its
/// layers priced by the op costs (op_cost.hpp) and the collectives by the cluster's NCCL model
/// (collective_cost.hpp); the parameters a stage holds, its data-parallel gradient sync, ZeRO-3
/// gathers and optimizer step. The closed-form estimate (core/estimate) and the discrete-event
/// step (core/step) are two schedules over these costs.
#include <cstdint>
#include <vector>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/cost/collective_cost.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::cost {

/// Per-micro-batch times of one pipeline stage.
struct StageTimes {
  int layers = 0;
  units::Time forward;         ///< compute of one micro-batch's forward
  units::Time backward;        ///< compute of its backward (input + weight gradients)
  units::Time backward_input;  ///< the input-gradient part of backward (zero-bubble's B)
  units::Time recompute;       ///< recomputed forward before backward
  units::Time tp_comm;         ///< exposed TP/SP collectives, forward + backward + recompute
  units::Time cp_comm;
  units::Time ep_comm;
  units::Time p2p;  ///< one send/recv of activations to the next stage
  units::Time per_microbatch() const { return forward + backward + recompute + tp_comm + cp_comm + ep_comm; }
};

/// Per-micro-batch times of every pipeline stage: its layers' GEMMs, attention, elementwise
/// kernels and in-layer collectives (TP/SP, CP, EP), the embedding on the first stage, the
/// logits and loss on the last, the host dispatch floor and the per-micro-batch overhead. What
/// the closed-form estimate (core/estimate) and the discrete-event step (core/step) both start
/// from. When
/// `tp_comm_without_sp` is given it receives each stage's tp_comm as it would be with sequence
/// parallelism off and the rest of the plan as it is (the same sums as a second estimate of
/// that plan, without the second estimate).
std::vector<StageTimes> stage_costs(const scenario::Scenario& s, const compute::ComputeProfile& profile,
                                    std::vector<units::Time>* tp_comm_without_sp = nullptr);

/// TP/SP collective calls one layer makes per micro-batch: 2 in the forward pass (after
/// attention and after the MLP), 2 in the backward pass, and 2 more when full recompute replays
/// the forward (Megatron-LM's f/g operators: Shoeybi et al. 2019, Fig. 3; with sequence
/// parallelism each becomes an all-gather/reduce-scatter pair, counted once here). One figure
/// for the estimate, its host floor and the discrete-event step.
constexpr int tp_collectives_per_layer(parallel::Recompute r) { return 4 + (r == parallel::Recompute::Full ? 2 : 0); }

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
units::Time tp_overlap_exposed(units::Time all_gather, units::Time reduce_scatter, units::Time gemm_fwd,
                               units::Time gemm_bwd, parallel::Recompute recompute, double comm_sm_share);

/// The share of a GPU's SMs Transformer Engine's pipeline and bulk overlap kernels take:
/// num_sm 16 (initialize_ub's add_ub default) over the GPU's sm_count (the GPU catalog keeps
/// it above 16).
double tp_overlap_sm_share(int sm_count);

/// What Megatron-core's batch-level EP overlap (`--overlap-moe-expert-parallel-comm`, MCore
/// v0.14: the forward of one micro-batch and the backward of another run as one schedule, each
/// one's dispatch and combine under the other's compute) leaves exposed of a layer's all-to-all
/// `ep` (half forward, half backward): the forward's under the other micro-batch's backward
/// compute `bwd`, the backward's under the forward compute `fwd`, and the dispatch kernels' SMs
/// taken from that compute while they run:
///   exposed = max(ep / 2 - bwd, s ep / 2) + max(ep / 2 - fwd, s ep / 2),  s = comm_sm_share.
/// A pass with no partner leaves its all-to-all whole (ep_unpaired_share). comm_sm_share is in
/// [0, 1).
units::Time ep_overlap_exposed(units::Time ep, units::Time fwd, units::Time bwd, double comm_sm_share);

/// Under that EP overlap, the share of a pipeline stage's forward passes (and as many backward
/// passes) that run alone, their all-to-all exposed whole: Megatron-core's combined 1F1B runs the
/// first micro-batch's forward and the last one's backward alone without a pipeline
/// (combined_1f1b.py, combined_1f1b_schedule_for_no_pipelining), and with one the warm-up
/// forwards and cool-down backwards of the interleaved schedule, 2 (pp - 1 - stage) + (vpp - 1)
/// pp + 1 of the microbatches x vpp passes each way (schedules.py: the interleaved warm-up count,
/// one more under the overlap). `stage` counts from 0. A stage's EP time per micro-batch is then
/// this share of the whole all-to-all and the rest of ep_overlap_exposed's figure.
double ep_unpaired_share(const parallel::ParallelPlan& p, int stage);

/// The SMs the dispatch and combine kernels run on: Megatron-core's moe_deepep_num_sms, 20, or
/// moe_hybridep_num_sms, 16 (transformer_config.py), at most half of the GPU's; NCCL's
/// all-to-all is given DeepEP's number.
double dispatch_sms(int sm_count, parallel::MoeDispatcher dispatcher);

/// The share of a GPU's SMs the dispatch and combine kernels take (dispatch_sms over sm_count).
double ep_overlap_sm_share(int sm_count, parallel::MoeDispatcher dispatcher);

/// The precision of the ops Transformer Engine's FP8 recipes leave in 16 bits: core attention
/// (TE's DotProductAttention runs FP8 only when asked, NVTE_FP8_DPA / fp8_dpa, off by default:
/// transformer_engine/pytorch/attention/dot_product_attention), the LM head (Megatron-core's
/// output_layer is a tensor_parallel ColumnParallelLinear, not a TE module:
/// megatron/core/models/gpt/gpt_model.py) and the MoE router (a plain matmul of the hidden state
/// with the gate weight: megatron/core/transformer/moe/router.py). BF16 for fp8, mxfp8, fp4 and
/// nvfp4 runs; the run's own precision otherwise.
hardware::Precision non_gemm_precision(hardware::Precision run);

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
units::Bytes parameter_gather_bytes(const scenario::Scenario& s, const StageParameters& params, bool expert_only);
StageParameters stage_parameters(const scenario::Scenario& s, std::size_t stage);

/// The stage's data-parallel gradient sync (all-reduce, or reduce-scatter + all-gather with a
/// distributed optimizer; expert gradients over their own group) for `params` parameters.
units::Time dp_sync_time(const scenario::Scenario& s, const compute::ComputeProfile& profile,
                         const StageParameters& params);
/// One ZeRO-3 all-gather of the stage's parameters (zero unless ZeRO-3 and DP > 1).
units::Time zero3_gather_time(const scenario::Scenario& s, const compute::ComputeProfile& profile,
                              const StageParameters& params);
/// dp_sync_time and zero3_gather_time on collectives already looked up.
units::Time dp_sync_time(const scenario::Scenario& s, const ClusterCollectives& collectives,
                         const StageParameters& params);
units::Time zero3_gather_time(const scenario::Scenario& s, const ClusterCollectives& collectives,
                              const StageParameters& params);
/// The optimizer step over the stage's local shard.
units::Time optimizer_time(const scenario::Scenario& s, const compute::ComputeProfile& profile,
                           const StageParameters& params);

}  // namespace flopcast::cost

#pragma once
/// Parameter counts, FLOPs per step and memory per GPU of a transformer under a plan.
///
/// FLOPs follow Megatron (Narayanan et al. 2021, arXiv 2104.04473, eq. 3): a GEMM of
/// shape (m, n, k) costs 2mnk; backward = 2x forward; model FLOPs count attention's full
/// s^2 term (as PaLM's 6N + 12 l h s does) and no recompute. Memory follows ZeRO
/// (arXiv 1910.02054, 16 B/param with mixed-precision Adam) and Korthikanti et al. 2022
/// (arXiv 2205.05198, Table 2) for activations.
#include <vector>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast {

/// Parameters by part (counts, not bytes).
struct ParameterCount {
  double total = 0;             ///< every parameter
  double active = 0;            ///< parameters used per token (MoE: top_k + shared experts)
  double embedding = 0;         ///< input embedding (+ learned positions)
  double output_head = 0;       ///< untied output projection (0 when tied)
  double dense_layer = 0;       ///< one dense transformer layer
  double moe_layer_shared = 0;  ///< one MoE layer without its routed experts (attention, norms, router, shared)
  double moe_expert = 0;        ///< one routed expert
  double final_norm = 0;
};
ParameterCount parameter_count(const ModelSpec& m);

/// Forward FLOPs of one layer for `tokens` tokens (whole layer, before any split).
struct LayerFlops {
  double qkv = 0, attention = 0, out_proj = 0, mlp = 0, router = 0;
  double total() const { return qkv + attention + out_proj + mlp + router; }
};
LayerFlops layer_forward_flops(const ModelSpec& m, int layer, double sequences);

/// Model FLOPs of one training step (forward + backward, no recompute), whole cluster.
Flops model_flops_per_step(const ModelSpec& m, double global_batch);
/// Hardware FLOPs of one step: model FLOPs plus the recomputed forward passes.
Flops hardware_flops_per_step(const ModelSpec& m, const ParallelPlan& p);

/// Layers held by each pipeline stage (uneven when layers % pp != 0: the middle stages
/// take the extra layers, as the first and last also hold embedding and logits).
std::vector<int> layers_per_stage(int layers, int pp);

/// Memory of one GPU, by part.
struct MemoryBreakdown {
  Bytes weights;         ///< parameters (with their FP8 copies when training in FP8)
  Bytes gradients;       ///< gradient buffers
  Bytes optimizer;       ///< fp32 master weights and Adam moments
  Bytes activations;     ///< what the in-flight micro-batches keep for backward
  Bytes logits;          ///< the last stage's fp32 logits and their gradient
  Bytes workspace;       ///< CUDA context and library workspaces (the profile's) plus NCCL buffers
  Bytes fragmentation;   ///< the caching allocator's slack
  Bytes weight_copies;   ///< of `weights`: Transformer Engine's cached FP8 copies of the GEMM weights
  Bytes nccl;            ///< of `workspace`: NCCL's buffers for the GPU's communicators
  Bytes capacity;        ///< the GPU's HBM
  int stage = 0;         ///< the pipeline stage this breakdown is for (the most loaded)
  double in_flight = 0;  ///< micro-batches whose activations the stage holds at peak
  Bytes total() const { return weights + gradients + optimizer + activations + logits + workspace + fragmentation; }
  bool fits() const { return total().value <= capacity.value; }
};
/// Memory per GPU of the most-loaded pipeline stage.
MemoryBreakdown memory_per_gpu(const Scenario& s, const ComputeProfile& profile);
/// Memory per GPU of stage `stage`.
MemoryBreakdown memory_of_stage(const Scenario& s, const ComputeProfile& profile, int stage);

/// Activation bytes of one layer for one micro-batch on one GPU (Korthikanti Table 2,
/// generalised to GQA, wide heads, SwiGLU, MoE and FP8 GEMM inputs; flash attention stores no
/// s^2 score tensor).
Bytes layer_activation_bytes(const ModelSpec& m, const ParallelPlan& p, int layer, Precision prec);

/// Micro-batches (in whole-stage units) whose activations stage `stage` holds at its peak under
/// the plan's schedule.
double in_flight_microbatches(const ParallelPlan& p, int stage);

/// Bytes per parameter of the training state for a precision.
struct StateBytes {
  double weights = 2, gradients = 2, optimizer = 12;
};
StateBytes state_bytes(Precision p);
/// The same with the gradients in the dtype `g` names (GradReduce::Default: as state_bytes(p)).
StateBytes state_bytes(Precision p, GradReduce g);
/// Bytes per gradient element accumulated and data-parallel reduced: 4 for fp32 main grads
/// (bf16 and FP8 training by default, fp32 training, or GradReduce::FP32), 2 for the 16-bit one.
double grad_bytes(Precision p, GradReduce g);
/// Bytes per GEMM weight of the quantized copies Transformer Engine keeps when training in
/// `p` (0 for 16- and 32-bit training).
double fp8_weight_copy_bytes(Precision p);
/// The GEMM weights (every linear layer's, routed experts included; not embeddings, head, norms,
/// router) one GPU of pipeline stage `stage` holds: those FP8 parameters keep in FP8 only.
double stage_gemm_parameters(const Scenario& s, int stage);

}  // namespace flopcast

#pragma once
/// Parameter counts, FLOPs per step and memory per GPU of a transformer under a plan.
///
/// FLOPs follow Megatron (Narayanan et al. 2021, arXiv 2104.04473, eq. 3): a GEMM of
/// shape (m, n, k) costs 2mnk; backward = 2x forward; model FLOPs count attention's full
/// s^2 term (as PaLM's 6N + 12 l h s does) and no recompute. Memory follows ZeRO
/// (arXiv 1910.02054, 16 B/param with mixed-precision Adam) and Korthikanti et al. 2022
/// (arXiv 2205.05198, Table 2) for activations.
#include <algorithm>
#include <array>
#include <functional>
#include <vector>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::workload {

/// Parameters by part (counts, not bytes).
struct ParameterCount {
  double total = 0;             ///< every parameter of the main model (the MTP modules apart: `mtp`)
  double active = 0;            ///< parameters used per token (MoE: top_k + shared experts); no MTP
  double embedding = 0;         ///< input embedding (+ learned positions)
  double output_head = 0;       ///< untied output projection (0 when tied)
  double dense_layer = 0;       ///< one dense transformer layer
  double moe_layer_shared = 0;  ///< one MoE layer without its routed experts (attention, norms, router, shared)
  double moe_expert = 0;        ///< one routed expert
  double final_norm = 0;
  /// The multi-token-prediction modules (DeepSeek-V3 §2.2), all of them: each a transformer layer
  /// of the last layer's kind, the projection M (2h -> h) and three RMSNorms (the two inputs' and
  /// the module's final one, as Megatron-LM counts them); the embedding and output head are the
  /// main model's, shared. DeepSeek-V3: 671B main + 14B MTP (its checkpoint also stores a copy of
  /// the embedding and head in the module).
  double mtp = 0;
};
ParameterCount parameter_count(const ModelSpec& m);
/// One MTP module's parameters beside its transformer layer: the projection M (2h -> h) and its
/// three norms.
double mtp_module_extra_params(const ModelSpec& m);

/// The GEMM weights of one layer's attention (no norms, biases): Q, K, V and output projection,
/// or MLA's q down/up, kv down (with the rope key) and kv up projections and the output projection.
double attention_gemm_weights(const ModelSpec& m);

/// How attention's QK^T and attention-over-values are counted: every query against every key of
/// its window (Full: PaLM's 12 l h s, flopcast's model FLOPs, torchtitan's count), or only the
/// keys the causal mask keeps (Causal: half of them, Megatron-LM's num_floating_point_operations
/// "causal mask -> /2").
enum class AttentionCount { Full, Causal };

/// Forward FLOPs of one layer for `tokens` tokens (whole layer, before any split). Layers at or
/// past m.layers are the MTP modules' (of the last layer's kind, with their projection in qkv).
struct LayerFlops {
  double qkv = 0, attention = 0, out_proj = 0, mlp = 0, router = 0;
  double total() const { return qkv + attention + out_proj + mlp + router; }
};
LayerFlops layer_forward_flops(const ModelSpec& m, int layer, double sequences,
                               AttentionCount count = AttentionCount::Full);

/// Keys one query attends to, averaged over the sequence: s (Full) or (s+1)/2 ~ s/2 (Causal) on a
/// full-attention layer; on a windowed layer min(w, s) (Full) or the mean of min(i + 1, w) over
/// the positions i (Causal: w - w(w-1)/(2s) for w <= s).
double attended_keys(const ModelSpec& m, int layer, AttentionCount count);

/// The kind of `layer`, 0-3: dense or MoE (2), with full or windowed attention (1). Layers of a
/// kind cost the same.
inline int layer_kind(const ModelSpec& m, int layer) {
  return (m.is_moe_layer(layer) ? 2 : 0) + (m.is_windowed_layer(layer) ? 1 : 0);
}

/// Calls fn(layer, count) once per kind of layer among [first, first + n): dense or MoE, with
/// full or windowed attention (layers of a kind cost the same), `layer` the first of its kind.
template <typename Fn>
void for_each_layer_kind(const ModelSpec& m, int first, int n, Fn&& fn) {
  int at[4] = {-1, -1, -1, -1}, count[4] = {0, 0, 0, 0};
  for (int l = first; l < first + n; ++l) {
    const int k = layer_kind(m, l);
    if (at[k] < 0) at[k] = l;
    ++count[k];
  }
  for (int k = 0; k < 4; ++k)
    if (count[k] > 0) fn(at[k], count[k]);
}

/// Whether `layer` runs its GEMMs in BF16 under an 8- or 4-bit precision (Scenario::bf16_layers:
/// among the first `first` or the last `last` of the model's layers; never an MTP module's).
inline bool kept_in_bf16(const scenario::Scenario& s, int layer) {
  const auto& k = s.bf16_layers;
  return layer >= 0 && layer < s.model.layers && (layer < k.first || layer >= s.model.layers - k.last);
}
/// The precision `layer`'s GEMMs run in: BF16 where kept_in_bf16, else the scenario's.
hardware::Precision layer_precision(const scenario::Scenario& s, int layer);

/// The kinds of layer_kind_in_precision: layer_kind's four, and each again kept in BF16.
inline constexpr int kLayerKindsWithPrecision = 8;
/// layer_kind (0-3), plus 4 for a layer kept in BF16.
inline int layer_kind_in_precision(const scenario::Scenario& s, int layer) {
  return (kept_in_bf16(s, layer) ? 4 : 0) + layer_kind(s.model, layer);
}
/// Whether a kind of layer_kind_in_precision is one kept in BF16.
inline bool kind_kept_in_bf16(int kind) { return kind >= 4; }

/// Like for_each_layer_kind over every chunk of a rank's slice together (a kind's layers counted
/// across its chunks, fn called once per kind), by layer_kind_in_precision: fn(layer, count, kind),
/// `layer` the first of its kind.
template <typename Fn>
void for_each_layer_kind_and_precision(const scenario::Scenario& s, const std::vector<std::pair<int, int>>& chunks,
                                       Fn&& fn) {
  const auto& m = s.model;
  if (s.bf16_layers.first == 0 && s.bf16_layers.last == 0 && !m.moe && !m.sliding_window) {
    int total = 0;  // one kind (0): no per-layer look on the planner's common path
    for (const auto& c : chunks) total += c.second;
    if (total > 0) fn(chunks.front().first, total, 0);
    return;
  }
  int at[kLayerKindsWithPrecision], count[kLayerKindsWithPrecision] = {};
  std::fill(std::begin(at), std::end(at), -1);
  for (const auto& [first, n] : chunks)
    for (int l = first; l < first + n; ++l) {
      const int k = layer_kind_in_precision(s, l);
      if (at[k] < 0) at[k] = l;
      ++count[k];
    }
  for (int k = 0; k < kLayerKindsWithPrecision; ++k)
    if (count[k] > 0) fn(at[k], count[k], k);
}

/// Model FLOPs of one training step (forward + backward, no recompute), whole cluster: every
/// layer, the logits, the MTP modules (their layer, projection and logits).
units::Flops model_flops_per_step(const ModelSpec& m, double global_batch);
/// Hardware FLOPs of one step: model FLOPs plus the recomputed forward passes.
units::Flops hardware_flops_per_step(const ModelSpec& m, const parallel::ParallelPlan& p);

/// The FLOPs of one step as a source counts them under `c` (run schema measured.flops_convention):
/// - model: 6 FLOPs per parameter per token plus attention over the keys the causal mask keeps;
/// - model_full_attention: flopcast's own count (model_flops_per_step: full attention);
/// - hardware: flopcast's hardware FLOPs (model plus recompute);
/// - megatron: Megatron-LM's num_floating_point_operations (megatron/training/training.py at
///   NVIDIA/Megatron-LM d98e8a64): 3 x 2 x every GEMM (no router, no embedding), the causal /2 on
///   attention, windows ignored, MLA's low-rank projections with their RMSNorms, MTP layers,
///   projections, norms and logits.
/// `p` gives the recompute of hardware FLOPs and the global batch.
units::Flops flops_per_step(const ModelSpec& m, const parallel::ParallelPlan& p, scenario::FlopsConvention c);

/// Layers held by each pipeline stage (uneven when layers % pp != 0: the middle stages
/// take the extra layers, as the first and last also hold embedding and logits).
std::vector<int> layers_per_stage(int layers, int pp);

/// What one pipeline rank holds and runs.
struct StageSlice {
  /// [first layer, layers) of each model chunk on the rank, in the model's order of the chunks.
  std::vector<std::pair<int, int>> chunks;
  bool embedding = false;  ///< holds the input embedding
  bool head = false;       ///< holds the final norm, the output head and the loss (and the MTP modules)
  /// The share of its chunks one micro-batch crosses on this rank: 1, or 1/2 under DualPipe, where
  /// each micro-batch crosses one of the rank's two stages (the one of its direction).
  double pass_share = 1;
  int layers() const {
    int n = 0;
    for (const auto& c : chunks) n += c.second;
    return n;
  }
};
/// Each pipeline rank's slice of the model under the plan:
/// - without a pipeline_layout, the even split of layers_per_stage (one block per rank), or with
///   virtual stages that divide the layers evenly, Megatron-core's interleaved placement (virtual
///   stage v's chunk on rank r starts at layer v layers / vpp + r layers / (pp vpp));
/// - with one, Megatron-LM's (get_num_layers_to_build): the first and last ranks' layers as set,
///   the rest even, each rank's share split over its vpp virtual stages (virtual stage k on rank
///   k % pp); or with account_for_embedding / _loss, layers + 1 (+ 1) split evenly, the first
///   (last) virtual stage one layer short;
/// - DualPipe: pp stages of the even split, rank r holding stage r and stage pp - 1 - r (both
///   ends hold the embedding and the head: each direction's first and last stage);
/// - DualPipeV: 2 pp virtual stages of the even split in a V, rank r holding virtual stages r and
///   2 pp - 1 - r (rank 0 both the embedding and the head).
/// The plan must have passed check_scenario.
std::vector<StageSlice> pipeline_stages(const ModelSpec& m, const parallel::ParallelPlan& p);
/// pipeline_stages(m, p)[rank] (an empty slice for a rank out of range), without building the
/// other ranks' slices on the common path (no layout, no DualPipe): the planner asks for one
/// stage's memory millions of times.
StageSlice pipeline_stage(const ModelSpec& m, const parallel::ParallelPlan& p, int rank);
/// Calls fn(rank, pipeline_stages(m, p)[rank]) for every rank in order without keeping the
/// slices: the even split rank by rank in one reused slice, a pipeline_layout or DualPipe from
/// pipeline_stages. For callers that visit every stage once (the step estimate the planner runs
/// millions of times).
void for_each_pipeline_stage(const ModelSpec& m, const parallel::ParallelPlan& p,
                             const std::function<void(std::size_t rank, const StageSlice& slice)>& fn);
/// Whether `layout` splits `layers` over pp ranks of vpp virtual stages by Megatron-LM's rules
/// (every rank's share a multiple of vpp, the middle ranks even, every virtual stage >= 0 layers).
bool pipeline_layout_splits(int layers, int pp, int vpp, const parallel::PipelineLayout& layout);

/// Converts the run's stated mfu and tflops_per_gpu (s.measured_as_stated) from its
/// flops_convention to flopcast's count (kFlopcastFlopsConvention) for the plan as it stands:
/// x flops_per_step(model_full_attention) / flops_per_step(its convention), into s.measured.
/// Returns the factor (1 when the convention is flopcast's or nothing is stated).
double convert_measured_flops(scenario::Scenario& s);

/// E[max of n independent standard normal variables]: 0 for n = 1, 0.56 for 2, 1.42 for 8,
/// 2.34 for 64 (the integral of x n phi(x) Phi(x)^(n-1), computed once per n and thread).
double expected_max_standard_normal(int n);
/// The routed-expert load of an expert-parallel group's most loaded rank over the group's mean,
/// with routing as even as chance allows: each token's top_k distinct experts drawn uniformly
/// from `experts`, so the routes landing on one rank's experts/ep of them are a sum of
/// hypergeometric counts, of mean mu = routes_per_rank and variance
/// mu (1 - 1/ep) (experts - top_k) / (experts - 1), and the slowest of ep such ranks sits
/// expected_max_standard_normal(ep) standard deviations above the mean. Every MoE layer's combine
/// waits for its slowest rank, so a layer's expert GEMMs take this factor; a rank's memory sums
/// its loads over the layers, whose maxima fall on different ranks, and does not. Exact for
/// Megatron-core's moe_router_force_load_balancing (random normal router logits:
/// apply_random_logits, megatron/core/transformer/moe/moe_utils.py); a floor for a trained router
/// with its balancing loss or bias (DeepSeek-V3 Sec. 2.1.2), whose skew beyond chance is not
/// modelled. A capacity factor caps it (capacity_factor > 0:
/// an expert computes at most that multiple of its mean share). 1 when ep <= 1.
double routed_load_factor(const MoeSpec& e, int ep, double routes_per_rank);

/// Memory of one GPU, by part.
struct MemoryBreakdown {
  units::Bytes weights;        ///< parameters (with their FP8 copies when training in FP8)
  units::Bytes gradients;      ///< gradient buffers
  units::Bytes optimizer;      ///< fp32 master weights and Adam moments
  units::Bytes activations;    ///< what the in-flight micro-batches keep for backward
  units::Bytes logits;         ///< the last stage's fp32 logits and their gradient
  units::Bytes workspace;      ///< CUDA context and library workspaces (the profile's) plus NCCL buffers
  units::Bytes fragmentation;  ///< the caching allocator's slack
  units::Bytes weight_copies;  ///< of `weights`: Transformer Engine's cached FP8 copies of the GEMM weights
  units::Bytes nccl;           ///< of `workspace`: NCCL's buffers for the GPU's communicators
  units::Bytes capacity;       ///< the GPU's HBM
  int stage = 0;               ///< the pipeline stage this breakdown is for (the most loaded)
  double in_flight = 0;        ///< micro-batches whose activations the stage holds at peak
  units::Bytes total() const {
    return weights + gradients + optimizer + activations + logits + workspace + fragmentation;
  }
  /// What PyTorch's caching allocator hands out at the peak (torch.cuda.max_memory_allocated):
  /// the tensors, without the allocator's slack, the CUDA context and NCCL's own buffers.
  units::Bytes allocated() const { return weights + gradients + optimizer + activations + logits; }
  /// What the process holds at the peak (torch.cuda.max_memory_reserved with the CUDA context
  /// and NCCL's buffers, as nvidia-smi shows it): the total.
  units::Bytes reserved() const { return total(); }
  bool fits() const { return total().value <= capacity.value; }
};
/// The memory a measured figure of `kind` is compared with: allocated() or reserved() (the total
/// when the source does not say).
units::Bytes memory_of_kind(const MemoryBreakdown& m, scenario::MemoryKind kind);
/// Memory per GPU of the most-loaded pipeline stage.
MemoryBreakdown memory_per_gpu(const scenario::Scenario& s, const compute::ComputeProfile& profile);
/// Memory per GPU of stage `stage`.
MemoryBreakdown memory_of_stage(const scenario::Scenario& s, const compute::ComputeProfile& profile, int stage);

/// Whether `layer` runs torchtitan's per-op selective activation checkpointing: what
/// `recompute: selective` means under FSDP2 (`parallel.fsdp`, torchtitan's data parallelism),
/// whose selective mode is not Megatron's. torchtitan's `_apply_op_sac`
/// (torchtitan/distributed/activation_checkpoint.py, selective_ac_option "op", its Llama
/// configs' setting) saves, inside each transformer block, the outputs of the ops on its save
/// list (aten.mm but every second one of the block, scaled-dot-product attention) and recomputes
/// every other op in the backward. Modelled on dense layers with multi-head or grouped-query
/// attention, where a block's mm calls are Q, K, V, the output projection, then the FFN's
/// GEMMs in order; an MoE or MLA layer keeps Megatron's rule (the attention core recomputed).
bool per_op_checkpointing(const ModelSpec& m, const parallel::ParallelPlan& p, int layer);
/// One GEMM of a layer's forward, per token: `n` outputs from `k` inputs, whole (no tensor
/// parallelism); `column`: tensor parallelism splits its outputs (a column-parallel linear), else
/// its inputs (row-parallel).
struct LayerGemm {
  double n = 0, k = 0;
  bool column = true;
};
/// The GEMMs per-op checkpointing recomputes in a block: the 2nd, 4th and 6th mm, that is the K
/// projection, the output projection and the FFN's second GEMM (w3, the up projection of
/// SwiGLU's `w2(silu(w1 x) * w3 x)`; w2, the down projection, for a two-matrix FFN).
std::array<LayerGemm, 3> per_op_recomputed_gemms(const ModelSpec& m);

/// Activation bytes of one layer for one micro-batch on one GPU (Korthikanti Table 2,
/// generalised to GQA, wide heads, SwiGLU, MoE and FP8 GEMM inputs; flash attention stores no
/// s^2 score tensor).
units::Bytes layer_activation_bytes(const ModelSpec& m, const parallel::ParallelPlan& p, int layer,
                                    hardware::Precision prec);

/// Micro-batches (in whole-stage units) whose activations stage `stage` holds at its peak under
/// the plan's schedule. DualPipe and DualPipeV: PP + 1 stage-sized micro-batches per device
/// (deepseek-ai/DualPipe README, "Pipeline Bubbles and Memory Usage Comparison", PP the number of
/// stages: pp for DualPipe, 2 pp for DualPipeV), over the rank's two stages: (PP + 1) / 2.
double in_flight_microbatches(const parallel::ParallelPlan& p, int stage);

/// Bytes per parameter of the training state for a precision.
struct StateBytes {
  double weights = 2, gradients = 2, optimizer = 12;
};
StateBytes state_bytes(hardware::Precision p);
/// The same with the gradients in the dtype `g` names (GradReduce::Default: as state_bytes(p)).
StateBytes state_bytes(hardware::Precision p, scenario::GradReduce g);
/// Bytes per gradient element accumulated and data-parallel reduced: 4 for fp32 main grads
/// (bf16 and FP8 training by default, fp32 training, or GradReduce::FP32), 2 for the 16-bit one.
double grad_bytes(hardware::Precision p, scenario::GradReduce g);
/// Bytes per GEMM weight of the quantized copies Transformer Engine keeps when training in
/// `p` (0 for 16- and 32-bit training).
double fp8_weight_copy_bytes(hardware::Precision p);
/// The GEMM weights (every linear layer's, routed experts included; not embeddings, head, norms,
/// router) one GPU of pipeline stage `stage` holds: those FP8 parameters keep in FP8 only.
double stage_gemm_parameters(const scenario::Scenario& s, int stage);

}  // namespace flopcast::workload

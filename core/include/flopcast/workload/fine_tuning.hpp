#pragma once
/// Costs of fine-tuning with low-rank adapters (LoRA, Hu et al. 2021, arXiv 2106.09685) and of
/// QLoRA (Dettmers et al. 2023, arXiv 2305.14314): adapter shapes and parameters, model FLOPs,
/// the adapters' GEMM times, the NF4 dequantization, and the memory of frozen base weights.
///
/// What changes against full training (workload.hpp):
/// - every base weight is frozen: forward (2 FLOPs per weight per token) and the input-gradient
///   GEMM (2) run, the weight-gradient GEMM (2) does not; activations' gradients still flow
///   through every layer, so attention's backward is unchanged;
/// - each target GEMM gets an adapter B A (A: in x r, B: r x out) whose forward, input gradient
///   and weight gradient run (6 FLOPs per adapter weight per token);
/// - only the adapters have gradients, fp32 master weights and Adam moments, are all-reduced
///   over data parallelism and stepped by the optimizer;
/// - QLoRA stores the frozen GEMM weights in NF4 and dequantizes them to bf16 before every
///   forward and every input-gradient GEMM (bitsandbytes' MatMul4Bit, autograd/_functions.py).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/scenario/scenario.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::workload {

/// "full", "lora", "qlora".
const char* to_string(TrainingMethod m);
/// "bf16", "fp8", "nf4", "nvfp4".
const char* to_string(BaseWeights w);
std::optional<BaseWeights> parse_base_weights(std::string_view s);
/// The canonical name: "qkv", "q", "k", "v", "proj", "fc1", "gate", "up", "fc2".
const char* to_string(LoraTarget t);
std::optional<TrainingMethod> parse_training_method(std::string_view s);
/// A canonical name or a Hugging Face module name (q_proj, k_proj, v_proj, o_proj, gate_proj,
/// up_proj, down_proj) or a Megatron-core one (linear_qkv, linear_proj, linear_fc1, linear_fc2).
std::optional<LoraTarget> parse_lora_target(std::string_view s);
/// "qkv, proj, fc1, fc2": the canonical names, comma-separated.
std::string lora_target_list(const std::vector<LoraTarget>& targets);
/// Every name parse_lora_target accepts (for did-you-mean).
std::vector<std::string> lora_target_names();
/// The targets when a LoRA block names none: qkv, proj, fc1, fc2, the attention and MLP
/// projections, as NeMo 2.0's LoRA does (nemo/collections/llm/peft/lora.py, target_modules
/// default ['linear_qkv', 'linear_proj', 'linear_fc1', 'linear_fc2']).
std::vector<LoraTarget> default_lora_targets();

/// True for lora and qlora.
inline bool is_fine_tuning(const scenario::TrainingSpec& t) { return t.method != TrainingMethod::Full; }
inline bool is_fine_tuning(const scenario::Scenario& s) { return is_fine_tuning(s.training); }

/// Whether a target's base GEMM is row-parallel under tensor parallelism (Megatron-core's
/// linear_proj and linear_fc2: input split by TP); the others are column-parallel.
constexpr bool is_row_parallel(LoraTarget t) { return t == LoraTarget::Proj || t == LoraTarget::Fc2; }

/// NF4 storage per weight: 4 bits, plus one 8-bit quantized absmax per block of 64 weights and
/// one fp32 constant per 256 of those (double quantization: 8/64 + 32/(64 x 256) = 0.127 bits;
/// Dettmers et al. 2023 §3): 0.5 + 1/64 + 1/4096 B.
constexpr double kNf4BytesPerWeight = 0.5 + 1.0 / 64 + 1.0 / 4096;
/// NVFP4 storage per weight: 4 bits and one FP8 (E4M3) scale per block of 16 (the per-tensor fp32
/// scale is negligible; arXiv 2509.25149 §2): 0.5 + 1/16 B.
constexpr double kNvfp4BytesPerWeight = 0.5 + 1.0 / 16;
/// Bytes per frozen GEMM weight: 2 (bf16), 1 (fp8), kNf4BytesPerWeight, kNvfp4BytesPerWeight.
double base_weight_bytes(BaseWeights w);
/// Whether the frozen weights are cast to the GEMMs' format before each use: NF4 always
/// (bitsandbytes dequantizes to bf16); FP8 weights under a 16-bit precision; NVFP4 weights
/// under any precision but nvfp4. Weights already in the precision's format feed the GEMMs.
bool base_weights_dequantized(BaseWeights w, hardware::Precision run);

/// One adapter of one layer, whole (before any tensor-parallel split).
struct AdapterShape {
  LoraTarget target = LoraTarget::Qkv;
  double in = 0, out = 0;  ///< widths of the base GEMM's input and output
  double copies = 1;       ///< adapters of this kind in the layer (MoE: one per expert)
  double per_token = 1;    ///< of those, how many one token passes through (MoE: top_k, shared)
  bool routed = false;     ///< a routed expert's (split by etp x ep; the rest by tp)
};
/// The adapters of a layer (at most one per target, two per MLP target of an MoE layer).
struct AdapterList {
  std::array<AdapterShape, 16> items{};
  int count = 0;
  const AdapterShape* begin() const { return items.data(); }
  const AdapterShape* end() const { return items.data() + count; }
};
AdapterList adapter_shapes(const ModelSpec& m, const LoraSpec& lora, int layer);

/// Adapter parameters of one layer: r (in + out) per adapter, times its copies.
double adapter_params_of_layer(const ModelSpec& m, const LoraSpec& lora, int layer);
/// Adapter parameters of layers [first, first + n).
double adapter_params_of_layers(const ModelSpec& m, const LoraSpec& lora, int first, int n);
/// One GPU's adapter parameters for layers [first, first + n): routed experts' (split by
/// etp x ep) and the rest (split by tp).
struct LocalAdapters {
  double dense = 0, expert = 0;
  double total() const { return dense + expert; }
};
LocalAdapters local_adapter_params(const scenario::Scenario& s, int first, int n);
/// Parameters the job trains: every parameter for full training, the adapters' otherwise.
double trainable_params(const scenario::Scenario& s);

/// Model FLOPs of one step for the scenario's method (full: model_flops_per_step). For LoRA:
/// 2 x the forward FLOPs of the frozen GEMMs and the logits (forward + input gradient), 3 x
/// attention's (forward + backward), 3 x the adapters' (forward + input + weight gradients);
/// no recompute. MFU divides this, never 6N.
units::Flops training_model_flops(const scenario::Scenario& s);
/// training_model_flops plus the recomputed forward passes (full recompute: the whole forward,
/// adapters included; selective: attention).
units::Flops training_hardware_flops(const scenario::Scenario& s);
/// What "model FLOPs" counts for this scenario's method, in one sentence (reports print it beside
/// every MFU: flopcast's count, kFlopcastFlopsConvention).
std::string model_flops_convention(const scenario::Scenario& s);

/// Elements of one adapter's input on one GPU for `tokens` tokens of a micro-batch: what LoRA
/// dropout reads and writes. A row-parallel target (proj, fc2) sees its base GEMM's input split by
/// tensor parallelism; a column-parallel one (qkv, q, k, v, fc1, gate, up) the whole hidden state,
/// split along the sequence only under sequence parallelism with comm-GEMM overlap (otherwise
/// Megatron-Bridge hands it the gathered layer-norm output); a routed expert's adapter the tokens
/// routed to this GPU's experts (as the adapter GEMMs' rows in cost/fine_tuning_cost.cpp).
double adapter_input_elements(const scenario::Scenario& s, const AdapterShape& a, double tokens);

/// Bytes one layer keeps for backward beyond full training's, per micro-batch on one GPU: each
/// adapter's r-wide intermediate (B's input; A's input is the base GEMM's, kept anyway), and with
/// LoRA dropout each adapter's dropped input (A's input then, 2 B) and its 1-byte mask.
units::Bytes adapter_activation_bytes(const scenario::Scenario& s, int layer);

/// This GPU's parameters of one stage (after the TP and EP splits): all, the routed experts'
/// share of them, and the GEMM weights (experts included).
struct StageWeights {
  double dense = 0, experts = 0, gemm = 0;
};
/// Sets weights, gradients and optimizer of `mb` for a fine-tuning job: frozen base weights
/// (GEMM weights at base_weight_bytes, embeddings and norms at 2 B), sharded by ZeRO-3 / FSDP
/// over `shard` (routed experts over `expert_shard`) as the framework shards frozen parameters
/// too; adapter weights (2 B), their gradients and Adam state (state_bytes), sharded by ZeRO
/// stage as in full training.
void apply_fine_tuning_memory(const scenario::Scenario& s, const StageSlice& slice, const StageWeights& w, double shard,
                              double expert_shard, MemoryBreakdown& mb);

/// "LoRA rank 16 on qkv, proj, fc1, fc2 (44.6M adapter parameters), frozen bf16 base weights"
/// (empty for full training).
std::string fine_tuning_summary(const scenario::Scenario& s);
/// "LoRA rank 16", "QLoRA rank 64" (empty for full training).
std::string fine_tuning_label(const scenario::Scenario& s);

}  // namespace flopcast::workload

#pragma once
/// How a job trains its weights: every weight (full training), or frozen base weights with
/// low-rank adapters (LoRA, Hu et al. 2021, arXiv 2106.09685), optionally over a 4-bit NormalFloat
/// base (QLoRA, Dettmers et al. 2023, arXiv 2305.14314). Plain data; the costs are in
/// fine_tuning.hpp.
#include <vector>

namespace flopcast::workload {

/// full: every weight trained; lora: base weights frozen, rank-r adapters trained; qlora: lora
/// over NF4-quantized base weights, dequantized to bf16 for every GEMM.
enum class TrainingMethod { Full, Lora, QLora };

/// Storage of the frozen base weights: 16-bit; FP8 (E4M3 with a per-tensor scale, Transformer
/// Engine fp8_model_init); NF4 (4-bit NormalFloat with double-quantized block constants, Dettmers
/// et al. 2023 §3); NVFP4 (4-bit E2M1 with an FP8 scale per 16 values and a per-tensor fp32 one,
/// NVIDIA, "Pretraining Large Language Models with NVFP4", arXiv 2509.25149 §2).
enum class BaseWeights { BF16, FP8, NF4, NVFP4 };

/// A GEMM of a transformer layer an adapter can sit beside. Fused (qkv: Megatron-core's
/// linear_qkv; fc1: linear_fc1, gate and up together for SwiGLU) or split (q, k, v; gate, up:
/// Hugging Face's q_proj ... up_proj). proj is the attention output projection (o_proj), fc2 the
/// MLP's down projection (down_proj).
enum class LoraTarget { Qkv, Q, K, V, Proj, Fc1, Gate, Up, Fc2 };

/// The adapters of a LoRA or QLoRA job.
struct LoraSpec {
  int rank = 0;                                  ///< r: A is in x r, B is r x out
  double alpha = 0;                              ///< scaling alpha / r; no effect on cost (0 = not given)
  double dropout = 0;                            ///< probability of lora_dropout on each adapter's input (0: none)
  std::vector<LoraTarget> targets;               ///< GEMMs with an adapter, in every layer
  BaseWeights base_weights = BaseWeights::BF16;  ///< scenario key training.base_weights (or lora.base_weights)
};

}  // namespace flopcast::workload

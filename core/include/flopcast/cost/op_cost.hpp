#pragma once
/// Time of single GPU operations from their shape and the hardware: GEMMs with tile and
/// wave quantization and an HBM roofline, fused (flash) attention, memory-bound kernels,
/// and launch overhead. Efficiencies come from the calibration profile.
#include <cstdint>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/hardware/gpu_spec.hpp"

namespace flopcast::cost {

/// C[m x n] = A[m x k] B[k x n], `batch` independent instances (batched GEMM), or `batch`
/// problems of one grouped GEMM kernel (MoE experts: `grouped`, priced at the generation's
/// grouped_gemm rate).
struct GemmShape {
  double m = 0, n = 0, k = 0;
  double batch = 1;
  bool grouped = false;
  /// D = C + A B into an FP32 tensor (a weight gradient accumulated into FP32 main gradients):
  /// the epilogue reads and writes 8 bytes per output element after the main loop.
  bool accumulate_fp32 = false;
};

/// Fused attention over `batch_heads` (micro-batch x query heads) independent problems: q_len
/// queries against kv_len keys, query/key heads of head_dim, value heads of head_dim_v (0: as
/// head_dim; MLA: 192 and 128), causal or not, a sliding window of `window` keys (0: none).
struct AttentionShape {
  double batch_heads = 0;
  double q_len = 0, kv_len = 0;
  double head_dim = 0, head_dim_v = 0;
  bool causal = false;
  double window = 0;
};

/// The hardware an op runs on and the profile that calibrates it.
struct OpContext {
  const hardware::GpuSpec* gpu = nullptr;
  const compute::ComputeProfile* profile = nullptr;
  hardware::Precision precision = hardware::Precision::BF16;
};

/// Whether GEMMs in `p` are the 8-bit ones `gemm_fp8` is for (FP8, MXFP8).
bool is_8bit_gemm(hardware::Precision p);

/// The GEMM efficiency of a precision (ArchEfficiency::gemm_of).
double gemm_efficiency(const compute::ArchEfficiency& eff, hardware::Precision p);

/// GEMM time: each SM computes one output tile per wave; time = waves x tile time, where a
/// tile of (tm x tn) over depth k costs 2 tm tn k / (peak/SMs x eff(k) x tile_eff), eff(k) =
/// gemm_efficiency x k/(k + k_half) and tile_eff the tile's operand reuse against a 128x128
/// tile's. When the tiles do not fill the SMs the depth is split (split-K: each of s splits
/// computes k/s and writes an FP32 partial tile that a reduction reads back), as cuBLAS' and
/// CUTLASS's split-K and stream-K kernels do. The tile shape and split giving the least time are
/// taken (as cuBLAS' heuristics would). Bounded below by the HBM roofline of reading A and B and
/// writing C (in 16 bits for an 8- or 4-bit GEMM: Transformer Engine's GEMMs write BF16). Includes
/// one kernel launch overhead.
units::Time gemm_time(const OpContext& ctx, const GemmShape& g);

/// Keys the queries of one attention problem attend to, summed over its queries: q_len x kv_len
/// without a mask; causal, about half of it plus the half block of 128 keys each query block
/// computes whole on the diagonal (FlashAttention's tiles); with a sliding window, each query's
/// last `window` keys.
double attended_keys(const AttentionShape& a);

/// Fused attention (FlashAttention-2 on Ampere, FlashAttention-3 / cuDNN on Hopper and
/// Blackwell): 2 (head_dim + head_dim_v) FLOPs per attended key per query in the forward, 2.5x
/// that in the backward (five GEMMs against two; Dao 2023, arXiv 2307.08691), at the
/// generation's attention efficiency for the precision and direction, shortened for short key
/// ranges by attention_kv_half and for head dims below 128 (less work per loaded tile).
units::Time attention_time(const OpContext& ctx, const AttentionShape& a, bool backward);

/// Memory-bound kernel moving `bytes` through HBM, plus `kernels` launch overheads.
units::Time memory_bound_time(const OpContext& ctx, units::Bytes bytes, int kernels = 1);

/// A cast kernel quantising `elements` values of `in_bytes` each to ctx.precision (FP8 with one
/// FP32 scale per 128 values as Transformer Engine's and DeepSeek's blockwise recipes keep them,
/// MXFP8 with one E8M0 scale per 32, NVFP4 with one FP8 scale per 16), writing `outputs` copies
/// (2: row- and column-wise, as the backward's GEMMs need the transpose): memory-bound at the
/// generation's cast efficiency (ArchEfficiency::cast_of), plus one launch.
units::Time cast_time(const OpContext& ctx, double elements, double in_bytes, int outputs = 1);

/// bitsandbytes' dequantization of `elements` NF4 weights to 16 bits, in `calls` calls of
/// `functional.dequantize_4bit` (one per weight matrix): its kernel reads the packed codes (0.5 B)
/// and an fp32 absmax per block (64 weights, bitsandbytes' default), and writes 2 B, at the
/// generation's `dequant_nf4` efficiency. With double quantization (`nested`, QLoRA's setting) each call first restores
/// the fp32 absmax from its 8-bit codes (`dequantize_blockwise`: 1 B read, 4 B written per block, the same kernel
/// family) and adds their mean (`absmax += offset`, a PyTorch add): three kernels a call instead of one, the call's
/// bytes at one rate (the add moves 0.125 B a weight).
units::Time nf4_dequant_time(const OpContext& ctx, double elements, bool nested, double calls = 1,
                             double blocksize = 64);
/// The bytes nf4_dequant_time moves for `elements` weights in absmax blocks of `blocksize`.
double nf4_dequant_bytes(double elements, bool nested, double blocksize = 64);
/// The kernels one dequantize_4bit call launches: 3 with double quantization, else 1.
int nf4_dequant_kernels(bool nested);

/// Bytes of one value of `p` in a quantised tensor, its block scales included.
double quantised_bytes_per_value(hardware::Precision p);

/// Launch and host overhead of `kernels` kernels.
units::Time launch_overhead(const compute::ComputeProfile& p, int kernels);

}  // namespace flopcast::cost

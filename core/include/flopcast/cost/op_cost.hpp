#pragma once
/// Time of single GPU operations from their shape and the hardware: GEMMs with tile and
/// wave quantization and an HBM roofline, fused (flash) attention, memory-bound kernels,
/// and launch overhead. Efficiencies come from the calibration profile.
#include <cstdint>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/hardware/gpu_spec.hpp"

namespace flopcast {

/// C[m x n] = A[m x k] B[k x n], `batch` independent instances (grouped/batched GEMM).
struct GemmShape {
  double m = 0, n = 0, k = 0;
  double batch = 1;
};

/// The hardware an op runs on and the profile that calibrates it.
struct OpContext {
  const GpuSpec* gpu = nullptr;
  const ComputeProfile* profile = nullptr;
  Precision precision = Precision::BF16;
};

/// Whether GEMMs in `p` are the 8-bit ones `gemm_fp8` is for (FP8, MXFP8).
bool is_8bit_gemm(Precision p);

/// The GEMM efficiency of a precision: the profile's `gemm_fp8` for 8-bit GEMMs when the profile
/// sets it apart, its `gemm` otherwise.
double gemm_efficiency(const ArchEfficiency& eff, Precision p);

/// GEMM time: each SM computes one output tile per wave; time = waves x tile time, where a
/// tile of (tm x tn) over depth k costs 2 tm tn k / (peak/SMs x eff(k)), eff(k) =
/// gemm_efficiency x k/(k + k_half). The tile shape giving the least time is taken (as cuBLAS'
/// heuristics would). Bounded below by the HBM roofline of reading A, B and writing C.
/// Includes one kernel launch overhead.
Time gemm_time(const OpContext& ctx, const GemmShape& g);

/// Fused attention (FlashAttention-2 on Ampere, FA3-class on Hopper/Blackwell):
/// `heads` (batch x heads) instances of q_len queries against kv_len keys of head_dim.
/// Causal masking skips the blocks above the diagonal (about half). Backward does
/// 2.5x the forward's matmul FLOPs (five GEMMs against two; Dao 2023, arXiv 2307.08691).
Time attention_time(const OpContext& ctx, double heads, double q_len, double kv_len, double head_dim, bool causal,
                    bool backward);

/// Memory-bound kernel moving `bytes` through HBM, plus `kernels` launch overheads.
Time memory_bound_time(const OpContext& ctx, Bytes bytes, int kernels = 1);

/// Launch and host overhead of `kernels` kernels.
Time launch_overhead(const ComputeProfile& p, int kernels);

}  // namespace flopcast

#pragma once
/// The calibration profile: every efficiency coefficient of the compute and communication
/// model, in one place (data/profiles/default.yaml), with its provenance. The code holds no
/// per-run fudge factors; `flopcast calibrate` fits these on measured runs.
#include <array>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "flopcast/compute/prediction_band.hpp"
#include "flopcast/hardware/gpu_spec.hpp"

namespace flopcast::compute {

/// A coefficient that takes another's value until it is given or fitted (ArchEfficiency).
inline constexpr double kTied = std::numeric_limits<double>::quiet_NaN();
/// The bounds calibrate fits a collective floor within, shared or a generation's, microseconds: a
/// collective of any size on NVLink or InfiniBand starts within a few tens of us (NCCL tuning.cc
/// base latencies are 6.6-14 us); a floor above 200 us would be a broken system, not a latency.
inline constexpr double kCollectiveLatencyFitMaxUs = 200.0;
/// The largest collective floor a profile file may state, shared or a generation's, microseconds:
/// five times the fit's bound, so that a profile written by hand for a slower network than any
/// measured here is read, while a floor given in nanoseconds (20 us written as 20000) is refused.
inline constexpr double kCollectiveLatencyMaxUs = 1000.0;

/// Efficiencies of one GPU family: each a fraction of a datasheet peak that a kind of kernel
/// reaches on it, fitted on published kernel measurements (data/calibration/kernels-2026.yaml)
/// by `flopcast calibrate`. A coefficient written NaN is tied: it takes the value of the one it
/// falls back to (named in its comment) until a profile gives it or calibrate fits it.
struct ArchEfficiency {
  /// Fraction of the dense tensor-core peak a large, well-shaped 16-bit (or TF32) GEMM reaches.
  double gemm = 0.80;
  /// Fraction of the dense 16-bit peak fused (flash) attention reaches in its forward pass, at
  /// long sequences (attention_kv_half shortens it) and head dims of 128 or more.
  double flash_attention = 0.55;
  /// Fraction of HBM peak bandwidth reached by memory-bound elementwise/norm kernels.
  double hbm = 0.75;
  /// Fraction of the 8-bit dense tensor-core peak a large 8-bit GEMM (FP8, MXFP8) reaches, used
  /// only when `fp8_apart`: an FP8 kernel may reach another fraction of its peak than a BF16
  /// kernel of its own (Transformer Engine runs the linear layers' GEMMs in 8 bits). Tied (not
  /// apart), an 8-bit GEMM reaches `gemm`, and calibrating `gemm` moves both. A profile that
  /// gives `gemm_fp8` sets it apart; `calibrate` sets it apart when it fits it. Last, so that
  /// ArchEfficiency{gemm, flash_attention, hbm} reads as before.
  double gemm_fp8 = 0.80;
  bool fp8_apart = false;
  /// Fraction of the 4-bit dense peak a large 4-bit GEMM (NVFP4, FP4) reaches (NaN: as 8-bit).
  double gemm_fp4 = kTied;
  /// Rate of a grouped GEMM (MoE experts: one kernel over many GEMMs) relative to a dense GEMM of
  /// the same tiles (1: as fast).
  double grouped_gemm = 1.0;
  /// The same for 8- and 4-bit grouped GEMMs (FP8, MXFP8, NVFP4 experts; NaN: grouped_gemm): their
  /// kernels are not the 16-bit ones (DeepGEMM's and CUTLASS's block-scaled grouped GEMMs against
  /// PyTorch's `torch._grouped_mm`), and their published rates differ.
  double grouped_gemm_fp8 = kTied;
  /// Fused attention's backward, fraction of the 16-bit peak (NaN: flash_attention).
  double flash_attention_bwd = kTied;
  /// 8-bit fused attention (per-tensor-scaled FP8) forward, fraction of the 8-bit peak (NaN:
  /// flash_attention).
  double attention_fp8 = kTied;
  /// 8-bit fused attention's backward (NaN: the 16-bit backward's coefficient).
  double attention_fp8_bwd = kTied;
  /// Block-scaled (MXFP8) fused attention forward, fraction of the 8-bit peak (NaN: attention_fp8).
  /// Another kernel than per-tensor FP8's: it computes a scale per 32 elements of each tile it
  /// quantises inside the loop (P before P.V; in the backward also dP and dS, and P and dS again
  /// along the other axis for the dV and dK products, whose reduction runs over the queries), on
  /// the same CUDA cores and special-function units that already hold the tensor cores idle
  /// between attention's two products. cuDNN's published SDPA tables on GB200 and GB300
  /// (data/calibration/kernels-2026.yaml) read MXFP8 5-14% slower forward and 14-34% slower
  /// backward than FP8 at the same shapes. Blackwell's generations only (block-scaled MMA).
  double attention_mxfp8 = kTied;
  /// Block-scaled (MXFP8) fused attention's backward (NaN: attention_fp8_bwd).
  double attention_mxfp8_bwd = kTied;
  /// Fraction of HBM bandwidth the NVFP4 cast kernels reach (quantising with the random Hadamard
  /// transform and 2D block scales of the NVFP4 recipe; NaN: hbm).
  double cast_fp4 = kTied;
  /// Fraction of HBM bandwidth bitsandbytes' 4-bit dequantization kernel reaches (NF4 to 16-bit,
  /// `kDequantizeBlockwise`: QLoRA's frozen weights before each GEMM; NaN: hbm). Its own
  /// coefficient because the kernel decodes each 4-bit code through a table per thread and is
  /// far from a streaming copy (docs/fine-tuning.md).
  double dequant_nf4 = kTied;
  /// Added to every collective's and send/recv's time on this generation, microseconds: its own
  /// floor under small messages (ComputeProfile::collective_latency_us, which it falls back to
  /// when NaN). A generation of its own because the floor a measured system shows is NCCL's
  /// launch and synchronisation path of that system's era, not the links': nccl-tests on
  /// A100 nodes (vTrain's artifact) sit ~30 us above NCCL's latency model at 1 MiB, H100, H200,
  /// GB200 and B200 nodes measured in 2024-2026 about 10 us (data/calibration/kernels-2026.yaml).
  double collective_latency_us = kTied;
  /// Fraction of the kernel benchmarks' tensor-core rate a GPU keeps through a training step: a
  /// benchmark times one kernel at the boost clock, a step runs kernels back to back for hours at
  /// the clock the board's power and temperature limits allow (NVIDIA's datasheets state peaks at
  /// the boost clock). Whole-step glue: fitted on measured runs, never on kernel measurements
  /// (which predict with 1). 1: the benchmark rate.
  double sustained_clock = 1.0;

  /// The GEMM efficiency of a precision (gemm, gemm_fp8 when apart, gemm_fp4).
  double gemm_of(hardware::Precision p) const;
  /// A grouped GEMM's rate relative to a dense one's, for a precision (grouped_gemm_fp8 for 8 and
  /// 4 bits unless tied).
  double grouped_of(hardware::Precision p) const;
  /// The fused-attention efficiency of a precision and direction.
  double attention_of(hardware::Precision p, bool backward) const;
  /// The fraction of HBM bandwidth a cast kernel producing `p` reaches.
  double cast_of(hardware::Precision p) const;
  /// The fraction of HBM bandwidth bitsandbytes' NF4 dequantization reaches (dequant_nf4, else hbm).
  double nf4_dequant() const;
};

/// All calibrated coefficients.
struct ComputeProfile {
  std::array<ArchEfficiency, hardware::kGpuArchCount> arch{};  ///< indexed by GpuArch
  /// Reduction depth K at which GEMM efficiency halves: eff(K) = eff * K / (K + k_half), a per-tile
  /// cost in units of K (physical range 0..512). The shipped profile holds it at 0: the exposed
  /// epilogue below stands for that cost.
  double gemm_k_half = 64.0;
  /// The share of a GEMM tile's output write that the next tile's math does not hide, on the
  /// generations that accumulate in registers (Ampere, Hopper, Ada; hardware::
  /// accumulates_in_tensor_memory): the epilogue (the accumulator converted and stored through
  /// shared memory) runs after the tile's last MMA on the warps that hold the accumulator, and a
  /// second warpgroup's main loop covers it only in part. Charged as that share of the output
  /// bytes at the HBM rate on top of the math (op_cost.cpp, gemm_time); 0: hidden whole.
  double gemm_epilogue_exposed = 0.0;
  /// Keys per query at which fused attention's efficiency halves: eff(kv) = eff * kv / (kv +
  /// kv_half), kv the mean number of keys a query block attends to (the per-tile prologue and
  /// epilogue of FlashAttention's loop over key blocks, and the softmax rescaling it amortises).
  /// 0: no such loss.
  double attention_kv_half = 0.0;
  /// GPU-side cost of each kernel (launch gap between back-to-back kernels, prologue),
  /// microseconds; added to every kernel.
  double kernel_overhead_us = 6.0;
  /// What an isolated kernel benchmark adds to one kernel's time beyond the in-stream gap
  /// (kernel_overhead_us): the launch latency and the timing events around a single call,
  /// microseconds. Kernel measurements are predicted with it; a training step's kernels, queued
  /// back to back, do not pay it.
  double benchmark_overhead_us = 0.0;
  /// Host (CPU) time to issue one kernel from the framework (PyTorch eager dispatch, Python),
  /// microseconds. The GPU cannot start a kernel before the host has issued it, and the host
  /// runs ahead only while kernels are longer than this: a stage's forward (or backward) of one
  /// micro-batch takes max(device time, kernels x host_overhead_us) (core/estimate). It
  /// dominates small micro-batches and wide tensor parallelism, where kernels are short.
  double host_overhead_us = 0.0;
  /// Host overhead per micro-batch per pipeline stage (framework scheduling, data loading,
  /// Python dispatch outside the kernels), ms.
  double microbatch_overhead_ms = 2.0;
  /// Fixed per-iteration host overhead (data loader, logging, optimizer bookkeeping), ms.
  double iteration_overhead_ms = 20.0;
  /// Achieved fraction of a NIC's line rate for large transfers (HDR: 24 of 25 GB/s,
  /// sjeaugey in NVIDIA/nccl#412).
  double nic_efficiency = 0.96;
  /// Achieved fraction of NCCL's effective NVLink bandwidth for ring collectives
  /// (A100: ~230 of 240 GB/s measured, NVIDIA/nccl-tests#149).
  double nvlink_efficiency = 0.96;
  /// Added to every collective's and send/recv's time, microseconds: the launch and
  /// synchronisation cost that NCCL's latency model (tuning.cc) leaves out and that a measured
  /// system shows as a floor under small messages. 0 = NCCL's model alone. Fitted by
  /// `calibrate` on nccl-tests points that give a message size (docs/calibration.md). A
  /// generation with a floor of its own (ArchEfficiency::collective_latency_us) uses that.
  double collective_latency_us = 0.0;
  /// Fraction of NVLink's one-way bandwidth MoE dispatch and combine kernels reach (DeepEP: 153-158
  /// of H800's ~160-200 GB/s; deepseek-ai/DeepEP README), and of a NIC's line rate too unless
  /// dispatch_rdma_efficiency is given. Fitted on the dispatch and combine measurements.
  double dispatch_efficiency = 0.80;
  /// The same over RDMA (the scale-out NIC's line rate), apart: NVLink's and the NIC's protocols
  /// and the kernels' chunking differ (DeepEP's normal kernels: 43-58 GB/s of 50 across nodes
  /// against 153-158 of ~160-200 inside one). 0: as dispatch_efficiency (a profile from before).
  double dispatch_rdma_efficiency = 0.0;
  /// What one SM of a dispatch kernel moves, GB/s: DeepEP runs on a fixed SM budget (20-24 by
  /// default), whose copy rate can cap it below the links' (0: no cap).
  double dispatch_sm_gbps = 30.0;
  /// What one token copy costs an SM of a warp-copy dispatch kernel beyond its bytes, ns: DeepEP's
  /// normal kernels move each token with one warp, the even SMs of a channel sending and the odd
  /// ones receiving, and copy its top-k indices, weights and scales beside it
  /// (csrc/kernels/legacy/intranode.cu, UNROLLED_WARP_COPY per token), so a token's copy waits
  /// on memory latency as well as bandwidth. Hybrid-EP's TMA copies do not pay it (0: none).
  double dispatch_copy_ns = 0.0;

  /// Memory reserved outside the model: CUDA context, cuBLAS and NCCL workspaces, GiB.
  double workspace_gib = 2.0;
  /// Allocator fragmentation allowance as a fraction of the tensors' bytes.
  double fragmentation = 0.05;

  std::string name = "built-in";
  std::string provenance;  ///< how the profile was made (command, data)
  /// Per generation (indexed by GpuArch), how many measured runs its coefficients were fitted
  /// on: 0 = prior only (no run on that generation), -1 = not recorded (a profile written by hand).
  std::array<int, hardware::kGpuArchCount> fitted_runs{-1, -1, -1, -1, -1};
  /// Per generation, whether the profile states its coefficients itself (its YAML has the
  /// generation's key, or calibrate fitted them). A generation that is not listed and has a
  /// coefficient_stand_in() (gpu_spec.hpp) takes the stand-in's coefficients and counts as
  /// fitted on no run (fill_stand_ins). Ampere, Hopper and Blackwell are always listed: every
  /// profile has carried them, with the defaults above when it says nothing.
  std::array<bool, hardware::kGpuArchCount> listed{true, true, true, false, false};
  /// Coefficients `calibrate` keeps at their values unless asked for by --param (names from
  /// profile_parameters()); which ones, and why, is decided by cross-validation
  /// (docs/calibration.md).
  std::vector<std::string> held;
  /// Coefficients the kernel stage of `calibrate` fitted on kernel and collective measurements
  /// (it holds them for the run stage): kernel cross-validation fits them again on each fold.
  std::vector<std::string> kernel_fitted;
  /// Cross-validated residual quantiles per generation and regime (fitted data, written by
  /// `flopcast calibrate --cv source -o`): the prediction bands (prediction_band.hpp). Empty:
  /// predictions carry no band.
  std::vector<BandQuantiles> bands;
  std::string bands_provenance;  ///< the command and data the quantiles come from

  ArchEfficiency& of(hardware::GpuArch a) { return arch[static_cast<std::size_t>(a)]; }
  const ArchEfficiency& of(hardware::GpuArch a) const { return arch[static_cast<std::size_t>(a)]; }
  /// The generation whose coefficients `a` runs on: its stand-in when the profile does not list
  /// `a`, else `a` itself.
  hardware::GpuArch coefficients_of(hardware::GpuArch a) const {
    const auto stand_in = hardware::coefficient_stand_in(a);
    return stand_in && !listed[static_cast<std::size_t>(a)] ? *stand_in : a;
  }
  /// The per-collective floor on generation `a`: the collective_latency_us of the generation it
  /// runs on (coefficients_of: its stand-in's where the profile does not list it), else the
  /// shared collective_latency_us.
  double collective_latency_of(hardware::GpuArch a) const;
  /// Whether generation `a` takes the shared collective_latency_us (collective_latency_of).
  bool collective_latency_shared(hardware::GpuArch a) const;
  /// Copies each unlisted generation's coefficients from its stand-in and sets its fitted_runs
  /// to 0 (prior only: no measured runs of that generation). Loading and calibrating call it
  /// last, so that a stand-in always holds the coefficients of the profile it is in.
  void fill_stand_ins();
};

static_assert(hardware::kGpuArchCount == 5, "fitted_runs and listed have one initialiser per GpuArch");

/// A fitted coefficient: name in the profile YAML, bounds that keep it physical.
struct ProfileParameter {
  std::string name;  ///< e.g. "ampere.gemm", "gemm_k_half"
  double lower = 0;
  double upper = 1;
  std::function<double*(ComputeProfile&)> slot;
  /// The value a tied coefficient (NaN in its slot) stands at: what fitting it starts from. Unset
  /// for a coefficient that is never tied.
  std::function<double(const ComputeProfile&)> tied_value;
  /// The coefficient a tied one falls back to ("hopper.flash_attention" for
  /// "hopper.flash_attention_bwd"); empty for one that is never tied.
  std::string tied_to;
  /// The coefficient's value in `p`, tied or not.
  double value(const ComputeProfile& p) const;
};

/// The coefficients `calibrate` may fit, with their physical bounds.
const std::vector<ProfileParameter>& profile_parameters();

}  // namespace flopcast::compute

#include "flopcast/compute/compute_profile.hpp"

namespace flopcast {

const std::vector<ProfileParameter>& profile_parameters() {
  // Bounds keep each coefficient physical: an efficiency is a fraction of a datasheet peak
  // and no higher than the best measured (cuBLAS reaches ~90% of A100/H100 dense peak on
  // large GEMMs; STREAM-like kernels ~92% of HBM; NCCL reaches 24 of 25 GB/s per HDR NIC,
  // NVIDIA/nccl#412, and ~230 of 240 GB/s NCCL-effective NVLink on A100, nccl-tests#149);
  // fused attention is bounded below by FlashAttention-2's worst published case (~35-40% of
  // A100 peak for small head dims, Dao 2023 arXiv 2307.08691 Fig. 4-7) and above by 90%;
  // overheads are non-negative and below what a profiler would ever show for one kernel.
  static const std::vector<ProfileParameter> params = {
      {"ampere.gemm", 0.30, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Ampere).gemm; }},
      {"ampere.flash_attention", 0.35, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Ampere).flash_attention; }},
      {"ampere.hbm", 0.30, 0.92, [](ComputeProfile& p) { return &p.of(GpuArch::Ampere).hbm; }},
      {"hopper.gemm", 0.30, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Hopper).gemm; }},
      // 8-bit GEMMs of their own dense peak (FP8 on Hopper, FP8 and MXFP8 on Blackwell): the same
      // physical bounds, fitted only on runs in those precisions.
      {"hopper.gemm_fp8", 0.30, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Hopper).gemm_fp8; }},
      {"hopper.flash_attention", 0.35, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Hopper).flash_attention; }},
      {"hopper.hbm", 0.30, 0.92, [](ComputeProfile& p) { return &p.of(GpuArch::Hopper).hbm; }},
      // Blackwell: the same physical bounds (fractions of the datasheet's dense peaks and HBM
      // bandwidth); fitted on the B200 and GB200 runs of the calibration files.
      {"blackwell.gemm", 0.30, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Blackwell).gemm; }},
      {"blackwell.gemm_fp8", 0.30, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Blackwell).gemm_fp8; }},
      {"blackwell.flash_attention", 0.35, 0.90,
       [](ComputeProfile& p) { return &p.of(GpuArch::Blackwell).flash_attention; }},
      {"blackwell.hbm", 0.30, 0.92, [](ComputeProfile& p) { return &p.of(GpuArch::Blackwell).hbm; }},
      // Blackwell Ultra (B300, GB300) and Ada (L40S, L20, RTX 4090): the same physical bounds;
      // fitted only when runs on those generations are given. Without them a profile carries
      // the stand-in generation's values (coefficient_stand_in, fill_stand_ins).
      {"blackwell_ultra.gemm", 0.30, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::BlackwellUltra).gemm; }},
      {"blackwell_ultra.gemm_fp8", 0.30, 0.90,
       [](ComputeProfile& p) { return &p.of(GpuArch::BlackwellUltra).gemm_fp8; }},
      {"blackwell_ultra.flash_attention", 0.35, 0.90,
       [](ComputeProfile& p) { return &p.of(GpuArch::BlackwellUltra).flash_attention; }},
      {"blackwell_ultra.hbm", 0.30, 0.92, [](ComputeProfile& p) { return &p.of(GpuArch::BlackwellUltra).hbm; }},
      {"ada.gemm", 0.30, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Ada).gemm; }},
      // Ada has FP8 tensor cores (NVIDIA Ada Lovelace architecture whitepaper: fourth-generation
      // tensor cores with the FP8 Transformer Engine), so an 8-bit GEMM coefficient of its own.
      {"ada.gemm_fp8", 0.30, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Ada).gemm_fp8; }},
      {"ada.flash_attention", 0.35, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Ada).flash_attention; }},
      {"ada.hbm", 0.30, 0.92, [](ComputeProfile& p) { return &p.of(GpuArch::Ada).hbm; }},
      {"gemm_k_half", 0.0, 512.0, [](ComputeProfile& p) { return &p.gemm_k_half; }},
      {"kernel_overhead_us", 0.0, 50.0, [](ComputeProfile& p) { return &p.kernel_overhead_us; }},
      // Host dispatch per kernel (PyTorch blog, "Accelerating PyTorch with CUDA Graphs", 2021:
      // CPU launch overhead is why small kernels leave the GPU idle). Fitted: ~44 us per
      // counted kernel on vTrain's runs (docs/calibration.md); bounded at 100 us, above which
      // a GPU framework would be unusable for any model.
      {"host_overhead_us", 0.0, 100.0, [](ComputeProfile& p) { return &p.host_overhead_us; }},
      {"microbatch_overhead_ms", 0.0, 200.0, [](ComputeProfile& p) { return &p.microbatch_overhead_ms; }},
      {"iteration_overhead_ms", 0.0, 500.0, [](ComputeProfile& p) { return &p.iteration_overhead_ms; }},
      {"nic_efficiency", 0.30, 0.96, [](ComputeProfile& p) { return &p.nic_efficiency; }},
      {"nvlink_efficiency", 0.30, 0.96, [](ComputeProfile& p) { return &p.nvlink_efficiency; }},
      // Bounded at 200 us: a collective of any size on NVLink or InfiniBand starts within a few
      // tens of us (NCCL tuning.cc base latencies are 6.6-14 us); a floor above
      // 200 us would be a broken system, not a latency.
      {"collective_latency_us", 0.0, 200.0, [](ComputeProfile& p) { return &p.collective_latency_us; }},
  };
  return params;
}

void ComputeProfile::fill_stand_ins() {
  for (GpuArch a : kGpuArchs) {
    const auto i = static_cast<std::size_t>(a);
    if (listed[i] || !coefficient_stand_in(a)) continue;
    arch[i] = of(*coefficient_stand_in(a));
    fitted_runs[i] = 0;
  }
}

}  // namespace flopcast

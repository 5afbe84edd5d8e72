#include "flopcast/compute/compute_profile.hpp"

namespace flopcast {

const std::vector<ProfileParameter>& profile_parameters() {
  // Bounds keep each coefficient physical: an efficiency is a fraction of a datasheet peak;
  // overheads are non-negative and below what a profiler would ever show for one kernel.
  static const std::vector<ProfileParameter> params = {
      {"ampere.gemm", 0.30, 0.95, [](ComputeProfile& p) { return &p.of(GpuArch::Ampere).gemm; }},
      {"ampere.flash_attention", 0.15, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Ampere).flash_attention; }},
      {"ampere.hbm", 0.30, 0.95, [](ComputeProfile& p) { return &p.of(GpuArch::Ampere).hbm; }},
      {"hopper.gemm", 0.30, 0.95, [](ComputeProfile& p) { return &p.of(GpuArch::Hopper).gemm; }},
      {"hopper.flash_attention", 0.15, 0.90, [](ComputeProfile& p) { return &p.of(GpuArch::Hopper).flash_attention; }},
      {"hopper.hbm", 0.30, 0.95, [](ComputeProfile& p) { return &p.of(GpuArch::Hopper).hbm; }},
      {"gemm_k_half", 0.0, 512.0, [](ComputeProfile& p) { return &p.gemm_k_half; }},
      {"kernel_overhead_us", 0.0, 50.0, [](ComputeProfile& p) { return &p.kernel_overhead_us; }},
      {"iteration_overhead_ms", 0.0, 500.0, [](ComputeProfile& p) { return &p.iteration_overhead_ms; }},
      {"nic_efficiency", 0.30, 1.0, [](ComputeProfile& p) { return &p.nic_efficiency; }},
      {"nvlink_efficiency", 0.30, 1.0, [](ComputeProfile& p) { return &p.nvlink_efficiency; }},
  };
  return params;
}

}  // namespace flopcast

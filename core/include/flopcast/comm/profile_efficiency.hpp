#pragma once
/// The collective model's knobs that a calibration profile sets (one place for the step
/// estimate, `validate`, `calibrate` and `collective`).
#include "flopcast/comm/comm_model.hpp"
#include "flopcast/compute/compute_profile.hpp"

namespace flopcast::comm {

/// The profile's link efficiencies (fractions of NCCL's effective NVLink figure and of the NIC
/// line rate) and its per-collective latency on generation `arch`, as CommModel efficiencies.
inline CommEfficiency comm_efficiency(const compute::ComputeProfile& p, hardware::GpuArch arch) {
  CommEfficiency e;
  e.nvlink_fraction = p.nvlink_efficiency;
  e.nic_fraction = p.nic_efficiency;
  e.extra_latency_us = p.collective_latency_of(arch);
  return e;
}

}  // namespace flopcast::comm

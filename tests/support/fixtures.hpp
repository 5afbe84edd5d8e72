#pragma once
/// Hardware fixtures shared by the unit tests and bench/: GPUs and 8-GPU nodes built from the
/// sourced figures (keys of docs/references.md) rather than read from
/// data/, so expected numbers do not move when the catalog or the calibration changes.
/// Header-only; include it inside a test's or bench's translation unit.
#include "flopcast/hardware/gpu_spec.hpp"

namespace flopcast::fixtures {

/// A GPU with only what the communication and topology models read (NCCL topo.h): NCCL-effective
/// NVLink bandwidth = links x NCCL's per-link constant (topo.h SM80 20, SM90 20.6, SM100 40.1
/// GB/s), and whether NVLink SHARP (NVLS) is available.
inline hardware::GpuSpec nvlink_gpu(const char* name, hardware::GpuArch arch, int links, double nccl_gbs, bool nvls) {
  hardware::GpuSpec g;
  g.name = name;
  g.arch = arch;
  g.nvlink_links = links;
  g.nccl_nvlink = units::Bandwidth::from_gbytes_per_s(nccl_gbs);
  g.nvls = nvls;
  return g;
}
/// A100 SXM: 12 links x 20 GB/s = 240 GB/s, no NVLS.
inline hardware::GpuSpec a100_nvlink() { return nvlink_gpu("A100-80G", hardware::GpuArch::Ampere, 12, 240.0, false); }
/// H100 SXM: 18 links x 20.6 GB/s = 370.8 GB/s, NVLS.
inline hardware::GpuSpec h100_nvlink() { return nvlink_gpu("H100", hardware::GpuArch::Hopper, 18, 370.8, true); }
/// H800: 8 links x 20.6 GB/s = 164.8 GB/s, NVLS.
inline hardware::GpuSpec h800_nvlink() { return nvlink_gpu("H800", hardware::GpuArch::Hopper, 8, 164.8, true); }
/// GB200: 18 links x 40.1 GB/s = 721.8 GB/s, NVLS.
inline hardware::GpuSpec gb200_nvlink() { return nvlink_gpu("GB200", hardware::GpuArch::Blackwell, 18, 721.8, true); }

/// 8-GPU NVSwitch nodes on InfiniBand with `nics` NICs of `gbps` each (DGX A100 has
/// 8 x HDR 200 Gb/s, ISS nccl#812; DGX H100 8 x NDR 400 Gb/s, NV-BASEPOD), leaf-to-spine `oversubscription`.
inline hardware::FabricSpec node8(double gbps, int nics = 8, double oversubscription = 1.0) {
  hardware::FabricSpec f;
  f.gpus_per_node = 8;
  f.nvlink_domain = 8;
  f.intra = hardware::IntraNode::NVSwitch;
  f.kind = hardware::NetKind::InfiniBand;
  f.nic_gbps = gbps;
  f.nics_per_node = nics;
  f.oversubscription = oversubscription;
  return f;
}

}  // namespace flopcast::fixtures

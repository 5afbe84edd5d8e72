#include "flopcast/hardware/gpu_spec.hpp"

#include <string_view>

namespace flopcast::hardware {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::FP32:
      return "fp32";
    case Precision::TF32:
      return "tf32";
    case Precision::FP16:
      return "fp16";
    case Precision::BF16:
      return "bf16";
    case Precision::FP8:
      return "fp8";
    case Precision::FP4:
      return "fp4";
    case Precision::MXFP8:
      return "mxfp8";
    case Precision::NVFP4:
      return "nvfp4";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view s) {
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16, Precision::FP8,
                      Precision::FP4, Precision::MXFP8, Precision::NVFP4}) {
    if (s == to_string(p)) return p;
  }
  return std::nullopt;
}

double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::FP32:
    case Precision::TF32:
      return 4.0;
    case Precision::FP16:
    case Precision::BF16:
      return 2.0;
    case Precision::FP8:
    case Precision::MXFP8:
      return 1.0;
    case Precision::FP4:
    case Precision::NVFP4:
      return 0.5;
  }
  return 2.0;
}

const char* to_string(GpuArch a) {
  switch (a) {
    case GpuArch::Ampere:
      return "ampere";
    case GpuArch::Hopper:
      return "hopper";
    case GpuArch::Blackwell:
      return "blackwell";
    case GpuArch::BlackwellUltra:
      return "blackwell_ultra";
    case GpuArch::Ada:
      return "ada";
  }
  return "?";
}

std::optional<GpuArch> parse_gpu_arch(std::string_view s) {
  for (GpuArch a : kGpuArchs) {
    if (s == to_string(a)) return a;
  }
  return std::nullopt;
}

std::vector<std::string> gpu_arch_names() {
  std::vector<std::string> v;
  for (GpuArch a : kGpuArchs) v.emplace_back(to_string(a));
  return v;
}

int compute_capability(GpuArch a) {
  switch (a) {
    case GpuArch::Ampere:
      return 80;
    case GpuArch::Hopper:
      return 90;
    case GpuArch::Blackwell:
      return 100;
    case GpuArch::BlackwellUltra:
      return 103;
    case GpuArch::Ada:
      return 89;
  }
  return 80;
}

const char* to_string(NetKind k) {
  switch (k) {
    case NetKind::InfiniBand:
      return "infiniband";
    case NetKind::RoCE:
      return "roce";
    case NetKind::Ethernet:
      return "ethernet";
  }
  return "?";
}

std::optional<NetKind> parse_net_kind(std::string_view s) {
  for (NetKind k : {NetKind::InfiniBand, NetKind::RoCE, NetKind::Ethernet}) {
    if (s == to_string(k)) return k;
  }
  return std::nullopt;
}

double nccl_pcie_gbs(int generation, int lanes) {
  static constexpr double kPerLane100Mbps[] = {15, 30, 60, 120, 240, 480};  // Gen1..Gen6, topo.cc kvDictPciGen
  if (generation < 1 || generation > 6 || lanes < 1) return 0.0;
  return lanes * kPerLane100Mbps[generation - 1] / 80.0;
}

const char* to_string(HostCpu c) {
  switch (c) {
    case HostCpu::Unstated:
      return "";
    case HostCpu::IntelSkylake:
      return "intel-skylake";
    case HostCpu::IntelSapphireRapids:
      return "intel-sapphire-rapids";
    case HostCpu::IntelEmeraldRapids:
      return "intel-emerald-rapids";
    case HostCpu::Amd:
      return "amd";
    case HostCpu::Arm:
      return "arm";
  }
  return "?";
}

std::optional<HostCpu> parse_host_cpu(std::string_view s) {
  for (HostCpu c :
       {HostCpu::IntelSkylake, HostCpu::IntelSapphireRapids, HostCpu::IntelEmeraldRapids, HostCpu::Amd, HostCpu::Arm})
    if (s == to_string(c)) return c;
  return std::nullopt;
}

double nccl_inter_socket_gbs(HostCpu c) {
  switch (c) {
    case HostCpu::Unstated:
      return 0.0;
    case HostCpu::IntelSkylake:
      return 10.0;
    case HostCpu::IntelSapphireRapids:
      return 22.0;
    case HostCpu::IntelEmeraldRapids:
      return 40.0;
    case HostCpu::Amd:
      return 16.0;
    case HostCpu::Arm:
      return 6.0;
  }
  return 0.0;
}

}  // namespace flopcast::hardware

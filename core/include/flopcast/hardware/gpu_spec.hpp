#pragma once
/// GPU catalog entry (data/gpus.yaml). Every figure is a dense, one-way datasheet figure.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/units/units.hpp"

namespace flopcast::hardware {

/// Numeric formats for tensor-core math. FP8 is per-tensor scaled FP8 (Hopper and later);
/// MXFP8 and NVFP4 are Blackwell's block-scaled formats (OCP Microscaling: 8-bit elements with
/// one E8M0 scale per 32; NVIDIA's FP4 with one FP8 scale per 16 elements), which Blackwell's
/// tensor cores take directly (PTX ISA, tcgen05.mma .kind::mxf8f6f4 and .kind::mxf4nvf4).
enum class Precision { FP32, TF32, FP16, BF16, FP8, FP4, MXFP8, NVFP4 };

/// "fp32", "bf16", ...
const char* to_string(Precision p);
/// Parses "fp16" etc.; nullopt when unknown.
std::optional<Precision> parse_precision(std::string_view s);
/// Bytes of one element of a 16/8/4-bit or 32-bit tensor of that precision (block scales not
/// counted: they add 1/32 byte per MXFP8 element and 1/16 per NVFP4 element).
double bytes_per_element(Precision p);

/// GPU micro-architecture family; the calibration profile keys efficiencies by it. New
/// generations are appended, so that the index of each (profile arrays, bands) stays.
/// BlackwellUltra: B300 and GB300 (compute capability 10.3); Ada: L40S, L20, RTX 4090 (8.9).
enum class GpuArch { Ampere, Hopper, Blackwell, BlackwellUltra, Ada };
/// Number of GpuArch values: the size of every array indexed by a generation.
inline constexpr std::size_t kGpuArchCount = 5;
/// Every generation, in index order (loops over generations use this, not a hand-written list).
inline constexpr std::array<GpuArch, kGpuArchCount> kGpuArchs{GpuArch::Ampere, GpuArch::Hopper, GpuArch::Blackwell,
                                                              GpuArch::BlackwellUltra, GpuArch::Ada};
static_assert(static_cast<std::size_t>(GpuArch::Ada) + 1 == kGpuArchCount, "kGpuArchCount counts every GpuArch");
/// "ampere", "hopper", "blackwell", "blackwell_ultra", "ada": the profile's and catalog's keys.
const char* to_string(GpuArch a);
std::optional<GpuArch> parse_gpu_arch(std::string_view s);
/// The keys of every generation, in index order ("ampere", ..., "ada").
std::vector<std::string> gpu_arch_names();
/// CUDA compute capability x 10 of the generation's parts in the catalog (NVIDIA, "CUDA GPU
/// Compute Capability", developer.nvidia.com/cuda-gpus: A100 8.0, H100/H200 9.0, B200/GB200 10.0,
/// B300/GB300 10.3, L40S and GeForce RTX 4090 8.9). NCCL keys its tuning on it (tuning.cc,
/// search.cc, topo.h compare `minCompCap`/`ccMin` against 80, 90, 100).
int compute_capability(GpuArch a);
/// The generation whose calibrated coefficients (and prediction band) stand in for `a` when a
/// profile gives none of its own, or nullopt for a generation every profile must carry. Blackwell
/// Ultra takes Blackwell's: the same SM design and tensor-core instructions (tcgen05; compute
/// capability 10.3 against 10.0). Ada takes Ampere's, not Hopper's: Ada's tensor cores run the
/// warp-level mma.sync kernels Ampere runs (PTX ISA: wgmma.mma_async exists on sm_90a only;
/// cuBLAS, CUTLASS and FlashAttention-2 use their Ampere (sm_80) kernel families on sm_89, and
/// FlashAttention-3, the Hopper kernel, does not run on Ada).
/// Inline: every op cost asks it (through ComputeProfile::coefficients_of).
constexpr std::optional<GpuArch> coefficient_stand_in(GpuArch a) {
  switch (a) {
    case GpuArch::BlackwellUltra:
      return GpuArch::Blackwell;
    case GpuArch::Ada:
      return GpuArch::Ampere;
    case GpuArch::Ampere:
    case GpuArch::Hopper:
    case GpuArch::Blackwell:
      return std::nullopt;
  }
  return std::nullopt;
}

/// Whether the generation's tensor cores accumulate in tensor memory rather than in registers:
/// Blackwell's tcgen05 MMAs write their accumulator to TMEM (512 columns of 128 lanes per SM), so a
/// persistent GEMM keeps two accumulators there and its epilogue drains one while the MMAs fill the
/// other (CUTLASS, "Utilities for SM100": "After the MMA, the accumulator lives in TMEM";
/// Triton's Gluon example "Overlapping Accumulator": double-buffered BLOCK_N = 256 accumulators in
/// TMEM's 512 columns). Ampere's mma.sync and Hopper's wgmma accumulate in the warps' registers,
/// which the epilogue must drain before those warps start their next tile.
constexpr bool accumulates_in_tensor_memory(GpuArch a) {
  return a == GpuArch::Blackwell || a == GpuArch::BlackwellUltra;
}

/// Dense peak per precision: one slot per Precision, so the cost model's inner loop reads it
/// without a search (it is asked for every GEMM and attention estimate).
class PeakTable {
 public:
  /// The slot for `p`, created (zero) when absent: `table[Precision::BF16] = rate`.
  units::FlopRate& operator[](Precision p) {
    auto& slot = slots_[index(p)];
    if (!slot) slot.emplace();
    return *slot;
  }
  std::optional<units::FlopRate> find(Precision p) const { return slots_[index(p)]; }

 private:
  static std::size_t index(Precision p) { return static_cast<std::size_t>(p); }
  static_assert(static_cast<std::size_t>(Precision::NVFP4) == 7, "one slot per Precision");
  std::array<std::optional<units::FlopRate>, 8> slots_{};  // FP32, TF32, FP16, BF16, FP8, FP4, MXFP8, NVFP4
};

/// One GPU model.
struct GpuSpec {
  std::string name;                  ///< catalog name, e.g. "A100-80G"
  std::vector<std::string> aliases;  ///< other spellings accepted on input
  GpuArch arch = GpuArch::Ampere;
  int sm_count = 0;                 ///< streaming multiprocessors
  PeakTable dense_peak;             ///< dense tensor-core peak per precision
  units::Bytes hbm;                 ///< HBM capacity
  units::Bandwidth hbm_bandwidth;   ///< HBM peak bandwidth
  units::Bytes l2;                  ///< L2 cache size
  int nvlink_generation = 0;        ///< 0 = no NVLink
  int nvlink_links = 0;             ///< NVLink links per GPU
  units::Bandwidth nvlink_one_way;  ///< one-way NVLink bandwidth per GPU (all links)
  units::Bandwidth nccl_nvlink;     ///< links x NCCL per-link constant (topo.h)
  bool nvls = false;                ///< NVLink SHARP in the NVSwitch (Hopper and later)
  /// Host link: PCIe generation (0 = not stated: the generation's usual one, see
  /// ClusterTopology) and lanes.
  int pcie_generation = 0;
  int pcie_lanes = 16;
  /// CUDA peer-to-peer between two such GPUs over PCIe. False for GeForce RTX 40 cards, whose
  /// driver refuses it: NCCL then moves their data through host memory (SHM transport).
  bool peer_to_peer = true;
  double tdp_w = 0.0;          ///< board power, W
  std::string default_fabric;  ///< node/fabric type a cluster of it gets by default
  std::string source;          ///< citation

  /// Dense peak for `p`, or nullopt when the GPU has no tensor-core path for it.
  std::optional<units::FlopRate> peak(Precision p) const { return dense_peak.find(p); }
};

/// PCIe bandwidth of a link as NCCL models it, GB/s (src/graph/topo.cc ncclTopoAddPci: lanes x
/// per-lane rate / 80, the rate in 100 Mb/s from kvDictPciGen: Gen1 15, Gen2 30, Gen3 60, Gen4 120,
/// Gen5 240, Gen6 480): Gen4 x16 = 24, Gen5 x16 = 48, Gen6 x16 = 96 GB/s. 0 for an unknown generation.
double nccl_pcie_gbs(int generation, int lanes);

/// Interconnect inside a node.
enum class IntraNode { NVSwitch, NVLinkDirect, PCIe };

/// The host CPU family of a node as NCCL classes it (src/graph/topo.cc: the Intel model from the
/// CPUID family and model, ncclTopoGetInterCpuBw for the socket-to-socket bandwidth).
enum class HostCpu {
  Unstated,             ///< the fabric does not say (default_host_cpu() decides)
  IntelSkylake,         ///< Skylake-SP to Ice Lake-SP (NCCL model SKL): UPI 10 GB/s
  IntelSapphireRapids,  ///< Sapphire Rapids, Granite Rapids (SRP): 22 GB/s
  IntelEmeraldRapids,   ///< Emerald Rapids (ERP): 40 GB/s
  Amd,                  ///< AMD EPYC: xGMI 16 GB/s (AMD_BW)
  Arm,                  ///< Arm (Grace): 6 GB/s (ARM_BW)
};
/// "intel-skylake", "intel-sapphire-rapids", "intel-emerald-rapids", "amd", "arm", "".
const char* to_string(HostCpu c);
std::optional<HostCpu> parse_host_cpu(std::string_view s);
/// Socket-to-socket bandwidth as NCCL models it, GB/s (src/graph/topo.h SKL_QPI_BW 10,
/// SRP_QPI_BW 22, ERP_QPI_BW 40, AMD_BW 16, ARM_BW 6); 0 when unstated.
double nccl_inter_socket_gbs(HostCpu c);
/// Scale-out network technology.
enum class NetKind { InfiniBand, RoCE, Ethernet };
const char* to_string(NetKind k);
std::optional<NetKind> parse_net_kind(std::string_view s);

/// A node and fabric type (data/fabrics.yaml), or the `cluster.fabric` block of a scenario.
struct FabricSpec {
  std::string name;  ///< catalog name, e.g. "dgx-a100-hdr"
  std::string description;
  int gpus_per_node = 8;
  IntraNode intra = IntraNode::NVSwitch;
  int nvlink_domain = 8;  ///< GPUs sharing one NVLink domain (72 for GB200 NVL72)
  NetKind kind = NetKind::InfiniBand;
  double nic_gbps = 200.0;  ///< line rate of one NIC, Gb/s
  int nics_per_node = 8;
  double oversubscription = 1.0;  ///< leaf-to-spine oversubscription (1 = non-blocking)
  double node_power_kw = 0.0;     ///< node power at full load, kW (0 = unknown)
  /// Host CPUs of a node: family (NCCL's network overhead, LL caps, P2P rules and socket link)
  /// and sockets (0 = not stated: one).
  HostCpu cpu = HostCpu::Unstated;
  int cpu_sockets = 0;
  /// A PCIe node's switches carrying the GPUs, spread evenly over the sockets (0: every GPU on a
  /// root port of its CPU), and each switch's uplink to its CPU (generation, lanes).
  int pcie_switches = 0;
  int pcie_uplink_generation = 0;
  int pcie_uplink_lanes = 16;
  std::string source;  ///< citation

  units::Bandwidth nic_line_rate() const { return units::Bandwidth::from_gbits_per_s(nic_gbps); }
  /// The GPUs one NVLink domain joins: a rack-scale domain (NVL72: 72 over trays of 4) where the
  /// node's NVSwitches reach it and it is a whole number of nodes, else the node.
  int nvlink_group() const {
    const int node = gpus_per_node > 0 ? gpus_per_node : 1;
    return intra == IntraNode::NVSwitch && nvlink_domain > node && nvlink_domain % node == 0 ? nvlink_domain : node;
  }
};

}  // namespace flopcast::hardware

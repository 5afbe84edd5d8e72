#pragma once
/// NCCL's own cost model (src/graph/tuning.cc ncclTopoTuneModel / ncclTopoGetAlgoTime,
/// src/graph/search.cc), reproduced so flopcast picks the algorithm and protocol NCCL would.
///
/// Pinned version: NVIDIA/nccl master @ 5067397c2676d5aed50042fc39e5c8ee96eb0027
/// (2026-06-11, v2.30.x line; key NCCL of docs/references.md). Every constant below is that
/// revision's; v2.29.7 differs only in Blackwell's NVLSTree per-channel cap at > 2 nodes (43.8),
/// v2.28.9 also in Blackwell's ring LL128 caps (73.4, 34.6, 73.4).
///
/// Units follow NCCL: latencies in microseconds, bandwidths in GB/s (1e9 B/s).
#include <array>
#include <cstdint>

#include "flopcast/comm/collective.hpp"
#include "flopcast/hardware/gpu_spec.hpp"

namespace flopcast::comm::nccl {

/// The NCCL revision whose constants this file holds (printed by `flopcast collective`).
inline constexpr const char* kVersion = "NCCL master 5067397c (2026-06-11; v2.28+ constants)";

/// Host CPU family: NCCL keys multi-node LL bandwidth caps and the network overhead on it.
enum class CpuVendor { Intel, Amd, Other };
/// "intel", "amd", "other".
const char* to_string(CpuVendor v);

/// Hardware class of a hop (NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET).
enum class HwClass { NvLink = 0, Pci = 1, Net = 2 };

// ---- tuning.cc tables. Protocol index: 0 LL, 1 LL128, 2 Simple. ----------------------------
using ProtoRow = std::array<double, 3>;

/// baseLat[algo][proto], us. NVLS and NVLSTree have none; PAT 8 us.
inline constexpr ProtoRow kBaseLatTree{6.8, 14.0, 8.4};
inline constexpr ProtoRow kBaseLatRing{6.6, 14.0, 8.4};
inline constexpr ProtoRow kBaseLatNvls{0.0, 0.0, 0.0};
inline constexpr ProtoRow kBaseLatNvlsTree{0.0, 0.0, 0.0};
inline constexpr ProtoRow kBaseLatPat{8.0, 8.0, 8.0};

/// hwLat[NVLINK][algo][proto], us.
inline constexpr ProtoRow kNvLinkLatTree{0.6, 1.25, 4.0};
inline constexpr ProtoRow kNvLinkLatRing{0.6, 1.9, 3.4};
inline constexpr ProtoRow kNvLinkLatNvls{0.0, 0.0, 25.0};
inline constexpr ProtoRow kNvLinkLatNvlsTree{0.0, 0.0, 25.0};
inline constexpr ProtoRow kNvLinkLatPat{0.0, 0.0, 4.0};
/// hwLat[PCI][algo][proto], us.
inline constexpr ProtoRow kPciLatTree{1.0, 1.9, 4.0};
inline constexpr ProtoRow kPciLatRing{1.0, 2.5, 5.7};
inline constexpr ProtoRow kPciLatNvls{0.0, 0.0, 0.0};
inline constexpr ProtoRow kPciLatNvlsTree{0.0, 0.0, 0.0};
inline constexpr ProtoRow kPciLatPat{0.0, 0.0, 4.0};
/// hwLat[NET][algo][proto], us (NVLSTree NET Simple 20.9 since v2.28; 14 in v2.19-v2.27).
inline constexpr ProtoRow kNetLatTree{5.0, 8.5, 14.0};
inline constexpr ProtoRow kNetLatRing{2.7, 4.0, 14.0};
inline constexpr ProtoRow kNetLatNvls{0.0, 0.0, 18.0};
inline constexpr ProtoRow kNetLatNvlsTree{0.0, 0.0, 20.9};
inline constexpr ProtoRow kNetLatPat{0.0, 0.0, 14.0};

/// Network overhead per ring step across nodes (NCCL_NET_OVERHEAD default), us; x3 for Simple.
inline constexpr double kNetOverheadIntelUs = 1.0;
inline constexpr double kNetOverheadAmdUs = 2.0;
inline constexpr double kNetOverheadOtherUs = 1.0;
inline constexpr double kNetOverheadSimpleMultiplier = 3.0;
/// Ring/Simple all-reduce across nodes: latency x1.4 on SM80+ once nBytes/(nChannels*nRanks)
/// >= 64 ("plateau effect of ring").
inline constexpr double kRingPlateauLatencyFactor = 1.4;
inline constexpr double kRingPlateauBytesPerChannelRank = 64.0;

// Columns of the per-scale tables: [1 node, 2 nodes, >2 nodes]. Rows: [Volta, Ampere, Hopper,
// Blackwell] (NCCL compCapIndex).
using ScaleRow = std::array<double, 3>;
using ArchTable = std::array<ScaleRow, 4>;

/// llMaxBws: single node -> row by GPU arch; multi-node -> row 0 for Intel (and other) hosts,
/// row 1 for AMD hosts. GB/s.
inline constexpr ArchTable kLlMaxBw{{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
/// perChMaxRingLL128Bws, GB/s per channel.
inline constexpr ArchTable kPerChMaxRingLl128Bw{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
/// perChMaxTreeLL128Bws, GB/s per channel.
inline constexpr ArchTable kPerChMaxTreeLl128Bw{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
/// perChMaxTreeBws, GB/s per channel.
inline constexpr ArchTable kPerChMaxTreeBw{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
/// perChMaxNVLSTreeBws, GB/s per channel.
inline constexpr ArchTable kPerChMaxNvlsTreeBw{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};
/// nvlsEfficiency by arch (Volta, Ampere, Hopper, Blackwell).
inline constexpr std::array<double, 4> kNvlsEfficiency{0.0, 0.0, 0.85, 0.74};

/// Bus-bandwidth refinements of ncclTopoTuneModel.
inline constexpr double kRingLlFactor = 0.5;      // 8-byte stores carry 4 bytes of data
inline constexpr double kRingLl128Factor = 0.92;  // 120 of 128 bytes, less overhead
inline constexpr double kTreeAllReduceFactor = 0.92;
inline constexpr double kTreeLlDivisor = 3.8;
inline constexpr double kTreeLl128FactorOneNode = 7.0 / 9.0;
inline constexpr double kTreeLl128FactorMultiNode = 120.0 / 128.0;
inline constexpr double kPatFactor = 0.75;
inline constexpr double kTreeAlgBwRatio = 0.5;  // bus -> algorithm bandwidth for Tree
/// PAT: latency per rank (us) and the divisor of the network latency per tree level.
inline constexpr double kPatLatPerRankUs = 2.8;
inline constexpr double kPatNetLatDivisor = 3.5;

/// treeCorrectionFactor[proto][log2(nBytes/64)], 64 B .. 512 MB (Tree uses the first 23,
/// NVLSTree on Blackwell with an x86 host all 24).
inline constexpr std::array<std::array<double, 24>, 3> kTreeCorrectionFactor{{
    {1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5,
     0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6,
     0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9, 1.0, 1.0, 1.0},
    {0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5,
     0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9, 0.9},
}};
inline constexpr int kTreeCorrectionEntriesTree = 23;
inline constexpr int kTreeCorrectionEntriesNvlsTree = 24;

/// search.cc / device.h: channels per ring or tree graph (MAXCHANNELS / 2), NVLS heads
/// (NCCL_MAX_NVLS_ARITY), and ncclTopoDupChannels' thresholds.
inline constexpr int kMaxRingChannels = 32;
inline constexpr int kMaxNvlsArity = 32;
inline constexpr double kDupChannelsMinBw = 25.0;
inline constexpr double kDupChannelsHopperMaxBw = 50.0;
inline constexpr int kDupChannelsHopperMaxChannels = 4;
/// ncclTopoCompute tries a lower speed only while it is above this fraction of the best found.
inline constexpr double kSearchMinSpeedRatio = 0.49;

/// P2P: NCCL does not model send/recv in tuning.cc. flopcast applies the Ring constants of one
/// step, with LL below NCCL_P2P_LL_THRESHOLD (16 KiB, src/enqueue.cc default) and Simple above.
inline constexpr double kP2pLlThresholdBytes = 16384.0;

/// One channel graph as NCCL's topology search leaves it (ncclTopoGraph).
struct TopoGraph {
  int channels = 0;
  double bw_intra_gbs = 0.0;  ///< per channel, inside a node
  double bw_inter_gbs = 0.0;  ///< per channel, across nodes
};

/// NCCL's view of one communicator: what ncclTopoTuneModel reads.
struct CommTopo {
  std::int64_t ranks = 1;           ///< nRanks
  std::int64_t nodes = 1;           ///< nNodes (NVLink domains: MNNVL makes an NVL72 one node)
  std::int64_t ranks_per_node = 1;  ///< minimum local ranks (integer nRanks / nNodes)
  int arch_index = 1;               ///< compCapIndex: 1 Ampere, 2 Hopper, 3 Blackwell
  CpuVendor cpu = CpuVendor::Intel;
  HwClass intra_hw = HwClass::NvLink;  ///< NVLINK when rings run over NVLink, else PCI
  bool ll128 = true;                   ///< LL128 enabled (NVLink-class intra path)
  bool nvls = false;                   ///< NVLS usable (Hopper+ NVSwitch, >= 2 local ranks)
  TopoGraph ring;                      ///< also used by Tree and PAT (NCCL aims for equal channels)
  TopoGraph nvls_graph;
};

/// NCCL's (latency, algorithm bandwidth) for one algorithm and protocol.
struct AlgoProtoModel {
  bool enabled = false;
  double latency_us = 0.0;
  double algbw_gbs = 0.0;
};

/// compCapIndex of a GPU architecture.
int arch_index(hardware::GpuArch arch);
/// baseLat[algo][proto], us (0 for algorithms NCCL does not tune, such as P2P).
double base_latency_us(CommAlgorithm algo, CommProtocol proto);
/// hwLat[hw][algo][proto], us (P2P reads the Ring row).
double hw_latency_us(HwClass hw, CommAlgorithm algo, CommProtocol proto);
/// llMaxBws entry for a communicator, GB/s.
double ll_max_bw_gbs(const CommTopo& topo);

/// What the topology search finds for a ring over `local_ranks` GPUs per node on `nodes` nodes.
/// `nvlink_total_gbs`: a GPU's NCCL-effective bandwidth to its peers in the ring; `nvlink_max_gbs`:
/// the most one path between two GPUs carries; `nic_gbs`: one NIC as NCCL sees it
/// (min(line rate / 8, PCIe)); `nics`: NICs the local ranks own. Like ncclTopoCompute it walks
/// the arch's speed array down from the fastest speed that fits, keeps the solution with the
/// most channels x speed, stops at an optimal one or below 0.49 x the best speed, then applies
/// ncclTopoDupChannels.
/// An approximation of search.cc, not a re-implementation of its path search.
TopoGraph search_ring_graph(hardware::GpuArch arch, std::int64_t local_ranks, std::int64_t nodes,
                            double nvlink_total_gbs, double nvlink_max_gbs, double nic_gbs, int nics);
/// The NVLS graph: one channel per local GPU (search.cc: maxChannels = min(NCCL_MAX_NVLS_ARITY,
/// GPUs), minChannels = maxChannels on one node) at the highest intra speed that fits.
TopoGraph search_nvls_graph(hardware::GpuArch arch, std::int64_t local_ranks, double nvlink_total_gbs, double nic_gbs,
                            int nics);

/// ncclTopoTuneModel for one (collective, algorithm, protocol). Collectives NCCL does not tune
/// (all-to-all, send/recv) and algorithms that do not apply come back disabled.
AlgoProtoModel tune(const CommTopo& topo, Collective op, CommAlgorithm algo, CommProtocol proto);

/// ncclTopoGetAlgoTime: time in microseconds of `bytes` (NCCL's nBytes: the larger of the send
/// and receive buffers, i.e. nccl-tests' S) with the tree correction and ring plateau factors.
double algo_time_us(const CommTopo& topo, Collective op, CommAlgorithm algo, CommProtocol proto,
                    const AlgoProtoModel& model, double bytes);

/// floor(log2(v)) for v >= 1 (NCCL log2i); -1 for v < 1.
int log2i(double v);

}  // namespace flopcast::comm::nccl

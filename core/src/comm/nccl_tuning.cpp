#include "flopcast/comm/nccl_tuning.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <span>

#include "flopcast/units/hash.hpp"

namespace flopcast::comm::nccl {

const char* to_string(CpuVendor v) {
  switch (v) {
    case CpuVendor::Intel:
      return "intel";
    case CpuVendor::Amd:
      return "amd";
    case CpuVendor::Other:
      return "other";
  }
  return "?";
}

int arch_index(hardware::GpuArch arch) {
  // tuning.cc: compCapIndex = minCompCap >= 100 ? Blackwell : >= 90 ? Hopper : >= 80 ? Ampere.
  const int cc = hardware::compute_capability(arch);
  return cc >= 100 ? 3 : cc >= 90 ? 2 : cc >= 80 ? 1 : 0;
}

int log2i(double v) {
  if (v < 1.0) return -1;
  int l = 0;
  while (v >= 2.0) {
    v /= 2.0;
    ++l;
  }
  return l;
}

namespace {

// NCCL src/graph/search.cc speed arrays, GB/s per channel.
constexpr double kSpeedIntraPreHopper[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr double kSpeedInterPreHopper[] = {48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};
constexpr double kSpeedIntraSm90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr double kSpeedInterSm90[] = {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};
constexpr double kSpeedIntraSm100[] = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
constexpr double kSpeedInterSm100[] = {96, 86,   80, 48, 45.1, 42, 40,  30,  24,   22,
                                       20, 17.5, 15, 12, 6,    3,  2.4, 1.2, 0.24, 0.12};

// search.cc picks the array by ccMin: >= 100 the SM100 one, >= 90 the SM90 one, else the first.
std::span<const double> intra_speeds(hardware::GpuArch a) {
  const int cc = hardware::compute_capability(a);
  if (cc >= 100) return kSpeedIntraSm100;
  if (cc >= 90) return kSpeedIntraSm90;
  return kSpeedIntraPreHopper;
}
std::span<const double> inter_speeds(hardware::GpuArch a) {
  const int cc = hardware::compute_capability(a);
  if (cc >= 100) return kSpeedInterSm100;
  if (cc >= 90) return kSpeedInterSm90;
  return kSpeedInterPreHopper;
}

// A small slack so that e.g. 8 x 20.6 = 164.8 admits 8 channels of 20.6 exactly.
constexpr double kFitSlack = 1e-9;

int fit(double total, double speed) {
  return speed > 0.0 ? static_cast<int>(std::floor(total / speed + kFitSlack)) : 0;
}

// ncclTopoDupChannels (search.cc): double the channels at half the speed when the speed is
// high, except above SM80 (ccMin > 80: Ada's 8.9 included) for mid speeds with more than 4
// channels.
void dup_channels(hardware::GpuArch arch, TopoGraph& g) {
  if (g.channels == 0 || g.bw_intra_gbs < kDupChannelsMinBw) return;
  if (hardware::compute_capability(arch) > 80 && g.bw_intra_gbs < kDupChannelsHopperMaxBw &&
      g.channels > kDupChannelsHopperMaxChannels)
    return;
  const int dup = std::min(g.channels * 2, kMaxRingChannels);
  const int div = (dup + g.channels - 1) / g.channels;
  g.bw_intra_gbs /= div;
  g.bw_inter_gbs /= div;
  g.channels = dup;
}

const ProtoRow& base_lat(CommAlgorithm a) {
  switch (a) {
    case CommAlgorithm::Tree:
      return kBaseLatTree;
    case CommAlgorithm::Nvls:
      return kBaseLatNvls;
    case CommAlgorithm::NvlsTree:
      return kBaseLatNvlsTree;
    case CommAlgorithm::Pat:
      return kBaseLatPat;
    default:
      return kBaseLatRing;
  }
}

const ProtoRow& hw_lat(HwClass hw, CommAlgorithm a) {
  switch (hw) {
    case HwClass::NvLink:
      switch (a) {
        case CommAlgorithm::Tree:
          return kNvLinkLatTree;
        case CommAlgorithm::Nvls:
          return kNvLinkLatNvls;
        case CommAlgorithm::NvlsTree:
          return kNvLinkLatNvlsTree;
        case CommAlgorithm::Pat:
          return kNvLinkLatPat;
        default:
          return kNvLinkLatRing;
      }
    case HwClass::Pci:
      switch (a) {
        case CommAlgorithm::Tree:
          return kPciLatTree;
        case CommAlgorithm::Nvls:
          return kPciLatNvls;
        case CommAlgorithm::NvlsTree:
          return kPciLatNvlsTree;
        case CommAlgorithm::Pat:
          return kPciLatPat;
        default:
          return kPciLatRing;
      }
    case HwClass::Net:
      switch (a) {
        case CommAlgorithm::Tree:
          return kNetLatTree;
        case CommAlgorithm::Nvls:
          return kNetLatNvls;
        case CommAlgorithm::NvlsTree:
          return kNetLatNvlsTree;
        case CommAlgorithm::Pat:
          return kNetLatPat;
        default:
          return kNetLatRing;
      }
  }
  return kNvLinkLatRing;
}

int scale_index(std::int64_t nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

double ll_max_bw(const CommTopo& t) {
  const int row = t.nodes == 1 ? t.arch_index : (t.cpu == CpuVendor::Amd ? 1 : 0);
  return kLlMaxBw[static_cast<std::size_t>(row)][static_cast<std::size_t>(scale_index(t.nodes))];
}

double net_overhead_us(CpuVendor v) {
  switch (v) {
    case CpuVendor::Intel:
      return kNetOverheadIntelUs;
    case CpuVendor::Amd:
      return kNetOverheadAmdUs;
    case CpuVendor::Other:
      return kNetOverheadOtherUs;
  }
  return kNetOverheadOtherUs;
}

std::int64_t nsteps_of(Collective op, std::int64_t n) {
  switch (op) {
    case Collective::AllReduce:
      return 2 * (n - 1);
    case Collective::AllGather:
    case Collective::ReduceScatter:
      return n - 1;
    default:
      return n;
  }
}

std::int64_t inter_steps_of(Collective op, std::int64_t nodes) {
  if (nodes <= 1) return 0;
  switch (op) {
    case Collective::AllReduce:
      return 2 * (nodes - 1);
    case Collective::AllGather:
    case Collective::ReduceScatter:
      return nodes - 1;
    default:
      return nodes;
  }
}

bool applies(const CommTopo& t, Collective op, CommAlgorithm a, CommProtocol p) {
  if (t.ranks <= 1) return false;
  if (op == Collective::AllToAll || op == Collective::SendRecv) return false;
  if (p == CommProtocol::LL128 && !t.ll128) return false;
  const bool simple = p == CommProtocol::Simple;
  switch (a) {
    case CommAlgorithm::Ring:
      return op != Collective::AllToAll;
    case CommAlgorithm::Tree:
      return op == Collective::AllReduce;
    case CommAlgorithm::Nvls:
      // Across nodes NVLS needs CollNet (IB SHARP), which flopcast does not model.
      if (!t.nvls || !simple || t.nodes > 1 || t.nvls_graph.channels < 2) return false;
      if (op == Collective::AllReduce) return true;
      return (op == Collective::AllGather || op == Collective::ReduceScatter) && t.ranks_per_node <= kMaxNvlsArity;
    case CommAlgorithm::NvlsTree:
      return t.nvls && simple && t.nodes > 1 && t.nvls_graph.channels >= 2 && op == Collective::AllReduce;
    case CommAlgorithm::Pat:
      return simple && t.nodes > 1 && t.ranks_per_node == 1 &&
             (op == Collective::AllGather || op == Collective::ReduceScatter);
    default:
      return false;
  }
}

}  // namespace

double base_latency_us(CommAlgorithm algo, CommProtocol proto) {
  if (algo == CommAlgorithm::None) return 0.0;
  return base_lat(algo)[static_cast<std::size_t>(proto)];
}

double hw_latency_us(HwClass hw, CommAlgorithm algo, CommProtocol proto) {
  if (algo == CommAlgorithm::None) return 0.0;
  return hw_lat(hw, algo)[static_cast<std::size_t>(proto)];
}

double ll_max_bw_gbs(const CommTopo& topo) { return ll_max_bw(topo); }

namespace {

/// The ring search proper. It depends on the rank counts only through local_ranks > 1 and
/// nodes > 1 (the speeds tried and the limits), which search_ring_graph's memo relies on.
TopoGraph search_ring_graph_uncached(hardware::GpuArch arch, bool local, bool multi, double nvlink_total_gbs,
                                     double nvlink_max_gbs, double nic_gbs, int nics) {
  TopoGraph best;
  const std::int64_t local_ranks = local ? 2 : 1;
  const auto speeds = multi ? inter_speeds(arch) : intra_speeds(arch);
  // The most the channels can carry together: a solution this good ends the search.
  double limit = std::numeric_limits<double>::max();
  if (local_ranks > 1) limit = std::min(limit, nvlink_total_gbs);
  if (multi) limit = std::min(limit, std::max(1, nics) * nic_gbs);
  for (double s : speeds) {
    // search.cc lowers the speed only while the next one is above 0.49 x the best found.
    if (best.channels > 0 && s / best.bw_intra_gbs <= kSearchMinSpeedRatio) break;
    if (best.channels > 0 && best.channels * best.bw_intra_gbs >= limit - kFitSlack) break;
    int ch = kMaxRingChannels;
    if (local_ranks > 1) {
      if (s > nvlink_max_gbs + kFitSlack) continue;
      ch = std::min(ch, fit(nvlink_total_gbs, s));
    }
    if (multi) {
      if (s > nic_gbs + kFitSlack) continue;
      ch = std::min(ch, std::max(1, nics) * fit(nic_gbs, s));
    }
    if (ch < 1) continue;
    // Keep the first (fastest) speed among equal totals, as the search starts high.
    if (ch * s > best.channels * best.bw_intra_gbs + kFitSlack) {
      best.channels = ch;
      best.bw_intra_gbs = s;
      best.bw_inter_gbs = s;
    }
  }
  if (best.channels == 0) {
    // Nothing in the speed array fits (very slow links): one channel at the slowest path.
    const double s = multi ? (local_ranks > 1 ? std::min(nic_gbs, nvlink_max_gbs) : nic_gbs) : nvlink_max_gbs;
    best = TopoGraph{1, s, s};
  }
  dup_channels(arch, best);
  return best;
}

/// One memoised search: the planner asks for the same few rings millions of times (the NCCL
/// buffers of every plan's groups, core/src/workload).
struct RingMemo {
  bool used = false;
  hardware::GpuArch arch = hardware::GpuArch::Ampere;
  bool local = false, multi = false;
  double nvlink_total = 0, nvlink_max = 0, nic = 0;
  int nics = 0;
  TopoGraph graph;
};

}  // namespace

TopoGraph search_ring_graph(hardware::GpuArch arch, std::int64_t local_ranks, std::int64_t nodes,
                            double nvlink_total_gbs, double nvlink_max_gbs, double nic_gbs, int nics) {
  const bool local = local_ranks > 1, multi = nodes > 1;
  // Direct-mapped, per thread (no locks): a slot per hash of the question, overwritten on a miss.
  thread_local std::array<RingMemo, 64> memo{};
  const std::uint64_t h = std::bit_cast<std::uint64_t>(nvlink_total_gbs) ^
                          std::bit_cast<std::uint64_t>(nvlink_max_gbs) * 0x9E3779B97F4A7C15ull ^
                          std::bit_cast<std::uint64_t>(nic_gbs) * 0xC2B2AE3D27D4EB4Full ^
                          (static_cast<std::uint64_t>(nics) << 8 | static_cast<std::uint64_t>(arch) << 2 |
                           static_cast<std::uint64_t>(local) << 1 | static_cast<std::uint64_t>(multi));
  RingMemo& m = memo[units::mix64(h) & (memo.size() - 1)];
  if (m.used && m.arch == arch && m.local == local && m.multi == multi && m.nvlink_total == nvlink_total_gbs &&
      m.nvlink_max == nvlink_max_gbs && m.nic == nic_gbs && m.nics == nics)
    return m.graph;
  m = {true,
       arch,
       local,
       multi,
       nvlink_total_gbs,
       nvlink_max_gbs,
       nic_gbs,
       nics,
       search_ring_graph_uncached(arch, local, multi, nvlink_total_gbs, nvlink_max_gbs, nic_gbs, nics)};
  return m.graph;
}

TopoGraph search_nvls_graph(hardware::GpuArch arch, std::int64_t local_ranks, double nvlink_total_gbs, double nic_gbs,
                            int nics) {
  TopoGraph g;
  g.channels = static_cast<int>(std::min<std::int64_t>(kMaxNvlsArity, local_ranks));
  if (g.channels < 1) return TopoGraph{};
  for (double s : intra_speeds(arch)) {
    if (g.channels * s <= nvlink_total_gbs + kFitSlack) {
      g.bw_intra_gbs = s;
      break;
    }
  }
  // Each NVLS head reaches the network through its own GPU's NIC(s).
  const double per_head = nic_gbs * std::max(1, nics) / g.channels;
  for (double s : inter_speeds(arch)) {
    if (s <= per_head + kFitSlack) {
      g.bw_inter_gbs = s;
      break;
    }
  }
  return g;
}

AlgoProtoModel tune(const CommTopo& t, Collective op, CommAlgorithm a, CommProtocol p) {
  AlgoProtoModel m;
  if (!applies(t, op, a, p)) return m;
  m.enabled = true;
  const auto pi = static_cast<std::size_t>(p);
  const auto arch = static_cast<std::size_t>(t.arch_index);
  const auto si = static_cast<std::size_t>(scale_index(t.nodes));
  const double n = static_cast<double>(t.ranks);
  const std::int64_t nsteps = nsteps_of(op, t.ranks);
  const std::int64_t inter_steps = inter_steps_of(op, t.nodes);

  // Bandwidth.
  if (a == CommAlgorithm::Nvls || a == CommAlgorithm::NvlsTree) {
    const TopoGraph& g = t.nvls_graph;
    const double nch = g.channels;
    double intra_gbs = g.bw_intra_gbs * kNvlsEfficiency[arch] * (nch - 1.0) / nch;
    if (op == Collective::AllReduce)
      intra_gbs *= 2.0;
    else
      intra_gbs *= (static_cast<double>(t.ranks_per_node) - 1.0) / static_cast<double>(t.ranks_per_node);
    const double inter_gbs = g.bw_inter_gbs * ((t.nodes <= 2 && a == CommAlgorithm::NvlsTree) ? 2.0 : 1.0);
    double bw_gbs = std::min(intra_gbs, t.nodes > 1 ? inter_gbs : std::numeric_limits<double>::max());
    if (a == CommAlgorithm::NvlsTree) bw_gbs = std::min(bw_gbs, kPerChMaxNvlsTreeBw[arch][si]);
    m.algbw_gbs = bw_gbs * nch * n / static_cast<double>(nsteps);
  } else {
    const TopoGraph& g = t.ring;
    const double nch = g.channels;
    double bus_gbs = nch * (t.nodes <= 2 ? g.bw_intra_gbs : g.bw_inter_gbs);
    if (a == CommAlgorithm::Ring && p == CommProtocol::LL) bus_gbs = std::min(ll_max_bw(t), kRingLlFactor * bus_gbs);
    if (a == CommAlgorithm::Ring && p == CommProtocol::LL128)
      bus_gbs = std::min(kRingLl128Factor * bus_gbs, nch * kPerChMaxRingLl128Bw[arch][si]);
    if (a == CommAlgorithm::Tree) {
      bus_gbs = std::min(kTreeAllReduceFactor * bus_gbs, nch * kPerChMaxTreeBw[arch][si]);
      if (p == CommProtocol::LL) bus_gbs = std::min(bus_gbs / kTreeLlDivisor, ll_max_bw(t));
      if (p == CommProtocol::LL128)
        bus_gbs = std::min(bus_gbs * (t.nodes == 1 ? kTreeLl128FactorOneNode : kTreeLl128FactorMultiNode),
                           nch * kPerChMaxTreeLl128Bw[arch][si]);
    }
    if (a == CommAlgorithm::Pat) bus_gbs *= kPatFactor;
    if (a == CommAlgorithm::Ring)
      m.algbw_gbs = bus_gbs * n / static_cast<double>(nsteps);
    else if (a == CommAlgorithm::Tree)
      m.algbw_gbs = bus_gbs * kTreeAlgBwRatio;
    else
      m.algbw_gbs = bus_gbs;  // PAT: already per rank (NCCL tuning.cc)
  }

  // Latency.
  double intra_lat_us = hw_lat(t.intra_hw, a)[pi];
  double inter_lat_us = (t.ranks_per_node == 1 ? kNetLatTree : hw_lat(HwClass::Net, a))[pi];
  // graph.latencyInter is 0 for IB and sockets (props->latency = 0), so the Simple "flush"
  // term adds nothing here.
  const double base = base_lat(a)[pi];
  double lat_us = base;
  switch (a) {
    case CommAlgorithm::Ring:
      if (op == Collective::Broadcast) {
        const HwClass hw = t.nodes == 1 ? t.intra_hw : HwClass::Net;
        const double step = hw_lat(hw, p == CommProtocol::Simple ? CommAlgorithm::Tree : CommAlgorithm::Ring)[pi];
        lat_us += static_cast<double>(nsteps) * step;
      } else {
        if (t.nodes > 1)
          intra_lat_us = std::max(
              intra_lat_us, net_overhead_us(t.cpu) * (p == CommProtocol::Simple ? kNetOverheadSimpleMultiplier : 1.0));
        lat_us +=
            static_cast<double>(nsteps - inter_steps) * intra_lat_us + static_cast<double>(inter_steps) * inter_lat_us;
      }
      break;
    case CommAlgorithm::Tree:
      lat_us += 2.0 * (static_cast<double>(t.ranks_per_node - 1) * intra_lat_us +
                       log2i(static_cast<double>(t.nodes)) * inter_lat_us);
      break;
    case CommAlgorithm::Nvls:
      lat_us = intra_lat_us + (t.nodes > 1 ? inter_lat_us : 0.0);
      break;
    case CommAlgorithm::NvlsTree:
      lat_us += intra_lat_us + 2.0 * log2i(static_cast<double>(t.nodes)) * inter_lat_us;
      break;
    case CommAlgorithm::Pat:
      lat_us += log2i(static_cast<double>(t.nodes)) * (inter_lat_us / kPatNetLatDivisor) + n * kPatLatPerRankUs;
      break;
    default:
      break;
  }
  m.latency_us = lat_us;
  return m;
}

double algo_time_us(const CommTopo& t, Collective op, CommAlgorithm a, CommProtocol p, const AlgoProtoModel& m,
                    double bytes) {
  double bw_gbs = m.algbw_gbs;
  double lat_us = m.latency_us;
  const int log_size = log2i(bytes / 64.0);
  const auto pi = static_cast<std::size_t>(p);
  if (a == CommAlgorithm::Tree && op == Collective::AllReduce && log_size >= 0 && log_size < kTreeCorrectionEntriesTree)
    bw_gbs *= kTreeCorrectionFactor[pi][static_cast<std::size_t>(log_size)];
  if (a == CommAlgorithm::NvlsTree && op == Collective::AllReduce && log_size >= 0 &&
      log_size < kTreeCorrectionEntriesNvlsTree && t.arch_index >= 3 && t.cpu != CpuVendor::Other)
    bw_gbs *= kTreeCorrectionFactor[pi][static_cast<std::size_t>(log_size)];
  if (a == CommAlgorithm::Ring && p == CommProtocol::Simple && op == Collective::AllReduce && t.nodes > 1 &&
      bytes / (static_cast<double>(t.ring.channels) * static_cast<double>(t.ranks)) >= kRingPlateauBytesPerChannelRank)
    lat_us *= kRingPlateauLatencyFactor;
  if (bw_gbs <= 0.0) return std::numeric_limits<double>::infinity();
  return lat_us + bytes / (1000.0 * bw_gbs);
}

}  // namespace flopcast::comm::nccl

#include "flopcast/cost/collective_cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "flopcast/comm/comm_model.hpp"
#include "flopcast/comm/profile_efficiency.hpp"
#include "flopcast/topology/group_shape.hpp"
#include "flopcast/units/hash.hpp"

namespace flopcast::cost {
namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

// NCCL latency constants, Simple protocol, NCCL master 5067397c (src/graph/tuning.cc):
// base latency and per-hop hardware latency in us.
constexpr double kBaseLatRing = 8.4, kBaseLatTree = 8.4;
constexpr double kNvlinkLatRing = 3.4, kNvlinkLatTree = 4.0;
constexpr double kNetLatRing = 14.0, kNetLatTree = 14.0;
// PCIe Gen4 x16 as NCCL models it (topo.cc: width x 16 GT/s x 120/80/8 = 24 GB/s).
constexpr double kPcieGen4GBps = 24.0;

/// Bus bandwidth inside a node for ring collectives, bytes/s.
double intra_bus_bw(const scenario::Scenario& s, const compute::ComputeProfile& p) {
  const auto& g = s.cluster.gpu;
  if (s.cluster.fabric.intra == hardware::IntraNode::PCIe || g.nccl_nvlink.bytes_per_s <= 0) return kPcieGen4GBps * 1e9;
  return g.nccl_nvlink.bytes_per_s * p.nvlink_efficiency;
}

/// Scale-out bandwidth share of one GPU (the node's NICs split over its GPUs), bytes/s.
double nic_share_per_gpu(const scenario::Scenario& s, const compute::ComputeProfile& p) {
  const auto& f = s.cluster.fabric;
  const double node_bw = f.nics_per_node * f.nic_line_rate().bytes_per_s * p.nic_efficiency;
  return node_bw / std::max(1, s.cluster.gpus_per_node) / std::max(1.0, f.oversubscription);
}

}  // namespace

namespace {

/// Above this size the cluster graph (one vertex per GPU, NIC and switch) costs seconds to
/// build and route; such clusters use the alpha-beta model with the same NCCL constants.
constexpr std::int64_t kMaxGraphGpus = 131072;

/// Alpha-beta fallback for a group shape the topology model cannot place.
units::Time alpha_beta_time(const scenario::Scenario& s, const compute::ComputeProfile& p, CollectiveKind op,
                            std::int64_t ranks, std::int64_t ranks_per_node, units::Bytes bytes, int concurrent) {
  if (ranks <= 1 || bytes.value <= 0) return units::Time{0};
  ranks_per_node = std::clamp<std::int64_t>(ranks_per_node, 1, ranks);
  const double n = d(ranks);
  const double nodes = std::ceil(n / d(ranks_per_node));
  const double intra = intra_bus_bw(s, p);
  double bus = intra;
  if (nodes > 1) {
    // A ring over k GPUs per node uses k GPUs' share of the node's NICs (NCCL runs one
    // channel per NIC). All groups of a kind run at once (every TP rank's DP group), so the
    // per-GPU share already accounts for them; `concurrent` counts extra groups beyond that.
    const double inter = d(ranks_per_node) * nic_share_per_gpu(s, p) / std::max(1, concurrent);
    bus = std::min(intra, inter);
    if (op == CollectiveKind::AllToAll)
      bus = std::min(intra, nic_share_per_gpu(s, p) * std::max<double>(1, d(ranks_per_node)));
  }
  double factor = 1;  // nccl-tests busbw factor (doc/PERFORMANCE.md)
  switch (op) {
    case CollectiveKind::AllReduce:
      factor = 2 * (n - 1) / n;
      break;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll:
      factor = (n - 1) / n;
      break;
    case CollectiveKind::SendRecv:
      factor = 1;
      break;
  }
  const double bw_time = bytes.value * factor / bus;
  // Latency: the cheaper of ring and tree, as NCCL's tuner picks by time.
  const double ppn = d(ranks_per_node);
  const double steps = op == CollectiveKind::AllReduce ? 2 * (n - 1) : (n - 1);
  const double inter_steps = nodes > 1 ? (op == CollectiveKind::AllReduce ? 2 * (nodes - 1) : nodes - 1) : 0;
  const double ring_lat = kBaseLatRing + (steps - inter_steps) * kNvlinkLatRing + inter_steps * kNetLatRing;
  const double tree_lat =
      kBaseLatTree + 2 * ((ppn - 1) * kNvlinkLatTree + std::log2(std::max(1.0, nodes)) * kNetLatTree);
  double lat = op == CollectiveKind::AllReduce ? std::min(ring_lat, tree_lat) : ring_lat;
  if (op == CollectiveKind::SendRecv) lat = kBaseLatRing + (nodes > 1 ? kNetLatRing : kNvlinkLatRing);
  lat += p.collective_latency_of(s.cluster.gpu.arch);
  return units::Time::from_seconds(bw_time + lat * 1e-6);
}

/// What a CommModel depends on: the GPU, the fabric, the node size, the cluster size and the
/// profile's link efficiencies. Compared field by field (no formatting or allocation per call:
/// the planner asks millions of times).
struct CommKey {
  std::string gpu, fabric;
  int intra = 0, nvlink_domain = 0, kind = 0, nics_per_node = 0, gpus_per_node = 0;
  // A PCIe node's host side (its CPU, sockets and switches set the intra-node rates).
  int cpu = 0, cpu_sockets = 0, pcie_switches = 0, pcie_uplink = 0;
  double nic_gbps = 0, oversubscription = 0, nic_eff = 0, nvlink_eff = 0, latency_us = 0;
  std::int64_t gpus = 0;
  bool matches(const scenario::Scenario& s, const compute::ComputeProfile& p) const {
    const auto& f = s.cluster.fabric;
    return gpus == s.cluster.gpus && gpus_per_node == s.cluster.gpus_per_node && intra == static_cast<int>(f.intra) &&
           nvlink_domain == f.nvlink_domain && kind == static_cast<int>(f.kind) && nics_per_node == f.nics_per_node &&
           nic_gbps == f.nic_gbps && oversubscription == f.oversubscription && cpu == static_cast<int>(f.cpu) &&
           cpu_sockets == f.cpu_sockets && pcie_switches == f.pcie_switches &&
           pcie_uplink == f.pcie_uplink_generation * 100 + f.pcie_uplink_lanes && nic_eff == p.nic_efficiency &&
           nvlink_eff == p.nvlink_efficiency && latency_us == p.collective_latency_of(s.cluster.gpu.arch) &&
           gpu == s.cluster.gpu.name && fabric == f.name;
  }
  static CommKey of(const scenario::Scenario& s, const compute::ComputeProfile& p) {
    const auto& f = s.cluster.fabric;
    return {s.cluster.gpu.name,
            f.name,
            static_cast<int>(f.intra),
            f.nvlink_domain,
            static_cast<int>(f.kind),
            f.nics_per_node,
            s.cluster.gpus_per_node,
            static_cast<int>(f.cpu),
            f.cpu_sockets,
            f.pcie_switches,
            f.pcie_uplink_generation * 100 + f.pcie_uplink_lanes,
            f.nic_gbps,
            f.oversubscription,
            p.nic_efficiency,
            p.nvlink_efficiency,
            p.collective_latency_of(s.cluster.gpu.arch),
            s.cluster.gpus};
  }
};

/// Whether CommModel::check() accepts a (collective, group shape) on a model: asked for every
/// collective of every estimate, and check() places a group (allocates), so it is memoised per
/// thread. Cleared whenever this thread's model cache changes (a pointer may then be reused).
struct CheckMemo {
  const comm::CommModel* model = nullptr;
  int op = 0;
  std::int64_t ranks = 0, ranks_per_node = 0, node_stride = 0;
  bool ok = false;
};
/// Direct-mapped: a slot per hash of the query, overwritten on a miss.
thread_local std::vector<CheckMemo> check_memo;

/// Memo of collective costs on a model (the planner asks for the same few again and again),
/// direct-mapped like check_memo and cleared with it.
struct CostMemo {
  const comm::CommModel* model = nullptr;
  int op = 0;
  std::int64_t ranks = 0, ranks_per_node = 0, node_stride = 0;
  double bytes = 0;
  std::int64_t concurrent = 0;
  units::Time time{};
};
thread_local std::vector<CostMemo> cost_memo;

bool shape_ok(const comm::CommModel& model, comm::Collective c, const topology::GroupShape& g) {
  if (check_memo.empty()) check_memo.resize(512);
  const auto h = static_cast<std::uint64_t>(g.ranks) * 0x9E3779B97F4A7C15ull ^
                 static_cast<std::uint64_t>(g.ranks_per_node) * 0xC2B2AE3D27D4EB4Full ^
                 static_cast<std::uint64_t>(g.node_stride) * 0x165667B19E3779F9ull ^ static_cast<std::uint64_t>(c);
  CheckMemo& m = check_memo[units::mix64(h) & 511];
  if (m.model == &model && m.op == static_cast<int>(c) && m.ranks == g.ranks && m.ranks_per_node == g.ranks_per_node &&
      m.node_stride == g.node_stride)
    return m.ok;
  m = {&model, static_cast<int>(c), g.ranks, g.ranks_per_node, g.node_stride, model.check(c, g).empty()};
  return m.ok;
}

/// The topology-based NCCL model of a cluster, built once per cluster and profile.
const comm::CommModel& comm_model_for(const scenario::Scenario& s, const compute::ComputeProfile& p) {
  struct Entry {
    CommKey key;
    std::unique_ptr<comm::CommModel> model;
  };
  thread_local std::vector<Entry> cache;
  thread_local std::size_t last = 0;
  if (last < cache.size() && cache[last].key.matches(s, p)) return *cache[last].model;
  for (std::size_t i = 0; i < cache.size(); ++i)
    if (cache[i].key.matches(s, p)) {
      last = i;
      return *cache[i].model;
    }
  const auto& f = s.cluster.fabric;
  if (cache.size() >= 16) cache.erase(cache.begin());
  check_memo.assign(check_memo.size(), CheckMemo{});
  cost_memo.assign(cost_memo.size(), CostMemo{});
  comm::CommOptions opts;
  opts.efficiency = comm::comm_efficiency(p, s.cluster.gpu.arch);
  hardware::FabricSpec fab = f;
  fab.gpus_per_node = s.cluster.gpus_per_node;
  cache.push_back({CommKey::of(s, p), std::make_unique<comm::CommModel>(s.cluster.gpu, fab, s.cluster.gpus, opts)});
  last = cache.size() - 1;
  return *cache.back().model;
}

}  // namespace

namespace {

units::Time collective_time_on(const comm::CommModel& model, const scenario::Scenario& s,
                               const compute::ComputeProfile& p, CollectiveKind op, std::int64_t ranks,
                               std::int64_t rank_stride, units::Bytes bytes) {
  if (ranks <= 1 || bytes.value <= 0) return units::Time{0};
  const std::int64_t gpn = std::max(1, s.cluster.gpus_per_node);
  rank_stride = std::max<std::int64_t>(1, rank_stride);
  // Megatron's rank order: members `rank_stride` ranks apart. Inside a node while the
  // stride is below the node size, then one member per node, `stride / gpn` nodes apart.
  topology::GroupShape g;
  g.ranks = ranks;
  if (rank_stride < gpn) {
    std::int64_t per_node = std::min<std::int64_t>(ranks, std::max<std::int64_t>(1, gpn / rank_stride));
    while (ranks % per_node != 0) --per_node;
    g.ranks_per_node = static_cast<int>(per_node);
    g.node_stride = 1;
  } else {
    g.ranks_per_node = 1;
    g.node_stride = std::max<std::int64_t>(1, rank_stride / gpn);
  }
  comm::Collective c = comm::Collective::AllReduce;
  switch (op) {
    case CollectiveKind::AllReduce:
      c = comm::Collective::AllReduce;
      break;
    case CollectiveKind::AllGather:
      c = comm::Collective::AllGather;
      break;
    case CollectiveKind::ReduceScatter:
      c = comm::Collective::ReduceScatter;
      break;
    case CollectiveKind::AllToAll:
      c = comm::Collective::AllToAll;
      break;
    case CollectiveKind::SendRecv:
      c = comm::Collective::SendRecv;
      break;
  }
  // Every group of this kind communicates at once (each TP rank's DP group, each stage's).
  const std::int64_t concurrent = std::max<std::int64_t>(1, s.cluster.gpus / ranks);
  if (shape_ok(model, c, g)) {
    if (cost_memo.empty()) cost_memo.resize(1024);
    std::uint64_t bits;
    std::memcpy(&bits, &bytes.value, sizeof bits);
    auto h = (static_cast<std::uint64_t>(g.ranks) * 0x9E3779B97F4A7C15ull) ^
             (static_cast<std::uint64_t>(g.ranks_per_node) * 0xC2B2AE3D27D4EB4Full) ^
             (static_cast<std::uint64_t>(g.node_stride) * 0x165667B19E3779F9ull) ^ (bits * 0xFF51AFD7ED558CCDull) ^
             (static_cast<std::uint64_t>(concurrent) << 8) ^ static_cast<std::uint64_t>(c);
    // Sizes a power of two apart differ only in their exponent bits: mix them into the slot bits.
    CostMemo& m = cost_memo[units::mix64(h) & 1023];
    if (m.model == &model && m.op == static_cast<int>(c) && m.ranks == g.ranks &&
        m.ranks_per_node == g.ranks_per_node && m.node_stride == g.node_stride && m.bytes == bytes.value &&
        m.concurrent == concurrent)
      return m.time;
    const units::Time t = model.cost(c, g, bytes, concurrent).time;
    m = {&model, static_cast<int>(c), g.ranks, g.ranks_per_node, g.node_stride, bytes.value, concurrent, t};
    return t;
  }
  return alpha_beta_time(s, p, op, ranks, g.ranks_per_node, bytes, 1);
}

}  // namespace

units::Time collective_time(const scenario::Scenario& s, const compute::ComputeProfile& p, CollectiveKind op,
                            std::int64_t ranks, std::int64_t rank_stride, units::Bytes bytes) {
  if (s.cluster.gpus > kMaxGraphGpus) {
    const std::int64_t gpn = std::max(1, s.cluster.gpus_per_node), stride = std::max<std::int64_t>(1, rank_stride);
    const std::int64_t per_node = stride < gpn ? std::min<std::int64_t>(ranks, gpn / stride) : 1;
    return alpha_beta_time(s, p, op, ranks, per_node, bytes, 1);
  }
  return collective_time_on(comm_model_for(s, p), s, p, op, ranks, rank_stride, bytes);
}

ClusterCollectives::ClusterCollectives(const scenario::Scenario& s, const compute::ComputeProfile& profile)
    : s_(s), profile_(profile), model_(s.cluster.gpus <= kMaxGraphGpus ? &comm_model_for(s, profile) : nullptr) {}

units::Time ClusterCollectives::operator()(CollectiveKind op, std::int64_t ranks, std::int64_t rank_stride,
                                           units::Bytes bytes) const {
  return model_ ? collective_time_on(*model_, s_, profile_, op, ranks, rank_stride, bytes)
                : collective_time(s_, profile_, op, ranks, rank_stride, bytes);
}

double expected_holders(double experts, double holders, int top_k) {
  if (holders <= 1) return std::max(0.0, holders);
  if (experts < holders) experts = holders;
  const double per = experts / holders;
  // P(a holder gets none of the k experts) = C(E - per, k) / C(E, k) = prod_i (E - per - i) / (E - i).
  double none = 1;
  for (int i = 0; i < top_k; ++i) none *= std::max(0.0, experts - per - i) / std::max(1.0, experts - i);
  return holders * (1 - none);
}

MoeDispatchCost moe_dispatch_cost(const hardware::GpuSpec& gpu, const hardware::FabricSpec& fabric,
                                  std::int64_t gpus_per_node, const compute::ComputeProfile& p, const MoeDispatch& d) {
  MoeDispatchCost c;
  const double ranks = static_cast<double>(std::max<std::int64_t>(1, d.ranks));
  const double per_node = static_cast<double>(std::clamp<std::int64_t>(d.ranks_per_node, 1, d.ranks));
  const double nodes = std::ceil(ranks / per_node);
  const double experts = d.experts > 0 ? d.experts : 32 * ranks;
  const double token_bytes = d.hidden * d.bytes_per_value;
  const double k = std::max(1, d.top_k);
  if (d.low_latency) {
    // One copy per (token, expert), 1/ranks of them to the rank itself, (per_node - 1)/ranks to
    // the others of its node.
    const double copies = d.tokens * k;
    const double local = copies * (per_node - 1) / ranks, remote = copies * (ranks - per_node) / ranks;
    c.rdma_bytes = (remote + (d.rdma_inside_node ? local : 0.0)) * token_bytes;
    c.nvlink_bytes = d.rdma_inside_node ? 0.0 : local * token_bytes;
    c.received_bytes = copies * token_bytes;
  } else {
    // Deduplicated: once per node over RDMA, once per rank inside a node over NVLink.
    const double node_span = d.node_limit > 0 ? std::min(nodes, static_cast<double>(d.node_limit)) : nodes;
    const double nodes_hit = expected_holders(experts * node_span / nodes, node_span, d.top_k);
    const double ranks_hit = expected_holders(experts, ranks, d.top_k);
    c.rdma_bytes = nodes > 1 ? d.tokens * nodes_hit * (nodes - 1) / nodes * token_bytes : 0.0;
    c.received_bytes = d.tokens * ranks_hit * token_bytes;
    // Every copy but the rank's own crosses NVLink once: straight to a peer of the node, or
    // forwarded there by the GPU its RDMA copy reached.
    c.nvlink_bytes = d.tokens * std::max(0.0, ranks_hit - ranks_hit / ranks) * token_bytes;
  }
  const double eff = p.dispatch_efficiency;
  const double rdma_eff = p.dispatch_rdma_efficiency > 0 ? p.dispatch_rdma_efficiency : eff;
  const double nvlink =
      gpu.nvlink_one_way.bytes_per_s > 0 ? gpu.nvlink_one_way.bytes_per_s : 24e9;  // PCIe: NCCL's 24 GB/s
  const double nic = d.nic_gbps > 0 ? d.nic_gbps * 1e9 / 8
                                    : fabric.nics_per_node * fabric.nic_line_rate().bytes_per_s /
                                          static_cast<double>(std::max<std::int64_t>(1, gpus_per_node));
  double seconds = std::max(c.nvlink_bytes / (nvlink * eff), c.rdma_bytes / (nic * rdma_eff));
  if (d.sms > 0 && p.dispatch_sm_gbps > 0) {
    // The SMs' side: bytes at each SM's copy rate, and under warp copies each received token copy
    // once more, at the latency a warp pays per token (ComputeProfile::dispatch_copy_ns).
    const double copies = d.warp_copies && token_bytes > 0 ? c.received_bytes / token_bytes : 0.0;
    seconds = std::max(
        seconds,
        ((c.nvlink_bytes + c.rdma_bytes) / (p.dispatch_sm_gbps * 1e9) + copies * p.dispatch_copy_ns * 1e-9) / d.sms);
  }
  c.time = units::Time::from_seconds(seconds);
  return c;
}

}  // namespace flopcast::cost

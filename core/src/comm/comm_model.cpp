#include "flopcast/comm/comm_model.hpp"

#include <algorithm>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "flopcast/topology/group_traffic.hpp"
#include "flopcast/units/assert.hpp"

namespace flopcast::comm {

nccl::CpuVendor default_host_cpu(const hardware::GpuSpec& gpu, const hardware::FabricSpec& fabric) {
  switch (fabric.cpu) {
    case hardware::HostCpu::IntelSkylake:
    case hardware::HostCpu::IntelSapphireRapids:
    case hardware::HostCpu::IntelEmeraldRapids:
      return nccl::CpuVendor::Intel;
    case hardware::HostCpu::Amd:
      return nccl::CpuVendor::Amd;
    case hardware::HostCpu::Arm:
      return nccl::CpuVendor::Other;
    case hardware::HostCpu::Unstated:
      break;
  }
  if (fabric.intra == hardware::IntraNode::NVSwitch && fabric.nvlink_domain > fabric.gpus_per_node)
    return nccl::CpuVendor::Other;
  if (gpu.arch == hardware::GpuArch::Ampere) return nccl::CpuVendor::Amd;
  return nccl::CpuVendor::Intel;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kGB = 1e9;  // GB/s in bytes/s (nccl-tests divides by 1.0E9, NT)

struct Key {
  int op = 0;
  std::int64_t ranks = 0;
  int ranks_per_node = 0;
  std::int64_t stride = 0;
  std::int64_t concurrent = 0;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::size_t h = static_cast<std::size_t>(k.op);
    for (std::int64_t v : {k.ranks, static_cast<std::int64_t>(k.ranks_per_node), k.stride, k.concurrent})
      h = h * 1000003u ^ static_cast<std::size_t>(v);
    return h;
  }
};

struct Candidate {
  CommAlgorithm algo = CommAlgorithm::Ring;
  CommProtocol proto = CommProtocol::Simple;
  nccl::AlgoProtoModel choice;   // NCCL's model: decides
  nccl::AlgoProtoModel predict;  // flopcast's model: times
  int channels = 0;
};

// One cached (collective, shape, concurrency).
struct Entry {
  nccl::CommTopo nccl_view;
  nccl::CommTopo phys_view;
  std::vector<Candidate> cands;
  std::int64_t nodes = 1;
  std::int64_t groups = 1;
  int net_channels = 0;
  // Point-to-point collectives (all-to-all, send/recv).
  nccl::HwClass p2p_hw = nccl::HwClass::NvLink;
  double p2p_intra_fraction = 0.0;  // of S over the intra-domain path
  double p2p_inter_fraction = 0.0;  // of S over the network
  double p2p_intra_gbs = kInf;
  double p2p_inter_gbs = kInf;
};

// One network_share() question is a Key too: the group shape (as given: the stride is not
// normalised), the groups running at once, and the traffic pattern in place of the collective.
using ShareKey = Key;

constexpr CommAlgorithm kTunedAlgorithms[] = {CommAlgorithm::Tree, CommAlgorithm::Ring, CommAlgorithm::Nvls,
                                              CommAlgorithm::NvlsTree, CommAlgorithm::Pat};
constexpr CommProtocol kProtocols[] = {CommProtocol::LL, CommProtocol::LL128, CommProtocol::Simple};

}  // namespace

struct CommModel::Impl {
  CommOptions opt;
  topology::ClusterTopology topo;
  nccl::CpuVendor cpu;
  mutable std::shared_mutex mu;
  mutable std::unordered_map<Key, std::unique_ptr<const Entry>, KeyHash> cache;

  Impl(const hardware::GpuSpec& gpu, const hardware::FabricSpec& fabric, std::int64_t total, CommOptions o)
      : opt(o),
        topo(gpu, fabric, total, topology_options(o)),
        cpu(o.host_cpu ? *o.host_cpu : default_host_cpu(gpu, fabric)) {}

  static topology::TopologyOptions topology_options(const CommOptions& o) {
    topology::TopologyOptions t = o.topology;
    t.nic_fraction = o.efficiency.nic_fraction;
    t.nvlink_fraction = o.efficiency.nvlink_fraction > 0.0 ? o.efficiency.nvlink_fraction : 1.0;
    return t;
  }

  const Entry& entry(Collective op, const topology::GroupShape& g, std::int64_t concurrent) const {
    const Key key{static_cast<int>(op), g.ranks, g.ranks_per_node, g.nodes() > 1 ? g.node_stride : 1, concurrent};
    {
      std::shared_lock lock(mu);
      auto it = cache.find(key);
      if (it != cache.end()) return *it->second;
    }
    auto built = build(op, g, concurrent);
    std::unique_lock lock(mu);
    auto [it, inserted] = cache.try_emplace(key, std::move(built));
    return *it->second;
  }

  std::unique_ptr<const Entry> build(Collective op, const topology::GroupShape& g, std::int64_t concurrent) const;

  // PCIe nodes: the ring (members in ring order) of group 0 on its first node, then those of
  // the other groups running at once on that node.
  std::vector<std::vector<std::int64_t>> pcie_node_rings(const topology::GroupShape& g, std::int64_t concurrent,
                                                         const std::vector<std::int64_t>& members) const {
    const int gpn = topo.gpus_per_node();
    const std::int64_t node = topo.node_of(members.front());
    auto on_node = [&](const std::vector<std::int64_t>& m) {
      std::vector<std::int64_t> out;
      for (auto x : m)
        if (topo.node_of(x) == node) out.push_back(x);
      return out;
    };
    std::vector<std::vector<std::int64_t>> rings{on_node(members)};
    const std::int64_t groups =
        std::min<std::int64_t>({std::max<std::int64_t>(1, concurrent),
                                topology::max_concurrent_groups(g, gpn, topo.gpus()), static_cast<std::int64_t>(gpn)});
    for (std::int64_t k = 1; k < groups; ++k) {
      auto ring = on_node(topology::place_group(g, k, gpn, topo.gpus()));
      if (ring.size() >= 2) rings.push_back(std::move(ring));
    }
    return rings;
  }

  // network_share() answers, shared by the collectives that ask the same question (all-gather,
  // reduce-scatter and all-reduce of one DP group route the same rings): the fair share of
  // thousands of flows is the most expensive part of a cold entry.
  mutable std::mutex share_mu;
  mutable std::unordered_map<ShareKey, topology::GroupNetworkShare, KeyHash> shares;

  topology::GroupNetworkShare share(const topology::GroupShape& g, std::int64_t concurrent,
                                    topology::TrafficPattern pattern) const {
    const ShareKey key{static_cast<int>(pattern), g.ranks, g.ranks_per_node, g.node_stride, concurrent};
    {
      std::lock_guard lock(share_mu);
      auto it = shares.find(key);
      if (it != shares.end()) return it->second;
    }
    // Process-wide second level: models of other cluster sizes' threads, GPU types with the same
    // network and other precisions ask the same questions.
    const topology::GroupNetworkShare s = topology::network_share_cached(topo, g, concurrent, pattern);
    std::lock_guard lock(share_mu);
    shares.try_emplace(key, s);
    return s;
  }
};

namespace {

/// NCCL's view of a group and flopcast's two physical ones (ring and tree bandwidth).
struct TunedViews {
  const nccl::CommTopo& nccl;
  const nccl::CommTopo& ring_phys;
  const nccl::CommTopo& tree_phys;
};

/// Every (algorithm, protocol) NCCL's tuning enables for `op`: NCCL's choice from its own view,
/// the prediction from the physical one, NVLS and NVLS-tree bandwidth from the NVLink switch
/// (`nvls_bw`, GB/s) and the network share (`net`, GB/s), plus the profile's `extra_us` latency.
void add_tuned_candidates(Entry& e, Collective op, const TunedViews& v, double nvls_bw, double net, double extra_us) {
  const nccl::CommTopo& t = v.nccl;
  const double dn = static_cast<double>(t.ranks);
  const double dppd = static_cast<double>(t.ranks_per_node);
  const std::int64_t nodes = t.nodes;
  for (CommAlgorithm a : kTunedAlgorithms) {
    for (CommProtocol p : kProtocols) {
      Candidate c;
      c.algo = a;
      c.proto = p;
      c.choice = nccl::tune(t, op, a, p);
      if (!c.choice.enabled) continue;
      c.predict = nccl::tune(a == CommAlgorithm::Tree ? v.tree_phys : v.ring_phys, op, a, p);
      c.channels = (a == CommAlgorithm::Nvls || a == CommAlgorithm::NvlsTree) ? t.nvls_graph.channels : t.ring.channels;
      if (a == CommAlgorithm::Nvls) {
        // Per GPU and direction an NVLS all-reduce moves S (multimem reduce pulls every
        // GPU's copy of each chunk) plus S/n (its reduced chunk): algbw = B n/(n+1).
        // All-gather / reduce-scatter move S one way: algbw = B.
        c.predict.algbw_gbs = op == Collective::AllReduce ? nvls_bw * dn / (dn + 1.0) : nvls_bw;
      } else if (a == CommAlgorithm::NvlsTree) {
        const double intra_bw = nvls_bw * dppd / (dppd + 1.0);
        const double inter_bw = nodes == 2 ? net : net / 2.0;  // tree: a node sends S (2 nodes) or 2S
        const auto si = static_cast<std::size_t>(nodes <= 1 ? 0 : nodes == 2 ? 1 : 2);
        const double cap = nccl::kPerChMaxNvlsTreeBw[static_cast<std::size_t>(t.arch_index)][si] *
                           t.nvls_graph.channels * dn / (2.0 * (dn - 1.0));
        c.predict.algbw_gbs = std::min({intra_bw, inter_bw, cap});
      }
      c.predict.latency_us += extra_us;
      e.cands.push_back(c);
    }
  }
}

}  // namespace

std::unique_ptr<const Entry> CommModel::Impl::build(Collective op, const topology::GroupShape& g,
                                                    std::int64_t concurrent) const {
  auto e = std::make_unique<Entry>();
  const int gpn = topo.gpus_per_node();
  const auto members = topology::place_group(g, 0, gpn, topo.gpus());
  FLOPCAST_ASSERT(!members.empty(), "group shape does not fit (call CommModel::check first)");

  // Domains (NCCL nodes) and local ranks per domain (the minimum, as NCCL's minLocalRanks).
  std::vector<std::int64_t> doms;
  for (std::int64_t m : members) doms.push_back(topo.domain_of(m));
  std::sort(doms.begin(), doms.end());
  std::int64_t min_local = static_cast<std::int64_t>(members.size());
  std::int64_t distinct = 0;
  for (std::size_t i = 0; i < doms.size();) {
    std::size_t j = i;
    while (j < doms.size() && doms[j] == doms[i]) ++j;
    min_local = std::min<std::int64_t>(min_local, static_cast<std::int64_t>(j - i));
    ++distinct;
    i = j;
  }
  e->nodes = distinct;
  const std::int64_t n = g.ranks;
  const std::int64_t nodes = e->nodes;
  const std::int64_t ppd = min_local;

  const topology::LinkRates& r = topo.rates();
  const hardware::IntraNode intra = topo.intra();
  const double nvl_fraction = topo.options().nvlink_fraction > 0.0 ? topo.options().nvlink_fraction : 1.0;
  const double nvl_phys = r.nvlink_per_gpu.bytes_per_s / kGB;
  const double nvl_ncc = nvl_phys / nvl_fraction;
  const double pcie = r.pcie.bytes_per_s / kGB;
  const double per_peer_den = gpn > 1 ? static_cast<double>(gpn - 1) : 1.0;

  // Intra-domain bandwidth of a ring over `ppd` GPUs: NCCL's view (total, per path) and flopcast's.
  double ncc_total = nvl_ncc, ncc_max = nvl_ncc, phys_ring_intra = nvl_phys, phys_p2p_intra = nvl_phys;
  if (intra == hardware::IntraNode::NVLinkDirect) {
    ncc_max = nvl_ncc / per_peer_den;
    ncc_total = ncc_max * static_cast<double>(std::max<std::int64_t>(1, ppd - 1));
    phys_p2p_intra = nvl_phys / per_peer_den;
    phys_ring_intra = phys_p2p_intra * static_cast<double>(std::max<std::int64_t>(1, ppd - 1));
  } else if (intra == hardware::IntraNode::PCIe) {
    // The node's PCIe tree (ClusterTopology::pcie_ring_rate): NCCL sees the group's own ring;
    // flopcast also the rings of the other groups on the same node, which share its switch
    // uplinks and socket link.
    const auto pcie_rings = pcie_node_rings(g, concurrent, members);
    const std::vector<std::vector<std::int64_t>> own(pcie_rings.begin(), pcie_rings.begin() + 1);
    ncc_total = ncc_max = topo.pcie_ring_rate(own).bytes_per_s / kGB;
    phys_ring_intra = topo.pcie_ring_rate(pcie_rings).bytes_per_s / kGB;
    phys_p2p_intra = phys_ring_intra;
    if (op == Collective::AllToAll) {
      // Every pair of the node's members at once: a GPU sends to ppd - 1 peers.
      const auto& local = pcie_rings.front();
      phys_p2p_intra = topo.pcie_pairwise_rate(local).bytes_per_s / kGB *
                       static_cast<double>(std::max<std::size_t>(1, local.size() - 1));
    }
  }
  const double nic_ncc = std::min(r.nic_line.bytes_per_s / kGB, pcie);  // NCCL: Mbps / 8000, PCIe-capped

  // Network: what one group's rings get, alone (NCCL's view) and with the others (flopcast's).
  // Point-to-point collectives replace all of it below with their own pattern's share (their
  // entries use neither NCCL's ring view nor ring channels): they skip the ring share.
  const bool p2p = op == Collective::AllToAll || op == Collective::SendRecv;
  topology::GroupNetworkShare ring_share;
  if (nodes > 1 && !p2p) {
    ring_share = share(g, concurrent, topology::TrafficPattern::Ring);
    e->net_channels = ring_share.channels;
  }
  e->groups = nodes > 1 && !p2p
                  ? ring_share.groups
                  : std::clamp<std::int64_t>(concurrent, 1, topology::max_concurrent_groups(g, gpn, topo.gpus()));
  const double net = nodes > 1 ? ring_share.per_group.bytes_per_s / kGB : kInf;

  nccl::CommTopo t;
  t.ranks = n;
  t.nodes = nodes;
  t.ranks_per_node = ppd;
  t.arch_index = nccl::arch_index(topo.gpu().arch);
  t.cpu = cpu;
  t.intra_hw = intra == hardware::IntraNode::PCIe ? nccl::HwClass::Pci : nccl::HwClass::NvLink;
  t.ll128 = t.intra_hw == nccl::HwClass::NvLink || ppd == 1;
  t.nvls = topo.gpu().nvls && intra == hardware::IntraNode::NVSwitch && ppd >= 2 &&
           nccl::kNvlsEfficiency[static_cast<std::size_t>(t.arch_index)] > 0.0;
  t.ring =
      nccl::search_ring_graph(topo.gpu().arch, ppd, nodes, ncc_total, ncc_max, nic_ncc, std::max(1, e->net_channels));
  if (t.nvls)
    t.nvls_graph = nccl::search_nvls_graph(topo.gpu().arch, ppd, nvl_ncc, nic_ncc, std::max(1, e->net_channels));
  e->nccl_view = t;

  // flopcast's view: the same channels, carrying what the links really deliver.
  const double ring_bus = std::min(ppd > 1 ? phys_ring_intra : kInf, net);
  const double tree_bus = std::min(ppd > 1 ? phys_ring_intra : kInf, nodes == 2 ? 2.0 * net : net);
  nccl::CommTopo ring_phys = t;
  ring_phys.ring.bw_intra_gbs = ring_phys.ring.bw_inter_gbs = ring_bus / t.ring.channels;
  nccl::CommTopo tree_phys = t;
  tree_phys.ring.bw_intra_gbs = tree_phys.ring.bw_inter_gbs = tree_bus / t.ring.channels;
  e->phys_view = ring_phys;

  const double nvls_eff = opt.efficiency.nvls_efficiency > 0.0
                              ? opt.efficiency.nvls_efficiency
                              : nccl::kNvlsEfficiency[static_cast<std::size_t>(t.arch_index)];
  const double nvls_bw = nvl_phys * nvls_eff;  // GB/s one way per GPU through the NVLink switch
  const double extra = opt.efficiency.extra_latency_us;

  if (op != Collective::AllToAll && op != Collective::SendRecv) {
    add_tuned_candidates(*e, op, TunedViews{t, ring_phys, tree_phys}, nvls_bw, net, extra);
    return e;
  }

  // Point-to-point collectives.
  const auto hw_intra = t.intra_hw;
  if (op == Collective::SendRecv) {
    if (nodes == 1) {
      e->p2p_hw = hw_intra;
      e->p2p_intra_fraction = 1.0;
      e->p2p_intra_gbs = phys_p2p_intra;
    } else {
      const auto one_way = share(g, concurrent, topology::TrafficPattern::OneWay);
      e->p2p_hw = nccl::HwClass::Net;
      e->p2p_inter_fraction = 1.0;
      e->p2p_inter_gbs = one_way.per_group.bytes_per_s / kGB;
      e->net_channels = one_way.channels;
      e->groups = one_way.groups;
    }
    return e;
  }
  // All-to-all: a rank keeps 1/n, sends (ppd-1)/n over NVLink and (n-ppd)/n over the network.
  const double dn = static_cast<double>(n);
  e->p2p_hw = nodes > 1 ? nccl::HwClass::Net : hw_intra;
  e->p2p_intra_fraction = static_cast<double>(ppd - 1) / dn;
  e->p2p_inter_fraction = static_cast<double>(n - ppd) / dn;
  e->p2p_intra_gbs = intra == hardware::IntraNode::NVSwitch ? nvl_phys
                     : intra == hardware::IntraNode::PCIe   ? phys_p2p_intra
                                                            : phys_ring_intra;
  if (nodes > 1) {
    const auto all_to_all = share(g, concurrent, topology::TrafficPattern::AllToAll);
    e->p2p_inter_gbs = all_to_all.per_group.bytes_per_s / kGB / static_cast<double>(ppd);
    e->net_channels = all_to_all.channels;
    e->groups = all_to_all.groups;
  }
  return e;
}

CommModel::CommModel(const hardware::GpuSpec& gpu, const hardware::FabricSpec& fabric, std::int64_t total_gpus,
                     CommOptions options)
    : impl_(std::make_unique<Impl>(gpu, fabric, total_gpus, options)) {}
CommModel::~CommModel() = default;
CommModel::CommModel(CommModel&&) noexcept = default;
CommModel& CommModel::operator=(CommModel&&) noexcept = default;

const topology::ClusterTopology& CommModel::topology() const { return impl_->topo; }
nccl::CpuVendor CommModel::host_cpu() const { return impl_->cpu; }
const CommOptions& CommModel::options() const { return impl_->opt; }
std::size_t CommModel::cache_size() const {
  std::shared_lock lock(impl_->mu);
  return impl_->cache.size();
}

std::string CommModel::check(Collective op, const topology::GroupShape& group) const {
  if (op == Collective::SendRecv && group.ranks != 2 && group.ranks != 1)
    return "send_recv is between 2 ranks (got " + std::to_string(group.ranks) + ")";
  return topology::check_group_shape(group, impl_->topo.gpus_per_node(), impl_->topo.gpus());
}

namespace {

CollectiveCost finish(Collective op, std::int64_t ranks, double bytes, double time_us, double latency_us) {
  CollectiveCost c;
  c.time = units::Time::from_us(time_us);
  c.latency = units::Time::from_us(latency_us);
  if (time_us > 0.0) c.algbw = units::Bandwidth{bytes / (time_us * 1e-6)};
  c.busbw = units::Bandwidth{c.algbw.bytes_per_s * bus_bandwidth_factor(op, ranks)};
  return c;
}

CollectiveCost p2p_cost(Collective op, const topology::GroupShape& g, const Entry& e, double bytes,
                        const CommEfficiency& eff) {
  // NCCL sends with LL below NCCL_P2P_LL_THRESHOLD per peer, with Simple above; one Ring step's
  // latency constants (NCCL has no p2p entry in tuning.cc).
  const double per_peer = op == Collective::AllToAll ? bytes / static_cast<double>(g.ranks) : bytes;
  const CommProtocol p = per_peer <= nccl::kP2pLlThresholdBytes ? CommProtocol::LL : CommProtocol::Simple;
  const double lat = nccl::base_latency_us(CommAlgorithm::Ring, p) +
                     nccl::hw_latency_us(e.p2p_hw, CommAlgorithm::Ring, p) + eff.extra_latency_us;
  const double proto_factor = p == CommProtocol::LL ? nccl::kRingLlFactor : 1.0;
  double transfer_us = 0.0;
  if (e.p2p_intra_fraction > 0.0)
    transfer_us = std::max(transfer_us, bytes * e.p2p_intra_fraction / (1000.0 * e.p2p_intra_gbs * proto_factor));
  if (e.p2p_inter_fraction > 0.0)
    transfer_us = std::max(transfer_us, bytes * e.p2p_inter_fraction / (1000.0 * e.p2p_inter_gbs * proto_factor));
  CollectiveCost c = finish(op, g.ranks, bytes, lat + transfer_us, lat);
  c.algorithm = CommAlgorithm::P2p;
  c.protocol = p;
  c.channels = e.net_channels;
  c.nodes = e.nodes;
  c.concurrent_groups = e.groups;
  return c;
}

CollectiveCost tuned_cost(Collective op, const topology::GroupShape& g, const Entry& e, const Candidate& c,
                          double bytes) {
  const double time_us = nccl::algo_time_us(e.phys_view, op, c.algo, c.proto, c.predict, bytes);
  CollectiveCost out = finish(op, g.ranks, bytes, time_us, c.predict.latency_us);
  out.algorithm = c.algo;
  out.protocol = c.proto;
  out.channels = c.channels;
  out.nodes = e.nodes;
  out.concurrent_groups = e.groups;
  return out;
}

}  // namespace

CollectiveCost CommModel::cost(Collective op, const topology::GroupShape& group, units::Bytes message,
                               std::int64_t concurrent_groups, const CommOverride& force) const {
  if (group.ranks <= 1) {
    CollectiveCost none;
    none.nodes = 1;
    return none;
  }
  const Entry& e = impl_->entry(op, group, std::max<std::int64_t>(1, concurrent_groups));
  const double bytes = std::max(0.0, message.value);
  if (op == Collective::AllToAll || op == Collective::SendRecv)
    return p2p_cost(op, group, e, bytes, impl_->opt.efficiency);

  // ncclTopoGetAlgoInfo: the minimum of NCCL's modelled times, within NCCL_ALGO / NCCL_PROTO.
  auto pick = [&](bool respect_force) -> const Candidate* {
    const Candidate* best = nullptr;
    double best_us = kInf;
    for (const Candidate& c : e.cands) {
      if (respect_force && force.algorithm && c.algo != *force.algorithm) continue;
      if (respect_force && force.protocol && c.proto != *force.protocol) continue;
      const double us = nccl::algo_time_us(e.nccl_view, op, c.algo, c.proto, c.choice, bytes);
      if (us < best_us) {
        best_us = us;
        best = &c;
      }
    }
    return best;
  };
  const Candidate* chosen = pick(true);
  if (!chosen) chosen = pick(false);
  FLOPCAST_ASSERT(chosen != nullptr, "no algorithm applies to a tuned collective");
  return tuned_cost(op, group, e, *chosen, bytes);
}

std::vector<CandidateCost> CommModel::candidates(Collective op, const topology::GroupShape& group, units::Bytes message,
                                                 std::int64_t concurrent_groups) const {
  std::vector<CandidateCost> out;
  if (group.ranks <= 1) return out;
  const Entry& e = impl_->entry(op, group, std::max<std::int64_t>(1, concurrent_groups));
  const double bytes = std::max(0.0, message.value);
  if (op == Collective::AllToAll || op == Collective::SendRecv) {
    CandidateCost c;
    c.cost = p2p_cost(op, group, e, bytes, impl_->opt.efficiency);
    c.algorithm = c.cost.algorithm;
    c.protocol = c.cost.protocol;
    c.nccl_time = c.cost.time;
    out.push_back(c);
    return out;
  }
  for (const Candidate& c : e.cands) {
    CandidateCost cc;
    cc.algorithm = c.algo;
    cc.protocol = c.proto;
    cc.nccl_time = units::Time::from_us(nccl::algo_time_us(e.nccl_view, op, c.algo, c.proto, c.choice, bytes));
    cc.cost = tuned_cost(op, group, e, c, bytes);
    out.push_back(cc);
  }
  return out;
}

}  // namespace flopcast::comm

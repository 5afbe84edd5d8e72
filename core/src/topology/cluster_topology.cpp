#include "flopcast/topology/cluster_topology.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include "flopcast/units/assert.hpp"

namespace flopcast::topology {

const char* to_string(VertexKind k) {
  switch (k) {
    case VertexKind::Gpu:
      return "gpu";
    case VertexKind::NvSwitch:
      return "nvswitch";
    case VertexKind::PcieRoot:
      return "pcie-root";
    case VertexKind::Nic:
      return "nic";
    case VertexKind::Leaf:
      return "leaf";
    case VertexKind::Spine:
      return "spine";
    case VertexKind::PcieSwitch:
      return "pcie-switch";
  }
  return "?";
}

const char* to_string(LinkKind k) {
  switch (k) {
    case LinkKind::NvLinkToSwitch:
      return "nvlink-up";
    case LinkKind::NvLinkFromSwitch:
      return "nvlink-down";
    case LinkKind::NvLinkPeer:
      return "nvlink-peer";
    case LinkKind::PcieToRoot:
      return "pcie-up";
    case LinkKind::PcieFromRoot:
      return "pcie-down";
    case LinkKind::PcieToSwitch:
      return "pcie-to-switch";
    case LinkKind::PcieFromSwitch:
      return "pcie-from-switch";
    case LinkKind::SwitchToRoot:
      return "pcie-uplink";
    case LinkKind::RootToSwitch:
      return "pcie-downlink";
    case LinkKind::CpuToCpu:
      return "cpu-cpu";
    case LinkKind::GpuToNic:
      return "gpu-nic";
    case LinkKind::NicToGpu:
      return "nic-gpu";
    case LinkKind::NicToLeaf:
      return "nic-leaf";
    case LinkKind::LeafToNic:
      return "leaf-nic";
    case LinkKind::LeafToSpine:
      return "leaf-spine";
    case LinkKind::SpineToLeaf:
      return "spine-leaf";
  }
  return "?";
}

double nic_achievable_fraction(hardware::NetKind /*kind*/, double line_gbps) {
  // See the declaration for the sources of each figure.
  if (line_gbps <= 100.0) return 12.2 / 12.5;  // EDR / 100GbE: ISS nccl-tests#29
  if (line_gbps <= 200.0) return 24.0 / 25.0;  // HDR / 200GbE: ISS nccl#412
  return 47.0 / 50.0;                          // NDR / 400GbE and above: ISS nccl-tests#290, #267
}

namespace {

// NCCL's per-link NVLink bandwidth, GB/s (src/graph/topo.h ncclTopoNVLinkBw: SM80_NVLINK_BW 20.0,
// SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1 for compute capability 10.x, which includes Blackwell
// Ultra's 10.3), used when the catalog gives no nccl_nvlink. Ada has no NVLink (0).
double nccl_nvlink_per_link_gbs(hardware::GpuArch arch) {
  switch (arch) {
    case hardware::GpuArch::Ampere:
      return 20.0;
    case hardware::GpuArch::Hopper:
      return 20.6;
    case hardware::GpuArch::Blackwell:
    case hardware::GpuArch::BlackwellUltra:
      return 40.1;
    case hardware::GpuArch::Ada:
      return 0.0;
  }
  return 20.0;
}

// PCIe x16 bandwidth as NCCL models it (src/graph/topo.cc: width x {16 GT/s: 120,
// 32 GT/s: 240} / 80): Gen4 24 GB/s (Ampere, Ada), Gen5 48 GB/s (Hopper, Blackwell, Blackwell
// Ultra; GK-H100, GK-B200).
double pcie_x16_gbs(hardware::GpuArch arch) {
  switch (arch) {
    case hardware::GpuArch::Ampere:
    case hardware::GpuArch::Ada:
      return 24.0;
    case hardware::GpuArch::Hopper:
    case hardware::GpuArch::Blackwell:
    case hardware::GpuArch::BlackwellUltra:
      return 48.0;
  }
  return 24.0;
}

struct EdgeProps {
  std::int32_t link = 0;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, EdgeProps>;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

}  // namespace

struct ClusterTopology::Impl {
  hardware::GpuSpec gpu;
  hardware::FabricSpec fabric;
  TopologyOptions opt;
  LinkRates rates;
  hardware::IntraNode intra = hardware::IntraNode::NVSwitch;

  std::int64_t n_gpus = 0;
  std::int64_t n_nodes = 0;
  int g = 8;       // GPUs per node
  int nics = 1;    // NICs per node
  int domain = 8;  // GPUs per NVLink domain
  std::int64_t n_domains = 0;
  int npl = 32;  // nodes per leaf (scalable unit)
  std::int64_t n_su = 1;

  std::int32_t nic_base = 0, intra_base = 0, leaf_base = 0, spine = 0;
  std::vector<VertexKind> kinds;
  std::vector<units::Bandwidth> caps;  // per link id
  // Per-link records (kind, ends, capacity) for links(). Routes and fair shares need only
  // ids and caps, and a 16,384-GPU cluster has 10^5 links (2.4 MB of records, which a cold
  // `flopcast simulate` paid for in page faults): they are kept only by the copy of the
  // topology that links() builds on its first call.
  bool keep_links = false;
  mutable std::once_flag links_once;
  mutable std::vector<TopoLink> links;
  /// The switch layer (leaves and spine, vertex v - leaf_base) as a graph, its links in id
  /// order: routes between leaves come from a breadth-first search over it, O(switches).
  /// GPUs, NICs and NVSwitches need no graph: their links are found by index.
  Graph switch_graph;

  std::vector<std::int32_t> gpu_up, gpu_down;  // per GPU: to/from NVSwitch, PCIe switch or PCIe root
  // PCIe nodes: sockets and switches per node; per (node, switch) the uplink ids; per (node,
  // socket a, socket b) the socket link id (-1 on the diagonal); the host CPU's NCCL class.
  int sockets = 1, switches = 0;
  hardware::HostCpu cpu = hardware::HostCpu::Unstated;
  bool intel_host = false;
  std::int32_t pcie_root_base = 0, pcie_switch_base = 0;
  std::vector<std::int32_t> sw_up, sw_down, cpu_link;
  std::vector<std::int32_t> peer;      // per node, g x g direct NVLink ids (-1 on diagonal)
  std::vector<std::int32_t> g2n, n2g;  // per (GPU, j-th NIC of it)
  int nics_per_gpu_max = 1;
  std::vector<std::int32_t> nic_up, nic_down;    // per (node, nic)
  std::vector<std::int32_t> leaf_up, leaf_down;  // per leaf

  mutable std::mutex mu;
  // This topology among every one built in the process (never reused): a thread's memo of the
  // last tree it read (preds_from) is keyed by it, as an address may be reused after a topology
  // is gone.
  const std::uint64_t serial = next_serial();
  // The link into a switch vertex on a breadth-first tree, and the vertex it comes from.
  struct SwitchPred {
    std::int32_t link = -1;  // -1: none (the root, or not reached)
    std::int32_t from = -1;
  };
  // Source leaf vertex -> predecessor of every switch vertex in a BFS from it.
  mutable std::unordered_map<std::int32_t, std::vector<SwitchPred>> bfs_pred;

  std::int32_t add_vertex(VertexKind k) {
    kinds.push_back(k);
    return static_cast<std::int32_t>(kinds.size() - 1);
  }
  std::int32_t add_link(LinkKind k, std::int32_t from, std::int32_t to, units::Bandwidth cap) {
    const auto id = static_cast<std::int32_t>(caps.size());
    caps.push_back(cap);
    if (keep_links) links.push_back(TopoLink{k, from, to, cap});
    return id;
  }

  // nics_of for each local GPU index, computed once in build() (routes ask per GPU).
  std::vector<std::vector<int>> nics_table;
  const std::vector<int>& nics_of(int local) const { return nics_table[static_cast<std::size_t>(local)]; }
  std::vector<int> compute_nics_of(int local) const {
    std::vector<int> out;
    if (nics >= g) {
      for (int k = 0; k < nics; ++k)
        if (static_cast<std::int64_t>(k) * g / nics == local) out.push_back(k);
    } else {
      out.push_back(static_cast<int>(static_cast<std::int64_t>(local) * nics / g));
    }
    return out;
  }
  // The GPU (local index) that owns NIC k for traffic entering the node.
  int owner_of_nic(int k) const {
    if (nics >= g) return static_cast<int>(static_cast<std::int64_t>(k) * g / nics);
    // Shared NIC: the first GPU wired to it.
    for (int i = 0; i < g; ++i)
      if (static_cast<std::int64_t>(i) * nics / g == k) return i;
    return 0;
  }
  std::int32_t leaf_vertex(std::int64_t node, int nic) const {
    const std::int64_t su = node / npl;
    const std::int64_t idx = opt.rail_optimized ? su * nics + nic : su;
    return leaf_base + static_cast<std::int32_t>(idx);
  }
  std::int32_t nic_vertex(std::int64_t node, int nic) const {
    return nic_base + static_cast<std::int32_t>(node * nics + nic);
  }

  void build();
  const std::vector<SwitchPred>& preds_from(std::int32_t source_leaf) const;
  const std::vector<SwitchPred>& tree_from(std::int32_t source_leaf) const;  // under the lock, built once
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> n{0};
    return ++n;
  }
  void intra_route(std::int64_t a, std::int64_t b, std::vector<std::int32_t>& out) const;
  // PCIe nodes: a GPU's switch (local index) and socket.
  int switch_of(int local) const {
    return switches > 0 ? static_cast<int>(static_cast<std::int64_t>(local) * switches / g) : -1;
  }
  int socket_of(int local) const {
    return switches > 0 ? switch_of(local) * sockets / switches
                        : static_cast<int>(static_cast<std::int64_t>(local) * sockets / g);
  }
  PcieHop pcie_hop(std::int64_t a, std::int64_t b) const;
  void pcie_route(std::int64_t a, std::int64_t b, std::vector<std::int32_t>& out) const;
  void build_pcie();
  double set_pcie_host();
};

// The GPU's PCIe rate and, on a PCIe node, its sockets, switches and host links; returns the
// GPU's PCIe rate in GB/s.
double ClusterTopology::Impl::set_pcie_host() {
  // A GPU's PCIe link: the catalog's generation and lanes, else its generation's usual x16.
  const double stated_pcie = hardware::nccl_pcie_gbs(gpu.pcie_generation, gpu.pcie_lanes);
  const double pcie_gbs = stated_pcie > 0.0 ? stated_pcie : pcie_x16_gbs(gpu.arch);
  sockets = intra == hardware::IntraNode::PCIe ? std::max(1, fabric.cpu_sockets) : 1;
  switches = intra == hardware::IntraNode::PCIe ? std::max(0, fabric.pcie_switches) : 0;
  if (switches > 0 && (switches % sockets != 0 || g % switches != 0)) switches = 0;  // the loader refuses these
  cpu = fabric.cpu;
  intel_host = cpu == hardware::HostCpu::IntelSkylake || cpu == hardware::HostCpu::IntelSapphireRapids ||
               cpu == hardware::HostCpu::IntelEmeraldRapids;
  rates.pcie_uplink = units::Bandwidth::from_gbytes_per_s(
      switches > 0 ? hardware::nccl_pcie_gbs(fabric.pcie_uplink_generation, fabric.pcie_uplink_lanes) : 0.0);
  // Sockets of an unstated CPU: NCCL's Skylake-class UPI figure (the loader asks for cpu when
  // a fabric states more than one socket).
  rates.cpu_link = units::Bandwidth::from_gbytes_per_s(
      sockets > 1 ? (cpu == hardware::HostCpu::Unstated ? 10.0 : hardware::nccl_inter_socket_gbs(cpu)) : 0.0);
  return pcie_gbs;
}

void ClusterTopology::Impl::build() {
  g = std::max(1, fabric.gpus_per_node);
  nics = std::max(1, fabric.nics_per_node);
  nics_table.clear();
  for (int i = 0; i < g; ++i) nics_table.push_back(compute_nics_of(i));
  n_nodes = (n_gpus + g - 1) / g;
  intra = fabric.intra;

  double nvl_gbs = gpu.nccl_nvlink.gbytes_per_s();
  if (nvl_gbs <= 0.0) nvl_gbs = gpu.nvlink_links * nccl_nvlink_per_link_gbs(gpu.arch);
  if (nvl_gbs <= 0.0 && intra != hardware::IntraNode::PCIe) intra = hardware::IntraNode::PCIe;  // no NVLink to use
  domain = intra == hardware::IntraNode::NVSwitch ? fabric.nvlink_group() : g;
  n_domains = (n_gpus + domain - 1) / domain;
  npl = static_cast<int>(std::clamp<std::int64_t>(opt.nodes_per_leaf, 1, std::max<std::int64_t>(1, n_nodes)));
  n_su = (n_nodes + npl - 1) / npl;

  const double pcie_gbs = set_pcie_host();
  const double frac = opt.nic_fraction > 0.0 ? opt.nic_fraction : nic_achievable_fraction(fabric.kind, fabric.nic_gbps);
  rates.nvlink_per_gpu = units::Bandwidth::from_gbytes_per_s(nvl_gbs * opt.nvlink_fraction);
  rates.pcie = units::Bandwidth::from_gbytes_per_s(pcie_gbs);
  rates.nic_line = fabric.nic_line_rate();
  rates.nic_fraction = frac;
  rates.nic = units::Bandwidth{rates.nic_line.bytes_per_s * frac};
  rates.nic_path = units::Bandwidth{std::min(rates.nic.bytes_per_s, rates.pcie.bytes_per_s)};
  const double oversub = fabric.oversubscription >= 1.0 ? fabric.oversubscription : 1.0;
  const int nics_per_leaf = opt.rail_optimized ? npl : npl * nics;
  rates.leaf_uplink = units::Bandwidth{nics_per_leaf * rates.nic.bytes_per_s / oversub};

  // Vertices: GPUs, NICs, NVSwitch per domain or PCIe root per node, leaves, spine.
  kinds.reserve(static_cast<std::size_t>(n_gpus + n_nodes * nics + n_nodes * (sockets + switches) + n_su * nics + 1));
  for (std::int64_t i = 0; i < n_gpus; ++i) add_vertex(VertexKind::Gpu);
  nic_base = static_cast<std::int32_t>(kinds.size());
  for (std::int64_t i = 0; i < n_nodes * nics; ++i) add_vertex(VertexKind::Nic);
  intra_base = static_cast<std::int32_t>(kinds.size());
  if (intra == hardware::IntraNode::NVSwitch) {
    for (std::int64_t d = 0; d < n_domains; ++d) add_vertex(VertexKind::NvSwitch);
  } else if (intra == hardware::IntraNode::PCIe) {
    pcie_root_base = static_cast<std::int32_t>(kinds.size());
    for (std::int64_t n = 0; n < n_nodes * sockets; ++n) add_vertex(VertexKind::PcieRoot);
    pcie_switch_base = static_cast<std::int32_t>(kinds.size());
    for (std::int64_t n = 0; n < n_nodes * switches; ++n) add_vertex(VertexKind::PcieSwitch);
  }
  leaf_base = static_cast<std::int32_t>(kinds.size());
  const std::int64_t n_leaves = opt.rail_optimized ? n_su * nics : n_su;
  for (std::int64_t l = 0; l < n_leaves; ++l) add_vertex(VertexKind::Leaf);
  spine = add_vertex(VertexKind::Spine);

  // Links, an upper bound (reserved once: a 16,384-GPU cluster has ~10^5 of them).
  for (int i = 0; i < g; ++i) nics_per_gpu_max = std::max(nics_per_gpu_max, static_cast<int>(nics_of(i).size()));
  const std::int64_t intra_links = intra == hardware::IntraNode::NVLinkDirect ? n_nodes * g * (g - 1)
                                   : intra == hardware::IntraNode::PCIe
                                       ? 2 * n_gpus + n_nodes * (2 * switches + sockets * (sockets - 1))
                                       : 2 * n_gpus;
  const auto link_bound =
      static_cast<std::size_t>(intra_links + 2 * n_gpus * nics_per_gpu_max + 2 * n_nodes * nics + 2 * n_leaves);
  caps.reserve(link_bound);
  if (keep_links) links.reserve(link_bound);

  // Inside nodes and domains.
  gpu_up.assign(static_cast<std::size_t>(n_gpus), -1);
  gpu_down.assign(static_cast<std::size_t>(n_gpus), -1);
  if (intra == hardware::IntraNode::NVSwitch) {
    for (std::int64_t i = 0; i < n_gpus; ++i) {
      const auto sw = intra_base + static_cast<std::int32_t>(i / domain);
      const auto v = static_cast<std::int32_t>(i);
      gpu_up[static_cast<std::size_t>(i)] = add_link(LinkKind::NvLinkToSwitch, v, sw, rates.nvlink_per_gpu);
      gpu_down[static_cast<std::size_t>(i)] = add_link(LinkKind::NvLinkFromSwitch, sw, v, rates.nvlink_per_gpu);
    }
  } else if (intra == hardware::IntraNode::PCIe) {
    build_pcie();
  } else {
    // Direct NVLink: a GPU's links are split evenly over the other GPUs of its node
    // (e.g. HGX A100 4-GPU: 12 links, 4 to each of 3 peers).
    peer.assign(static_cast<std::size_t>(n_nodes * g * g), -1);
    const units::Bandwidth per_peer{g > 1 ? rates.nvlink_per_gpu.bytes_per_s / (g - 1) : 0.0};
    for (std::int64_t n = 0; n < n_nodes; ++n) {
      for (int i = 0; i < g; ++i) {
        for (int j = 0; j < g; ++j) {
          const std::int64_t gi = n * g + i, gj = n * g + j;
          if (i == j || gi >= n_gpus || gj >= n_gpus) continue;
          peer[static_cast<std::size_t>((n * g + i) * g + j)] =
              add_link(LinkKind::NvLinkPeer, static_cast<std::int32_t>(gi), static_cast<std::int32_t>(gj), per_peer);
        }
      }
    }
  }

  // GPU <-> NIC over PCIe.
  g2n.assign(static_cast<std::size_t>(n_gpus * nics_per_gpu_max), -1);
  n2g.assign(static_cast<std::size_t>(n_gpus * nics_per_gpu_max), -1);
  for (std::int64_t i = 0; i < n_gpus; ++i) {
    const auto node = i / g;
    const auto& ks = nics_of(static_cast<int>(i % g));
    for (std::size_t j = 0; j < ks.size(); ++j) {
      const auto nv = nic_vertex(node, ks[j]);
      const auto slot = static_cast<std::size_t>(i * nics_per_gpu_max) + j;
      g2n[slot] = add_link(LinkKind::GpuToNic, static_cast<std::int32_t>(i), nv, rates.pcie);
      n2g[slot] = add_link(LinkKind::NicToGpu, nv, static_cast<std::int32_t>(i), rates.pcie);
    }
  }

  // NIC <-> leaf.
  nic_up.assign(static_cast<std::size_t>(n_nodes * nics), -1);
  nic_down.assign(static_cast<std::size_t>(n_nodes * nics), -1);
  for (std::int64_t n = 0; n < n_nodes; ++n) {
    for (int k = 0; k < nics; ++k) {
      const auto nv = nic_vertex(n, k);
      const auto lv = leaf_vertex(n, k);
      nic_up[static_cast<std::size_t>(n * nics + k)] = add_link(LinkKind::NicToLeaf, nv, lv, rates.nic);
      nic_down[static_cast<std::size_t>(n * nics + k)] = add_link(LinkKind::LeafToNic, lv, nv, rates.nic);
    }
  }

  // Leaf <-> spine: a leaf's uplinks carry its NICs' rate divided by the oversubscription. The
  // spine layer itself is non-blocking (NV-SPOD-H100/B200: equal cable counts at each tier).
  // The switch graph gets the same links as edges, in id order.
  leaf_up.assign(static_cast<std::size_t>(n_leaves), -1);
  leaf_down.assign(static_cast<std::size_t>(n_leaves), -1);
  switch_graph.clear();
  for (std::size_t v = static_cast<std::size_t>(leaf_base); v < kinds.size(); ++v) boost::add_vertex(switch_graph);
  const auto sw = [&](std::int32_t v) { return static_cast<std::size_t>(v - leaf_base); };
  for (std::int64_t l = 0; l < n_leaves; ++l) {
    const std::int64_t su = opt.rail_optimized ? l / nics : l;
    const std::int64_t nodes_here = std::min<std::int64_t>(npl, n_nodes - su * npl);
    const std::int64_t nics_here = opt.rail_optimized ? nodes_here : nodes_here * nics;
    const units::Bandwidth up{static_cast<double>(nics_here) * rates.nic.bytes_per_s / oversub};
    const auto lv = leaf_base + static_cast<std::int32_t>(l);
    const std::int32_t to_spine = add_link(LinkKind::LeafToSpine, lv, spine, up);
    boost::add_edge(sw(lv), sw(spine), EdgeProps{to_spine}, switch_graph);
    const std::int32_t to_leaf = add_link(LinkKind::SpineToLeaf, spine, lv, up);
    boost::add_edge(sw(spine), sw(lv), EdgeProps{to_leaf}, switch_graph);
    leaf_up[static_cast<std::size_t>(l)] = to_spine;
    leaf_down[static_cast<std::size_t>(l)] = to_leaf;
  }
}

const std::vector<ClusterTopology::Impl::SwitchPred>& ClusterTopology::Impl::preds_from(
    std::int32_t source_leaf) const {
  // Routes come in runs from one leaf (a ring's consecutive hops): this thread's last answer,
  // without the lock and the lookup. The trees are never removed, so the reference stays valid
  // while the topology lives, and a topology's serial is never reused after it is gone.
  struct LastTree {
    std::uint64_t serial = 0;
    std::int32_t leaf = -1;
    const std::vector<SwitchPred>* preds = nullptr;
  };
  thread_local LastTree last;
  if (last.preds && last.serial == serial && last.leaf == source_leaf) return *last.preds;
  const std::vector<SwitchPred>& found = tree_from(source_leaf);
  last = {serial, source_leaf, &found};
  return found;
}

const std::vector<ClusterTopology::Impl::SwitchPred>& ClusterTopology::Impl::tree_from(std::int32_t source_leaf) const {
  std::lock_guard lock(mu);
  auto it = bfs_pred.find(source_leaf);
  if (it != bfs_pred.end()) return it->second;

  // Breadth-first search over the switch layer only (leaves and spines), so the cost does not
  // grow with the number of GPUs.
  const std::size_t n = boost::num_vertices(switch_graph);
  std::vector<Edge> pred_edge(n);
  std::vector<char> has_pred(n, 0);
  struct Recorder : boost::default_bfs_visitor {
    std::vector<Edge>* pred = nullptr;
    std::vector<char>* has = nullptr;
    void tree_edge(Edge e, const Graph& sg) const {
      const auto t = boost::target(e, sg);
      (*pred)[t] = e;
      (*has)[t] = 1;
    }
  };
  Recorder rec;
  rec.pred = &pred_edge;
  rec.has = &has_pred;
  boost::breadth_first_search(switch_graph, static_cast<std::size_t>(source_leaf - leaf_base), boost::visitor(rec));

  std::vector<SwitchPred> preds(n);
  for (std::size_t v = 0; v < n; ++v) {
    if (has_pred[v])
      preds[v] = SwitchPred{switch_graph[pred_edge[v]].link,
                            leaf_base + static_cast<std::int32_t>(boost::source(pred_edge[v], switch_graph))};
  }
  return bfs_pred.emplace(source_leaf, std::move(preds)).first->second;
}

void ClusterTopology::Impl::build_pcie() {
  // Per node: a root complex per socket, the switches under them, every GPU under its switch
  // (or on a root port of its socket), each switch's uplink, and a link each way between
  // every two sockets.
  for (std::int64_t i = 0; i < n_gpus; ++i) {
    const std::int64_t node = i / g;
    const int local = static_cast<int>(i % g);
    const auto v = static_cast<std::int32_t>(i);
    if (switches > 0) {
      const auto sw = pcie_switch_base + static_cast<std::int32_t>(node * switches + switch_of(local));
      gpu_up[static_cast<std::size_t>(i)] = add_link(LinkKind::PcieToSwitch, v, sw, rates.pcie);
      gpu_down[static_cast<std::size_t>(i)] = add_link(LinkKind::PcieFromSwitch, sw, v, rates.pcie);
    } else {
      const auto root = pcie_root_base + static_cast<std::int32_t>(node * sockets + socket_of(local));
      gpu_up[static_cast<std::size_t>(i)] = add_link(LinkKind::PcieToRoot, v, root, rates.pcie);
      gpu_down[static_cast<std::size_t>(i)] = add_link(LinkKind::PcieFromRoot, root, v, rates.pcie);
    }
  }
  sw_up.assign(static_cast<std::size_t>(n_nodes * switches), -1);
  sw_down.assign(static_cast<std::size_t>(n_nodes * switches), -1);
  cpu_link.assign(static_cast<std::size_t>(n_nodes * sockets * sockets), -1);
  for (std::int64_t n = 0; n < n_nodes; ++n) {
    for (int w = 0; w < switches; ++w) {
      const auto sw = pcie_switch_base + static_cast<std::int32_t>(n * switches + w);
      const auto root = pcie_root_base + static_cast<std::int32_t>(n * sockets + w * sockets / switches);
      sw_up[static_cast<std::size_t>(n * switches + w)] = add_link(LinkKind::SwitchToRoot, sw, root, rates.pcie_uplink);
      sw_down[static_cast<std::size_t>(n * switches + w)] =
          add_link(LinkKind::RootToSwitch, root, sw, rates.pcie_uplink);
    }
    for (int x = 0; x < sockets; ++x)
      for (int y = 0; y < sockets; ++y)
        if (x != y)
          cpu_link[static_cast<std::size_t>((n * sockets + x) * sockets + y)] =
              add_link(LinkKind::CpuToCpu, pcie_root_base + static_cast<std::int32_t>(n * sockets + x),
                       pcie_root_base + static_cast<std::int32_t>(n * sockets + y), rates.cpu_link);
  }
}

PcieHop ClusterTopology::Impl::pcie_hop(std::int64_t a, std::int64_t b) const {
  const int la = static_cast<int>(a % g), lb = static_cast<int>(b % g);
  if (!gpu.peer_to_peer) return PcieHop::ThroughHost;
  // paths.cc: P2P up to PATH_PXB (one switch between them); on AMD with at most 2 GPUs up to
  // PATH_SYS.
  if (switches > 0 && switch_of(la) == switch_of(lb)) return PcieHop::PeerToPeer;
  if (cpu == hardware::HostCpu::Amd && g <= 2) return PcieHop::PeerToPeer;
  return PcieHop::ThroughHost;
}

void ClusterTopology::Impl::pcie_route(std::int64_t a, std::int64_t b, std::vector<std::int32_t>& out) const {
  const std::int64_t node = a / g;
  const int la = static_cast<int>(a % g), lb = static_cast<int>(b % g);
  out.push_back(gpu_up[static_cast<std::size_t>(a)]);
  const bool same_switch = switches > 0 && switch_of(la) == switch_of(lb);
  if (!(same_switch && pcie_hop(a, b) == PcieHop::PeerToPeer)) {
    // Through the host: up to the CPU of a's socket, across to b's socket, down to b.
    if (switches > 0) out.push_back(sw_up[static_cast<std::size_t>(node * switches + switch_of(la))]);
    const int sa = socket_of(la), sb = socket_of(lb);
    if (sa != sb) out.push_back(cpu_link[static_cast<std::size_t>((node * sockets + sa) * sockets + sb)]);
    if (switches > 0) out.push_back(sw_down[static_cast<std::size_t>(node * switches + switch_of(lb))]);
  }
  out.push_back(gpu_down[static_cast<std::size_t>(b)]);
}

void ClusterTopology::Impl::intra_route(std::int64_t a, std::int64_t b, std::vector<std::int32_t>& out) const {
  if (a == b) return;
  if (intra == hardware::IntraNode::PCIe) {
    pcie_route(a, b, out);
    return;
  }
  if (intra == hardware::IntraNode::NVLinkDirect) {
    const std::int64_t node = a / g;
    out.push_back(peer[static_cast<std::size_t>((node * g + a % g) * g + b % g)]);
  } else {
    out.push_back(gpu_up[static_cast<std::size_t>(a)]);
    out.push_back(gpu_down[static_cast<std::size_t>(b)]);
  }
}

ClusterTopology::ClusterTopology(const hardware::GpuSpec& gpu, const hardware::FabricSpec& fabric,
                                 std::int64_t total_gpus, TopologyOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->gpu = gpu;
  impl_->fabric = fabric;
  impl_->opt = options;
  impl_->n_gpus = std::max<std::int64_t>(1, total_gpus);
  impl_->build();
}
ClusterTopology::~ClusterTopology() = default;
ClusterTopology::ClusterTopology(ClusterTopology&&) noexcept = default;
ClusterTopology& ClusterTopology::operator=(ClusterTopology&&) noexcept = default;

const hardware::GpuSpec& ClusterTopology::gpu() const { return impl_->gpu; }
const hardware::FabricSpec& ClusterTopology::fabric() const { return impl_->fabric; }
const TopologyOptions& ClusterTopology::options() const { return impl_->opt; }
const LinkRates& ClusterTopology::rates() const { return impl_->rates; }
hardware::IntraNode ClusterTopology::intra() const { return impl_->intra; }
std::int64_t ClusterTopology::gpus() const { return impl_->n_gpus; }
std::int64_t ClusterTopology::nodes() const { return impl_->n_nodes; }
int ClusterTopology::gpus_per_node() const { return impl_->g; }
int ClusterTopology::nics_per_node() const { return impl_->nics; }
int ClusterTopology::domain_size() const { return impl_->domain; }
std::int64_t ClusterTopology::domains() const { return impl_->n_domains; }
int ClusterTopology::nodes_per_leaf() const { return impl_->npl; }
std::int64_t ClusterTopology::node_of(std::int64_t gpu) const { return gpu / impl_->g; }
int ClusterTopology::local_index(std::int64_t gpu) const { return static_cast<int>(gpu % impl_->g); }
std::int64_t ClusterTopology::domain_of(std::int64_t gpu) const { return gpu / impl_->domain; }
std::int64_t ClusterTopology::scalable_unit_of(std::int64_t node) const { return node / impl_->npl; }
std::vector<int> ClusterTopology::nics_of(int local) const {
  return local >= 0 && local < impl_->g ? impl_->nics_of(local) : impl_->compute_nics_of(local);
}
std::size_t ClusterTopology::vertex_count() const { return impl_->kinds.size(); }
VertexKind ClusterTopology::vertex_kind(std::int32_t v) const {
  FLOPCAST_ASSERT(v >= 0 && static_cast<std::size_t>(v) < impl_->kinds.size(), "vertex out of range");
  return impl_->kinds[static_cast<std::size_t>(v)];
}
std::int32_t ClusterTopology::gpu_vertex(std::int64_t gpu) const { return static_cast<std::int32_t>(gpu); }
std::int32_t ClusterTopology::nic_vertex(std::int64_t node, int nic) const { return impl_->nic_vertex(node, nic); }
std::int32_t ClusterTopology::gpu_to_nic_link(std::int64_t gpu, int nic) const {
  const Impl& m = *impl_;
  const auto& ks = m.nics_of(static_cast<int>(gpu % m.g));
  for (std::size_t j = 0; j < ks.size(); ++j)
    if (ks[j] == nic) return m.g2n[static_cast<std::size_t>(gpu * m.nics_per_gpu_max) + j];
  return -1;
}
std::int32_t ClusterTopology::nic_to_gpu_link(int nic, std::int64_t gpu) const {
  const Impl& m = *impl_;
  const auto& ks = m.nics_of(static_cast<int>(gpu % m.g));
  for (std::size_t j = 0; j < ks.size(); ++j)
    if (ks[j] == nic) return m.n2g[static_cast<std::size_t>(gpu * m.nics_per_gpu_max) + j];
  return -1;
}
std::int32_t ClusterTopology::leaf_of(std::int64_t node, int nic) const { return impl_->leaf_vertex(node, nic); }
std::int32_t ClusterTopology::nic_to_leaf_link(std::int64_t node, int nic) const {
  return impl_->nic_up[static_cast<std::size_t>(node * impl_->nics + nic)];
}
std::int32_t ClusterTopology::leaf_to_nic_link(std::int64_t node, int nic) const {
  return impl_->nic_down[static_cast<std::size_t>(node * impl_->nics + nic)];
}
std::vector<std::int32_t> ClusterTopology::leaf_route(std::int32_t from_leaf, std::int32_t to_leaf) const {
  std::vector<std::int32_t> out;
  append_leaf_route(from_leaf, to_leaf, out);
  return out;
}
void ClusterTopology::append_leaf_route(std::int32_t from_leaf, std::int32_t to_leaf,
                                        std::vector<std::int32_t>& out) const {
  const Impl& m = *impl_;
  if (from_leaf == to_leaf) return;
  const auto& preds = m.preds_from(from_leaf);
  const auto first = static_cast<std::ptrdiff_t>(out.size());
  std::int32_t v = to_leaf;
  while (v != from_leaf) {
    const Impl::SwitchPred& p = preds[static_cast<std::size_t>(v - m.leaf_base)];
    FLOPCAST_ASSERT(p.link >= 0, "switch layer is not connected");
    out.push_back(p.link);
    v = p.from;
  }
  std::reverse(out.begin() + first, out.end());
}
std::span<const TopoLink> ClusterTopology::links() const {
  Impl& m = *impl_;
  std::call_once(m.links_once, [&m] {
    // The same build with records kept: the same links, in the same order.
    Impl full;
    full.gpu = m.gpu;
    full.fabric = m.fabric;
    full.opt = m.opt;
    full.n_gpus = m.n_gpus;
    full.keep_links = true;
    full.build();
    FLOPCAST_ASSERT(full.links.size() == m.caps.size(), "link records differ from the topology");
    m.links = std::move(full.links);
  });
  return m.links;
}
std::span<const units::Bandwidth> ClusterTopology::capacities() const { return impl_->caps; }

std::vector<std::int32_t> ClusterTopology::nic_route(std::int64_t a, int nic_a, std::int64_t b, int nic_b) const {
  std::vector<std::int32_t> out;
  append_nic_route(a, nic_a, b, nic_b, out);
  return out;
}

void ClusterTopology::append_nic_route(std::int64_t a, int nic_a, std::int64_t b, int nic_b,
                                       std::vector<std::int32_t>& out) const {
  const Impl& m = *impl_;
  FLOPCAST_ASSERT(a >= 0 && a < m.n_nodes && b >= 0 && b < m.n_nodes, "node out of range");
  FLOPCAST_ASSERT(nic_a >= 0 && nic_a < m.nics && nic_b >= 0 && nic_b < m.nics, "NIC out of range");
  if (a == b && nic_a == nic_b) return;
  out.push_back(m.nic_up[static_cast<std::size_t>(a * m.nics + nic_a)]);
  append_leaf_route(m.leaf_vertex(a, nic_a), m.leaf_vertex(b, nic_b), out);
  out.push_back(m.nic_down[static_cast<std::size_t>(b * m.nics + nic_b)]);
}

PcieHop ClusterTopology::pcie_hop(std::int64_t a, std::int64_t b) const { return impl_->pcie_hop(a, b); }

namespace {

// Adds one flow a -> b over a PCIe node's links to `load` (link id -> load in units of the flow's
// rate), with Intel's P2P overhead on the PCIe links of a flow through one Intel root complex.
void add_pcie_flow(const ClusterTopology& t, std::int64_t a, std::int64_t b, bool intel_host,
                   std::vector<std::pair<std::int32_t, double>>& load) {
  const auto route = t.gpu_route(a, b);
  const auto links = t.links();
  bool through_root = false, across = false;
  for (auto id : route) {
    const auto k = links[static_cast<std::size_t>(id)].kind;
    through_root |= k == LinkKind::PcieToRoot || k == LinkKind::SwitchToRoot;
    across |= k == LinkKind::CpuToCpu;
  }
  // NCCL topo.h INTEL_P2P_OVERHEAD(bw) = bw * 6 / 5, charged by search.cc followPath on the PCI
  // links of a PATH_PHB path whose CPU is Intel (not on PATH_SYS, which crosses sockets).
  const double pci_weight = intel_host && through_root && !across ? 6.0 / 5.0 : 1.0;
  for (auto id : route) {
    const double w = links[static_cast<std::size_t>(id)].kind == LinkKind::CpuToCpu ? 1.0 : pci_weight;
    auto it = std::find_if(load.begin(), load.end(), [&](const auto& e) { return e.first == id; });
    if (it == load.end())
      load.emplace_back(id, w);
    else
      it->second += w;
  }
}

units::Bandwidth rate_of(const ClusterTopology& t, const std::vector<std::pair<std::int32_t, double>>& load) {
  if (load.empty()) return t.rates().pcie;
  double rate = std::numeric_limits<double>::infinity();
  const auto caps = t.capacities();
  for (const auto& [id, l] : load) rate = std::min(rate, caps[static_cast<std::size_t>(id)].bytes_per_s / l);
  return units::Bandwidth{rate};
}

}  // namespace

units::Bandwidth ClusterTopology::pcie_ring_rate(std::span<const std::vector<std::int64_t>> rings) const {
  std::vector<std::pair<std::int32_t, double>> load;
  for (const auto& ring : rings) {
    if (ring.size() < 2) continue;
    for (std::size_t i = 0; i < ring.size(); ++i)
      add_pcie_flow(*this, ring[i], ring[(i + 1) % ring.size()], impl_->intel_host, load);
  }
  return rate_of(*this, load);
}

units::Bandwidth ClusterTopology::pcie_pairwise_rate(std::span<const std::int64_t> members) const {
  std::vector<std::pair<std::int32_t, double>> load;
  for (auto a : members)
    for (auto b : members)
      if (a != b) add_pcie_flow(*this, a, b, impl_->intel_host, load);
  return rate_of(*this, load);
}

std::vector<std::int32_t> ClusterTopology::gpu_route(std::int64_t a, std::int64_t b) const {
  const Impl& m = *impl_;
  FLOPCAST_ASSERT(a >= 0 && a < m.n_gpus && b >= 0 && b < m.n_gpus, "GPU out of range");
  std::vector<std::int32_t> out;
  if (a == b) return out;
  if (a / m.domain == b / m.domain) {
    m.intra_route(a, b, out);
    return out;
  }
  const std::int64_t node_a = a / m.g, node_b = b / m.g;
  const int k = m.nics_of(static_cast<int>(a % m.g)).front();
  out.push_back(m.g2n[static_cast<std::size_t>(a * m.nics_per_gpu_max)]);
  std::int64_t owner = node_b * m.g + m.owner_of_nic(k);
  int k_in = k;
  if (owner >= m.n_gpus) {  // a last node that is not full may lack the GPU on that rail
    owner = b;
    k_in = m.nics_of(static_cast<int>(b % m.g)).front();
  }
  append_nic_route(node_a, k, node_b, k_in, out);
  const auto& ks = m.nics_of(static_cast<int>(owner % m.g));
  const auto j = static_cast<std::size_t>(std::find(ks.begin(), ks.end(), k_in) - ks.begin());
  out.push_back(m.n2g[static_cast<std::size_t>(owner * m.nics_per_gpu_max) + j]);
  m.intra_route(owner, b, out);
  return out;
}

}  // namespace flopcast::topology

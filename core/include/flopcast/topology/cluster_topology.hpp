#pragma once
/// The cluster as a graph (Boost.Graph inside the .cpp): GPUs, the NVLink switch of each
/// NVLink domain (or direct NVLink, or PCIe), one or more NICs per GPU, leaf switches (one per
/// rail per scalable unit when rail-optimised), and a spine with configurable
/// oversubscription. Every edge is one direction of a full-duplex link with its achievable
/// one-way bandwidth. Built once per cluster; routes between switches are found by
/// breadth-first search and memoised.
///
/// Structure (NV-SPOD-H100): NIC i of every
/// node is cabled to the leaf of rail i of its scalable unit (SU); "traffic per rail ... is
/// always one hop away from the other nodes in a SU; traffic between SUs traverses the spine".
/// GB200 NVL72: one NVLink domain of 72 GPUs spans 18 compute trays (nodes).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::topology {

/// What a vertex of the cluster graph is. PcieRoot: the root complex of one CPU socket of a node
/// without NVLink; PcieSwitch: a PCIe switch under it carrying GPUs.
enum class VertexKind { Gpu, NvSwitch, PcieRoot, Nic, Leaf, Spine, PcieSwitch };
/// "gpu", "nvswitch", "pcie-root", "nic", "leaf", "spine", "pcie-switch".
const char* to_string(VertexKind k);

/// What an edge of the cluster graph is (each direction of a link is its own edge).
enum class LinkKind {
  NvLinkToSwitch,    ///< GPU -> NVLink switch of its domain (all of the GPU's links together)
  NvLinkFromSwitch,  ///< NVLink switch -> GPU
  NvLinkPeer,        ///< direct GPU -> GPU NVLink (no switch: the GPU's links split over its peers)
  PcieToRoot,        ///< GPU -> PCIe root complex of its socket (nodes without NVLink, no switch)
  PcieFromRoot,      ///< PCIe root complex -> GPU
  PcieToSwitch,      ///< GPU -> its PCIe switch
  PcieFromSwitch,    ///< PCIe switch -> GPU
  SwitchToRoot,      ///< PCIe switch -> its socket's root complex (the switch's uplink)
  RootToSwitch,      ///< root complex -> PCIe switch
  CpuToCpu,          ///< one socket's root complex -> another's (QPI/UPI, xGMI)
  GpuToNic,          ///< PCIe, GPU -> NIC (GPUDirect RDMA)
  NicToGpu,          ///< PCIe, NIC -> GPU
  NicToLeaf,         ///< NIC -> leaf switch port
  LeafToNic,         ///< leaf switch -> NIC
  LeafToSpine,       ///< all uplinks of a leaf, aggregated
  SpineToLeaf,       ///< all downlinks to a leaf, aggregated
};
/// "nvlink-up", "gpu-nic", "leaf-spine", "pcie-uplink", "cpu-cpu", ...
const char* to_string(LinkKind k);

/// Knobs of the network model that the catalog does not carry.
struct TopologyOptions {
  /// Nodes per scalable unit (nodes cabled to the same leaf of each rail). NV-SPOD-H100:
  /// "Each group of 32 nodes is rail-aligned" (1 SU = 31 nodes + UFM, rounded to 32 ports).
  int nodes_per_leaf = 32;
  /// Rail-optimised cabling (NIC i of every node to leaf i of its SU). False: one top-of-rack
  /// leaf per SU takes every NIC of its nodes.
  bool rail_optimized = true;
  /// Achievable fraction of NIC line rate; 0 = by line rate (nic_achievable_fraction()).
  double nic_fraction = 0.0;
  /// Multiplier on the GPU's NCCL-effective NVLink bandwidth (1 = NCCL's own topo.h figure).
  double nvlink_fraction = 1.0;
};

/// Achievable fraction of a NIC's line rate seen as nccl-tests bus bandwidth per NIC
/// (NCCL maintainers' figures): 100 Gb/s 12.2 of 12.5 GB/s (ISS nccl-tests#29, sjeaugey);
/// 200 Gb/s 24 of 25 (ISS nccl#412, sjeaugey "24GB/s"); 400 Gb/s 47 of 50 (ISS nccl-tests#290
/// and #267, AddyLaddy "46-48"/"48-49 GB/s per NIC"). 800 Gb/s: no measurement found; NDR's
/// fraction is assumed. RoCE v2 and plain Ethernet use the same figures (NCCL drives RoCE
/// through the same net_ib transport; no separate measurement was found for either).
double nic_achievable_fraction(hardware::NetKind kind, double line_gbps);

/// How NCCL moves data between two GPUs of a node without NVLink (src/graph/paths.cc
/// ncclTopoCheckP2p): peer-to-peer (P2P transport) when the part allows it and the path crosses
/// no CPU (one PCIe switch; NCCL's default P2P level PATH_PXB), else through host memory (SHM
/// transport: GPU -> its CPU -> (other socket) -> GPU). On AMD hosts with at most 2 GPUs NCCL
/// allows P2P through the CPU too.
enum class PcieHop { PeerToPeer, ThroughHost };

/// One direction of a link.
struct TopoLink {
  LinkKind kind = LinkKind::NvLinkToSwitch;
  std::int32_t from = 0;      ///< vertex id
  std::int32_t to = 0;        ///< vertex id
  units::Bandwidth capacity;  ///< achievable one-way rate
};

/// The one-way rates the graph was built with (after efficiencies).
struct LinkRates {
  units::Bandwidth nvlink_per_gpu;  ///< NCCL-effective NVLink of one GPU (all links) x nvlink_fraction
  units::Bandwidth pcie;            ///< a GPU's PCIe link: Gen4 x16 24, Gen5 48, Gen6 96 GB/s (NCCL topo.cc)
  units::Bandwidth pcie_uplink;     ///< a PCIe switch's link to its CPU (PCIe nodes with switches)
  units::Bandwidth cpu_link;        ///< socket to socket, NCCL's figure for the CPU (PCIe nodes)
  units::Bandwidth nic_line;        ///< NIC line rate
  double nic_fraction = 1.0;        ///< achievable fraction of the line rate
  units::Bandwidth nic;             ///< nic_line x nic_fraction (a switch port carries the same)
  units::Bandwidth nic_path;        ///< min(nic, pcie): what one GPU gets through one NIC
  units::Bandwidth leaf_uplink;     ///< all uplinks of a full leaf, after oversubscription
};

/// The cluster graph. Cheap to query from many threads once built.
class ClusterTopology {
 public:
  /// Builds the graph of `total_gpus` GPUs of type `gpu` on nodes and network of type `fabric`.
  /// A fabric with no NIC gets one (inter-node traffic must go somewhere); a last node that
  /// is not full holds the remainder.
  ClusterTopology(const hardware::GpuSpec& gpu, const hardware::FabricSpec& fabric, std::int64_t total_gpus,
                  TopologyOptions options = {});
  /// Movable, not copyable (the graph is large).
  ~ClusterTopology();
  ClusterTopology(ClusterTopology&&) noexcept;
  ClusterTopology& operator=(ClusterTopology&&) noexcept;
  ClusterTopology(const ClusterTopology&) = delete;
  ClusterTopology& operator=(const ClusterTopology&) = delete;

  /// The GPU, fabric and options the graph was built from.
  const hardware::GpuSpec& gpu() const;
  const hardware::FabricSpec& fabric() const;
  const TopologyOptions& options() const;
  /// The one-way rates of the links, after efficiencies.
  const LinkRates& rates() const;

  /// The interconnect inside a node as built: the fabric's, or PCIe when the GPU has no NVLink.
  hardware::IntraNode intra() const;

  /// GPUs in the cluster (GPU ids are 0 .. gpus()-1; GPU g sits on node g / gpus_per_node()).
  std::int64_t gpus() const;
  /// Nodes (hosts), the last one possibly not full.
  std::int64_t nodes() const;
  int gpus_per_node() const;
  /// NICs per node (>= 1); NIC k of every node is on rail k.
  int nics_per_node() const;
  /// GPUs that share one NVLink domain (NCCL's "node"): the node, or 72 for GB200 NVL72.
  int domain_size() const;
  /// NVLink domains in the cluster.
  std::int64_t domains() const;
  /// Nodes per scalable unit, clamped to the cluster.
  int nodes_per_leaf() const;

  /// Node of a GPU id.
  std::int64_t node_of(std::int64_t gpu) const;
  /// Index of a GPU inside its node (0 .. gpus_per_node()-1).
  int local_index(std::int64_t gpu) const;
  /// NVLink domain of a GPU id.
  std::int64_t domain_of(std::int64_t gpu) const;
  /// Scalable unit (leaf group) of a node.
  std::int64_t scalable_unit_of(std::int64_t node) const;
  /// NICs (local indices 0..nics_per_node-1, i.e. rails) wired to local GPU `local`.
  std::vector<int> nics_of(int local) const;

  /// Vertices of the graph (GPUs, NICs, NVSwitch or PCIe roots, leaves, spine).
  std::size_t vertex_count() const;
  /// What vertex `v` is.
  VertexKind vertex_kind(std::int32_t v) const;
  /// Vertex id of a GPU (equal to the GPU id).
  std::int32_t gpu_vertex(std::int64_t gpu) const;
  /// Vertex id of NIC `nic` of `node`.
  std::int32_t nic_vertex(std::int64_t node, int nic) const;

  /// The PCIe link from GPU `gpu` to NIC `nic` of its node, or -1 when they are not wired.
  std::int32_t gpu_to_nic_link(std::int64_t gpu, int nic) const;
  /// The PCIe link from NIC `nic` of GPU `gpu`'s node to that GPU, or -1.
  std::int32_t nic_to_gpu_link(int nic, std::int64_t gpu) const;
  /// Leaf switch vertex that NIC `nic` of `node` is cabled to.
  std::int32_t leaf_of(std::int64_t node, int nic) const;
  /// The link from NIC `nic` of `node` up to its leaf.
  std::int32_t nic_to_leaf_link(std::int64_t node, int nic) const;
  /// The link from the leaf down to NIC `nic` of `node`.
  std::int32_t leaf_to_nic_link(std::int64_t node, int nic) const;
  /// Links from one leaf switch vertex to another (fewest hops; empty when equal).
  std::vector<std::int32_t> leaf_route(std::int32_t from_leaf, std::int32_t to_leaf) const;
  /// leaf_route(from_leaf, to_leaf) appended to `out`.
  void append_leaf_route(std::int32_t from_leaf, std::int32_t to_leaf, std::vector<std::int32_t>& out) const;

  /// Every link; a link's index is its id in routes and in fair-share capacities. Built on the
  /// first call (routes and fair shares need only ids and capacities(); a 16,384-GPU cluster
  /// has 10^5 links); thread-safe.
  std::span<const TopoLink> links() const;
  /// The capacities of links(), in the same order (input for max_min_fair_share).
  std::span<const units::Bandwidth> capacities() const;

  /// Links from NIC `nic_a` of node `a` to NIC `nic_b` of node `b` through the switches
  /// (fewest hops; empty when it is the same NIC).
  std::vector<std::int32_t> nic_route(std::int64_t a, int nic_a, std::int64_t b, int nic_b) const;
  /// nic_route(a, nic_a, b, nic_b) appended to `out` (routing thousands of flows reuses one buffer).
  void append_nic_route(std::int64_t a, int nic_a, std::int64_t b, int nic_b, std::vector<std::int32_t>& out) const;
  /// PCIe nodes: how NCCL moves data from GPU `a` to GPU `b` of the same node (PcieHop).
  PcieHop pcie_hop(std::int64_t a, std::int64_t b) const;
  /// PCIe nodes: the rate of every hop when `rings` (each a ring order of GPU ids of one node;
  /// hop i goes from member i to member i+1, the last back to the first) run at once. Each
  /// hop's flow takes the links of its gpu_route(); a flow through an Intel CPU's root complex
  /// (PATH_PHB) costs 6/5 of its rate on the PCIe links it crosses (NCCL topo.h
  /// INTEL_P2P_OVERHEAD: the CPU splits the traffic into 64-byte TLPs; search.cc followPath
  /// charges it so). All flows get the same rate, the most the most loaded link allows:
  /// min over links of capacity / load (a ring runs at its slowest hop). Rings of one GPU add
  /// nothing; no hop: the GPU's own PCIe rate.
  units::Bandwidth pcie_ring_rate(std::span<const std::vector<std::int64_t>> rings) const;
  /// PCIe nodes: the rate of each flow when every ordered pair of `members` (GPU ids of one
  /// node) sends at once (an all-to-all), costed as pcie_ring_rate().
  units::Bandwidth pcie_pairwise_rate(std::span<const std::int64_t> members) const;

  /// Links from GPU `a` to GPU `b`: NVLink (or PCIe) inside a domain; across domains, out
  /// through a's first NIC to the NIC on the same rail of b's node (PXN, as NCCL does on
  /// rail-optimised fabrics) and over NVLink to b when b does not own that NIC.
  std::vector<std::int32_t> gpu_route(std::int64_t a, std::int64_t b) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flopcast::topology

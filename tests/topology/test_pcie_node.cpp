// PCIe nodes (ClusterTopology's PCIe tree): GPUs under PCIe switches and root complexes, NCCL's
// choice of peer-to-peer or host memory per pair (paths.cc), and the rate a ring's hops get.
#include <doctest/doctest.h>

#include <vector>

#include "flopcast/topology/cluster_topology.hpp"

using namespace flopcast;

namespace {

// An L40S-like card: no NVLink, PCIe Gen4 x16 (NCCL: 16 x 120 / 80 = 24 GB/s), peer-to-peer.
hardware::GpuSpec pcie_card(bool p2p) {
  hardware::GpuSpec g;
  g.name = p2p ? "L40S" : "RTX4090";
  g.arch = hardware::GpuArch::Ada;
  g.pcie_generation = 4;
  g.pcie_lanes = 16;
  g.peer_to_peer = p2p;
  return g;
}

// 8 GPUs, 2 sockets, `switches` PCIe switches with a Gen`uplink_gen` x16 uplink each.
hardware::FabricSpec pcie_node(hardware::HostCpu cpu, int switches, int uplink_gen) {
  hardware::FabricSpec f;
  f.name = "pcie-test";
  f.gpus_per_node = 8;
  f.intra = hardware::IntraNode::PCIe;
  f.nvlink_domain = 1;
  f.nic_gbps = 200.0;
  f.nics_per_node = 8;
  f.cpu = cpu;
  f.cpu_sockets = 2;
  f.pcie_switches = switches;
  f.pcie_uplink_generation = uplink_gen;
  f.pcie_uplink_lanes = 16;
  return f;
}

topology::LinkKind kind(const topology::ClusterTopology& t, std::int32_t link) {
  return t.links()[static_cast<std::size_t>(link)].kind;
}

}  // namespace

TEST_CASE("pcie node: GPUs under switches and sockets, P2P under one switch, through the CPU otherwise") {
  // The L40S node of data/fabrics.yaml: 2 sockets, 4 switches of 2 GPUs.
  const topology::ClusterTopology t(pcie_card(true), pcie_node(hardware::HostCpu::IntelSapphireRapids, 4, 5), 8);
  CHECK(t.intra() == hardware::IntraNode::PCIe);
  // 8 GPUs + 8 NICs + 2 root complexes + 4 switches + 8 rail leaves + 1 spine.
  CHECK(t.vertex_count() == 31);
  // NCCL topo.cc: Gen4 x16 = 24, Gen5 x16 = 48 GB/s; topo.h SRP_QPI_BW 22 GB/s.
  CHECK(t.rates().pcie.gbytes_per_s() == doctest::Approx(24.0));
  CHECK(t.rates().pcie_uplink.gbytes_per_s() == doctest::Approx(48.0));
  CHECK(t.rates().cpu_link.gbytes_per_s() == doctest::Approx(22.0));
  // GPU 0 and 1 share a switch: P2P, GPU -> switch -> GPU.
  CHECK(t.pcie_hop(0, 1) == topology::PcieHop::PeerToPeer);
  const auto p2p = t.gpu_route(0, 1);
  REQUIRE(p2p.size() == 2);
  CHECK(kind(t, p2p[0]) == topology::LinkKind::PcieToSwitch);
  CHECK(kind(t, p2p[1]) == topology::LinkKind::PcieFromSwitch);
  // GPU 0 and 2: two switches of one socket: through the root complex (PATH_PHB), NCCL's
  // default P2P level (PATH_PXB) refuses it.
  CHECK(t.pcie_hop(0, 2) == topology::PcieHop::ThroughHost);
  const auto phb = t.gpu_route(0, 2);
  REQUIRE(phb.size() == 4);
  CHECK(kind(t, phb[1]) == topology::LinkKind::SwitchToRoot);
  CHECK(kind(t, phb[2]) == topology::LinkKind::RootToSwitch);
  // GPU 0 and 4: across the sockets (PATH_SYS).
  const auto sys = t.gpu_route(0, 4);
  REQUIRE(sys.size() == 5);
  CHECK(kind(t, sys[2]) == topology::LinkKind::CpuToCpu);
}

TEST_CASE("pcie node: an 8-GPU ring on L40S runs at the GPU link less Intel's P2P overhead") {
  const topology::ClusterTopology t(pcie_card(true), pcie_node(hardware::HostCpu::IntelSapphireRapids, 4, 5), 8);
  const std::vector<std::vector<std::int64_t>> ring{{0, 1, 2, 3, 4, 5, 6, 7}};
  // Hops 1->2 and 5->6 go through one Intel root complex (PATH_PHB): 6/5 of their rate on each
  // PCIe link they cross (topo.h INTEL_P2P_OVERHEAD). GPU 1's up link carries that one flow:
  // 24 / 1.2 = 20 GB/s; the switch uplinks 48 / 1.2 = 40; the socket link carries one flow each
  // way (3->4, 7->0: PATH_SYS, no overhead): 22. The ring runs at 20.
  CHECK(t.pcie_ring_rate(ring).gbytes_per_s() == doctest::Approx(20.0));
  // On an AMD host there is no such overhead: the ring is GPU-link bound at 24... but the socket
  // link (AMD_BW 16) carries a flow each way: 16.
  const topology::ClusterTopology amd(pcie_card(true), pcie_node(hardware::HostCpu::Amd, 4, 5), 8);
  CHECK(amd.pcie_ring_rate(ring).gbytes_per_s() == doctest::Approx(16.0));
  // A pair under one switch: P2P at the full 24.
  const std::vector<std::vector<std::int64_t>> pair{{0, 1}};
  CHECK(t.pcie_ring_rate(pair).gbytes_per_s() == doctest::Approx(24.0));
}

TEST_CASE("pcie node: RTX 4090s without P2P send every hop through the switch uplink and host memory") {
  // nccl-tests#307's node: per socket one Gen4 switch (24 GB/s up) with 4 GPUs, Skylake-class UPI 10.
  const topology::ClusterTopology t(pcie_card(false), pcie_node(hardware::HostCpu::IntelSkylake, 2, 4), 8);
  CHECK(t.pcie_hop(0, 1) == topology::PcieHop::ThroughHost);  // one switch, but the driver refuses P2P
  const auto shm = t.gpu_route(0, 1);
  REQUIRE(shm.size() == 4);  // GPU -> switch -> CPU (host memory) -> switch -> GPU
  const std::vector<std::vector<std::int64_t>> ring{{0, 1, 2, 3, 4, 5, 6, 7}};
  // Switch 0's uplink carries hops 0->1, 1->2, 2->3 (PHB through an Intel CPU: 1.2 each) and
  // 3->4 (SYS: 1.0): load 4.6, 24 / 4.6 = 5.22 GB/s; the socket link one flow each way: 10.
  CHECK(t.pcie_ring_rate(ring).gbytes_per_s() == doctest::Approx(24.0 / 4.6));
  // Two TP=2 groups on one switch at once: each group's hops cross the uplink both ways,
  // 2 groups x 2 hops x 1.2 = 4.8 per direction: 24 / 4.8 = 5 GB/s each.
  const std::vector<std::vector<std::int64_t>> pairs{{0, 1}, {2, 3}};
  CHECK(t.pcie_ring_rate(pairs).gbytes_per_s() == doctest::Approx(5.0));
  // All-to-all of the 4 GPUs under one switch: 12 flows, each up and down the uplink: 24 / 14.4.
  const std::vector<std::int64_t> four{0, 1, 2, 3};
  CHECK(t.pcie_pairwise_rate(four).gbytes_per_s() == doctest::Approx(24.0 / 14.4));
}

TEST_CASE("pcie node: without switches or a stated layout, each GPU sits on its socket's root") {
  hardware::GpuSpec g = pcie_card(true);
  hardware::FabricSpec f = pcie_node(hardware::HostCpu::Unstated, 0, 0);
  f.cpu_sockets = 0;  // not stated: one socket
  const topology::ClusterTopology t(g, f, 8);
  const auto r = t.gpu_route(0, 1);
  REQUIRE(r.size() == 2);
  CHECK(kind(t, r[0]) == topology::LinkKind::PcieToRoot);
  // Unstated CPU: no Intel overhead; every hop GPU -> root -> GPU at 24.
  const std::vector<std::vector<std::int64_t>> ring{{0, 1, 2, 3, 4, 5, 6, 7}};
  CHECK(t.pcie_ring_rate(ring).gbytes_per_s() == doctest::Approx(24.0));
}

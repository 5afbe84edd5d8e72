#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "../support/fixtures.hpp"
#include "flopcast/topology/cluster_topology.hpp"

using namespace flopcast;

namespace {

hardware::GpuSpec a100() { return fixtures::a100_nvlink(); }
hardware::GpuSpec gb200() { return fixtures::gb200_nvlink(); }
// DGX A100: 8 GPUs on NVSwitch, 8 x 200 Gb/s HDR InfiniBand (SB, ISS nccl#812).
hardware::FabricSpec dgx_a100(double oversubscription = 1.0) { return fixtures::node8(200.0, 8, oversubscription); }

bool has_kind(const topology::ClusterTopology& t, const std::vector<std::int32_t>& route, topology::LinkKind k) {
  return std::any_of(route.begin(), route.end(),
                     [&](std::int32_t l) { return t.links()[static_cast<std::size_t>(l)].kind == k; });
}

}  // namespace

TEST_CASE("topology: DGX A100 cluster graph has the expected vertices and rates") {
  const topology::ClusterTopology t(a100(), dgx_a100(), 16);
  CHECK(t.nodes() == 2);
  CHECK(t.domain_size() == 8);
  CHECK(t.domains() == 2);
  // 16 GPUs + 16 NICs + 2 NVSwitch planes + 8 rail leaves (one SU) + 1 spine.
  CHECK(t.vertex_count() == 43);
  // NVLink 240 GB/s (NCCL topo.h); NIC 25 GB/s x 0.96 = 24 (ISS nccl#412); PCIe Gen4 x16 24.
  CHECK(t.rates().nvlink_per_gpu.gbytes_per_s() == doctest::Approx(240.0));
  CHECK(t.rates().nic.gbytes_per_s() == doctest::Approx(24.0));
  CHECK(t.rates().pcie.gbytes_per_s() == doctest::Approx(24.0));
  CHECK(t.rates().nic_path.gbytes_per_s() == doctest::Approx(24.0));
}

TEST_CASE("topology: routes stay on NVLink inside a node and on one rail across nodes") {
  const topology::ClusterTopology t(a100(), dgx_a100(), 16);
  const auto inside = t.gpu_route(0, 5);
  REQUIRE(inside.size() == 2);  // GPU0 -> NVSwitch -> GPU5
  CHECK(t.links()[static_cast<std::size_t>(inside[0])].kind == topology::LinkKind::NvLinkToSwitch);
  CHECK(t.links()[static_cast<std::size_t>(inside[1])].kind == topology::LinkKind::NvLinkFromSwitch);

  // GPU0 (node 0) -> GPU9 (node 1, local 1): PCIe to NIC0, leaf of rail 0, NIC0 of node 1,
  // PCIe to GPU8 (owner of NIC0), NVLink GPU8 -> GPU9 (PXN): 6 links. One SU: no spine hop.
  const auto across = t.gpu_route(0, 9);
  CHECK(across.size() == 6);
  CHECK(t.links()[static_cast<std::size_t>(across[0])].kind == topology::LinkKind::GpuToNic);
  CHECK(t.links()[static_cast<std::size_t>(across[1])].kind == topology::LinkKind::NicToLeaf);
  CHECK(t.links()[static_cast<std::size_t>(across[2])].kind == topology::LinkKind::LeafToNic);
  CHECK(t.links()[static_cast<std::size_t>(across[3])].kind == topology::LinkKind::NicToGpu);
  CHECK(t.links()[static_cast<std::size_t>(across[3])].to == t.gpu_vertex(8));
  CHECK_FALSE(has_kind(t, across, topology::LinkKind::LeafToSpine));
  CHECK(t.leaf_of(0, 0) == t.leaf_of(1, 0));
  CHECK(t.leaf_of(0, 0) != t.leaf_of(0, 1));
}

TEST_CASE("topology: traffic between scalable units crosses the oversubscribed spine") {
  topology::TopologyOptions o;
  o.nodes_per_leaf = 1;  // every node its own SU
  const topology::ClusterTopology t(a100(), dgx_a100(2.0), 16, o);
  const auto r = t.nic_route(0, 3, 1, 3);
  REQUIRE(r.size() == 4);  // NIC -> leaf -> spine -> leaf -> NIC
  CHECK(has_kind(t, r, topology::LinkKind::LeafToSpine));
  CHECK(has_kind(t, r, topology::LinkKind::SpineToLeaf));
  // A leaf of 1 node x 24 GB/s with 2:1 oversubscription has 12 GB/s of uplink.
  CHECK(t.links()[static_cast<std::size_t>(r[1])].capacity.gbytes_per_s() == doctest::Approx(12.0));
}

TEST_CASE("topology: leaf uplinks carry the leaf's NICs divided by the oversubscription") {
  topology::TopologyOptions o;
  o.nodes_per_leaf = 8;
  const topology::ClusterTopology t(a100(), dgx_a100(2.0), 128, o);
  // 8 nodes per rail leaf x 24 GB/s / 2 = 96 GB/s.
  CHECK(t.rates().leaf_uplink.gbytes_per_s() == doctest::Approx(96.0));
  CHECK(t.scalable_unit_of(7) == 0);
  CHECK(t.scalable_unit_of(8) == 1);
}

TEST_CASE("topology: NICs are shared or split when a node has fewer or more NICs than GPUs") {
  hardware::FabricSpec four = dgx_a100();
  four.nics_per_node = 4;  // HGX A100 with 4 x HDR (ISS nccl-tests#100)
  const topology::ClusterTopology t4(a100(), four, 16);
  CHECK(t4.nics_of(0) == std::vector<int>{0});
  CHECK(t4.nics_of(1) == std::vector<int>{0});
  CHECK(t4.nics_of(7) == std::vector<int>{3});
  hardware::FabricSpec sixteen = dgx_a100();
  sixteen.nics_per_node = 16;  // 8 x 2 x 200G RoCE (ISS nccl#1031)
  const topology::ClusterTopology t16(a100(), sixteen, 16);
  CHECK(t16.nics_of(0) == std::vector<int>{0, 1});
  CHECK(t16.nics_of(7) == std::vector<int>{14, 15});
}

TEST_CASE("topology: a GB200 NVL72 rack is one 72-GPU NVLink domain across 18 trays") {
  hardware::FabricSpec nvl72;
  nvl72.name = "gb200-nvl72";
  nvl72.gpus_per_node = 4;  // compute tray (NV-SPOD-GB200: 18 trays x 4 GPUs)
  nvl72.nvlink_domain = 72;
  nvl72.intra = hardware::IntraNode::NVSwitch;
  nvl72.nic_gbps = 400.0;
  nvl72.nics_per_node = 4;  // one ConnectX-7 per GPU
  const topology::ClusterTopology t(gb200(), nvl72, 144);
  CHECK(t.nodes() == 36);
  CHECK(t.domain_size() == 72);
  CHECK(t.domains() == 2);
  const auto same_rack = t.gpu_route(0, 71);  // trays 0 and 17 of rack 0
  CHECK(same_rack.size() == 2);
  CHECK_FALSE(has_kind(t, same_rack, topology::LinkKind::GpuToNic));
  const auto other_rack = t.gpu_route(0, 72);
  CHECK(has_kind(t, other_rack, topology::LinkKind::GpuToNic));
}

TEST_CASE("topology: a GPU without NVLink falls back to PCIe inside the node") {
  hardware::GpuSpec pcie_gpu = a100();
  pcie_gpu.nvlink_links = 0;
  pcie_gpu.nccl_nvlink = units::Bandwidth{0.0};
  const topology::ClusterTopology t(pcie_gpu, dgx_a100(), 8);
  CHECK(t.intra() == hardware::IntraNode::PCIe);
  const auto r = t.gpu_route(0, 1);
  REQUIRE(r.size() == 2);
  CHECK(t.links()[static_cast<std::size_t>(r[0])].kind == topology::LinkKind::PcieToRoot);
}

TEST_CASE("topology: a route never reads another topology's switch trees") {
  // Each thread remembers the last switch tree it read. Two topologies of different sizes
  // number their vertices differently, so a leaf of one can have the vertex id of a leaf of the
  // other: routing from it in one right after the other must use its own tree. Each route is
  // checked to be a chain of this topology's links from one NIC to the other. The same runs
  // with a topology built where a freed one was (under AddressSanitizer, reading a freed tree
  // is a use after free).
  topology::TopologyOptions o;
  o.nodes_per_leaf = 1;  // every node its own leaf: every route between nodes crosses the spine
  auto chain_ok = [](const topology::ClusterTopology& t, std::int64_t a, int ka, std::int64_t b, int kb) {
    const auto r = t.nic_route(a, ka, b, kb);
    std::int32_t at = t.nic_vertex(a, ka);
    bool ok = r.size() == 4;  // NIC -> leaf -> spine -> leaf -> NIC
    for (const std::int32_t l : r) {
      const topology::TopoLink& link = t.links()[static_cast<std::size_t>(l)];
      ok = ok && link.from == at;
      at = link.to;
    }
    return ok && at == t.nic_vertex(b, kb);
  };
  int shared_ids = 0;
  for (int rebuilt = 0; rebuilt < 2; ++rebuilt) {
    const topology::ClusterTopology big(a100(), dgx_a100(2.0), 64, o);
    const topology::ClusterTopology small(a100(), dgx_a100(2.0), 48, o);
    for (std::int64_t n = 0; n < big.nodes(); ++n)
      for (int k = 0; k < 8; ++k)
        for (std::int64_t m = 0; m < small.nodes(); ++m)
          for (int j = 0; j < 8; ++j) {
            if (big.leaf_of(n, k) != small.leaf_of(m, j)) continue;
            ++shared_ids;
            CAPTURE(n);
            CAPTURE(m);
            CHECK(chain_ok(big, n, k, (n + 1) % big.nodes(), k));
            CHECK(chain_ok(small, m, j, (m + 1) % small.nodes(), j));
            CHECK(chain_ok(big, n, k, (n + 2) % big.nodes(), k));
          }
  }
  CHECK(shared_ids > 0);  // the sizes were chosen so that some leaves share a vertex id
}

#include <doctest/doctest.h>

#include "../support/fixtures.hpp"
#include "flopcast/topology/group_traffic.hpp"
#include "flopcast/topology/rank_layout.hpp"

using namespace flopcast;

namespace {

hardware::GpuSpec a100() { return fixtures::a100_nvlink(); }
// DGX A100 nodes, 8 x HDR 200 Gb/s per node (ISS nccl#812); NIC path 24 GB/s (25 x 0.96, PCIe Gen4 24).
hardware::FabricSpec hdr(double oversubscription, int nics = 8) {
  return fixtures::node8(200.0, nics, oversubscription);
}

topology::TopologyOptions su(int nodes_per_leaf) {
  topology::TopologyOptions o;
  o.nodes_per_leaf = nodes_per_leaf;
  return o;
}

}  // namespace

TEST_CASE("topology: a DP ring with one GPU per node gets about one NIC") {
  const topology::ClusterTopology t(a100(), hdr(1.0), 64, su(32));
  const auto s = topology::network_share(t, topology::GroupShape{8, 1, 1}, 1, topology::TrafficPattern::Ring);
  CHECK(s.domains == 8);
  CHECK(s.channels == 1);
  CHECK(s.per_group.gbytes_per_s() == doctest::Approx(24.0));
}

TEST_CASE("topology: a ring over all 8 GPUs of each node gets the sum of the NICs") {
  // 8 channels, one per rail, 24 GB/s each = 192 GB/s (ISS nccl#812: 192 measured on DGX A100).
  const topology::ClusterTopology t(a100(), hdr(1.0), 16, su(32));
  const auto s = topology::network_share(t, topology::GroupShape{16, 8, 1}, 1, topology::TrafficPattern::Ring);
  CHECK(s.channels == 8);
  CHECK(s.per_group.gbytes_per_s() == doctest::Approx(192.0));
  // Four NICs shared by 8 GPUs: 4 channels = 96 GB/s (ISS nccl-tests#100 measured 91).
  const topology::ClusterTopology t4(a100(), hdr(1.0, 4), 16, su(32));
  CHECK(topology::network_share(t4, topology::GroupShape{16, 8, 1}, 1, topology::TrafficPattern::Ring)
            .per_group.gbytes_per_s() == doctest::Approx(96.0));
}

TEST_CASE("topology: 8 DP groups crossing a 2:1 oversubscribed spine get half the bandwidth of one") {
  // 16 DGX A100 nodes, 8 nodes per scalable unit, 2:1 leaf-to-spine. Plan TP 8, PP 8, DP 2 in
  // the order tp-pp-dp: each DP group pairs node p with node p+8, one in each SU, so every
  // hop crosses the spine. The 8 pipeline stages' DP groups on rail r all go through the
  // rail-r leaf of SU 0, whose uplinks carry 8 NICs x 24 GB/s / 2 = 96 GB/s: 12 GB/s each,
  // half of the 24 GB/s a group gets alone.
  parallel::ParallelPlan p;
  p.tp = 8;
  p.pp = 8;
  p.dp = 2;
  const auto layout = topology::RankLayout::create(p, "tp-pp-dp-cp");
  REQUIRE(layout);
  const topology::GroupShape dp = layout->shape(topology::ParallelDim::DP, 8);
  CHECK(dp == topology::GroupShape{2, 1, 8});
  const topology::ClusterTopology t(a100(), hdr(2.0), 128, su(8));
  const auto all =
      topology::network_share(t, dp, layout->group_count(topology::ParallelDim::DP), topology::TrafficPattern::Ring);
  CHECK(all.groups == 64);
  CHECK(all.alone.gbytes_per_s() == doctest::Approx(24.0));
  CHECK(all.per_group.gbytes_per_s() == doctest::Approx(12.0));
  CHECK(all.per_group.bytes_per_s / all.alone.bytes_per_s == doctest::Approx(0.5));
  CHECK(all.worst_link_load.gbytes_per_s() == doctest::Approx(96.0));

  // The same 64 groups on a non-blocking spine do not slow down.
  const topology::ClusterTopology full(a100(), hdr(1.0), 128, su(8));
  CHECK(topology::network_share(full, dp, 64, topology::TrafficPattern::Ring).per_group.gbytes_per_s() ==
        doctest::Approx(24.0));
  // Rail-optimised cabling: 8 groups of one pipeline stage use 8 different rails (8 leaves),
  // so they do not contend even on the 2:1 spine.
  CHECK(topology::network_share(t, dp, 8, topology::TrafficPattern::Ring).per_group.gbytes_per_s() ==
        doctest::Approx(24.0));
}

TEST_CASE("topology: DP groups that share a NIC split it") {
  // 4 NICs for 8 GPUs: DP groups of GPU 0 and GPU 1 (lanes 0, 1) share NIC 0: 12 GB/s each.
  const topology::ClusterTopology t(a100(), hdr(1.0, 4), 64, su(32));
  const auto s = topology::network_share(t, topology::GroupShape{8, 1, 1}, 8, topology::TrafficPattern::Ring);
  CHECK(s.alone.gbytes_per_s() == doctest::Approx(24.0));
  CHECK(s.per_group.gbytes_per_s() == doctest::Approx(12.0));
}

TEST_CASE("topology: all-to-all uses each GPU's own NIC and loads the spine with cross-SU shares") {
  // 4 nodes, all 8 GPUs each: every domain sends through its 8 NICs at 24 GB/s = 192 GB/s.
  const topology::ClusterTopology t(a100(), hdr(1.0), 32, su(32));
  const auto s = topology::network_share(t, topology::GroupShape{32, 8, 1}, 1, topology::TrafficPattern::AllToAll);
  CHECK(s.per_group.gbytes_per_s() == doctest::Approx(192.0));
  // Two SUs of 2 nodes with 4:1 oversubscription: a rail leaf has 2 x 24 / 4 = 12 GB/s of
  // uplink; each source sends 2/3 of its bytes to the other SU (2 of 3 peers), so the 2 NICs
  // of a rail leaf can push 12 / (2 x 2/3) = 9 GB/s each: 8 rails x 9 = 72 GB/s per node.
  const topology::ClusterTopology t2(a100(), hdr(4.0), 32, su(2));
  CHECK(topology::network_share(t2, topology::GroupShape{32, 8, 1}, 1, topology::TrafficPattern::AllToAll)
            .per_group.gbytes_per_s() == doctest::Approx(72.0));
}

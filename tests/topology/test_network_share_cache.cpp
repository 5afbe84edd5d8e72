#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "../support/fixtures.hpp"
#include "flopcast/topology/group_traffic.hpp"

using namespace flopcast;

namespace {

topology::TopologyOptions su(int nodes_per_leaf, bool rail = true) {
  topology::TopologyOptions o;
  o.nodes_per_leaf = nodes_per_leaf;
  o.rail_optimized = rail;
  return o;
}

/// GB200 NVL72-like: 4-GPU trays, 72-GPU NVLink domains, a NIC per GPU.
hardware::FabricSpec nvl72(double gbps) {
  hardware::FabricSpec f = fixtures::node8(gbps, 4);
  f.gpus_per_node = 4;
  f.nvlink_domain = 72;
  return f;
}

bool same(const topology::GroupNetworkShare& a, const topology::GroupNetworkShare& b) {
  return a.groups == b.groups && a.domains == b.domains && a.channels == b.channels &&
         a.per_group.bytes_per_s == b.per_group.bytes_per_s && a.alone.bytes_per_s == b.alone.bytes_per_s &&
         a.worst_link_load.bytes_per_s == b.worst_link_load.bytes_per_s;
}

}  // namespace

TEST_CASE("topology: the memoised network share equals the direct computation") {
  // Clusters that differ in what the flows read (GPU count, partial last scalable unit, nodes per
  // leaf, NICs, oversubscription, rail cabling, NVLink domain, PCIe generation) and pairs that
  // differ only in what they do not (the GPU's name and NVLink: H100 and H800 on the same network):
  // the second of such a pair is answered from the first's entries, and must still be exact.
  std::vector<std::unique_ptr<topology::ClusterTopology>> topos;
  const hardware::GpuSpec h100 = fixtures::h100_nvlink(), h800 = fixtures::h800_nvlink(),
                          a100 = fixtures::a100_nvlink();
  for (const hardware::GpuSpec* g : {&h100, &h800}) {
    topos.push_back(std::make_unique<topology::ClusterTopology>(*g, fixtures::node8(400.0), 128, su(8)));
    topos.push_back(std::make_unique<topology::ClusterTopology>(*g, fixtures::node8(400.0, 8, 2.0), 136, su(8)));
    topos.push_back(std::make_unique<topology::ClusterTopology>(*g, fixtures::node8(400.0, 4, 3.0), 96, su(4, false)));
  }
  topos.push_back(std::make_unique<topology::ClusterTopology>(a100, fixtures::node8(200.0), 128, su(8)));
  topos.push_back(std::make_unique<topology::ClusterTopology>(a100, fixtures::node8(200.0), 40, su(32)));
  topos.push_back(std::make_unique<topology::ClusterTopology>(fixtures::gb200_nvlink(), nvl72(800.0), 288, su(8)));
  topos.push_back(std::make_unique<topology::ClusterTopology>(fixtures::gb200_nvlink(), nvl72(800.0), 300, su(8)));

  const topology::TrafficPattern patterns[] = {topology::TrafficPattern::Ring, topology::TrafficPattern::AllToAll,
                                               topology::TrafficPattern::OneWay};
  int compared = 0, shared = 0;
  for (const auto& t : topos) {
    for (const std::int64_t ranks : {2, 4, 8, 16, 32})
      for (const int per_node : {1, 2, 4, 8})
        for (const std::int64_t stride : {1, 2, 3})
          for (const std::int64_t concurrent : {1, 3, 16, 1000})
            for (const topology::TrafficPattern p : patterns) {
              const topology::GroupShape g{ranks, per_node, stride};
              if (ranks % per_node != 0 || !topology::check_group_shape(g, t->gpus_per_node(), t->gpus()).empty())
                continue;
              if (p == topology::TrafficPattern::OneWay && ranks != 2) continue;
              const std::size_t before = topology::network_share_cache_size();
              const topology::GroupNetworkShare cached = topology::network_share_cached(*t, g, concurrent, p);
              if (topology::network_share_cache_size() == before) ++shared;
              const topology::GroupNetworkShare direct = topology::network_share(*t, g, concurrent, p);
              CAPTURE(t->gpu().name);
              CAPTURE(t->gpus());
              CAPTURE(ranks);
              CAPTURE(per_node);
              CAPTURE(stride);
              CAPTURE(concurrent);
              CHECK(same(cached, direct));
              // Asked again: the same answer from the cache.
              CHECK(same(topology::network_share_cached(*t, g, concurrent, p), direct));
              ++compared;
            }
  }
  CHECK(compared > 500);
  // The H800 clusters (same network as the H100 ones) were answered from the cache.
  CHECK(shared > 100);
}

TEST_CASE("topology: the memoised network share tells apart what the flows read") {
  // Same shape and groups; 1:1 and 2:1 leaf-to-spine on 16 nodes in two scalable units of 8: the
  // 64 pairs of nodes 8 apart all cross the spine, and the oversubscribed spine halves their share
  // (24 -> 12 GB/s, as in test_group_traffic.cpp).
  const topology::ClusterTopology flat(fixtures::a100_nvlink(), fixtures::node8(200.0), 128, su(8));
  const topology::ClusterTopology over(fixtures::a100_nvlink(), fixtures::node8(200.0, 8, 2.0), 128, su(8));
  const topology::GroupShape g{2, 1, 8};
  const auto a = topology::network_share_cached(flat, g, 64, topology::TrafficPattern::Ring);
  const auto b = topology::network_share_cached(over, g, 64, topology::TrafficPattern::Ring);
  CHECK(same(a, topology::network_share(flat, g, 64, topology::TrafficPattern::Ring)));
  CHECK(same(b, topology::network_share(over, g, 64, topology::TrafficPattern::Ring)));
  CHECK(a.per_group.gbytes_per_s() == doctest::Approx(24.0));
  CHECK(b.per_group.gbytes_per_s() == doctest::Approx(12.0));
}

TEST_CASE("topology: network shares solved by translation equal every group routed, bit for bit") {
  // Clusters of many scalable units, with and without a partial last unit or node, rail-optimized
  // or not, oversubscribed, with 4 NICs, and GB200 trays in 72-GPU NVLink domains: the groups of
  // the cells after the first are not routed, and every figure must be what routing them all gives.
  std::vector<std::unique_ptr<topology::ClusterTopology>> topos;
  const hardware::GpuSpec h100 = fixtures::h100_nvlink();
  topos.push_back(std::make_unique<topology::ClusterTopology>(h100, fixtures::node8(400.0), 512, su(4)));
  topos.push_back(std::make_unique<topology::ClusterTopology>(h100, fixtures::node8(400.0), 520, su(4)));  // 65 nodes
  topos.push_back(
      std::make_unique<topology::ClusterTopology>(h100, fixtures::node8(400.0), 516, su(4)));  // half a node
  topos.push_back(std::make_unique<topology::ClusterTopology>(h100, fixtures::node8(400.0), 384, su(4, false)));
  topos.push_back(std::make_unique<topology::ClusterTopology>(h100, fixtures::node8(400.0, 8, 2.0), 448, su(2)));
  topos.push_back(std::make_unique<topology::ClusterTopology>(h100, fixtures::node8(400.0, 4, 3.0), 384, su(3)));
  topos.push_back(std::make_unique<topology::ClusterTopology>(fixtures::gb200_nvlink(), nvl72(800.0), 576, su(8)));
  topos.push_back(std::make_unique<topology::ClusterTopology>(fixtures::gb200_nvlink(), nvl72(800.0), 600, su(6)));
  auto same_bits = [](units::Bandwidth a, units::Bandwidth b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  const topology::TrafficPattern patterns[] = {topology::TrafficPattern::Ring, topology::TrafficPattern::AllToAll,
                                               topology::TrafficPattern::OneWay};
  int compared = 0, translated = 0;
  for (const auto& t : topos) {
    for (const std::int64_t ranks : {2, 4, 8, 16, 32, 64})
      for (const int per_node : {1, 2, 4, 8})
        for (const std::int64_t stride : {1, 2, 3, 5})
          for (const std::int64_t concurrent : {1, 3, 16, 1000})
            for (const topology::TrafficPattern p : patterns) {
              const topology::GroupShape g{ranks, per_node, stride};
              if (ranks % per_node != 0 || !topology::check_group_shape(g, t->gpus_per_node(), t->gpus()).empty())
                continue;
              if (p == topology::TrafficPattern::OneWay && ranks != 2) continue;
              CAPTURE(t->gpus());
              CAPTURE(t->gpus_per_node());
              CAPTURE(ranks);
              CAPTURE(per_node);
              CAPTURE(stride);
              CAPTURE(concurrent);
              CAPTURE(to_string(p));
              const topology::GroupNetworkShare by_cells =
                  topology::network_share(*t, g, concurrent, p, topology::ShareSolve::ByTranslation);
              const topology::GroupNetworkShare every =
                  topology::network_share(*t, g, concurrent, p, topology::ShareSolve::EveryGroup);
              CHECK(every.routed == every.groups);
              CHECK(by_cells.groups == every.groups);
              CHECK(by_cells.domains == every.domains);
              CHECK(by_cells.channels == every.channels);
              CHECK(same_bits(by_cells.per_group, every.per_group));
              CHECK(same_bits(by_cells.alone, every.alone));
              CHECK(same_bits(by_cells.worst_link_load, every.worst_link_load));
              ++compared;
              if (by_cells.routed < by_cells.groups) ++translated;
            }
  }
  CHECK(compared > 1000);
  CHECK(translated > 300);
}

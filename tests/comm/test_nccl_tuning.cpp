#include <doctest/doctest.h>

#include "flopcast/comm/nccl_tuning.hpp"

using namespace flopcast;
using namespace flopcast::comm::nccl;

namespace {

// Worked example, computed by hand from NCCL tuning.cc's constants: 2 nodes x 8 H100, Intel host.
CommTopo two_h100_nodes() {
  CommTopo t;
  t.ranks = 16;
  t.nodes = 2;
  t.ranks_per_node = 8;
  t.arch_index = arch_index(hardware::GpuArch::Hopper);
  t.cpu = CpuVendor::Intel;
  t.intra_hw = HwClass::NvLink;
  t.ring = TopoGraph{8, 45.0, 45.0};
  return t;
}

double lat(const CommTopo& t, comm::Collective op, comm::CommAlgorithm a, comm::CommProtocol p) {
  return tune(t, op, a, p).latency_us;
}

}  // namespace

TEST_CASE("comm: NCCL latency model reproduces the worked examples (2 x 8 H100, all-reduce)") {
  const CommTopo t = two_h100_nodes();
  // By hand: Ring LL 6.6 + 28 x max(0.6, 1.0) + 2 x 2.7 = 40.0; LL128 14 + 28 x 1.9 + 2 x 4 = 75.2;
  // Simple 8.4 + 28 x max(3.4, 3.0) + 2 x 14 = 131.6.
  CHECK(lat(t, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::LL) ==
        doctest::Approx(40.0));
  CHECK(lat(t, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::LL128) ==
        doctest::Approx(75.2));
  CHECK(lat(t, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::Simple) ==
        doctest::Approx(131.6));
  // Tree LL 6.8 + 2 x (7 x 0.6 + 1 x 5.0) = 25.2; LL128 14 + 2 x (7 x 1.25 + 8.5) = 48.5;
  // Simple 8.4 + 2 x (7 x 4 + 14) = 92.4.
  CHECK(lat(t, comm::Collective::AllReduce, comm::CommAlgorithm::Tree, comm::CommProtocol::LL) ==
        doctest::Approx(25.2));
  CHECK(lat(t, comm::Collective::AllReduce, comm::CommAlgorithm::Tree, comm::CommProtocol::LL128) ==
        doctest::Approx(48.5));
  CHECK(lat(t, comm::Collective::AllReduce, comm::CommAlgorithm::Tree, comm::CommProtocol::Simple) ==
        doctest::Approx(92.4));
}

TEST_CASE("comm: NCCL latency model, one node and one GPU per node") {
  CommTopo one = two_h100_nodes();
  one.ranks = 8;
  one.nodes = 1;
  one.nvls = true;
  one.nvls_graph = TopoGraph{8, 40.0, 0.0};
  // By hand: single node 8 x H100: Ring LL 6.6 + 14 x 0.6 = 15.0; NVLS Simple = 25 (no base latency).
  CHECK(lat(one, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::LL) ==
        doctest::Approx(15.0));
  CHECK(lat(one, comm::Collective::AllReduce, comm::CommAlgorithm::Nvls, comm::CommProtocol::Simple) ==
        doctest::Approx(25.0));
  CHECK_FALSE(tune(one, comm::Collective::AllReduce, comm::CommAlgorithm::Nvls, comm::CommProtocol::LL).enabled);
  CHECK_FALSE(
      tune(one, comm::Collective::AllReduce, comm::CommAlgorithm::NvlsTree, comm::CommProtocol::Simple).enabled);

  CommTopo pair = two_h100_nodes();
  pair.ranks = 2;
  pair.ranks_per_node = 1;
  // By hand: 2 nodes x 1 GPU: Ring LL = 6.6 + 2 x 5.0 = 16.6 (Tree NET latency when ppn = 1);
  // Tree LL = 6.8 + 2 x 5.0 = 16.8.
  CHECK(lat(pair, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::LL) ==
        doctest::Approx(16.6));
  CHECK(lat(pair, comm::Collective::AllReduce, comm::CommAlgorithm::Tree, comm::CommProtocol::LL) ==
        doctest::Approx(16.8));
  // PAT (all-gather, one GPU per node): 8 + log2(2) x 14 / 3.5 + 2 x 2.8 = 17.6.
  CHECK(lat(pair, comm::Collective::AllGather, comm::CommAlgorithm::Pat, comm::CommProtocol::Simple) ==
        doctest::Approx(17.6));
}

TEST_CASE("comm: NCCL bandwidth refinements and bus-to-algorithm conversion") {
  CommTopo t = two_h100_nodes();
  t.ranks = 8;
  t.nodes = 1;
  t.ring = TopoGraph{12, 20.0, 20.0};
  t.arch_index = arch_index(hardware::GpuArch::Ampere);
  // 8 x A100, 12 channels x 20 GB/s = 240 bus. Ring Simple algbw = 240 x 8 / 14.
  CHECK(tune(t, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::Simple).algbw_gbs ==
        doctest::Approx(240.0 * 8 / 14));
  // Ring LL: min(llMaxBw[Ampere][1 node] 87.7, 0.5 x 240) = 87.7 bus.
  CHECK(tune(t, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::LL).algbw_gbs ==
        doctest::Approx(87.7 * 8 / 14));
  // Ring LL128: min(0.92 x 240, 12 x 20) = 220.8 bus.
  CHECK(tune(t, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::LL128).algbw_gbs ==
        doctest::Approx(220.8 * 8 / 14));
  // Tree Simple: min(0.92 x 240, 12 x 24.0) = 220.8 bus, algbw = 0.5 x bus.
  CHECK(tune(t, comm::Collective::AllReduce, comm::CommAlgorithm::Tree, comm::CommProtocol::Simple).algbw_gbs ==
        doctest::Approx(110.4));
  // All-gather ring: algbw = bus x n / (n-1).
  CHECK(tune(t, comm::Collective::AllGather, comm::CommAlgorithm::Ring, comm::CommProtocol::Simple).algbw_gbs ==
        doctest::Approx(240.0 * 8 / 7));
  // Tree is all-reduce only; all-to-all is not in NCCL's tuning model.
  CHECK_FALSE(tune(t, comm::Collective::AllGather, comm::CommAlgorithm::Tree, comm::CommProtocol::Simple).enabled);
  CHECK_FALSE(tune(t, comm::Collective::AllToAll, comm::CommAlgorithm::Ring, comm::CommProtocol::Simple).enabled);
}

TEST_CASE("comm: NVLS bandwidth for 8 x H100 follows tuning.cc") {
  CommTopo t = two_h100_nodes();
  t.ranks = 8;
  t.nodes = 1;
  t.nvls = true;
  t.nvls_graph = search_nvls_graph(hardware::GpuArch::Hopper, 8, 370.8, 48.0, 8);
  // search.cc: one NVLS channel per GPU; 8 x 40 = 320 <= 370.8 < 8 x 50.
  CHECK(t.nvls_graph.channels == 8);
  CHECK(t.nvls_graph.bw_intra_gbs == doctest::Approx(40.0));
  // bw = 40 x 0.85 x 7/8 x 2 per channel x 8 channels = 476 bus; algbw = 476 x 8/14 = 272.
  CHECK(tune(t, comm::Collective::AllReduce, comm::CommAlgorithm::Nvls, comm::CommProtocol::Simple).algbw_gbs ==
        doctest::Approx(272.0));
}

TEST_CASE("comm: the channel search approximates search.cc") {
  // A100 node: 6 channels x 40 = 240, duplicated to 12 x 20 (bw >= 25, Ampere).
  const TopoGraph a = search_ring_graph(hardware::GpuArch::Ampere, 8, 1, 240.0, 240.0, 24.0, 8);
  CHECK(a.channels == 12);
  CHECK(a.bw_intra_gbs == doctest::Approx(20.0));
  // H100 node: 6 x 60 = 360 (the best total under 370.8), duplicated to 12 x 30.
  const TopoGraph h = search_ring_graph(hardware::GpuArch::Hopper, 8, 1, 370.8, 370.8, 48.0, 8);
  CHECK(h.channels == 12);
  CHECK(h.channels * h.bw_intra_gbs == doctest::Approx(360.0));
  // H800 node (164.8 GB/s): speeds 60 -> 2 ch (120), 50 -> 3 (150), 40 -> 4 (160, best),
  // 30 -> 150, 24 -> 144, 20 -> 8 (160, not better), 15 <= 0.49 x 40 ends the walk. 4 x 40,
  // duplicated to 8 x 20 (40 >= 25 and 4 channels is not > 4).
  const TopoGraph h8 = search_ring_graph(hardware::GpuArch::Hopper, 8, 1, 164.8, 164.8, 48.0, 8);
  CHECK(h8.channels == 8);
  CHECK(h8.bw_intra_gbs == doctest::Approx(20.0));
  // 2 DGX A100 (NIC 24 GB/s as NCCL sees HDR behind PCIe Gen4): 8 channels x 24, no dup.
  const TopoGraph d = search_ring_graph(hardware::GpuArch::Ampere, 8, 2, 240.0, 240.0, 24.0, 8);
  CHECK(d.channels == 8);
  CHECK(d.bw_inter_gbs == doctest::Approx(24.0));
}

TEST_CASE("comm: tree correction and ring plateau factors of ncclTopoGetAlgoTime") {
  CommTopo t = two_h100_nodes();
  const auto tree = tune(t, comm::Collective::AllReduce, comm::CommAlgorithm::Tree, comm::CommProtocol::Simple);
  // 1 MiB: log2(2^20 / 64) = 14 -> Simple factor 0.5.
  const double bytes = 1048576.0;
  CHECK(algo_time_us(t, comm::Collective::AllReduce, comm::CommAlgorithm::Tree, comm::CommProtocol::Simple, tree,
                     bytes) == doctest::Approx(tree.latency_us + bytes / (1000.0 * tree.algbw_gbs * 0.5)));
  // Ring Simple all-reduce across nodes, 1 MiB / (8 channels x 16 ranks) >= 64: latency x 1.4.
  const auto ring = tune(t, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::Simple);
  CHECK(algo_time_us(t, comm::Collective::AllReduce, comm::CommAlgorithm::Ring, comm::CommProtocol::Simple, ring,
                     bytes) == doctest::Approx(ring.latency_us * 1.4 + bytes / (1000.0 * ring.algbw_gbs)));
  CHECK(log2i(1.0) == 0);
  CHECK(log2i(1023.0) == 9);
  CHECK(log2i(0.5) == -1);
}

TEST_CASE("comm: NCCL's architecture index follows the compute capability (tuning.cc compCapIndex)") {
  // minCompCap >= 100 -> Blackwell (3), >= 90 -> Hopper (2), >= 80 -> Ampere (1): Blackwell
  // Ultra (10.3) tunes as Blackwell, Ada (8.9) as Ampere.
  CHECK(arch_index(hardware::GpuArch::BlackwellUltra) == 3);
  CHECK(arch_index(hardware::GpuArch::Ada) == 1);
  CHECK(arch_index(hardware::GpuArch::Hopper) == 2);
  // search.cc: Ada walks the pre-Hopper speed array ({40, 30, 20, ...}); 24 GB/s of PCIe Gen4 fits
  // two channels of 12 (24) better than one of 20.
  const TopoGraph ada = search_ring_graph(hardware::GpuArch::Ada, 8, 1, 24.0, 24.0, 12.5, 1);
  CHECK(ada.channels * ada.bw_intra_gbs == doctest::Approx(24.0));
}

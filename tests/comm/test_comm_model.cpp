#include <doctest/doctest.h>

#include "../support/fixtures.hpp"
#include "flopcast/comm/comm_model.hpp"

using namespace flopcast;

namespace {

constexpr double kGiB8 = 8.0 * 1073741824.0;  // nccl-tests -e 8G

using fixtures::node8;
hardware::GpuSpec a100() { return fixtures::a100_nvlink(); }
hardware::GpuSpec h100() { return fixtures::h100_nvlink(); }
hardware::GpuSpec h800() { return fixtures::h800_nvlink(); }
hardware::GpuSpec gb200() { return fixtures::gb200_nvlink(); }

double busbw(const comm::CommModel& m, comm::Collective op, topology::GroupShape g, double bytes,
             std::int64_t concurrent = 1, comm::CommOverride force = {}) {
  return m.cost(op, g, units::Bytes{bytes}, concurrent, force).busbw.gbytes_per_s();
}

}  // namespace

TEST_CASE("comm: 8 x H100 all-reduce picks NVLS at large sizes and a ring for small ones") {
  const comm::CommModel m(h100(), node8(400.0), 8);
  const auto big = m.cost(comm::Collective::AllReduce, {8, 8, 1}, units::Bytes{kGiB8});
  CHECK(big.algorithm == comm::CommAlgorithm::Nvls);
  CHECK(big.protocol == comm::CommProtocol::Simple);
  // NVLS moves S(1 + 1/n) per GPU each way: busbw = 370.8 x 0.85 x 2(n-1)/(n+1) = 490.3.
  CHECK(big.busbw.gbytes_per_s() == doctest::Approx(370.8 * 0.85 * 14.0 / 9.0).epsilon(0.001));
  const auto small = m.cost(comm::Collective::AllReduce, {8, 8, 1}, units::Bytes{1024.0});
  CHECK(small.algorithm == comm::CommAlgorithm::Ring);
  CHECK(small.protocol == comm::CommProtocol::LL);
  // NCCL_ALGO=RING: the ring is NVLink-bound at 370.8 (ISS nccl-tests#212: "~370GB/s").
  CHECK(busbw(m, comm::Collective::AllReduce, {8, 8, 1}, kGiB8, 1, {comm::CommAlgorithm::Ring, {}}) ==
        doctest::Approx(370.8).epsilon(0.002));
}

TEST_CASE("comm: an H800 node all-reduce is NVLink-bound at about 45% of an H100's") {
  // 8 of 18 links: 164.8 / 370.8 = 0.444 (measured 215 / 479 = 0.449, ISS nccl#1374 and Azure ND H100 v5).
  const comm::CommModel h(h100(), node8(400.0), 8);
  const comm::CommModel h8(h800(), node8(400.0), 8);
  const double ratio = busbw(h8, comm::Collective::AllReduce, {8, 8, 1}, kGiB8) /
                       busbw(h, comm::Collective::AllReduce, {8, 8, 1}, kGiB8);
  CHECK(ratio == doctest::Approx(164.8 / 370.8).epsilon(0.01));
  CHECK(ratio > 0.40);
  CHECK(ratio < 0.50);
}

TEST_CASE("comm: small messages never cost less than NCCL's latency for the chosen algorithm") {
  const comm::CommModel one(a100(), node8(200.0), 8);
  const comm::CommModel two(h100(), node8(400.0), 16);
  for (const comm::CommModel* m : {&one, &two}) {
    const std::int64_t n = m->topology().gpus();
    for (comm::Collective op : {comm::Collective::AllReduce, comm::Collective::AllGather,
                                comm::Collective::ReduceScatter, comm::Collective::Broadcast}) {
      for (double bytes : {0.0, 8.0, 1024.0, 65536.0}) {
        const auto c = m->cost(op, {n, 8, 1}, units::Bytes{bytes});
        CAPTURE(to_string(op));
        CAPTURE(bytes);
        // Base latency (tuning.cc baseLat) plus at least one hop of hwLat for the algorithm.
        const double floor_us = comm::nccl::base_latency_us(c.algorithm, c.protocol) +
                                comm::nccl::hw_latency_us(comm::nccl::HwClass::NvLink, c.algorithm, c.protocol);
        CHECK(c.time.us() >= floor_us - 1e-3);
        CHECK(c.time >= c.latency);
        // Ring LL base latency (6.6 us) is the lowest any tuned algorithm has except NVLS (25 us hw).
        CHECK(c.time.us() >= comm::nccl::kBaseLatRing[0] - 1e-3);
      }
    }
  }
}

TEST_CASE("comm: a DP group with one GPU per node gets about one NIC, a full-node ring the sum of NICs") {
  const comm::CommModel m(a100(), node8(200.0), 64);
  // DP ring over 8 nodes, one GPU each: one HDR NIC, 25 x 0.96 = 24 GB/s.
  CHECK(busbw(m, comm::Collective::AllReduce, {8, 1, 1}, kGiB8, 8, {comm::CommAlgorithm::Ring, {}}) ==
        doctest::Approx(24.0).epsilon(0.01));
  // Ring spanning all 8 GPUs of 2 nodes: 8 NICs x 24 = 192 (ISS nccl#812 measured 192).
  CHECK(busbw(m, comm::Collective::AllReduce, {16, 8, 1}, kGiB8) == doctest::Approx(192.0).epsilon(0.01));
}

TEST_CASE("comm: 8 DP groups per rail crossing a 2:1 spine at once get about half the busbw of one alone") {
  // 16 nodes of 8 A100, 8 nodes per SU, 2:1 oversubscription; DP pairs node p with node p+8
  // (TP 8, PP 8, DP 2, order tp-pp-dp). 64 DP groups = 8 per rail leaf sharing 96 GB/s of uplink.
  comm::CommOptions o;
  o.topology.nodes_per_leaf = 8;
  const comm::CommModel m(a100(), node8(200.0, 8, 2.0), 128, o);
  const topology::GroupShape dp{2, 1, 8};
  const auto alone = m.cost(comm::Collective::AllReduce, dp, units::Bytes{kGiB8}, 1);
  const auto crowd = m.cost(comm::Collective::AllReduce, dp, units::Bytes{kGiB8}, 64);
  CHECK(crowd.concurrent_groups == 64);
  CHECK(crowd.busbw.bytes_per_s / alone.busbw.bytes_per_s == doctest::Approx(0.5).epsilon(0.02));
  CHECK(crowd.time > alone.time);
  // Non-blocking spine: no slowdown.
  const comm::CommModel full(a100(), node8(200.0), 128, o);
  CHECK(busbw(full, comm::Collective::AllReduce, dp, kGiB8, 64) ==
        doctest::Approx(busbw(full, comm::Collective::AllReduce, dp, kGiB8, 1)));
}

TEST_CASE("comm: send/recv over NVLink and over one NIC") {
  const comm::CommModel m(h800(), node8(400.0), 16);
  // H800 NVLink 8 x 20.6 = 164.8 (DeepSeek measured 160, DS-28).
  const auto nvl = m.cost(comm::Collective::SendRecv, {2, 2, 1}, units::Bytes{kGiB8});
  CHECK(nvl.algorithm == comm::CommAlgorithm::P2p);
  CHECK(nvl.algbw.gbytes_per_s() == doctest::Approx(164.8).epsilon(0.01));
  // NDR 400G: 50 x 0.94 = 47 GB/s (ISS nccl-tests#290), under PCIe Gen5's 48.
  CHECK(busbw(m, comm::Collective::SendRecv, {2, 1, 1}, kGiB8) == doctest::Approx(47.0).epsilon(0.01));
  // Small sends use LL at half bandwidth, with Ring LL latencies (6.6 + 0.6 us over NVLink).
  const auto tiny = m.cost(comm::Collective::SendRecv, {2, 2, 1}, units::Bytes{8.0});
  CHECK(tiny.protocol == comm::CommProtocol::LL);
  CHECK(tiny.latency.us() == doctest::Approx(7.2));
  CHECK(m.check(comm::Collective::SendRecv, {4, 4, 1}) == "send_recv is between 2 ranks (got 4)");
}

TEST_CASE("comm: all-to-all across nodes is bound by each GPU's own NIC") {
  const comm::CommModel m(h100(), node8(400.0), 32);
  // 4 nodes x 8 GPUs: a rank sends 24/32 of S over its 47 GB/s NIC, 7/32 over NVLink:
  // t = 0.75 S / 47 -> algbw = 47 / 0.75, busbw = algbw x 31/32.
  const auto c = m.cost(comm::Collective::AllToAll, {32, 8, 1}, units::Bytes{kGiB8});
  CHECK(c.algorithm == comm::CommAlgorithm::P2p);
  CHECK(c.busbw.gbytes_per_s() == doctest::Approx(47.0 / 0.75 * 31.0 / 32.0).epsilon(0.01));
}

TEST_CASE("comm: GB200 NVL72 keeps a group of two trays inside one NVLink domain") {
  hardware::FabricSpec nvl72;
  nvl72.gpus_per_node = 4;
  nvl72.nvlink_domain = 72;
  nvl72.intra = hardware::IntraNode::NVSwitch;
  nvl72.nic_gbps = 400.0;
  nvl72.nics_per_node = 4;
  const comm::CommModel m(gb200(), nvl72, 144);
  const auto tp8 = m.cost(comm::Collective::AllReduce, {8, 4, 1}, units::Bytes{kGiB8});
  CHECK(tp8.nodes == 1);
  CHECK(tp8.algorithm == comm::CommAlgorithm::Nvls);
  // 721.8 x 0.74 x 2(n-1)/(n+1) with n = 8.
  CHECK(tp8.busbw.gbytes_per_s() == doctest::Approx(721.8 * 0.74 * 14.0 / 9.0).epsilon(0.005));
  // 144 GPUs = two racks: a ring over all of them leaves the domain through the NICs.
  const auto all = m.cost(comm::Collective::AllReduce, {144, 4, 1}, units::Bytes{kGiB8});
  CHECK(all.nodes == 2);
  CHECK(comm::nccl::to_string(m.host_cpu()) == std::string("other"));  // Grace
}

TEST_CASE("comm: forcing an unavailable algorithm falls back to NCCL's choice") {
  const comm::CommModel m(a100(), node8(200.0), 8);
  const auto c =
      m.cost(comm::Collective::AllReduce, {8, 8, 1}, units::Bytes{kGiB8}, 1, {comm::CommAlgorithm::Nvls, {}});
  CHECK(c.algorithm == comm::CommAlgorithm::Ring);
  const auto ll = m.cost(comm::Collective::AllReduce, {8, 8, 1}, units::Bytes{kGiB8}, 1, {{}, comm::CommProtocol::LL});
  CHECK(ll.protocol == comm::CommProtocol::LL);
  // LL: bus bandwidth capped at llMaxBw[Ampere][1 node] = 87.7.
  CHECK(ll.busbw.gbytes_per_s() == doctest::Approx(87.7).epsilon(0.01));
}

TEST_CASE("comm: cost grows with size, results are cached per shape, a single rank costs nothing") {
  const comm::CommModel m(h100(), node8(400.0), 64);
  units::Time prev{0};
  for (double bytes = 8.0; bytes <= kGiB8; bytes *= 4.0) {
    const auto c = m.cost(comm::Collective::ReduceScatter, {64, 8, 1}, units::Bytes{bytes});
    CHECK(c.time >= prev);
    prev = c.time;
  }
  CHECK(m.cache_size() == 1);
  m.cost(comm::Collective::AllGather, {64, 8, 1}, units::Bytes{1e6});
  m.cost(comm::Collective::AllGather, {64, 8, 1}, units::Bytes{1e9});
  CHECK(m.cache_size() == 2);
  const auto none = m.cost(comm::Collective::AllReduce, {1, 1, 1}, units::Bytes{1e9});
  CHECK(none.time == units::Time{0});
  CHECK(none.algorithm == comm::CommAlgorithm::None);
  CHECK(m.candidates(comm::Collective::AllReduce, {8, 8, 1}, units::Bytes{1e6}).size() == 7);  // Tree x3, Ring x3, NVLS
}

TEST_CASE("comm: nccl-tests bus bandwidth factors and names") {
  CHECK(comm::bus_bandwidth_factor(comm::Collective::AllReduce, 8) == doctest::Approx(1.75));
  CHECK(comm::bus_bandwidth_factor(comm::Collective::AllGather, 8) == doctest::Approx(0.875));
  CHECK(comm::bus_bandwidth_factor(comm::Collective::AllToAll, 4) == doctest::Approx(0.75));
  CHECK(comm::bus_bandwidth_factor(comm::Collective::Broadcast, 8) == doctest::Approx(1.0));
  CHECK(comm::parse_collective("AllReduce") == comm::Collective::AllReduce);
  CHECK(comm::parse_collective("all-to-all") == comm::Collective::AllToAll);
  CHECK(comm::parse_collective("sendrecv") == comm::Collective::SendRecv);
  CHECK_FALSE(comm::parse_collective("gather"));
  CHECK(comm::parse_comm_algorithm("nvls_tree") == comm::CommAlgorithm::NvlsTree);
  CHECK(comm::parse_comm_protocol("ll128") == comm::CommProtocol::LL128);
}

TEST_CASE("comm: a cost does not depend on which collectives were asked before (shared network shares)") {
  // The model keeps one network_share per (shape, concurrent groups, pattern) for all the
  // collectives that ask it, and point-to-point collectives route only their own pattern: a
  // fresh model and one that answered other questions first give the same bits.
  const topology::GroupShape dp{16, 1, 1}, pair{2, 1, 4}, a2a{32, 8, 1};
  const std::int64_t concurrent = 8;
  auto ask = [&](const comm::CommModel& m) {
    std::vector<comm::CollectiveCost> out;
    for (comm::Collective op :
         {comm::Collective::AllReduce, comm::Collective::AllGather, comm::Collective::ReduceScatter})
      out.push_back(m.cost(op, dp, units::Bytes{1e8}, concurrent));
    out.push_back(m.cost(comm::Collective::SendRecv, pair, units::Bytes{1e7}, concurrent));
    out.push_back(m.cost(comm::Collective::AllToAll, a2a, units::Bytes{1e8}, 2));
    out.push_back(m.cost(comm::Collective::AllReduce, a2a, units::Bytes{1e8}, 2));
    return out;
  };
  const comm::CommModel warm(h100(), node8(400.0), 128);
  const auto first = ask(warm);
  const auto again = ask(warm);
  std::vector<comm::CollectiveCost> fresh;
  for (std::size_t i = 0; i < first.size(); ++i) {
    const comm::CommModel m(h100(), node8(400.0), 128);  // answers question i with nothing cached
    const auto all = ask(m);
    fresh.push_back(all[i]);
  }
  // Each question answered first by a fresh model (reverse order also exercises reuse).
  const comm::CommModel reversed(h100(), node8(400.0), 128);
  const comm::CollectiveCost a2a_first = reversed.cost(comm::Collective::AllToAll, a2a, units::Bytes{1e8}, 2);
  const comm::CollectiveCost send_first =
      reversed.cost(comm::Collective::SendRecv, pair, units::Bytes{1e7}, concurrent);
  const comm::CollectiveCost rs_first =
      reversed.cost(comm::Collective::ReduceScatter, dp, units::Bytes{1e8}, concurrent);
  for (std::size_t i = 0; i < first.size(); ++i) {
    CAPTURE(i);
    CHECK(first[i].time == again[i].time);
    CHECK(first[i].time == fresh[i].time);
    CHECK(first[i].busbw.bytes_per_s == fresh[i].busbw.bytes_per_s);
    CHECK(first[i].channels == fresh[i].channels);
    CHECK(first[i].concurrent_groups == fresh[i].concurrent_groups);
    CHECK(first[i].algorithm == fresh[i].algorithm);
  }
  CHECK(a2a_first.time == first[4].time);
  CHECK(a2a_first.channels == first[4].channels);
  CHECK(send_first.time == first[3].time);
  CHECK(send_first.concurrent_groups == first[3].concurrent_groups);
  CHECK(rs_first.time == first[2].time);
  // The p2p questions cross the network (else this test would not exercise their shares).
  CHECK(first[3].nodes == 2);
  CHECK(first[4].nodes == 4);
}

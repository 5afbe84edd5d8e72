// Collectives on PCIe-only servers (L40S, L20, RTX 4090 nodes of data/fabrics.yaml): NCCL's rings
// over the node's PCIe tree (ClusterTopology::pcie_ring_rate), against the same on NVLink nodes.
#include <doctest/doctest.h>

#include <string>

#include "flopcast/comm/comm_model.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;

namespace {

constexpr double kGiB = 1073741824.0;

comm::CommModel shipped(const std::string& gpu, int gpus = 8) {
  const auto& cat = test::shipped_catalog();
  const hardware::GpuSpec* g = cat.find_gpu(gpu);
  REQUIRE(g);
  const hardware::FabricSpec* f = cat.find_fabric(g->default_fabric);
  REQUIRE(f);
  return comm::CommModel(*g, *f, gpus);
}

/// A LoRA step of Llama 3 8B with TP 8 on one node of `gpu` (its catalog node), closed form.
estimate::StepEstimate tp8_step(const std::string& gpu) {
  const std::string yaml = R"(
model: {preset: llama3-8b, seq_len: 4096}
cluster: {gpu: )" + gpu + R"(, gpus: 8}
parallel: {tp: 8, pp: 1, dp: 1, micro_batch: 1, global_batch: 8, recompute: selective}
precision: bf16
training: {tokens: 1B, method: lora, lora: {rank: 16, targets: [qkv, proj, gate, up, fc2]}}
)";
  scenario::Diagnostics d;
  const auto s = io::parse_scenario(yaml, "tp8.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s, d.str());
  return estimate::estimate_step(*s, test::shipped_catalog().profile);
}

}  // namespace

TEST_CASE("comm: an 8 x L40S all-reduce is a ring over PCIe at the node's ring rate, about a tenth of 8 x H800") {
  const comm::CommModel l40s = shipped("L40S");
  const auto c = l40s.cost(comm::Collective::AllReduce, {8, 8, 1}, units::Bytes{kGiB});
  CHECK(c.algorithm == comm::CommAlgorithm::Ring);
  CHECK(c.protocol != comm::CommProtocol::LL128);  // NCCL enables LL128 on NVLink-class paths only
  // pcie-l40s-8gpu (Intel Sapphire Rapids, 4 Gen5 switches of 2 GPUs): the ring's hops through a
  // root complex cost Intel's 6/5 on the GPUs' Gen4 x16 links: 24 / 1.2 = 20 GB/s
  // (tests/topology/test_pcie_node.cpp); one channel of 20 (search.cc pre-Hopper speeds).
  CHECK(c.busbw.gbytes_per_s() == doctest::Approx(20.0).epsilon(0.01));
  const comm::CommModel h800 = shipped("H800");
  const auto h = h800.cost(comm::Collective::AllReduce, {8, 8, 1}, units::Bytes{kGiB});
  // H800: NVLS over 8 links, 164.8 x 0.85 x 2(n-1)/(n+1) = 217.9 GB/s busbw (comm tests).
  CHECK(h.busbw.gbytes_per_s() / c.busbw.gbytes_per_s() > 10.0);
}

TEST_CASE("comm: RTX 4090s without peer-to-peer all-reduce through host memory, their switch uplink the limit") {
  const comm::CommModel m = shipped("RTX4090");
  // pcie-4090-8gpu: 2 Gen4 switches of 4 GPUs, Skylake-class sockets (nccl-tests#307). Every hop
  // goes GPU -> switch -> CPU -> switch -> GPU: switch 0's uplink carries 3 hops through one
  // Intel root (1.2 each) and one across the sockets (1.0): 24 / 4.6 = 5.2 GB/s.
  const auto c = m.cost(comm::Collective::AllReduce, {8, 8, 1}, units::Bytes{kGiB});
  CHECK(c.busbw.gbytes_per_s() == doctest::Approx(24.0 / 4.6).epsilon(0.01));
  // TP=2 pairs: alone, a pair's two hops load the uplink 2 x 1.2 each way: 24 / 2.4 = 10 GB/s;
  // with the 3 other pairs of the node at once, 2 pairs per switch: 24 / 4.8 = 5 GB/s.
  const double alone = m.cost(comm::Collective::AllReduce, {2, 2, 1}, units::Bytes{kGiB}, 1).busbw.gbytes_per_s();
  const double four = m.cost(comm::Collective::AllReduce, {2, 2, 1}, units::Bytes{kGiB}, 4).busbw.gbytes_per_s();
  CHECK(alone == doctest::Approx(10.0).epsilon(0.01));
  CHECK(four == doctest::Approx(5.0).epsilon(0.01));
}

TEST_CASE("comm: an 8-way TP step on 8 L40S exposes at least 5x the TP communication of one on 8 H800") {
  // Same model, plan and messages; the TP all-reduces ride PCIe (20 GB/s ring) on the L40S node
  // and NVLink SHARP (about 218 GB/s busbw) on the H800 node: about 10x, at least 5x.
  const estimate::StepEstimate l40s = tp8_step("L40S");
  const estimate::StepEstimate h800 = tp8_step("H800");
  REQUIRE(h800.breakdown.tp_comm.ns > 0);
  const double ratio = l40s.breakdown.tp_comm.seconds() / h800.breakdown.tp_comm.seconds();
  CAPTURE(ratio);
  CHECK(ratio >= 5.0);
}

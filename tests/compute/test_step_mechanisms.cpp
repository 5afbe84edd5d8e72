// Mechanisms of the step estimate checked on worked examples: which ops an FP8 recipe leaves in
// 16 bits, and the node-deduplicated MoE dispatch volume.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "../support/shipped_catalog.hpp"
#include "flopcast/compute/op_cost.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/scenario_loader.hpp"

using namespace flopcast;

namespace {

/// A dense GELU model on one H100: 2 layers, hidden 1024 (8 heads), ffn 4096, seq 2048.
Scenario dense_h100(const std::string& precision) {
  const std::string text =
      "model:\n  layers: 2\n  hidden: 1024\n  heads: 8\n  ffn: 4096\n  vocab: 4096\n  seq_len: 2048\n"
      "cluster:\n  gpu: H100\n  gpus: 1\nparallel:\n  micro_batch: 1\n  global_batch: 1\n  recompute: none\n"
      "precision: " +
      precision + "\n";
  Diagnostics d;
  auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  return *s;
}

ComputeProfile no_host_profile() {
  ComputeProfile p;
  p.host_overhead_us = 0;
  p.microbatch_overhead_ms = 0;
  p.iteration_overhead_ms = 0;
  return p;
}

/// Forward and backward time of one layer's four FP8-able GEMMs (QKV, projection, FC1, FC2)
/// at T = 2048 tokens, hidden 1024, ffn 4096, TP 1, in `ctx`'s precision.
std::pair<double, double> layer_gemms(const OpContext& ctx) {
  const double T = 2048, h = 1024, f = 4096;
  const GemmShape fwd[] = {{T, 3 * h, h}, {T, h, h}, {T, f, h}, {T, h, f}};
  double tf = 0, tb = 0;
  for (const auto& g : fwd) {
    tf += gemm_time(ctx, g).seconds();
    tb += gemm_time(ctx, {g.m, g.k, g.n}).seconds() + gemm_time(ctx, {g.k, g.n, g.m}).seconds();
  }
  return {tf, tb};
}

}  // namespace

TEST_CASE("fp8 scope: attention, the LM head and the router stay in 16 bits") {
  CHECK(non_gemm_precision(Precision::FP8) == Precision::BF16);
  CHECK(non_gemm_precision(Precision::MXFP8) == Precision::BF16);
  CHECK(non_gemm_precision(Precision::NVFP4) == Precision::BF16);
  CHECK(non_gemm_precision(Precision::BF16) == Precision::BF16);
  CHECK(non_gemm_precision(Precision::FP16) == Precision::FP16);
}

TEST_CASE("fp8 scope: an fp8 run differs from its bf16 twin by the four layer GEMMs only") {
  // Same model, same plan: under FP8 only QKV, projection, FC1 and FC2 change precision
  // (elementwise kernels keep 16-bit activations in both). So the stage's forward
  // time of the bf16 run minus that of the fp8 run is exactly 2 layers x (the four GEMMs at bf16
  // minus at fp8); attention, embedding and the LM head cancel. Were attention and the LM head at the FP8 peak, the
  // difference would be larger by their halved times.
  const auto prof = no_host_profile();
  const auto bf = dense_h100("bf16");
  const auto f8 = dense_h100("fp8");
  const auto e_bf = estimate_step(bf, prof);
  const auto e_f8 = estimate_step(f8, prof);
  REQUIRE(e_bf.stages.size() == 1);
  REQUIRE(e_f8.stages.size() == 1);
  const OpContext c_bf{&bf.cluster.gpu, &prof, Precision::BF16};
  const OpContext c_f8{&f8.cluster.gpu, &prof, Precision::FP8};
  const auto [bf_f, bf_b] = layer_gemms(c_bf);
  const auto [f8_f, f8_b] = layer_gemms(c_f8);
  const double want_f = 2 * (bf_f - f8_f), want_b = 2 * (bf_b - f8_b);
  REQUIRE(want_f > 0);
  const double got_f = (e_bf.stages[0].forward - e_f8.stages[0].forward).seconds();
  const double got_b = (e_bf.stages[0].backward - e_f8.stages[0].backward).seconds();
  CHECK(got_f == doctest::Approx(want_f).epsilon(1e-6));
  CHECK(got_b == doctest::Approx(want_b).epsilon(1e-6));
}

TEST_CASE("moe dispatch: node deduplication of the bytes that cross the NIC") {
  // DeepSeek-V3 on B200 with EP 32 over 4 nodes of 8, top-8: a token misses a node with
  // probability (3/4)^8 = 0.100113, so it reaches 3 x 0.899887 = 2.699661 remote nodes against
  // 8 x 3/4 = 6 remote copies: factor 4 x 0.899887 / 8 = 0.449944.
  CHECK(moe_dispatch_internode_factor(8, 4) == doctest::Approx(0.449944).epsilon(1e-5));
  // Two nodes (EP 16 on 2 x 8 H100): 2 x (1 - 1/256) / 8 = 0.249023.
  CHECK(moe_dispatch_internode_factor(8, 2) == doctest::Approx(0.2490234375));
  // One node, or one expert per token: nothing to deduplicate.
  CHECK(moe_dispatch_internode_factor(8, 1) == 1.0);
  CHECK(moe_dispatch_internode_factor(1, 16) == 1.0);
  // Many nodes: the copies rarely share a node, the factor tends to 1 (64 nodes, top-8:
  // 64 x (1 - (63/64)^8) / 8 = 0.946).
  CHECK(moe_dispatch_internode_factor(8, 64) == doctest::Approx(64 * (1 - std::pow(63.0 / 64, 8)) / 8));
  CHECK(moe_dispatch_internode_factor(8, 64) > 0.94);
}

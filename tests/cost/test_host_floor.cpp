// The host-dispatch floor of the step estimate (compute_profile.hpp host_overhead_us): a stage
// takes max(device time, kernels x host time) per micro-batch and direction.
#include <doctest/doctest.h>

#include <string>

#include "../support/shipped_catalog.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/scenario_loader.hpp"

using namespace flopcast;

namespace {

/// A dense GELU model on one A100: `layers` layers of hidden `hidden`, seq `seq`.
scenario::Scenario small(int layers, int hidden, int seq, int micro_batch, int global_batch) {
  const std::string text =
      "model:\n  layers: " + std::to_string(layers) + "\n  hidden: " + std::to_string(hidden) +
      "\n  heads: 8\n  vocab: 1024\n  seq_len: " + std::to_string(seq) +
      "\ncluster:\n  gpu: A100-80G\n  gpus: 1\nparallel:\n  micro_batch: " + std::to_string(micro_batch) +
      "\n  global_batch: " + std::to_string(global_batch) + "\nprecision: bf16\n";
  scenario::Diagnostics d;
  auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  return *s;
}

compute::ComputeProfile host_profile(double host_us) {
  compute::ComputeProfile p;
  p.host_overhead_us = host_us;
  p.microbatch_overhead_ms = 0;
  p.iteration_overhead_ms = 0;
  return p;
}

}  // namespace

TEST_CASE("host floor: a tiny model is host-bound, each micro-batch costs its kernels x host time") {
  // step_estimate.cpp counts, per layer (flash attention, TP 1, no recompute): forward 4 GEMMs +
  // 1 attention + 9 elementwise = 14 kernels, backward 2 x 4 GEMMs + 2 attention + 18
  // elementwise = 28; the one stage adds embedding (2 forward, 2 backward) and logits, loss
  // (5 forward, 4 backward). With 1 ms per kernel the host dominates any device time here.
  const int L = 3;
  const auto s = small(L, 256, 128, 1, 4);
  const auto e = estimate::estimate_step(s, host_profile(1000.0));
  REQUIRE(e.stages.size() == 1);
  CHECK(e.stages[0].forward == units::Time::from_us(1000.0 * (14 * L + 7)));
  CHECK(e.stages[0].backward == units::Time::from_us(1000.0 * (28 * L + 6)));
  // Four micro-batches of one: the step is four times the per-micro-batch host time (plus the
  // optimizer), and doubling the micro-batch (same global batch) halves it: host-bound time
  // follows the number of micro-batches, not the tokens.
  const auto e2 = estimate::estimate_step(small(L, 256, 128, 2, 4), host_profile(1000.0));
  const units::Time per_mb = e.stages[0].forward + e.stages[0].backward;
  CHECK(e.breakdown.compute == units::Time::from_seconds(4 * per_mb.seconds()));
  CHECK(e2.breakdown.compute == units::Time::from_seconds(2 * per_mb.seconds()));
}

TEST_CASE("host floor: no effect where kernels are longer than the host's dispatch time") {
  // Hidden 4096, 4 x 4096 tokens per micro-batch: every GEMM takes hundreds of microseconds,
  // so a 45 us host cost per kernel hides behind the device work.
  const auto s = small(2, 4096, 4096, 4, 8);
  const auto device_only = estimate::estimate_step(s, host_profile(0.0));
  const auto with_host = estimate::estimate_step(s, host_profile(45.0));
  CHECK(with_host.step == device_only.step);
  // The same host cost on a tiny model does show.
  const auto tiny = small(2, 256, 128, 1, 4);
  CHECK(estimate::estimate_step(tiny, host_profile(45.0)).step > estimate::estimate_step(tiny, host_profile(0.0)).step);
}

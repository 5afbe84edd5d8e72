// Resolving open settings (setting_resolution.hpp): the fastest closed-form choice that fits
// memory, checked against an exhaustive search of the same choices; nothing fits -> the
// leanest, flagged; stated settings are never touched.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "../support/shipped_catalog.hpp"
#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"

using namespace flopcast;

namespace {

Scenario must_parse(const std::string& text) {
  Diagnostics d;
  auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  return *s;
}

}  // namespace

TEST_CASE("resolution picks the fastest choice that fits, as an exhaustive search of the same choices does") {
  // Llama 3 8B on 8 H100 with tp 2: micro-batch, recompute, ZeRO and SP all open.
  auto s = must_parse(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {tp: 2, pp: 1, global_batch: 32, micro_batch: auto, zero: auto, recompute: auto, sequence_parallel: auto}
precision: bf16
)");
  const ComputeProfile& prof = test::shipped_catalog().profile;
  const auto chosen = s.plan;
  REQUIRE(s.resolved_settings.fits);
  const Time best = estimate_step(s, prof).step;
  // Every combination of the choices: none that fits is faster.
  const auto choices = setting_choices(s);
  CHECK(choices.micro_batch == std::vector<std::int64_t>{1, 2, 4, 8});  // divisors of 32 / dp 4
  CHECK(choices.zero == std::vector<int>{0, 1, 2, 3});                  // no pipeline: ZeRO 0-3
  CHECK(choices.sequence_parallel == std::vector<bool>{false, true});
  CHECK(choices.recompute.size() == 3);
  std::size_t fitting = 0;
  for (auto mb : choices.micro_batch)
    for (int z : choices.zero)
      for (bool sp : choices.sequence_parallel)
        for (auto rc : choices.recompute) {
          Scenario c = s;
          c.plan.micro_batch = mb;
          c.plan.zero = z;
          c.plan.sequence_parallel = sp;
          c.plan.recompute = rc;
          if (!memory_per_gpu(c, prof).fits()) continue;
          ++fitting;
          CHECK(estimate_step(c, prof).step >= best);
        }
  CHECK(fitting > 1);
  // The choice is listed as resolved, and resolving again changes nothing.
  CHECK(std::count_if(s.defaults_applied.begin(), s.defaults_applied.end(), [](const std::string& x) {
          return x.find("(resolved: the fastest choice that fits)") != std::string::npos;
        }) == 4);
  resolve_open_settings(s, prof);
  CHECK(s.plan.micro_batch == chosen.micro_batch);
  CHECK(s.plan.recompute == chosen.recompute);
  CHECK(s.resolved_settings.chosen.size() == 4);
}

TEST_CASE("resolution: recompute auto takes full recompute when nothing less fits") {
  // Llama 3 70B on 256 H100, TP 8 + SP, ZeRO-1: with fp32 gradient buffers the weights, gradients
  // and optimizer state are 16.4 + 32.9 + 3.1 GiB, and selective recompute's 22 GiB of
  // activations do not fit beside them; full recompute's do (scenarios/fleets/jobs).
  auto s = must_parse(R"(
model: llama3-70b
cluster: {gpu: H100, gpus: 256}
parallel: {tp: 8, dp: 32, sequence_parallel: true, zero: 1, micro_batch: 1, global_batch: 1024, recompute: auto}
precision: bf16
)");
  CHECK(s.plan.recompute == Recompute::Full);
  CHECK(s.resolved_settings.fits);
  Scenario selective = s;
  selective.plan.recompute = Recompute::Selective;
  CHECK_FALSE(memory_per_gpu(selective, test::shipped_catalog().profile).fits());
}

TEST_CASE("resolution: when no choice fits, the leanest is taken and the result says it does not fit") {
  // Llama 3 70B on 8 H100 without model parallelism cannot hold its 70B x 18 B of state.
  auto s = must_parse(R"(
model: llama3-70b
cluster: {gpu: H100, gpus: 8}
parallel: {global_batch: 8, zero: 0, recompute: auto, micro_batch: auto}
precision: bf16
)");
  CHECK_FALSE(s.resolved_settings.fits);
  CHECK(s.plan.recompute == Recompute::Full);  // the least activation memory
  CHECK(s.plan.micro_batch == 1);
  CHECK(s.resolved_settings.memory_gib > s.resolved_settings.capacity_gib);
  CHECK(std::any_of(s.defaults_applied.begin(), s.defaults_applied.end(), [](const std::string& x) {
    return x == "parallel.recompute = full (resolved: no choice fits; the leanest)";
  }));
}

TEST_CASE("resolution: an open vpp chooses between 1F1B and interleaving, a stated one is kept") {
  auto s = must_parse(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {pp: 4, dp: 2, global_batch: 64, micro_batch: 1, zero: 1, recompute: none, vpp: auto}
precision: bf16
)");
  // 32 layers over pp 4: vpp 1 (1F1B) and 2, 4, 8 (interleaved) divide the layers.
  const auto choices = setting_choices(s);
  CHECK(choices.vpp == std::vector<int>{1, 2, 4, 8});
  CHECK(choices.zero == std::vector<int>{1});  // stated
  CHECK((s.plan.vpp == 1) == (s.plan.schedule == Schedule::OneFOneB));
  if (s.plan.vpp > 1) CHECK(s.plan.schedule == Schedule::Interleaved);
  auto stated = must_parse(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {pp: 4, dp: 2, global_batch: 64, micro_batch: 1, zero: 1, recompute: none, vpp: 2}
precision: bf16
)");
  CHECK_FALSE(stated.resolved_settings.resolved);
  CHECK(stated.plan.vpp == 2);
  CHECK(stated.plan.schedule == Schedule::Interleaved);
}

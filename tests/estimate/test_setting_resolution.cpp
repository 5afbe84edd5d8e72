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

/// The scenario as a command evaluates it: parsed, its open settings resolved with the shipped
/// profile (what app::ScenarioSession does).
scenario::Scenario must_parse(const std::string& text) {
  scenario::Diagnostics d;
  auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  if (s->open_settings.any()) estimate::resolve_open_settings(*s, test::shipped_catalog().profile);
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
  const compute::ComputeProfile& prof = test::shipped_catalog().profile;
  const auto chosen = s.plan;
  REQUIRE(s.resolved_settings.fits);
  const units::Time best = estimate::estimate_step(s, prof).step;
  // Every combination of the choices: none that fits is faster.
  const auto choices = estimate::setting_choices(s);
  CHECK(choices.micro_batch == std::vector<std::int64_t>{1, 2, 4, 8});  // divisors of 32 / dp 4
  CHECK(choices.zero == std::vector<int>{0, 1, 2, 3});                  // no pipeline: ZeRO 0-3
  CHECK(choices.sequence_parallel == std::vector<bool>{false, true});
  CHECK(choices.recompute.size() == 3);
  std::size_t fitting = 0;
  for (auto mb : choices.micro_batch)
    for (int z : choices.zero)
      for (bool sp : choices.sequence_parallel)
        for (auto rc : choices.recompute) {
          scenario::Scenario c = s;
          c.plan.micro_batch = mb;
          c.plan.zero = z;
          c.plan.sequence_parallel = sp;
          c.plan.recompute = rc;
          if (!workload::memory_per_gpu(c, prof).fits()) continue;
          ++fitting;
          CHECK(estimate::estimate_step(c, prof).step >= best);
        }
  CHECK(fitting > 1);
  // The choice is listed as resolved, and resolving again changes nothing.
  CHECK(std::count_if(s.defaults_applied.begin(), s.defaults_applied.end(), [](const std::string& x) {
          return x.find("(resolved: the fastest choice that fits)") != std::string::npos;
        }) == 4);
  estimate::resolve_open_settings(s, prof);
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
  CHECK(s.plan.recompute == parallel::Recompute::Full);
  CHECK(s.resolved_settings.fits);
  scenario::Scenario selective = s;
  selective.plan.recompute = parallel::Recompute::Selective;
  CHECK_FALSE(workload::memory_per_gpu(selective, test::shipped_catalog().profile).fits());
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
  CHECK(s.plan.recompute == parallel::Recompute::Full);  // the least activation memory
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
  const auto choices = estimate::setting_choices(s);
  CHECK(choices.vpp == std::vector<int>{1, 2, 4, 8});
  CHECK(choices.zero == std::vector<int>{1});  // stated
  CHECK((s.plan.vpp == 1) == (s.plan.schedule == parallel::Schedule::OneFOneB));
  if (s.plan.vpp > 1) CHECK(s.plan.schedule == parallel::Schedule::Interleaved);
  auto stated = must_parse(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {pp: 4, dp: 2, global_batch: 64, micro_batch: 1, zero: 1, recompute: none, vpp: 2}
precision: bf16
)");
  CHECK_FALSE(stated.resolved_settings.resolved);
  CHECK(stated.plan.vpp == 2);
  CHECK(stated.plan.schedule == parallel::Schedule::Interleaved);
}

TEST_CASE("resolution: the gradient dtype and FP8 parameters are open settings, and recompute none fits with them") {
  // MLPerf Training v5.1 Llama 3.1 8B on 64 H100 (TP 1, DP 64, distributed optimizer, FP8), the
  // settings its source does not state written auto. Per GPU: 16-bit weights 15.0 GiB, FP8 copies
  // 2 B per GEMM weight, fp32 main grads 29.9 GiB (4 B x 8.03e9), optimizer 12/64 B, the
  // activations of one 8192-token sequence and the fp32 logits: above 80 GB without recompute.
  // bf16 gradients (2 B) and FP8-only weights (fp8_params) take 15.0 + 15.0 GiB off, and no
  // recompute then fits: the fastest choice.
  const std::string head = R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 64}
parallel: {tp: 1, dp: 64, zero: 1, micro_batch: 1, global_batch: 64, sequence_parallel: false, recompute: auto}
precision: fp8
)";
  auto s = must_parse(head + "grad_reduce: auto\nfp8_params: auto\n");
  const compute::ComputeProfile& prof = test::shipped_catalog().profile;
  const auto choices = estimate::setting_choices(s);
  CHECK(choices.grad_reduce ==
        std::vector<scenario::GradReduce>{scenario::GradReduce::FP32, scenario::GradReduce::Half});
  CHECK(choices.fp8_params == std::vector<bool>{false, true});
  REQUIRE(s.resolved_settings.fits);
  CHECK(s.plan.recompute == parallel::Recompute::None);
  CHECK(s.grad_reduce == scenario::GradReduce::Half);
  // Every fitting combination is at least as slow as the choice.
  const units::Time best = estimate::estimate_step(s, prof).step;
  for (const auto rc : choices.recompute)
    for (const auto g : choices.grad_reduce)
      for (const bool f : choices.fp8_params) {
        scenario::Scenario c = s;
        c.plan.recompute = rc;
        c.grad_reduce = g;
        c.fp8_params = f;
        if (workload::memory_per_gpu(c, prof).fits()) CHECK(estimate::estimate_step(c, prof).step >= best);
      }
  // The defaults (fp32 grads, 16-bit weights kept) need full recompute to fit.
  scenario::Scenario none = s;
  none.grad_reduce = scenario::GradReduce::FP32;
  none.fp8_params = false;
  CHECK_FALSE(workload::memory_per_gpu(none, prof).fits());
  const auto defaults = must_parse(head);
  CHECK_FALSE(defaults.open_settings.grad_reduce);
  CHECK_FALSE(defaults.open_settings.fp8_params);
  CHECK(defaults.grad_reduce == scenario::GradReduce::Default);
  CHECK(defaults.plan.recompute == parallel::Recompute::Full);
  // Each choice is listed, in the key's own words.
  CHECK(std::any_of(s.defaults_applied.begin(), s.defaults_applied.end(), [](const std::string& x) {
    return x == "grad_reduce = bf16 (resolved: the fastest choice that fits)";
  }));
  CHECK(estimate::grad_reduce_text(hardware::Precision::FP16, scenario::GradReduce::Half) == "fp16");
  CHECK(estimate::grad_reduce_text(hardware::Precision::BF16, scenario::GradReduce::Default) == "fp32");
}

TEST_CASE("grad_reduce and fp8_params: stated values, open when a measured run leaves them out, bad values refused") {
  const auto stated = must_parse(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {global_batch: 8, micro_batch: 1, zero: 1, recompute: none}
precision: bf16
grad_reduce: bf16
)");
  CHECK(stated.grad_reduce == scenario::GradReduce::Half);
  CHECK_FALSE(stated.open_settings.any());
  // Two runs that state every parallel setting; they differ in precision and grad_reduce.
  auto entry = [](const std::string& id, const std::string& rest) {
    return "- id: " + id +
           "\n  source: test\n  model: llama3-8b\n  cluster: {gpu: H100, gpus: 8}\n"
           "  parallel: {global_batch: 8, micro_batch: 1, zero: 1, recompute: full, sequence_parallel: false, vpp: 1}\n" +
           rest + "  measured: {iteration_time_s: 1}\n";
  };
  scenario::Diagnostics d;
  const auto runs = io::parse_run_file(
      entry("fp8-unstated", "  precision: fp8\n") + entry("bf16-stated", "  precision: bf16\n  grad_reduce: fp32\n"),
      "runs.yaml", test::shipped_catalog(), d);
  REQUIRE(runs.size() == 2);
  REQUIRE(runs[0].scenario.has_value());
  REQUIRE(runs[1].scenario.has_value());
  CHECK(runs[0].scenario->open_settings.grad_reduce);
  CHECK(runs[0].scenario->open_settings.fp8_params);
  CHECK_FALSE(runs[1].scenario->open_settings.any());  // bf16: no fp8_params to choose; grad_reduce stated
  CHECK(runs[1].scenario->grad_reduce == scenario::GradReduce::FP32);
  auto refused = [](const std::string& text, const std::string& fix) {
    scenario::Diagnostics diags;
    const auto s = io::parse_scenario(text, "bad.yaml", test::shipped_catalog(), diags);
    CHECK_FALSE(s.has_value());
    CHECK_MESSAGE(diags.str().find(fix) != std::string::npos, diags.str());
  };
  const std::string base = "model: llama3-8b\ncluster: {gpu: H100, gpus: 8}\nparallel: {global_batch: 8}\n";
  refused(base + "precision: fp16\ngrad_reduce: bf16\n", "write grad_reduce: fp16");
  refused(base + "precision: fp32\ngrad_reduce: bf16\n", "fp32 training reduces fp32 gradients");
  refused(base + "precision: bf16\ngrad_reduce: fp33\n", "did you mean 'fp32'");
  refused(base + "precision: bf16\nfp8_params: auto\n", "fp8_params needs an FP8 precision");
}

TEST_CASE("resolution: TP comm overlap is an open setting, taken only with sequence parallelism") {
  // Llama 3 8B on one H100 node, one micro-batch, nothing recomputed; `rest`: the other parallel settings.
  const auto llama8b_h100x8 = [](int tp, const std::string& rest) {
    return "model: llama3-8b\ncluster: {gpu: H100, gpus: 8}\nparallel: {tp: " + std::to_string(tp) +
           ", pp: 1, global_batch: 8, micro_batch: 1, zero: 0, recompute: none" + (rest.empty() ? "" : ", " + rest) +
           "}\nprecision: bf16\n";
  };
  // Open with sequence parallelism open: the overlap hides most of the TP collectives
  // (tp_overlap_exposed), so the fastest choice is sequence parallelism with the overlap.
  auto s = must_parse(llama8b_h100x8(8, "sequence_parallel: auto, overlap_tp_comm: auto"));
  CHECK(estimate::setting_choices(s).overlap_tp_comm == std::vector<bool>{false, true});
  CHECK(s.plan.sequence_parallel);
  CHECK(s.plan.overlap_tp_comm);
  const auto& chosen = s.resolved_settings.chosen;
  CHECK(std::find(chosen.begin(), chosen.end(),
                  std::pair<std::string, std::string>{"parallel.overlap_tp_comm", "true"}) != chosen.end());
  // Sequence parallelism stated off: Megatron-LM refuses the overlap, so it resolves off.
  auto off = must_parse(llama8b_h100x8(8, "sequence_parallel: false, overlap_tp_comm: auto"));
  CHECK_FALSE(off.plan.overlap_tp_comm);
  // tp 1: nothing to overlap, one choice.
  auto tp1 = must_parse(llama8b_h100x8(1, "overlap_tp_comm: auto"));
  CHECK(estimate::setting_choices(tp1).overlap_tp_comm == std::vector<bool>{false});
  CHECK_FALSE(tp1.plan.overlap_tp_comm);
  // Stated, it is kept, and the scenario has nothing open.
  auto stated = must_parse(llama8b_h100x8(8, "sequence_parallel: true, overlap_tp_comm: false"));
  CHECK_FALSE(stated.open_settings.any());
  CHECK_FALSE(stated.plan.overlap_tp_comm);
}

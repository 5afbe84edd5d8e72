// LoRA and QLoRA (workload/fine_tuning.hpp) on worked examples derived by hand: Llama 2 70B's
// shape (LLAMA2 config.json: hidden 8192, 64 heads of 128, 8 KV heads, FFN 28672 SwiGLU, vocab
// 32000 untied, 80 layers, RMSNorm, no biases), LoRA (Hu et al. 2021, arXiv 2106.09685: A is
// in x r, B is r x out) and QLoRA's NF4 storage (Dettmers et al. 2023, arXiv 2305.14314 §3).
#include <doctest/doctest.h>

#include <string>

#include "../support/shipped_catalog.hpp"
#include "flopcast/cost/fine_tuning_cost.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/workload/fine_tuning.hpp"
#include "flopcast/workload/workload.hpp"

using namespace flopcast;

namespace {

const io::Catalog& catalog() { return test::shipped_catalog(); }

scenario::Scenario parse(const std::string& text) {
  scenario::Diagnostics d;
  auto s = io::parse_scenario(text, "lora.yaml", catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  return *s;
}

/// Llama 2 70B at its 4,096-token context on one H100 node, TP 8, global batch 8.
std::string llama2_70b(const std::string& training) {
  return "model: llama2-70b\ncluster: {gpu: H100, gpus: 8}\n"
         "parallel: {tp: 8, micro_batch: 1, global_batch: 8, recompute: full}\nprecision: bf16\n" +
         training;
}

}  // namespace

TEST_CASE("Llama 2 70B, rank 16 on q, k, v, o: 65,536,000 adapter parameters (GQA: k and v are 1024 wide)") {
  // Per layer, r (in + out) per adapter with q = 64 x 128 = 8192 and kv = 8 x 128 = 1024 wide:
  //   q: 16 (8192 + 8192) = 262,144     k: 16 (8192 + 1024) = 147,456
  //   v: 16 (8192 + 1024) = 147,456     o: 16 (8192 + 8192) = 262,144
  // = 819,200 per layer, x 80 layers = 65,536,000. Without GQA (k, v 8192 wide) it would be
  // 16 x 16384 x 4 x 80 = 83,886,080.
  const auto s =
      parse(llama2_70b("training: {method: lora, lora: {rank: 16, targets: [q_proj, k_proj, v, o_proj]}}\n"));
  CHECK(s.training.method == workload::TrainingMethod::Lora);
  CHECK(workload::adapter_params_of_layer(s.model, s.training.lora, 0) == 819200.0);
  CHECK(workload::trainable_params(s) == 65536000.0);
  // Fused qkv (Megatron-core's linear_qkv: one adapter h -> q + 2 kv) and proj, MLPerf's targets:
  // 16 (8192 + 10240) + 16 (8192 + 8192) = 294,912 + 262,144 = 557,056 per layer, 44,564,480 in all.
  const auto fused = parse(llama2_70b("training: {method: lora, lora: {rank: 16, targets: [qkv, proj]}}\n"));
  CHECK(workload::trainable_params(fused) == 44564480.0);
}

TEST_CASE("LoRA 70B FLOPs per token: 307.46 GFLOP against full training's 444.49 (frozen weights: 4N, not 6N)") {
  // GEMM weights per layer: attention 8192 x 8192 x 2 + 2 x 8192 x 1024 = 150,994,944, MLP
  // 3 x 8192 x 28672 = 704,643,072; x 80 = N = 68,451,041,280; logits N_l = 8192 x 32000 =
  // 262,144,000. Attention (QK^T and AV, full s^2 as Megatron/PaLM count it) 4 s q = 4 x 4096 x
  // 8192 = 134,217,728 per token per layer forward.
  //   full:  6 (N + N_l) + 3 x 80 x 134,217,728 = 412,279,111,680 + 32,212,254,720 = 444,491,366,400
  //   LoRA (rank 16 on q, k, v, o, 65,536,000 adapter weights):
  //          4 (N + N_l) + 3 x 80 x 134,217,728 + 6 x 65,536,000
  //        = 274,852,741,120 + 32,212,254,720 + 393,216,000 = 307,458,211,840  (0.6917 of full)
  const auto full = parse(llama2_70b(""));
  const auto lora = parse(llama2_70b("training: {method: lora, lora: {rank: 16, targets: [q, k, v, proj]}}\n"));
  const double tokens = 8.0 * 4096;
  CHECK(workload::training_model_flops(full).value / tokens == doctest::Approx(444491366400.0).epsilon(1e-12));
  CHECK(workload::training_model_flops(lora).value / tokens == doctest::Approx(307458211840.0).epsilon(1e-12));
  // Full training's figure is Megatron's (model_flops_per_step), unchanged.
  CHECK(workload::training_model_flops(full).value == workload::model_flops_per_step(full.model, 8).value);
  // Full recompute replays the layers' forward (not the logits'), adapters included, per token:
  // 2 x 68,451,041,280 + 80 x 134,217,728 + 2 x 65,536,000 = 147,770,572,800.
  CHECK((workload::training_hardware_flops(lora).value - workload::training_model_flops(lora).value) / tokens ==
        doctest::Approx(147770572800.0).epsilon(1e-12));
  // The estimate reports these FLOPs, and MFU divides them (the convention is printed with it).
  const auto e = estimate::estimate_step(lora, catalog().profile);
  CHECK(e.model_flops.value == workload::training_model_flops(lora).value);
  const double peak = lora.cluster.gpu.peak(hardware::Precision::BF16)->flops_per_s;
  CHECK(e.mfu == doctest::Approx(e.model_flops.value / (e.step.seconds() * 8 * peak)).epsilon(1e-12));
  CHECK(workload::model_flops_convention(lora).find("4 FLOPs per parameter per token, not 6") != std::string::npos);
}

TEST_CASE("LoRA's selective recompute counts what it runs again: attention, or under FSDP2 the per-op GEMMs") {
  // Per token, Llama 2 70B: Megatron's selective recompute runs the attention core again
  // (80 x 134,217,728); under FSDP2 the per-op policy runs K (8192 x 1024), the output projection
  // (8192 x 8192) and w3 (8192 x 28672) forward: 2 x 80 x 310,378,496 = 49,660,559,360.
  const auto megatron = parse(
      "model: llama2-70b\ncluster: {gpu: H100, gpus: 8}\nparallel: {dp: 8, micro_batch: 1, global_batch: 8, "
      "recompute: selective}\nprecision: bf16\ntraining: {method: lora, lora: {rank: 16}}\n");
  const auto fsdp = parse(
      "model: llama2-70b\ncluster: {gpu: H100, gpus: 8}\nparallel: {dp: 8, micro_batch: 1, global_batch: 8, "
      "fsdp: {reshard_after_forward: true}, recompute: selective}\nprecision: bf16\n"
      "training: {method: lora, lora: {rank: 16}}\n");
  const double tokens = 8.0 * 4096;
  auto extra = [&](const scenario::Scenario& s) {
    return (workload::training_hardware_flops(s).value - workload::training_model_flops(s).value) / tokens;
  };
  CHECK(extra(megatron) == doctest::Approx(80.0 * 134217728).epsilon(1e-12));
  CHECK(extra(fsdp) == doctest::Approx(2.0 * 80 * (8192.0 * 1024 + 8192.0 * 8192 + 8192.0 * 28672)).epsilon(1e-12));
}

TEST_CASE("QLoRA 70B on one H100: NF4 weights 38.02 GB, adapter state 13.25 GB, fits 80 GB with full recompute") {
  // QLoRA's setting (all linear layers, rank 64) for Llama 2 70B on one GPU, 4k tokens:
  // - NF4: 4 bits + 8-bit absmax per 64 weights + fp32 per 256 absmax = 0.5 + 1/64 + 1/4096 B
  //   = 0.515869140625 B per GEMM weight; 68,451,041,280 x that = 35,311,779,840 B.
  // - embedding, output head and norms stay 16-bit: (2 x 262,144,000 + 80 x 2 x 8192 + 8192) x 2
  //   = 525,606,912 x 2 = 1,051,213,824 B.
  // - adapters, rank 64 per layer: q 64 (16384) + k, v 64 (9216) x 2 + o 64 (16384) + gate, up,
  //   down 64 (8192 + 28672) x 3 = 10,354,688; x 80 = 828,375,040 parameters; 2 B each =
  //   1,656,750,080 B. Weights: 35,311,779,840 + 1,051,213,824 + 1,656,750,080 = 38,019,743,744 B.
  // - gradients 4 B (fp32 accumulation as for bf16 training): 3,313,500,160 B; Adam 12 B (fp32
  //   master, m, v): 9,940,500,480 B. Full training would need 18 x 68.98e9 = 1.24 TB here.
  const auto s = parse(
      "model: llama2-70b\ncluster: {gpu: H100, gpus: 1}\n"
      "parallel: {micro_batch: 1, global_batch: 16, recompute: full}\nprecision: bf16\n"
      "training: {method: qlora, lora: {rank: 64, targets: [q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, "
      "down_proj]}}\n");
  CHECK(s.training.lora.base_weights == workload::BaseWeights::NF4);  // qlora's default
  CHECK(workload::trainable_params(s) == 828375040.0);
  const auto mb = workload::memory_per_gpu(s, catalog().profile);
  CHECK(mb.weights.value == doctest::Approx(38019743744.0).epsilon(1e-12));
  CHECK(mb.gradients.value == doctest::Approx(3313500160.0).epsilon(1e-12));
  CHECK(mb.optimizer.value == doctest::Approx(9940500480.0).epsilon(1e-12));
  CHECK(mb.fits());
  // The same job with 16-bit base weights (LoRA) needs 2 x 68.45e9 B of GEMM weights: no fit.
  auto lora = s;
  lora.training.method = workload::TrainingMethod::Lora;
  lora.training.lora.base_weights = workload::BaseWeights::BF16;
  CHECK_FALSE(workload::memory_per_gpu(lora, catalog().profile).fits());
}

TEST_CASE("a LoRA step: no weight-gradient GEMMs for frozen weights, adapters-only DP sync and optimizer") {
  const auto full = parse(llama2_70b(""));
  const auto lora = parse(llama2_70b("training: {method: lora, lora: {rank: 16}}\n"));
  // Default targets: NeMo's qkv, proj, fc1, fc2.
  REQUIRE(lora.training.lora.targets.size() == 4);
  CHECK(lora.training.lora.targets[2] == workload::LoraTarget::Fc1);
  const auto& prof = catalog().profile;
  const auto ef = estimate::estimate_step(full, prof);
  const auto el = estimate::estimate_step(lora, prof);
  // Forward: the base GEMMs plus small adapters, so a little longer; backward: without the
  // weight gradients (a third of the GEMM work), clearly shorter.
  CHECK(el.stages[0].forward > ef.stages[0].forward);
  CHECK(el.stages[0].backward < ef.stages[0].backward);
  const auto compute = [](const cost::StageTimes& st) { return st.forward + st.backward + st.recompute; };
  CHECK(compute(el.stages[0]) < compute(ef.stages[0]));
  // Under TP 8 the adapters communicate on their own (cost/fine_tuning_cost.hpp): more exposed TP
  // time than the base model's collectives alone.
  CHECK(el.stages[0].tp_comm > ef.stages[0].tp_comm);
  // Parameters synchronised and stepped: the adapters' TP share, not the model's.
  const auto pl = cost::stage_parameters(lora, 0);
  CHECK(pl.dense == doctest::Approx(workload::trainable_params(lora) / 8).epsilon(1e-12));
  CHECK(pl.frozen_bytes > 2 * 68e9 / 8);
  CHECK(cost::optimizer_time(lora, prof, pl) < cost::optimizer_time(full, prof, cost::stage_parameters(full, 0)));
  // Memory: no optimizer state or gradients for the frozen weights.
  CHECK(el.memory.optimizer.value == doctest::Approx(12.0 * workload::trainable_params(lora) / 8).epsilon(1e-12));
  CHECK(el.memory.optimizer.value < ef.memory.optimizer.value / 100);
}

TEST_CASE("QLoRA's dequantization costs time: the same job is slower than LoRA") {
  const std::string base =
      "model: llama2-70b\ncluster: {gpu: H100, gpus: 8}\n"
      "parallel: {tp: 8, micro_batch: 1, global_batch: 8, recompute: full}\nprecision: bf16\n";
  const auto lora = parse(base + "training: {method: lora, lora: {rank: 16}}\n");
  const auto qlora = parse(base + "training: {method: qlora, lora: {rank: 16}}\n");
  const auto& prof = catalog().profile;
  const auto el = estimate::estimate_step(lora, prof);
  const auto eq = estimate::estimate_step(qlora, prof);
  CHECK(eq.stages[0].forward > el.stages[0].forward);
  CHECK(eq.step > el.step);
  // Same FLOPs (dequantization is memory traffic, not model FLOPs), less memory.
  CHECK(eq.model_flops.value == el.model_flops.value);
  CHECK(eq.memory.weights.value < el.memory.weights.value / 3);
}

TEST_CASE("an adapter's output is scaled in a kernel of its own, then added: five passes over it forward, two back") {
  // One rank-16 adapter on o_proj (8192 -> 8192) of Llama 2 70B on one H100, 4,096 tokens, BF16.
  // Forward: x A (4096 x 16 from 8192), (x A) B (4096 x 8192 from 16), the scale (read and write
  // 4096 x 8192) and the add into the base output (read two, write one): 5 x 4096 x 8192 x 2 B.
  // Backward (input gradient): the scale's gradient over the output (read and write) and A's input
  // gradient added into the base's (read two, write one, 4096 x 8192): (2 + 3) x 4096 x 8192 x 2 B.
  scenario::Scenario s = parse(
      "model: llama2-70b\ncluster: {gpu: H100, gpus: 1}\nparallel: {micro_batch: 1, global_batch: 1}\n"
      "precision: bf16\ntraining: {method: lora, lora: {rank: 16, targets: [o_proj]}}\n");
  const compute::ComputeProfile& prof = catalog().profile;
  const cost::OpContext ctx{&s.cluster.gpu, &prof, hardware::Precision::BF16};
  const double T = 4096, r = 16, w = 8192;
  const cost::FineTuningLayerCost c = cost::fine_tuning_layer_cost(ctx, s, 0, T);
  const units::Time gemms_f = cost::gemm_time(ctx, {T, r, w}) + cost::gemm_time(ctx, {T, w, r});
  const units::Time gemms_b = cost::gemm_time(ctx, {T, r, w}) + cost::gemm_time(ctx, {T, w, r});
  const double pass = T * w * 2;
  CHECK(c.fwd.seconds() ==
        doctest::Approx((gemms_f + cost::memory_bound_time(ctx, units::Bytes{5 * pass}, 2)).seconds()));
  CHECK(c.bwd_input.seconds() ==
        doctest::Approx((gemms_b + cost::memory_bound_time(ctx, units::Bytes{5 * pass}, 2)).seconds()));
  CHECK(c.kernels_f == 4);  // two GEMMs, the scale, the add
  CHECK(c.kernels_b == 6);  // four GEMMs, the scale's gradient, the add
  // The memory-bound passes are a visible share of a thin adapter's forward.
  CHECK(cost::memory_bound_time(ctx, units::Bytes{5 * pass}, 2).seconds() > 0.5 * gemms_f.seconds());
}

TEST_CASE("LoRA dropout: one pass writing a dropped copy and a mask per adapter input, kept for backward") {
  // Rank-16 adapters on q_proj (column-parallel, input 8192) and down_proj (row-parallel, input
  // 28672) of Llama 2 70B, TP 2 without sequence parallelism, 4,096 tokens, BF16, dropout 0.1.
  // q's adapter sees the whole hidden state (replicated over TP): 4096 x 8192 elements; down's its
  // base GEMM's input split by TP: 4096 x 14336. Forward (native_dropout): read 2 B, write 2 B and
  // a 1-byte mask = 5 B per element; backward (native_dropout_backward): read the gradient and the
  // mask, write the input's gradient = 5 B. Kept for backward: the dropped copy and the mask, 3 B.
  const std::string head =
      "model: llama2-70b\ncluster: {gpu: H100, gpus: 2}\nparallel: {tp: 2, micro_batch: 1, global_batch: 1}\n"
      "precision: bf16\n";
  const scenario::Scenario plain =
      parse(head + "training: {method: lora, lora: {rank: 16, targets: [q_proj, down_proj]}}\n");
  const scenario::Scenario dropped =
      parse(head + "training: {method: lora, lora: {rank: 16, dropout: 0.1, targets: [q_proj, down_proj]}}\n");
  const compute::ComputeProfile& prof = catalog().profile;
  const cost::OpContext ctx{&plain.cluster.gpu, &prof, hardware::Precision::BF16};
  const double T = 4096;
  const double q_in = T * 8192, down_in = T * 28672 / 2;
  const auto shapes = workload::adapter_shapes(dropped.model, dropped.training.lora, 0);
  REQUIRE(shapes.count == 2);
  CHECK(workload::adapter_input_elements(dropped, shapes.items[0], T) == q_in);
  CHECK(workload::adapter_input_elements(dropped, shapes.items[1], T) == down_in);
  const cost::FineTuningLayerCost a = cost::fine_tuning_layer_cost(ctx, plain, 0, T);
  const cost::FineTuningLayerCost b = cost::fine_tuning_layer_cost(ctx, dropped, 0, T);
  const units::Time pass = cost::memory_bound_time(ctx, units::Bytes{q_in * 5}, 1) +
                           cost::memory_bound_time(ctx, units::Bytes{down_in * 5}, 1);
  CHECK((b.fwd - a.fwd).seconds() == doctest::Approx(pass.seconds()));
  CHECK((b.bwd_input - a.bwd_input).seconds() == doctest::Approx(pass.seconds()));
  CHECK(b.bwd_weight.seconds() == a.bwd_weight.seconds());
  CHECK(b.kernels_f == a.kernels_f + 2);
  CHECK(b.kernels_b == a.kernels_b + 2);
  CHECK(workload::adapter_activation_bytes(dropped, 0).value - workload::adapter_activation_bytes(plain, 0).value ==
        doctest::Approx((q_in + down_in) * 3));
  // With sequence parallelism the column-parallel adapter still sees the whole sequence (the layer
  // norm's output comes gathered), except under comm-GEMM overlap, when it is split along it.
  scenario::Scenario sp = dropped;
  sp.plan.sequence_parallel = true;
  CHECK(workload::adapter_input_elements(sp, shapes.items[0], T) == q_in);
  CHECK(workload::adapter_input_elements(sp, shapes.items[1], T) == down_in);
  sp.plan.overlap_tp_comm = true;
  CHECK(workload::adapter_input_elements(sp, shapes.items[0], T) == q_in / 2);
  CHECK(workload::adapter_input_elements(sp, shapes.items[1], T) == down_in);
  // The step is slower and the model FLOPs unchanged (dropout is memory traffic).
  CHECK(estimate::estimate_step(dropped, prof).step > estimate::estimate_step(plain, prof).step);
  CHECK(workload::training_model_flops(dropped).value == workload::training_model_flops(plain).value);
}

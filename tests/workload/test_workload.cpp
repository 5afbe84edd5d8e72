// Parameter counts, FLOPs and memory (workload.hpp) pinned to published figures and to the
// closed forms of the papers the code follows: Megatron (Narayanan et al. 2021, arXiv
// 2104.04473, appendix), Korthikanti et al. 2022 (arXiv 2205.05198, Table 2) and ZeRO
// (Rajbhandari et al. 2019, arXiv 1910.02054, §3 and Figure 1).
#include <doctest/doctest.h>

#include <numeric>
#include <string>

#include "../support/shipped_catalog.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/workload/workload.hpp"

using namespace flopcast;

namespace {

const io::Catalog& catalog() { return test::shipped_catalog(); }

/// A GPT-style shape: GeLU MLP of 4h, kv = heads, tied embeddings, learned positions,
/// LayerNorm, biases (GPT-3, Brown et al. 2020; Megatron's GPT models).
workload::ModelSpec gpt(int layers, std::int64_t hidden, int heads, std::int64_t vocab, std::int64_t seq) {
  workload::ModelSpec m;
  m.name = "gpt-test";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn = 4 * hidden;
  m.ffn_kind = workload::FfnKind::Gelu;
  m.vocab = vocab;
  m.seq_len = seq;
  m.tied_embeddings = true;
  m.learned_positions = true;
  m.rmsnorm = false;
  m.bias = true;
  return m;
}

/// A Llama-style shape: SwiGLU, GQA, untied head, RoPE, RMSNorm, no biases.
workload::ModelSpec llama(int layers, std::int64_t hidden, int heads, int kv_heads, std::int64_t ffn,
                          std::int64_t vocab, std::int64_t seq) {
  workload::ModelSpec m;
  m.name = "llama-test";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.ffn = ffn;
  m.ffn_kind = workload::FfnKind::SwiGlu;
  m.vocab = vocab;
  m.seq_len = seq;
  m.tied_embeddings = false;
  m.learned_positions = false;
  m.rmsnorm = true;
  m.bias = false;
  m.dropout = false;
  return m;
}

double preset_params(const char* name) {
  const auto* m = catalog().find_model(name);
  REQUIRE_MESSAGE(m != nullptr, name);
  return workload::parameter_count(*m).total;
}

double d(std::int64_t v) { return static_cast<double>(v); }

}  // namespace

TEST_CASE("GPT-3 175B counts 174.6e9 parameters") {
  // Brown et al. 2020 Table 2.1 shape; Narayanan et al. 2021 Table 2 quotes 174.6B for it
  // (12 l h^2 + 13 l h + (V + s) h + 2h with V = 50,257, s = 2,048).
  const auto m = gpt(96, 12288, 96, 50257, 2048);
  const auto pc = workload::parameter_count(m);
  CHECK(pc.total == doctest::Approx(174.6e9).epsilon(0.001));
  // The closed form, exactly: per layer 4h^2 + 4h (attention + biases) + 8h^2 + 5h (MLP +
  // biases) + 4h (two LayerNorms).
  const double h = 12288;
  CHECK(pc.dense_layer == 12 * h * h + 13 * h);
  CHECK(pc.embedding == (50257.0 + 2048.0) * h);
  CHECK(pc.output_head == 0.0);  // tied
  CHECK(pc.total == 96 * (12 * h * h + 13 * h) + (50257.0 + 2048.0) * h + 2 * h);
  CHECK(pc.active == pc.total);
  CHECK(preset_params("gpt3-175b") == pc.total);  // data/models.yaml holds the same shape
}

TEST_CASE("Llama 2 70B counts 68.98e9 parameters") {
  // meta-llama/Llama-2-70b-hf config.json (80 layers, hidden 8192, 64 heads, 8 KV heads,
  // intermediate 28672, vocab 32000); the checkpoint holds 68,976,648,192 parameters.
  const auto m = llama(80, 8192, 64, 8, 28672, 32000, 4096);
  const auto total = workload::parameter_count(m).total;
  CHECK(total == doctest::Approx(68.98e9).epsilon(0.002));
  CHECK(total == 68'976'648'192.0);
  CHECK(preset_params("llama2-70b") == total);
}

TEST_CASE("Llama 3 405B counts 405.9e9 and Llama 3 8B 8.03e9 parameters") {
  // Llama Team 2024 (arXiv 2407.21783) Table 3 shapes, vocab 128,256 (config.json).
  const auto big = llama(126, 16384, 128, 8, 53248, 128256, 8192);
  CHECK(workload::parameter_count(big).total == doctest::Approx(405.9e9).epsilon(0.001));
  CHECK(preset_params("llama3-405b") == workload::parameter_count(big).total);
  const auto small = llama(32, 4096, 32, 8, 14336, 128256, 8192);
  CHECK(workload::parameter_count(small).total == doctest::Approx(8.03e9).epsilon(0.001));
  CHECK(workload::parameter_count(small).total == 8'030'261'248.0);  // meta-llama/Meta-Llama-3-8B checkpoint
  CHECK(preset_params("llama3-8b") == workload::parameter_count(small).total);
}

TEST_CASE("Mixtral 8x7B counts 46.7e9 total and 12.9e9 active parameters") {
  // Jiang et al. 2024 (arXiv 2401.04088) Table 1; Mistral AI's announcement: 46.7B total,
  // 12.9B active (top-2 of 8 experts). The published figures are rounded to 0.1B: tolerances
  // are half of that last digit.
  auto m = llama(32, 4096, 32, 8, 14336, 32000, 32768);
  m.moe = workload::MoeSpec{8, 2, 14336, 0, 0};
  const auto pc = workload::parameter_count(m);
  CHECK(pc.total == doctest::Approx(46.7e9).epsilon(0.05 / 46.7));
  CHECK(pc.active == doctest::Approx(12.9e9).epsilon(0.05 / 12.9));
  // One expert is a SwiGLU MLP: 3 h f.
  CHECK(pc.moe_expert == 3.0 * 4096 * 14336);
  CHECK(pc.total - pc.active == 32 * 6 * pc.moe_expert);  // 6 experts per layer idle per token
  const auto* preset = catalog().find_model("mixtral-8x7b");
  REQUIRE(preset != nullptr);
  CHECK(workload::parameter_count(*preset).total == pc.total);
  CHECK(workload::parameter_count(*preset).active == pc.active);
}

TEST_CASE("model FLOPs equal Megatron's 72 B s l h^2 (1 + s/6h + V/12lh)") {
  // Narayanan et al. 2021 appendix, eq. (3) without recomputation: forward 24 B s l h^2 +
  // 4 B s^2 l h + 2 B s h V, backward twice the forward.
  struct Shape {
    int l;
    std::int64_t h;
    int heads;
    std::int64_t v, s;
    double batch;
  };
  for (const Shape x : {Shape{96, 12288, 96, 51200, 2048, 1536}, Shape{24, 2048, 16, 51200, 2048, 8},
                        Shape{128, 25600, 160, 51200, 2048, 3072}, Shape{2, 64, 4, 1000, 4096, 1}}) {
    CAPTURE(x.h);
    const auto m = gpt(x.l, x.h, x.heads, x.v, x.s);
    const double B = x.batch, s = d(x.s), l = x.l, h = d(x.h), V = d(x.v);
    const double megatron = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    CHECK(workload::model_flops_per_step(m, B).value == doctest::Approx(megatron).epsilon(1e-9));
    // No recompute: hardware FLOPs are model FLOPs.
    parallel::ParallelPlan p;
    p.global_batch = static_cast<std::int64_t>(B);
    CHECK(workload::hardware_flops_per_step(m, p).value == workload::model_flops_per_step(m, B).value);
  }
}

TEST_CASE("full recompute adds one forward of the layers: Megatron's 96 B s l h^2 (1 + s/6h + V/16lh)") {
  const auto m = gpt(96, 12288, 96, 51200, 2048);
  const double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
  parallel::ParallelPlan p;
  p.global_batch = 1536;
  p.recompute = parallel::Recompute::Full;
  const double megatron96 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  CHECK(workload::hardware_flops_per_step(m, p).value == doctest::Approx(megatron96).epsilon(1e-9));
  double layers_fwd = 0;
  for (int i = 0; i < m.layers; ++i) layers_fwd += workload::layer_forward_flops(m, i, B).total();
  CHECK(workload::hardware_flops_per_step(m, p).value - workload::model_flops_per_step(m, B).value ==
        doctest::Approx(layers_fwd).epsilon(1e-12));
  // Selective recompute (Korthikanti §4) redoes only the attention core: 4 B s^2 h per layer.
  p.recompute = parallel::Recompute::Selective;
  CHECK(workload::hardware_flops_per_step(m, p).value - workload::model_flops_per_step(m, B).value ==
        doctest::Approx(l * 4 * B * s * s * h).epsilon(1e-9));
}

TEST_CASE("layer forward FLOPs: GQA and SwiGLU shapes") {
  // Llama 3 8B, one sequence: QKV 2 T h (h + 2 kv_dim), attention 4 T s h, output 2 T h^2,
  // SwiGLU 3 matrices 2 T h f x 3.
  const auto m = llama(32, 4096, 32, 8, 14336, 128256, 8192);
  const double T = 8192, h = 4096, kv = 1024, s = 8192, f = 14336;
  const auto lf = workload::layer_forward_flops(m, 0, 1.0);
  CHECK(lf.qkv == 2 * T * h * (h + 2 * kv));
  CHECK(lf.attention == 4 * T * s * h);
  CHECK(lf.out_proj == 2 * T * h * h);
  CHECK(lf.mlp == 2 * T * h * f * 3);
  CHECK(lf.router == 0.0);
}

TEST_CASE("Korthikanti activations per layer: s b h (10 + 24/t) without SP, 34/t with SP, 2 with full recompute") {
  // Table 2 of arXiv 2205.05198 with flash attention (no 5 a s / h score term), 16-bit
  // activations, GPT shape (ffn 4h, kv = heads, GeLU).
  const auto m = gpt(24, 4096, 32, 51200, 2048);
  const double s = 2048, b = 4, h = 4096;
  for (int t : {1, 2, 4, 8}) {
    CAPTURE(t);
    parallel::ParallelPlan p;
    p.tp = t;
    p.micro_batch = 4;
    p.recompute = parallel::Recompute::None;
    p.sequence_parallel = false;
    CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::BF16).value ==
          doctest::Approx(s * b * h * (10.0 + 24.0 / t)).epsilon(1e-12));
    p.sequence_parallel = true;
    CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::BF16).value ==
          doctest::Approx(s * b * h * 34.0 / t).epsilon(1e-12));
    p.sequence_parallel = false;
    p.recompute = parallel::Recompute::Full;
    CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::BF16).value ==
          doctest::Approx(2 * s * b * h).epsilon(1e-12));
  }
  // Context parallelism splits the sequence: s/cp per GPU.
  parallel::ParallelPlan p;
  p.cp = 2;
  p.micro_batch = 4;
  CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::BF16).value ==
        doctest::Approx(s / 2 * b * h * 34.0).epsilon(1e-12));
}

TEST_CASE("layers_per_stage: uneven splits go to the middle stages first") {
  const auto v = workload::layers_per_stage(126, 16);  // Llama 3 405B on 16 stages
  REQUIRE(v.size() == 16);
  CHECK(std::accumulate(v.begin(), v.end(), 0) == 126);
  CHECK(v.front() == 7);
  CHECK(v.back() == 7);
  for (std::size_t i = 1; i + 1 < v.size(); ++i) CHECK(v[i] == 8);
  CHECK(workload::layers_per_stage(96, 8) == std::vector<int>(8, 12));
  CHECK(workload::layers_per_stage(5, 1) == std::vector<int>{5});
}

namespace {

/// A small GPT (6 layers) on 8 A100-80G, pure data parallelism (tp = pp = cp = 1, dp = 8).
scenario::Scenario zero_scenario(int zero, hardware::Precision prec = hardware::Precision::BF16) {
  scenario::Scenario s;
  s.name = "zero-test";
  s.model = gpt(6, 1024, 16, 32000, 1024);
  const auto* g = catalog().find_gpu("A100-80G");
  REQUIRE(g != nullptr);
  s.cluster.gpu = *g;
  s.cluster.gpus = 8;
  s.plan.dp = 8;
  s.plan.zero = zero;
  s.plan.global_batch = 64;
  s.precision = prec;
  return s;
}

}  // namespace

TEST_CASE("model-state memory: bf16 18 B/param, distributed optimizer 6+12/d, ZeRO-2 2+16/d, ZeRO-3 18/d, fp16 16") {
  // Megatron-LM with bf16 keeps bf16 weights (2 B), an fp32 main-gradient buffer (4 B:
  // arguments.py turns accumulate_allreduce_grads_in_fp32 on for bf16) and Adam's fp32 master
  // weights and two moments (12 B): theoretical_memory_usage.py counts 18 B per parameter, and
  // 6 + 12/d with the distributed optimizer (ZeRO-1, arXiv 1910.02054 §5: only the 12 are
  // sharded). ZeRO-2 also shards the gradients (2 + 16/d), ZeRO-3 the weights too (18/d), over
  // the d = 8 data-parallel ranks of zero_scenario.
  compute::ComputeProfile prof;
  const double P = workload::parameter_count(zero_scenario(0).model).total, dp = 8;
  auto state = [&](int zero, hardware::Precision prec = hardware::Precision::BF16) {
    const auto mb = workload::memory_per_gpu(zero_scenario(zero, prec), prof);
    return mb.weights.value + mb.gradients.value + mb.optimizer.value;
  };
  CHECK(state(0) == doctest::Approx(18 * P).epsilon(1e-12));
  CHECK(state(1) == doctest::Approx((6 + 12 / dp) * P).epsilon(1e-12));
  CHECK(state(2) == doctest::Approx((2 + 16 / dp) * P).epsilon(1e-12));
  // fp16 (Megatron's default without the fp32 flag): gradients in fp16, 2 + 2 + 12 = 16 B.
  CHECK(state(0, hardware::Precision::FP16) == doctest::Approx(16 * P).epsilon(1e-12));
  // ZeRO-3: gradients 4/d and optimizer 12/d; weights 2/d plus the gathered 16-bit copies of the
  // layer in use and the prefetched one (workload.cpp), at most 2 x 2 B x P / layers.
  const auto z3 = workload::memory_per_gpu(zero_scenario(3), prof);
  CHECK(z3.gradients.value == doctest::Approx(4 * P / dp).epsilon(1e-12));
  CHECK(z3.optimizer.value == doctest::Approx(12 * P / dp).epsilon(1e-12));
  CHECK(z3.weights.value > 2 * P / dp);
  CHECK(z3.weights.value <= 2 * P / dp + 2 * 2 * P / 6 * (1 + 1e-12));
  // The parts: stage 1 shards only the optimizer.
  const auto z1 = workload::memory_per_gpu(zero_scenario(1), prof);
  CHECK(z1.weights.value == doctest::Approx(2 * P).epsilon(1e-12));
  CHECK(z1.gradients.value == doctest::Approx(4 * P).epsilon(1e-12));
  CHECK(z1.optimizer.value == doctest::Approx(12 * P / dp).epsilon(1e-12));
  // Pure fp32 training: 4 + 4 + 8 (weights, gradients, momentum + variance) = 16.
  CHECK(workload::memory_per_gpu(zero_scenario(0, hardware::Precision::FP32), prof).weights.value ==
        doctest::Approx(4 * P).epsilon(1e-12));
  CHECK(workload::memory_per_gpu(zero_scenario(0, hardware::Precision::FP32), prof).optimizer.value ==
        doctest::Approx(8 * P).epsilon(1e-12));
}

// ZeRO-3 holds its 2/d shard of the 16-bit weights plus the gathered full copies of the layer in
// use and the prefetched one: 2 x 2 B x (one transformer layer), not 2 x 2 B x (all the stage's
// parameters) / layers, which would spread the embedding over the layers (here (6 x 12.6M +
// 33.8M) / 6 = 18.2M parameters per "layer" against 12.6M in a real one, +44%).
TEST_CASE("ZeRO-3 gathers two transformer layers, not a share of the embedding") {
  compute::ComputeProfile prof;
  const auto s = zero_scenario(3);
  const auto pc = workload::parameter_count(s.model);
  const auto mb = workload::memory_per_gpu(s, prof);
  CHECK(mb.weights.value == doctest::Approx(2 * pc.total / 8 + 2 * 2 * pc.dense_layer).epsilon(1e-12));
}

TEST_CASE("memory: workspace and fragmentation come from the profile") {
  compute::ComputeProfile prof;
  prof.workspace_gib = 3;
  prof.fragmentation = 0.10;
  const auto mb = workload::memory_per_gpu(zero_scenario(0), prof);
  // Plus NCCL's buffers for the one communicator (DP over the 8 GPUs of a node): NCCL's search
  // finds 12 ring channels on 8 NVSwitch A100s (nccl_tuning.cpp), 2 connections each with
  // Simple 4,194,304 + LL128 4,915,200 + LL 524,288 B = 9,633,792 B (NCCL src/init.cc).
  CHECK(mb.nccl.value == doctest::Approx(12 * 2 * 9633792.0).epsilon(1e-12));
  CHECK(mb.workspace.value == doctest::Approx(3 * 1073741824.0 + mb.nccl.value).epsilon(1e-12));
  const double tensors =
      mb.weights.value + mb.gradients.value + mb.optimizer.value + mb.activations.value + mb.logits.value;
  CHECK(mb.fragmentation.value == doctest::Approx(0.10 * tensors).epsilon(1e-12));
  CHECK(mb.capacity.value == 80 * 1073741824.0);  // data/gpus.yaml A100-80G hbm_gib 80
}

TEST_CASE("a 65B model does not fit 8 A100-80G with ZeRO-3, the Llama 3 8B quickstart fits") {
  const auto& cat = catalog();
  // Pure FSDP over one node: 65.3e9 x 16 B / 8 = 130 GB of model state per GPU alone.
  scenario::Diagnostics d;
  const auto fsdp = io::parse_scenario(R"(
model: llama-65b
cluster: {gpu: A100-80G, gpus: 8}
parallel: {dp: 8, zero: 3, micro_batch: 1, global_batch: 64, recompute: full}
precision: bf16
)",
                                       "fsdp.yaml", cat, d);
  REQUIRE_MESSAGE(fsdp.has_value(), d.str());
  const auto m65 = workload::memory_per_gpu(*fsdp, cat.profile);
  CHECK_FALSE(m65.fits());
  CHECK(m65.total().value > 16 * 65e9 / 8);
  // The seed vendor's TP1 PP8 ZeRO-3 plan on the same node (dp 1: nothing to shard).
  const auto seed =
      io::load_scenario_file(std::string(FLOPCAST_SCENARIOS_DIR) + "/seed-claims/65b-8xa100-tp1pp8-zero3.yaml", cat, d);
  REQUIRE_MESSAGE(seed.has_value(), d.str());
  CHECK_FALSE(workload::memory_per_gpu(*seed, cat.profile).fits());

  const auto quick = io::load_scenario_file(std::string(FLOPCAST_SCENARIOS_DIR) + "/quickstart.yaml", cat, d);
  REQUIRE_MESSAGE(quick.has_value(), d.str());
  const auto mq = workload::memory_per_gpu(*quick, cat.profile);
  CHECK(mq.fits());
  CHECK(mq.total().value < mq.capacity.value);
}

TEST_CASE("activations of a Llama layer (SwiGLU, GQA, no dropout): 34 s b h, FP8 GEMM inputs: 27.5 s b h") {
  // Llama 3 8B shape, one layer, s = 8192, b = 1, no parallelism, flash attention, bf16.
  // Replicated: the two norms' inputs (2 + 2) and outputs, which are the QKV and FC1 inputs
  // (2 + 2): 8. Split by TP: Q (2q/h = 2), K and V (4 kv/h = 4 x 1024/4096 = 1), the
  // projection's input (2q/h = 2), SwiGLU FC1's 2f-wide output (4 f/h = 14) and FC2's input
  // (2 f/h = 7): 26. No dropout masks (Llama trains without). 8 + 26 = 34.
  const auto m = llama(32, 4096, 32, 8, 14336, 128256, 8192);
  const double sbh = 8192.0 * 1 * 4096;
  parallel::ParallelPlan p;
  p.micro_batch = 1;
  CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::BF16).value ==
        doctest::Approx(34 * sbh).epsilon(1e-12));
  // FP8: Transformer Engine keeps the FP8 (1-byte) inputs of the four GEMMs: the QKV and FC1
  // inputs 2 + 2 -> 1 + 1, the projection input 2 -> 1, FC2's input 7 -> 3.5: 34 - 6.5 = 27.5.
  CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::FP8).value ==
        doctest::Approx(27.5 * sbh).epsilon(1e-12));
  CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::MXFP8).value ==
        doctest::Approx(27.5 * sbh).epsilon(1e-12));
  // With GPT's dropout the two 1-byte masks come back: 36 (Korthikanti's 34 is for f = 4h GeLU).
  auto with_dropout = m;
  with_dropout.dropout = true;
  CHECK(workload::layer_activation_bytes(with_dropout, p, 0, hardware::Precision::BF16).value ==
        doctest::Approx(36 * sbh).epsilon(1e-12));
}

TEST_CASE("selective recompute under FSDP2 is torchtitan's per-op policy: 15.5 s b h and three GEMMs again") {
  // Llama 3 8B's layer, s = 8192, b = 1, bf16. torchtitan's _apply_op_sac keeps the block's input
  // (2), the outputs of the 1st, 3rd, 5th and 7th mm (Q: 2, V: 2 kv/h = 0.5, w1: 2 f/h = 7, w2:
  // 2) and attention's output (2) with its FP32 log-sum-exp per query head (4 x 32 / 4096):
  // 15.53125 s b h, where Megatron's selective recompute keeps 34.
  const auto m = llama(32, 4096, 32, 8, 14336, 128256, 8192);
  const double sbh = 8192.0 * 4096, B = 16;
  parallel::ParallelPlan p;
  p.dp = 8;
  p.zero = 3;
  p.micro_batch = 1;
  p.global_batch = static_cast<std::int64_t>(B);
  p.recompute = parallel::Recompute::Selective;
  CHECK_FALSE(workload::per_op_checkpointing(m, p, 0));
  CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::BF16).value == doctest::Approx(34 * sbh));
  const double megatron_extra =
      workload::hardware_flops_per_step(m, p).value - workload::model_flops_per_step(m, B).value;
  p.fsdp = parallel::FsdpSpec{};
  CHECK(workload::per_op_checkpointing(m, p, 0));
  CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::BF16).value ==
        doctest::Approx(15.53125 * sbh).epsilon(1e-12));
  // The recomputed GEMMs: K (4096 x 1024), the output projection (4096 x 4096) and w3 (4096 x
  // 14336), forward, over every token of the step; attention is not run again.
  const double again = 32 * 2 * B * 8192 * (4096.0 * 1024 + 4096.0 * 4096 + 4096.0 * 14336);
  CHECK(workload::hardware_flops_per_step(m, p).value - workload::model_flops_per_step(m, B).value ==
        doctest::Approx(again).epsilon(1e-12));
  CHECK(again != doctest::Approx(megatron_extra));
  // Full recompute under FSDP2 is full recompute; an MoE layer keeps Megatron's rule.
  p.recompute = parallel::Recompute::Full;
  CHECK_FALSE(workload::per_op_checkpointing(m, p, 0));
  auto moe = m;
  moe.moe = workload::MoeSpec{};
  moe.moe->experts = 8;
  moe.moe->top_k = 2;
  moe.moe->expert_ffn = 14336;
  p.recompute = parallel::Recompute::Selective;
  CHECK_FALSE(workload::per_op_checkpointing(moe, p, 0));
}

TEST_CASE("wide attention heads (head_dim): Qwen3-30B-A3B's 32 heads of 128 on a 2048-wide model") {
  // q = heads x head_dim = 4096 wide although hidden is 2048: Q is 2048 x 4096, the output
  // projection 4096 x 2048, K and V 2048 x (4 x 128) each.
  auto m = llama(48, 2048, 32, 4, 6144, 151936, 4096);
  m.attention_head_dim = 128;
  CHECK(m.head_dim() == 128);
  CHECK(m.q_dim() == 4096);
  CHECK(m.kv_dim() == 512);
  const double T = 4096, h = 2048, q = 4096, kv = 512, s = 4096;
  const auto lf = workload::layer_forward_flops(m, 0, 1.0);
  CHECK(lf.qkv == 2 * T * h * (q + 2 * kv));
  CHECK(lf.attention == 4 * T * s * q);
  CHECK(lf.out_proj == 2 * T * q * h);
  // Attention parameters: h q + 2 h kv + q h, plus the two RMSNorm weights (h each).
  const auto pc = workload::parameter_count(m);
  CHECK(pc.dense_layer == h * q + 2 * h * kv + q * h + 2 * h + 3 * h * 6144);
  // Activations: Q 2q/h = 4, K and V 4 kv/h = 1, projection input 2q/h = 4, SwiGLU 6 f/h = 18,
  // replicated 8: 35 s b h.
  parallel::ParallelPlan p;
  CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::BF16).value ==
        doctest::Approx(35 * 4096.0 * h).epsilon(1e-12));
}

TEST_CASE("MoE activations and parameters under expert tensor parallelism (MoE parallel folding)") {
  // 8 experts of 2048, top-2, on tp 4 with etp 1, ep 8, dp 2 (tp*dp = 8 = etp*ep): each GPU holds
  // one whole expert, and its routed tokens are T * top_k * etp / tp = T / 2 of T.
  auto m = llama(4, 1024, 16, 16, 4096, 32000, 2048);
  m.moe = workload::MoeSpec{8, 2, 2048, 0, 0};
  parallel::ParallelPlan p;
  p.tp = 4;
  p.etp = 1;
  p.ep = 8;
  p.dp = 2;
  p.sequence_parallel = true;
  CHECK(p.expert_dp() == 1);  // tp*dp*cp / (etp*ep) = 8 / 8
  // Per s b h, under SP (replicated / 4): 8 / 4 = 2. Split over TP (/4): Q 2 + K, V 4 + proj 2
  // = 8, the experts' permuted inputs 2 x top_k x etp = 4, their SwiGLU 6 f/h x top_k = 6 x 2 x 2
  // = 24: 36 / 4 = 9. Total 11.
  const double sbh = 2048.0 * 1024;
  CHECK(workload::layer_activation_bytes(m, p, 0, hardware::Precision::BF16).value ==
        doctest::Approx(11 * sbh).epsilon(1e-12));
  // Parameters of a stage's GPU: the 8 experts over etp x ep = 8 GPUs, one each (3 h f).
  scenario::Scenario s;
  s.model = m;
  s.cluster.gpu = *catalog().find_gpu("H100");
  s.cluster.gpus = 8;
  s.plan = p;
  s.plan.global_batch = 16;
  const auto st = cost::stage_parameters(s, 0);
  CHECK(st.expert == doctest::Approx(4 * 3 * 1024.0 * 2048).epsilon(1e-12));  // 4 layers x one expert
}

TEST_CASE("in-flight micro-batches: 1F1B p - r, Megatron's interleaved warm-up ((p-r-1) 2 + (v-1) p + 1) / v") {
  parallel::ParallelPlan p;
  p.pp = 4;
  p.dp = 1;
  p.global_batch = 32;
  p.schedule = parallel::Schedule::OneFOneB;
  CHECK(workload::in_flight_microbatches(p, 0) == 4);
  CHECK(workload::in_flight_microbatches(p, 3) == 1);
  // Llama 3.1 405B in MLPerf (pp 8, vpp 8, 144 micro-batches): stage 0 holds (14 + 56 + 1) = 71
  // chunks of 1/8 stage = 8.875 micro-batches; the last stage (0 + 56 + 1) / 8 = 7.125 (not 1:
  // interleaving keeps every stage's warm-up long).
  p.pp = 8;
  p.vpp = 8;
  p.global_batch = 1152;
  p.dp = 8;
  p.schedule = parallel::Schedule::Interleaved;
  REQUIRE(p.microbatches() == 144);
  CHECK(workload::in_flight_microbatches(p, 0) == doctest::Approx(71.0 / 8));
  CHECK(workload::in_flight_microbatches(p, 7) == doctest::Approx(57.0 / 8));
  // Capped by the step's own chunks: 2 micro-batches x 8 chunks = 16 chunks = 2 micro-batches.
  p.global_batch = 16;
  CHECK(workload::in_flight_microbatches(p, 0) == doctest::Approx(2.0));
}

TEST_CASE("FP8 weight copies: 2 B per GEMM weight on Hopper, 2 x (1 + 1/32) for MXFP8, 2 x (0.5 + 1/16) for NVFP4") {
  CHECK(workload::fp8_weight_copy_bytes(hardware::Precision::BF16) == 0);
  CHECK(workload::fp8_weight_copy_bytes(hardware::Precision::FP8) == 2);
  CHECK(workload::fp8_weight_copy_bytes(hardware::Precision::MXFP8) == doctest::Approx(2.0625));
  CHECK(workload::fp8_weight_copy_bytes(hardware::Precision::NVFP4) == doctest::Approx(1.125));
  // One dense Llama layer's GEMM weights on one GPU (tp 1): h q + 2 h kv + q h + 3 h f
  // = 4096 x (4096 + 2048 + 4096) + 3 x 4096 x 14336 = 218,103,808; the stage of 2 such layers
  // (pp 16 of 32, a middle stage: no embedding or head) copies 436,207,616 weights at 2 B.
  scenario::Scenario s;
  s.model = llama(32, 4096, 32, 8, 14336, 128256, 8192);
  s.cluster.gpu = *catalog().find_gpu("H100");
  s.cluster.gpus = 16;
  s.plan.pp = 16;
  s.plan.global_batch = 16;
  s.precision = hardware::Precision::FP8;
  compute::ComputeProfile prof;
  const auto mb = workload::memory_of_stage(s, prof, 5);
  CHECK(mb.weight_copies.value == doctest::Approx(2 * 2 * 218103808.0).epsilon(1e-12));
  s.precision = hardware::Precision::BF16;
  CHECK(workload::memory_of_stage(s, prof, 5).weight_copies.value == 0);
}

TEST_CASE(
    "uneven stages: 126 layers on 8 stages put 15 on the first (with the embedding) and the last (with the loss)") {
  // Megatron-core's account_for_embedding/loss_in_pipeline_split (MLPerf's ASYM_PP_EMBED /
  // ASYM_PP_LOSS): 126 layers + embedding + loss = 128 units of 16 per stage, so the first and
  // last stages get 15 layers, the six middle ones 16. layers_per_stage gives the same split.
  CHECK(workload::layers_per_stage(126, 8) == std::vector<int>{15, 16, 16, 16, 16, 16, 16, 15});
  scenario::Scenario s;
  s.model = llama(126, 16384, 128, 8, 53248, 128256, 8192);
  s.cluster.gpu = *catalog().find_gpu("H100");
  s.cluster.gpus = 8;
  s.plan.pp = 8;
  s.plan.global_batch = 8;
  compute::ComputeProfile prof;
  const auto first = workload::memory_of_stage(s, prof, 0), middle = workload::memory_of_stage(s, prof, 3),
             last = workload::memory_of_stage(s, prof, 7);
  const auto pc = workload::parameter_count(s.model);
  // bf16 weights: the first stage's 15 layers plus the embedding (V h), a middle stage's 16.
  CHECK(first.weights.value == doctest::Approx(2 * (15 * pc.dense_layer + pc.embedding)).epsilon(1e-12));
  CHECK(middle.weights.value == doctest::Approx(2 * 16 * pc.dense_layer).epsilon(1e-12));
  CHECK(last.weights.value ==
        doctest::Approx(2 * (15 * pc.dense_layer + pc.output_head + pc.final_norm)).epsilon(1e-12));
  // Only the last stage holds the logits: 4 s b (h + V) / t bytes (Megatron theoretical_memory_usage.py).
  CHECK(first.logits.value == 0);
  CHECK(last.logits.value == doctest::Approx(4.0 * 8192 * (16384 + 128256)).epsilon(1e-12));
}

namespace {

/// Llama 3 8B on 64 H100, data-parallel 64 with the distributed optimizer (ZeRO-1).
scenario::Scenario llama8b_dp64(hardware::Precision precision) {
  scenario::Scenario s;
  s.model = llama(32, 4096, 32, 8, 14336, 128256, 8192);
  s.cluster.gpu = *catalog().find_gpu("H100");
  s.cluster.gpus = 64;
  s.plan.dp = 64;
  s.plan.zero = 1;
  s.plan.global_batch = 64;
  s.precision = precision;
  return s;
}

}  // namespace

TEST_CASE("gradient dtype: fp32 main grads 4 B per parameter, bf16 grads 2 B (Llama 3 8B: 29.9 vs 15.0 GiB)") {
  // Megatron-LM turns accumulate_allreduce_grads_in_fp32 on for bf16 (arguments.py) unless
  // --grad-reduce-in-bf16; the grad buffer is then fp32 (param_and_grad_buffer.py). Llama 3 8B
  // holds 8,030,261,248 parameters: 32,121,044,992 B = 29.9 GiB of fp32 gradients, half of it in
  // bf16. With the distributed optimizer the gradients stay whole (ZeRO-1 shards only the 12 B
  // of optimizer state): 2 + 4 + 12/64 = 6.1875 B vs 2 + 2 + 12/64 = 4.1875 B per parameter.
  CHECK(workload::grad_bytes(hardware::Precision::BF16, scenario::GradReduce::Default) == 4);
  CHECK(workload::grad_bytes(hardware::Precision::FP8, scenario::GradReduce::Default) == 4);
  CHECK(workload::grad_bytes(hardware::Precision::BF16, scenario::GradReduce::Half) == 2);
  CHECK(workload::grad_bytes(hardware::Precision::FP16, scenario::GradReduce::Default) ==
        2);  // Megatron fp16 without the fp32 flag
  CHECK(workload::grad_bytes(hardware::Precision::FP16, scenario::GradReduce::FP32) == 4);
  CHECK(workload::grad_bytes(hardware::Precision::FP32, scenario::GradReduce::Half) ==
        4);  // fp32 training has no 16-bit gradients
  scenario::Scenario s = llama8b_dp64(hardware::Precision::BF16);
  compute::ComputeProfile prof;
  const double P = 8'030'261'248.0;
  const auto fp32 = workload::memory_per_gpu(s, prof);
  CHECK(fp32.gradients.value == 32'121'044'992.0);
  CHECK(fp32.gradients.gib() == doctest::Approx(29.915).epsilon(1e-4));
  s.grad_reduce = scenario::GradReduce::Half;
  const auto half = workload::memory_per_gpu(s, prof);
  CHECK(half.gradients.value == 16'060'522'496.0);
  CHECK(half.weights.value == fp32.weights.value);
  CHECK(half.optimizer.value == fp32.optimizer.value);
  CHECK((half.weights + half.gradients + half.optimizer).value == doctest::Approx(4.1875 * P).epsilon(1e-12));
  CHECK((fp32.weights + fp32.gradients + fp32.optimizer).value == doctest::Approx(6.1875 * P).epsilon(1e-12));
  // An explicit fp32 is the bf16 default.
  s.grad_reduce = scenario::GradReduce::FP32;
  CHECK(workload::memory_per_gpu(s, prof).gradients.value == fp32.gradients.value);
}

TEST_CASE("gradient dtype sets the bytes of the data-parallel reduce-scatter: 4 B per gradient in fp32, 2 in bf16") {
  // Megatron-core reduces the grad buffer in its own dtype (distributed_data_parallel_config.py,
  // grad_reduce_in_fp32: "If true, reduce grads in fp32"); the distributed optimizer's all-gather
  // moves the bf16 parameters (2 B) either way. Llama 3 8B, dp 64, ZeRO-1.
  scenario::Scenario s = llama8b_dp64(hardware::Precision::BF16);
  const compute::ComputeProfile& prof = catalog().profile;
  const auto params = cost::stage_parameters(s, 0);
  CHECK(params.dense == 8'030'261'248.0);
  const double P = params.dense;
  auto expected = [&](double gbytes) {
    return (cost::collective_time(s, prof, cost::CollectiveKind::ReduceScatter, 64, 1, units::Bytes{P * gbytes}) +
            cost::collective_time(s, prof, cost::CollectiveKind::AllGather, 64, 1, units::Bytes{P * 2}))
        .seconds();
  };
  const double fp32 = cost::dp_sync_time(s, prof, params).seconds();
  CHECK(fp32 == doctest::Approx(expected(4)).epsilon(1e-12));
  s.grad_reduce = scenario::GradReduce::Half;
  const double half = cost::dp_sync_time(s, prof, params).seconds();
  CHECK(half == doctest::Approx(expected(2)).epsilon(1e-12));
  CHECK(half < fp32);
  // Without a distributed optimizer: one all-reduce of the gradients.
  s.plan.zero = 0;
  CHECK(cost::dp_sync_time(s, prof, params).seconds() ==
        doctest::Approx(
            cost::collective_time(s, prof, cost::CollectiveKind::AllReduce, 64, 1, units::Bytes{P * 2}).seconds())
            .epsilon(1e-12));
}

TEST_CASE(
    "FP8 parameters: the distributed optimizer's all-gather moves the GEMM weights in FP8 (Llama 3 8B: 9.08 GB)") {
  // Megatron-LM --fp8-param-gather ("perform the param all-gather in fp8"): the GEMM weights,
  // 32 x (4096^2 q + 2 x 4096 x 1024 kv + 4096^2 o + 3 x 4096 x 14336 MLP) = 6,979,321,856, at
  // 1 B; the other 8,030,261,248 - 6,979,321,856 = 1,050,939,392 (embeddings, head, norms) at
  // 2 B: 9,081,200,640 B instead of 16,060,522,496. MXFP8 adds a scale byte per 32 elements:
  // + 218,103,808.
  scenario::Scenario s = llama8b_dp64(hardware::Precision::FP8);
  const compute::ComputeProfile& prof = catalog().profile;
  const auto params = cost::stage_parameters(s, 0);
  CHECK(params.gemm == 6'979'321'856.0);
  CHECK(cost::parameter_gather_bytes(s, params, false).value == 16'060'522'496.0);
  const double bf16_gather = cost::dp_sync_time(s, prof, params).seconds();
  s.fp8_params = true;
  CHECK(cost::parameter_gather_bytes(s, params, false).value == 9'081'200'640.0);
  const double fp8_gather = cost::dp_sync_time(s, prof, params).seconds();
  CHECK(fp8_gather == doctest::Approx((cost::collective_time(s, prof, cost::CollectiveKind::ReduceScatter, 64, 1,
                                                             units::Bytes{params.dense * 4}) +
                                       cost::collective_time(s, prof, cost::CollectiveKind::AllGather, 64, 1,
                                                             units::Bytes{9'081'200'640.0}))
                                          .seconds())
                          .epsilon(1e-12));
  CHECK(fp8_gather < bf16_gather);
  s.precision = hardware::Precision::MXFP8;
  CHECK(cost::parameter_gather_bytes(s, params, false).value == 9'081'200'640.0 + 218'103'808.0);
  // Without a distributed optimizer nothing is gathered: the all-reduce of the gradients alone.
  s.precision = hardware::Precision::FP8;
  s.plan.zero = 0;
  CHECK(cost::dp_sync_time(s, prof, params).seconds() ==
        doctest::Approx(
            cost::collective_time(s, prof, cost::CollectiveKind::AllReduce, 64, 1, units::Bytes{params.dense * 4})
                .seconds())
            .epsilon(1e-12));
}

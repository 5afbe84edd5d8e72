// The workloads of 2026 (workload.hpp): multi-head latent attention, MoE every N layers and
// shared experts of their own width, multi-token prediction, sliding windows, uneven pipeline
// stages, DualPipe / DualPipeV, FSDP2, memory as allocated and reserved, and FLOP conventions.
// Each expected number is derived by hand in the comment beside it.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/workload/workload.hpp"

using namespace flopcast;

namespace {

scenario::Scenario parse(const std::string& text) {
  scenario::Diagnostics d;
  auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
  const std::string why = d.str() + "\n" + text;
  REQUIRE_MESSAGE(s.has_value(), why);
  return *s;
}

/// DeepSeek-V3 as its report gives it (arXiv 2412.19437 §4.2): 61 layers of hidden 7168, 128
/// heads, MLA with query compression 1536, key/value compression 512, per-head 128 + 64 RoPE and
/// values of 128; the first 3 layers dense (FFN 18432, config.json), then 1 shared + 256 routed
/// experts of 2048, 8 per token; vocab 129280; one MTP module.
const char* kDeepSeekV3Model = R"(
model:
  layers: 61
  hidden: 7168
  heads: 128
  ffn: 18432
  ffn_kind: swiglu
  vocab: 129280
  seq_len: 4096
  mla: {q_lora_rank: 1536, kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128}
  mtp_layers: 1
  moe: {experts: 256, top_k: 8, expert_ffn: 2048, shared_experts: 1, dense_layers: 3, node_limit: 4}
)";

scenario::Scenario deepseek(const std::string& parallel, int gpus = 2048) {
  return parse(std::string(kDeepSeekV3Model) + "cluster: {gpu: H800, gpus: " + std::to_string(gpus) +
               ", fabric: hgx-h800-ib400}\nparallel: " + parallel + "\nprecision: fp8\n");
}

/// A small Llama-style dense model: 2 layers of hidden 1024, 8 query and 2 key/value heads of 128,
/// SwiGLU FFN 4096, vocab 32000, sequences of 2048.
scenario::Scenario small_gqa(const std::string& extra_model = "", const std::string& parallel = "{global_batch: 1}") {
  return parse(
      "model: {layers: 2, hidden: 1024, heads: 8, kv_heads: 2, ffn: 4096, ffn_kind: swiglu, vocab: 32000, "
      "seq_len: 2048" +
      extra_model + "}\ncluster: {gpu: H100, gpus: 1}\nparallel: " + parallel + "\nprecision: bf16\n");
}

}  // namespace

TEST_SUITE("workload") {
  TEST_CASE("MLA: DeepSeek-V3's attention weights, 671B parameters, 37B active, the MTP module apart") {
    const scenario::Scenario s = deepseek("{ep: 64, pp: 16, global_batch: 15360}");
    const workload::ModelSpec& m = s.model;
    REQUIRE(m.mla.has_value());
    CHECK(m.kv_heads == 128);      // every head its own key and value
    CHECK(m.head_dim() == 192);    // queries and keys: 128 + 64 rope
    CHECK(m.v_head_dim() == 128);  // values
    // q down 7168 x 1536 + q up 1536 x 128 x 192 = 11,010,048 + 37,748,736 = 48,758,784;
    // kv down 7168 x (512 + 64) + kv up 512 x 128 x (128 + 128) = 4,128,768 + 16,777,216 = 20,905,984;
    // output 128 x 128 x 7168 = 117,440,512: 187,105,280 (DeepSeek-V3 §2.1.1, eqs. 1-10).
    CHECK(workload::attention_gemm_weights(m) == 187105280.0);
    const auto pc = workload::parameter_count(m);
    // attention + latent norms 1536 + 512 + two RMSNorms 2 x 7168 = 187,121,664; dense layer + 3 x
    // 7168 x 18432 = 583,483,392; expert 3 x 7168 x 2048 = 44,040,192; MoE layer without its routed
    // experts: attention + router 7168 x 256 + 1 shared expert = 232,996,864.
    CHECK(pc.dense_layer == 583483392.0);
    CHECK(pc.moe_expert == 44040192.0);
    CHECK(pc.moe_layer_shared == 232996864.0);
    // 3 x 583,483,392 + 58 x (232,996,864 + 256 x 44,040,192) + untied embedding and head 2 x 129280
    // x 7168 + final norm 7168 = 671,026,404,352: the report's 671B.
    CHECK(pc.total == 671026404352.0);
    // active: 8 routed experts per MoE layer: 37,552,282,624 (the report: 37B activated).
    CHECK(pc.active == 37552282624.0);
    // MTP: one MoE layer 11,507,286,016 + projection 2 x 7168^2 + 3 x 7168 norms = 11,610,067,968;
    // 671.0B + 11.6B + its checkpoint's own embedding and head copies (2 x 0.93B) = the 685B released.
    CHECK(pc.mtp == 11610067968.0);
  }

  TEST_CASE("MLA forward FLOPs of one layer: low-rank projections, 192-wide q/k heads and 128-wide values") {
    const scenario::Scenario s = deepseek("{ep: 64, pp: 16, global_batch: 15360}");
    const auto f = workload::layer_forward_flops(s.model, 3, 1);  // one sequence of 4096 tokens through an MoE layer
    // projections but the output: 2 T (187,105,280 - 117,440,512) = 2 x 4096 x 69,664,768
    CHECK(f.qkv == 570693779456.0);
    CHECK(f.out_proj == 962072674304.0);  // 2 x 4096 x 117,440,512
    // QK^T 2 T s x 128 x 192 + attention over values 2 T s x 128 x 128 = 2 x 4096^2 x 40,960
    CHECK(f.attention == 1374389534720.0);
    // causal count: every query attends to s/2 keys on average: half
    CHECK(workload::layer_forward_flops(s.model, 3, 1, workload::AttentionCount::Causal).attention == 687194767360.0);
    // routed 8 + shared 1 experts of 2048, SwiGLU: 2 T x 7168 x 3 x 2048 x 9
    CHECK(f.mlp == 2.0 * 4096 * 7168 * 3 * 2048 * 9);
  }

  TEST_CASE("FLOP conventions: Megatron-LM's count equals the causal model count for a dense GQA model") {
    scenario::Scenario s = small_gqa();
    const workload::ModelSpec& m = s.model;
    // Megatron-LM num_floating_point_operations (training.py): tokens T = 2048 x (6 h x 3 ffn x L + 6 (h (q + 2 kv)
    // + q h) x L + 6 h V) + T s x 6 q x L = 2048 x 379,060,224 + 2048^2 x 6144 x 2 = 827,854,946,304.
    CHECK(workload::flops_per_step(m, s.plan, scenario::FlopsConvention::Megatron).value == 827854946304.0);
    // flopcast's count, full attention: 3 x (L x (qkv 6,442,450,944 + out 4,294,967,296 + attention 4 T s q
    // 17,179,869,184 + mlp 51,539,607,552) + logits 2 T h V 134,217,728,000) = 879,394,553,856.
    CHECK(workload::flops_per_step(m, s.plan, scenario::FlopsConvention::ModelFullAttention).value == 879394553856.0);
    CHECK(workload::model_flops_per_step(m, 1).value == 879394553856.0);
    // the causal model count halves attention: 879,394,553,856 - 3 x 2 x 8,589,934,592 = Megatron's
    CHECK(workload::flops_per_step(m, s.plan, scenario::FlopsConvention::Model).value == 827854946304.0);
    // no recompute: hardware = model
    CHECK(workload::flops_per_step(m, s.plan, scenario::FlopsConvention::Hardware).value == 879394553856.0);
    // A source's 100 TFLOP/s counted Megatron's way is 100 x 879.39 / 827.85 = 106.2257 in flopcast's.
    s.measured_as_stated["tflops_per_gpu"] = 100;
    s.flops_convention = scenario::FlopsConvention::Megatron;
    CHECK(workload::convert_measured_flops(s) == doctest::Approx(879394553856.0 / 827854946304.0));
    CHECK(s.measured.at("tflops_per_gpu") == doctest::Approx(106.2257).epsilon(1e-5));
    s.flops_convention = scenario::FlopsConvention::ModelFullAttention;  // flopcast's own: unchanged
    CHECK(workload::convert_measured_flops(s) == 1.0);
    CHECK(s.measured.at("tflops_per_gpu") == 100.0);
  }

  TEST_CASE("sliding windows: windowed layers count queries x window keys, every Nth layer from the first") {
    const scenario::Scenario s = small_gqa(", sliding_window: {size: 128, every: 2}");
    const workload::ModelSpec& m = s.model;
    CHECK(m.is_windowed_layer(0));
    CHECK(!m.is_windowed_layer(1));
    CHECK(attended_keys(m, 0, workload::AttentionCount::Full) == 128);
    CHECK(attended_keys(m, 1, workload::AttentionCount::Full) == 2048);
    // causal: the mean of min(i + 1, 128) over 2048 positions, w - w^2 / 2s = 128 - 4 = 124
    CHECK(attended_keys(m, 0, workload::AttentionCount::Causal) == 124);
    CHECK(attended_keys(m, 1, workload::AttentionCount::Causal) == 1024);
    // layer 0's attention 4 T w q = 4 x 2048 x 128 x 1024 instead of 4 x 2048^2 x 1024: the model FLOPs
    // drop by 3 x (4 x 2048 x 1920 x 1024) = 48,318,382,080 from the 879,394,553,856 of the full model.
    CHECK(workload::model_flops_per_step(m, 1).value == 879394553856.0 - 48318382080.0);
  }

  TEST_CASE("MoE every N layers after the dense ones, and a shared expert of its own width") {
    // Llama 4 Maverick's pattern: a dense layer, then MoE and dense alternating (dense_layers 1,
    // layer_freq 2): of 8 layers, 1, 3, 5 and 7 are MoE.
    const scenario::Scenario s = small_gqa("", "{global_batch: 1}");
    workload::ModelSpec m = s.model;
    m.layers = 8;
    m.moe = workload::MoeSpec{};
    m.moe->experts = 16;
    m.moe->top_k = 1;
    m.moe->expert_ffn = 2048;
    m.moe->shared_experts = 1;
    m.moe->dense_layers = 1;
    m.moe->layer_freq = 2;
    CHECK(m.moe_layers() == 4);
    CHECK(!m.is_moe_layer(0));
    CHECK(m.is_moe_layer(1));
    CHECK(!m.is_moe_layer(2));
    CHECK(m.is_moe_layer(7));
    const auto plain = workload::parameter_count(m);
    // A shared expert of 8192 instead of 2048 (as Qwen2-57B-A14B's 20480 beside experts of 2560):
    // each MoE layer holds 3 x 1024 x (8192 - 2048) = 18,874,368 more, 4 layers: 75,497,472.
    m.moe->shared_expert_ffn = 8192;
    const auto wide = workload::parameter_count(m);
    CHECK(wide.total - plain.total == 75497472.0);
    CHECK(wide.active - plain.active == 75497472.0);
    // forward: 2 T h 3 x 8192 for the shared expert, routed 2 T h 3 x 2048 (top 1)
    CHECK(workload::layer_forward_flops(m, 1, 1).mlp == 2.0 * 2048 * 1024 * 3 * (2048 + 8192));
  }

  TEST_CASE("MTP: each module one more layer, its projection and one more pass through the head") {
    const scenario::Scenario base = small_gqa();
    const scenario::Scenario mtp = small_gqa(", mtp_layers: 1");
    // a layer's forward 79,456,894,976 (qkv + out + attention + mlp above) + projection 2 T 2h h =
    // 2 x 2048 x 2048 x 1024 = 8,589,934,592 + logits 134,217,728,000: x 3 = 666,793,672,704 more.
    CHECK(workload::model_flops_per_step(mtp.model, 1).value - workload::model_flops_per_step(base.model, 1).value ==
          666793672704.0);
    // parameters: a dense layer and 2 h^2 + 3 h = 2,097,152 + 3,072
    CHECK(workload::parameter_count(mtp.model).mtp ==
          workload::parameter_count(base.model).dense_layer + 2097152.0 + 3072.0);
    // the last stage holds them and their logits: fp32 logits and gradient twice
    const scenario::Scenario one = small_gqa(", mtp_layers: 1", "{global_batch: 1, micro_batch: 1}");
    const auto mb = workload::memory_of_stage(one, compute::ComputeProfile{}, 0);
    // 4 s b (h + V) / t = 4 x 2048 x (1024 + 32000) bytes, twice
    CHECK(mb.logits.value == 2 * 4.0 * 2048 * (1024 + 32000));
  }

  TEST_CASE("pipeline stages: Megatron-LM's uneven layouts, DualPipe's two stages and DualPipeV's V") {
    auto layers_of = [](const std::vector<workload::StageSlice>& v) {
      std::vector<int> n;
      for (const auto& x : v) n.push_back(x.layers());
      return n;
    };
    workload::ModelSpec m;
    m.layers = 126;  // Llama 3.1 405B in MLPerf: pp 8 x vpp 8, ASYM_PP_EMBED / ASYM_PP_LOSS
    parallel::ParallelPlan p;
    p.pp = 8;
    p.vpp = 8;
    p.schedule = parallel::Schedule::Interleaved;
    p.pipeline_layout = parallel::PipelineLayout{0, 0, true, true};
    auto v = workload::pipeline_stages(m, p);
    // (126 + 2) / 8 = 16 per rank, 2 per virtual stage; the first virtual stage one short (the
    // embedding), the last one short (the loss): ranks 0 and 7 build 15 layers.
    CHECK(layers_of(v) == std::vector<int>{15, 16, 16, 16, 16, 16, 16, 15});
    REQUIRE(v[0].chunks.size() == 8);
    CHECK(v[0].chunks[0] == std::pair{0, 1});   // virtual stage 0: layer 0 beside the embedding
    CHECK(v[1].chunks[0] == std::pair{1, 2});   // virtual stage 1
    CHECK(v[0].chunks[1] == std::pair{15, 2});  // virtual stage 8: after 1 + 7 x 2 layers
    CHECK(v[7].chunks[7] == std::pair{125, 1});
    CHECK(v[0].embedding);
    CHECK(v[7].head);
    // first / last stage layers: 61 layers over pp 4, 16 on the first, 15 on the last, the rest
    // (30) evenly: 15 and 15.
    m.layers = 61;
    p = parallel::ParallelPlan{};
    p.pp = 4;
    p.pipeline_layout = parallel::PipelineLayout{16, 15, false, false};
    CHECK(layers_of(workload::pipeline_stages(m, p)) == std::vector<int>{16, 15, 15, 15});
    CHECK(workload::pipeline_layout_splits(61, 4, 1, *p.pipeline_layout));
    CHECK(!workload::pipeline_layout_splits(61, 4, 2, *p.pipeline_layout));  // 15 layers do not halve
    // DualPipeV: 2 x 4 = 8 virtual stages of layers_per_stage(61, 8) = 7 8 8 8 8 8 7 7; rank r holds
    // stages r and 7 - r: 14, 15, 16, 16; rank 0 both the embedding and the head.
    p = parallel::ParallelPlan{};
    p.pp = 4;
    p.schedule = parallel::Schedule::DualPipeV;
    v = workload::pipeline_stages(m, p);
    CHECK(layers_of(v) == std::vector<int>{14, 15, 16, 16});
    CHECK((v[0].embedding && v[0].head && !v[3].head));
    // DualPipe: 4 stages of 15 16 15 15, rank r holding stages r and 3 - r: 30 31 31 30; both ends
    // hold the embedding and the head; each micro-batch crosses one of a rank's two stages.
    p.schedule = parallel::Schedule::DualPipe;
    v = workload::pipeline_stages(m, p);
    CHECK(layers_of(v) == std::vector<int>{30, 31, 31, 30});
    CHECK((v[0].embedding && v[0].head && v[3].embedding && v[3].head && !v[1].head));
    CHECK(v[1].pass_share == 0.5);
  }

  TEST_CASE("DualPipe and DualPipeV: PP + 1 stages' activations per device, DualPipe's parameters twice") {
    parallel::ParallelPlan p;
    p.pp = 16;
    p.dp = 1;
    p.micro_batch = 1;
    p.global_batch = 120;
    p.schedule = parallel::Schedule::DualPipe;
    CHECK(workload::in_flight_microbatches(p, 0) == 8.5);  // (16 + 1) / 2 of the rank's two stages
    p.pp = 8;
    p.schedule = parallel::Schedule::DualPipeV;
    CHECK(workload::in_flight_microbatches(p, 3) == 8.5);  // (2 x 8 + 1) / 2
    p.global_batch = 4;                                    // fewer micro-batches than that: each passes twice
    CHECK(workload::in_flight_microbatches(p, 3) == 4.0);
    // A dense 16-layer model on pp 4: 1F1B's rank 1 holds layers 4-7, DualPipe's rank 1 stages 1 and
    // 2: twice the weights, gradients and optimizer state.
    auto with = [](const char* schedule) {
      return parse(std::string("model: {layers: 16, hidden: 1024, heads: 8, vocab: 32000, seq_len: 2048}\n"
                               "cluster: {gpu: H100, gpus: 4}\nparallel: {pp: 4, global_batch: 8, schedule: ") +
                   schedule + "}\nprecision: bf16\n");
    };
    const auto one = workload::memory_of_stage(with("1f1b"), compute::ComputeProfile{}, 1);
    const auto dual = workload::memory_of_stage(with("dualpipe"), compute::ComputeProfile{}, 1);
    CHECK(dual.weights.value == 2 * one.weights.value);
    CHECK(dual.gradients.value == 2 * one.gradients.value);
    CHECK(dual.optimizer.value == 2 * one.optimizer.value);
  }

  TEST_CASE("FSDP2: fp32 shards of parameters, gradients and moments, two layers gathered or all to backward") {
    auto fsdp = [](const char* reshard) {
      return parse(std::string("model: {layers: 4, hidden: 1024, heads: 8, vocab: 32000, seq_len: 2048}\n"
                               "cluster: {gpu: H100, gpus: 8}\nparallel: {dp: 8, global_batch: 8, fsdp: "
                               "{reshard_after_forward: ") +
                   reshard + "}}\nprecision: bf16\n");
    };
    const scenario::Scenario s = fsdp("true");
    CHECK(s.plan.zero == 3);  // FSDP2 is a full shard
    const auto pc = workload::parameter_count(s.model);
    // tied embedding and learned positions on the one stage: every parameter, P
    const double P = pc.total, L = pc.dense_layer;
    const auto mb = workload::memory_of_stage(s, compute::ComputeProfile{}, 0);
    // weights: fp32 shard 4 P / 8 + two gathered bf16 layers 2 x 2 L
    CHECK(mb.weights.value == doctest::Approx(4 * P / 8 + 2 * 2 * L));
    // gradients: fp32 shard 4 P / 8 + a layer's unsharded bf16 gradient and its fp32 reduce copy (2 + 4) L
    CHECK(mb.gradients.value == doctest::Approx(4 * P / 8 + 6 * L));
    CHECK(mb.optimizer.value == doctest::Approx(8 * P / 8));  // Adam's m and v
    // without resharding after forward the stage's 4 layers stay gathered from forward to backward
    const auto keep = workload::memory_of_stage(fsdp("false"), compute::ComputeProfile{}, 0);
    CHECK(keep.weights.value == doctest::Approx(4 * P / 8 + 4 * 2 * L));
    // memory as allocated: the tensors; as reserved: with the allocator's slack, context and NCCL
    CHECK(mb.allocated().value == (mb.weights + mb.gradients + mb.optimizer + mb.activations + mb.logits).value);
    CHECK(mb.reserved().value == mb.total().value);
    CHECK(workload::memory_of_kind(mb, scenario::MemoryKind::Allocated).value == mb.allocated().value);
    CHECK(workload::memory_of_kind(mb, scenario::MemoryKind::Reserved).value == mb.total().value);
    CHECK(workload::memory_of_kind(mb, scenario::MemoryKind::Unstated).value == mb.total().value);
    // torchtitan's loss: the 16-bit logits, their FP32 copy and log_softmax's FP32 output, 10 B per
    // token and vocabulary entry (Megatron's fused loss: 4), for one sequence of 2048 tokens
    CHECK(mb.logits.value == doctest::Approx(2048.0 * (4 * 1024 + 10 * 32000)).epsilon(1e-12));
  }

  TEST_CASE("MLA's activations: the latents whole on every TP rank, 192-wide queries and keys, 128-wide values") {
    const scenario::Scenario s = deepseek("{ep: 64, pp: 16, global_batch: 15360, micro_batch: 1, recompute: none}");
    parallel::ParallelPlan p = s.plan;
    // one dense layer, BF16 GEMM inputs (g = 1), no dropout, in s b h units (h = 7168):
    // replicated 4 + 4 + latents (2 + 2) 1536 / h + 2 (512 + 64) / h + 2 x 512 / h; split Q, K 2 x 2 x 128 x
    // 192 / h, V 2 x 128 x 128 / h, the projection's input 2 x 128 x 128 / h, SwiGLU MLP (4 + 2) 18432 / h.
    const double h = 7168;
    const double units =
        8 + (4 * 1536 + 2 * 576 + 2 * 512) / h + (4 * 24576 + 2 * 16384 + 2 * 16384) / h + 6 * 18432 / h;
    const double sbh = 4096.0 * 1 * h;
    CHECK(workload::layer_activation_bytes(s.model, p, 0, hardware::Precision::BF16).value ==
          doctest::Approx(units * sbh));
  }
}

TEST_CASE("pipeline_stage: one rank's slice is pipeline_stages' slice of that rank") {
  for (const int layers : {1, 7, 32, 61, 94, 126, 127})
    for (const int pp : {1, 2, 3, 5, 8, 16}) {
      if (pp > layers) continue;
      workload::ModelSpec m;
      m.layers = layers;
      parallel::ParallelPlan p;
      p.pp = pp;
      const auto all = workload::pipeline_stages(m, p);
      for (int r = 0; r < pp; ++r) {
        const workload::StageSlice one = workload::pipeline_stage(m, p, r);
        CHECK(one.chunks == all[static_cast<std::size_t>(r)].chunks);
        CHECK(one.embedding == all[static_cast<std::size_t>(r)].embedding);
        CHECK(one.head == all[static_cast<std::size_t>(r)].head);
      }
      CHECK(workload::pipeline_stage(m, p, pp).chunks.empty());
    }
}

TEST_CASE("for_each_pipeline_stage hands every rank pipeline_stages' slice, in order") {
  const auto same_as_all = [](const workload::ModelSpec& m, const parallel::ParallelPlan& p) {
    const auto all = workload::pipeline_stages(m, p);
    std::size_t seen = 0;
    workload::for_each_pipeline_stage(m, p, [&](std::size_t r, const workload::StageSlice& slice) {
      REQUIRE(r == seen);
      REQUIRE(r < all.size());
      CHECK(slice.chunks == all[r].chunks);
      CHECK(slice.embedding == all[r].embedding);
      CHECK(slice.head == all[r].head);
      CHECK(slice.pass_share == all[r].pass_share);
      ++seen;
    });
    CHECK(seen == all.size());
  };
  for (const int layers : {7, 61, 126})
    for (const int pp : {1, 2, 5, 16}) {
      workload::ModelSpec m;
      m.layers = layers;
      parallel::ParallelPlan p;
      p.pp = pp;
      same_as_all(m, p);  // the even split, rank by rank
      if (pp % 2 == 0) {  // DualPipe and DualPipeV: from pipeline_stages
        p.schedule = parallel::Schedule::DualPipe;
        same_as_all(m, p);
        p.schedule = parallel::Schedule::DualPipeV;
        same_as_all(m, p);
      }
    }
  // A Megatron-LM layout: 126 layers on pp 16 x vpp 8, one fewer on the first and last ranks.
  workload::ModelSpec m;
  m.layers = 126;
  parallel::ParallelPlan p;
  p.pp = 16;
  p.vpp = 8;
  parallel::PipelineLayout layout;
  layout.account_for_embedding = true;
  layout.account_for_loss = true;
  p.pipeline_layout = layout;
  same_as_all(m, p);
}

TEST_CASE("expected maximum of n standard normals: the closed forms at 2 and 3, tabulated values beyond") {
  CHECK(workload::expected_max_standard_normal(1) == 0.0);
  // E[max of 2] = 1 / sqrt(pi), E[max of 3] = 3 / (2 sqrt(pi)).
  CHECK(workload::expected_max_standard_normal(2) == doctest::Approx(0.5641896).epsilon(1e-6));
  CHECK(workload::expected_max_standard_normal(3) == doctest::Approx(0.8462844).epsilon(1e-6));
  // Tabulated expected normal order statistics (Harter 1961): 1.42360 for 8, 1.76599 for 16.
  CHECK(workload::expected_max_standard_normal(8) == doctest::Approx(1.42360).epsilon(1e-5));
  CHECK(workload::expected_max_standard_normal(16) == doctest::Approx(1.76599).epsilon(1e-5));
  // Asked again (the memo), the same value.
  CHECK(workload::expected_max_standard_normal(8) == workload::expected_max_standard_normal(8));
}

TEST_CASE("routed load: the most loaded EP rank over the mean, as random routing gives it") {
  workload::MoeSpec e;
  e.experts = 256;
  e.top_k = 8;
  // DeepSeek-V3 at EP 64, 4096 tokens a rank (32768 routes): each route lands on a rank with
  // variance (1 - 1/64) (256 - 8) / 255 = 0.95735; the slowest of 64 ranks sits 2.34373 standard
  // deviations up: 1 + 2.34373 sqrt(0.95735 / 32768) = 1.012668.
  CHECK(workload::routed_load_factor(e, 64, 32768) == doctest::Approx(1.012668).epsilon(1e-6));
  // Fewer tokens, more spread: a quarter of the routes doubles the excess.
  CHECK(workload::routed_load_factor(e, 64, 8192) - 1 ==
        doctest::Approx(2 * (workload::routed_load_factor(e, 64, 32768) - 1)).epsilon(1e-9));
  CHECK(workload::routed_load_factor(e, 1, 32768) == 1.0);  // one rank holds every expert
  // A capacity factor caps the slowest rank, and below 1 drops tokens from every rank.
  e.capacity_factor = 1.005;
  CHECK(workload::routed_load_factor(e, 64, 32768) == 1.005);
  e.capacity_factor = 0.8;
  CHECK(workload::routed_load_factor(e, 64, 32768) == 0.8);

  // Against a simulation of the routing it assumes: 16 experts, top 2, EP 8 (2 experts a rank),
  // 512 tokens a rank; each token's two distinct experts drawn uniformly. The normal
  // approximation of the maximum is slightly low (the count's skew); it stays within 1% of
  // the simulated mean of the most loaded rank over 400 batches.
  workload::MoeSpec small;
  small.experts = 16;
  small.top_k = 2;
  constexpr int kEp = 8, kTokensPerRank = 512, kBatches = 400;
  std::mt19937 rng(20261206);
  std::uniform_int_distribution<int> pick(0, small.experts - 1);
  double sum_max = 0;
  for (int batch = 0; batch < kBatches; ++batch) {
    std::array<int, kEp> load{};
    for (int token = 0; token < kEp * kTokensPerRank; ++token) {
      const int first = pick(rng);
      int second = pick(rng);
      while (second == first) second = pick(rng);
      ++load[static_cast<std::size_t>(first / 2)];
      ++load[static_cast<std::size_t>(second / 2)];
    }
    sum_max += *std::max_element(load.begin(), load.end());
  }
  const double simulated = sum_max / kBatches / (kTokensPerRank * small.top_k);
  const double modelled = workload::routed_load_factor(small, kEp, kTokensPerRank * small.top_k);
  CAPTURE(simulated);
  CHECK(modelled > 1.03);
  CHECK(modelled == doctest::Approx(simulated).epsilon(0.01));
}

TEST_CASE("expected maximum of n standard normals: beyond the memo's bound, still the integral") {
  // 2^17 ranks: past the memo (2^16), the same integral: 4.44, under its bound sqrt(2 ln n) = 4.85.
  const double big = workload::expected_max_standard_normal(1 << 17);
  CHECK(big > 4.0);
  CHECK(big < std::sqrt(2 * std::log(131072.0)));
  CHECK(workload::expected_max_standard_normal(1 << 17) == big);
}

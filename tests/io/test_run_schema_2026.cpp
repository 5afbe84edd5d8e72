// The run schema's keys added for 2026 workloads (run-schema.md, "Keys added for 2026 workloads"),
// in scenarios and run files alike: what the loader reads, the defaults it lists, what it refuses,
// how the editor's form writes them back and that sweeps take them as axes.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/scenario_writer.hpp"
#include "flopcast/io/sweep_loader.hpp"

using namespace flopcast;
using namespace flopcast::io;

namespace {

const Catalog& catalog() { return test::shipped_catalog(); }

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

scenario::Scenario must_parse(const std::string& text) {
  scenario::Diagnostics d;
  auto s = parse_scenario(text, "test.yaml", catalog(), d);
  const std::string why = d.str() + "\n" + text;
  REQUIRE_MESSAGE(s.has_value(), why);
  return *s;
}

std::string first_error(const std::string& text) {
  scenario::Diagnostics d;
  (void)parse_scenario(text, "test.yaml", catalog(), d);
  for (const auto& x : d.items())
    if (x.severity == scenario::Severity::Error) return x.str();
  return "";
}

/// A 64-expert top-4 MoE on 16 H100, without its parallel plan and precision.
constexpr const char* kMoeOn16H100 = R"(
model: {layers: 8, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000, seq_len: 4096,
        moe: {experts: 64, top_k: 4, expert_ffn: 1024}}
cluster: {gpu: H100, gpus: 16}
)";

const char* kRun = R"(- id: ds-v3-like
  source: "test"
  model:
    layers: 16
    hidden: 2048
    heads: 16
    ffn: 8192
    ffn_kind: swiglu
    vocab: 32000
    seq_len: 4096
    mla: {kv_lora_rank: 256, qk_nope_head_dim: 64, qk_rope_head_dim: 32, v_head_dim: 64}
    mtp_layers: 1
    sliding_window: {size: 128}
    moe: {experts: 64, top_k: 4, expert_ffn: 1024, shared_experts: 1, dense_layers: 1, layer_freq: 2,
          shared_expert_ffn: 2048, node_limit: 2, capacity_factor: 1.25}
  cluster: {gpu: B200, gpus: 64}
  parallel:
    pp: 4
    vpp: 2
    ep: 8
    micro_batch: 1
    global_batch: 64
    schedule: interleaved
    pipeline_layout: {first_stage_layers: 2, last_stage_layers: 2}
    moe_dispatcher: deepep
  precision: mxfp8
  measured: {tflops_per_gpu: 900, flops_convention: megatron, memory_gib: 150, memory_kind: allocated}
)";

}  // namespace

TEST_CASE("2026 keys: a run file with MLA, MTP, windows, MoE every other layer, an uneven pipeline and DeepEP") {
  scenario::Diagnostics d;
  auto entries = parse_run_file(kRun, "runs.yaml", catalog(), d);
  REQUIRE(entries.size() == 1);
  REQUIRE_MESSAGE(entries[0].scenario.has_value(), entries[0].diags.str());
  const scenario::Scenario& s = *entries[0].scenario;
  const workload::ModelSpec& m = s.model;
  REQUIRE(m.mla);
  CHECK(m.mla->q_lora_rank == 0);  // unstated: queries not compressed, listed
  CHECK(has(s.defaults_applied, "model.mla.q_lora_rank = 0 (queries not compressed)"));
  CHECK(m.kv_heads == 16);
  CHECK(m.head_dim() == 96);
  CHECK(m.mtp_layers == 1);
  REQUIRE(m.sliding_window);
  CHECK(m.sliding_window->every == 1);
  CHECK(has(s.defaults_applied, "model.sliding_window.every = 1 (every layer windowed)"));
  REQUIRE(m.moe);
  CHECK(m.moe->layer_freq == 2);
  CHECK(m.moe->shared_expert_ffn == 2048);
  CHECK(m.moe->node_limit == 2);
  CHECK(m.moe->capacity_factor == 1.25);
  CHECK(m.moe_layers() == 8);  // layers 1, 3, ..., 15
  REQUIRE(s.plan.pipeline_layout);
  CHECK(s.plan.pipeline_layout->first_stage_layers == 2);
  CHECK(s.plan.pipeline_layout->last_stage_layers == 2);
  CHECK(s.plan.moe_dispatcher == parallel::MoeDispatcher::DeepEP);
  CHECK(s.flops_convention == scenario::FlopsConvention::Megatron);
  CHECK(s.flops_convention_stated);
  CHECK(s.memory_kind == scenario::MemoryKind::Allocated);
  CHECK(s.measured_as_stated.at("tflops_per_gpu") == 900);
  // The EP overlap is a recipe setting sources rarely publish: open in a run with ep > 1.
  CHECK(s.open_settings.overlap_ep_comm);
  CHECK(!s.plan.overlap_ep_comm);
}

TEST_CASE("overlap_ep_comm: as written in a scenario, refused where Megatron-core refuses it") {
  const std::string base = kMoeOn16H100;
  const scenario::Scenario on =
      must_parse(base + "parallel: {ep: 16, global_batch: 64, overlap_ep_comm: true}\nprecision: bf16\n");
  CHECK(on.plan.overlap_ep_comm);
  CHECK(!on.open_settings.overlap_ep_comm);
  const scenario::Scenario unstated = must_parse(base + "parallel: {ep: 16, global_batch: 64}\nprecision: bf16\n");
  CHECK(!unstated.plan.overlap_ep_comm);  // a scenario is what its user wrote: off unless asked
  CHECK(!unstated.open_settings.overlap_ep_comm);
  const scenario::Scenario open =
      must_parse(base + "parallel: {ep: 16, global_batch: 64, overlap_ep_comm: auto}\nprecision: bf16\n");
  CHECK(open.open_settings.overlap_ep_comm);
  const std::string full = first_error(
      base + "parallel: {ep: 16, global_batch: 64, recompute: full, overlap_ep_comm: true}\nprecision: bf16\n");
  CHECK(full.find("parallel.overlap_ep_comm") != std::string::npos);
  CHECK(full.find("full recompute") != std::string::npos);
  const std::string pp =
      first_error(base + "parallel: {ep: 8, pp: 2, global_batch: 64, overlap_ep_comm: true}\nprecision: bf16\n");
  CHECK(pp.find("virtual pipeline (vpp > 1)") != std::string::npos);
  const std::string gather = first_error(
      base +
      "parallel: {ep: 16, global_batch: 64, moe_dispatcher: allgather, overlap_ep_comm: true}\nprecision: bf16\n");
  CHECK(gather.find("alltoall, DeepEP or HybridEP dispatcher") != std::string::npos);
}

TEST_CASE("moe_dispatcher: as written, auto or left open by a run, resolved to the fastest of the three that fits") {
  const std::string base = R"(
model: {layers: 8, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000, seq_len: 4096,
        moe: {experts: 64, top_k: 4, expert_ffn: 1024}}
cluster: {gpu: GB200, gpus: 16, gpus_per_node: 4}
)";
  const scenario::Scenario stated =
      must_parse(base + "parallel: {ep: 16, global_batch: 64, moe_dispatcher: hybridep}\nprecision: bf16\n");
  CHECK(stated.plan.moe_dispatcher == parallel::MoeDispatcher::HybridEP);
  CHECK(!stated.open_settings.moe_dispatcher);
  const scenario::Scenario unstated = must_parse(base + "parallel: {ep: 16, global_batch: 64}\nprecision: bf16\n");
  CHECK(!unstated.plan.moe_dispatcher);  // a scenario's own default (DeepEP), not a search
  CHECK(!unstated.open_settings.moe_dispatcher);
  scenario::Scenario open =
      must_parse(base + "parallel: {ep: 16, global_batch: 64, moe_dispatcher: auto}\nprecision: bf16\n");
  REQUIRE(open.open_settings.moe_dispatcher);
  const auto choices = estimate::setting_choices(open);
  CHECK(choices.moe_dispatcher.size() == 3);
  const compute::ComputeProfile& profile = catalog().profile;
  const auto& resolved = estimate::resolve_open_settings(open, profile);
  REQUIRE(open.plan.moe_dispatcher);
  const auto chosen = std::find_if(resolved.chosen.begin(), resolved.chosen.end(),
                                   [](const auto& kv) { return kv.first == "parallel.moe_dispatcher"; });
  REQUIRE(chosen != resolved.chosen.end());
  CHECK(chosen->second == to_string(*open.plan.moe_dispatcher));
  // The chosen one is the fastest of the three as written.
  const double best = estimate::estimate_step(open, profile).step.seconds();
  for (const char* d : {"deepep", "hybridep", "alltoall"}) {
    const scenario::Scenario each = must_parse(
        base + "parallel: {ep: 16, global_batch: 64, moe_dispatcher: " + std::string(d) + "}\nprecision: bf16\n");
    CHECK(best <= estimate::estimate_step(each, profile).step.seconds() * (1 + 1e-12));
  }
  // In a run file, absent with ep > 1, it is open.
  std::string run = kRun;
  const std::string line = "    moe_dispatcher: deepep\n";
  REQUIRE(run.find(line) != std::string::npos);
  run.erase(run.find(line), line.size());
  scenario::Diagnostics d;
  auto entries = parse_run_file(run, "runs.yaml", catalog(), d);
  REQUIRE(entries.size() == 1);
  REQUIRE_MESSAGE(entries[0].scenario.has_value(), entries[0].diags.str());
  CHECK(entries[0].scenario->open_settings.moe_dispatcher);
}

TEST_CASE("2026 keys: FSDP2 implies ZeRO-3, schedules dualpipe and dualpipev, base weights at training level") {
  const scenario::Scenario f = must_parse(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {global_batch: 64, fsdp: {}}
precision: bf16
)");
  REQUIRE(f.plan.fsdp);
  CHECK(f.plan.fsdp->reshard_after_forward);
  CHECK(f.plan.zero == 3);
  CHECK(has(f.defaults_applied, "parallel.zero = 3 (fsdp: full shard)"));
  CHECK(has(f.defaults_applied, "parallel.fsdp.reshard_after_forward = true"));
  CHECK(!has(f.defaults_applied, "parallel.zero = 0"));
  for (const char* schedule : {"dualpipe", "dualpipev"}) {
    const scenario::Scenario p = must_parse(std::string(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 32}
parallel: {pp: 4, global_batch: 64, schedule: )") +
                                            schedule + "}\nprecision: bf16\n");
    CHECK(std::string(to_string(p.plan.schedule)) == schedule);
  }
  const scenario::Scenario lora = must_parse(R"(
model: llama3-8b
cluster: {gpu: B200, gpus: 8}
parallel: {global_batch: 64}
precision: nvfp4
training: {method: lora, lora: {rank: 16}, base_weights: nvfp4}
)");
  CHECK(lora.training.lora.base_weights == workload::BaseWeights::NVFP4);
  const scenario::Scenario fp8 = must_parse(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {global_batch: 64}
precision: bf16
training: {method: lora, lora: {rank: 16, base_weights: bf16}}
)");
  CHECK(fp8.training.lora.base_weights == workload::BaseWeights::BF16);  // lora.base_weights still reads
  CHECK(first_error(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {global_batch: 64}
precision: bf16
training: {method: lora, lora: {rank: 16, base_weights: bf16}, base_weights: fp8}
)") == "test.yaml:6:57: error: training.lora.base_weights: base_weights is given twice: under training and under "
       "training.lora (hint: keep training.base_weights and remove training.lora.base_weights)");
  CHECK(first_error(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {global_batch: 64}
precision: bf16
training: {method: full, base_weights: fp8}
)") == "test.yaml:6:40: error: training.base_weights: base_weights is the storage of frozen weights, which method "
       "full does not have (every weight trains) (hint: set training.method: lora (or qlora), or remove "
       "base_weights)");
}

TEST_CASE("2026 keys: the pipeline layout's fit to layers, pp and vpp is checked as Megatron-LM asserts it") {
  auto with = [](const std::string& parallel) {
    return first_error("model: llama3-8b\ncluster: {gpu: H100, gpus: 32}\nparallel: " + parallel +
                       "\nprecision: bf16\n");
  };
  // 32 layers, pp 4: 8 + 8 on the ends leave 16 for 2 ranks, 8 each: fine; with vpp 2, 8 halves.
  CHECK(with("{pp: 4, global_batch: 64, pipeline_layout: {first_stage_layers: 8, last_stage_layers: 8}}").empty());
  CHECK(with("{pp: 4, vpp: 2, schedule: interleaved, global_batch: 64, pipeline_layout: {first_stage_layers: 6, "
             "last_stage_layers: 6}}") == "");
  CHECK(with("{pp: 4, global_batch: 64, pipeline_layout: {first_stage_layers: 7, last_stage_layers: 8}}") ==
        "test.yaml:3:54: error: parallel.pipeline_layout: 17 layers left after the first and last ranks do not split "
        "evenly over the other 2 ranks (hint: choose first_stage_layers and last_stage_layers so that layers - first - "
        "last is a multiple of 2)");
  CHECK(with("{pp: 4, global_batch: 64, pipeline_layout: {first_stage_layers: 8, account_for_loss: true}}") ==
        "test.yaml:3:96: error: parallel.pipeline_layout.account_for_loss: first/last_stage_layers and "
        "account_for_embedding/loss are two ways to even the stages out; Megatron-LM refuses them together (hint: keep "
        "first_stage_layers / last_stage_layers, or the account_for_ keys)");
  CHECK(with("{pp: 4, global_batch: 64, pipeline_layout: {account_for_embedding: true}}") ==
        "test.yaml:3:54: error: parallel.pipeline_layout: layers + embedding + loss = 33 do not split evenly over "
        "pp*vpp = 4 virtual stages (hint: Megatron-LM counts the embedding and the loss as one layer each here: choose "
        "pp and vpp dividing 33)");
  CHECK(with("{pp: 2, global_batch: 64, schedule: dualpipe, pipeline_layout: {first_stage_layers: 16}}") ==
        "test.yaml:3:74: error: parallel.pipeline_layout: pipeline_layout is Megatron-LM's uneven split; schedule "
        "dualpipe places its own stages (two per rank) (hint: remove pipeline_layout, or use schedule 1f1b or "
        "interleaved)");
  CHECK(with("{pp: 4, global_batch: 32, schedule: dualpipev}") ==
        "test.yaml:3:33: error: parallel.global_batch: schedule dualpipev needs at least 2 x pp = 8 micro-batches per "
        "step, got 4 (hint: raise global_batch or lower micro_batch (micro-batches = global_batch / (micro_batch x "
        "dp)))");
}

TEST_CASE("2026 keys: the editor's form writes the layout, dispatcher and FSDP back, and custom models keep MLA") {
  const std::string text = R"(model: llama3-8b
cluster: {gpu: H100, gpus: 32}
parallel:
  pp: 4
  global_batch: 64
  pipeline_layout: {first_stage_layers: 8, last_stage_layers: 8}
precision: bf16
)";
  const scenario::Scenario s = must_parse(text);
  ScenarioForm f = form_from_scenario(s, text);
  CHECK(f.first_stage_layers == 8);
  CHECK(f.last_stage_layers == 8);
  f.schedule = "1f1b";
  f.fsdp = "keep";
  f.zero = 3;
  const scenario::Scenario back = must_parse(compose_scenario_yaml(text, f, catalog()));
  REQUIRE(back.plan.pipeline_layout);
  CHECK(back.plan.pipeline_layout->first_stage_layers == 8);
  REQUIRE(back.plan.fsdp);
  CHECK_FALSE(back.plan.fsdp->reshard_after_forward);
  CHECK_FALSE(back.plan.moe_dispatcher);
  // Unset, the keys leave the file.
  f.first_stage_layers = f.last_stage_layers = 0;
  f.fsdp.clear();
  const std::string cleared = compose_scenario_yaml(text, f, catalog());
  CHECK(cleared.find("pipeline_layout") == std::string::npos);
  CHECK(cleared.find("fsdp") == std::string::npos);
  // A custom shape made from an MLA preset keeps MLA and MTP, and writes no kv_heads.
  const std::string ds =
      "model: deepseek-v3\ncluster: {gpu: H800, gpus: 2048}\nparallel: {pp: 16, ep: 64, "
      "global_batch: 15360, schedule: dualpipe}\nprecision: fp8\n";
  ScenarioForm c = form_from_scenario(must_parse(ds), ds);
  c.model_base = c.model_preset;
  c.model_preset.clear();
  c.layers = 62;
  const std::string custom = compose_scenario_yaml(ds, c, catalog());
  CHECK(custom.find("kv_heads") == std::string::npos);
  const scenario::Scenario cs = must_parse(custom);
  CHECK(cs.model.layers == 62);
  CHECK(cs.model.mla.has_value());
  CHECK(cs.model.mtp_layers == 1);
  CHECK(cs.model.moe->node_limit == 4);
  // The dispatcher and the dispatch's dtype as the form shows them, and back.
  const std::string fp8 =
      "model: deepseek-v3\ncluster: {gpu: H800, gpus: 2048}\nparallel: {pp: 16, ep: 64, "
      "global_batch: 15360, moe_dispatcher: hybridep, moe_dispatch_dtype: fp8}\nprecision: fp8\n";
  ScenarioForm q = form_from_scenario(must_parse(fp8), fp8);
  CHECK(q.moe_dispatcher == "hybridep");
  CHECK(q.moe_dispatch_dtype == "fp8");
  q.moe_dispatch_dtype = "mxfp8";
  CHECK(must_parse(compose_scenario_yaml(fp8, q, catalog())).plan.dispatch_dtype == parallel::DispatchDtype::MXFP8);
  q.moe_dispatch_dtype.clear();
  const std::string unset = compose_scenario_yaml(fp8, q, catalog());
  CHECK(unset.find("moe_dispatch_dtype") == std::string::npos);
  CHECK(must_parse(unset).plan.dispatch_dtype == parallel::DispatchDtype::BF16);
}

TEST_CASE("moe_dispatch_dtype: a quantized dispatch as written, listed when unstated, refused where it cannot run") {
  const std::string model = kMoeOn16H100;
  const scenario::Scenario fp8 =
      must_parse(model + "parallel: {ep: 16, global_batch: 64, moe_dispatch_dtype: fp8}\nprecision: fp8\n");
  CHECK(fp8.plan.dispatch_dtype == parallel::DispatchDtype::FP8);
  CHECK_FALSE(has(fp8.defaults_applied, "parallel.moe_dispatch_dtype = bf16"));
  const scenario::Scenario mx =
      must_parse(model +
                 "parallel: {ep: 16, global_batch: 64, moe_dispatcher: hybridep, moe_dispatch_dtype: mxfp8}\n"
                 "precision: fp8\n");
  CHECK(mx.plan.dispatch_dtype == parallel::DispatchDtype::MXFP8);
  // Unstated in an 8-bit MoE run with expert parallelism: 16 bits, said among the defaults; not
  // said where nothing could be quantized (16-bit GEMMs, or no expert parallelism).
  CHECK(has(must_parse(model + "parallel: {ep: 16, global_batch: 64}\nprecision: fp8\n").defaults_applied,
            "parallel.moe_dispatch_dtype = bf16"));
  CHECK_FALSE(has(must_parse(model + "parallel: {ep: 16, global_batch: 64}\nprecision: bf16\n").defaults_applied,
                  "parallel.moe_dispatch_dtype = bf16"));
  CHECK_FALSE(has(must_parse(model + "parallel: {global_batch: 64}\nprecision: fp8\n").defaults_applied,
                  "parallel.moe_dispatch_dtype = bf16"));
  // Refused: an unknown value (did-you-mean), a dense model, 16-bit expert GEMMs, a dispatcher
  // that moves 16-bit tokens.
  const std::string typo =
      first_error(model + "parallel: {ep: 16, global_batch: 64, moe_dispatch_dtype: fp9}\nprecision: fp8\n");
  CHECK(typo.find("test.yaml:") != std::string::npos);
  CHECK(typo.find("parallel.moe_dispatch_dtype") != std::string::npos);
  CHECK(typo.find("fp8") != std::string::npos);
  const std::string dense = first_error(
      "model: {layers: 8, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000, seq_len: 4096}\n"
      "cluster: {gpu: H100, gpus: 16}\nparallel: {global_batch: 64, moe_dispatch_dtype: fp8}\nprecision: fp8\n");
  CHECK(dense.find("mixture-of-experts") != std::string::npos);
  const std::string wide =
      first_error(model + "parallel: {ep: 16, global_batch: 64, moe_dispatch_dtype: fp8}\nprecision: bf16\n");
  CHECK(wide.find("parallel.moe_dispatch_dtype") != std::string::npos);
  CHECK(wide.find("precision is bf16") != std::string::npos);
  const std::string a2a =
      first_error(model +
                  "parallel: {ep: 16, global_batch: 64, moe_dispatcher: alltoall, moe_dispatch_dtype: fp8}\n"
                  "precision: fp8\n");
  CHECK(a2a.find("moe_dispatcher alltoall") != std::string::npos);
  CHECK(a2a.find("deepep or hybridep") != std::string::npos);
  // Without expert parallelism it moves nothing: a warning, not an error.
  scenario::Diagnostics d;
  REQUIRE(parse_scenario(model + "parallel: {global_batch: 64, moe_dispatch_dtype: fp8}\nprecision: fp8\n", "test.yaml",
                         catalog(), d));
  CHECK(d.str().find("no effect with ep 1") != std::string::npos);
  // A run that leaves its dispatcher open with a quantized dispatch is resolved among the two
  // dispatchers that can send it.
  const scenario::Scenario open = must_parse(
      model + "parallel: {ep: 16, global_batch: 64, moe_dispatcher: auto, moe_dispatch_dtype: fp8}\nprecision: fp8\n");
  const auto choices = estimate::setting_choices(open);
  REQUIRE(choices.moe_dispatcher.size() == 2);
  CHECK(std::find(choices.moe_dispatcher.begin(), choices.moe_dispatcher.end(), parallel::MoeDispatcher::AllToAll) ==
        choices.moe_dispatcher.end());
  // A sweep takes it as an axis.
  scenario::Diagnostics sd;
  const auto spec = parse_sweep(R"(scenario:
  model: {layers: 8, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000, seq_len: 4096,
          moe: {experts: 64, top_k: 4, expert_ffn: 1024}}
  cluster: {gpu: H100, gpus: 16}
  parallel: {ep: 16, global_batch: 64}
  precision: fp8
axes:
  - {key: parallel.moe_dispatch_dtype, values: [bf16, fp8]}
)",
                                "s.sweep.yml", sd);
  REQUIRE_MESSAGE(spec.has_value(), sd.str());
  CHECK(check_sweep_keys(*spec, catalog(), sd));
  const auto last = sweep_point_scenario(*spec, 1, catalog(), sd);
  REQUIRE_MESSAGE(last.has_value(), sd.str());
  CHECK(last->plan.dispatch_dtype == parallel::DispatchDtype::FP8);
}

TEST_CASE("2026 keys as sweep axes: the schedule, the MoE layer frequency and the window are swept keys") {
  scenario::Diagnostics d;
  const auto spec = parse_sweep(R"(scenario:
  model: {layers: 8, hidden: 1024, heads: 8, vocab: 32000, seq_len: 2048, sliding_window: {size: 128, every: 2},
          moe: {experts: 8, top_k: 2, expert_ffn: 2048}}
  cluster: {gpu: H100, gpus: 16}
  parallel: {pp: 2, ep: 8, global_batch: 32}
  precision: bf16
axes:
  - {key: parallel.schedule, values: [1f1b, dualpipe, dualpipev]}
  - {key: model.moe.layer_freq, values: [1, 2]}
  - {key: model.sliding_window.size, values: [128, 1024]}
)",
                                "s.sweep.yml", d);
  REQUIRE_MESSAGE(spec.has_value(), d.str());
  CHECK(check_sweep_keys(*spec, catalog(), d));
  CHECK(spec->points() == 12);
  const auto last = sweep_point_scenario(*spec, 11, catalog(), d);
  REQUIRE_MESSAGE(last.has_value(), d.str());
  CHECK(last->plan.schedule == parallel::Schedule::DualPipeV);
  CHECK(last->model.moe->layer_freq == 2);
  CHECK(last->model.sliding_window->size == 1024);
}

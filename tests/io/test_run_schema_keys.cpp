// The run-schema keys of the public 2024-2026 corpus (run-schema.md): head_dim, expert tensor
// parallelism, partial fabrics, mxfp8, measured memory, training.method, source groups, FP8
// parameters, and which settings a file leaves open (unstated in a run, `auto` in a scenario).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"

using namespace flopcast;
using namespace flopcast::io;

namespace {

const io::Catalog& catalog() { return test::shipped_catalog(); }

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

scenario::Scenario must_parse(const std::string& text) {
  scenario::Diagnostics d;
  auto s = parse_scenario(text, "test.yaml", catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  return *s;
}

const char* kQwen3Moe = R"(
model:
  layers: 48
  hidden: 2048
  heads: 32
  kv_heads: 4
  ffn: 6144
  ffn_kind: swiglu
  vocab: 151936
  seq_len: 4096
  head_dim: 128
  moe: {experts: 128, top_k: 8, expert_ffn: 768}
cluster: {gpu: H100, gpus: 16}
parallel: {tp: 2, ep: 16, etp: 1, global_batch: 64, micro_batch: 1, zero: 1, recompute: none,
           sequence_parallel: true, vpp: 1}
precision: fp8
)";

}  // namespace

TEST_CASE("model.head_dim sets the attention width, without it the default hidden/heads is listed") {
  const auto s = must_parse(kQwen3Moe);
  CHECK(s.model.head_dim() == 128);
  CHECK(s.model.q_dim() == 32 * 128);
  CHECK(s.model.kv_dim() == 4 * 128);
  CHECK(!has(s.defaults_applied, "model.head_dim = hidden/heads = 64"));
  const auto plain = must_parse(R"(
model: {layers: 2, hidden: 1024, heads: 8, vocab: 1000, seq_len: 512}
cluster: {gpu: H100, gpus: 8}
parallel: {global_batch: 8}
precision: bf16
)");
  CHECK(plain.model.head_dim() == 128);
  CHECK(has(plain.defaults_applied, "model.head_dim = hidden/heads = 128"));
  CHECK(has(plain.defaults_applied, "model.dropout = true"));  // GPT-style (GeLU) default
}

TEST_CASE("parallel.etp: expert tensor parallelism under folding, unstated it is tp, listed for MoE models") {
  const auto s = must_parse(kQwen3Moe);
  CHECK(s.plan.etp == 1);
  CHECK(s.plan.expert_tp() == 1);
  // tp 2 x dp 8 = 16 GPUs per stage regrouped as etp 1 x ep 16: no expert data parallelism.
  CHECK(s.plan.expert_dp() == 1);
  std::string text = kQwen3Moe;
  text.replace(text.find("etp: 1, "), 8, "");
  text.replace(text.find("ep: 16"), 6, "ep: 8");
  const auto d = must_parse(text);
  CHECK(d.plan.expert_tp() == 2);
  CHECK(has(d.defaults_applied, "parallel.etp = tp = 2"));
}

TEST_CASE("a partial fabric takes the GPU's usual node rate, listed as defaults, a GB200 tray keeps 1 NIC per GPU") {
  const auto b200 = must_parse(R"(
model: llama3-8b
cluster: {gpu: B200, gpus: 32, fabric: {kind: infiniband}}
parallel: {cp: 2, global_batch: 16}
precision: fp8
)");
  // dgx-b200-ndr (data/fabrics.yaml): 8 x 400G per node.
  CHECK(b200.cluster.fabric.nic_gbps == 400);
  CHECK(b200.cluster.fabric.nics_per_node == 8);
  CHECK(has(b200.defaults_applied, "cluster.fabric.nic_gbps = 400 (from dgx-b200-ndr, the GPU's usual node)"));
  CHECK(has(b200.defaults_applied,
            "cluster.fabric.nics_per_node = 8 (from dgx-b200-ndr, the GPU's usual node: 8 NICs per 8 GPUs)"));
  // GB200's usual node is the NVL72 rack: 72 NICs for 72 GPUs. A 4-GPU tray has 4 of them.
  const auto gb200 = must_parse(R"(
model: llama3-8b
cluster: {gpu: GB200, gpus: 128, gpus_per_node: 4}
parallel: {global_batch: 128}
precision: bf16
)");
  CHECK(gb200.cluster.fabric.nics_per_node == 4);
  CHECK(gb200.cluster.fabric.nvlink_domain == 72);  // the NVLink domain stays the rack
  CHECK(has(gb200.defaults_applied,
            "cluster.fabric.nics_per_node = 4 (from gb200-nvl72, the GPU's usual node: 72 NICs per 72 GPUs)"));
}

TEST_CASE("mxfp8 on Blackwell, training.method full, fp8_params only with an FP8 precision") {
  const auto s = must_parse(R"(
model: llama3-8b
cluster: {gpu: B200, gpus: 8}
parallel: {global_batch: 16}
precision: mxfp8
fp8_params: true
training: {method: full, tokens: 1T}
)");
  CHECK(s.precision == hardware::Precision::MXFP8);
  CHECK(s.fp8_params);
  CHECK(s.cluster.gpu.peak(hardware::Precision::MXFP8)->flops_per_s == doctest::Approx(4.5e15));  // datasheet, dense
  scenario::Diagnostics d;
  CHECK_FALSE(parse_scenario(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {global_batch: 16}
precision: bf16
fp8_params: true
)",
                             "bf16.yaml", catalog(), d)
                  .has_value());
  CHECK_MESSAGE(d.str().find("bf16.yaml:6:13: error: fp8_params: fp8_params needs an FP8 precision, got bf16") !=
                    std::string::npos,
                d.str());
}

TEST_CASE("open settings: unstated in a measured run, `auto` in a scenario, unstated in a scenario a default") {
  scenario::Diagnostics d;
  const auto entries = parse_run_file(R"(
- id: sparse
  source: test
  source_group: a publication
  model: llama3-8b
  cluster: {gpu: H100, gpus: 8}
  parallel: {tp: 2, global_batch: 16}
  precision: bf16
  measured: {iteration_time_s: 1, memory_gib: 60}
- id: no-group
  source: test
  model: llama3-8b
  cluster: {gpu: H100, gpus: 8}
  parallel: {tp: 2, global_batch: 16, micro_batch: 2, zero: 1, recompute: full, sequence_parallel: true, vpp: 1,
             overlap_tp_comm: false}
  precision: bf16
  grad_reduce: fp32
  measured: {iteration_time_s: 1}
)",
                                      "dir/my-runs.yaml", catalog(), d);
  REQUIRE(entries.size() == 2);
  REQUIRE_MESSAGE(entries[0].scenario.has_value(), entries[0].diags.str());
  REQUIRE_MESSAGE(entries[1].scenario.has_value(), entries[1].diags.str());
  const auto& sparse = *entries[0].scenario;
  CHECK(sparse.open_settings.micro_batch);
  CHECK(sparse.open_settings.zero);
  CHECK(sparse.open_settings.recompute);
  CHECK(sparse.open_settings.sequence_parallel);
  CHECK(sparse.open_settings.vpp);
  CHECK(sparse.open_settings.grad_reduce);
  CHECK_FALSE(sparse.open_settings.fp8_params);  // bf16: no FP8 weights to choose
  CHECK(sparse.measured.at("memory_gib") == 60);
  CHECK(sparse.source_group == "a publication");
  // The loader leaves them open: they are resolved with the profile a command predicts with.
  CHECK_FALSE(sparse.resolved_settings.resolved);
  CHECK_FALSE(std::any_of(sparse.defaults_applied.begin(), sparse.defaults_applied.end(),
                          [](const std::string& x) { return x.find("(resolved: ") != std::string::npos; }));
  const auto& full = *entries[1].scenario;
  CHECK_FALSE(full.open_settings.any());
  CHECK_FALSE(full.resolved_settings.resolved);
  CHECK(full.source_group == "my-runs");  // the file's name without directory and extension
  // In a scenario, unstated settings take the schema defaults; `auto` leaves them open.
  const auto defaults = must_parse(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {tp: 2, global_batch: 16}
precision: bf16
)");
  CHECK_FALSE(defaults.open_settings.any());
  CHECK(defaults.plan.micro_batch == 1);
  CHECK(has(defaults.defaults_applied, "parallel.micro_batch = 1"));
  const auto open = must_parse(R"(
model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {tp: 2, global_batch: 16, micro_batch: auto, zero: auto, recompute: auto, sequence_parallel: auto,
           vpp: auto}
precision: bf16
)");
  CHECK(open.open_settings.micro_batch);
  CHECK(open.open_settings.zero);
  CHECK(open.open_settings.recompute);
  CHECK(open.open_settings.sequence_parallel);
  CHECK(open.open_settings.vpp);
  CHECK_FALSE(open.resolved_settings.resolved);
}

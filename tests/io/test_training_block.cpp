// The scenario's training block with a fine-tuning method (docs/fine-tuning.md): what it accepts,
// the defaults it lists, the mistakes it names, and that writing a scenario back keeps it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_form.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/scenario_writer.hpp"
#include "flopcast/parallel/parallel_plan.hpp"
#include "flopcast/workload/fine_tuning.hpp"

using namespace flopcast;
using namespace flopcast::io;

namespace {

const io::Catalog& catalog() { return test::shipped_catalog(); }

const char* kHead = R"(model: llama3-8b
cluster: {gpu: H100, gpus: 8}
parallel: {global_batch: 64}
precision: bf16
)";

/// The first error of `training` under kHead, or "" when it loads.
std::string first_error(const std::string& training, const std::string& head = kHead) {
  scenario::Diagnostics d;
  const auto s = parse_scenario(head + training, "t.yaml", catalog(), d);
  if (s) return "";
  for (const auto& e : d.items())
    if (e.severity == scenario::Severity::Error) return e.str();
  return "?";
}

}  // namespace

TEST_CASE("a LoRA block: rank, alpha, targets by any of their names, listed defaults") {
  scenario::Diagnostics d;
  const auto s =
      parse_scenario(std::string(kHead) + "training: {method: lora, lora: {rank: 8}}\n", "t.yaml", catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  CHECK(s->training.lora.rank == 8);
  CHECK(s->training.lora.targets == workload::default_lora_targets());
  CHECK(s->training.lora.base_weights == workload::BaseWeights::BF16);
  const auto& def = s->defaults_applied;
  CHECK(std::find(def.begin(), def.end(),
                  "training.lora.targets = [qkv, proj, fc1, fc2] (default: NeMo's LoRA targets, the attention and MLP "
                  "projections)") != def.end());
  CHECK(std::find(def.begin(), def.end(), "training.base_weights = bf16 (default for method lora)") != def.end());
  const auto named = parse_scenario(std::string(kHead) +
                                        "training: {method: qlora, lora: {rank: 64, alpha: 16, targets: [linear_qkv, "
                                        "o_proj, gate, up, down_proj]}}\n",
                                    "t.yaml", catalog(), d);
  REQUIRE_MESSAGE(named.has_value(), d.str());
  CHECK(named->training.lora.alpha == 16);
  CHECK(named->training.lora.base_weights == workload::BaseWeights::NF4);
  CHECK(named->training.lora.targets ==
        std::vector<workload::LoraTarget>{workload::LoraTarget::Qkv, workload::LoraTarget::Proj,
                                          workload::LoraTarget::Gate, workload::LoraTarget::Up,
                                          workload::LoraTarget::Fc2});
}

TEST_CASE("LoRA dropout: a probability read as written, refused outside 0 to 0.9, named in the summary") {
  scenario::Diagnostics d;
  const auto s = parse_scenario(std::string(kHead) + "training: {method: lora, lora: {rank: 16, dropout: 0.1}}\n",
                                "t.yaml", catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  CHECK(s->training.lora.dropout == doctest::Approx(0.1));
  CHECK(workload::fine_tuning_summary(*s).find(", dropout 0.1 on the adapters' inputs") != std::string::npos);
  const auto none =
      parse_scenario(std::string(kHead) + "training: {method: lora, lora: {rank: 16}}\n", "t.yaml", catalog(), d);
  REQUIRE(none.has_value());
  CHECK(none->training.lora.dropout == 0);
  CHECK(workload::fine_tuning_summary(*none).find("dropout") == std::string::npos);
  const std::string high = first_error("training: {method: lora, lora: {rank: 16, dropout: 1}}\n");
  CHECK(high.find("t.yaml:5:") == 0);
  CHECK(high.find("training.lora.dropout") != std::string::npos);
  CHECK(first_error("training: {method: lora, lora: {rank: 16, dropout: -0.1}}\n").find("training.lora.dropout") !=
        std::string::npos);
  CHECK(first_error("training: {method: lora, lora: {rank: 16, dropuot: 0.1}}\n").find("did you mean 'dropout'") !=
        std::string::npos);
}

TEST_CASE("LoRA targets that would double an adapter, split MLP targets on a GeLU model, QLoRA in FP8") {
  CHECK(first_error("training: {method: lora, lora: {rank: 8, targets: [qkv, q]}}\n") ==
        "t.yaml:5:51: error: training.lora.targets: qkv is the fused q, k and v projection: listing both gives the "
        "same GEMM two adapters (hint: use qkv (one fused adapter, as Megatron-core's linear_qkv) or q, k, v (one "
        "each, as q_proj, k_proj, v_proj))");
  CHECK(first_error("training: {method: lora, lora: {rank: 8, targets: [fc1, up_proj]}}\n")
            .find("fc1 is the fused gate and up projection") != std::string::npos);
  CHECK(first_error("training: {method: lora, lora: {rank: 8, targets: [v, v_proj]}}\n")
            .find("training.lora.targets[1]: LoRA target 'v_proj' is listed twice") != std::string::npos);
  CHECK(first_error("training: {method: lora, lora: {rank: 8, targets: [gate]}}\n",
                    "model: gpt3-175b\ncluster: {gpu: H100, gpus: 8}\nparallel: {global_batch: 64}\nprecision: bf16\n")
            .find("gate and up exist only in a SwiGLU MLP") != std::string::npos);
  CHECK(first_error("training: {method: lora, lora: {rank: 8, targets: []}}\n").find("expected a non-empty list") !=
        std::string::npos);
  CHECK(first_error("training: {method: lora, lora: {rank: 8, base_weights: nf4}}\n")
            .find("NF4 base weights are QLoRA") != std::string::npos);
  CHECK(first_error("training: {method: qlora, lora: {rank: 8}}\n",
                    "model: llama3-8b\ncluster: {gpu: H100, gpus: 8}\nparallel: {global_batch: 64}\nprecision: fp8\n")
            .find("QLoRA dequantizes its NF4 weights to 16 bits") != std::string::npos);
}

TEST_CASE("writing a LoRA scenario back (editor, plan --emit-scenario) keeps its training block") {
  const std::string text =
      std::string(kHead) + "training:\n  tokens: 1B\n  method: lora\n  lora:\n    rank: 16\n    targets: [qkv, proj]\n";
  scenario::Diagnostics d;
  const auto s = parse_scenario(text, "t.yaml", catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  auto form = form_from_scenario(*s, text);
  parallel::ParallelPlan p = s->plan;
  p.tp = 2;
  p.dp = 4;
  set_parallel_plan(form, p);
  const std::string out = compose_scenario_yaml(text, form, catalog());
  const auto back = parse_scenario(out, "back.yaml", catalog(), d);
  REQUIRE_MESSAGE(back.has_value(), out);
  CHECK(back->plan.tp == 2);
  CHECK(back->training.method == workload::TrainingMethod::Lora);
  CHECK(back->training.lora.rank == 16);
  CHECK(back->training.lora.targets ==
        std::vector<workload::LoraTarget>{workload::LoraTarget::Qkv, workload::LoraTarget::Proj});
  CHECK(back->training.tokens == 1e9);
}

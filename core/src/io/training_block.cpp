// The scenario's `training:` block: tokens, and the method (full, lora, qlora) with its adapters
// (docs/fine-tuning.md).
#include "training_block.hpp"

#include <algorithm>
#include <climits>

#include "flopcast/workload/fine_tuning.hpp"

namespace flopcast::io::detail {
namespace {

constexpr double kMaxTokens = 1e16;  // 10^16 tokens

/// training.lora.targets: known names, no duplicate, no fused target beside its parts, and split
/// MLP targets only on a SwiGLU model.
std::vector<workload::LoraTarget> read_targets(const YAML::Node& n, Reader& r, const scenario::Scenario& s) {
  const std::string path = "training.lora.targets";
  r.note(path, n);
  std::vector<workload::LoraTarget> out;
  if (!n.IsSequence() || n.size() == 0) {
    r.error(n, path, "expected a non-empty list of GEMM names, got " + describe(n),
            "write e.g. targets: [qkv, proj, fc1, fc2] (or leave the key out for those four)");
    return out;
  }
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YAML::Node item = n[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    const std::string name = item.IsScalar() ? item.Scalar() : describe(item);
    const auto t = item.IsScalar() ? workload::parse_lora_target(name) : std::nullopt;
    if (!t) {
      std::string hint =
          "targets are the model's GEMMs: qkv (or q, k, v), proj, fc1 (or gate, up), fc2; Hugging "
          "Face names (q_proj ... down_proj) are accepted";
      if (auto m = did_you_mean(name, workload::lora_target_names()))
        hint = "did you mean '" + *m + "'? (" + hint + ")";
      r.error(item, at, "unknown LoRA target '" + name + "'", hint);
      continue;
    }
    if (std::find(out.begin(), out.end(), *t) != out.end()) {
      r.error(item, at, "LoRA target '" + name + "' is listed twice", "list each GEMM once");
      continue;
    }
    out.push_back(*t);
  }
  auto has = [&](workload::LoraTarget t) { return std::find(out.begin(), out.end(), t) != out.end(); };
  if (has(workload::LoraTarget::Qkv) &&
      (has(workload::LoraTarget::Q) || has(workload::LoraTarget::K) || has(workload::LoraTarget::V)))
    r.error(n, path, "qkv is the fused q, k and v projection: listing both gives the same GEMM two adapters",
            "use qkv (one fused adapter, as Megatron-core's linear_qkv) or q, k, v (one each, as q_proj, k_proj, "
            "v_proj)");
  if (has(workload::LoraTarget::Fc1) && (has(workload::LoraTarget::Gate) || has(workload::LoraTarget::Up)))
    r.error(n, path, "fc1 is the fused gate and up projection: listing both gives the same GEMM two adapters",
            "use fc1 (as Megatron-core's linear_fc1) or gate, up (as gate_proj, up_proj)");
  if ((has(workload::LoraTarget::Gate) || has(workload::LoraTarget::Up)) &&
      s.model.ffn_kind != workload::FfnKind::SwiGlu)
    r.error(n, path, "gate and up exist only in a SwiGLU MLP; this model's MLP is GeLU (fc1, fc2)",
            "use fc1 for the up projection");
  return out;
}

void read_lora(const YAML::Node& n, Reader& r, scenario::Scenario& s) {
  r.note("training.lora", n);
  if (!r.expect_map(n, "training.lora")) return;
  r.check_keys(n, "training.lora", {"rank", "alpha", "dropout", "targets", "base_weights"});
  workload::LoraSpec& l = s.training.lora;
  const std::int64_t hidden = s.model.hidden;
  if (!n["rank"]) {
    r.error(n, "training.lora.rank", "missing required key 'rank': the adapters' rank sets their cost",
            "add rank: 16 (a typical rank is 8 to 64)");
  } else if (auto v = r.integer(n["rank"], "training.lora.rank", INT_MIN, INT_MAX)) {
    if (*v < 1 || (hidden > 0 && *v > hidden))
      r.error(n["rank"], "training.lora.rank",
              "rank must be 1 to the model's hidden size (" + std::to_string(hidden) + "), got " + std::to_string(*v),
              "a typical rank is 8 to 64 (MLPerf's Llama 2 70B LoRA benchmark uses 16)");
    else
      l.rank = static_cast<int>(*v);
  }
  if (n["alpha"]) {
    if (auto v = r.number(n["alpha"], "training.lora.alpha", 1e-9, 1e9)) l.alpha = *v;
  }
  if (n["dropout"]) {
    // lora_dropout (PEFT LoraConfig, NeMo / Megatron-Bridge LoRA): a probability, 0 for none.
    if (auto v = r.number(n["dropout"], "training.lora.dropout", 0, 0.9)) l.dropout = *v;
  }
  if (n["targets"]) {
    l.targets = read_targets(n["targets"], r, s);
  } else {
    l.targets = workload::default_lora_targets();
    s.defaults_applied.push_back("training.lora.targets = [" + workload::lora_target_list(l.targets) +
                                 "] (default: NeMo's LoRA targets, the attention and MLP projections)");
  }
}

/// The frozen base weights' storage: training.base_weights (the run schema's key) or, as before,
/// training.lora.base_weights; one of the two. Unstated: nf4 for qlora, bf16 for lora.
void read_base_weights(const YAML::Node& t, Reader& r, scenario::Scenario& s) {
  const YAML::Node undefined(YAML::NodeType::Undefined);
  const YAML::Node lora = t["lora"];
  const YAML::Node top = t["base_weights"];
  const YAML::Node inner = lora && lora.IsMap() && lora["base_weights"] ? lora["base_weights"] : undefined;
  if (top && inner) {
    r.error(inner, "training.lora.base_weights", "base_weights is given twice: under training and under training.lora",
            "keep training.base_weights and remove training.lora.base_weights");
    return;
  }
  const YAML::Node n = top ? top : inner;
  const std::string path = top ? "training.base_weights" : "training.lora.base_weights";
  workload::LoraSpec& l = s.training.lora;
  const bool qlora = s.training.method == workload::TrainingMethod::QLora;
  if (!n) {
    l.base_weights = qlora ? workload::BaseWeights::NF4 : workload::BaseWeights::BF16;
    s.defaults_applied.push_back(std::string("training.base_weights = ") + to_string(l.base_weights) +
                                 " (default for method " + to_string(s.training.method) + ")");
    return;
  }
  const auto v = r.choice(n, path, {"bf16", "fp8", "nf4", "nvfp4"});
  if (!v) return;
  l.base_weights = *workload::parse_base_weights(*v);
  const hardware::GpuSpec& gpu = s.cluster.gpu;
  if (qlora && l.base_weights != workload::BaseWeights::NF4) {
    r.error(n, path, "method qlora stores the frozen base weights in 4-bit NF4, got base_weights " + *v,
            "use base_weights: nf4 (or leave it out), or method: lora for " + *v + " base weights");
  } else if (!qlora && l.base_weights == workload::BaseWeights::NF4) {
    r.error(n, path, "NF4 base weights are QLoRA", "use method: qlora, or base_weights: bf16");
  } else if (l.base_weights == workload::BaseWeights::NVFP4 && !gpu.name.empty() &&
             !gpu.peak(hardware::Precision::NVFP4)) {
    // Transformer Engine's NVFP4 recipe runs on the FP4 tensor cores of Blackwell (SM100+).
    r.error(n, path,
            "the " + gpu.name +
                " has no NVFP4 tensor cores: NVFP4 base weights are a Blackwell format (B200, GB200, "
                "B300, GB300)",
            std::string("use base_weights: ") + (gpu.peak(hardware::Precision::FP8) ? "fp8 or bf16" : "bf16") +
                " on this GPU (or method: qlora for 4-bit NF4 weights)");
  } else if (l.base_weights == workload::BaseWeights::FP8 && !gpu.name.empty() && !gpu.peak(hardware::Precision::FP8)) {
    r.error(n, path, "the " + gpu.name + " has no FP8 tensor cores: FP8 base weights need Hopper, Ada or Blackwell",
            "use base_weights: bf16 on this GPU (or method: qlora for 4-bit NF4 weights)");
  }
}

}  // namespace

void read_training(const YAML::Node& t, Reader& r, scenario::Scenario& s) {
  r.note("training", t);
  if (!r.expect_map(t, "training")) return;
  r.check_keys(t, "training", {"tokens", "method", "lora", "base_weights"});
  if (t["tokens"]) {
    if (auto v = r.number(t["tokens"], "training.tokens", 1, kMaxTokens)) s.training.tokens = *v;
  }
  if (t["method"]) {
    if (auto v = r.choice(t["method"], "training.method", {"full", "lora", "qlora"}))
      s.training.method = *workload::parse_training_method(*v);
  }
  const workload::TrainingMethod method = s.training.method;
  if (method == workload::TrainingMethod::Full) {
    if (t["lora"])
      r.error(t["lora"], "training.lora", "a lora block needs method lora or qlora (method is full)",
              "set training.method: lora (or qlora), or remove the lora block");
    else if (t["base_weights"])
      r.error(t["base_weights"], "training.base_weights",
              "base_weights is the storage of frozen weights, which method full does not have (every weight trains)",
              "set training.method: lora (or qlora), or remove base_weights");
    return;
  }
  if (!t["lora"]) {
    r.error(t["method"], "training.lora",
            std::string("method ") + to_string(method) + " needs a lora block: the adapters' rank sets their cost",
            "add lora: {rank: 16} under training (targets default to qkv, proj, fc1, fc2)");
    return;
  }
  if (method == workload::TrainingMethod::QLora && s.precision != hardware::Precision::BF16 &&
      s.precision != hardware::Precision::FP16)
    r.error(t["method"], "training.method",
            std::string("QLoRA dequantizes its NF4 weights to 16 bits and computes in bf16, got precision ") +
                to_string(s.precision),
            "use precision: bf16 with method qlora");
  read_lora(t["lora"], r, s);
  read_base_weights(t, r, s);
}

}  // namespace flopcast::io::detail

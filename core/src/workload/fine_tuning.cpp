#include "flopcast/workload/fine_tuning.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace flopcast::workload {
namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

struct TargetName {
  std::string_view name;
  LoraTarget target;
};
/// Canonical names first (to_string reads them), then the Hugging Face and Megatron-core names.
constexpr TargetName kTargetNames[] = {
    {"qkv", LoraTarget::Qkv},
    {"q", LoraTarget::Q},
    {"k", LoraTarget::K},
    {"v", LoraTarget::V},
    {"proj", LoraTarget::Proj},
    {"fc1", LoraTarget::Fc1},
    {"gate", LoraTarget::Gate},
    {"up", LoraTarget::Up},
    {"fc2", LoraTarget::Fc2},
    {"q_proj", LoraTarget::Q},
    {"k_proj", LoraTarget::K},
    {"v_proj", LoraTarget::V},
    {"o_proj", LoraTarget::Proj},
    {"gate_proj", LoraTarget::Gate},
    {"up_proj", LoraTarget::Up},
    {"down_proj", LoraTarget::Fc2},
    {"linear_qkv", LoraTarget::Qkv},
    {"linear_proj", LoraTarget::Proj},
    {"linear_fc1", LoraTarget::Fc1},
    {"linear_fc2", LoraTarget::Fc2},
};

bool is_mlp(LoraTarget t) {
  return t == LoraTarget::Fc1 || t == LoraTarget::Gate || t == LoraTarget::Up || t == LoraTarget::Fc2;
}

/// Input and output widths of a target's base GEMM for an FFN of width `f`.
std::pair<double, double> widths(const ModelSpec& m, LoraTarget t, double f) {
  // Under MLA the projections are low-rank pairs; an adapter is costed at the widths the
  // attention's inputs and outputs have (queries, keys, values of the up projections).
  const double h = d(m.hidden), q = d(m.q_dim()), kv = d(m.kv_dim()), v = d(m.v_dim());
  switch (t) {
    case LoraTarget::Qkv:
      return {h, q + kv + v};
    case LoraTarget::Q:
      return {h, q};
    case LoraTarget::K:
      return {h, kv};
    case LoraTarget::V:
      return {h, v};
    case LoraTarget::Proj:
      return {d(m.attn_out_dim()), h};
    case LoraTarget::Fc1:
      return {h, f * (m.ffn_matrices() - 1)};  // gate and up fused for SwiGLU
    case LoraTarget::Gate:
    case LoraTarget::Up:
      return {h, f};
    case LoraTarget::Fc2:
      return {f, h};
  }
  return {0, 0};
}

/// Forward FLOPs of one step, whole job: the frozen layers' GEMMs, the logits (the frozen output
/// head), attention, and the adapters.
struct ForwardSplit {
  double gemm = 0, logits = 0, attention = 0, adapters = 0;
};

ForwardSplit forward_split(const scenario::Scenario& s) {
  const auto& m = s.model;
  const double gb = d(s.plan.global_batch);
  const double tokens = gb * d(m.seq_len);
  ForwardSplit f;
  for_each_layer_kind(m, 0, m.layers, [&](int layer, int count) {
    const LayerFlops lf = layer_forward_flops(m, layer, gb);
    f.gemm += count * (lf.qkv + lf.out_proj + lf.mlp + lf.router);
    f.attention += count * lf.attention;
    double per_token = 0;
    for (const auto& a : adapter_shapes(m, s.training.lora, layer)) per_token += a.per_token * (a.in + a.out);
    f.adapters += count * 2.0 * tokens * s.training.lora.rank * per_token;
  });
  if (m.mtp_layers > 0) {  // frozen MTP modules: their layers and projections (no adapters)
    const LayerFlops lf = layer_forward_flops(m, m.layers, gb);
    f.gemm += m.mtp_layers * (lf.qkv + lf.out_proj + lf.mlp + lf.router);
    f.attention += m.mtp_layers * lf.attention;
  }
  f.logits = (1 + m.mtp_layers) * 2 * tokens * d(m.hidden) * d(m.vocab);
  return f;
}

}  // namespace

const char* to_string(TrainingMethod m) {
  switch (m) {
    case TrainingMethod::Full:
      return "full";
    case TrainingMethod::Lora:
      return "lora";
    case TrainingMethod::QLora:
      return "qlora";
  }
  return "full";
}

const char* to_string(BaseWeights w) {
  switch (w) {
    case BaseWeights::BF16:
      return "bf16";
    case BaseWeights::FP8:
      return "fp8";
    case BaseWeights::NF4:
      return "nf4";
    case BaseWeights::NVFP4:
      return "nvfp4";
  }
  return "bf16";
}

std::optional<BaseWeights> parse_base_weights(std::string_view s) {
  for (BaseWeights w : {BaseWeights::BF16, BaseWeights::FP8, BaseWeights::NF4, BaseWeights::NVFP4})
    if (s == to_string(w)) return w;
  return std::nullopt;
}

const char* to_string(LoraTarget t) {
  for (const auto& n : kTargetNames)
    if (n.target == t) return n.name.data();
  return "qkv";
}

std::optional<TrainingMethod> parse_training_method(std::string_view s) {
  if (s == "full") return TrainingMethod::Full;
  if (s == "lora") return TrainingMethod::Lora;
  if (s == "qlora") return TrainingMethod::QLora;
  return std::nullopt;
}

std::optional<LoraTarget> parse_lora_target(std::string_view s) {
  for (const auto& n : kTargetNames)
    if (n.name == s) return n.target;
  return std::nullopt;
}

std::vector<std::string> lora_target_names() {
  std::vector<std::string> v;
  for (const auto& n : kTargetNames) v.emplace_back(n.name);
  return v;
}

std::string lora_target_list(const std::vector<LoraTarget>& targets) {
  std::string out;
  for (const auto t : targets) out += (out.empty() ? "" : ", ") + std::string(to_string(t));
  return out;
}

std::vector<LoraTarget> default_lora_targets() {
  return {LoraTarget::Qkv, LoraTarget::Proj, LoraTarget::Fc1, LoraTarget::Fc2};
}

double base_weight_bytes(BaseWeights w) {
  switch (w) {
    case BaseWeights::BF16:
      return 2.0;
    case BaseWeights::FP8:
      return 1.0;
    case BaseWeights::NF4:
      return kNf4BytesPerWeight;
    case BaseWeights::NVFP4:
      return kNvfp4BytesPerWeight;
  }
  return 2.0;
}

bool base_weights_dequantized(BaseWeights w, hardware::Precision run) {
  switch (w) {
    case BaseWeights::BF16:
      return false;
    case BaseWeights::FP8:
      return hardware::bytes_per_element(run) >= 2;
    case BaseWeights::NF4:
      return true;
    case BaseWeights::NVFP4:
      return run != hardware::Precision::NVFP4;
  }
  return false;
}

AdapterList adapter_shapes(const ModelSpec& m, const LoraSpec& lora, int layer) {
  AdapterList list;
  auto push = [&](LoraTarget t, double f, double copies, double per_token, bool routed) {
    if (list.count >= static_cast<int>(list.items.size())) return;
    const auto [in, out] = widths(m, t, f);
    list.items[static_cast<std::size_t>(list.count++)] = {t, in, out, copies, per_token, routed};
  };
  for (const LoraTarget t : lora.targets) {
    if (!is_mlp(t) || !m.is_moe_layer(layer)) {
      push(t, d(m.ffn), 1, 1, false);
      continue;
    }
    // An MoE layer's MLP targets: one adapter per routed expert (a token passes top_k of them)
    // and one per shared expert.
    const auto& e = *m.moe;
    push(t, d(e.expert_ffn), e.experts, e.top_k, true);
    if (e.shared_experts > 0) push(t, d(e.shared_ffn()), e.shared_experts, e.shared_experts, false);
  }
  return list;
}

double adapter_params_of_layer(const ModelSpec& m, const LoraSpec& lora, int layer) {
  double p = 0;
  for (const auto& a : adapter_shapes(m, lora, layer)) p += a.copies * lora.rank * (a.in + a.out);
  return p;
}

double adapter_params_of_layers(const ModelSpec& m, const LoraSpec& lora, int first, int n) {
  double p = 0;
  for_each_layer_kind(m, first, n, [&](int layer, int count) { p += count * adapter_params_of_layer(m, lora, layer); });
  return p;
}

LocalAdapters local_adapter_params(const scenario::Scenario& s, int first, int n) {
  const auto& m = s.model;
  const auto& p = s.plan;
  LocalAdapters out;
  for_each_layer_kind(m, first, n, [&](int layer, int count) {
    for (const auto& a : adapter_shapes(m, s.training.lora, layer)) {
      const double params = count * a.copies * s.training.lora.rank * (a.in + a.out);
      if (a.routed)
        out.expert += params / (static_cast<double>(p.expert_tp()) * p.ep);
      else
        out.dense += params / p.tp;
    }
  });
  return out;
}

double trainable_params(const scenario::Scenario& s) {
  if (!is_fine_tuning(s)) return parameter_count(s.model).total;
  return adapter_params_of_layers(s.model, s.training.lora, 0, s.model.layers);
}

units::Flops training_model_flops(const scenario::Scenario& s) {
  if (!is_fine_tuning(s)) return model_flops_per_step(s.model, d(s.plan.global_batch));
  const ForwardSplit f = forward_split(s);
  return units::Flops{2 * (f.gemm + f.logits) + 3 * f.attention + 3 * f.adapters};
}

units::Flops training_hardware_flops(const scenario::Scenario& s) {
  if (!is_fine_tuning(s)) return hardware_flops_per_step(s.model, s.plan);
  const ForwardSplit f = forward_split(s);
  double extra = 0;
  if (s.plan.recompute == parallel::Recompute::Full) {
    // The logits GEMM is not recomputed (it runs after the last checkpointed layer).
    extra = f.gemm + f.attention + f.adapters;
  } else if (s.plan.recompute == parallel::Recompute::Selective) {
    // What the selective rule runs again for the frozen model (the attention core, or under FSDP2
    // the per-op policy's GEMMs: workload::per_op_checkpointing), as for full training.
    const double gb = d(s.plan.global_batch);
    extra = hardware_flops_per_step(s.model, s.plan).value - model_flops_per_step(s.model, gb).value;
  }
  return units::Flops{training_model_flops(s).value + extra};
}

std::string model_flops_convention(const scenario::Scenario& s) {
  if (!is_fine_tuning(s))
    return "forward and backward of every weight (6 FLOPs per parameter per token) and attention over every key "
           "(not halved for the causal mask; a window's keys on windowed layers); no recompute";
  return "frozen weights: forward and input gradient only (4 FLOPs per parameter per token, not 6); adapters: "
         "forward, input and weight gradients (6 per adapter parameter); attention forward and backward over every "
         "key (not halved for the causal mask); no recompute";
}

double adapter_input_elements(const scenario::Scenario& s, const AdapterShape& a, double tokens) {
  const auto& p = s.plan;
  const bool row_parallel = is_row_parallel(a.target);
  if (a.routed) {
    // The adapter GEMMs' rows x local copies: tokens x per_token x etp / tp.
    const double etp = p.expert_tp();
    return tokens * a.per_token * etp / p.tp * (row_parallel ? a.in / etp : a.in);
  }
  // With sequence parallelism a column-parallel adapter gets the layer norm's output already
  // gathered (Megatron-Bridge sets TE's return_layernorm_output_gathered), except under comm-GEMM
  // overlap, when it gathers the sequence itself after dropout (peft/utils.py, dropout 'pre').
  const bool sequence_split = p.sequence_parallel && p.overlap_tp_comm;
  const double width = row_parallel ? a.in / p.tp : a.in / (sequence_split ? p.tp : 1.0);
  return tokens * a.copies * width;
}

units::Bytes adapter_activation_bytes(const scenario::Scenario& s, int layer) {
  const auto& p = s.plan;
  const double tokens = d(s.model.seq_len) / p.cp * d(p.micro_batch);
  double bytes = 0;
  for (const auto& a : adapter_shapes(s.model, s.training.lora, layer)) {
    bytes += tokens * a.per_token * s.training.lora.rank * 2.0;
    if (s.training.lora.dropout > 0) bytes += adapter_input_elements(s, a, tokens) * (2.0 + 1.0);
  }
  return units::Bytes{bytes};
}

void apply_fine_tuning_memory(const scenario::Scenario& s, const StageSlice& slice, const StageWeights& w, double shard,
                              double expert_shard, MemoryBreakdown& mb) {
  const auto& p = s.plan;
  const double wb = base_weight_bytes(s.training.lora.base_weights);
  // Frozen: the GEMM weights at wb, the rest (embeddings, norms, router) at 2 B. Routed experts
  // are all GEMM weights.
  const double dense_gemm = std::max(0.0, w.gemm - w.experts);
  const double dense_bytes = (w.dense - dense_gemm) * 2.0 + dense_gemm * wb;
  const double expert_bytes = w.experts * wb;
  const double frozen = p.zero >= 3 ? dense_bytes / shard + expert_bytes / expert_shard : dense_bytes + expert_bytes;
  // Adapters: this GPU's share (adapter matrices split like their base GEMMs).
  LocalAdapters adapters;
  for (const auto& [first, n] : slice.chunks) {
    const LocalAdapters chunk = local_adapter_params(s, first, n);
    adapters.dense += chunk.dense;
    adapters.expert += chunk.expert;
  }
  const StateBytes bytes = state_bytes(s.precision, s.grad_reduce);
  auto sharded = [&](double bytes_per_param, bool on) {
    return on ? adapters.dense * bytes_per_param / shard + adapters.expert * bytes_per_param / expert_shard
              : adapters.total() * bytes_per_param;
  };
  mb.weights = units::Bytes{frozen + sharded(bytes.weights, p.zero >= 3)};
  mb.gradients = units::Bytes{sharded(bytes.gradients, p.zero >= 2)};
  mb.optimizer = units::Bytes{sharded(bytes.optimizer, p.zero >= 1)};
}

std::string fine_tuning_summary(const scenario::Scenario& s) {
  if (!is_fine_tuning(s)) return {};
  const auto& l = s.training.lora;
  std::string out = fmt::format("{} on {} ({:.1f}M adapter parameters), frozen {} base weights", fine_tuning_label(s),
                                lora_target_list(l.targets), trainable_params(s) / 1e6, to_string(l.base_weights));
  if (l.dropout > 0) out += fmt::format(", dropout {:g} on the adapters' inputs", l.dropout);
  return out;
}

std::string fine_tuning_label(const scenario::Scenario& s) {
  if (!is_fine_tuning(s)) return {};
  return fmt::format("{} rank {}", s.training.method == TrainingMethod::QLora ? "QLoRA" : "LoRA", s.training.lora.rank);
}

}  // namespace flopcast::workload

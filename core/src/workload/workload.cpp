#include "flopcast/workload/workload.hpp"

#include <algorithm>
#include <cmath>

namespace flopcast {
namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

/// Parameters of attention + norms of one layer.
double attention_params(const ModelSpec& m) {
  const double h = d(m.hidden), kv = d(m.kv_dim());
  double p = h * h + 2 * h * kv + h * h;  // Q, K, V, output projection
  if (m.bias) p += h + 2 * kv + h;
  p += (m.rmsnorm ? 1.0 : 2.0) * h;  // attention norm: weight (+ bias for LayerNorm)
  p += (m.rmsnorm ? 1.0 : 2.0) * h;  // MLP norm
  return p;
}

double ffn_params(const ModelSpec& m, std::int64_t ffn) {
  const double h = d(m.hidden), f = d(ffn);
  double p = m.ffn_matrices() * h * f;
  if (m.bias) p += (m.ffn_matrices() - 1) * f + h;
  return p;
}

}  // namespace

ParameterCount parameter_count(const ModelSpec& m) {
  ParameterCount c;
  const double h = d(m.hidden);
  c.embedding = d(m.vocab) * h + (m.learned_positions ? d(m.seq_len) * h : 0.0);
  c.output_head = m.tied_embeddings ? 0.0 : d(m.vocab) * h;
  c.final_norm = (m.rmsnorm ? 1.0 : 2.0) * h;
  c.dense_layer = attention_params(m) + ffn_params(m, m.ffn);
  double layers_total = 0, layers_active = 0;
  if (m.moe) {
    const auto& e = *m.moe;
    c.moe_expert = ffn_params(m, e.expert_ffn);
    c.moe_layer_shared = attention_params(m) + h * e.experts + e.shared_experts * c.moe_expert;
    const double moe_layers = m.moe_layers();
    const double dense_layers = m.layers - moe_layers;
    layers_total = dense_layers * c.dense_layer + moe_layers * (c.moe_layer_shared + e.experts * c.moe_expert);
    layers_active = dense_layers * c.dense_layer + moe_layers * (c.moe_layer_shared + e.top_k * c.moe_expert);
  } else {
    layers_total = layers_active = m.layers * c.dense_layer;
  }
  c.total = layers_total + c.embedding + c.output_head + c.final_norm;
  c.active = layers_active + c.embedding + c.output_head + c.final_norm;
  return c;
}

LayerFlops layer_forward_flops(const ModelSpec& m, int layer, double sequences) {
  const double T = sequences * d(m.seq_len);  // tokens
  const double h = d(m.hidden), kv = d(m.kv_dim()), s = d(m.seq_len);
  LayerFlops f;
  f.qkv = 2 * T * h * (h + 2 * kv);
  // QK^T and attention-over-values, each 2*T*s*h; the full s^2 term (Megatron/PaLM model FLOPs).
  f.attention = 4 * T * s * h;
  f.out_proj = 2 * T * h * h;
  if (m.is_moe_layer(layer)) {
    const auto& e = *m.moe;
    f.router = 2 * T * h * e.experts;
    f.mlp = 2 * T * h * d(e.expert_ffn) * m.ffn_matrices() * (e.top_k + e.shared_experts);
  } else {
    f.mlp = 2 * T * h * d(m.ffn) * m.ffn_matrices();
  }
  return f;
}

namespace {
/// Layers [first, first + n) that are MoE layers (MoE layers are those past dense_layers).
int moe_layers_in(const ModelSpec& m, int first, int n) {
  if (!m.moe) return 0;
  const int lo = std::max(first, m.moe->dense_layers), hi = first + n;
  return std::max(0, hi - lo);
}
}  // namespace

Flops model_flops_per_step(const ModelSpec& m, double global_batch) {
  // Every dense layer costs the same, and so does every MoE layer: count, don't loop.
  const int moe = moe_layers_in(m, 0, m.layers);
  double fwd = (m.layers - moe) * layer_forward_flops(m, 0, global_batch).total();
  if (moe > 0) fwd += moe * layer_forward_flops(m, m.moe->dense_layers, global_batch).total();
  fwd += 2 * global_batch * d(m.seq_len) * d(m.hidden) * d(m.vocab);  // logits
  return Flops{3 * fwd};
}

Flops hardware_flops_per_step(const ModelSpec& m, const ParallelPlan& p) {
  const double gb = d(p.global_batch);
  double extra = 0;
  const int moe = moe_layers_in(m, 0, m.layers);
  auto add = [&](int layer, int count) {
    if (count <= 0) return;
    const auto f = layer_forward_flops(m, layer, gb);
    if (p.recompute == Recompute::Full)
      extra += count * f.total();
    else if (p.recompute == Recompute::Selective)
      extra += count * f.attention;
  };
  add(0, m.layers - moe);
  if (moe > 0) add(m.moe->dense_layers, moe);
  return Flops{model_flops_per_step(m, gb).value + extra};
}

std::vector<int> layers_per_stage(int layers, int pp) {
  std::vector<int> v(static_cast<std::size_t>(std::max(pp, 1)), pp > 0 ? layers / pp : layers);
  int extra = pp > 0 ? layers % pp : 0;
  // Middle stages first (1, 2, ...), then the last, then the first.
  for (int i = 1; extra > 0 && i < pp - 1; ++i, --extra) ++v[static_cast<std::size_t>(i)];
  if (extra > 0 && pp > 1) {
    ++v.back();
    --extra;
  }
  if (extra > 0) {
    ++v.front();
    --extra;
  }
  return v;
}

Bytes layer_activation_bytes(const ModelSpec& m, const ParallelPlan& p, int layer, Precision prec) {
  // In units of s*b*h bytes with 16-bit activations (Korthikanti Table 2); dropout masks
  // are 1 byte per element. s is the local sequence (seq_len / cp).
  const double s = d(m.seq_len) / p.cp, b = d(p.micro_batch), h = d(m.hidden), t = p.tp;
  const double sbh = s * b * h;
  const double elt = bytes_per_element(prec) >= 2 ? bytes_per_element(prec) / 2.0 : 1.0;
  if (p.recompute == Recompute::Full) {
    // Only the layer input is kept (2sbh, split by t under sequence parallelism).
    return Bytes{2 * sbh * elt / (p.sequence_parallel ? t : 1.0)};
  }
  // Not split by TP: two norm inputs (4), two dropout masks (2), QKV and FC1 inputs (4).
  const double replicated = 10.0;
  double ffn_part;
  const double mats = m.ffn_kind == FfnKind::SwiGlu ? 8.0 : 4.0;  // gelu: in+out; swiglu: gate, up, act, product
  if (m.is_moe_layer(layer)) {
    const auto& e = *m.moe;
    ffn_part = mats * d(e.expert_ffn) * (e.top_k + e.shared_experts) / h;
  } else {
    ffn_part = mats * d(m.ffn) / h;
  }
  // Split by TP: Q and K for QK^T (4 -> 2 + 2kv/h), V (2kv/h), projection input (2), MLP.
  const double kv_ratio = d(m.kv_dim()) / h;
  const double split = 2 + 2 * kv_ratio + 2 * kv_ratio + 2 + ffn_part;
  double units = replicated / (p.sequence_parallel ? t : 1.0) + split / t;
  if (!p.flash_attention && p.recompute != Recompute::Selective) {
    // Unfused attention keeps the softmax output (2 bytes), its dropout mask (1) and the
    // dropout output (2) per score: 5 a s / h in s*b*h units (Korthikanti Table 2), split by TP.
    units += 5.0 * m.heads * s / h / t;
  }
  return Bytes{units * sbh * elt};
}

MemoryBreakdown memory_of_stage(const Scenario& s, const ComputeProfile& profile, int stage) {
  const auto& m = s.model;
  const auto& p = s.plan;
  const auto pc = parameter_count(m);
  const auto stages = layers_per_stage(m.layers, p.pp);
  int first_layer = 0;
  for (int i = 0; i < stage; ++i) first_layer += stages[static_cast<std::size_t>(i)];
  const int nlayers = stages[static_cast<std::size_t>(stage)];
  const bool first = stage == 0, last = stage == p.pp - 1;

  // Parameters on this GPU: dense part split by TP; routed experts split by EP and TP.
  const int moe_here = moe_layers_in(m, first_layer, nlayers);
  double dense = (nlayers - moe_here) * pc.dense_layer;
  double experts = 0;
  if (moe_here > 0) {
    dense += moe_here * pc.moe_layer_shared;
    experts += moe_here * m.moe->experts * pc.moe_expert;
  }
  if (first) dense += pc.embedding;
  if (last) dense += (m.tied_embeddings ? (p.pp > 1 ? d(m.vocab) * d(m.hidden) : 0.0) : pc.output_head) + pc.final_norm;
  dense /= p.tp;
  experts /= static_cast<double>(p.tp) * p.ep;

  // Bytes per parameter, ZeRO accounting (arXiv 1910.02054 §3): 16-bit weights 2 + 16-bit
  // gradients 2 + fp32 master, momentum, variance 12 = 16. Pure fp32 training: 4 + 4 + 8.
  const bool fp32 = s.precision == Precision::FP32;
  const double wb = fp32 ? 4 : 2, gb = fp32 ? 4 : 2, ob = fp32 ? 8 : 12;
  const double shard = static_cast<double>(p.dp) * p.cp;    // DP x CP group (Megatron)
  const double expert_shard = std::max(1.0, shard / p.ep);  // expert-data-parallel group
  auto sharded = [&](double bytes_per_param, bool on) {
    return on ? dense * bytes_per_param / shard + experts * bytes_per_param / expert_shard
              : (dense + experts) * bytes_per_param;
  };
  MemoryBreakdown mb;
  mb.stage = stage;
  mb.capacity = s.cluster.gpu.hbm;
  mb.weights = Bytes{sharded(wb, p.zero >= 3)};
  mb.gradients = Bytes{sharded(gb, p.zero >= 2)};
  mb.optimizer = Bytes{sharded(ob, p.zero >= 1)};
  if (p.zero >= 3 && nlayers > 0) {
    // ZeRO-3 gathers full layers ahead of use: the current and the prefetched layer (this
    // GPU's TP/EP shard of the stage's largest layer).
    double largest = 0;
    for (int l = first_layer; l < first_layer + nlayers; ++l) {
      const double layer = m.is_moe_layer(l) ? pc.moe_layer_shared / p.tp +
                                                   m.moe->experts * pc.moe_expert / (static_cast<double>(p.tp) * p.ep)
                                             : pc.dense_layer / p.tp;
      largest = std::max(largest, layer);
    }
    mb.weights += Bytes{2.0 * wb * largest};
  }

  // In-flight micro-batches at this stage's peak.
  const double micro = static_cast<double>(std::max<std::int64_t>(1, p.microbatches()));
  double in_flight = 1;
  if (p.pp > 1) {
    switch (p.schedule) {
      case Schedule::GPipe:
        in_flight = micro;
        break;
      case Schedule::OneFOneB:
      case Schedule::ZeroBubble:
        in_flight = std::min(micro, static_cast<double>(p.pp - stage));
        break;
      case Schedule::Interleaved:
        // Megatron: x (1 + (p-1)/(p v)) over 1F1B's p micro-batches at the first stage.
        in_flight = std::min(micro * p.vpp, (p.pp - stage) * (1.0 + (p.pp - 1.0) / (p.pp * p.vpp)));
        break;
    }
  }
  mb.in_flight = in_flight;
  double act = (nlayers - moe_here) * layer_activation_bytes(m, p, 0, s.precision).value;
  if (moe_here > 0) act += moe_here * layer_activation_bytes(m, p, m.moe->dense_layers, s.precision).value;
  act *= in_flight;
  if (p.recompute == Recompute::Full && nlayers > 0) {
    // Backward recomputes one layer at a time: its full activations are live once.
    ParallelPlan none = p;
    none.recompute = Recompute::None;
    act += layer_activation_bytes(m, none, first_layer, s.precision).value;
  }
  mb.activations = Bytes{act};
  if (last) {
    // fp32 logits and their gradient for one micro-batch, split over TP (Megatron
    // theoretical_memory_usage.py: 4*s*b*h*(1+V/h)/t).
    const double sb = d(m.seq_len) / p.cp * d(p.micro_batch);
    mb.logits = Bytes{4.0 * sb * (d(m.hidden) + d(m.vocab)) / p.tp};
  }
  mb.workspace = gib(profile.workspace_gib);
  const double tensors = (mb.weights + mb.gradients + mb.optimizer + mb.activations + mb.logits).value;
  mb.fragmentation = Bytes{tensors * profile.fragmentation};
  return mb;
}

MemoryBreakdown memory_per_gpu(const Scenario& s, const ComputeProfile& profile) {
  MemoryBreakdown worst = memory_of_stage(s, profile, 0);
  for (int st = 1; st < s.plan.pp; ++st) {
    // Middle stages hold fewer in-flight micro-batches; only the first few and the last can be worst.
    if (st > 2 && st < s.plan.pp - 1) continue;
    auto mb = memory_of_stage(s, profile, st);
    if (mb.total().value > worst.total().value) worst = mb;
  }
  return worst;
}

}  // namespace flopcast

#include "flopcast/workload/workload.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "flopcast/comm/nccl_tuning.hpp"
#include "flopcast/workload/fine_tuning.hpp"

namespace flopcast::workload {
namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

/// Parameters of attention + norms of one layer. Q is h x q and the output projection q x h,
/// q = heads x head_dim (= h unless head_dim is set wider, as Qwen3's kv_channels); MLA: its
/// low-rank projections and the RMSNorms of its two latents (DeepSeek-V3 §2.1.1, eqs. 1-11).
double attention_params(const ModelSpec& m) {
  const double h = d(m.hidden);
  double p = attention_gemm_weights(m);
  if (m.mla) {
    p += d(m.mla->q_lora_rank) + d(m.mla->kv_lora_rank);  // the latents' RMSNorm weights
  } else if (m.bias) {
    p += d(m.q_dim()) + d(m.kv_dim()) + d(m.v_dim()) + h;
  }
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

double expected_max_standard_normal(int n) {
  if (n <= 1) return 0;
  // Memoised per n up to a bound (the planner asks for the same few EP sizes millions of times;
  // an EP group never exceeds the experts, and no memo grows with an absurd input).
  constexpr std::size_t kMemoMax = 1 << 16;
  thread_local std::vector<double> memo;
  const auto i = static_cast<std::size_t>(n);
  if (i < memo.size() && !std::isnan(memo[i])) return memo[i];
  // E[max] = integral of x n phi(x) Phi(x)^(n-1) dx; the density is negligible outside
  // [-8, 8 + sqrt(2 ln n)] and smooth, so a fine trapezoid sum is exact to ~1e-6.
  const double hi = 8 + std::sqrt(2 * std::log(static_cast<double>(n)));
  constexpr double kLo = -8, kStep = 1.0 / 256;
  const double dn = static_cast<double>(n);
  double sum = 0;
  for (double x = kLo; x <= hi; x += kStep) {
    const double phi = std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi);
    const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    sum += x * dn * phi * std::pow(cdf, dn - 1);
  }
  const double value = sum * kStep;
  if (i > kMemoMax) return value;
  if (i >= memo.size()) memo.resize(i + 1, std::nan(""));
  memo[i] = value;
  return value;
}

double routed_load_factor(const MoeSpec& e, int ep, double routes_per_rank) {
  double factor = 1;
  if (ep > 1 && routes_per_rank > 0 && e.experts > 1) {
    const double experts = e.experts, k = std::min(e.top_k, e.experts);
    const double variance_per_route = (1 - 1.0 / ep) * (experts - k) / (experts - 1);
    factor += expected_max_standard_normal(ep) * std::sqrt(variance_per_route / routes_per_rank);
  }
  return e.capacity_factor > 0 ? std::min(factor, e.capacity_factor) : factor;
}

double mtp_module_extra_params(const ModelSpec& m) {
  // DeepSeek-V3 §2.2 eq. 21: M_k [RMSNorm(h); RMSNorm(Emb(t))], and the module's final norm before
  // the shared head; Megatron-LM counts "eh norm + final norm" as 3h and "eh proj" as 2h^2.
  const double h = d(m.hidden);
  return 2 * h * h + 3 * (m.rmsnorm ? 1.0 : 2.0) * h;
}

double attention_gemm_weights(const ModelSpec& m) {
  const double h = d(m.hidden);
  if (m.mla) {
    // DeepSeek-V3 §2.1.1: q = W^UQ W^DQ h (or W^Q h without compression), [k^C; v^C] = W^U(KV)
    // c^KV with c^KV = W^DKV h and the rope key k^R = W^KR h (one down projection to
    // kv_lora_rank + qk_rope), output W^O over heads x v_head_dim.
    const auto& a = *m.mla;
    const double heads = m.heads, qk = d(a.qk_head_dim());
    const double q = a.q_lora_rank > 0 ? h * d(a.q_lora_rank) + d(a.q_lora_rank) * heads * qk : h * heads * qk;
    const double kv =
        h * d(a.kv_lora_rank + a.qk_rope_head_dim) + d(a.kv_lora_rank) * heads * d(a.qk_nope_head_dim + a.v_head_dim);
    return q + kv + heads * d(a.v_head_dim) * h;
  }
  return h * d(m.q_dim() + m.kv_dim() + m.v_dim()) + d(m.attn_out_dim()) * h;
}

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
    c.moe_layer_shared = attention_params(m) + h * e.experts + e.shared_experts * ffn_params(m, e.shared_ffn());
    const double moe_layers = m.moe_layers();
    const double dense_layers = m.layers - moe_layers;
    layers_total = dense_layers * c.dense_layer + moe_layers * (c.moe_layer_shared + e.experts * c.moe_expert);
    layers_active = dense_layers * c.dense_layer + moe_layers * (c.moe_layer_shared + e.top_k * c.moe_expert);
  } else {
    layers_total = layers_active = m.layers * c.dense_layer;
  }
  c.total = layers_total + c.embedding + c.output_head + c.final_norm;
  c.active = layers_active + c.embedding + c.output_head + c.final_norm;
  if (m.mtp_layers > 0) {
    const double layer = m.is_moe_layer(m.layers) ? c.moe_layer_shared + m.moe->experts * c.moe_expert : c.dense_layer;
    c.mtp = m.mtp_layers * (layer + mtp_module_extra_params(m));
  }
  return c;
}

double attended_keys(const ModelSpec& m, int layer, AttentionCount count) {
  const double s = d(m.seq_len);
  if (m.is_windowed_layer(layer)) {
    const double w = std::min(d(m.sliding_window->size), s);
    // Causal: query i sees min(i + 1, w) keys; over the sequence that averages w - w^2/(2s)
    // (continuous form, equal to s/2 at w = s).
    return count == AttentionCount::Full ? w : w - w * w / (2 * s);
  }
  return count == AttentionCount::Full ? s : s / 2;
}

LayerFlops layer_forward_flops(const ModelSpec& m, int layer, double sequences, AttentionCount count) {
  const double T = sequences * d(m.seq_len);  // tokens
  const double h = d(m.hidden), o = d(m.attn_out_dim());
  LayerFlops f;
  f.out_proj = 2 * T * o * h;
  f.qkv = 2 * T * attention_gemm_weights(m) - f.out_proj;  // Q, K, V (MLA: the down and up projections)
  // QK^T over the query/key heads and attention over the values' heads, each query against the
  // keys it attends to (attended_keys): 2*T*keys*q + 2*T*keys*o; the full s^2 term with Full
  // (Megatron/PaLM model FLOPs), queries x window keys on a windowed layer.
  const double keys = attended_keys(m, layer, count);
  f.attention = 2 * T * keys * d(m.q_dim()) + 2 * T * keys * o;
  if (m.is_moe_layer(layer)) {
    const auto& e = *m.moe;
    f.router = 2 * T * h * e.experts;
    f.mlp = 2 * T * h * m.ffn_matrices() * (d(e.expert_ffn) * e.top_k + d(e.shared_ffn()) * e.shared_experts);
  } else {
    f.mlp = 2 * T * h * d(m.ffn) * m.ffn_matrices();
  }
  // An MTP module's projection M of [RMSNorm(h); RMSNorm(Emb)] (2h -> h) before its layer.
  if (layer >= m.layers) f.qkv += 2 * T * 2 * h * h;
  return f;
}

namespace {

/// 3 x the forward FLOPs of every layer, the MTP modules and the logits, attention counted as `count`.
double model_flops(const ModelSpec& m, double global_batch, AttentionCount count) {
  double fwd = 0;
  for_each_layer_kind(m, 0, m.layers,
                      [&](int layer, int n) { fwd += n * layer_forward_flops(m, layer, global_batch, count).total(); });
  if (m.mtp_layers > 0) fwd += m.mtp_layers * layer_forward_flops(m, m.layers, global_batch, count).total();
  // Logits, and each MTP module's through the shared head.
  fwd += (1 + m.mtp_layers) * 2 * global_batch * d(m.seq_len) * d(m.hidden) * d(m.vocab);
  return 3 * fwd;
}

/// Megatron-LM's num_floating_point_operations, transformer_flops() (megatron/training/training.py
/// at NVIDIA/Megatron-LM d98e8a64), for unpacked sequences of seq_len: every GEMM x 3 (forward,
/// wgrad, dgrad) x 2 (FMA); no router and no embedding; attention's QK^T and attention over values
/// halved for the causal mask ("causal mask -> /2 cancels with FMA *2") and windows ignored;
/// MLA's projections with "+ 1" for each latent's RMSNorm and the rope key's h x qk_rope; MTP
/// layers (of the last layer's kind) with "eh norm + final norm" 3h, "eh proj" 2h^2 and one more
/// logits each. The MoE pattern is flopcast's (dense_layers, layer_freq), as Megatron-LM's list.
double megatron_flops(const ModelSpec& m, double global_batch) {
  const double h = d(m.hidden), s = d(m.seq_len), V = d(m.vocab), heads = m.heads;
  const double mtp = m.mtp_layers;
  double moe_layers = m.moe_layers(), dense_layers = m.layers - moe_layers;
  if (m.mtp_layers > 0) (m.is_moe_layer(m.layers) ? moe_layers : dense_layers) += mtp;
  const double layers = m.layers + mtp;
  const double ffn_expansion = m.ffn_kind == FfnKind::SwiGlu ? 3 : 2;
  double attn = 0, core = 0;
  if (m.mla) {
    const auto& a = *m.mla;
    const double qk = d(a.qk_head_dim()), v = d(a.v_head_dim);
    const double q_term = a.q_lora_rank > 0 ? d(a.q_lora_rank) * (h + heads * qk + 1) : h * heads * qk;
    attn = 6 * (q_term + d(a.kv_lora_rank) * (h + heads * d(a.qk_nope_head_dim + a.v_head_dim) + 1) +
                h * d(a.qk_rope_head_dim) + heads * v * h);
    core = 6 * (heads * qk / 2 + heads * v / 2);
  } else {
    const double q = d(m.q_dim()), kv = d(m.kv_dim());
    attn = 6 * (h * (q + 2 * kv) + q * h);
    core = 6 * q / 2 * 2;
  }
  double ffn = d(m.ffn) * ffn_expansion * dense_layers;
  if (m.moe) {
    const auto& e = *m.moe;
    ffn += (d(e.expert_ffn) * e.top_k + d(e.shared_ffn()) * e.shared_experts) * ffn_expansion * moe_layers;
  }
  const double tokens = global_batch * s;
  const double per_token = 6 * h * ffn + attn * layers + 6 * mtp * (3 * h + 2 * h * h) + 6 * h * V * (mtp + 1);
  return tokens * per_token + tokens * s * core * layers;
}

}  // namespace

units::Flops model_flops_per_step(const ModelSpec& m, double global_batch) {
  return units::Flops{model_flops(m, global_batch, AttentionCount::Full)};
}

units::Flops hardware_flops_per_step(const ModelSpec& m, const parallel::ParallelPlan& p) {
  const double gb = d(p.global_batch);
  double extra = 0;
  auto add = [&](int layer, int count) {
    if (count <= 0) return;
    const auto f = layer_forward_flops(m, layer, gb);
    if (p.recompute == parallel::Recompute::Full)
      extra += count * f.total();
    else if (per_op_checkpointing(m, p, layer))
      for (const LayerGemm& g : per_op_recomputed_gemms(m)) extra += count * 2 * gb * d(m.seq_len) * g.n * g.k;
    else if (p.recompute == parallel::Recompute::Selective)
      extra += count * f.attention;
  };
  for_each_layer_kind(m, 0, m.layers, add);
  if (m.mtp_layers > 0) add(m.layers, m.mtp_layers);
  return units::Flops{model_flops_per_step(m, gb).value + extra};
}

units::Flops flops_per_step(const ModelSpec& m, const parallel::ParallelPlan& p, scenario::FlopsConvention c) {
  const double gb = d(p.global_batch);
  switch (c) {
    case scenario::FlopsConvention::Model:
      return units::Flops{model_flops(m, gb, AttentionCount::Causal)};
    case scenario::FlopsConvention::ModelFullAttention:
      return model_flops_per_step(m, gb);
    case scenario::FlopsConvention::Hardware:
      return hardware_flops_per_step(m, p);
    case scenario::FlopsConvention::Megatron:
      return units::Flops{megatron_flops(m, gb)};
  }
  return model_flops_per_step(m, gb);
}

double convert_measured_flops(scenario::Scenario& s) {
  if (s.measured_as_stated.empty()) return 1;
  const double ours = flops_per_step(s.model, s.plan, scenario::kFlopcastFlopsConvention).value;
  const double theirs = flops_per_step(s.model, s.plan, s.flops_convention).value;
  const double factor = s.flops_convention == scenario::kFlopcastFlopsConvention || theirs <= 0 ? 1.0 : ours / theirs;
  for (const auto& [key, stated] : s.measured_as_stated) s.measured[key] = stated * factor;
  return factor;
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

namespace {

/// Layers of each of Megatron-LM's pp * vpp virtual stages under `layout`
/// (transformer_block.py, get_num_layers_to_build); empty when the layout does not add up.
std::vector<int> virtual_stage_layers(int layers, int pp, int vpp, const parallel::PipelineLayout& layout) {
  const int V = pp * vpp;
  std::vector<int> per_rank(static_cast<std::size_t>(pp), 0);
  if (layout.first_stage_layers > 0 || layout.last_stage_layers > 0) {
    int left = layers, ranks = pp;
    if (layout.first_stage_layers > 0) left -= layout.first_stage_layers, --ranks;
    if (layout.last_stage_layers > 0) left -= layout.last_stage_layers, --ranks;
    const int each = ranks > 0 ? left / ranks : 0;
    std::fill(per_rank.begin(), per_rank.end(), each);
    if (layout.first_stage_layers > 0) per_rank.front() = layout.first_stage_layers;
    if (layout.last_stage_layers > 0) per_rank.back() = layout.last_stage_layers;
  } else {
    const int units = layers + (layout.account_for_embedding ? 1 : 0) + (layout.account_for_loss ? 1 : 0);
    std::fill(per_rank.begin(), per_rank.end(), units / pp);
  }
  std::vector<int> vs(static_cast<std::size_t>(V), 0);
  for (int c = 0; c < vpp; ++c)
    for (int r = 0; r < pp; ++r) vs[static_cast<std::size_t>(c * pp + r)] = per_rank[static_cast<std::size_t>(r)] / vpp;
  if (layout.account_for_embedding) --vs.front();
  if (layout.account_for_loss) --vs.back();
  int sum = 0;
  for (const int n : vs) {
    if (n < 0) return {};
    sum += n;
  }
  if (sum != layers) return {};
  return vs;
}

/// [first, count) of each of `counts`' consecutive blocks.
std::vector<std::pair<int, int>> ranges_of(const std::vector<int>& counts) {
  std::vector<std::pair<int, int>> out;
  int first = 0;
  for (const int n : counts) {
    out.emplace_back(first, n);
    first += n;
  }
  return out;
}

}  // namespace

bool pipeline_layout_splits(int layers, int pp, int vpp, const parallel::PipelineLayout& layout) {
  if (pp < 2 || vpp < 1) return false;
  const bool uneven = layout.first_stage_layers > 0 || layout.last_stage_layers > 0;
  if (uneven && (layout.account_for_embedding || layout.account_for_loss)) return false;
  if (uneven) {
    int left = layers, ranks = pp;
    if (layout.first_stage_layers > 0) left -= layout.first_stage_layers, --ranks;
    if (layout.last_stage_layers > 0) left -= layout.last_stage_layers, --ranks;
    if (left < 0 || (ranks == 0 && left != 0) || (ranks > 0 && (left < ranks || left % ranks != 0))) return false;
    if (layout.first_stage_layers % vpp != 0 || layout.last_stage_layers % vpp != 0) return false;
    if (ranks > 0 && (left / ranks) % vpp != 0) return false;
  }
  return !virtual_stage_layers(layers, pp, vpp, layout).empty();
}

namespace {

/// layers_per_stage's split, one rank at a time: the remainder goes to the middle ranks first
/// (1, 2, ...), then the last, then the first. Layers on `rank`.
int even_split_layers(int layers, int pp, int rank) {
  if (pp == 1) return layers;
  const int base = layers / pp, extra = layers % pp;
  const int middles = std::min(extra, std::max(0, pp - 2));
  const int rest = extra - middles;
  if (rank == pp - 1) return base + (rest >= 1 ? 1 : 0);
  if (rank == 0) return base + (rest >= 2 ? 1 : 0);
  return base + (rank <= middles ? 1 : 0);
}

/// `out` as rank `rank`'s slice of the even split, its layers starting at `first`. With virtual
/// stages that divide the layers evenly, Megatron-core's interleaved placement instead: rank r
/// holds virtual stage v's r-th chunk of layers / (pp vpp) layers, at layer
/// v layers / vpp + r layers / (pp vpp), for each v (megatron/core/transformer/transformer_layer.py,
/// get_transformer_layer_offset). Layers of one kind cost the same wherever they sit; the two
/// differ where the kinds do (layers kept in BF16 at the ends of the model).
void even_split_stage(int layers, const parallel::ParallelPlan& p, int rank, int first, StageSlice& out) {
  const int pp = std::max(1, p.pp), vpp = std::max(1, p.vpp);
  if (vpp > 1 && layers % (pp * vpp) == 0) {
    const int chunk = layers / (pp * vpp);
    out.chunks.clear();
    out.chunks.reserve(static_cast<std::size_t>(vpp));
    for (int v = 0; v < vpp; ++v) out.chunks.emplace_back(v * (layers / vpp) + rank * chunk, chunk);
  } else {
    out.chunks.assign(1, {first, even_split_layers(layers, pp, rank)});
  }
  out.embedding = rank == 0;
  out.head = rank == pp - 1;
  out.pass_share = 1;
}

}  // namespace

std::vector<StageSlice> pipeline_stages(const ModelSpec& m, const parallel::ParallelPlan& p) {
  const int pp = std::max(1, p.pp);
  std::vector<StageSlice> out(static_cast<std::size_t>(pp));
  auto at = [&](int r) -> StageSlice& { return out[static_cast<std::size_t>(r)]; };
  if (p.schedule == parallel::Schedule::DualPipeV && pp > 1) {
    // A V of 2 pp virtual stages: down ranks 0 .. pp-1, back up pp-1 .. 0.
    const auto ranges = ranges_of(layers_per_stage(m.layers, 2 * pp));
    for (int r = 0; r < pp; ++r) {
      at(r).chunks = {ranges[static_cast<std::size_t>(r)], ranges[static_cast<std::size_t>(2 * pp - 1 - r)]};
    }
    at(0).embedding = at(0).head = true;
    return out;
  }
  if (p.schedule == parallel::Schedule::DualPipe && pp > 1) {
    // Two directions over the same pp stages: rank r is stage r of one and stage pp-1-r of the other.
    const auto ranges = ranges_of(layers_per_stage(m.layers, pp));
    for (int r = 0; r < pp; ++r) {
      at(r).chunks = {ranges[static_cast<std::size_t>(r)], ranges[static_cast<std::size_t>(pp - 1 - r)]};
      at(r).embedding = at(r).head = r == 0 || r == pp - 1;
      at(r).pass_share = 0.5;
    }
    return out;
  }
  std::vector<int> vs;
  const int vpp = std::max(1, p.vpp);
  if (p.pipeline_layout && pp > 1) vs = virtual_stage_layers(m.layers, pp, vpp, *p.pipeline_layout);
  if (!vs.empty()) {
    const auto ranges = ranges_of(vs);
    for (int c = 0; c < vpp; ++c)
      for (int r = 0; r < pp; ++r) at(r).chunks.push_back(ranges[static_cast<std::size_t>(c * pp + r)]);
  } else {
    int first = 0;
    for (int r = 0; r < pp; ++r) {
      even_split_stage(m.layers, p, r, first, at(r));
      first += even_split_layers(m.layers, pp, r);
    }
  }
  at(0).embedding = true;
  at(pp - 1).head = true;
  return out;
}

StageSlice pipeline_stage(const ModelSpec& m, const parallel::ParallelPlan& p, int rank) {
  const int pp = std::max(1, p.pp);
  if (rank < 0 || rank >= pp) return {};
  if ((parallel::is_dual_pipe(p.schedule) || p.pipeline_layout) && pp > 1)
    return pipeline_stages(m, p)[static_cast<std::size_t>(rank)];
  int first = 0;
  for (int r = 0; r < rank; ++r) first += even_split_layers(m.layers, pp, r);
  StageSlice out;
  even_split_stage(m.layers, p, rank, first, out);
  return out;
}

void for_each_pipeline_stage(const ModelSpec& m, const parallel::ParallelPlan& p,
                             const std::function<void(std::size_t rank, const StageSlice& slice)>& fn) {
  const int pp = std::max(1, p.pp);
  if ((parallel::is_dual_pipe(p.schedule) || p.pipeline_layout) && pp > 1) {
    const auto slices = pipeline_stages(m, p);
    for (std::size_t r = 0; r < slices.size(); ++r) fn(r, slices[r]);
    return;
  }
  StageSlice slice;
  int first = 0;
  for (int r = 0; r < pp; ++r) {
    even_split_stage(m.layers, p, r, first, slice);
    fn(static_cast<std::size_t>(r), slice);
    first += even_split_layers(m.layers, pp, r);
  }
}

StateBytes state_bytes(hardware::Precision p) {
  switch (p) {
    case hardware::Precision::FP32:
    case hardware::Precision::TF32:
      // fp32 weights and gradients, Adam's two fp32 moments (no separate master copy).
      return {4, 4, 8};
    case hardware::Precision::FP16:
      // Megatron-LM fp16: gradients in the parameters' dtype (--accumulate-allreduce-grads-in-fp32
      // is off unless asked for), fp32 master weights and moments (ZeRO, arXiv 1910.02054 §3: 16 B).
      return {2, 2, 12};
    default:
      // bf16 parameters (also under FP8 compute): Megatron-LM sets accumulate_allreduce_grads_in_fp32
      // for bf16 (megatron/training/arguments.py), so gradients accumulate in an fp32 main_grad
      // buffer: theoretical_memory_usage.py counts 18 B per parameter, 6 + 12/d with the
      // distributed optimizer.
      return {2, 4, 12};
  }
}

double grad_bytes(hardware::Precision p, scenario::GradReduce g) {
  if (p == hardware::Precision::FP32 || p == hardware::Precision::TF32) return 4;  // fp32 parameters: fp32 gradients
  switch (g) {
    case scenario::GradReduce::FP32:
      return 4;
    case scenario::GradReduce::Half:
      // Megatron-LM --grad-reduce-in-bf16 (megatron/training/arguments.py turns
      // accumulate_allreduce_grads_in_fp32 off) or fp16 training without
      // --accumulate-allreduce-grads-in-fp32: the grad buffer is in the parameters' dtype
      // (megatron/core/distributed/param_and_grad_buffer.py, grad_dtype).
      return 2;
    case scenario::GradReduce::Default:
      break;
  }
  return state_bytes(p).gradients;
}

StateBytes state_bytes(hardware::Precision p, scenario::GradReduce g) {
  StateBytes b = state_bytes(p);
  b.gradients = grad_bytes(p, g);
  return b;
}

double fp8_weight_copy_bytes(hardware::Precision p) {
  // Transformer Engine caches the quantized weight of each FP8 GEMM across the micro-batches of
  // a step (transformer_engine/pytorch/module/linear.py, `is_first_microbatch`: "allows caching
  // of the FP8 versions of the weights"), in the two layouts forward and backward read: on
  // Hopper the FP8 weight and its transpose (FP8 GEMMs take TN operands only); on Blackwell
  // the row-wise and column-wise block-scaled copies, each with its scales (MXFP8: one E8M0 byte
  // per 32 elements; NVFP4: one FP8 byte per 16 elements).
  switch (p) {
    case hardware::Precision::FP8:
      return 2.0;
    case hardware::Precision::MXFP8:
      return 2.0 * (1.0 + 1.0 / 32);
    case hardware::Precision::NVFP4:
      return 2.0 * (0.5 + 1.0 / 16);
    default:
      return 0.0;
  }
}

hardware::Precision layer_precision(const scenario::Scenario& s, int layer) {
  return kept_in_bf16(s, layer) ? hardware::Precision::BF16 : s.precision;
}

bool per_op_checkpointing(const ModelSpec& m, const parallel::ParallelPlan& p, int layer) {
  return p.recompute == parallel::Recompute::Selective && p.fsdp.has_value() && !m.mla && !m.is_moe_layer(layer);
}

std::array<LayerGemm, 3> per_op_recomputed_gemms(const ModelSpec& m) {
  const double h = d(m.hidden), f = d(m.ffn);
  const LayerGemm ffn = m.ffn_matrices() == 3 ? LayerGemm{f, h, true} : LayerGemm{h, f, false};
  return {LayerGemm{d(m.kv_dim()), h, true}, LayerGemm{h, d(m.attn_out_dim()), false}, ffn};
}

units::Bytes layer_activation_bytes(const ModelSpec& m, const parallel::ParallelPlan& p, int layer,
                                    hardware::Precision prec) {
  // Korthikanti et al. 2022 (arXiv 2205.05198) Table 2 and §4, per layer in units of s*b*h bytes
  // with 16-bit activations, generalised to GQA, wide heads, SwiGLU, MoE and FP8. s is the
  // local sequence (seq_len / cp, Megatron's context parallelism splits every activation).
  const double s = d(m.seq_len) / p.cp, b = d(p.micro_batch), h = d(m.hidden), t = p.tp;
  const double sbh = s * b * h;
  const double elt = hardware::bytes_per_element(prec) >= 2 ? hardware::bytes_per_element(prec) / 2.0 : 1.0;
  const double sp = p.sequence_parallel ? t : 1.0;
  if (p.recompute == parallel::Recompute::Full) {
    // Only the layer input is kept (2sbh, split by t under sequence parallelism).
    return units::Bytes{2 * sbh * elt / sp};
  }
  if (per_op_checkpointing(m, p, layer)) {
    // torchtitan's per-op policy keeps the block's input (the checkpoint's argument) and the
    // outputs it saves: Q and V (the 1st and 3rd mm), the FFN's first GEMM (5th) and, with
    // SwiGLU, its last (7th: the block's FFN output, sequence-sharded under TP as torchtitan's
    // RowwiseParallel w2 returns it), and attention's output with its log-sum-exp (FP32 per
    // query head). The rest (norms, rotary, the activation, K, the output projection, SwiGLU's
    // up GEMM) is recomputed.
    const double q = d(m.q_dim()) / h, kv = d(m.kv_dim()) / h, o = d(m.attn_out_dim()) / h, f = d(m.ffn) / h;
    const double last = m.ffn_matrices() == 3 ? 2.0 : 0.0;
    return units::Bytes{((2 + last) / sp + (2 * q + 2 * kv + 2 * f + 2 * o + 4 * d(m.heads) / h) / t) * sbh * elt};
  }
  // FP8 GEMMs save their quantized inputs for the weight gradient (Transformer Engine
  // module/linear.py and layernorm_mlp.py save the FP8 input): 1 byte instead of 2.
  const double g = hardware::bytes_per_element(prec) < 2 ? 0.5 : 1.0;
  const double q = d(m.q_dim()) / h, kv = d(m.kv_dim()) / h, v = d(m.v_dim()) / h, o = d(m.attn_out_dim()) / h;
  // Replicated over TP (split by t under sequence parallelism): the two norms' inputs (2 + 2),
  // the QKV and FC1 inputs (the norms' outputs, 2 + 2), and with dropout its two 1-byte masks.
  double replicated = 4 + 4 * g + (m.dropout ? 2.0 : 0.0);
  if (m.mla) {
    // MLA's latents, computed whole on every TP rank (Megatron-core's down projections are
    // "duplicated" linears): the query latent (its RMSNorm's input, 2 q_lora) and normed
    // (the up projection's input, 2 q_lora), the kv down projection's output with the rope key
    // (2 (kv_lora + rope)) and the normed kv latent (the kv up projection's input, 2 kv_lora).
    const auto& a = *m.mla;
    const double ql = d(a.q_lora_rank) / h, kl = d(a.kv_lora_rank) / h, rope = d(a.qk_rope_head_dim) / h;
    replicated += (2 + 2 * g) * ql + 2 * (kl + rope) + 2 * g * kl;
  }
  // Split by TP: Q, K, V kept by attention (2q + 2kv + 2v; MLA: heads x (qk_nope + qk_rope) for
  // queries and keys, heads x v_head_dim for values), the projection's input (2o, o = heads x
  // v_head_dim), and the MLP: GeLU keeps FC1's output and FC2's input (2f + 2f: Korthikanti's 16
  // for f = 4h); SwiGLU FC1's 2f-wide output and FC2's input (4f + 2f; Megatron-core's fused SwiGLU
  // and TE's LayerNormMLP keep the pre-activation, not the gate and up halves apart).
  const double fc1_out = m.ffn_matrices() == 3 ? 4.0 : 2.0;
  auto mlp = [&](double ffn) { return (fc1_out + 2 * g) * ffn / h; };
  double split = 2 * q + 2 * kv + 2 * v + 2 * o * g;
  if (m.is_moe_layer(layer)) {
    const auto& e = *m.moe;
    // Routed tokens: each GPU holds T * top_k * etp / tp of them (MoE parallel folding), with
    // their permuted copies as the experts' FC1 inputs; shared experts read the norm's output.
    const double routed = e.top_k * static_cast<double>(p.expert_tp());
    split += 2 * g * routed + mlp(d(e.expert_ffn)) * e.top_k + mlp(d(e.shared_ffn())) * e.shared_experts;
  } else {
    split += mlp(d(m.ffn));
  }
  double units = replicated / sp + split / t;
  if (!p.flash_attention && p.recompute != parallel::Recompute::Selective) {
    // Unfused attention keeps the softmax output (2 bytes) and, with dropout, its mask (1) and
    // output (2) per score: 5 a s / h in s*b*h units (Korthikanti Table 2), split by TP.
    units += (m.dropout ? 5.0 : 2.0) * m.heads * s / h / t;
  }
  return units::Bytes{units * sbh * elt};
}

double in_flight_microbatches(const parallel::ParallelPlan& p, int stage) {
  const double micro = static_cast<double>(std::max<std::int64_t>(1, p.microbatches()));
  if (p.pp <= 1) return 1;
  switch (p.schedule) {
    case parallel::Schedule::GPipe:
      return micro;
    case parallel::Schedule::OneFOneB:
    case parallel::Schedule::ZeroBubble:
      // PipeDream-Flush: stage r runs p - r - 1 warm-up forwards, then one more before its
      // first backward (Narayanan et al. 2021 §2.2).
      return std::min(micro, static_cast<double>(p.pp - stage));
    case parallel::Schedule::Interleaved: {
      // Megatron-core's interleaved 1F1B (pipeline_parallel/schedules.py,
      // forward_backward_pipelining_with_interleaving): (p - r - 1) * 2 + (v - 1) * p warm-up
      // chunk forwards, then one more, each chunk 1/v of the stage's layers.
      const double v = std::max(1, p.vpp);
      const double chunks = std::min(micro * v, (p.pp - stage - 1) * 2.0 + (v - 1) * p.pp + 1);
      return chunks / v;
    }
    case parallel::Schedule::DualPipe:
      // deepseek-ai/DualPipe README: activations of PP + 1 stages' micro-batches per device, PP =
      // pp stages; the rank holds two of them (each micro-batch of either direction is one).
      return std::min(micro, p.pp + 1.0) / 2;
    case parallel::Schedule::DualPipeV:
      // The same README: PP + 1 with PP = 2 pp half-size stages, the rank holding two of them;
      // each micro-batch passes the rank twice.
      return std::min(2 * micro, 2.0 * p.pp + 1) / 2;
  }
  return 1;
}

namespace {

/// Parameters of one stage's GPU: the dense part (split by TP) and the routed experts (split by
/// etp x ep), and of those the GEMM weights of the layers that run the scenario's precision (every
/// linear layer; not embeddings, head, norms, router; not the layers kept in BF16, kept_in_bf16):
/// those an 8- or 4-bit recipe keeps low-precision copies of.
struct StageParams {
  double dense = 0, experts = 0, gemm = 0;
};

StageParams stage_params(const scenario::Scenario& s, const StageSlice& slice) {
  const auto& m = s.model;
  const auto& p = s.plan;
  const auto pc = parameter_count(m);
  const double h = d(m.hidden);
  const double attention_gemm = attention_gemm_weights(m);
  StageParams sp;
  double kept_experts = 0;
  auto add = [&](int layer, int n, int kind) {
    const bool kept = kind_kept_in_bf16(kind);
    const double low = kept ? 0.0 : 1.0;  // GEMM weights with low-precision copies
    if (m.is_moe_layer(layer)) {
      const auto& e = *m.moe;
      sp.dense += n * pc.moe_layer_shared;
      sp.experts += n * e.experts * pc.moe_expert;
      if (kept) kept_experts += n * e.experts * pc.moe_expert;
      sp.gemm += low * n * (attention_gemm + e.shared_experts * m.ffn_matrices() * h * d(e.shared_ffn()));
    } else {
      sp.dense += n * pc.dense_layer;
      sp.gemm += low * n * (attention_gemm + m.ffn_matrices() * h * d(m.ffn));
    }
  };
  for_each_layer_kind_and_precision(s, slice.chunks, add);
  if (slice.head && m.mtp_layers > 0) {                    // the MTP modules: their layers, projections and norms
    add(m.layers, m.mtp_layers, layer_kind(m, m.layers));  // an MTP module keeps the run's precision
    sp.dense += m.mtp_layers * mtp_module_extra_params(m);
    sp.gemm += m.mtp_layers * 2 * h * h;
  }
  if (slice.embedding) sp.dense += pc.embedding;
  // A tied output head is a copy of the embedding on a rank that does not hold the embedding.
  if (slice.head)
    sp.dense += (m.tied_embeddings ? (slice.embedding ? 0.0 : d(m.vocab) * h) : pc.output_head) + pc.final_norm;
  const double expert_split = static_cast<double>(p.expert_tp()) * p.ep;
  sp.dense /= p.tp;
  sp.gemm /= p.tp;
  sp.experts /= expert_split;
  sp.gemm += sp.experts - kept_experts / expert_split;
  return sp;
}

/// NCCL's buffers for the communicators a GPU of the plan uses (TP, CP, DP x CP, expert DP,
/// EP, PP neighbours). Per ring channel NCCL connects to two peers and gives each connection
/// a buffer per protocol: Simple 4 MiB, LL128 4,915,200 B, LL 512 KiB (src/init.cc
/// DEFAULT_BUFFSIZE, DEFAULT_LL128_BUFFSIZE, DEFAULT_LL_BUFFSIZE); memory grows with the
/// channels and not with the ranks (sjeaugey in NVIDIA/nccl#986). The channels are those NCCL's
/// topology search finds for the group's ring (nccl_tuning.hpp, search_ring_graph).
units::Bytes nccl_buffers(const scenario::Scenario& s) {
  constexpr double kPerConnection = 4194304.0 + 4915200.0 + 524288.0;
  const auto& p = s.plan;
  const auto& g = s.cluster.gpu;
  const std::int64_t gpn = std::max(1, s.cluster.gpus_per_node);
  const double nvlink = g.nccl_nvlink.bytes_per_s / 1e9;
  const double nic = s.cluster.fabric.nic_gbps / 8;
  const int nics = std::max(1, s.cluster.fabric.nics_per_node);
  // A group of `ranks` whose members are `stride` ranks apart (Megatron order tp-cp-dp-pp).
  auto group = [&](std::int64_t ranks, std::int64_t stride) {
    if (ranks <= 1) return 0.0;
    const std::int64_t local = stride < gpn ? std::min(ranks, std::max<std::int64_t>(1, gpn / stride)) : 1;
    const std::int64_t nodes = (ranks + local - 1) / local;
    const int local_nics = std::max(1, static_cast<int>(nics * local / gpn));
    const auto ring = comm::nccl::search_ring_graph(g.arch, local, nodes, nvlink > 0 ? nvlink : 24.0,
                                                    nvlink > 0 ? nvlink : 24.0, nic, local_nics);
    return std::max(1, ring.channels) * 2 * kPerConnection;
  };
  const std::int64_t tp = p.tp, cp = p.cp, dp = p.dp;
  double bytes = group(tp, 1) + group(cp, tp) + group(dp * cp, tp);
  if (s.model.moe)  // the expert layers' own groups (Megatron-core creates them for MoE models)
    bytes += group(p.ep, p.expert_tp()) + group(p.expert_dp(), static_cast<std::int64_t>(p.expert_tp()) * p.ep);
  if (p.pp > 1) bytes += group(2, tp * cp * dp);  // send/recv with the neighbouring stages
  return units::Bytes{bytes};
}

}  // namespace

double stage_gemm_parameters(const scenario::Scenario& s, int stage) {
  if (stage < 0 || stage >= std::max(1, s.plan.pp)) return 0;
  return stage_params(s, pipeline_stage(s.model, s.plan, stage)).gemm;
}

namespace {

/// The largest layer this GPU gathers whole under ZeRO-3 / FSDP (its TP / EP shard), parameters.
double largest_layer(const ModelSpec& m, const parallel::ParallelPlan& p, const StageSlice& slice) {
  const auto pc = parameter_count(m);
  double largest = 0;
  auto consider = [&](int l, int) {
    const double layer =
        m.is_moe_layer(l)
            ? pc.moe_layer_shared / p.tp + m.moe->experts * pc.moe_expert / (static_cast<double>(p.expert_tp()) * p.ep)
            : pc.dense_layer / p.tp;
    largest = std::max(largest, layer);
  };
  for (const auto& [first, n] : slice.chunks) for_each_layer_kind(m, first, n, consider);
  return largest;
}

/// Weights and gradients ZeRO-3 / FSDP gathers beyond the shards, into `mb`.
/// - ZeRO-3 (DeepSpeed, Megatron FSDP): the current and the prefetched layer, whole, at the
///   weights' bytes.
/// - FSDP2 (torch fully_shard, torchtitan): the sharded parameters stay fp32 and carry their fp32
///   gradients, Adam's two moments beside them (MixedPrecisionPolicy: only the unsharded copies
///   take param_dtype; torch.distributed.fsdp docs): 4 + 4 + 8 B per parameter over the shard. The
///   unsharded layers are gathered in bf16 (1 B per GEMM weight with torchtitan's float8
///   all-gather, fp8_params), one layer ahead: two layers with reshard_after_forward, every layer
///   of the stage from its forward to its backward without; in backward the layer's unsharded
///   gradient (bf16) and its fp32 copy for the reduce-scatter (reduce_dtype float32) are live.
void gathered_layers(const scenario::Scenario& s, const StageSlice& slice, const StageParams& params, double shard,
                     double expert_shard, MemoryBreakdown& mb) {
  const auto& m = s.model;
  const auto& p = s.plan;
  const int nlayers = slice.layers();
  const double largest = largest_layer(m, p, slice);
  if (!p.fsdp || is_fine_tuning(s)) {
    const double gathered = is_fine_tuning(s) ? base_weight_bytes(s.training.lora.base_weights)
                                              : state_bytes(s.precision, s.grad_reduce).weights;
    mb.weights += units::Bytes{2.0 * gathered * largest};
    return;
  }
  const double per_shard = params.dense / shard + params.experts / expert_shard;
  mb.weights = units::Bytes{4.0 * per_shard};
  mb.gradients = units::Bytes{4.0 * per_shard};
  mb.optimizer = units::Bytes{8.0 * per_shard};
  const double stage = params.dense + params.experts;
  const double gemm_share = stage > 0 ? std::clamp(params.gemm / stage, 0.0, 1.0) : 0.0;
  const double gather_bytes = s.fp8_params ? gemm_share * 1.0 + (1 - gemm_share) * 2.0 : 2.0;
  const double layers_held = p.fsdp->reshard_after_forward ? std::min(2, nlayers) : nlayers;
  mb.weights += units::Bytes{gather_bytes * layers_held * largest};
  const double reduce = grad_bytes(s.precision, s.grad_reduce) >= 4 ? 4.0 : 0.0;
  mb.gradients += units::Bytes{(2.0 + reduce) * largest};
}

/// Bytes an MTP module keeps for backward beyond its layer's: the inputs of its two RMSNorms
/// (the previous depth's hidden state and the shifted tokens' embedding, 2 + 2 in s*b*h units)
/// and the projection's 2h-wide input (4), replicated over TP (split by SP).
double mtp_extra_activation_units(const parallel::ParallelPlan& p, hardware::Precision prec) {
  const double g = hardware::bytes_per_element(prec) < 2 ? 0.5 : 1.0;
  return (4 + 4 * g) / (p.sequence_parallel ? p.tp : 1.0);
}

}  // namespace

MemoryBreakdown memory_of_stage(const scenario::Scenario& s, const compute::ComputeProfile& profile, int stage) {
  const auto& m = s.model;
  const auto& p = s.plan;
  const StageSlice slice = pipeline_stage(m, p, stage);
  const int nlayers = slice.layers();
  const StageParams params = stage_params(s, slice);

  // ZeRO stages (arXiv 1910.02054 §5): 1 shards the optimizer state, 2 also the gradients, 3
  // also the weights, over the data-parallel group; Megatron's distributed optimizer (ZeRO-1)
  // shards over DP x CP (parallel_state.py, the data-parallel group with context parallelism),
  // routed experts over their expert-data-parallel group.
  const StateBytes bytes = state_bytes(s.precision, s.grad_reduce);
  const double shard = static_cast<double>(p.dp) * p.cp;
  const double expert_shard = static_cast<double>(p.expert_dp());
  const double dense = params.dense, experts = params.experts;
  auto sharded = [&](double bytes_per_param, bool on) {
    return on ? dense * bytes_per_param / shard + experts * bytes_per_param / expert_shard
              : (dense + experts) * bytes_per_param;
  };
  MemoryBreakdown mb;
  mb.stage = stage;
  mb.capacity = s.cluster.gpu.hbm;
  mb.weights = units::Bytes{sharded(bytes.weights, p.zero >= 3)};
  mb.gradients = units::Bytes{sharded(bytes.gradients, p.zero >= 2)};
  mb.optimizer = units::Bytes{sharded(bytes.optimizer, p.zero >= 1)};
  // LoRA / QLoRA: frozen base weights, adapter states only (fine_tuning.cpp).
  if (is_fine_tuning(s)) apply_fine_tuning_memory(s, slice, {dense, experts, params.gemm}, shard, expert_shard, mb);
  if (p.zero >= 3 && nlayers > 0) {
    gathered_layers(s, slice, params, shard, expert_shard, mb);
  } else {
    mb.weight_copies = units::Bytes{params.gemm * fp8_weight_copy_bytes(s.precision)};
    mb.weights += mb.weight_copies;
    // FP8 parameters keep no 16-bit GEMM weights beside their FP8 copies.
    if (s.fp8_params) mb.weights = units::Bytes{mb.weights.value - params.gemm * bytes.weights};
  }

  mb.in_flight = in_flight_microbatches(p, stage);
  double act = 0;
  auto add = [&](int layer, int n, int) {
    act += n * layer_activation_bytes(m, p, layer, layer_precision(s, layer)).value;
    if (is_fine_tuning(s) &&
        p.recompute != parallel::Recompute::Full)  // adapters: r-wide intermediates, dropout copies
      act += n * adapter_activation_bytes(s, layer).value;
  };
  for_each_layer_kind_and_precision(s, slice.chunks, add);
  const double sb = d(m.seq_len) / p.cp * d(p.micro_batch);
  if (slice.head && m.mtp_layers > 0) {
    add(m.layers, m.mtp_layers, layer_kind(m, m.layers));
    if (p.recompute != parallel::Recompute::Full)
      act += m.mtp_layers * mtp_extra_activation_units(p, s.precision) * sb * d(m.hidden);
  }
  // The first stage's embedding dropout keeps a 1-byte mask per element of its output
  // (Megatron theoretical_memory_usage.py: s*b*h*pp).
  if (slice.embedding && m.dropout) act += sb * d(m.hidden) / (p.sequence_parallel ? p.tp : 1.0);
  act *= mb.in_flight;
  if (p.recompute == parallel::Recompute::Full && nlayers > 0) {
    // Backward recomputes one layer at a time: its full activations are live once (a layer kept
    // in BF16 saves 16-bit GEMM inputs, the largest).
    parallel::ParallelPlan none = p;
    none.recompute = parallel::Recompute::None;
    const int first = slice.chunks.front().first;
    double largest = layer_activation_bytes(m, none, first, layer_precision(s, first)).value;
    if (s.bf16_layers.first > 0 || s.bf16_layers.last > 0)
      for_each_layer_kind_and_precision(s, slice.chunks, [&](int layer, int, int kind) {
        if (kind_kept_in_bf16(kind))
          largest = std::max(largest, layer_activation_bytes(m, none, layer, hardware::Precision::BF16).value);
      });
    act += largest;
  }
  mb.activations = units::Bytes{act};
  if (slice.head) {
    // fp32 logits and their gradient for one micro-batch, split over TP (Megatron
    // theoretical_memory_usage.py: 4*s*b*h*(1+V/h)/t), and as much again for each MTP module's
    // logits through the shared head (each depth's loss is computed in the same forward).
    // Under FSDP2 the loss is torchtitan's (torchtitan/components/loss.py, cross_entropy_loss:
    // `cross_entropy(pred.flatten(0, 1).float(), ...)`): at the end of the forward the 16-bit
    // logits (2 B), their FP32 copy (4 B) and log_softmax's FP32 output, kept for the backward
    // (4 B), are live together: 10 B per token and vocabulary entry, vocabulary-sharded over TP
    // (loss_parallel).
    const double per_vocab = p.fsdp ? 10.0 : 4.0;
    mb.logits = units::Bytes{(1 + m.mtp_layers) * sb * (4.0 * d(m.hidden) + per_vocab * d(m.vocab)) / p.tp};
  }
  mb.nccl = nccl_buffers(s);
  mb.workspace = units::gib(profile.workspace_gib) + mb.nccl;
  // The caching allocator's slack: it rounds requests and splits cached blocks, and blocks of
  // different segments never merge (PyTorch documentation, "CUDA semantics: memory management").
  // An allowance from the profile, not a measured figure (docs/calibration.md).
  const double tensors = (mb.weights + mb.gradients + mb.optimizer + mb.activations + mb.logits).value;
  mb.fragmentation = units::Bytes{tensors * profile.fragmentation};
  return mb;
}

units::Bytes memory_of_kind(const MemoryBreakdown& m, scenario::MemoryKind kind) {
  return kind == scenario::MemoryKind::Allocated ? m.allocated() : m.reserved();
}

MemoryBreakdown memory_per_gpu(const scenario::Scenario& s, const compute::ComputeProfile& profile) {
  MemoryBreakdown worst = memory_of_stage(s, profile, 0);
  for (int st = 1; st < s.plan.pp; ++st) {
    // Middle stages hold fewer in-flight micro-batches; only the first few and the last can be worst.
    if (st > 2 && st < s.plan.pp - 1) continue;
    auto mb = memory_of_stage(s, profile, st);
    if (mb.total().value > worst.total().value) worst = mb;
  }
  return worst;
}

}  // namespace flopcast::workload

#include "flopcast/workload/workload.hpp"

#include <algorithm>
#include <cmath>

#include "flopcast/comm/nccl_tuning.hpp"
#include "flopcast/workload/fine_tuning.hpp"

namespace flopcast {
namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

/// Parameters of attention + norms of one layer. Q is h x q and the output projection q x h,
/// q = heads x head_dim (= h unless head_dim is set wider, as Qwen3's kv_channels).
double attention_params(const ModelSpec& m) {
  const double h = d(m.hidden), q = d(m.q_dim()), kv = d(m.kv_dim());
  double p = h * q + 2 * h * kv + q * h;  // Q, K, V, output projection
  if (m.bias) p += q + 2 * kv + h;
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
  const double h = d(m.hidden), q = d(m.q_dim()), kv = d(m.kv_dim()), s = d(m.seq_len);
  LayerFlops f;
  f.qkv = 2 * T * h * (q + 2 * kv);
  // QK^T and attention-over-values, each 2*T*s*q (q = h unless head_dim is wider); the full
  // s^2 term (Megatron/PaLM model FLOPs).
  f.attention = 4 * T * s * q;
  f.out_proj = 2 * T * q * h;
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

StateBytes state_bytes(Precision p) {
  switch (p) {
    case Precision::FP32:
    case Precision::TF32:
      // fp32 weights and gradients, Adam's two fp32 moments (no separate master copy).
      return {4, 4, 8};
    case Precision::FP16:
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

double grad_bytes(Precision p, GradReduce g) {
  if (p == Precision::FP32 || p == Precision::TF32) return 4;  // fp32 parameters: fp32 gradients
  switch (g) {
    case GradReduce::FP32:
      return 4;
    case GradReduce::Half:
      // Megatron-LM --grad-reduce-in-bf16 (megatron/training/arguments.py turns
      // accumulate_allreduce_grads_in_fp32 off) or fp16 training without
      // --accumulate-allreduce-grads-in-fp32: the grad buffer is in the parameters' dtype
      // (megatron/core/distributed/param_and_grad_buffer.py, grad_dtype).
      return 2;
    case GradReduce::Default:
      break;
  }
  return state_bytes(p).gradients;
}

StateBytes state_bytes(Precision p, GradReduce g) {
  StateBytes b = state_bytes(p);
  b.gradients = grad_bytes(p, g);
  return b;
}

double fp8_weight_copy_bytes(Precision p) {
  // Transformer Engine caches the quantized weight of each FP8 GEMM across the micro-batches of
  // a step (transformer_engine/pytorch/module/linear.py, `is_first_microbatch`: "allows caching
  // of the FP8 versions of the weights"), in the two layouts forward and backward read: on
  // Hopper the FP8 weight and its transpose (FP8 GEMMs take TN operands only); on Blackwell
  // the row-wise and column-wise block-scaled copies, each with its scales (MXFP8: one E8M0 byte
  // per 32 elements; NVFP4: one FP8 byte per 16 elements).
  switch (p) {
    case Precision::FP8:
      return 2.0;
    case Precision::MXFP8:
      return 2.0 * (1.0 + 1.0 / 32);
    case Precision::NVFP4:
      return 2.0 * (0.5 + 1.0 / 16);
    default:
      return 0.0;
  }
}

Bytes layer_activation_bytes(const ModelSpec& m, const ParallelPlan& p, int layer, Precision prec) {
  // Korthikanti et al. 2022 (arXiv 2205.05198) Table 2 and §4, per layer in units of s*b*h bytes
  // with 16-bit activations, generalised to GQA, wide heads, SwiGLU, MoE and FP8. s is the
  // local sequence (seq_len / cp, Megatron's context parallelism splits every activation).
  const double s = d(m.seq_len) / p.cp, b = d(p.micro_batch), h = d(m.hidden), t = p.tp;
  const double sbh = s * b * h;
  const double elt = bytes_per_element(prec) >= 2 ? bytes_per_element(prec) / 2.0 : 1.0;
  const double sp = p.sequence_parallel ? t : 1.0;
  if (p.recompute == Recompute::Full) {
    // Only the layer input is kept (2sbh, split by t under sequence parallelism).
    return Bytes{2 * sbh * elt / sp};
  }
  // FP8 GEMMs save their quantized inputs for the weight gradient (Transformer Engine
  // module/linear.py and layernorm_mlp.py save the FP8 input): 1 byte instead of 2.
  const double g = bytes_per_element(prec) < 2 ? 0.5 : 1.0;
  const double q = d(m.q_dim()) / h, kv = d(m.kv_dim()) / h;
  // Replicated over TP (split by t under sequence parallelism): the two norms' inputs (2 + 2),
  // the QKV and FC1 inputs (the norms' outputs, 2 + 2), and with dropout its two 1-byte masks.
  double replicated = 4 + 4 * g + (m.dropout ? 2.0 : 0.0);
  // Split by TP: Q, K, V kept by attention (2q + 2kv + 2kv), the projection's input (2q), and the
  // MLP: GeLU keeps FC1's output and FC2's input (2f + 2f: Korthikanti's 16 for f = 4h); SwiGLU
  // FC1's 2f-wide output and FC2's input (4f + 2f; Megatron-core's fused SwiGLU and TE's
  // LayerNormMLP keep the pre-activation, not the gate and up halves apart).
  const double fc1_out = m.ffn_matrices() == 3 ? 4.0 : 2.0;
  auto mlp = [&](double ffn) { return (fc1_out + 2 * g) * ffn / h; };
  double split = 2 * q + 4 * kv + 2 * q * g;
  if (m.is_moe_layer(layer)) {
    const auto& e = *m.moe;
    // Routed tokens: each GPU holds T * top_k * etp / tp of them (MoE parallel folding), with
    // their permuted copies as the experts' FC1 inputs; shared experts read the norm's output.
    const double routed = e.top_k * static_cast<double>(p.expert_tp());
    split += 2 * g * routed + mlp(d(e.expert_ffn)) * e.top_k + mlp(d(e.expert_ffn)) * e.shared_experts;
  } else {
    split += mlp(d(m.ffn));
  }
  double units = replicated / sp + split / t;
  if (!p.flash_attention && p.recompute != Recompute::Selective) {
    // Unfused attention keeps the softmax output (2 bytes) and, with dropout, its mask (1) and
    // output (2) per score: 5 a s / h in s*b*h units (Korthikanti Table 2), split by TP.
    units += (m.dropout ? 5.0 : 2.0) * m.heads * s / h / t;
  }
  return Bytes{units * sbh * elt};
}

double in_flight_microbatches(const ParallelPlan& p, int stage) {
  const double micro = static_cast<double>(std::max<std::int64_t>(1, p.microbatches()));
  if (p.pp <= 1) return 1;
  switch (p.schedule) {
    case Schedule::GPipe:
      return micro;
    case Schedule::OneFOneB:
    case Schedule::ZeroBubble:
      // PipeDream-Flush: stage r runs p - r - 1 warm-up forwards, then one more before its
      // first backward (Narayanan et al. 2021 §2.2).
      return std::min(micro, static_cast<double>(p.pp - stage));
    case Schedule::Interleaved: {
      // Megatron-core's interleaved 1F1B (pipeline_parallel/schedules.py,
      // forward_backward_pipelining_with_interleaving): (p - r - 1) * 2 + (v - 1) * p warm-up
      // chunk forwards, then one more, each chunk 1/v of the stage's layers.
      const double v = std::max(1, p.vpp);
      const double chunks = std::min(micro * v, (p.pp - stage - 1) * 2.0 + (v - 1) * p.pp + 1);
      return chunks / v;
    }
  }
  return 1;
}

namespace {

/// Parameters of one stage's GPU: the dense part (split by TP) and the routed experts (split by
/// etp x ep), and of those the GEMM weights (every linear layer; not embeddings, head, norms, router).
struct StageParams {
  double dense = 0, experts = 0, gemm = 0;
};

StageParams stage_params(const ModelSpec& m, const ParallelPlan& p, int first_layer, int nlayers, bool first,
                         bool last) {
  const auto pc = parameter_count(m);
  const double h = d(m.hidden);
  const double attention_gemm = h * d(m.q_dim()) + 2 * h * d(m.kv_dim()) + d(m.q_dim()) * h;
  const int moe_here = moe_layers_in(m, first_layer, nlayers);
  StageParams sp;
  sp.dense = (nlayers - moe_here) * pc.dense_layer;
  sp.gemm = nlayers * attention_gemm + (nlayers - moe_here) * m.ffn_matrices() * h * d(m.ffn);
  if (moe_here > 0) {
    sp.dense += moe_here * pc.moe_layer_shared;
    sp.experts = moe_here * m.moe->experts * pc.moe_expert;
    sp.gemm += moe_here * m.moe->shared_experts * m.ffn_matrices() * h * d(m.moe->expert_ffn);
  }
  if (first) sp.dense += pc.embedding;
  if (last) sp.dense += (m.tied_embeddings ? (p.pp > 1 ? d(m.vocab) * h : 0.0) : pc.output_head) + pc.final_norm;
  sp.dense /= p.tp;
  sp.gemm /= p.tp;
  sp.experts /= static_cast<double>(p.expert_tp()) * p.ep;
  sp.gemm += sp.experts;
  return sp;
}

/// NCCL's buffers for the communicators a GPU of the plan uses (TP, CP, DP x CP, expert DP,
/// EP, PP neighbours). Per ring channel NCCL connects to two peers and gives each connection
/// a buffer per protocol: Simple 4 MiB, LL128 4,915,200 B, LL 512 KiB (src/init.cc
/// DEFAULT_BUFFSIZE, DEFAULT_LL128_BUFFSIZE, DEFAULT_LL_BUFFSIZE); memory grows with the
/// channels and not with the ranks (sjeaugey in NVIDIA/nccl#986). The channels are those NCCL's
/// topology search finds for the group's ring (nccl_tuning.hpp, search_ring_graph).
Bytes nccl_buffers(const Scenario& s) {
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
    const auto ring = nccl::search_ring_graph(g.arch, local, nodes, nvlink > 0 ? nvlink : 24.0,
                                              nvlink > 0 ? nvlink : 24.0, nic, local_nics);
    return std::max(1, ring.channels) * 2 * kPerConnection;
  };
  const std::int64_t tp = p.tp, cp = p.cp, dp = p.dp;
  double bytes = group(tp, 1) + group(cp, tp) + group(dp * cp, tp);
  if (s.model.moe)  // the expert layers' own groups (Megatron-core creates them for MoE models)
    bytes += group(p.ep, p.expert_tp()) + group(p.expert_dp(), static_cast<std::int64_t>(p.expert_tp()) * p.ep);
  if (p.pp > 1) bytes += group(2, tp * cp * dp);  // send/recv with the neighbouring stages
  return Bytes{bytes};
}

}  // namespace

double stage_gemm_parameters(const Scenario& s, int stage) {
  const auto stages = layers_per_stage(s.model.layers, s.plan.pp);
  if (stage < 0 || static_cast<std::size_t>(stage) >= stages.size()) return 0;
  int first_layer = 0;
  for (int i = 0; i < stage; ++i) first_layer += stages[static_cast<std::size_t>(i)];
  return stage_params(s.model, s.plan, first_layer, stages[static_cast<std::size_t>(stage)], stage == 0,
                      stage == s.plan.pp - 1)
      .gemm;
}

MemoryBreakdown memory_of_stage(const Scenario& s, const ComputeProfile& profile, int stage) {
  const auto& m = s.model;
  const auto& p = s.plan;
  const auto stages = layers_per_stage(m.layers, p.pp);
  int first_layer = 0;
  for (int i = 0; i < stage; ++i) first_layer += stages[static_cast<std::size_t>(i)];
  const int nlayers = stages[static_cast<std::size_t>(stage)];
  const bool first = stage == 0, last = stage == p.pp - 1;
  const StageParams params = stage_params(m, p, first_layer, nlayers, first, last);

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
  mb.weights = Bytes{sharded(bytes.weights, p.zero >= 3)};
  mb.gradients = Bytes{sharded(bytes.gradients, p.zero >= 2)};
  mb.optimizer = Bytes{sharded(bytes.optimizer, p.zero >= 1)};
  // LoRA / QLoRA: frozen base weights, adapter states only (fine_tuning.cpp).
  if (is_fine_tuning(s))
    apply_fine_tuning_memory(s, first_layer, nlayers, {dense, experts, params.gemm}, shard, expert_shard, mb);
  if (p.zero >= 3 && nlayers > 0) {
    // ZeRO-3 gathers full layers ahead of use: the current and the prefetched layer (this
    // GPU's TP/EP shard of the stage's largest layer).
    const auto pc = parameter_count(m);
    double largest = 0;
    for (int l = first_layer; l < first_layer + nlayers; ++l) {
      const double layer = m.is_moe_layer(l)
                               ? pc.moe_layer_shared / p.tp +
                                     m.moe->experts * pc.moe_expert / (static_cast<double>(p.expert_tp()) * p.ep)
                               : pc.dense_layer / p.tp;
      largest = std::max(largest, layer);
    }
    const double gathered = is_fine_tuning(s) ? base_weight_bytes(s.training.lora.base_weights) : bytes.weights;
    mb.weights += Bytes{2.0 * gathered * largest};
  } else {
    mb.weight_copies = Bytes{params.gemm * fp8_weight_copy_bytes(s.precision)};
    mb.weights += mb.weight_copies;
    // FP8 parameters keep no 16-bit GEMM weights beside their FP8 copies.
    if (s.fp8_params) mb.weights = Bytes{mb.weights.value - params.gemm * bytes.weights};
  }

  mb.in_flight = in_flight_microbatches(p, stage);
  const int moe_here = moe_layers_in(m, first_layer, nlayers);
  double act = (nlayers - moe_here) * layer_activation_bytes(m, p, 0, s.precision).value;
  if (moe_here > 0) act += moe_here * layer_activation_bytes(m, p, m.moe->dense_layers, s.precision).value;
  const double sb = d(m.seq_len) / p.cp * d(p.micro_batch);
  // The first stage's embedding dropout keeps a 1-byte mask per element of its output
  // (Megatron theoretical_memory_usage.py: s*b*h*pp).
  if (first && m.dropout) act += sb * d(m.hidden) / (p.sequence_parallel ? p.tp : 1.0);
  if (is_fine_tuning(s) && p.recompute != Recompute::Full) {  // the adapters' r-wide intermediates
    act += (nlayers - moe_here) * adapter_activation_bytes(s, first_layer).value;
    if (moe_here > 0) act += moe_here * adapter_activation_bytes(s, m.moe->dense_layers).value;
  }
  act *= mb.in_flight;
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
    mb.logits = Bytes{4.0 * sb * (d(m.hidden) + d(m.vocab)) / p.tp};
  }
  mb.nccl = nccl_buffers(s);
  mb.workspace = gib(profile.workspace_gib) + mb.nccl;
  // The caching allocator's slack: it rounds requests and splits cached blocks, and blocks of
  // different segments never merge (PyTorch documentation, "CUDA semantics: memory management").
  // An allowance from the profile, not a measured figure (docs/calibration.md).
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

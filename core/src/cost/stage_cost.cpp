#include "flopcast/cost/stage_cost.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <optional>
#include <utility>

#include "flopcast/cost/fine_tuning_cost.hpp"
#include "flopcast/cost/op_cost.hpp"
#include "flopcast/units/assert.hpp"
#include "flopcast/workload/fine_tuning.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::cost {
namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

}  // namespace

StageParameters stage_parameters(const scenario::Scenario& s, std::size_t stage) {
  const auto& m = s.model;
  const auto& p = s.plan;
  const double t = p.tp;
  const auto pc = workload::parameter_count(m);
  StageParameters out;
  if (stage >= static_cast<std::size_t>(std::max(1, p.pp))) return out;
  const workload::StageSlice slice = workload::pipeline_stage(m, p, static_cast<int>(stage));
  auto add = [&](int layer, int n) {
    if (m.is_moe_layer(layer)) {
      out.dense += n * pc.moe_layer_shared / t;
      out.expert += n * m.moe->experts * pc.moe_expert / (static_cast<double>(p.expert_tp()) * p.ep);
    } else {
      out.dense += n * pc.dense_layer / t;
    }
  };
  for (const auto& [first, n] : slice.chunks) workload::for_each_layer_kind(m, first, n, add);
  if (slice.head && m.mtp_layers > 0) {  // the MTP modules: layers, projections and norms
    add(m.layers, m.mtp_layers);
    out.dense += m.mtp_layers * workload::mtp_module_extra_params(m) / t;
  }
  if (slice.embedding) out.dense += pc.embedding / t;
  if (slice.head) out.dense += (pc.output_head + pc.final_norm) / t;
  out.gemm = workload::stage_gemm_parameters(s, static_cast<int>(stage));
  if (workload::is_fine_tuning(s)) {
    // LoRA: the adapters are what is synchronised and stepped; the frozen weights only gathered
    // by ZeRO-3 (at their storage bytes: NF4 GEMM weights for QLoRA, roughly all of them).
    workload::LocalAdapters a;
    for (const auto& [first, n] : slice.chunks) {
      const workload::LocalAdapters chunk = workload::local_adapter_params(s, first, n);
      a.dense += chunk.dense;
      a.expert += chunk.expert;
    }
    out.frozen_bytes = (out.dense + out.expert) * workload::base_weight_bytes(s.training.lora.base_weights);
    out.dense = a.dense;
    out.expert = a.expert;
    out.gemm = 0;
  }
  return out;
}

units::Bytes parameter_gather_bytes(const scenario::Scenario& s, const StageParameters& params, bool expert_only) {
  const double parameters = expert_only ? params.expert : params.dense;
  if (!s.fp8_params) return units::Bytes{parameters * 2};
  const double gemm = expert_only ? params.expert : std::clamp(params.gemm - params.expert, 0.0, params.dense);
  return units::Bytes{(parameters - gemm) * 2 + gemm * workload::fp8_weight_copy_bytes(s.precision) / 2};
}

units::Time dp_sync_time(const scenario::Scenario& s, const ClusterCollectives& coll, const StageParameters& params) {
  const auto& p = s.plan;
  // Gradients are reduced in the dtype they accumulate in: Megatron-core's grad buffer is fp32
  // under grad_reduce_in_fp32 ("If true, reduce grads in fp32",
  // megatron/core/distributed/distributed_data_parallel_config.py; param_and_grad_buffer.py
  // reduces the buffer as it is), which Megatron-LM turns on for bf16 (arguments.py): 4 B per
  // gradient, 2 B with --grad-reduce-in-bf16 or fp16 grads (workload.hpp, grad_bytes).
  const double gbytes = workload::grad_bytes(s.precision, s.grad_reduce);
  const std::int64_t dp_group = p.dp * p.cp;
  // One group's sync: all-reduce, or with a distributed optimizer / ZeRO-1,2 reduce-scatter of
  // the gradients and all-gather of the parameters (parameter_gather_bytes).
  auto sync = [&](std::int64_t ranks, std::int64_t stride, bool expert) {
    const units::Bytes grads{(expert ? params.expert : params.dense) * gbytes};
    if (p.zero == 0) return coll(CollectiveKind::AllReduce, ranks, stride, grads);
    return coll(CollectiveKind::ReduceScatter, ranks, stride, grads) +
           coll(CollectiveKind::AllGather, ranks, stride, parameter_gather_bytes(s, params, expert));
  };
  units::Time dp_sync{0};
  if (dp_group > 1) dp_sync = sync(dp_group, p.tp, false);
  // Routed experts sync over the expert-data-parallel group: the stage's tp*dp*cp GPUs regrouped
  // as etp x ep x edp, etp innermost (Megatron-core parallel_state.py, the expert RankGenerator's
  // order "tp-ep-dp-pp" with tp = expert_tensor_parallel_size), so members are etp*ep apart.
  const std::int64_t edp = p.expert_dp();
  if (params.expert > 0 && edp > 1) dp_sync += sync(edp, static_cast<std::int64_t>(p.expert_tp()) * p.ep, true);
  return dp_sync;
}

units::Time zero3_gather_time(const scenario::Scenario& s, const ClusterCollectives& coll,
                              const StageParameters& params) {
  const auto& p = s.plan;
  const std::int64_t dp_group = p.dp * p.cp;
  if (dp_group <= 1 || p.zero != 3) return units::Time{0};
  return coll(CollectiveKind::AllGather, dp_group, p.tp,
              units::Bytes{parameter_gather_bytes(s, params, false).value + params.frozen_bytes});
}

units::Time dp_sync_time(const scenario::Scenario& s, const compute::ComputeProfile& prof,
                         const StageParameters& params) {
  return dp_sync_time(s, ClusterCollectives(s, prof), params);
}

units::Time zero3_gather_time(const scenario::Scenario& s, const compute::ComputeProfile& prof,
                              const StageParameters& params) {
  return zero3_gather_time(s, ClusterCollectives(s, prof), params);
}

units::Time optimizer_time(const scenario::Scenario& s, const compute::ComputeProfile& prof,
                           const StageParameters& params) {
  const OpContext ctx{&s.cluster.gpu, &prof, s.precision};
  // Adam over the local shard: fp32 master, m, v read and written, gradient read, 16-bit
  // weights written: 4*3*2 + 2 + 2 = 28 bytes per parameter (memory-bound).
  const double shard = s.plan.zero >= 1 ? d(s.plan.dp * s.plan.cp) : 1.0;
  const double local = (params.dense + params.expert) / shard;
  return memory_bound_time(ctx, units::Bytes{local * 28.0}, 8);
}

namespace {

/// What every stage's cost reads: the scenario, its profile and op context, the cluster's
/// collectives, and the shape of one micro-batch on one GPU.
struct StageInputs {
  const scenario::Scenario& s;
  const compute::ComputeProfile& prof;
  OpContext ctx;
  OpContext ctx16;                      ///< the ops FP8 recipes keep in 16 bits (non_gemm_precision)
  ClusterCollectives coll;              ///< collectives on the cluster's model, looked up once
  double elt = 2;                       ///< bytes per activation element (fp8 keeps 16-bit activations)
  double t = 1;                         ///< TP degree
  double b = 1;                         ///< micro-batch, sequences
  double seq = 1;                       ///< local sequence (seq_len / cp)
  double T = 1;                         ///< tokens per micro-batch per GPU
  double h = 0, q = 0, kv = 0, hd = 0;  ///< hidden, query width (heads x head_dim), key width, head width
  double v = 0, o = 0, hd_v = 0;        ///< value width, attention output width (heads x v_head_dim), value head width
  double sp_div = 1;                    ///< t under sequence parallelism, else 1
  /// Rank placement, Megatron order tp-cp-dp-pp (TP innermost): consecutive members of a DP
  /// group are tp*cp ranks apart (collective_time turns strides into node placement).
  std::int64_t dp_stride = 1;
  /// Also cost each layer's TP collectives as without sequence parallelism (LayerCost's
  /// tp_without_sp; the planner's bound takes the cheaper of the two).
  bool tp_without_sp = false;
};

StageInputs stage_inputs(const scenario::Scenario& s, const compute::ComputeProfile& prof) {
  const auto& m = s.model;
  const auto& p = s.plan;
  StageInputs in{s, prof, OpContext{&s.cluster.gpu, &prof, s.precision},
                 OpContext{&s.cluster.gpu, &prof, non_gemm_precision(s.precision)}, ClusterCollectives(s, prof)};
  in.elt = hardware::bytes_per_element(s.precision) >= 2 ? hardware::bytes_per_element(s.precision) : 2.0;
  in.t = p.tp;
  in.b = d(p.micro_batch);
  in.seq = d(m.seq_len) / p.cp;
  in.T = in.b * in.seq;
  in.h = d(m.hidden);
  in.q = d(m.q_dim());
  in.kv = d(m.kv_dim());
  in.hd = d(m.head_dim());
  in.v = d(m.v_dim());
  in.o = d(m.attn_out_dim());
  in.hd_v = d(m.v_head_dim());
  in.sp_div = p.sequence_parallel ? in.t : 1.0;
  in.dp_stride = static_cast<std::int64_t>(p.tp) * p.cp;
  return in;
}

/// One layer, one micro-batch.
struct LayerCost {
  units::Time fwd, bwd, bwd_input, recompute, tp, cp, ep;
  units::Time ep_alone;       ///< ep without the EP overlap: what a pass the schedule cannot pair leaves exposed
  units::Time tp_without_sp;  ///< tp with sequence parallelism off (only when asked: StageInputs)
  // Kernels the host issues per micro-batch (compute kernels and collective calls), forward
  // and backward; recompute issues the forward's again.
  double kernels_f = 0, kernels_b = 0;
};

/// The GEMM times of one layer: forward (m, n, k) and its two backward GEMMs: dgrad (m, k, n),
/// wgrad (k, n, m).
struct LayerGemms {
  units::Time fwd{0}, bwd_in{0}, bwd_w{0};
  int count = 0;  ///< GEMMs added (each issues one weight-gradient kernel)
  void add(const StageInputs& in, LayerCost& c, double mm, double nn, double kk, double batch = 1,
           bool grouped = false) {
    add_in(in.ctx, c, mm, nn, kk, batch, grouped);
  }
  /// A GEMM in the given context's precision (the router stays in 16 bits under FP8); `grouped`:
  /// the routed experts' GEMMs, one grouped kernel over the local experts.
  void add_in(const OpContext& ctx, LayerCost& c, double mm, double nn, double kk, double batch = 1,
              bool grouped = false) {
    ++count;
    c.kernels_f += 1;
    c.kernels_b += 2;
    fwd += gemm_time(ctx, {mm, nn, kk, batch, grouped});
    bwd_in += gemm_time(ctx, {mm, kk, nn, batch, grouped});
    bwd_w += gemm_time(ctx, {kk, nn, mm, batch, grouped});
    if (quantised(ctx.precision)) {
      // An 8- or 4-bit GEMM's 16-bit operands are cast first (Transformer Engine: the input's
      // cast_transpose in the forward, the output gradient's in the backward; MXFP8 and NVFP4
      // quantise along both dimensions for the weight gradient's transposed operands:
      // transformer_engine/pytorch/module/linear.py, the quantizers of _Linear.forward/backward).
      // The weights' casts happen once per step (FP8 weight caching across micro-batches) and
      // are not counted here.
      fwd += cast_time(ctx, mm * kk * batch, 2, 2);
      bwd_in += cast_time(ctx, mm * nn * batch, 2, 2);
      c.kernels_f += 1;
      c.kernels_b += 1;
    }
  }
  static bool quantised(hardware::Precision p) {
    return p == hardware::Precision::FP8 || p == hardware::Precision::MXFP8 || p == hardware::Precision::NVFP4 ||
           p == hardware::Precision::FP4;
  }
};

/// Core attention of one layer, forward and backward.
std::pair<units::Time, units::Time> attention_cost(const StageInputs& in, LayerCost& c, int layer) {
  const auto& m = in.s.model;
  const auto& p = in.s.plan;
  const double heads_local = m.heads / in.t;
  // A windowed layer's queries each attend to the window's keys (GPT-OSS: 128), a full layer's to
  // the causal half of the sequence.
  const bool windowed = m.is_windowed_layer(layer);
  const double kv_len = windowed ? std::min(d(m.sliding_window->size), in.seq * p.cp) : in.seq * p.cp;
  units::Time attn_f, attn_b;
  if (p.flash_attention) {
    // Queries and keys at the query/key head width, values at theirs (MLA: 192 and 128); a windowed
    // layer attends its last window keys, causally (attended_keys).
    const double window = windowed ? d(m.sliding_window->size) : 0;
    const AttentionShape a{in.b * heads_local, in.seq, in.seq * p.cp, in.hd, in.hd_v, true, window};
    attn_f = attention_time(in.ctx16, a, false);
    attn_b = attention_time(in.ctx16, a, true);
    c.kernels_f += 1;
    c.kernels_b += 2;
  } else {
    // Megatron's unfused core attention (megatron/model/transformer.py CoreAttention):
    // baddbmm QK^T, fused scale-mask-softmax over the b x a x s x s scores, dropout, bmm with
    // V. The masked half is computed anyway. Softmax reads and writes the scores (2 tensors),
    // dropout reads them and writes output and a 1-byte mask; backward re-reads them.
    const double batch = in.b * heads_local, seq = in.seq, hd = in.hd, hd_v = in.hd_v, elt = in.elt;
    const double scores = batch * seq * kv_len;
    attn_f = gemm_time(in.ctx16, {seq, kv_len, hd, batch}) + gemm_time(in.ctx16, {seq, hd_v, kv_len, batch}) +
             memory_bound_time(in.ctx16, units::Bytes{scores * (4 * elt + 1)}, 2);
    attn_b = gemm_time(in.ctx16, {seq, kv_len, hd_v, batch}) + gemm_time(in.ctx16, {kv_len, hd_v, seq, batch}) +
             gemm_time(in.ctx16, {seq, hd, kv_len, batch}) + gemm_time(in.ctx16, {kv_len, hd, seq, batch}) +
             memory_bound_time(in.ctx16, units::Bytes{scores * (5 * elt + 1)}, 2);
    c.kernels_f += 4;
    c.kernels_b += 6;
  }
  return {attn_f, attn_b};
}

/// An MoE layer's activation width per token: its top_k routed experts' and its shared experts'.
double moe_activations(const workload::MoeSpec& e) {
  return d(e.expert_ffn) * e.top_k + d(e.shared_ffn()) * e.shared_experts;
}

/// The feed-forward block of one layer (dense MLP, or router, routed and shared experts with
/// their all-to-all): its GEMMs into `gemms`, its elementwise traffic per token into
/// `elementwise`, its elementwise kernels into `kernels_f`.
void ffn_cost(const StageInputs& in, int layer, LayerCost& c, LayerGemms& gemms, double& elementwise, int& kernels_f) {
  const auto& m = in.s.model;
  const auto& p = in.s.plan;
  const double T = in.T, h = in.h, t = in.t;
  if (m.is_moe_layer(layer)) {
    const auto& e = *m.moe;
    gemms.add_in(in.ctx16, c, T, e.experts, h);  // router (16-bit under FP8: non_gemm_precision)
    // Routed experts under folding: the stage's tp*dp*cp GPUs hold experts/ep experts each,
    // split etp ways. Every GPU's share of the routed work is T * top_k tokens' expert FFN / tp
    // (the stage's tokens times top_k over its GPUs), so each local expert sees
    // T * top_k * ep * etp / (experts * tp) tokens; with etp = tp that is T * top_k * ep / experts.
    const double etp = p.expert_tp();
    const double token_share = etp / t;  // routed tokens a GPU handles per token of T
    const double local_experts = d(e.experts) / p.ep;
    // The layer waits for its EP group's most loaded rank (routed_load_factor: routing as even as
    // chance allows, capped by a capacity factor, which also drops tokens when below 1).
    const double routes_per_rank = T * e.top_k * token_share;
    const double load = workload::routed_load_factor(e, p.ep, routes_per_rank);
    const double tokens_per_expert = routes_per_rank * p.ep / e.experts * load;
    const double up = d(e.expert_ffn) * (m.ffn_matrices() - 1) / etp;
    gemms.add(in, c, tokens_per_expert, up, h, local_experts, true);
    gemms.add(in, c, tokens_per_expert, h, d(e.expert_ffn) / etp, local_experts, true);
    if (e.shared_experts > 0) {
      const double shared_up = d(e.shared_ffn()) * (m.ffn_matrices() - 1) / t;
      gemms.add(in, c, T, shared_up * e.shared_experts, h);
      gemms.add(in, c, T, h, d(e.shared_ffn()) * e.shared_experts / t);
    }
    elementwise += (m.ffn_matrices() == 3 ? 3.0 : 2.0) * moe_activations(e) / t +
                   4 * h * e.top_k * token_share;  // activation + permute/unpermute
    kernels_f += 8;
    // Dispatch and combine all-to-all of the routed tokens, forward and backward each, over the
    // EP group, whose members are etp ranks apart (Megatron-core's expert RankGenerator, order
    // "tp-ep-dp-pp" with tp = etp).
    if (p.ep > 1) {
      const std::int64_t gpn = std::max(1, in.s.cluster.gpus_per_node);
      const auto dispatcher = p.dispatcher();
      if (dispatcher == parallel::MoeDispatcher::AllGather) {
        // Megatron-core's allgather dispatcher (MoEAllGatherTokenDispatcher): every EP rank gathers
        // the group's tokens and keeps those routed to its experts; combine reduce-scatters them.
        // Forward and backward each pay one all-gather and one reduce-scatter of the group's tokens.
        const units::Bytes gathered{T * h * in.elt * token_share * p.ep};
        c.ep = (in.coll(CollectiveKind::AllGather, p.ep, p.expert_tp(), gathered) +
                in.coll(CollectiveKind::ReduceScatter, p.ep, p.expert_tp(), gathered)) *
               2;
      } else if (dispatcher == parallel::MoeDispatcher::AllToAll) {
        // Megatron-core's alltoall dispatcher (MoEAlltoAllTokenDispatcher): NCCL's all-to-all of
        // one copy per routed expert, across nodes too.
        const units::Bytes a2a{T * e.top_k * h * in.elt * token_share};
        c.ep = in.coll(CollectiveKind::AllToAll, p.ep, p.expert_tp(), a2a) * 4;
      } else {
        // Megatron-core's flex dispatcher, DeepEP's normal kernels or Hybrid-EP: a token once to
        // each rank holding any of its experts, once per remote node over RDMA (at most
        // node_limit of them under node-limited routing, DeepSeek-V3 §2.1.2), on the dispatch's
        // SMs, DeepEP's warps paying per token copy and Hybrid-EP's TMA not (moe_dispatch_cost,
        // fitted on DeepEP's and Hybrid-EP's measurements). Combine sends the same copies back;
        // backward runs both again. A quantized dispatch (parallel.moe_dispatch_dtype) moves the
        // forward dispatch and the backward combine's gradients in 8 bits with their scales, the
        // forward combine and the backward dispatch in 16 (DeepSeek-V3 §3.3.2).
        MoeDispatch md;
        md.ranks = p.ep;
        const std::int64_t domain = in.s.cluster.fabric.nvlink_group();  // NVL72: the rack
        md.ranks_per_node = std::clamp<std::int64_t>(domain / std::max<std::int64_t>(1, p.expert_tp()), 1, p.ep);
        md.tokens = T * token_share;
        md.hidden = h;
        md.top_k = e.top_k;
        md.experts = e.experts;
        md.bytes_per_value = in.elt;
        md.node_limit = e.node_limit;
        md.sms = static_cast<int>(dispatch_sms(in.s.cluster.gpu.sm_count, dispatcher));
        md.warp_copies = dispatcher == parallel::MoeDispatcher::DeepEP;
        const units::Time wide = moe_dispatch_cost(in.s.cluster.gpu, in.s.cluster.fabric, gpn, in.prof, md).time;
        units::Time narrow = wide;
        if (p.dispatch_dtype != parallel::DispatchDtype::BF16) {
          md.bytes_per_value = parallel::dispatch_bytes_per_value(p.dispatch_dtype);
          narrow = moe_dispatch_cost(in.s.cluster.gpu, in.s.cluster.fabric, gpn, in.prof, md).time;
        }
        c.ep = (wide + narrow) * 2;
      }
    }
  } else {
    gemms.add(in, c, T, d(m.ffn) * (m.ffn_matrices() - 1) / t, h);      // FC1 (gate+up fused for SwiGLU)
    gemms.add(in, c, T, h, d(m.ffn) / t);                               // FC2
    elementwise += (m.ffn_matrices() == 3 ? 3.0 : 2.0) * d(m.ffn) / t;  // GeLU r/w or SwiGLU 2r+1w
  }
}

/// What PyTorch eager adds to one layer's elementwise work beyond fused kernels, per token: bytes
/// through HBM and kernels, forward (the backward of each op moves about twice its forward's).
/// From torchtitan's Llama without torch.compile (torchtitan/models/llama3/model.py and
/// torchtitan/models/norms.py, December 2024; Hugging Face transformers' Llama runs the same ops):
/// - RMSNorm as x.float(), pow(2), mean, rsqrt, x * rsqrt, type_as, * weight: 36 B per element
///   in 7 kernels where a fused kernel moves 4, twice a layer (torch's LayerNorm is one kernel);
/// - rotary embedding through complex numbers: xq.float(), the complex product, type_as, on the
///   queries and keys: 20 B per element in 3 kernels each, against the fused count's 8;
/// - SwiGLU as silu(w1 x) * w3 x: 10 B per element in 2 kernels, against the fused 6;
/// - attention's output made contiguous before the output projection (transpose(1, 2)
///   .contiguous()): 4 B per element, one kernel.
struct EagerExtra {
  double bytes = 0;
  int kernels = 0;
};
EagerExtra eager_elementwise_extra(const StageInputs& in, int layer) {
  const auto& m = in.s.model;
  EagerExtra e;
  if (m.rmsnorm) {
    e.bytes += 2 * (36.0 - 4.0) * in.h / in.sp_div;
    e.kernels += 2 * 6;
  }
  if (!m.learned_positions) {
    e.bytes += (20.0 - 8.0) * (in.q + in.kv) / in.t;
    e.kernels += 4;
  }
  if (m.ffn_matrices() == 3) {
    const double activations = m.is_moe_layer(layer) ? moe_activations(*m.moe) : d(m.ffn);
    e.bytes += (10.0 - 6.0) * activations / in.t;
    e.kernels += 1;
  }
  e.bytes += 4.0 * in.o / in.t;
  e.kernels += 1;
  return e;
}

/// TP and CP communication of one layer, given its attention times.
void layer_comm(const StageInputs& in, int layer, LayerCost& c, const LayerGemms& gemms, units::Time attn_f,
                units::Time attn_b) {
  const auto& p = in.s.plan;
  // TP: two all-reduces forward, two backward (Megatron f/g operators); with sequence
  // parallelism each becomes an all-gather + reduce-scatter pair of the same volume.
  if (p.tp > 1) {
    const units::Bytes act{in.T * in.h * in.elt};
    auto tp_time = [&](bool sequence_parallel) {
      units::Time ag, rs;
      if (sequence_parallel) {
        ag = in.coll(CollectiveKind::AllGather, p.tp, 1, act);
        rs = in.coll(CollectiveKind::ReduceScatter, p.tp, 1, act);
      } else {  // an all-reduce is a reduce-scatter and an all-gather of the same volume
        const units::Time all_reduce = in.coll(CollectiveKind::AllReduce, p.tp, 1, act);
        ag = units::Time{all_reduce.ns / 2};
        rs = all_reduce - ag;
      }
      return p.overlap_tp_comm ? tp_overlap_exposed(ag, rs, gemms.fwd, gemms.bwd_in + gemms.bwd_w, p.recompute,
                                                    tp_overlap_sm_share(in.s.cluster.gpu.sm_count))
                               : (ag + rs) * tp_collectives_per_layer(p.recompute);
    };
    c.tp = tp_time(p.sequence_parallel);
    if (in.tp_without_sp) c.tp_without_sp = p.sequence_parallel ? tp_time(false) : c.tp;
    const double calls = p.sequence_parallel ? 4 : 2;  // per direction
    c.kernels_f += calls;
    c.kernels_b += calls;
    if (workload::is_fine_tuning(in.s)) {
      // The adapters' own collectives (cost/fine_tuning_cost.hpp), exposed: they run on the
      // compute stream; full recompute runs the forward's again.
      const int forwards = p.recompute == parallel::Recompute::Full ? 2 : 1;
      auto adapters = [&](bool sequence_parallel) {
        return adapter_tp_comm(in.s, layer, in.T, in.elt, sequence_parallel,
                               [&](CollectiveKind op, units::Bytes b) { return in.coll(op, p.tp, 1, b); });
      };
      const AdapterTpComm a = adapters(p.sequence_parallel);
      c.tp += a.fwd * forwards + a.bwd;
      c.kernels_f += a.calls_f;
      c.kernels_b += a.calls_b;  // the recompute's launches follow kernels_f (apply_host_floor)
      if (in.tp_without_sp) {
        const AdapterTpComm w = p.sequence_parallel ? adapters(false) : a;
        c.tp_without_sp += w.fwd * forwards + w.bwd;
      }
    }
  }
  // CP: ring exchange of K and V chunks, hidden under attention except what exceeds it.
  if (p.cp > 1) {
    const units::Bytes kv_chunk{2 * in.T * in.kv / in.t * in.elt};
    const units::Time ring = in.coll(CollectiveKind::SendRecv, 2, p.tp, kv_chunk) * (p.cp - 1);
    const units::Time exposed_f = ring > attn_f ? ring - attn_f : units::Time{0};
    const units::Time exposed_b = ring * 2 > attn_b ? ring * 2 - attn_b : units::Time{0};
    c.cp = exposed_f + exposed_b;
  }
}

LayerCost layer_cost(const StageInputs& in, int layer) {
  const auto& m = in.s.model;
  const auto& p = in.s.plan;
  const double T = in.T, h = in.h, q = in.q, t = in.t, kv = in.kv;
  LayerCost c;
  LayerGemms gemms;
  if (m.mla) {
    // MLA (DeepSeek-V3 §2.1.1): the down projections whole on every TP rank (Megatron-core's
    // "duplicated" linear_q_down_proj and linear_kv_down_proj), the up projections split by TP.
    const auto& a = *m.mla;
    const double heads = m.heads;
    if (a.q_lora_rank > 0) {
      gemms.add(in, c, T, d(a.q_lora_rank), h);                               // q down
      gemms.add(in, c, T, heads * d(a.qk_head_dim()) / t, d(a.q_lora_rank));  // q up
    } else {
      gemms.add(in, c, T, heads * d(a.qk_head_dim()) / t, h);  // q
    }
    gemms.add(in, c, T, d(a.kv_lora_rank + a.qk_rope_head_dim), h);                            // kv down, rope key
    gemms.add(in, c, T, heads * d(a.qk_nope_head_dim + a.v_head_dim) / t, d(a.kv_lora_rank));  // kv up
  } else {
    gemms.add(in, c, T, (q + kv + in.v) / t, h);  // QKV
  }
  gemms.add(in, c, T, h, in.o / t);  // output projection
  const auto [attn_f, attn_b] = attention_cost(in, c, layer);
  // Elementwise traffic per token (elements x bytes): two norms (read + write), two
  // dropout-add-residuals (2 reads + 1 write + 1-byte mask), rotary on q and k.
  double elementwise = (2 * 2 + 2 * 3) * h / in.sp_div + (m.learned_positions ? 0.0 : 4 * (q + kv) / t);
  int kernels_f = 9;
  ffn_cost(in, layer, c, gemms, elementwise, kernels_f);
  if (!p.fused_elementwise) {
    const EagerExtra e = eager_elementwise_extra(in, layer);
    elementwise += e.bytes / in.elt;
    kernels_f += e.kernels;
  }
  if (workload::is_fine_tuning(in.s)) {
    // Frozen base weights: no weight-gradient GEMMs; the adapters' GEMMs and QLoRA's
    // dequantization instead (workload/fine_tuning.cpp).
    const FineTuningLayerCost ft = fine_tuning_layer_cost(in.ctx, in.s, layer, T);
    gemms.fwd += ft.fwd;
    gemms.bwd_in += ft.bwd_input;
    gemms.bwd_w = ft.bwd_weight;
    c.kernels_f += ft.kernels_f;
    c.kernels_b += ft.kernels_b - gemms.count;
  }
  c.kernels_f += kernels_f;
  c.kernels_b += 2 * kernels_f;
  const units::Time ew_f = memory_bound_time(in.ctx, units::Bytes{T * elementwise * in.elt}, kernels_f);
  const units::Time ew_b = memory_bound_time(in.ctx, units::Bytes{2 * T * elementwise * in.elt}, 2 * kernels_f);
  c.fwd = gemms.fwd + attn_f + ew_f;
  c.bwd_input = gemms.bwd_in + attn_b + ew_b;
  c.bwd = c.bwd_input + gemms.bwd_w;
  if (p.recompute == parallel::Recompute::Full) {
    c.recompute = c.fwd;
  } else if (workload::per_op_checkpointing(m, p, layer)) {
    // torchtitan's per-op checkpointing runs three of the block's GEMMs again
    // (workload::per_op_recomputed_gemms), split by TP as their layers are, and every
    // elementwise op; attention's output is kept.
    LayerGemms again;
    LayerCost scratch;
    for (const workload::LayerGemm& g : workload::per_op_recomputed_gemms(m))
      again.add(in, scratch, T, g.column ? g.n / t : g.n, g.column ? g.k : g.k / t);
    c.recompute = again.fwd + ew_f;
  } else if (p.recompute == parallel::Recompute::Selective) {
    c.recompute = attn_f;
  }
  layer_comm(in, layer, c, gemms, attn_f, attn_b);
  c.ep_alone = c.ep;
  if (p.overlap_ep_comm && c.ep.ns > 0)
    c.ep = ep_overlap_exposed(c.ep, c.fwd, c.bwd, ep_overlap_sm_share(in.s.cluster.gpu.sm_count, p.dispatcher()));
  return c;
}

/// Host dispatch floor. The framework issues kernels asynchronously, so the host runs ahead
/// of the GPU while kernels are long; when they are shorter than the host's time to issue them
/// (small micro-batches, wide TP) the GPU waits for the host. Per micro-batch and direction the
/// stage takes max(device time, kernels x host_overhead_us); the excess is charged to the
/// compute it delays.
void apply_host_floor(const compute::ComputeProfile& prof, const parallel::ParallelPlan& p, StageTimes& st,
                      double kernels_f, double kernels_b) {
  if (prof.host_overhead_us <= 0) return;
  const double tp_f_share = p.tp > 1 ? 2.0 / tp_collectives_per_layer(p.recompute) : 0.0;
  const units::Time tp_f = units::Time::from_seconds(st.tp_comm.seconds() * tp_f_share);
  const units::Time tp_b = st.tp_comm - tp_f;
  const double kernels_r = p.recompute == parallel::Recompute::Full ? kernels_f : 0.0;
  const units::Time host_f = units::Time::from_us(prof.host_overhead_us * kernels_f);
  const units::Time host_b = units::Time::from_us(prof.host_overhead_us * (kernels_b + kernels_r));
  const units::Time dev_f = st.forward + tp_f;
  const units::Time dev_b = st.backward + st.recompute + tp_b;
  if (host_f > dev_f) st.forward += host_f - dev_f;
  if (host_b > dev_b) {
    const units::Time extra = host_b - dev_b;
    st.backward += extra;
    // Half of it delays the input-gradient kernels (ZB-H1 schedules them apart): the
    // backward issues as many data-gradient as weight-gradient GEMMs.
    st.backward_input += units::Time::from_seconds(extra.seconds() * 0.5);
  }
}

/// One LayerCost per kind of layer (dense or MoE, full or windowed attention, in the run's
/// precision or kept in BF16), computed on first use: layers of a kind cost the same, and the
/// planner asks for stage times millions of times. A layer kept in BF16 runs its GEMMs in 16 bits,
/// without casts (the run's 16-bit op context).
class LayerKindCosts {
 public:
  explicit LayerKindCosts(const StageInputs& in) : in_(in) {}
  /// `layer`'s cost, `kind` its workload::layer_kind_in_precision.
  const LayerCost& cost_of(int layer, int kind) {
    auto& slot = cost_[static_cast<std::size_t>(kind)];
    if (!slot) {
      const bool kept = workload::kind_kept_in_bf16(kind);
      if (kept && !in16_) {
        in16_.emplace(in_);
        in16_->ctx = in_.ctx16;
      }
      slot = layer_cost(kept ? *in16_ : in_, layer);
    }
    return *slot;
  }

 private:
  const StageInputs& in_;
  std::optional<StageInputs> in16_;
  std::array<std::optional<LayerCost>, workload::kLayerKindsWithPrecision> cost_;
};

/// Per-micro-batch times of every pipeline stage: its layers, the embedding on the first, the
/// logits and loss on the last, the host floor and the per-micro-batch overhead.
/// `tp_without_sp` (when in.tp_without_sp): each stage's tp_comm with sequence parallelism off.
std::vector<StageTimes> stage_times(const StageInputs& in, std::vector<units::Time>* tp_without_sp = nullptr) {
  const auto& m = in.s.model;
  const auto& p = in.s.plan;
  const double T = in.T, h = in.h, t = in.t, elt = in.elt;
  const auto ranks = static_cast<std::size_t>(std::max(1, p.pp));
  std::vector<StageTimes> stages(ranks);
  if (tp_without_sp) tp_without_sp->assign(ranks, units::Time{0});
  LayerKindCosts kind_costs(in);
  // Activations to the next stage (Megatron's scatter/gather sends 1/t of them per rank when
  // sequence parallel or scatter-gather is on; all TP ranks send at once). The same message
  // between every pair of neighbouring stages: costed once.
  const units::Time p2p = p.pp > 1
                              ? in.coll(CollectiveKind::SendRecv, 2, in.dp_stride * p.dp, units::Bytes{T * h * elt / t})
                              : units::Time{0};
  const bool frozen = workload::is_fine_tuning(in.s);  // LoRA: embedding and output head frozen
  // A middle stage (neither the first nor the last) with the layer kinds of the last middle stage
  // computed is that stage again, sum for sum: copied (a 126-stage pipeline has at most a few
  // distinct stages).
  std::size_t like = 0;  // 0: none yet
  std::array<int, workload::kLayerKindsWithPrecision> like_kinds{};
  units::Time like_ep, like_alone;  // that stage's EP time before unpaired passes, and without the overlap
  // Under the EP overlap, the passes this stage runs alone leave their all-to-all whole.
  const bool unpaired = p.overlap_ep_comm && !parallel::is_dual_pipe(p.schedule);
  const auto expose_unpaired = [&](std::size_t i, units::Time ep, units::Time alone) {
    if (!unpaired || alone <= ep) return ep;
    return ep + units::Time::from_seconds((alone - ep).seconds() * ep_unpaired_share(p, static_cast<int>(i)));
  };
  // Handed to for_each_pipeline_stage by reference: std::function keeps a reference_wrapper
  // without allocating, where this lambda's many captures would make it allocate per estimate.
  const auto visit = [&](std::size_t i, const workload::StageSlice& slice) {
    auto& st = stages[i];
    st.layers = slice.layers();
    std::array<int, workload::kLayerKindsWithPrecision> kinds{};
    std::array<int, workload::kLayerKindsWithPrecision> first_of{};
    workload::for_each_layer_kind_and_precision(in.s, slice.chunks, [&](int layer, int count, int kind) {
      kinds[static_cast<std::size_t>(kind)] = count;
      first_of[static_cast<std::size_t>(kind)] = layer;
    });
    units::Time* tp_alt = tp_without_sp ? &(*tp_without_sp)[i] : nullptr;
    const bool middle = !slice.embedding && !slice.head && slice.pass_share == 1;
    if (middle && like != 0 && like_kinds == kinds) {
      st = stages[like];
      st.ep_comm = expose_unpaired(i, like_ep, like_alone);
      if (tp_alt) *tp_alt = (*tp_without_sp)[like];
      return;
    }
    if (middle) {
      like = i;
      like_kinds = kinds;
    }
    double kernels_f = 0, kernels_b = 0;
    units::Time alone;
    auto add = [&st, &alone, tp_alt, &kernels_f, &kernels_b](const LayerCost& c, int count) {
      st.forward += c.fwd * count;
      st.backward += c.bwd * count;
      st.backward_input += c.bwd_input * count;
      st.recompute += c.recompute * count;
      st.tp_comm += c.tp * count;
      st.cp_comm += c.cp * count;
      st.ep_comm += c.ep * count;
      alone += c.ep_alone * count;
      if (tp_alt) *tp_alt += c.tp_without_sp * count;
      kernels_f += c.kernels_f * count;
      kernels_b += c.kernels_b * count;
    };
    for (std::size_t k = 0; k < kinds.size(); ++k)
      if (kinds[k] > 0) add(kind_costs.cost_of(first_of[k], static_cast<int>(k)), kinds[k]);
    if (slice.embedding) {  // embedding lookup forward, scatter-add backward (none when frozen)
      st.forward += memory_bound_time(in.ctx, units::Bytes{2 * T * h * elt}, 2);
      if (!frozen) st.backward += memory_bound_time(in.ctx, units::Bytes{3 * T * h * 4}, 2);
      kernels_f += 2;
      kernels_b += frozen ? 0 : 2;
    }
    if (slice.head) {  // final norm, logits GEMM, fp32 cross-entropy; again for each MTP module
      const double vocab_local = d(m.vocab) / t;
      const int heads = 1 + m.mtp_layers;
      // The LM head stays in 16 bits under FP8 (non_gemm_precision).
      st.forward += (gemm_time(in.ctx16, {T, vocab_local, h}) +
                     memory_bound_time(in.ctx, units::Bytes{T * vocab_local * (elt + 2 * 4)}, 4)) *
                    heads;
      const units::Time bi = gemm_time(in.ctx16, {T, h, vocab_local});
      st.backward += (bi + (frozen ? units::Time{0} : gemm_time(in.ctx16, {h, vocab_local, T})) +
                      memory_bound_time(in.ctx, units::Bytes{T * vocab_local * (4 + elt)}, 2)) *
                     heads;
      st.backward_input += bi * heads;
      if (p.tp > 1 && !p.overlap_tp_comm) {  // vocab-parallel cross-entropy: small all-reduces of max and sum
        const units::Time ce = in.coll(CollectiveKind::AllReduce, p.tp, 1, units::Bytes{T * 4}) * 3 * heads;
        st.tp_comm += ce;
        if (tp_alt) *tp_alt += ce;
      }
      kernels_f += 5 * heads;
      kernels_b += 4 * heads;
      if (m.mtp_layers > 0) {
        // DeepSeek-V3 §2.2: each MTP module's layer (of the last layer's kind) after its
        // projection M of the two normed inputs (2h -> h, split by TP as Megatron's eh_proj).
        add(layer_cost(in, m.layers), m.mtp_layers);
        LayerCost proj;
        LayerGemms g;
        g.add(in, proj, T, h / t, 2 * h);
        st.forward += g.fwd * m.mtp_layers;
        st.backward += (g.bwd_in + (frozen ? units::Time{0} : g.bwd_w)) * m.mtp_layers;
        st.backward_input += g.bwd_in * m.mtp_layers;
        kernels_f += proj.kernels_f * m.mtp_layers;
        kernels_b += proj.kernels_b * m.mtp_layers;
      }
    }
    if (slice.pass_share != 1) {
      // DualPipe: each micro-batch crosses one of the rank's two stages (of its direction); per
      // micro-batch the rank's work is their mean.
      const double f = slice.pass_share;
      for (units::Time* x :
           {&st.forward, &st.backward, &st.backward_input, &st.recompute, &st.tp_comm, &st.cp_comm, &st.ep_comm})
        *x = units::Time::from_seconds(x->seconds() * f);
      if (tp_alt) *tp_alt = units::Time::from_seconds(tp_alt->seconds() * f);
      kernels_f *= f;
      kernels_b *= f;
    }
    if (middle) {
      like_ep = st.ep_comm;
      like_alone = alone;
    }
    st.ep_comm = expose_unpaired(i, st.ep_comm, alone);
    apply_host_floor(in.prof, p, st, kernels_f, kernels_b);
    st.forward += units::Time::from_seconds(in.prof.microbatch_overhead_ms * 1e-3);
    st.p2p = p2p;
  };
  workload::for_each_pipeline_stage(m, p, std::cref(visit));
  return stages;
}

}  // namespace

std::vector<StageTimes> stage_costs(const scenario::Scenario& s, const compute::ComputeProfile& prof,
                                    std::vector<units::Time>* tp_comm_without_sp) {
  StageInputs in = stage_inputs(s, prof);
  in.tp_without_sp = tp_comm_without_sp != nullptr;
  return stage_times(in, tp_comm_without_sp);
}

units::Time tp_overlap_exposed(units::Time all_gather, units::Time reduce_scatter, units::Time gemm_fwd,
                               units::Time gemm_bwd, parallel::Recompute recompute, double comm_sm_share) {
  // Transformer Engine userbuffers defaults (transformer_engine/pytorch/module/base.py,
  // initialize_ub): ring_exchange for qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad; pipeline
  // with num_splits 4 for proj_fprop and fc2_fprop; bulk for the qkv and fc1 dgrad / wgrad.
  // The ring exchange moves its chunks with the copy engines (add_ub use_ce = True); the
  // pipeline and bulk communication kernels run on num_sm = 16 SMs (add_ub default), taken
  // from the GEMM while they run (set_sm_margin 0: the GEMM is launched on all SMs and gets
  // the rest). A GEMM G overlapped with C_sm of SM-kernel communication then takes
  // max(C, G + share x C_sm), so the part left over G is max(C - G, share x C_sm).
  FLOPCAST_ASSERT(comm_sm_share >= 0.0 && comm_sm_share < 1.0, "SM share must lie in [0, 1)");
  constexpr double kPipelineSplits = 4;
  const double ag = all_gather.seconds(), rs = reduce_scatter.seconds();
  const double comm = 2 * (ag + rs);                    // per direction: two all-gathers and two reduce-scatters
  const double sm_fwd = comm_sm_share * 2 * rs;         // the two pipelined reduce-scatters
  const double sm_bwd = comm_sm_share * 2 * (ag + rs);  // the bulk all-gathers and reduce-scatters
  const double fwd = std::min(comm, std::max(comm - gemm_fwd.seconds(), sm_fwd) + 2 * rs / kPipelineSplits);
  const double bwd = std::min(comm, std::max({0.0, comm - gemm_bwd.seconds(), sm_bwd}));
  const double replays = recompute == parallel::Recompute::Full ? 2.0 : 1.0;
  return units::Time::from_seconds(replays * fwd + bwd);
}

double ep_unpaired_share(const parallel::ParallelPlan& p, int stage) {
  const double passes = static_cast<double>(p.microbatches()) * p.vpp;
  if (passes <= 0) return 0;
  const double warmup = 2.0 * (p.pp - 1 - stage) + static_cast<double>(p.vpp - 1) * p.pp + 1;
  return std::min(passes, std::max(1.0, warmup)) / passes;
}

units::Time ep_overlap_exposed(units::Time ep, units::Time fwd, units::Time bwd, double comm_sm_share) {
  FLOPCAST_ASSERT(comm_sm_share >= 0.0 && comm_sm_share < 1.0, "SM share must lie in [0, 1)");
  const double half = ep.seconds() / 2;
  const double under_bwd = std::max(half - bwd.seconds(), comm_sm_share * half);
  const double under_fwd = std::max(half - fwd.seconds(), comm_sm_share * half);
  return units::Time::from_seconds(under_bwd + under_fwd);
}

double dispatch_sms(int sm_count, parallel::MoeDispatcher dispatcher) {
  // Megatron-core transformer_config.py: moe_hybridep_num_sms 16, moe_deepep_num_sms 20 (NCCL's
  // all-to-all is given DeepEP's number).
  const double sms = dispatcher == parallel::MoeDispatcher::HybridEP ? 16.0 : 20.0;
  FLOPCAST_ASSERT(sm_count > 0, "GPU sm_count must be positive");
  // A GPU of 40 SMs or fewer (the catalog allows 17) gives the dispatch at most half of them.
  return std::min(sms, sm_count / 2.0);
}

double ep_overlap_sm_share(int sm_count, parallel::MoeDispatcher dispatcher) {
  return dispatch_sms(sm_count, dispatcher) / sm_count;
}

double tp_overlap_sm_share(int sm_count) {
  // Transformer Engine add_ub (transformer_engine/pytorch/module/base.py): num_sm = 16 for the
  // pipeline and bulk overlaps unless a ub_cfgs entry says otherwise.
  constexpr double kUbCommSms = 16;
  FLOPCAST_ASSERT(sm_count > kUbCommSms, "GPU sm_count must exceed the 16 overlap SMs");
  return kUbCommSms / sm_count;
}

hardware::Precision non_gemm_precision(hardware::Precision run) {
  switch (run) {
    case hardware::Precision::FP8:
    case hardware::Precision::MXFP8:
    case hardware::Precision::FP4:
    case hardware::Precision::NVFP4:
      return hardware::Precision::BF16;
    default:
      return run;
  }
}

}  // namespace flopcast::cost

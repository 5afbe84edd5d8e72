#include "flopcast/scenario/scenario_check.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "flopcast/workload/workload.hpp"

namespace flopcast::scenario {
namespace {
std::string str(std::int64_t v) { return std::to_string(v); }
std::string fmt_count(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
/// Expert parallelism: ep and etp only with MoE layers; etp*ep divides each stage's tp*dp*cp.
void check_experts(const Scenario& s, Diagnostics& d) {
  const auto& L = s.locations;
  const auto& p = s.plan;
  const auto& m = s.model;
  if (!m.moe && p.ep != 1)
    d.error_at(L, "parallel.ep", "ep " + str(p.ep) + " needs a mixture-of-experts model", "set ep: 1 for dense models");
  if (!m.moe && p.etp > 0 && p.etp != p.tp)
    d.error_at(L, "parallel.etp", "etp " + str(p.etp) + " needs a mixture-of-experts model",
               "expert tensor parallelism splits routed experts; drop etp for dense models");
  if (m.moe) {
    // MoE parallel folding (Megatron-core): the expert layers regroup each stage's tp*dp*cp
    // GPUs as etp x ep x expert-dp, so etp*ep must divide tp*dp*cp (etp = tp: ep divides dp*cp).
    const std::int64_t stage = static_cast<std::int64_t>(p.tp) * p.dp * p.cp;
    const std::int64_t group = static_cast<std::int64_t>(p.expert_tp()) * p.ep;
    if (group > 0 && stage % group != 0) {
      if (p.etp == 0 || p.etp == p.tp)
        d.error_at(L, "parallel.ep", "ep " + str(p.ep) + " does not divide dp*cp = " + str(p.dp * p.cp),
                   "choose ep dividing dp*cp, or set parallel.etp (expert tensor parallelism) so that etp*ep "
                   "divides tp*dp*cp = " +
                       str(stage));
      else
        d.error_at(L, "parallel.etp",
                   "etp*ep = " + str(p.etp) + "*" + str(p.ep) + " = " + str(group) +
                       " does not divide tp*dp*cp = " + str(stage),
                   "choose etp and ep whose product divides " + str(stage) +
                       " (the expert layers regroup each pipeline stage's tp*dp*cp GPUs as etp x ep x expert-dp)");
    }
    if (m.moe->experts % p.ep != 0)
      d.error_at(L, "parallel.ep", "ep " + str(p.ep) + " does not divide experts " + str(m.moe->experts));
    if (m.moe->expert_ffn % p.expert_tp() != 0)
      d.error_at(L, p.etp > 0 ? "parallel.etp" : "parallel.tp",
                 (p.etp > 0 ? "etp " : "tp ") + str(p.expert_tp()) + " does not divide moe.expert_ffn " +
                     str(m.moe->expert_ffn),
                 "expert tensor parallelism splits each expert's FFN width");
  }
}

/// parallel.pipeline_layout against the layers, pp and vpp, as Megatron-LM's
/// get_num_layers_to_build (megatron/core/transformer/transformer_block.py) asserts them.
void check_pipeline_layout(const Scenario& s, Diagnostics& d) {
  const auto& L = s.locations;
  const auto& p = s.plan;
  const auto& l = *p.pipeline_layout;
  const std::string key = "parallel.pipeline_layout";
  const int layers = s.model.layers, pp = p.pp, vpp = std::max(1, p.vpp);
  if (pp <= 1) {
    d.error_at(L, key, "pipeline_layout shapes pipeline stages, but pp is 1",
               "set parallel.pp > 1, or remove pipeline_layout");
    return;
  }
  if (parallel::is_dual_pipe(p.schedule)) {
    d.error_at(L, key,
               std::string("pipeline_layout is Megatron-LM's uneven split; schedule ") + to_string(p.schedule) +
                   " places its own stages (two per rank)",
               "remove pipeline_layout, or use schedule 1f1b or interleaved");
    return;
  }
  const bool uneven = l.first_stage_layers > 0 || l.last_stage_layers > 0;
  if (uneven && (l.account_for_embedding || l.account_for_loss)) {
    d.error_at(
        L, key + (l.account_for_embedding ? ".account_for_embedding" : ".account_for_loss"),
        "first/last_stage_layers and account_for_embedding/loss are two ways to even the stages out; Megatron-LM "
        "refuses them together",
        "keep first_stage_layers / last_stage_layers, or the account_for_ keys");
    return;
  }
  auto per_rank_check = [&](int n, const std::string& at, const std::string& what) {
    if (n % vpp != 0)
      d.error_at(L, at, what + " " + str(n) + " does not divide into vpp = " + str(vpp) + " virtual stages",
                 "each virtual stage of a rank takes the same number of layers: choose a multiple of " + str(vpp));
  };
  if (uneven) {
    int left = layers, ranks = pp;
    if (l.first_stage_layers > 0) left -= l.first_stage_layers, --ranks;
    if (l.last_stage_layers > 0) left -= l.last_stage_layers, --ranks;
    if (left < 0 || (ranks > 0 && left < ranks) || (ranks == 0 && left != 0)) {
      d.error_at(
          L, key + (l.first_stage_layers > 0 ? ".first_stage_layers" : ".last_stage_layers"),
          "first_stage_layers + last_stage_layers = " + str(l.first_stage_layers + l.last_stage_layers) + " leaves " +
              str(left) + " of the " + str(layers) + " layers for the other " + str(ranks) + " pipeline ranks",
          ranks > 0 ? "leave at least one layer for each other rank" : "with pp 2 the two must sum to the layers");
      return;
    }
    if (ranks > 0 && left % ranks != 0) {
      d.error_at(L, key,
                 str(left) + " layers left after the first and last ranks do not split evenly over the other " +
                     str(ranks) + " ranks",
                 "choose first_stage_layers and last_stage_layers so that layers - first - last is a multiple of " +
                     str(ranks));
      return;
    }
    if (l.first_stage_layers > 0)
      per_rank_check(l.first_stage_layers, key + ".first_stage_layers", "first_stage_layers");
    if (l.last_stage_layers > 0) per_rank_check(l.last_stage_layers, key + ".last_stage_layers", "last_stage_layers");
    if (ranks > 0) per_rank_check(left / ranks, key, "the other ranks' layers");
    return;
  }
  const int units = layers + (l.account_for_embedding ? 1 : 0) + (l.account_for_loss ? 1 : 0);
  if (units % (pp * vpp) != 0 && (l.account_for_embedding || l.account_for_loss))
    d.error_at(L, key,
               "layers + embedding + loss = " + str(units) + " do not split evenly over pp*vpp = " + str(pp * vpp) +
                   " virtual stages",
               "Megatron-LM counts the embedding and the loss as one layer each here: choose pp and vpp dividing " +
                   str(units));
}

/// DualPipe and DualPipeV (deepseek-ai/DualPipe: dualpipe.py asserts an even rank count and
/// num_chunks % 2 == 0 and num_chunks >= 2 x ranks; dualpipev.py num_chunks >= 2 x ranks).
void check_dual_pipe(const Scenario& s, Diagnostics& d) {
  const auto& L = s.locations;
  const auto& p = s.plan;
  const std::string name = to_string(p.schedule);
  if (p.pp < 2 || (p.schedule == parallel::Schedule::DualPipe && p.pp % 2 != 0)) {
    d.error_at(L, "parallel.schedule",
               "schedule " + name + " needs " + (p.schedule == parallel::Schedule::DualPipe ? "an even pp" : "pp") +
                   " of at least 2, got pp " + str(p.pp),
               p.schedule == parallel::Schedule::DualPipe
                   ? "DualPipe feeds micro-batches from both ends of an even pipeline"
                   : "DualPipeV folds the pipeline into a V over at least two ranks");
    return;
  }
  if (p.vpp > 1) {
    d.error_at(L, "parallel.vpp",
               "vpp " + str(p.vpp) + " with schedule " + name + ": each rank already holds two stages",
               "remove vpp (or set it to 1)");
    return;
  }
  const int stages = p.schedule == parallel::Schedule::DualPipe ? p.pp : 2 * p.pp;
  if (s.model.layers < stages)
    d.error_at(L, "parallel.pp",
               "schedule " + name + " splits the model into " + str(stages) + " stages, more than its " +
                   str(s.model.layers) + " layers",
               "use a smaller pp");
  if (s.open_settings.micro_batch) return;  // resolution picks a micro-batch
  const std::int64_t m = p.microbatches();
  if (m < 2 * p.pp || (p.schedule == parallel::Schedule::DualPipe && m % 2 != 0))
    d.error_at(L, "parallel.global_batch",
               "schedule " + name + " needs " +
                   (p.schedule == parallel::Schedule::DualPipe ? "an even number of " : "") +
                   "at least 2 x pp = " + str(2 * p.pp) + " micro-batches per step, got " + str(m),
               "raise global_batch or lower micro_batch (micro-batches = global_batch / (micro_batch x dp))");
}

}  // namespace

void check_scenario(const Scenario& s, Diagnostics& d) {
  const auto& L = s.locations;
  const auto& p = s.plan;
  const auto& m = s.model;
  const auto& c = s.cluster;

  const auto checked = p.gpus_checked();
  const std::int64_t product = p.gpus();
  if (!checked) {
    // Each degree is at most 10^6 (the loader's range), so tp*pp*dp*cp can reach 10^24.
    d.error_at(L, "parallel",
               "tp*pp*dp*cp = " + str(p.tp) + "*" + str(p.pp) + "*" + str(p.dp) + "*" + str(p.cp) +
                   " exceeds 2^63 (far above the 10^6-GPU planning limit); cluster.gpus is " + str(c.gpus),
               "make the product of the degrees equal cluster.gpus (at most 1000000)");
  } else if (product != c.gpus) {
    d.error_at(L, "parallel",
               "tp*pp*dp*cp = " + str(p.tp) + "*" + str(p.pp) + "*" + str(p.dp) + "*" + str(p.cp) + " = " +
                   str(product) + " but cluster.gpus is " + str(c.gpus),
               c.gpus % (static_cast<std::int64_t>(p.tp) * p.pp * p.cp) == 0
                   ? "for " + str(c.gpus) + " GPUs with tp " + str(p.tp) + ", pp " + str(p.pp) + ", cp " + str(p.cp) +
                         " use dp " + str(c.gpus / (static_cast<std::int64_t>(p.tp) * p.pp * p.cp))
                   : "make the product of the degrees equal the GPU count");
  }
  if (m.heads > 0 && m.attention_head_dim == 0 && m.hidden % m.heads != 0)
    d.error_at(L, "model.heads", "heads " + str(m.heads) + " does not divide hidden " + str(m.hidden),
               "the head dimension hidden/heads must be a whole number, or give model.head_dim");
  if (m.kv_heads > 0 && m.heads % m.kv_heads != 0)
    d.error_at(
        L, "model.kv_heads", "kv_heads " + str(m.kv_heads) + " does not divide heads " + str(m.heads),
        "grouped-query attention shares each key/value head among heads/kv_heads query heads: choose a divisor of " +
            str(m.heads));
  if (m.moe && m.moe->dense_layers > m.layers)
    d.error_at(L, "model.moe.dense_layers",
               "dense_layers " + str(m.moe->dense_layers) + " exceeds layers " + str(m.layers),
               "dense_layers counts the leading layers that keep a dense FFN");
  if (m.heads % p.tp != 0)
    d.error_at(L, "parallel.tp", "tp " + str(p.tp) + " does not divide heads " + str(m.heads),
               "tensor parallelism splits attention heads: choose tp dividing " + str(m.heads));
  else if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
    d.error_at(L, "parallel.tp", "tp " + str(p.tp) + " and kv_heads " + str(m.kv_heads) + " do not divide one another",
               "choose tp dividing kv_heads, or a multiple of it (heads are then replicated)");
  if (m.ffn % p.tp != 0) d.error_at(L, "parallel.tp", "tp " + str(p.tp) + " does not divide ffn " + str(m.ffn));
  if (m.vocab > 0 && p.tp > m.vocab) d.error_at(L, "parallel.tp", "tp " + str(p.tp) + " exceeds vocab " + str(m.vocab));
  if (p.pipeline_layout)
    check_pipeline_layout(s, d);
  else if (p.pp * p.vpp > m.layers)
    d.error_at(L, "parallel.pp", "pp*vpp = " + str(p.pp * p.vpp) + " exceeds layers " + str(m.layers),
               "each pipeline stage needs at least one layer");
  else if (m.layers % (p.pp * p.vpp) != 0 && !parallel::is_dual_pipe(p.schedule))
    d.warning(locate(L, "parallel.pp"), "parallel.pp",
              "layers " + str(m.layers) + " not divisible by pp*vpp = " + str(p.pp * p.vpp) +
                  ": stages get unequal layer counts (the most-loaded stage sets the pace)");
  if (p.vpp > 1 && p.pp == 1)
    d.error_at(L, "parallel.vpp", "vpp " + str(p.vpp) + " needs pipeline parallelism (pp > 1)");
  if (p.overlap_ep_comm) {
    if (const char* why = parallel::ep_overlap_refusal(p))
      d.error_at(L, "parallel.overlap_ep_comm",
                 std::string("overlap_ep_comm cannot run with this plan: ") + why +
                     " (Megatron-core's --overlap-moe-expert-parallel-comm)",
                 "set overlap_ep_comm: false, or change the plan as the message says");
  }
  if (parallel::is_dual_pipe(p.schedule))
    check_dual_pipe(s, d);
  else if (p.vpp > 1 && p.schedule != parallel::Schedule::Interleaved)
    d.error_at(L, "parallel.schedule", std::string("vpp > 1 needs schedule interleaved, got ") + to_string(p.schedule));
  if (p.schedule == parallel::Schedule::Interleaved && p.vpp == 1)
    d.error_at(L, "parallel.vpp", "schedule interleaved needs vpp > 1",
               "set vpp to the model chunks per pipeline rank, e.g. 2");
  const std::int64_t per_step = p.micro_batch * p.dp;
  if (p.global_batch % per_step != 0)
    d.error_at(L, "parallel.global_batch",
               "global_batch " + str(p.global_batch) + " is not divisible by micro_batch*dp = " + str(p.micro_batch) +
                   "*" + str(p.dp) + " = " + str(per_step),
               "use a multiple of " + str(per_step) + ", e.g. " +
                   str(std::max<std::int64_t>(1, p.global_batch / per_step) * per_step));
  // Tokens per step: a step holds at most the 10^16 tokens of the largest run planned (the
  // training.tokens limit; docs/reliability.md, Limits), which also bounds micro_batch*seq_len and keeps every
  // per-step token, FLOP and byte count far inside int64 and double range.
  constexpr double kMaxTokensPerStep = 1e16;
  if (const double step_tokens = static_cast<double>(p.global_batch) * static_cast<double>(m.seq_len);
      step_tokens > kMaxTokensPerStep)
    d.error_at(L, "parallel.global_batch",
               "global_batch*seq_len = " + str(p.global_batch) + "*" + str(m.seq_len) + " = " + fmt_count(step_tokens) +
                   " tokens per step, above the 10^16 limit",
               "lower global_batch (sequences per step) or model.seq_len");
  if (m.seq_len % p.cp != 0)
    d.error_at(L, "parallel.cp", "cp " + str(p.cp) + " does not divide seq_len " + str(m.seq_len));
  check_experts(s, d);
  if (!m.moe && p.moe_dispatcher)
    d.error_at(L, "parallel.moe_dispatcher",
               std::string("moe_dispatcher ") + to_string(*p.moe_dispatcher) + " needs a mixture-of-experts model",
               "remove moe_dispatcher for a dense model");
  if (p.dispatch_dtype != parallel::DispatchDtype::BF16) {
    const std::string what = std::string("moe_dispatch_dtype ") + to_string(p.dispatch_dtype);
    if (!m.moe) {
      d.error_at(L, "parallel.moe_dispatch_dtype", what + " needs a mixture-of-experts model",
                 "remove moe_dispatch_dtype for a dense model");
    } else if (hardware::bytes_per_element(s.precision) >= 2) {
      d.error_at(L, "parallel.moe_dispatch_dtype",
                 what + " sends the expert GEMMs' 8-bit inputs, but the precision is " + to_string(s.precision),
                 "use precision fp8, mxfp8 or nvfp4 with it, or moe_dispatch_dtype: bf16");
    } else if (const char* why = parallel::quantized_dispatch_refusal(p.dispatcher())) {
      d.error_at(L, "parallel.moe_dispatch_dtype",
                 what + " cannot run with moe_dispatcher " + to_string(p.dispatcher()) + ": " + why,
                 "set moe_dispatcher: deepep or hybridep, or moe_dispatch_dtype: bf16");
    } else if (p.ep <= 1) {
      d.warning(locate(L, "parallel.moe_dispatch_dtype"), "parallel.moe_dispatch_dtype",
                what + " has no effect with ep 1 (no tokens leave their GPU)");
    }
  }
  if (p.sequence_parallel && p.tp == 1)
    d.warning(locate(L, "parallel.sequence_parallel"), "parallel.sequence_parallel",
              "sequence parallelism has no effect with tp 1");
  if (p.zero >= 2 && p.pp > 1)
    d.warning(locate(L, "parallel.zero"), "parallel.zero",
              "ZeRO-" + str(p.zero) +
                  " with pipeline parallelism: gradients are re-gathered every micro-batch (DeepSpeed disallows it)");
  if (!c.gpu.name.empty() && !c.gpu.peak(s.precision)) {
    const bool block_scaled = s.precision == hardware::Precision::MXFP8 || s.precision == hardware::Precision::NVFP4;
    d.error_at(L, "precision",
               std::string("the ") + c.gpu.name + " has no dense tensor-core " + to_string(s.precision) + " path",
               block_scaled
                   ? std::string("mxfp8 and nvfp4 are Blackwell formats (B200, GB200, B300, GB300); use ") +
                         (c.gpu.peak(hardware::Precision::FP8) ? "fp8 or bf16" : "bf16 or fp16") + " on this GPU"
                   : "use bf16 or fp16 on this GPU");
  }
  if (s.has_pricing || s.has_reliability || s.training.tokens > 0) {
    // Sizes must stay where the model computes them exactly (docs/reliability.md, Limits).
  }
  const double params = workload::parameter_count(m).total;
  if (params > 1e13)
    d.error_at(L, "model", "the model has " + std::to_string(params / 1e12) + " T parameters, above the 10^13 limit",
               "check hidden, layers and ffn");
}

}  // namespace flopcast::scenario

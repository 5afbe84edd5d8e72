// Megatron-LM (and NeMo jobs run through Megatron-LM's training loop) logs, in the formats of
// NVIDIA/Megatron-LM at commit d98e8a64ddf34856e74b24714e3bedb2f5a39553 (2026-08-22):
// - megatron/training/arguments.py _print_args: rank 0 prints, after validate_args, a line
//   "------------------------ arguments ------------------------", then every argument as
//   "  NAME DOTS VALUE" (DOTS: '.' * (48 - len(NAME)), none for longer names; VALUE is
//   Python's str(): True/False, None, 8, 0.01, selective, [0, 1]) sorted by name, then
//   "-------------------- end of arguments ---------------------";
// - megatron/training/training.py training_log: every --log-interval iterations (and after the
//   first) " [DATE] iteration N/TOTAL | consumed samples: ... | elapsed time per iteration
//   (ms): T | throughput per GPU (TFLOP/s/GPU): F | ... | global batch size: B | ...", T the
//   average of the interval, F from num_floating_point_operations (with --log-throughput);
// - megatron/training/utils/common_utils.py report_memory: after the first two iterations and
//   every --log-memory-interval, data-parallel rank 0 of every model-parallel rank prints
//   "[Rank R] (after N iterations) memory (MB) | allocated: A | max allocated: MA | reserved:
//   R | max reserved: MR" (MB = 2^20 B; the max figures are the peaks since the start);
// - megatron/core/tokenizers/utils/build_tokenizer.py: " > padded vocab (size: V) with D dummy
//   tokens (new size: P)", printed after the arguments, whose padded_vocab_size is then None.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "training_log_detail.hpp"

namespace flopcast::io::detail {
namespace {

constexpr std::string_view kArgsBegin = "------------------------ arguments ------------------------";
constexpr std::string_view kArgsEnd = "-------------------- end of arguments ---------------------";
constexpr double kMiB = 1024.0 * 1024.0, kGiB = kMiB * 1024.0;

/// One argument line "  NAME ..... VALUE" (any launcher prefix before it); false for others.
bool argument_line(const std::string& text, std::string& name, std::string& value) {
  // The dots start at the first " ." (names have none); a name of 48 or more characters has
  // no dots and is followed by two blanks.
  auto gap = text.find(" .");
  std::size_t value_at = 0;
  if (gap != std::string::npos) {
    value_at = text.find_first_not_of('.', gap + 1);
    if (value_at == std::string::npos || text[value_at] != ' ') return false;
    ++value_at;
  } else {
    const auto lead = text.find_first_not_of(' ');
    gap = lead == std::string::npos ? lead : text.find("  ", lead);
    if (gap == std::string::npos) return false;
    value_at = gap + 2;
  }
  const auto name_at = text.find_last_of(" :]", gap == 0 ? 0 : gap - 1);
  name = text.substr(name_at == std::string::npos ? 0 : name_at + 1,
                     gap - (name_at == std::string::npos ? 0 : name_at + 1));
  if (name.empty() || !std::all_of(name.begin(), name.end(),
                                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    return false;
  value = text.substr(value_at);
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return true;
}

struct Reader {
  const std::string& file;
  scenario::Diagnostics& diags;
  Settings args;
  int begin_line = 0, end_line = 0;
  bool failed = false;

  void error(int line, const std::string& key, const std::string& message, const std::string& hint) {
    diags.error({file, line, 0}, key, message, hint);
    failed = true;
  }
  int at(const std::string& name) const { return args.line(name) ? args.line(name) : begin_line; }
  /// A required positive integer argument.
  std::int64_t need(const std::string& name) {
    const auto v = args.integer(name);
    if (v && *v > 0) return *v;
    error(at(name), name,
          args.find(name) ? "expected a positive integer, got '" + args.find(name)->value + "'"
                          : "missing from the arguments block",
          "the arguments block is cut short or edited: import the whole log of the job");
    return 0;
  }
  std::int64_t integer_or(const std::string& name, std::int64_t fallback) const {
    return args.integer(name).value_or(fallback);
  }
};

void read_arguments(const std::vector<LogLine>& lines, Reader& r) {
  for (const auto& l : lines) {
    if (!r.begin_line) {
      if (l.text.find(kArgsBegin) != std::string::npos) r.begin_line = l.number;
      continue;
    }
    if (l.text.find(kArgsEnd) != std::string::npos) {
      r.end_line = l.number;
      return;
    }
    std::string name, value;
    // Lines other ranks print in between are not arguments: skipped.
    if (argument_line(l.text, name, value)) r.args.put(name, value, l.number);
  }
}

/// " [DATE] iteration N/TOTAL | ... |" lines and the memory reports.
void read_progress(const std::vector<LogLine>& lines, Reader& r, LoggedRun& run) {
  for (const auto& l : lines) {
    const std::string& t = l.text;
    if (const auto ms = number_after(t, "elapsed time per iteration (ms): ")) {
      LoggedInterval it;
      it.line = l.number;
      it.seconds = *ms / 1000.0;
      const auto at = t.find(" iteration ");
      if (at != std::string::npos)
        it.iteration = static_cast<std::int64_t>(leading_number(t.substr(at + 11)).value_or(0));
      if (const auto f = number_after(t, "throughput per GPU (TFLOP/s/GPU): ")) it.tflops_per_gpu = *f;
      if (const auto b = number_after(t, "global batch size: ")) it.global_batch = static_cast<std::int64_t>(*b);
      if (it.seconds > 0) run.intervals.push_back(it);
      continue;
    }
    if (t.find("memory (MB)") != std::string::npos) {
      const auto reserved = number_after(t, "| max reserved: ");
      const auto allocated = number_after(t, "| max allocated: ");
      if (!reserved && !allocated) continue;
      LoggedMemory m = run.memory.value_or(LoggedMemory{});
      const double gib = (reserved ? *reserved : *allocated) * kMiB / kGiB;
      if (gib > m.gib || m.reports == 0) {
        m.gib = gib;
        m.line = l.number;
      }
      m.kind = reserved ? "reserved" : "allocated";
      if (reserved && allocated) m.allocated_gib = std::max(m.allocated_gib.value_or(0.0), *allocated * kMiB / kGiB);
      ++m.reports;
      run.memory = m;
      continue;
    }
    if (t.find("> padded vocab (size: ") != std::string::npos && !r.args.has("padded_vocab_size")) {
      if (const auto v = number_after(t, "(new size: "))
        r.args.put("padded_vocab_size", std::to_string(static_cast<std::int64_t>(*v)), l.number);
    }
  }
}

/// model.*: the shape, MoE and multi-head latent attention.
void model_keys(Reader& r, LoggedRun& run) {
  auto& a = r.args;
  auto& d = run.draft;
  const auto layers = r.need("num_layers"), hidden = r.need("hidden_size"), heads = r.need("num_attention_heads");
  const auto seq = r.need("seq_length");
  if (!a.has("padded_vocab_size"))
    r.error(r.begin_line, "padded_vocab_size",
            "the log gives no vocabulary size: padded_vocab_size is None and no \"> padded vocab\" line follows",
            "import the whole log, from the job's start");
  const auto vocab = a.integer("padded_vocab_size").value_or(0);
  if (r.failed) return;
  d.set("model.layers", layers);
  d.set("model.hidden", hidden);
  d.set("model.heads", heads);
  const bool mla = a.flag("multi_latent_attention").value_or(false);
  if (mla) {
    // MLA: keys and values are MLA's (no kv_heads, no head_dim). Megatron-LM's --q-lora-rank None
    // means queries not compressed (q_lora_rank 0); its defaults (arguments.py) otherwise.
    d.set_raw("model.mla", "{q_lora_rank: " + std::to_string(r.integer_or("q_lora_rank", 0)) +
                               ", kv_lora_rank: " + std::to_string(r.integer_or("kv_lora_rank", 32)) +
                               ", qk_nope_head_dim: " + std::to_string(r.integer_or("qk_head_dim", 128)) +
                               ", qk_rope_head_dim: " + std::to_string(r.integer_or("qk_pos_emb_head_dim", 64)) +
                               ", v_head_dim: " + std::to_string(r.integer_or("v_head_dim", 128)) + "}");
  } else {
    const bool gqa = a.flag("group_query_attention").value_or(false) || !a.find("group_query_attention");
    d.set("model.kv_heads", gqa && a.has("num_query_groups") ? r.need("num_query_groups") : heads);
    if (const auto kv = a.integer("kv_channels"); kv && heads > 0 && *kv != hidden / heads)
      d.set("model.head_dim", *kv);
  }
  d.set("model.ffn", a.integer("ffn_hidden_size").value_or(4 * hidden));
  d.set_raw("model.ffn_kind", a.flag("swiglu").value_or(false) ? "swiglu" : "gelu");
  d.set("model.vocab", vocab);
  d.set("model.seq_len", seq);
  if (const auto untie = a.flag("untie_embeddings_and_output_weights"))
    d.set_raw("model.embeddings", *untie ? "untied" : "tied");
  const auto pos = a.text("position_embedding_type");
  if (pos == "rope" || pos == "yarn" || pos == "mrope") d.set_raw("model.position", "rope");
  if (pos == "learned_absolute") d.set_raw("model.position", "learned");
  const auto norm = a.text("normalization");
  if (norm == "RMSNorm") d.set_raw("model.norm", "rmsnorm");
  if (norm == "LayerNorm") d.set_raw("model.norm", "layernorm");
  if (const auto bias = a.flag("add_bias_linear")) d.set_bool("model.bias", *bias);
  if (a.has("hidden_dropout") || a.has("attention_dropout"))
    d.set_bool("model.dropout",
               a.number("hidden_dropout").value_or(0) > 0 || a.number("attention_dropout").value_or(0) > 0);
  if (const auto mtp = a.integer("mtp_num_layers"); mtp && *mtp > 0) d.set("model.mtp_layers", *mtp);
  run.seq_len = seq;
}

void moe_keys(Reader& r, LoggedRun& run) {
  auto& a = r.args;
  auto& d = run.draft;
  if (!a.has("num_experts")) return;
  const auto ffn = a.integer("ffn_hidden_size").value_or(0);
  const auto expert_ffn = a.integer("moe_ffn_hidden_size").value_or(ffn);
  d.set("model.moe.experts", r.need("num_experts"));
  d.set("model.moe.top_k", r.integer_or("moe_router_topk", 2));
  d.set("model.moe.expert_ffn", expert_ffn);
  if (const auto shared = a.integer("moe_shared_expert_intermediate_size"); shared && *shared > 0) {
    if (expert_ffn > 0 && *shared % expert_ffn == 0) {
      d.set("model.moe.shared_experts", *shared / expert_ffn);
    } else {
      d.set("model.moe.shared_experts", std::int64_t{1});
      d.set("model.moe.shared_expert_ffn", *shared);
    }
  }
  // --moe-layer-freq: an integer N (an MoE layer every N) or the evaluated list of 0/1 per layer.
  const auto freq = a.text("moe_layer_freq");
  if (!freq.empty() && freq.front() == '[') {
    std::vector<int> pattern;
    for (char c : freq)
      if (c == '0' || c == '1') pattern.push_back(c - '0');
    const auto dense = std::find(pattern.begin(), pattern.end(), 1) - pattern.begin();
    if (dense > 0) d.set("model.moe.dense_layers", static_cast<std::int64_t>(dense));
    // After the dense layers, an MoE layer every N layers (model.moe.layer_freq), or a pattern
    // the run schema cannot say.
    const auto n = static_cast<std::size_t>(dense);
    std::size_t freq_n = 1;
    while (n + freq_n < pattern.size() && pattern[n + freq_n] == 0) ++freq_n;
    bool periodic = n < pattern.size();
    for (std::size_t k = 0; periodic && n + k < pattern.size(); ++k) periodic = pattern[n + k] == (k % freq_n == 0);
    if (periodic && freq_n > 1)
      d.set("model.moe.layer_freq", static_cast<std::int64_t>(freq_n));
    else if (!periodic)
      d.add_note("moe_layer_freq " + freq +
                 " mixes dense and MoE layers irregularly after the first MoE layer: "
                 "predicted with an MoE layer every layer after the dense ones");
  } else if (const auto n = a.integer("moe_layer_freq"); n && *n > 1) {
    d.set("model.moe.layer_freq", *n);
  }
}

/// parallel.*: the degrees, batch, recompute, sharding and overlap settings.
void plan_keys(Reader& r, LoggedRun& run) {
  auto& a = r.args;
  auto& d = run.draft;
  const auto world = r.need("world_size"), tp = r.need("tensor_model_parallel_size");
  const auto pp = r.need("pipeline_model_parallel_size");
  const auto cp = r.integer_or("context_parallel_size", 1);
  const auto mbs = r.need("micro_batch_size"), gbs = r.need("global_batch_size");
  if (r.failed) return;
  const auto dp = a.integer("data_parallel_size").value_or(world / std::max<std::int64_t>(1, tp * pp * cp));
  if (tp * pp * dp * cp != world) {
    r.error(r.at("world_size"), "world_size",
            "the arguments contradict each other: tensor_model_parallel_size " + std::to_string(tp) +
                " x pipeline_model_parallel_size " + std::to_string(pp) + " x data_parallel_size " +
                std::to_string(dp) + " x context_parallel_size " + std::to_string(cp) + " = " +
                std::to_string(tp * pp * dp * cp) + ", but world_size is " + std::to_string(world),
            "Megatron-LM derives data_parallel_size = world_size / (tp*pp*cp): the log was edited or joins two jobs");
    return;
  }
  if (gbs % (mbs * dp) != 0) {
    r.error(r.at("global_batch_size"), "global_batch_size",
            "the arguments contradict each other: global_batch_size " + std::to_string(gbs) +
                " is not a multiple of micro_batch_size " + std::to_string(mbs) + " x data_parallel_size " +
                std::to_string(dp),
            "Megatron-LM refuses such a batch (arguments.py): the log was edited or joins two jobs");
    return;
  }
  run.gpus = world;
  run.global_batch = gbs;
  d.set("cluster.gpus", world);
  d.set("parallel.tp", tp);
  d.set("parallel.pp", pp);
  d.set("parallel.dp", dp);
  d.set("parallel.cp", cp);
  if (a.has("num_experts")) {
    d.set("parallel.ep", r.integer_or("expert_model_parallel_size", 1));
    d.set("parallel.etp", r.integer_or("expert_tensor_parallel_size", tp));
    const auto dispatcher = a.text("moe_token_dispatcher_type");
    if (dispatcher == "alltoall" || dispatcher == "allgather") d.set_raw("parallel.moe_dispatcher", dispatcher);
    if (dispatcher == "flex" &&
        (a.flag("moe_enable_deepep").value_or(false) || a.text("moe_flex_dispatcher_backend") == "deepep"))
      d.set_raw("parallel.moe_dispatcher", "deepep");
    if (dispatcher == "flex" && a.text("moe_flex_dispatcher_backend") == "hybridep")
      d.set_raw("parallel.moe_dispatcher", "hybridep");
  }
  d.set("parallel.vpp", r.integer_or("virtual_pipeline_model_parallel_size", 1));
  if (const auto sp = a.flag("sequence_parallel")) d.set_bool("parallel.sequence_parallel", *sp);
  // ZeRO: the distributed optimizer shards the optimizer state (stage 1); Megatron FSDP and
  // torch FSDP2 shard by --data-parallel-sharding-strategy (optim, optim_grads, optim_grads_params).
  std::int64_t zero = a.flag("use_distributed_optimizer").value_or(false) ? 1 : 0;
  if (a.flag("use_megatron_fsdp").value_or(false) || a.flag("use_torch_fsdp2").value_or(false)) {
    const auto s = a.text("data_parallel_sharding_strategy");
    zero = s == "optim_grads_params" || s.empty() ? 3 : s == "optim_grads" ? 2 : s == "optim" ? 1 : 0;
  }
  d.set("parallel.zero", zero);
  d.set("parallel.micro_batch", mbs);
  d.set("parallel.global_batch", gbs);
  const auto granularity = a.text("recompute_granularity");
  d.set_raw("parallel.recompute", granularity.empty() ? "none" : granularity == "full" ? "full" : "selective");
  if (granularity == "full" && a.text("recompute_method") == "block") {
    const auto per_stage = r.args.integer("num_layers").value_or(0) /
                           std::max<std::int64_t>(1, pp * r.integer_or("virtual_pipeline_model_parallel_size", 1));
    const auto n = r.integer_or("recompute_num_layers", per_stage);
    if (n < per_stage)
      d.add_note("recompute: Megatron-LM recomputes " + std::to_string(n) + " of the " + std::to_string(per_stage) +
                 " layers of each pipeline stage (--recompute-method block); written as full");
  }
  if (const auto v = a.flag("overlap_grad_reduce")) d.set_bool("parallel.overlap_dp_comm", *v);
  if (const auto v = a.flag("tp_comm_overlap")) d.set_bool("parallel.overlap_tp_comm", *v);
  if (const auto v = a.flag("overlap_p2p_comm")) d.set_bool("parallel.overlap_pp_comm", *v);
  const auto first = a.integer("decoder_first_pipeline_num_layers"),
             last = a.integer("decoder_last_pipeline_num_layers");
  const bool emb = a.flag("account_for_embedding_in_pipeline_split").value_or(false);
  const bool loss = a.flag("account_for_loss_in_pipeline_split").value_or(false);
  if (first || last || emb || loss) {
    std::string layout = "{";
    if (first) layout += "first_stage_layers: " + std::to_string(*first) + ", ";
    if (last) layout += "last_stage_layers: " + std::to_string(*last) + ", ";
    layout += std::string("account_for_embedding: ") + (emb ? "true" : "false") +
              ", account_for_loss: " + (loss ? "true" : "false") + "}";
    d.set_raw("parallel.pipeline_layout", layout);
  }
}

/// precision, fp8_params, bf16_layers and grad_reduce.
void precision_keys(Reader& r, LoggedRun& run) {
  auto& a = r.args;
  auto& d = run.draft;
  std::string precision = a.flag("bf16").value_or(false) ? "bf16" : a.flag("fp16").value_or(false) ? "fp16" : "fp32";
  if (a.has("fp8")) precision = a.text("fp8_recipe") == "mxfp8" ? "mxfp8" : "fp8";
  if (a.has("fp4")) precision = "nvfp4";
  d.set_raw("precision", precision);
  if (precision != "bf16" && precision != "fp16" && precision != "fp32")
    d.set_bool("fp8_params", a.flag("fp8_param_gather").value_or(false) || a.flag("fp4_param_gather").value_or(false));
  // --first-last-layers-bf16 keeps num_layers_at_start_in_bf16 / _end_in_bf16 blocks (1 each by
  // default) out of the 8- or 4-bit recipe (megatron/core/transformer/transformer_config.py).
  if (precision != "bf16" && precision != "fp16" && precision != "fp32" &&
      a.flag("first_last_layers_bf16").value_or(false))
    d.set_raw("bf16_layers", "{first: " + std::to_string(a.integer("num_layers_at_start_in_bf16").value_or(1)) +
                                 ", last: " + std::to_string(a.integer("num_layers_at_end_in_bf16").value_or(1)) + "}");
  // bf16: arguments.py turns accumulate_allreduce_grads_in_fp32 on unless --grad-reduce-in-bf16.
  if (precision != "fp32" && a.flag("accumulate_allreduce_grads_in_fp32"))
    d.set_raw("grad_reduce", *a.flag("accumulate_allreduce_grads_in_fp32") ? "fp32"
                             : precision == "fp16"                         ? "fp16"
                                                                           : "bf16");
}

}  // namespace

std::optional<LoggedRun> read_megatron_log(const std::vector<LogLine>& lines, const std::string& file,
                                           scenario::Diagnostics& diags) {
  LoggedRun run;
  run.framework = LogFramework::MegatronLm;
  run.file = file;
  run.flops_convention = "megatron";
  run.log_interval_setting = "--log-interval";
  run.lines = lines.empty() ? 0 : lines.back().number;
  Reader r{file, diags, {}, 0, 0, false};
  read_arguments(lines, r);
  read_progress(lines, r, run);
  if (!r.begin_line || !r.end_line) {
    const int line = r.begin_line ? r.begin_line : run.intervals.empty() ? 1 : run.intervals.front().line;
    r.error(line, "",
            r.begin_line ? "the arguments block has no end (\"" + std::string(kArgsEnd) + "\"): the log is cut short"
                         : "a Megatron-LM log without its arguments block (\"" + std::string(kArgsBegin) +
                               "\"): the model and the plan are unknown",
            "import the whole log, from the job's start (rank 0 prints the arguments)");
    return std::nullopt;
  }
  model_keys(r, run);
  moe_keys(r, run);
  plan_keys(r, run);
  if (r.failed) return std::nullopt;
  precision_keys(r, run);
  return run;
}

}  // namespace flopcast::io::detail

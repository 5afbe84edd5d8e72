// torchtitan logs, in the formats of pytorch/torchtitan v0.2.2 (73a0e6979, 2026-02-20, the last
// release whose job configs are TOML) and v0.2.0 (29624e37f) where they differ. Every line
// starts "[titan] DATE - root - INFO - " (torchtitan/tools/logging.py init_logger). Read:
// - components/metrics.py MetricsProcessor.log, every metrics.log_freq steps and after step 1:
//   "step: N  loss: L  grad_norm: G  memory: M GiB(P%)  tps: T  tflops: F  mfu: U%" (coloured
//   unless metrics.disable_color_printing); T = tokens per second per GPU (ntokens_since_last_log
//   / (time * non_data_parallel_size)), F = num_flops_per_token * T / 1e12, M =
//   torch.cuda max_memory_reserved since the previous step line, in GiB; U is "N/A" when a
//   quantized (Float8 / MX) model makes its BF16 peak meaningless;
// - models/utils.py get_dense_model_nparams_and_flops: num_flops_per_token = 6 (N - embedding)
//   + 6 * n_layers * n_heads * 2 * head_dim * seq_len: causal attention counted in full;
// - train.py: "Trainer is initialized with local batch size L, global batch size G, gradient
//   accumulation steps A, sequence length S, total steps T (warmup W)"; "Building NAME
//   FLAVORwith {JSON}" (v0.2.2) or "Building NAME FLAVOR with TransformerModelArgs(...)"
//   (v0.2.0); config/job_config.py maybe_log: "Running with configs: {JSON}" (job.print_config);
// - distributed/parallel_dims.py: "Building device mesh with parallelism: pp=P, dp_replicate=R,
//   dp_shard=S, cp=C, tp=T, ep=E, etp=X" (v0.2.2) or "Building N-D device mesh with [names],
//   [dims]" (v0.2.0, degrees of 1 left out);
// - components/metrics.py build_device_memory_monitor: "CUDA capacity: DEVICE with X GiB memory";
// - distributed/activation_checkpoint.py: "Applied MODE activation checkpointing to the model";
// - components/quantization/float8.py and mx.py: "Float8 training active with recipe R",
//   "Float8 tensorwise scaled training active", "MX training active with recipe R".
#include <algorithm>
#include <cmath>
#include <string>

#include "flopcast/io/scenario_loader.hpp"
#include "training_log_detail.hpp"

namespace flopcast::io::detail {
namespace {

/// torchtitan's llama3 flavors (torchtitan/models/llama3/__init__.py llama3_args, v0.2.2), for a
/// log that names its flavor but prints no model arguments. vocab_size is TransformerModelArgs'
/// default 128256 (models/llama3/model/args.py).
struct Flavor {
  const char* name;
  std::int64_t dim, n_layers, n_heads, n_kv_heads, multiple_of;
  double ffn_dim_multiplier;
};
constexpr Flavor kLlama3Flavors[] = {
    {"8B", 4096, 32, 32, 8, 1024, 1.3}, {"70B", 8192, 80, 64, 8, 4096, 1.3}, {"405B", 16384, 126, 128, 8, 4096, 1.2}};
constexpr std::int64_t kLlama3Vocab = 128256;

struct Reader {
  const std::string& file;
  scenario::Diagnostics& diags;
  Settings cfg;    ///< the job config: --config's TOML, then the log's "Running with configs"
  Settings model;  ///< the model's arguments (dim, n_layers, ...)
  Settings facts;  ///< what the log's own lines say (mesh degrees, batch, recompute, precision)
  std::string model_name, flavor;
  int model_line = 0;
  bool failed = false;

  void error(int line, const std::string& key, const std::string& message, const std::string& hint) {
    diags.error({file, line, 0}, key, message, hint);
    failed = true;
  }
};

/// The text after `marker` up to `stop` (or the end when `stop` is empty); "" when either is missing.
std::string between(const std::string& t, std::string_view marker, std::string_view stop = {}) {
  const auto at = t.find(marker);
  if (at == std::string::npos) return "";
  const auto from = at + marker.size();
  if (stop.empty()) return t.substr(from);
  const auto end = t.find(stop, from);
  return end == std::string::npos ? "" : t.substr(from, end - from);
}

/// A JSON object printed over several lines, starting at `i`'s '{': its text; `i` moves to its last line.
std::string json_block(const std::vector<LogLine>& lines, std::size_t& i, std::size_t brace) {
  std::string text = lines[i].text.substr(brace);
  int d = 0;
  for (std::size_t k = i;; ++k) {
    const std::string& t = k == i ? text : lines[k].text;
    for (char c : t) d += c == '{' ? 1 : c == '}' ? -1 : 0;
    if (k != i) text += "\n" + t;
    if (d <= 0 || k + 1 == lines.size()) {
      i = k;
      return text;
    }
  }
}

/// "a=1, b=x, c=Sub(d=2)" -> settings a, b (nested calls kept whole).
void read_repr_args(const std::string& s, int line, Settings& out) {
  int d = 0;
  std::string item;
  auto flush = [&] {
    const auto eq = item.find('=');
    if (eq != std::string::npos) {
      std::string k = item.substr(0, eq), v = item.substr(eq + 1);
      k.erase(0, k.find_first_not_of(' '));
      if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
      out.put(k, v, line);
    }
    item.clear();
  };
  for (char c : s) {
    if (c == '(' || c == '[') ++d;
    if (c == ')' || c == ']') --d;
    if (c == ',' && d == 0) {
      flush();
      continue;
    }
    item += c;
  }
  flush();
}

void read_mesh(const std::string& t, int line, Settings& facts) {
  if (const auto p = between(t, "Building device mesh with parallelism: "); !p.empty()) {
    read_repr_args(p, line, facts);  // pp=1, dp_replicate=1, dp_shard=8, cp=1, tp=8, ep=1, etp=1
    return;
  }
  const auto names = between(t, "-D device mesh with [", "]");
  const auto dims = between(t, "], [", "]");
  if (names.empty() || dims.empty()) return;
  for (const char* n : {"pp", "dp_replicate", "dp_shard", "cp", "tp"}) facts.put(n, "1", line);
  std::vector<std::string> ns, ds;
  std::string cur;
  for (char c : names + ",") {
    if (c == ',') {
      ns.push_back(cur);
      cur.clear();
    } else if (c != '\'' && c != ' ') {
      cur += c;
    }
  }
  for (char c : dims + ",") {
    if (c == ',') {
      ds.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  std::int64_t shard = 1;
  for (std::size_t k = 0; k < ns.size() && k < ds.size(); ++k) {
    const auto v = leading_number(ds[k]).value_or(1);
    if (ns[k].rfind("dp_shard", 0) == 0)
      shard *= static_cast<std::int64_t>(v);  // dp_shard_mod_ep x dp_shard_in_ep with experts
    else
      facts.put(ns[k], ds[k], line);
  }
  facts.put("dp_shard", std::to_string(shard), line);
}

/// Every line but the step lines: config, model, mesh, batch, recompute, precision, device.
void read_setup(const std::vector<LogLine>& lines, Reader& r, LoggedRun& run) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& t = lines[i].text;
    const int n = lines[i].number;
    if (const auto at = t.find("Running with configs: {"); at != std::string::npos) {
      read_json_settings(json_block(lines, i, at + 22), "", n, r.cfg);
    } else if (const auto b = t.find(" - Building ");
               b != std::string::npos && t.find("mesh") == std::string::npos &&
               (t.find("with {") != std::string::npos || t.find("with TransformerModelArgs(") != std::string::npos)) {
      // "Building llama3 70Bwith {" (v0.2.2) or "Building llama3 70B with TransformerModelArgs(" (v0.2.0)
      const auto with = t.find("with", b);
      std::string what = t.substr(b + 12, with - (b + 12));
      while (!what.empty() && what.back() == ' ') what.pop_back();
      const auto sp = what.find(' ');
      r.model_name = what.substr(0, sp);
      r.flavor = sp == std::string::npos ? "" : what.substr(sp + 1);
      r.model_line = n;
      if (const auto brace = t.find('{', with); brace != std::string::npos)
        read_json_settings(json_block(lines, i, brace), "", n, r.model);
      else
        read_repr_args(between(t, "TransformerModelArgs(").substr(0, between(t, "TransformerModelArgs(").rfind(')')), n,
                       r.model);
    } else if (t.find("device mesh with") != std::string::npos) {
      read_mesh(t, n, r.facts);
    } else if (const auto tr = between(t, "Trainer is initialized with "); !tr.empty()) {
      r.facts.put("local_batch_size",
                  std::to_string(static_cast<std::int64_t>(number_after(tr, "local batch size ").value_or(0))), n);
      r.facts.put("global_batch_size",
                  std::to_string(static_cast<std::int64_t>(number_after(tr, "global batch size ").value_or(0))), n);
      r.facts.put("seq_len",
                  std::to_string(static_cast<std::int64_t>(number_after(tr, "sequence length ").value_or(0))), n);
    } else if (const auto ac = between(t, "Applied ", " activation checkpointing"); !ac.empty()) {
      r.facts.put("activation_checkpoint", ac, n);
    } else if (t.find("Float8 training active") != std::string::npos ||
               t.find("Float8 tensorwise scaled training active") != std::string::npos) {
      r.facts.put("precision", "fp8", n);
    } else if (t.find("MX training active with recipe") != std::string::npos) {
      r.facts.put("precision", "mxfp8", n);
    } else if (const auto dev = between(t, " capacity: ", " with ");
               !dev.empty() && t.find("GiB memory") != std::string::npos) {
      run.device_name = dev;
      run.device_line = n;
    }
  }
}

/// "step: N  loss: ...  memory: M GiB(P%)  tps: T  tflops: F  mfu: U%" lines.
void read_steps(const std::vector<LogLine>& lines, LoggedRun& run) {
  for (const auto& l : lines) {
    const std::string& t = l.text;
    const auto at = t.find("step: ");
    if (at == std::string::npos || t.find("tps: ") == std::string::npos ||
        t.find("validate step:") != std::string::npos)
      continue;
    const auto step = leading_number(std::string_view(t).substr(at + 6));
    const auto tps = number_after(t, "tps: ", true);
    if (!step || !tps || *tps <= 0) continue;
    LoggedInterval it;
    it.line = l.number;
    it.iteration = static_cast<std::int64_t>(*step);
    it.tokens_per_gpu_s = *tps;
    if (const auto f = number_after(t, "tflops: ", true)) it.tflops_per_gpu = *f;
    if (const auto u = number_after(t, "mfu: ")) it.mfu = *u / 100.0;
    if (const auto m = number_after(t, "memory: ")) {
      LoggedMemory mem = run.memory.value_or(LoggedMemory{});
      if (*m > mem.gib || mem.reports == 0) {
        mem.gib = *m;
        mem.line = l.number;
      }
      mem.kind = "reserved";
      ++mem.reports;
      run.memory = mem;
    }
    run.intervals.push_back(it);
  }
}

/// A setting from the log's own lines, else the config; a config that disagrees with the log
/// is another job's.
std::optional<std::int64_t> agreed(Reader& r, const std::string& fact, const std::string& key) {
  const auto f = r.facts.integer(fact);
  const auto c = r.cfg.integer(key);
  if (f && c && *c > 0 && *f != *c) {
    r.error(r.facts.line(fact), key,
            "the log says " + fact + " " + std::to_string(*f) + " but the job config (line " +
                std::to_string(r.cfg.line(key)) + ") says " + std::to_string(*c),
            "--config names another job's config: give the one this job ran with, or none");
    return std::nullopt;
  }
  if (f) return f;
  if (c && *c > 0) return c;
  return std::nullopt;
}

void model_keys(Reader& r, LoggedRun& run) {
  auto& d = run.draft;
  if (r.model_name.empty()) r.model_name = r.cfg.text("model.name");
  if (r.flavor.empty()) r.flavor = r.cfg.text("model.flavor");
  if (r.model_name.empty()) {
    r.error(1, "model.name", "the log names no model: neither \"Building NAME FLAVOR with ...\" nor a job config",
            "import the whole log from the job's start, or give its TOML with --config");
    return;
  }
  if (r.model_name != "llama3") {
    r.error(r.model_line ? r.model_line : r.cfg.line("model.name"), "model.name",
            "torchtitan model '" + r.model_name + "' is not read yet: import reads llama3 (dense) jobs",
            "write the run by hand (docs/run-schema.md)");
    return;
  }
  const Flavor* preset = nullptr;
  for (const auto& f : kLlama3Flavors)
    if (r.flavor == f.name) preset = &f;
  auto arg = [&](const char* key, std::int64_t fallback) { return r.model.integer(key).value_or(fallback); };
  if (r.model.empty() && !preset) {
    r.error(r.model_line ? r.model_line : r.cfg.line("model.flavor"), "model.flavor",
            "the log prints no model arguments and flavor '" + r.flavor + "' is not one of llama3's 8B, 70B, 405B",
            "import the log of a torchtitan version that prints \"Building llama3 FLAVOR with ...\"");
    return;
  }
  const auto dim = arg("dim", preset ? preset->dim : 0), heads = arg("n_heads", preset ? preset->n_heads : 0);
  const auto multiple = arg("multiple_of", preset ? preset->multiple_of : 256);
  const auto mult = r.model.number("ffn_dim_multiplier");
  // FeedForward (models/llama3/model/model.py): int(2 * 4 * dim / 3), times ffn_dim_multiplier
  // when set, rounded up to a multiple of multiple_of.
  auto ffn = static_cast<std::int64_t>(2.0 * static_cast<double>(4 * dim) / 3.0);
  const double m = mult ? *mult : (r.model.empty() && preset ? preset->ffn_dim_multiplier : 0.0);
  if (m > 0) ffn = static_cast<std::int64_t>(m * static_cast<double>(ffn));
  ffn = multiple * ((ffn + multiple - 1) / std::max<std::int64_t>(1, multiple));
  d.set("model.layers", arg("n_layers", preset ? preset->n_layers : 0));
  d.set("model.hidden", dim);
  d.set("model.heads", heads);
  d.set("model.kv_heads", r.model.has("n_kv_heads")   ? arg("n_kv_heads", heads)
                          : preset && r.model.empty() ? preset->n_kv_heads
                                                      : heads);
  d.set("model.ffn", ffn);
  d.set_raw("model.ffn_kind", "swiglu");
  d.set("model.vocab", arg("vocab_size", kLlama3Vocab));
  // torchtitan's llama3 (model.py): untied output projection, RoPE, RMSNorm, no biases, no dropout.
  d.set_raw("model.embeddings", r.model.flag("enable_weight_tying").value_or(false) ? "tied" : "untied");
  d.set_raw("model.position", "rope");
  d.set_raw("model.norm", "rmsnorm");
  d.set_bool("model.bias", false);
  d.set_bool("model.dropout", false);
}
}  // namespace

namespace {
void plan_keys(Reader& r, LoggedRun& run) {
  auto& d = run.draft;
  const auto tp = agreed(r, "tp", "parallelism.tensor_parallel_degree").value_or(1);
  const auto pp = agreed(r, "pp", "parallelism.pipeline_parallel_degree").value_or(1);
  const auto cp = agreed(r, "cp", "parallelism.context_parallel_degree").value_or(1);
  const auto replicate = agreed(r, "dp_replicate", "parallelism.data_parallel_replicate_degree").value_or(1);
  const auto shard = agreed(r, "dp_shard", "parallelism.data_parallel_shard_degree");
  const auto seq = agreed(r, "seq_len", "training.seq_len");
  const auto local = agreed(r, "local_batch_size", "training.local_batch_size");
  if (r.failed) return;
  if (!shard) {
    r.error(r.model_line ? r.model_line : 1, "parallelism.data_parallel_shard_degree",
            "the log gives no world size: no \"Building device mesh\" line, and the config leaves dp_shard to it (-1)",
            "import the whole log from the job's start");
    return;
  }
  if (!seq) {
    r.error(1, "training.seq_len", "the log gives no sequence length", "import the whole log, or give --config");
    return;
  }
  const auto dp = replicate * *shard;
  auto global = agreed(r, "global_batch_size", "training.global_batch_size");
  if (!global && local) global = *local * dp;
  if (!global) {
    r.error(1, "training.global_batch_size", "the log gives no batch size", "import the whole log, or give --config");
    return;
  }
  run.gpus = tp * pp * cp * dp;
  run.global_batch = *global;
  run.seq_len = *seq;
  d.set("model.seq_len", *seq);
  d.set("cluster.gpus", run.gpus);
  d.set("parallel.tp", tp);
  d.set("parallel.pp", pp);
  d.set("parallel.dp", dp);
  d.set("parallel.cp", cp);
  // TP in torchtitan shards the norms' activations too (SequenceParallel in
  // models/llama3/infra/parallelize.py apply_tp): sequence parallelism whenever tp > 1.
  if (tp > 1) d.set_bool("parallel.sequence_parallel", true);
  // FSDP2 (fully_shard) shards parameters, gradients and optimizer state: ZeRO 3; it prefetches
  // the next all-gather and reduce-scatters in its own stream, overlapping compute.
  d.set("parallel.zero", std::int64_t{*shard > 1 ? 3 : 0});
  if (*shard > 1) d.set_bool("parallel.overlap_dp_comm", true);
  if (replicate > 1 && *shard > 1)
    d.add_note("HSDP: parameters sharded over " + std::to_string(*shard) + " GPUs and replicated " +
               std::to_string(replicate) + " times; written as zero 3 over dp " + std::to_string(dp));
  if (pp > 1) {
    if (const auto mb = r.cfg.integer("parallelism.pipeline_parallel_microbatch_size"))
      d.set("parallel.micro_batch", *mb);
  } else if (local) {
    d.set("parallel.micro_batch", *local);
  }
  d.set("parallel.global_batch", *global);
  if (pp > 1) {
    const auto s = r.cfg.text("parallelism.pipeline_parallel_schedule");
    if (s == "1F1B")
      d.set_raw("parallel.schedule", "1f1b");
    else if (s == "GPipe")
      d.set_raw("parallel.schedule", "gpipe");
    else if (s == "Interleaved1F1B")
      d.set_raw("parallel.schedule", "interleaved");
    else if (s == "ZBVZeroBubble" || s == "InterleavedZeroBubble")
      d.set_raw("parallel.schedule", "zero-bubble");
    else if (s == "DualPipeV")
      d.set_raw("parallel.schedule", "dualpipev");
    else if (!s.empty())
      d.add_note("pipeline schedule " + s + " has no run-schema name: left to validate to resolve");
  }
  std::string ac = r.facts.text("activation_checkpoint");
  if (ac.empty()) ac = r.cfg.text("activation_checkpoint.mode");
  if (ac == "none" || ac == "selective" || ac == "full")
    d.set_raw("parallel.recompute", ac);
  else if (!ac.empty())
    d.add_note("activation checkpointing mode " + ac + " has no run-schema name: left open");
  if (tp > 1 && r.cfg.flag("parallelism.enable_async_tensor_parallel"))
    d.set_bool("parallel.overlap_tp_comm",
               *r.cfg.flag("parallelism.enable_async_tensor_parallel") && r.cfg.flag("compile.enable").value_or(false));
  // torch.compile fuses the model's elementwise ops (its norms, rotary embedding, SwiGLU); without
  // it they run eagerly, one kernel per op (compile.enable, training.compile before torchtitan
  // v0.2's JobConfig).
  auto compiled = r.cfg.flag("compile.enable");
  if (!compiled) compiled = r.cfg.flag("training.compile");
  if (compiled) d.set_raw("elementwise", *compiled ? "fused" : "eager");
}

void precision_keys(Reader& r, LoggedRun& run) {
  auto& d = run.draft;
  std::string precision = r.facts.text("precision");
  const auto converters = r.cfg.text("model.converters");
  if (precision.empty() && converters.find("float8") != std::string::npos) precision = "fp8";
  if (precision.empty() && converters.find("mx") != std::string::npos) precision = "mxfp8";
  if (precision.empty()) {
    // training.mixed_precision_param, default "bfloat16" (config/job_config.py Training).
    const auto param = r.cfg.text("training.mixed_precision_param");
    precision = param == "float32" ? "fp32" : "bf16";
    if (param.empty() && !r.cfg.has("training.dtype"))
      d.add_note("precision bf16: torchtitan's default training.mixed_precision_param (the log prints no config)");
  }
  d.set_raw("precision", precision);
  if (precision == "fp8") {
    for (const char* key :
         {"quantize.linear.float8.enable_fsdp_float8_all_gather", "float8.enable_fsdp_float8_all_gather"})
      if (const auto v = r.cfg.flag(key)) d.set_bool("fp8_params", *v);
  }
  // FSDP2 reduces gradients in training.mixed_precision_reduce, which can only be float32.
  if (precision != "fp32" && run.draft.get("parallel.zero") == "3") d.set_raw("grad_reduce", "fp32");
}

}  // namespace

std::optional<LoggedRun> read_torchtitan_log(const std::vector<LogLine>& lines, const std::string& file,
                                             const TrainingLogOptions& options, scenario::Diagnostics& diags) {
  LoggedRun run;
  run.framework = LogFramework::Torchtitan;
  run.file = file;
  run.flops_convention = "model_full_attention";
  run.log_interval_setting = "metrics.log_freq";
  run.lines = lines.empty() ? 0 : lines.back().number;
  Reader r{file, diags, {}, {}, {}, {}, {}, 0, false};
  if (!options.torchtitan_config.empty()) {
    const auto text = read_text_file(options.torchtitan_config, diags);
    if (!text || !read_toml_subset(*text, options.torchtitan_config, r.cfg, diags)) return std::nullopt;
  }
  read_setup(lines, r, run);
  read_steps(lines, run);
  model_keys(r, run);
  if (r.failed) return std::nullopt;
  plan_keys(r, run);
  if (r.failed) return std::nullopt;
  precision_keys(r, run);
  // The time of one step from tps: tokens per step / (tps x GPUs).
  const double tokens = static_cast<double>(run.global_batch) * static_cast<double>(run.seq_len);
  for (auto& it : run.intervals) it.seconds = tokens / (*it.tokens_per_gpu_s * static_cast<double>(run.gpus));
  return run;
}

}  // namespace flopcast::io::detail

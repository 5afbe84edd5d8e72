// Reading a model mapping: a catalog preset (data/models.yaml) or a scenario's inline model.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>

#include "flopcast/workload/model_spec.hpp"
#include "yaml_util.hpp"

namespace flopcast::io {

using detail::child;
using detail::Reader;

namespace {

/// A positive integer key with a message of its own when it is 0 or less: `what` says what the
/// value is, `hint` how to fix it.
std::optional<std::int64_t> positive(const YAML::Node& n, const std::string& path, Reader& r, const std::string& what,
                                     const std::string& hint, std::int64_t hi = 100000000) {
  const auto v = r.integer(n, path, INT64_MIN / 2, hi);
  if (!v) return std::nullopt;
  if (*v < 1) {
    r.error(n, path, what + " must be at least 1, got " + std::to_string(*v), hint);
    return std::nullopt;
  }
  return v;
}

/// model.mla (DeepSeek-V2/V3 multi-head latent attention): kv_lora_rank and the three head widths
/// are required, q_lora_rank defaults to 0 (queries not compressed, DeepSeek-V2-Lite).
template <typename NoteDefault>
void read_mla(const YAML::Node& n, const std::string& path, Reader& r, workload::ModelSpec& m,
              NoteDefault&& note_default) {
  r.note(path, n);
  if (!r.expect_map(n, path)) return;
  r.check_keys(n, path, {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  workload::MlaSpec a;
  bool ok = true;
  auto need = [&](const char* key, std::int64_t& slot, const std::string& what, const std::string& hint) {
    if (!n[key]) {
      r.error(n, child(path, key), std::string("missing required key '") + key + "'", hint);
      ok = false;
    } else if (auto v = positive(n[key], child(path, key), r, what, hint)) {
      slot = *v;
    } else {
      ok = false;
    }
  };
  need("kv_lora_rank", a.kv_lora_rank, "kv_lora_rank (the width keys and values are compressed to)",
       "MLA compresses each token's keys and values to a latent of kv_lora_rank values (DeepSeek-V3: 512); "
       "for uncompressed attention drop model.mla and give kv_heads");
  need("qk_nope_head_dim", a.qk_nope_head_dim, "qk_nope_head_dim",
       "the per-head query/key width without RoPE (DeepSeek-V3: 128)");
  need("v_head_dim", a.v_head_dim, "v_head_dim", "the width of one value head (DeepSeek-V3: 128)");
  if (!n["qk_rope_head_dim"]) {
    r.error(n, child(path, "qk_rope_head_dim"), "missing required key 'qk_rope_head_dim'",
            "the decoupled RoPE part of queries and the shared key (DeepSeek-V3: 64; 0 for none)");
    ok = false;
  } else if (auto v = r.integer(n["qk_rope_head_dim"], child(path, "qk_rope_head_dim"), 0, 100000000)) {
    a.qk_rope_head_dim = *v;
  } else {
    ok = false;
  }
  if (n["q_lora_rank"]) {
    if (auto v = r.integer(n["q_lora_rank"], child(path, "q_lora_rank"), 0, 100000000))
      a.q_lora_rank = *v;
    else
      ok = false;
  } else {
    note_default("mla.q_lora_rank = 0 (queries not compressed)");
  }
  if (ok) m.mla = a;
}

/// model.sliding_window: {size, every}; every defaults to 1 (every layer windowed).
template <typename NoteDefault>
void read_sliding_window(const YAML::Node& n, const std::string& path, Reader& r, workload::ModelSpec& m,
                         NoteDefault&& note_default) {
  r.note(path, n);
  if (!r.expect_map(n, path)) return;
  r.check_keys(n, path, {"size", "every"});
  workload::SlidingWindow w;
  if (!n["size"]) {
    r.error(n, child(path, "size"), "missing required key 'size'",
            "the keys each query of a windowed layer attends to, e.g. size: 128 (GPT-OSS)");
    return;
  }
  if (auto v = positive(n["size"], child(path, "size"), r, "size (keys per query)",
                        "a window of at least one key, e.g. size: 128 (GPT-OSS) or 4096 (Mistral 7B)"))
    w.size = *v;
  else
    return;
  if (n["every"]) {
    if (auto v = positive(n["every"], child(path, "every"), r, "every",
                          "a windowed layer every N layers: 1 windows every layer, 2 every other (GPT-OSS)", 100000))
      w.every = static_cast<int>(*v);
    else
      return;
  } else {
    note_default("sliding_window.every = 1 (every layer windowed)");
  }
  m.sliding_window = w;
}

/// The MoE keys of the run schema's 2026 additions: layer_freq, shared_expert_ffn, node_limit,
/// capacity_factor.
void read_moe_2026(const YAML::Node& moe, const std::string& mp, Reader& r, workload::MoeSpec& s) {
  if (moe["layer_freq"]) {
    if (auto v = positive(moe["layer_freq"], child(mp, "layer_freq"), r, "layer_freq",
                          "an MoE layer every N layers after the dense ones: 1 for every layer, 2 for every other "
                          "(Llama 4 Maverick)",
                          100000))
      s.layer_freq = static_cast<int>(*v);
  }
  if (moe["shared_expert_ffn"]) {
    if (auto v = positive(moe["shared_expert_ffn"], child(mp, "shared_expert_ffn"), r, "shared_expert_ffn",
                          "the intermediate size of one shared expert, e.g. 20480 (Qwen2-57B-A14B)"))
      s.shared_expert_ffn = *v;
    if (s.shared_experts == 0)
      r.error(moe["shared_expert_ffn"], child(mp, "shared_expert_ffn"),
              "shared_expert_ffn sizes the shared experts, but shared_experts is 0",
              "add shared_experts: 1 (or more), or remove shared_expert_ffn");
  }
  if (moe["node_limit"]) {
    if (auto v = positive(moe["node_limit"], child(mp, "node_limit"), r, "node_limit",
                          "the most nodes one token's experts may span, e.g. node_limit: 4 (DeepSeek-V3)", 100000))
      s.node_limit = static_cast<int>(*v);
  }
  if (moe["capacity_factor"]) {
    if (auto v = r.number(moe["capacity_factor"], child(mp, "capacity_factor"), 0, 1000)) s.capacity_factor = *v;
  }
}

/// model.moe: experts and top_k required, expert_ffn defaulting to ffn, the 2026 keys.
template <typename NoteDefault>
void read_moe(const YAML::Node& moe, const std::string& mp, Reader& r, workload::ModelSpec& m,
              NoteDefault&& note_default) {
  if (r.expect_map(moe, mp)) {
    r.check_keys(moe, mp,
                 {"experts", "top_k", "expert_ffn", "shared_experts", "dense_layers", "layer_freq", "shared_expert_ffn",
                  "node_limit", "capacity_factor"});
    workload::MoeSpec s;
    if (!moe["experts"])
      r.error(moe, child(mp, "experts"), "missing required key 'experts'",
              "routed experts per MoE layer, e.g. experts: 8");
    else if (auto v = r.integer(moe["experts"], child(mp, "experts"), 1, 100000))
      s.experts = static_cast<int>(*v);
    if (!moe["top_k"])
      r.error(moe, child(mp, "top_k"), "missing required key 'top_k'", "routed experts per token, e.g. top_k: 2");
    else if (auto v = r.integer(moe["top_k"], child(mp, "top_k"), 1, 1024))
      s.top_k = static_cast<int>(*v);
    if (moe["expert_ffn"]) {
      if (auto v = r.integer(moe["expert_ffn"], child(mp, "expert_ffn"), 1, 100000000)) s.expert_ffn = *v;
    } else {
      s.expert_ffn = m.ffn;
      note_default("moe.expert_ffn = ffn");
    }
    if (moe["shared_experts"]) {
      if (auto v = r.integer(moe["shared_experts"], child(mp, "shared_experts"), 0, 1024))
        s.shared_experts = static_cast<int>(*v);
    }
    if (moe["dense_layers"]) {
      if (auto v = r.integer(moe["dense_layers"], child(mp, "dense_layers"), 0, 100000))
        s.dense_layers = static_cast<int>(*v);
    }
    if (s.top_k > s.experts && s.experts > 0)
      r.error(moe["top_k"], child(mp, "top_k"),
              "top_k " + std::to_string(s.top_k) + " exceeds experts " + std::to_string(s.experts));
    read_moe_2026(moe, mp, r, s);
    m.moe = s;
  }
}

}  // namespace

/// Reads the model keys of `n` into `m`. Catalog entries must give every shape key; inline
/// models may omit the run schema's optional keys, whose defaults are appended to `defaults`.
void read_model_fields(const YAML::Node& n, const std::string& path, Reader& r, workload::ModelSpec& m,
                       bool catalog_entry, std::vector<std::string>* defaults) {
  if (catalog_entry) {
    r.check_keys(n, path, {"name",       "display",  "aliases",    "layers",         "hidden",  "heads",
                           "kv_heads",   "ffn",      "ffn_kind",   "vocab",          "seq_len", "head_dim",
                           "embeddings", "position", "norm",       "bias",           "dropout", "params_published",
                           "moe",        "mla",      "mtp_layers", "sliding_window", "source",  "notes"});
    if (auto v = r.string(n["name"], child(path, "name"))) m.name = *v;
    m.display = n["display"] ? n["display"].as<std::string>() : m.name;
    if (n["aliases"].IsSequence())
      for (const auto& a : n["aliases"]) m.aliases.push_back(a.as<std::string>());
    if (n["source"]) m.source = n["source"].as<std::string>();
  }
  // Shape keys. For overrides of a preset only present keys are read (m holds the preset).
  const bool need = catalog_entry || m.layers == 0;
  auto int_key = [&](const char* key, std::int64_t lo, std::int64_t hi, auto& slot) {
    if (n[key]) {
      if (auto v = r.integer(n[key], child(path, key), lo, hi))
        slot = static_cast<std::remove_reference_t<decltype(slot)>>(*v);
    } else if (need) {
      r.error(n, child(path, key), std::string("missing required key '") + key + "'");
    }
  };
  int_key("layers", 1, 100000, m.layers);
  int_key("hidden", 1, 10000000, m.hidden);
  int_key("heads", 1, 100000, m.heads);
  int_key("vocab", 1, 100000000, m.vocab);
  int_key("seq_len", 1, 100000000, m.seq_len);
  auto note_default = [&](const std::string& what) {
    if (defaults) defaults->push_back(child(path, what));
  };
  if (n["mla"]) read_mla(n["mla"], child(path, "mla"), r, m, note_default);
  if (m.mla) {
    // MLA: every head has its own key and value (the kv up projection's), so kv_heads and head_dim
    // are MLA's, not the scenario's to give.
    for (const char* key : {"kv_heads", "head_dim"})
      if (n[key])
        r.error(n[key], child(path, key),
                std::string(key) + " does not apply with model.mla: each of the " + std::to_string(m.heads) +
                    " heads has its own key and value from the kv up projection, of qk_nope_head_dim + "
                    "qk_rope_head_dim and v_head_dim",
                std::string("remove ") + key + " (or model.mla, for grouped-query attention)");
    m.kv_heads = m.heads;
    m.attention_head_dim = 0;
  } else if (n["kv_heads"]) {
    if (auto v = r.integer(n["kv_heads"], child(path, "kv_heads"), 1, 100000)) m.kv_heads = static_cast<int>(*v);
  } else if (need || m.kv_heads == 0) {
    m.kv_heads = m.heads;
    note_default("kv_heads = heads = " + std::to_string(m.heads));
  }
  if (m.mla) {
    // head widths are MLA's (read_mla)
  } else if (n["head_dim"]) {
    if (auto v = r.integer(n["head_dim"], child(path, "head_dim"), 1, 1000000)) m.attention_head_dim = *v;
  } else if (need && !catalog_entry && m.heads > 0 && m.hidden % m.heads == 0) {
    note_default("head_dim = hidden/heads = " + std::to_string(m.hidden / m.heads));
  }
  if (n["ffn_kind"]) {
    if (auto v = r.choice(n["ffn_kind"], child(path, "ffn_kind"), {"gelu", "swiglu"}))
      m.ffn_kind = *v == "swiglu" ? workload::FfnKind::SwiGlu : workload::FfnKind::Gelu;
  } else if (need) {
    m.ffn_kind = workload::FfnKind::Gelu;
    note_default("ffn_kind = gelu");
  }
  if (n["ffn"]) {
    if (auto v = r.integer(n["ffn"], child(path, "ffn"), 1, 100000000)) m.ffn = *v;
  } else if (need || m.ffn == 0) {
    m.ffn = 4 * m.hidden;
    note_default("ffn = 4*hidden = " + std::to_string(m.ffn));
  }
  // Architecture details outside the run schema. Defaults follow the FFN kind: GeLU models
  // are GPT-style (tied embeddings, learned positions, LayerNorm, biases), SwiGLU models
  // Llama-style (untied head, RoPE, RMSNorm, no biases).
  const bool gpt = m.ffn_kind == workload::FfnKind::Gelu;
  if (n["embeddings"]) {
    if (auto v = r.choice(n["embeddings"], child(path, "embeddings"), {"tied", "untied"}))
      m.tied_embeddings = *v == "tied";
  } else if (need) {
    m.tied_embeddings = gpt;
    note_default(std::string("embeddings = ") + (gpt ? "tied" : "untied"));
  }
  if (n["position"]) {
    if (auto v = r.choice(n["position"], child(path, "position"), {"learned", "rope"}))
      m.learned_positions = *v == "learned";
  } else if (need) {
    m.learned_positions = gpt;
    if (!catalog_entry) note_default(std::string("position = ") + (gpt ? "learned" : "rope"));
  }
  if (n["norm"]) {
    if (auto v = r.choice(n["norm"], child(path, "norm"), {"layernorm", "rmsnorm"})) m.rmsnorm = *v == "rmsnorm";
  } else if (need) {
    m.rmsnorm = !gpt;
    if (!catalog_entry) note_default(std::string("norm = ") + (gpt ? "layernorm" : "rmsnorm"));
  }
  if (n["bias"]) {
    if (auto v = r.boolean(n["bias"], child(path, "bias"))) m.bias = *v;
  } else if (need) {
    m.bias = gpt;
    if (!catalog_entry) note_default(std::string("bias = ") + (gpt ? "true" : "false"));
  }
  if (n["dropout"]) {
    if (auto v = r.boolean(n["dropout"], child(path, "dropout"))) m.dropout = *v;
  } else if (need) {
    m.dropout = gpt;
    if (!catalog_entry) note_default(std::string("dropout = ") + (gpt ? "true" : "false"));
  }
  if (n["params_published"]) {
    if (auto v = r.number(n["params_published"], child(path, "params_published"), 0, 1e15)) m.params_published = *v;
  }
  if (n["mtp_layers"]) {
    if (auto v = r.integer(n["mtp_layers"], child(path, "mtp_layers"), 0, 64)) m.mtp_layers = static_cast<int>(*v);
  }
  if (n["sliding_window"]) read_sliding_window(n["sliding_window"], child(path, "sliding_window"), r, m, note_default);
  if (const auto moe = n["moe"]; moe) read_moe(moe, child(path, "moe"), r, m, note_default);
}

}  // namespace flopcast::io

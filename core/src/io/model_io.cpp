// Reading a model mapping: a catalog preset (data/models.yaml) or a scenario's inline model.
#include <yaml-cpp/yaml.h>

#include "flopcast/workload/model_spec.hpp"
#include "yaml_util.hpp"

namespace flopcast::io {

using detail::child;
using detail::Reader;

/// Reads the model keys of `n` into `m`. Catalog entries must give every shape key; inline
/// models may omit the run schema's optional keys, whose defaults are appended to `defaults`.
void read_model_fields(const YAML::Node& n, const std::string& path, Reader& r, ModelSpec& m, bool catalog_entry,
                       std::vector<std::string>* defaults) {
  if (catalog_entry) {
    r.check_keys(n, path, {"name", "display",  "aliases", "layers",           "hidden",   "heads",      "kv_heads",
                           "ffn",  "ffn_kind", "vocab",   "seq_len",          "head_dim", "embeddings", "position",
                           "norm", "bias",     "dropout", "params_published", "moe",      "source",     "notes"});
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
  if (n["kv_heads"]) {
    if (auto v = r.integer(n["kv_heads"], child(path, "kv_heads"), 1, 100000)) m.kv_heads = static_cast<int>(*v);
  } else if (need || m.kv_heads == 0) {
    m.kv_heads = m.heads;
    note_default("kv_heads = heads = " + std::to_string(m.heads));
  }
  if (n["head_dim"]) {
    if (auto v = r.integer(n["head_dim"], child(path, "head_dim"), 1, 1000000)) m.attention_head_dim = *v;
  } else if (need && !catalog_entry && m.heads > 0 && m.hidden % m.heads == 0) {
    note_default("head_dim = hidden/heads = " + std::to_string(m.hidden / m.heads));
  }
  if (n["ffn_kind"]) {
    if (auto v = r.choice(n["ffn_kind"], child(path, "ffn_kind"), {"gelu", "swiglu"}))
      m.ffn_kind = *v == "swiglu" ? FfnKind::SwiGlu : FfnKind::Gelu;
  } else if (need) {
    m.ffn_kind = FfnKind::Gelu;
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
  const bool gpt = m.ffn_kind == FfnKind::Gelu;
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
  if (const auto moe = n["moe"]; moe) {
    const auto mp = child(path, "moe");
    if (r.expect_map(moe, mp)) {
      r.check_keys(moe, mp, {"experts", "top_k", "expert_ffn", "shared_experts", "dense_layers"});
      MoeSpec s;
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
      m.moe = s;
    }
  }
}

}  // namespace flopcast::io

#include "flopcast/io/scenario_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <sstream>
#include <string_view>
#include <utility>

#include "flopcast/parallel/parallel_plan.hpp"

namespace flopcast::io {
namespace {

/// The model keys the form edits.
constexpr std::array<const char*, 7> kShapeKeys = {"layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "seq_len"};

bool is_one_of(std::string_view key, std::initializer_list<std::string_view> keys) {
  for (auto k : keys)
    if (k == key) return true;
  return false;
}

bool is_shape_key(std::string_view key) {
  for (const char* k : kShapeKeys)
    if (key == k) return true;
  return false;
}

std::int64_t shape_value(const ScenarioForm& f, std::string_view key) {
  if (key == "layers") return f.layers;
  if (key == "hidden") return f.hidden;
  if (key == "heads") return f.heads;
  if (key == "kv_heads") return f.kv_heads;
  if (key == "ffn") return f.ffn;
  if (key == "vocab") return f.vocab;
  return f.seq_len;
}

std::int64_t shape_value(const workload::ModelSpec& m, std::string_view key) {
  if (key == "layers") return m.layers;
  if (key == "hidden") return m.hidden;
  if (key == "heads") return m.heads;
  if (key == "kv_heads") return m.kv_heads;
  if (key == "ffn") return m.ffn;
  if (key == "vocab") return m.vocab;
  return m.seq_len;
}

/// Parses `text`; an empty map when it is empty or not a mapping. The text was accepted by
/// the loader when it was opened, so a parse failure here only means "start afresh".
YAML::Node load_root(const std::string& text) {
  if (text.empty()) return YAML::Node(YAML::NodeType::Map);
  try {
    YAML::Node root = YAML::Load(text);
    if (root.IsMap()) return root;
  } catch (const YAML::Exception&) {
    // Fall through: the form alone defines the document.
  }
  return YAML::Node(YAML::NodeType::Map);
}

/// `map[key]`, or an undefined node when `map` is not a mapping or lacks the key. (yaml-cpp's
/// const operator[] returns an invalid node for a missing key, which throws when inspected.)
YAML::Node get(const YAML::Node& map, const char* key) {
  if (!map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node v = map[key];
  return v ? v : YAML::Node(YAML::NodeType::Undefined);
}

/// Copies the keys of mapping `from` that `skip` rejects into `to`, in their order.
template <class Skip>
void copy_other_keys(const YAML::Node& from, YAML::Node& to, Skip skip) {
  if (!from.IsMap()) return;
  for (const auto& kv : from) {
    const std::string key = kv.first.Scalar();
    if (!skip(key)) to[key] = YAML::Clone(kv.second);
  }
}

/// The architecture keys of a preset, written when the user turns a preset into a custom
/// model, so the custom model stays the preset's architecture (model_io.cpp's vocabulary).
void write_architecture(const workload::ModelSpec& m, YAML::Node& out) {
  out["ffn_kind"] = m.ffn_kind == workload::FfnKind::SwiGlu ? "swiglu" : "gelu";
  out["embeddings"] = m.tied_embeddings ? "tied" : "untied";
  out["position"] = m.learned_positions ? "learned" : "rope";
  out["norm"] = m.rmsnorm ? "rmsnorm" : "layernorm";
  out["bias"] = m.bias;
  if (m.moe) {
    YAML::Node moe(YAML::NodeType::Map);
    moe["experts"] = m.moe->experts;
    moe["top_k"] = m.moe->top_k;
    moe["expert_ffn"] = m.moe->expert_ffn;
    moe["shared_experts"] = m.moe->shared_experts;
    moe["dense_layers"] = m.moe->dense_layers;
    if (m.moe->layer_freq > 1) moe["layer_freq"] = m.moe->layer_freq;
    if (m.moe->shared_expert_ffn > 0) moe["shared_expert_ffn"] = m.moe->shared_expert_ffn;
    if (m.moe->node_limit > 0) moe["node_limit"] = m.moe->node_limit;
    if (m.moe->capacity_factor > 0) moe["capacity_factor"] = m.moe->capacity_factor;
    out["moe"] = moe;
  }
  if (m.mla) {
    YAML::Node mla(YAML::NodeType::Map);
    mla["q_lora_rank"] = m.mla->q_lora_rank;
    mla["kv_lora_rank"] = m.mla->kv_lora_rank;
    mla["qk_nope_head_dim"] = m.mla->qk_nope_head_dim;
    mla["qk_rope_head_dim"] = m.mla->qk_rope_head_dim;
    mla["v_head_dim"] = m.mla->v_head_dim;
    out["mla"] = mla;
  }
  if (m.mtp_layers > 0) out["mtp_layers"] = m.mtp_layers;
  if (m.sliding_window) {
    YAML::Node w(YAML::NodeType::Map);
    w["size"] = m.sliding_window->size;
    w["every"] = m.sliding_window->every;
    out["sliding_window"] = w;
  }
}

/// Whether the model `f` describes has multi-head latent attention: its preset's (or, for a custom
/// shape, the preset it was made from, or the file's own custom model).
bool form_has_mla(const ScenarioForm& f, const Catalog& catalog, const YAML::Node& base) {
  const std::string& name = f.model_preset.empty() ? f.model_base : f.model_preset;
  if (const workload::ModelSpec* m = name.empty() ? nullptr : catalog.find_model(name)) return m->mla.has_value();
  return f.model_preset.empty() && base.IsMap() && !base["preset"] && base["mla"];
}

YAML::Node model_node(const YAML::Node& base, const ScenarioForm& f, const Catalog& catalog) {
  std::string base_preset;
  if (base.IsScalar())
    base_preset = base.Scalar();
  else if (base.IsMap() && base["preset"] && base["preset"].IsScalar())
    base_preset = base["preset"].Scalar();
  const bool base_custom = base.IsMap() && !base["preset"];
  const workload::ModelSpec* base_spec = base_preset.empty() ? nullptr : catalog.find_model(base_preset);

  YAML::Node m(YAML::NodeType::Map);
  // An MLA model's keys and values are MLA's: kv_heads is not written (the loader refuses it).
  const bool mla = form_has_mla(f, catalog, base);
  auto written = [&](std::string_view key) { return !(mla && key == "kv_heads"); };
  if (!f.model_preset.empty()) {
    const workload::ModelSpec* preset = catalog.find_model(f.model_preset);
    m["preset"] = f.model_preset;
    if (preset) {
      for (const char* key : kShapeKeys)
        if (written(key) && shape_value(f, key) != shape_value(*preset, key)) m[key] = shape_value(f, key);
    }
    // The base's other keys (name, architecture overrides) belong to its preset only.
    if (base.IsMap() && preset && base_spec == preset)
      copy_other_keys(base, m, [](const std::string& k) { return k == "preset" || is_shape_key(k); });
    if (m.size() == 1) return YAML::Node(f.model_preset);
    return m;
  }
  const workload::ModelSpec* from = f.model_base.empty() ? nullptr : catalog.find_model(f.model_base);
  if (from)
    m["name"] = from->display + " (custom)";
  else if (base_custom && base["name"])
    m["name"] = YAML::Clone(base["name"]);
  for (const char* key : kShapeKeys)
    if (written(key)) m[key] = shape_value(f, key);
  if (from)
    write_architecture(*from, m);
  else if (base_custom)
    copy_other_keys(base, m, [](const std::string& k) { return k == "name" || is_shape_key(k); });
  return m;
}

YAML::Node cluster_node(const YAML::Node& base, const ScenarioForm& f) {
  YAML::Node c(YAML::NodeType::Map);
  c["gpu"] = f.gpu;
  c["gpus"] = f.gpus;
  c["gpus_per_node"] = f.gpus_per_node;
  if (f.fabric == kFabricFromFile) {
    if (base.IsMap() && base["fabric"]) c["fabric"] = YAML::Clone(base["fabric"]);
  } else if (!f.fabric.empty()) {
    c["fabric"] = f.fabric;
  }
  copy_other_keys(base, c, [](const std::string& k) {
    return is_one_of(k, {"gpu", "gpus", "gpus_per_node", "fabric"});
  });
  return c;
}

YAML::Node parallel_node(const YAML::Node& base, const ScenarioForm& f) {
  YAML::Node p(YAML::NodeType::Map);
  p["tp"] = f.tp;
  p["pp"] = f.pp;
  if (!f.dp_auto) p["dp"] = f.dp;
  p["cp"] = f.cp;
  p["ep"] = f.ep;
  p["vpp"] = f.vpp;
  p["sequence_parallel"] = f.sequence_parallel;
  p["zero"] = f.zero;
  p["micro_batch"] = f.micro_batch;
  p["global_batch"] = f.global_batch;
  p["recompute"] = f.recompute;
  p["schedule"] = f.schedule;
  if (f.first_stage_layers > 0 || f.last_stage_layers > 0 || f.account_for_embedding || f.account_for_loss) {
    YAML::Node l(YAML::NodeType::Map);
    if (f.first_stage_layers > 0) l["first_stage_layers"] = f.first_stage_layers;
    if (f.last_stage_layers > 0) l["last_stage_layers"] = f.last_stage_layers;
    if (f.account_for_embedding) l["account_for_embedding"] = true;
    if (f.account_for_loss) l["account_for_loss"] = true;
    p["pipeline_layout"] = l;
  }
  if (!f.moe_dispatcher.empty()) p["moe_dispatcher"] = f.moe_dispatcher;
  if (!f.moe_dispatch_dtype.empty()) p["moe_dispatch_dtype"] = f.moe_dispatch_dtype;
  if (!f.fsdp.empty()) {
    YAML::Node fsdp(YAML::NodeType::Map);
    fsdp["reshard_after_forward"] = f.fsdp == "reshard";
    p["fsdp"] = fsdp;
  }
  copy_other_keys(base, p, [](const std::string& k) {
    return is_one_of(k,
                     {"tp", "pp", "dp", "cp", "ep", "vpp", "sequence_parallel", "zero", "micro_batch", "global_batch",
                      "recompute", "schedule", "pipeline_layout", "moe_dispatcher", "moe_dispatch_dtype", "fsdp"});
  });
  return p;
}

YAML::Node training_node(const YAML::Node& base, const ScenarioForm& f) {
  YAML::Node t(YAML::NodeType::Map);
  if (!f.tokens.empty()) t["tokens"] = f.tokens;
  copy_other_keys(base, t, [](const std::string& k) { return k == "tokens"; });
  return t;
}

YAML::Node pricing_node(const YAML::Node& base, const ScenarioForm& f) {
  YAML::Node p(YAML::NodeType::Map);
  p["catalog"] = f.pricing_catalog;
  copy_other_keys(base, p, [](const std::string& k) { return k == "catalog"; });
  return p;
}

}  // namespace

void set_parallel_plan(ScenarioForm& f, const parallel::ParallelPlan& p) {
  f.tp = p.tp;
  f.pp = p.pp;
  f.dp = p.dp;
  f.dp_auto = false;
  f.cp = p.cp;
  f.ep = p.ep;
  f.vpp = p.vpp;
  f.sequence_parallel = p.sequence_parallel;
  f.zero = p.zero;
  f.micro_batch = p.micro_batch;
  f.global_batch = p.global_batch;
  f.recompute = to_string(p.recompute);
  f.schedule = to_string(p.schedule);
  const parallel::PipelineLayout layout = p.pipeline_layout.value_or(parallel::PipelineLayout{});
  f.first_stage_layers = layout.first_stage_layers;
  f.last_stage_layers = layout.last_stage_layers;
  f.account_for_embedding = layout.account_for_embedding;
  f.account_for_loss = layout.account_for_loss;
  // A plan from the planner states no dispatcher or FSDP: the form keeps its own (FSDP only with
  // ZeRO-3, which it is).
  if (p.moe_dispatcher) f.moe_dispatcher = to_string(*p.moe_dispatcher);
  if (p.dispatch_dtype != parallel::DispatchDtype::BF16) f.moe_dispatch_dtype = to_string(p.dispatch_dtype);
  if (p.fsdp)
    f.fsdp = p.fsdp->reshard_after_forward ? "reshard" : "keep";
  else if (p.zero != 3)
    f.fsdp.clear();
}

void set_model_shape(ScenarioForm& f, const workload::ModelSpec& m) {
  f.layers = m.layers;
  f.hidden = m.hidden;
  f.heads = m.heads;
  f.kv_heads = m.kv_heads;
  f.ffn = m.ffn;
  f.vocab = m.vocab;
  f.seq_len = m.seq_len;
}

ScenarioForm form_from_scenario(const scenario::Scenario& s, const std::string& yaml_text) {
  ScenarioForm f;
  f.name = s.name;
  f.model_preset = s.model.name == "custom" ? "" : s.model.name;
  set_model_shape(f, s.model);
  f.gpu = s.cluster.gpu.name;
  f.gpus = s.cluster.gpus;
  f.gpus_per_node = s.cluster.gpus_per_node;
  set_parallel_plan(f, s.plan);
  f.precision = to_string(s.precision);

  const YAML::Node root = load_root(yaml_text);
  const YAML::Node fabric = get(get(root, "cluster"), "fabric");
  if (fabric.IsScalar())
    f.fabric = s.cluster.fabric.name;
  else if (fabric.IsMap())
    f.fabric = kFabricFromFile;
  f.dp_auto = !get(get(root, "parallel"), "dp");
  if (s.has_pricing) f.pricing_catalog = s.pricing.catalog;
  if (const YAML::Node tokens = get(get(root, "training"), "tokens"); tokens.IsScalar()) f.tokens = tokens.Scalar();
  return f;
}

std::string compose_scenario_yaml(const std::string& base_yaml, const ScenarioForm& form, const Catalog& catalog) {
  const YAML::Node base = load_root(base_yaml);
  // The form's blocks, in the order a scenario file is usually written.
  std::vector<std::pair<std::string, YAML::Node>> owned;
  if (!form.name.empty()) owned.emplace_back("name", YAML::Node(form.name));
  owned.emplace_back("model", model_node(get(base, "model"), form, catalog));
  owned.emplace_back("cluster", cluster_node(get(base, "cluster"), form));
  owned.emplace_back("parallel", parallel_node(get(base, "parallel"), form));
  owned.emplace_back("precision", YAML::Node(form.precision));
  if (YAML::Node t = training_node(get(base, "training"), form); t.size() > 0) owned.emplace_back("training", t);
  if (!form.pricing_catalog.empty()) owned.emplace_back("pricing", pricing_node(get(base, "pricing"), form));

  auto owned_node = [&](const std::string& key) -> const YAML::Node* {
    for (const auto& [k, n] : owned)
      if (k == key) return &n;
    return nullptr;
  };
  auto form_owns = [](const std::string& key) {
    return is_one_of(key, {"name", "model", "cluster", "parallel", "precision", "training", "pricing"});
  };
  // The base's keys keep their order; the form's replace them in place; new ones follow.
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : base) {
    const std::string key = kv.first.Scalar();
    if (!form_owns(key))
      out[key] = YAML::Clone(kv.second);
    else if (const YAML::Node* n = owned_node(key))
      out[key] = *n;
  }
  for (const auto& [k, n] : owned) {
    const YAML::Node& written = out;  // const lookup: never inserts
    if (!written[k]) out[k] = n;
  }

  YAML::Emitter em;
  em << out;
  return std::string(em.c_str()) + "\n";
}

namespace {

/// What each key compose_scenario_yaml writes means, as a comment after it.
struct KeyComment {
  std::string_view key;
  std::string_view comment;
};
constexpr KeyComment kKeyComments[] = {
    {"name", "shown at the top of every report"},
    {"model", "a preset (flopcast catalog models), {preset: NAME, seq_len: N}, or an inline shape"},
    {"model.preset", "flopcast catalog models"},
    {"cluster.gpu", "flopcast catalog gpus"},
    {"cluster.gpus", "GPUs of the job; a multiple of gpus_per_node keeps whole nodes"},
    {"cluster.gpus_per_node", "GPUs per node (NVLink domain)"},
    {"cluster.fabric", "node and network: flopcast catalog fabrics (default: the GPU's usual node)"},
    {"parallel.tp", "tensor parallel: GPUs that split each layer, inside a node"},
    {"parallel.pp", "pipeline stages"},
    {"parallel.dp", "data-parallel replicas: tp * pp * dp * cp = gpus"},
    {"parallel.cp", "context parallel: GPUs that split each sequence"},
    {"parallel.ep", "expert parallel (MoE models)"},
    {"parallel.vpp", "virtual stages per pipeline rank (interleaved schedule)"},
    {"parallel.sequence_parallel", "with tp > 1: norms and dropout split along the sequence"},
    {"parallel.zero", "0-3: ZeRO stage (3 = FSDP full shard)"},
    {"parallel.micro_batch", "sequences per micro-batch"},
    {"parallel.global_batch", "sequences per step, a multiple of dp * micro_batch"},
    {"parallel.recompute", "none | selective | full"},
    {"parallel.schedule", "gpipe | 1f1b | interleaved | zero-bubble | dualpipe | dualpipev"},
    {"parallel.pipeline_layout", "uneven stages: first/last_stage_layers or account_for_embedding/loss"},
    {"parallel.moe_dispatcher", "alltoall | allgather | deepep | hybridep (MoE token dispatch)"},
    {"parallel.moe_dispatch_dtype", "bf16 | fp8 | mxfp8: the MoE dispatch that feeds 8-bit expert GEMMs"},
    {"parallel.fsdp", "FSDP2 (torch fully_shard): ZeRO-3 with per-layer gathers"},
    {"precision", "fp32 | fp16 | bf16 | fp8 (mxfp8, nvfp4: Blackwell)"},
    {"training.tokens", "unit strings work: 1T, 300B; days, GPU-hours and bills need it"},
    {"pricing.catalog", "price list the bills use: flopcast catalog prices"},
};

std::string_view comment_of(const std::string& path) {
  for (const auto& c : kKeyComments)
    if (c.key == path) return c.comment;
  return {};
}

}  // namespace

std::string commented_scenario_yaml(const ScenarioForm& form, const Catalog& catalog,
                                    const std::vector<std::string>& header) {
  const std::string yaml = compose_scenario_yaml("", form, catalog);
  std::string out;
  for (const auto& h : header) out += h.empty() ? "#\n" : "# " + h + "\n";
  // The writer's block style: two spaces per level, "key: value" or "key:" before a mapping.
  std::istringstream in(yaml);
  std::vector<std::string> parents;
  std::string line;
  std::vector<std::pair<std::string, std::string_view>> lines;
  std::size_t width = 0;
  while (std::getline(in, line)) {
    const std::size_t indent = line.find_first_not_of(' ');
    const std::size_t colon = line.find(':');
    std::string_view comment;
    if (indent != std::string::npos && colon != std::string::npos && line[indent] != '-') {
      parents.resize(std::min(parents.size(), indent / 2));
      std::string path;
      for (const auto& p : parents) path += p + ".";
      const std::string key = line.substr(indent, colon - indent);
      path += key;
      comment = comment_of(path);
      parents.push_back(key);
    }
    if (!comment.empty()) width = std::max(width, line.size());
    lines.emplace_back(line, comment);
  }
  for (const auto& [text, comment] : lines) {
    out += text;
    if (!comment.empty()) out += std::string(width + 2 - text.size(), ' ') + "# " + std::string(comment);
    out += "\n";
  }
  return out;
}

}  // namespace flopcast::io

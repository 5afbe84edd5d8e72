#include "flopcast/io/scenario_draft.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <optional>
#include <utility>

namespace flopcast::io {
namespace {

YAML::Node load(const std::string& yaml) {
  try {
    YAML::Node root = YAML::Load(yaml);
    if (root.IsMap()) return root;
  } catch (const YAML::Exception&) {
    // Not YAML: nothing to read.
  }
  return YAML::Node(YAML::NodeType::Map);
}

/// `map[key]` when `map` is a mapping holding `key`; an undefined node otherwise.
YAML::Node child(const YAML::Node& map, const char* key) {
  if (!map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node v = map[key];
  return v ? v : YAML::Node(YAML::NodeType::Undefined);
}

void read_text(const YAML::Node& map, const char* key, std::string& out) {
  const YAML::Node n = child(map, key);
  if (n.IsScalar()) out = n.Scalar();
}

void read_int(const YAML::Node& map, const char* key, std::int64_t& out) {
  const YAML::Node n = child(map, key);
  if (!n.IsScalar()) return;
  try {
    out = n.as<std::int64_t>();
  } catch (const YAML::Exception&) {
    // Left at the default: the loader's diagnostic names the value.
  }
}

void read_bool(const YAML::Node& map, const char* key, bool& out) {
  const YAML::Node n = child(map, key);
  if (!n.IsScalar()) return;
  try {
    out = n.as<bool>();
  } catch (const YAML::Exception&) {
    // As read_int.
  }
}

void read_shape(const YAML::Node& m, ScenarioForm& f) {
  read_int(m, "layers", f.layers);
  read_int(m, "hidden", f.hidden);
  read_int(m, "heads", f.heads);
  read_int(m, "kv_heads", f.kv_heads);
  read_int(m, "ffn", f.ffn);
  read_int(m, "vocab", f.vocab);
  read_int(m, "seq_len", f.seq_len);
}

void use_preset(const std::string& name, const Catalog& catalog, ScenarioForm& f) {
  f.model_preset = name;
  f.model_base.clear();
  if (const workload::ModelSpec* m = catalog.find_model(name)) set_model_shape(f, *m);
}

void read_model(const YAML::Node& m, const Catalog& catalog, ScenarioForm& f) {
  if (m.IsScalar()) {
    use_preset(m.Scalar(), catalog, f);
  } else if (m.IsMap()) {
    std::string preset;
    read_text(m, "preset", preset);
    if (!preset.empty()) {
      use_preset(preset, catalog, f);
    } else {
      f.model_preset.clear();
      f.model_base.clear();
    }
    read_shape(m, f);
  }
}

void read_parallel(const YAML::Node& p, ScenarioForm& f) {
  read_int(p, "tp", f.tp);
  read_int(p, "pp", f.pp);
  read_int(p, "cp", f.cp);
  read_int(p, "ep", f.ep);
  read_int(p, "vpp", f.vpp);
  f.dp_auto = !child(p, "dp");
  read_int(p, "dp", f.dp);
  read_bool(p, "sequence_parallel", f.sequence_parallel);
  read_int(p, "zero", f.zero);
  read_int(p, "micro_batch", f.micro_batch);
  read_int(p, "global_batch", f.global_batch);
  read_text(p, "recompute", f.recompute);
  read_text(p, "schedule", f.schedule);
}

}  // namespace

ScenarioForm draft_form(const std::string& yaml, const Catalog& catalog, ScenarioForm defaults) {
  ScenarioForm f = std::move(defaults);
  const YAML::Node root = load(yaml);
  bool any = false;
  for (const char* k : {"name", "model", "cluster", "parallel", "precision", "training", "pricing"})
    any = any || child(root, k);
  if (!any) return f;
  f.name.clear();
  read_text(root, "name", f.name);
  read_model(child(root, "model"), catalog, f);
  const YAML::Node c = child(root, "cluster");
  read_text(c, "gpu", f.gpu);
  read_int(c, "gpus", f.gpus);
  read_int(c, "gpus_per_node", f.gpus_per_node);
  const YAML::Node fabric = child(c, "fabric");
  if (fabric.IsScalar())
    f.fabric = fabric.Scalar();
  else if (fabric.IsMap())
    f.fabric = kFabricFromFile;
  else
    f.fabric.clear();
  read_parallel(child(root, "parallel"), f);
  read_text(root, "precision", f.precision);
  f.tokens.clear();
  read_text(child(root, "training"), "tokens", f.tokens);
  f.pricing_catalog.clear();
  read_text(child(root, "pricing"), "catalog", f.pricing_catalog);
  return f;
}

bool looks_like_fleet_file(const std::string& yaml) {
  const YAML::Node root = load(yaml);
  const bool fleet_keys = child(root, "pools") || child(root, "job_classes");
  const bool scenario_keys = child(root, "model") || child(root, "cluster");
  return fleet_keys && !scenario_keys;
}

}  // namespace flopcast::io

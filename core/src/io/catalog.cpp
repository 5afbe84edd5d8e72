#include "flopcast/io/catalog.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "flopcast/io/embedded_data.hpp"
#include "unit_reader.hpp"
#include "yaml_util.hpp"

namespace flopcast::io {
namespace {

using detail::child;
using detail::Reader;

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

YAML::Node parse_yaml(const std::string& text, const std::string& file, Diagnostics& diags) {
  return detail::load_yaml(text, file, diags);
}

void load_gpus(const YAML::Node& root, Reader& r, std::vector<GpuSpec>& out) {
  if (!r.expect_map(root, "")) return;
  r.check_keys(root, "", {"gpus"});
  const auto list = root["gpus"];
  if (!list.IsSequence()) {
    r.error(root, "gpus", "expected a list of GPUs");
    return;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto n = list[i];
    const std::string p = "gpus[" + std::to_string(i) + "]";
    if (!r.expect_map(n, p)) continue;
    r.check_keys(n, p,
                 {"name", "aliases", "arch", "sm_count", "dense_tflops", "hbm_gib", "hbm_tbps", "l2_mib", "nvlink",
                  "nvls", "tdp_w", "default_fabric", "source", "notes"});
    GpuSpec g;
    if (auto v = r.string(n["name"], child(p, "name"))) g.name = *v;
    if (n["aliases"].IsSequence())
      for (const auto& a : n["aliases"]) g.aliases.push_back(a.as<std::string>());
    if (auto v = r.choice(n["arch"], child(p, "arch"), {"ampere", "hopper", "blackwell", "blackwell_ultra", "ada"}))
      g.arch = *parse_gpu_arch(*v);
    // Above 16: Transformer Engine's TP comm-GEMM overlap runs its kernels on 16 SMs
    // (tp_overlap_sm_share); every training GPU has far more (A100 108, H100 132).
    if (auto v = r.integer(n["sm_count"], child(p, "sm_count"), 17, 10000)) g.sm_count = static_cast<int>(*v);
    if (n["dense_tflops"].IsMap()) {
      for (const auto& kv : n["dense_tflops"]) {
        const auto key = kv.first.Scalar();
        const auto prec = parse_precision(key);
        if (!prec) {
          r.error(kv.first, child(p, "dense_tflops." + key), "unknown precision '" + key + "'",
                  "expected fp32, tf32, fp16, bf16, fp8, fp4, mxfp8 or nvfp4");
          continue;
        }
        if (auto v = r.number(kv.second, child(p, "dense_tflops." + key), 0.001, 1e6))
          g.dense_peak[*prec] = FlopRate::from_tflops(*v);
      }
    } else {
      r.error(n, child(p, "dense_tflops"), "missing dense peak table");
    }
    if (auto v = detail::read_quantity(r, n["hbm_gib"], child(p, "hbm_gib"), detail::kGiB, 1, 1e5)) g.hbm = gib(*v);
    if (auto v = detail::read_quantity(r, n["hbm_tbps"], child(p, "hbm_tbps"), detail::kTBytePerS, 0.01, 1e3))
      g.hbm_bandwidth = Bandwidth{*v * 1e12};
    if (n["l2_mib"]) {
      if (auto v = detail::read_quantity(r, n["l2_mib"], child(p, "l2_mib"), detail::kMiB, 0, 1e5))
        g.l2 = Bytes{*v * 1048576.0};
    }
    if (const auto nv = n["nvlink"]; nv.IsMap()) {
      r.check_keys(nv, child(p, "nvlink"), {"generation", "links", "one_way_gbps", "nccl_gbps_per_link"});
      if (auto v = r.integer(nv["generation"], child(p, "nvlink.generation"), 0, 10))
        g.nvlink_generation = static_cast<int>(*v);
      if (auto v = r.integer(nv["links"], child(p, "nvlink.links"), 0, 64)) g.nvlink_links = static_cast<int>(*v);
      if (auto v =
              detail::read_quantity(r, nv["one_way_gbps"], child(p, "nvlink.one_way_gbps"), detail::kGBytePerS, 0, 1e5))
        g.nvlink_one_way = Bandwidth::from_gbytes_per_s(*v);
      if (auto v = r.number(nv["nccl_gbps_per_link"], child(p, "nvlink.nccl_gbps_per_link"), 0, 1e4))
        g.nccl_nvlink = Bandwidth::from_gbytes_per_s(*v * g.nvlink_links);
    }
    if (n["nvls"]) {
      if (auto v = r.boolean(n["nvls"], child(p, "nvls"))) g.nvls = *v;
    }
    if (auto v = r.number(n["tdp_w"], child(p, "tdp_w"), 1, 1e5)) g.tdp_w = *v;
    if (auto v = r.string(n["default_fabric"], child(p, "default_fabric"))) g.default_fabric = *v;
    if (n["source"]) g.source = n["source"].as<std::string>();
    out.push_back(std::move(g));
  }
}

void load_fabrics(const YAML::Node& root, Reader& r, std::vector<FabricSpec>& out) {
  if (!r.expect_map(root, "")) return;
  r.check_keys(root, "", {"fabrics"});
  const auto list = root["fabrics"];
  if (!list.IsSequence()) {
    r.error(root, "fabrics", "expected a list of fabrics");
    return;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto n = list[i];
    const std::string p = "fabrics[" + std::to_string(i) + "]";
    if (!r.expect_map(n, p)) continue;
    r.check_keys(n, p,
                 {"name", "description", "gpus_per_node", "intra", "nvlink_domain", "kind", "nic_gbps", "nics_per_node",
                  "oversubscription", "node_power_kw", "source", "notes"});
    FabricSpec f;
    if (auto v = r.string(n["name"], child(p, "name"))) f.name = *v;
    if (n["description"]) f.description = n["description"].as<std::string>();
    if (auto v = r.integer(n["gpus_per_node"], child(p, "gpus_per_node"), 1, 1024))
      f.gpus_per_node = static_cast<int>(*v);
    if (auto v = r.choice(n["intra"], child(p, "intra"), {"nvswitch", "nvlink-direct", "pcie"}))
      f.intra = *v == "nvswitch" ? IntraNode::NVSwitch : *v == "pcie" ? IntraNode::PCIe : IntraNode::NVLinkDirect;
    f.nvlink_domain = f.gpus_per_node;
    if (n["nvlink_domain"]) {
      if (auto v = r.integer(n["nvlink_domain"], child(p, "nvlink_domain"), 1, 100000))
        f.nvlink_domain = static_cast<int>(*v);
    }
    if (auto v = r.choice(n["kind"], child(p, "kind"), {"infiniband", "roce", "ethernet"}))
      f.kind = *parse_net_kind(*v);
    if (auto v = detail::read_quantity(r, n["nic_gbps"], child(p, "nic_gbps"), detail::kGbitPerS, 1, 1e5))
      f.nic_gbps = *v;
    if (auto v = r.integer(n["nics_per_node"], child(p, "nics_per_node"), 1, 1024))
      f.nics_per_node = static_cast<int>(*v);
    if (n["oversubscription"]) {
      if (auto v = r.number(n["oversubscription"], child(p, "oversubscription"), 1, 100)) f.oversubscription = *v;
    }
    if (n["node_power_kw"]) {
      if (auto v = r.number(n["node_power_kw"], child(p, "node_power_kw"), 0, 1e4)) f.node_power_kw = *v;
    }
    if (n["source"]) f.source = n["source"].as<std::string>();
    out.push_back(std::move(f));
  }
}

}  // namespace

// Defined in model_io.cpp: parses one model mapping (preset catalog entry or inline).
void read_model_fields(const YAML::Node& n, const std::string& path, Reader& r, ModelSpec& m, bool catalog_entry,
                       std::vector<std::string>* defaults);

namespace {

void load_models(const YAML::Node& root, Reader& r, std::vector<ModelSpec>& out) {
  if (!r.expect_map(root, "")) return;
  r.check_keys(root, "", {"models"});
  const auto list = root["models"];
  if (!list.IsSequence()) {
    r.error(root, "models", "expected a list of models");
    return;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto n = list[i];
    const std::string p = "models[" + std::to_string(i) + "]";
    if (!r.expect_map(n, p)) continue;
    ModelSpec m;
    read_model_fields(n, p, r, m, true, nullptr);
    out.push_back(std::move(m));
  }
}

}  // namespace

const GpuSpec* Catalog::find_gpu(std::string_view name) const {
  for (const auto& g : gpus) {
    if (iequal(g.name, name)) return &g;
    for (const auto& a : g.aliases)
      if (iequal(a, name)) return &g;
  }
  return nullptr;
}

const FabricSpec* Catalog::find_fabric(std::string_view name) const {
  for (const auto& f : fabrics)
    if (iequal(f.name, name)) return &f;
  return nullptr;
}

const ModelSpec* Catalog::find_model(std::string_view name) const {
  for (const auto& m : models) {
    if (iequal(m.name, name) || iequal(m.display, name)) return &m;
    for (const auto& a : m.aliases)
      if (iequal(a, name)) return &m;
  }
  return nullptr;
}

std::vector<std::string> Catalog::gpu_names() const {
  std::vector<std::string> v;
  for (const auto& g : gpus) v.push_back(g.name);
  return v;
}
std::vector<std::string> Catalog::fabric_names() const {
  std::vector<std::string> v;
  for (const auto& f : fabrics) v.push_back(f.name);
  return v;
}
std::vector<std::string> Catalog::model_names() const {
  std::vector<std::string> v;
  for (const auto& m : models) v.push_back(m.name);
  return v;
}

std::optional<std::string> read_data_file(const std::string& data_dir, const std::string& relative_path) {
  if (!data_dir.empty()) {
    std::ifstream in(data_dir + "/" + relative_path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  for (const auto& f : data::embedded_files()) {
    if (f.path == relative_path) return std::string(f.content);
  }
  return std::nullopt;
}

std::optional<Catalog> load_catalog(const std::string& data_dir, Diagnostics& diags) {
  Catalog c;
  c.data_dir = data_dir;
  const std::string prefix = data_dir.empty() ? "<embedded>/data/" : data_dir + "/";
  const auto before = diags.items().size();
  auto load = [&](const std::string& rel, auto&& fn) {
    const auto text = read_data_file(data_dir, rel);
    if (!text) {
      diags.error({prefix + rel, 0, 0}, "", "catalog file not found",
                  "--data-dir must name a folder holding gpus.yaml, fabrics.yaml, models.yaml and profiles/");
      return;
    }
    const auto root = parse_yaml(*text, prefix + rel, diags);
    if (!root.IsDefined()) return;
    Reader r(prefix + rel, diags, nullptr);
    fn(root, r);
  };
  load("gpus.yaml", [&](const YAML::Node& root, Reader& r) { load_gpus(root, r, c.gpus); });
  load("fabrics.yaml", [&](const YAML::Node& root, Reader& r) { load_fabrics(root, r, c.fabrics); });
  load("models.yaml", [&](const YAML::Node& root, Reader& r) { load_models(root, r, c.models); });
  if (auto text = read_data_file(data_dir, "profiles/default.yaml")) {
    if (auto p = parse_profile(*text, prefix + "profiles/default.yaml", ComputeProfile{}, diags)) c.profile = *p;
  } else {
    diags.error({prefix + "profiles/default.yaml", 0, 0}, "", "calibration profile not found");
  }
  for (const auto& g : c.gpus) {
    if (!g.default_fabric.empty() && !c.find_fabric(g.default_fabric))
      diags.error({prefix + "gpus.yaml", 0, 0}, g.name + ".default_fabric", "unknown fabric '" + g.default_fabric + "'",
                  "use a name from fabrics.yaml");
  }
  for (std::size_t i = before; i < diags.items().size(); ++i)
    if (diags.items()[i].severity == Severity::Error) return std::nullopt;
  return c;
}

}  // namespace flopcast::io

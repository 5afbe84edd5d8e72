#include "flopcast/io/catalog.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "flopcast/io/embedded_data.hpp"
#include "flopcast/units/format.hpp"
#include "flopcast/units/text.hpp"
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

YAML::Node parse_yaml(const std::string& text, const std::string& file, scenario::Diagnostics& diags) {
  return detail::load_yaml(text, file, diags);
}

bool contains_word(std::string text, std::initializer_list<const char*> words) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return text.find(w) != std::string::npos; });
}

// A figure written as sparse ("1979 sparse", "with sparsity") where the dense peak is required.
bool sparse_marked(const YAML::Node& n) {
  return n && n.IsScalar() && contains_word(n.Scalar(), {"sparse", "sparsity"});
}
// A figure written as both directions ("900 bidirectional", "both directions", "bidir").
bool bidirectional_marked(const YAML::Node& n) {
  return n && n.IsScalar() && contains_word(n.Scalar(), {"bidir", "both direction", "two direction", "total"});
}

/// A catalog entry's `source:`, which every GPU and fabric must give (the constants it brings
/// cite where they come from); without one, an error naming `what` and what to cite.
std::string read_source(const YAML::Node& n, const std::string& p, Reader& r, const std::string& what,
                        const std::string& cite) {
  if (n["source"] && n["source"].IsScalar() && !n["source"].Scalar().empty()) return n["source"].Scalar();
  r.error(n["source"] ? n["source"] : n, child(p, "source"), what + " cites no source for its figures",
          "add source: " + cite);
  return {};
}

void read_dense_peaks(const YAML::Node& n, const std::string& p, Reader& r, hardware::GpuSpec& g) {
  if (n["sparse_tflops"])
    r.error(n["sparse_tflops"], child(p, "sparse_tflops"), "sparse peaks are not used",
            "give dense_tflops: the dense peak is half of NVIDIA's 'with sparsity' figure (H100 BF16: 1,979 sparse = "
            "989.4 dense)");
  if (!n["dense_tflops"] || !n["dense_tflops"].IsMap()) {
    r.error(n, child(p, "dense_tflops"), "missing dense peak table",
            "dense_tflops: {fp32: ..., tf32: ..., bf16: ..., fp16: ...} in TFLOP/s, one entry per precision the part "
            "has a tensor-core path for");
    return;
  }
  for (const auto& kv : n["dense_tflops"]) {
    const auto key = kv.first.Scalar();
    const std::string path = child(p, "dense_tflops." + key);
    if (key.size() > 7 && key.compare(key.size() - 7, 7, "_sparse") == 0) {
      r.error(kv.first, path, "'" + key + "' is a sparse figure; dense_tflops holds dense peaks only",
              "give " + key.substr(0, key.size() - 7) + ": half of the sparse figure");
      continue;
    }
    const auto prec = hardware::parse_precision(key);
    if (!prec) {
      r.error(kv.first, path, "unknown precision '" + key + "'",
              "expected fp32, tf32, fp16, bf16, fp8, fp4, mxfp8 or nvfp4");
      continue;
    }
    if (sparse_marked(kv.second)) {
      r.error(kv.second, path, "'" + kv.second.Scalar() + "' is marked sparse; dense_tflops holds dense peaks only",
              "give the dense peak: half of NVIDIA's 'with sparsity' figure, as a plain number of TFLOP/s");
      continue;
    }
    if (auto v = r.number(kv.second, path, 0.001, 1e6)) g.dense_peak[*prec] = units::FlopRate::from_tflops(*v);
  }
}

// NVLink's one-way rate per link, GB/s: 25 for NVLink 2 to 4 (A100 12 links = 300, H100 18 links =
// 450 one way), 50 for NVLink 5 (B200 18 links = 900; NVIDIA's 1.8 TB/s counts both directions).
double nvlink_link_one_way_gbs(int generation) { return generation >= 5 ? 50.0 : 25.0; }

void read_nvlink(const YAML::Node& nv, const std::string& p, Reader& r, hardware::GpuSpec& g) {
  const std::string path = child(p, "nvlink");
  r.check_keys(nv, path,
               {"generation", "links", "one_way_gbps", "nccl_gbps_per_link", "bidirectional_gbps", "bidir_gbps"});
  for (const char* k : {"bidirectional_gbps", "bidir_gbps"})
    if (nv[k])
      r.error(nv[k], child(path, k), "NVLink bandwidth is given one way",
              "give one_way_gbps: half of the bidirectional figure (H100: 900 GB/s both ways = 450 one way)");
  if (auto v = r.integer(nv["generation"], child(path, "generation"), 0, 10))
    g.nvlink_generation = static_cast<int>(*v);
  if (auto v = r.integer(nv["links"], child(path, "links"), 0, 64)) g.nvlink_links = static_cast<int>(*v);
  if (!nv["one_way_gbps"]) {
    r.error(nv, child(path, "one_way_gbps"), "missing 'one_way_gbps'",
            "the NVLink bandwidth of one GPU in one direction, GB/s (half of NVIDIA's figure)");
  } else if (bidirectional_marked(nv["one_way_gbps"])) {
    r.error(nv["one_way_gbps"], child(path, "one_way_gbps"),
            "'" + nv["one_way_gbps"].Scalar() + "' is marked as both directions",
            "give one way: half of the bidirectional figure, as a plain number of GB/s");
  } else if (auto v = detail::read_quantity(r, nv["one_way_gbps"], child(path, "one_way_gbps"), detail::kGBytePerS, 0,
                                            1e5)) {
    g.nvlink_one_way = units::Bandwidth::from_gbytes_per_s(*v);
    const double most = g.nvlink_links * nvlink_link_one_way_gbs(g.nvlink_generation);
    if (g.nvlink_links > 0 && *v > most * 1.001)
      r.error(nv["one_way_gbps"], child(path, "one_way_gbps"),
              "one_way_gbps " + units::format_decimal(*v, 2) + " is more than " + std::to_string(g.nvlink_links) +
                  " NVLink " + std::to_string(g.nvlink_generation) + " links carry one way (" +
                  units::format_decimal(most, 2) + " GB/s): it reads as the bidirectional figure",
              "give one way: half of NVIDIA's figure (" + units::format_decimal(*v / 2, 2) + ")");
  }
  if (auto v = r.number(nv["nccl_gbps_per_link"], child(path, "nccl_gbps_per_link"), 0, 1e4))
    g.nccl_nvlink = units::Bandwidth::from_gbytes_per_s(*v * g.nvlink_links);
}

void read_pcie(const YAML::Node& pc, const std::string& p, Reader& r, hardware::GpuSpec& g) {
  const std::string path = child(p, "pcie");
  if (!r.expect_map(pc, path)) return;
  r.check_keys(pc, path, {"generation", "lanes", "peer_to_peer"});
  if (auto v = r.integer(pc["generation"], child(path, "generation"), 1, 6)) g.pcie_generation = static_cast<int>(*v);
  if (pc["lanes"])
    if (auto v = r.integer(pc["lanes"], child(path, "lanes"), 1, 32)) g.pcie_lanes = static_cast<int>(*v);
  if (pc["peer_to_peer"])
    if (auto v = r.boolean(pc["peer_to_peer"], child(path, "peer_to_peer"))) g.peer_to_peer = *v;
}

void load_gpus(const YAML::Node& root, Reader& r, std::vector<hardware::GpuSpec>& out) {
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
                 {"name", "aliases", "arch", "sm_count", "dense_tflops", "sparse_tflops", "hbm_gib", "hbm_tbps",
                  "l2_mib", "nvlink", "pcie", "nvls", "tdp_w", "default_fabric", "source", "notes"});
    hardware::GpuSpec g;
    if (auto v = r.string(n["name"], child(p, "name"))) g.name = *v;
    if (n["aliases"] && n["aliases"].IsSequence())
      for (const auto& a : n["aliases"]) g.aliases.push_back(a.as<std::string>());
    if (auto v = r.choice(n["arch"], child(p, "arch"), {"ampere", "hopper", "blackwell", "blackwell_ultra", "ada"}))
      g.arch = *hardware::parse_gpu_arch(*v);
    // Above 16: Transformer Engine's TP comm-GEMM overlap runs its kernels on 16 SMs
    // (tp_overlap_sm_share); every training GPU has far more (A100 108, H100 132).
    if (auto v = r.integer(n["sm_count"], child(p, "sm_count"), 17, 10000)) g.sm_count = static_cast<int>(*v);
    read_dense_peaks(n, p, r, g);
    if (auto v = detail::read_quantity(r, n["hbm_gib"], child(p, "hbm_gib"), detail::kGiB, 1, 1e5))
      g.hbm = units::gib(*v);
    if (auto v = detail::read_quantity(r, n["hbm_tbps"], child(p, "hbm_tbps"), detail::kTBytePerS, 0.01, 1e3))
      g.hbm_bandwidth = units::Bandwidth{*v * 1e12};
    if (n["l2_mib"]) {
      if (auto v = detail::read_quantity(r, n["l2_mib"], child(p, "l2_mib"), detail::kMiB, 0, 1e5))
        g.l2 = units::Bytes{*v * 1048576.0};
    }
    if (const auto nv = n["nvlink"]; nv && nv.IsMap()) read_nvlink(nv, p, r, g);
    if (n["pcie"]) read_pcie(n["pcie"], p, r, g);
    if (n["nvls"]) {
      if (auto v = r.boolean(n["nvls"], child(p, "nvls"))) g.nvls = *v;
    }
    if (auto v = r.number(n["tdp_w"], child(p, "tdp_w"), 1, 1e5)) g.tdp_w = *v;
    if (auto v = r.string(n["default_fabric"], child(p, "default_fabric"))) g.default_fabric = *v;
    g.source = read_source(n, p, r, "the GPU '" + g.name + "'",
                           "the datasheet, whitepaper or vendor page each figure comes from (keys of "
                           "docs/references.md, or the page's address)");
    out.push_back(std::move(g));
  }
}

// The host side of a node: CPU family and sockets, and a PCIe node's switches.
void read_host(const YAML::Node& n, const std::string& p, Reader& r, hardware::FabricSpec& f) {
  // The key's node for a message's line, or the entry's when the key is absent.
  const auto at = [&](const char* key) { return n[key] ? n[key] : n; };
  if (n["cpu"])
    if (auto v = r.choice(n["cpu"], child(p, "cpu"),
                          {"intel-skylake", "intel-sapphire-rapids", "intel-emerald-rapids", "amd", "arm"}))
      f.cpu = *hardware::parse_host_cpu(*v);
  if (n["cpu_sockets"])
    if (auto v = r.integer(n["cpu_sockets"], child(p, "cpu_sockets"), 1, 8)) f.cpu_sockets = static_cast<int>(*v);
  if (n["pcie_switches"])
    if (auto v = r.integer(n["pcie_switches"], child(p, "pcie_switches"), 0, 64))
      f.pcie_switches = static_cast<int>(*v);
  if (const auto up = n["pcie_uplink"]) {
    const std::string path = child(p, "pcie_uplink");
    if (r.expect_map(up, path)) {
      r.check_keys(up, path, {"generation", "lanes"});
      if (auto v = r.integer(up["generation"], child(path, "generation"), 1, 6))
        f.pcie_uplink_generation = static_cast<int>(*v);
      if (up["lanes"])
        if (auto v = r.integer(up["lanes"], child(path, "lanes"), 1, 32)) f.pcie_uplink_lanes = static_cast<int>(*v);
    }
  }
  const int sockets = std::max(1, f.cpu_sockets);
  if (sockets > 1 && f.cpu == hardware::HostCpu::Unstated)
    r.error(at("cpu_sockets"), child(p, "cpu"),
            std::to_string(sockets) + " CPU sockets need the CPU family: the link between them depends on it",
            "add cpu: intel-skylake, intel-sapphire-rapids, intel-emerald-rapids, amd or arm");
  if (f.pcie_switches > 0 && f.pcie_switches % sockets != 0)
    r.error(at("pcie_switches"), child(p, "pcie_switches"),
            std::to_string(f.pcie_switches) + " PCIe switches do not spread evenly over " + std::to_string(sockets) +
                " CPU sockets",
            "give a multiple of cpu_sockets");
  const int groups = f.pcie_switches > 0 ? f.pcie_switches : sockets;
  if (f.intra == hardware::IntraNode::PCIe && f.gpus_per_node % groups != 0)
    r.error(at("gpus_per_node"), child(p, "gpus_per_node"),
            std::to_string(f.gpus_per_node) + " GPUs do not spread evenly over " + std::to_string(groups) +
                (f.pcie_switches > 0 ? " PCIe switches" : " CPU sockets"),
            "give a multiple of " + std::to_string(groups));
  if (f.pcie_switches > 0 && f.pcie_uplink_generation == 0)
    r.error(at("pcie_switches"), child(p, "pcie_uplink"), "PCIe switches need their uplink",
            "add pcie_uplink: {generation: 5, lanes: 16} (the switch's link to its CPU)");
}

void load_fabrics(const YAML::Node& root, Reader& r, std::vector<hardware::FabricSpec>& out) {
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
    r.check_keys(
        n, p,
        {"name", "description", "gpus_per_node", "intra", "nvlink_domain", "kind", "nic_gbps", "nics_per_node",
         "oversubscription", "node_power_kw", "cpu", "cpu_sockets", "pcie_switches", "pcie_uplink", "source", "notes"});
    hardware::FabricSpec f;
    if (auto v = r.string(n["name"], child(p, "name"))) f.name = *v;
    if (n["description"]) f.description = n["description"].as<std::string>();
    if (auto v = r.integer(n["gpus_per_node"], child(p, "gpus_per_node"), 1, 1024))
      f.gpus_per_node = static_cast<int>(*v);
    if (auto v = r.choice(n["intra"], child(p, "intra"), {"nvswitch", "nvlink-direct", "pcie"}))
      f.intra = *v == "nvswitch" ? hardware::IntraNode::NVSwitch
                : *v == "pcie"   ? hardware::IntraNode::PCIe
                                 : hardware::IntraNode::NVLinkDirect;
    f.nvlink_domain = f.gpus_per_node;
    if (n["nvlink_domain"]) {
      if (auto v = r.integer(n["nvlink_domain"], child(p, "nvlink_domain"), 1, 100000))
        f.nvlink_domain = static_cast<int>(*v);
    }
    if (auto v = r.choice(n["kind"], child(p, "kind"), {"infiniband", "roce", "ethernet"}))
      f.kind = *hardware::parse_net_kind(*v);
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
    read_host(n, p, r, f);
    f.source = read_source(n, p, r, "the fabric '" + f.name + "'",
                           "the reference architecture, user guide or page its figures come from, ASSUMED for a "
                           "figure no source states");
    out.push_back(std::move(f));
  }
}

}  // namespace

// Defined in model_io.cpp: parses one model mapping (preset catalog entry or inline).
void read_model_fields(const YAML::Node& n, const std::string& path, Reader& r, workload::ModelSpec& m,
                       bool catalog_entry, std::vector<std::string>* defaults);

namespace {

void load_models(const YAML::Node& root, Reader& r, std::vector<workload::ModelSpec>& out) {
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
    workload::ModelSpec m;
    read_model_fields(n, p, r, m, true, nullptr);
    out.push_back(std::move(m));
  }
}

}  // namespace

const hardware::GpuSpec* Catalog::find_gpu(std::string_view name) const {
  for (const auto& g : gpus) {
    if (iequal(g.name, name)) return &g;
    for (const auto& a : g.aliases)
      if (iequal(a, name)) return &g;
  }
  return nullptr;
}

const hardware::FabricSpec* Catalog::find_fabric(std::string_view name) const {
  for (const auto& f : fabrics)
    if (iequal(f.name, name)) return &f;
  return nullptr;
}

const workload::ModelSpec* Catalog::find_model(std::string_view name) const {
  for (const auto& m : models) {
    if (iequal(m.name, name) || iequal(m.display, name)) return &m;
    for (const auto& a : m.aliases)
      if (iequal(a, name)) return &m;
  }
  return nullptr;
}

namespace {

struct PartNumber {
  std::string letters, digits;
};

PartNumber part_number(std::string_view name) {
  // Words of letters and digits; a leading "NVIDIA" or "GeForce" dropped.
  std::vector<std::string> words(1);
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      words.back() += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    else if (!words.back().empty())
      words.emplace_back();
  }
  std::size_t w = 0;
  while (w < words.size() && (words[w] == "NVIDIA" || words[w] == "GEFORCE")) ++w;
  // Letters: whole words of letters, then the letters that start the first word with a digit;
  // digits: that word's first run of digits (a letter O after a digit read as 0).
  PartNumber p;
  for (; w < words.size(); ++w) {
    const std::string& word = words[w];
    std::size_t i = 0;
    while (i < word.size() && std::isalpha(static_cast<unsigned char>(word[i]))) p.letters += word[i++];
    if (i == word.size()) continue;
    while (i < word.size() &&
           (std::isdigit(static_cast<unsigned char>(word[i])) || (word[i] == 'O' && !p.digits.empty())))
      p.digits += word[i] == 'O' ? '0' : word[i], ++i;
    break;
  }
  return p;
}

bool ends_with(const std::string& a, const std::string& b) {
  return a.size() >= b.size() && a.compare(a.size() - b.size(), b.size(), b) == 0;
}

bool same_family(const PartNumber& a, const PartNumber& b) {
  return !a.digits.empty() && a.digits == b.digits &&
         (ends_with(a.letters, b.letters) || ends_with(b.letters, a.letters));
}

}  // namespace

std::optional<std::string> same_family_gpu(const Catalog& catalog, std::string_view name) {
  const PartNumber want = part_number(name);
  std::optional<std::string> best;
  std::size_t best_d = 0;
  for (const auto& g : catalog.gpus) {
    std::vector<std::string> spellings{g.name};
    spellings.insert(spellings.end(), g.aliases.begin(), g.aliases.end());
    for (const auto& spelling : spellings) {
      if (!same_family(want, part_number(spelling))) continue;
      const std::size_t d = units::edit_distance(name, spelling);
      if (!best || d < best_d) {
        best = g.name;
        best_d = d;
      }
    }
  }
  return best;
}

std::string unknown_gpu_hint(const Catalog& catalog, std::string_view name) {
  std::string hint = "known GPUs: " + detail::join(catalog.gpu_names()) +
                     "; to add one, copy the catalog folder (data/ of the source, share/flopcast/data of an "
                     "installation), add its entry to gpus.yaml there (dense TFLOP/s per precision, hbm_gib in GiB, "
                     "hbm_tbps in TB/s, NVLink one way in GB/s or none, PCIe generation and lanes, tdp_w in W, a "
                     "source) and pass --data-dir (docs/architecture.md, \"Where to add things\")";
  if (auto g = same_family_gpu(catalog, name)) return "did you mean '" + *g + "'? (" + hint + ")";
  return hint;
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

std::optional<Catalog> load_catalog(const std::string& data_dir, scenario::Diagnostics& diags) {
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
    if (auto p = parse_profile(*text, prefix + "profiles/default.yaml", compute::ComputeProfile{}, diags))
      c.profile = *p;
  } else {
    diags.error({prefix + "profiles/default.yaml", 0, 0}, "", "calibration profile not found");
  }
  for (const auto& g : c.gpus) {
    if (!g.default_fabric.empty() && !c.find_fabric(g.default_fabric))
      diags.error({prefix + "gpus.yaml", 0, 0}, g.name + ".default_fabric", "unknown fabric '" + g.default_fabric + "'",
                  "use a name from fabrics.yaml");
  }
  for (std::size_t i = before; i < diags.items().size(); ++i)
    if (diags.items()[i].severity == scenario::Severity::Error) return std::nullopt;
  return c;
}

}  // namespace flopcast::io

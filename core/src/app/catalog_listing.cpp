#include "flopcast/app/catalog_listing.hpp"

#include <fmt/format.h>

#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/units/format.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::app {
namespace {

using nlohmann::ordered_json;

/// A dense peak in TFLOP/s, or "-" when the GPU has no tensor-core path for it.
std::string tflops(const hardware::GpuSpec& g, hardware::Precision p) {
  return g.peak(p) ? fmt::format("{:.1f}", g.peak(p)->tflops()) : std::string("-");
}

/// "Gen4 x16", or "-" when the catalog states none.
std::string pcie_text(const hardware::GpuSpec& g) {
  return g.pcie_generation > 0 ? fmt::format("Gen{} x{}", g.pcie_generation, g.pcie_lanes) : std::string("-");
}

std::string gpus_text(const io::Catalog& cat) {
  std::string o = fmt::format(
      "{:<15} {:<15} {:>4} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>11} {:>14}  {:>6}  {}\n", "name", "arch", "SMs",
      "fp32", "tf32", "bf16", "fp8", "fp4", "HBM GiB", "HBM TB/s", "NVLink GB/s", "PCIe", "TDP W", "default fabric");
  for (const auto& g : cat.gpus) {
    const std::string nvlink =
        g.nvlink_links > 0 ? fmt::format("{:.0f}", g.nvlink_one_way.gbytes_per_s()) : std::string("none");
    // PCIe peer-to-peer refused by the driver (GeForce): NCCL goes through host memory.
    const std::string pcie = pcie_text(g) + (g.peer_to_peer ? "" : " no-P2P");
    o += fmt::format(
        "{:<15} {:<15} {:>4} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9.1f} {:>8.2f} {:>11} {:>14}  {:>6.0f}  {}\n", g.name,
        to_string(g.arch), g.sm_count, tflops(g, hardware::Precision::FP32), tflops(g, hardware::Precision::TF32),
        tflops(g, hardware::Precision::BF16), tflops(g, hardware::Precision::FP8), tflops(g, hardware::Precision::FP4),
        g.hbm.gib(), g.hbm_bandwidth.bytes_per_s / 1e12, nvlink, pcie, g.tdp_w, g.default_fabric);
  }
  return o +
         "(dense tensor-core TFLOP/s; NVLink one-way per GPU; HBM columns are the GPU's memory, GDDR on Ada cards)\n";
}

std::string fabrics_text(const io::Catalog& cat) {
  std::string o = fmt::format("{:<20} {:>5} {:<10} {:>6} {:>5} {:>9} {:>7}  {}\n", "name", "gpus", "net", "NICs",
                              "Gb/s", "oversub", "kW", "description");
  for (const auto& f : cat.fabrics)
    o +=
        fmt::format("{:<20} {:>5} {:<10} {:>6} {:>5.0f} {:>9.1f} {:>7.1f}  {}\n", f.name, f.gpus_per_node,
                    to_string(f.kind), f.nics_per_node, f.nic_gbps, f.oversubscription, f.node_power_kw, f.description);
  return o;
}

std::string models_text(const io::Catalog& cat) {
  std::string o = fmt::format("{:<16} {:<22} {:>9} {:>6} {:>7} {:>6} {:>6} {:>7} {:>7}  {}\n", "name", "display",
                              "params", "layers", "hidden", "heads", "kv", "ffn", "vocab", "ffn kind");
  for (const auto& m : cat.models)
    o +=
        fmt::format("{:<16} {:<22} {:>9} {:>6} {:>7} {:>6} {:>6} {:>7} {:>7}  {}{}\n", m.name, m.display,
                    units::format_count(workload::parameter_count(m).total), m.layers, m.hidden, m.heads, m.kv_heads,
                    m.ffn, m.vocab, m.ffn_kind == workload::FfnKind::SwiGlu ? "swiglu" : "gelu", m.moe ? " (MoE)" : "");
  return o;
}

/// What a plan is, as its catalog records it (`kind`), and whether the price is a claim of the
/// provider's articles not verified: "offer, claimed".
std::string plan_kind(const pricing::Plan& p) { return std::string(to_string(p.kind)) + (p.claim ? ", claimed" : ""); }

/// "GPU-hour", "node-month".
std::string billing_unit(const pricing::Plan& p) { return std::string(to_string(p.basis)) + "-" + to_string(p.unit); }

std::string gpus_of(const pricing::Plan& p) {
  std::string s;
  for (const auto& g : p.gpus) s += (s.empty() ? "" : ",") + (g == "*" ? std::string("any") : g);
  return s;
}

std::string prices_text(const std::vector<pricing::PriceCatalog>& prices) {
  std::string o =
      fmt::format("{:<44} {:<19} {:<10} {:>14} {:<10}  {}\n", "catalog/plan", "kind", "GPUs", "price", "per", "source");
  for (const auto& c : prices)
    for (const auto& p : c.plans)
      o += fmt::format("{:<44} {:<19} {:<10} {:>14} {:<10}  {}\n", c.name + "/" + p.id, plan_kind(p), gpus_of(p),
                       p.price.str(), billing_unit(p), p.source);
  o += "(kind, as the catalog records it: offer = the provider's own; list = a published list price; contract =\n"
       " a negotiated or committed term; spot = preemptible; assumption = a figure someone assumed, never billed;\n"
       " competitor = another provider's price, for comparison. claimed = stated by the provider's articles,\n"
       " not verified. plan and quote bill offers, list and contract prices.)\n";
  return o;
}

ordered_json gpus_json(const io::Catalog& cat) {
  ordered_json a = ordered_json::array();
  for (const auto& g : cat.gpus) {
    ordered_json peaks = ordered_json::object();
    for (const hardware::Precision p : {hardware::Precision::FP32, hardware::Precision::TF32, hardware::Precision::FP16,
                                        hardware::Precision::BF16, hardware::Precision::FP8, hardware::Precision::FP4})
      if (g.peak(p)) peaks[to_string(p)] = g.peak(p)->tflops();
    a.push_back({{"name", g.name},
                 {"arch", to_string(g.arch)},
                 {"sm_count", g.sm_count},
                 {"dense_tflops", peaks},
                 {"hbm_gib", g.hbm.gib()},
                 {"hbm_tbytes_per_s", g.hbm_bandwidth.bytes_per_s / 1e12},
                 {"nvlink_one_way_gbytes_per_s", g.nvlink_one_way.gbytes_per_s()},
                 {"pcie_generation", g.pcie_generation},
                 {"pcie_lanes", g.pcie_lanes},
                 {"peer_to_peer", g.peer_to_peer},
                 {"tdp_w", g.tdp_w},
                 {"default_fabric", g.default_fabric},
                 {"source", g.source}});
  }
  return a;
}

ordered_json fabrics_json(const io::Catalog& cat) {
  ordered_json a = ordered_json::array();
  for (const auto& f : cat.fabrics)
    a.push_back({{"name", f.name},
                 {"gpus_per_node", f.gpus_per_node},
                 {"kind", to_string(f.kind)},
                 {"nics_per_node", f.nics_per_node},
                 {"nic_gbps", f.nic_gbps},
                 {"oversubscription", f.oversubscription},
                 {"node_power_kw", f.node_power_kw},
                 {"description", f.description},
                 {"source", f.source}});
  return a;
}

ordered_json models_json(const io::Catalog& cat) {
  ordered_json a = ordered_json::array();
  for (const auto& m : cat.models)
    a.push_back({{"name", m.name},
                 {"display", m.display},
                 {"parameters", workload::parameter_count(m).total},
                 {"layers", m.layers},
                 {"hidden", m.hidden},
                 {"heads", m.heads},
                 {"kv_heads", m.kv_heads},
                 {"ffn", m.ffn},
                 {"vocab", m.vocab},
                 {"seq_len", m.seq_len},
                 {"ffn_kind", m.ffn_kind == workload::FfnKind::SwiGlu ? "swiglu" : "gelu"},
                 {"moe", m.moe.has_value()}});
  return a;
}

ordered_json prices_json(const std::vector<pricing::PriceCatalog>& prices) {
  ordered_json a = ordered_json::array();
  for (const auto& c : prices)
    for (const auto& p : c.plans)
      a.push_back({{"catalog", c.name},
                   {"provider", c.provider},
                   {"plan", p.id},
                   {"name", p.name},
                   {"kind", to_string(p.kind)},
                   {"claimed", p.claim},
                   {"gpus", p.gpus},
                   {"price", p.price.amount_str()},
                   {"currency", p.price.currency.str()},
                   {"per", billing_unit(p)},
                   {"minimum_units", p.minimum_units},
                   {"date", p.date.empty() ? c.date : p.date},
                   {"confidence", p.confidence},
                   {"source", p.source}});
  return a;
}

}  // namespace

std::optional<CatalogKind> parse_catalog_kind(const std::string& name) {
  if (name == "gpus") return CatalogKind::Gpus;
  if (name == "fabrics") return CatalogKind::Fabrics;
  if (name == "models") return CatalogKind::Models;
  if (name == "prices") return CatalogKind::Prices;
  return std::nullopt;
}

std::optional<std::vector<pricing::PriceCatalog>> load_price_listing(const std::string& data_dir,
                                                                     scenario::Diagnostics& diags) {
  std::vector<pricing::PriceCatalog> out;
  for (const auto& name : io::price_catalog_names()) {
    auto c = io::load_price_catalog(name, data_dir, diags);
    if (!c) return std::nullopt;
    out.push_back(std::move(*c));
  }
  return out;
}

std::string catalog_text(const io::Catalog& catalog, CatalogKind kind,
                         const std::vector<pricing::PriceCatalog>& prices) {
  switch (kind) {
    case CatalogKind::Gpus:
      return gpus_text(catalog);
    case CatalogKind::Fabrics:
      return fabrics_text(catalog);
    case CatalogKind::Models:
      return models_text(catalog);
    case CatalogKind::Prices:
      break;
  }
  return prices_text(prices);
}

ordered_json catalog_json(const io::Catalog& catalog, CatalogKind kind,
                          const std::vector<pricing::PriceCatalog>& prices) {
  switch (kind) {
    case CatalogKind::Gpus:
      return gpus_json(catalog);
    case CatalogKind::Fabrics:
      return fabrics_json(catalog);
    case CatalogKind::Models:
      return models_json(catalog);
    case CatalogKind::Prices:
      break;
  }
  return prices_json(prices);
}

}  // namespace flopcast::app

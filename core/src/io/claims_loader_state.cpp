#include "claims_loader_detail.hpp"

#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/units_parse.hpp"

namespace flopcast::io::claims_detail {

using detail::describe;
using detail::did_you_mean;
using detail::join;

const std::map<ClaimKind, std::vector<FigureRule>>& figure_rules() {
  static const std::map<ClaimKind, std::vector<FigureRule>> rules{
      {ClaimKind::Training,
       {{"mfu", {}, ""},
        {"memory_gb", {}, ""},
        {"days", {}, ""},
        {"tokens_per_day", {}, ""},
        {"bubble_fraction", {}, ""},
        {"step_time_s", {}, ""},
        {"tflops_per_gpu", {}, ""},
        {"gpu_hours", {}, ""}}},
      {ClaimKind::Price,
       {{"rate", {Dimension::Price}, "\"6.8 CNY/GPU-hour\" or \"57,600 CNY/node-month\""},
        {"total", {Dimension::Money}, "\"10,900 USD\""},
        {"saving", {Dimension::Fraction, Dimension::Money}, "\"38%\" or \"5.8M CNY\""},
        {"credit_hours", {Dimension::Time}, "\"1.5 h\""},
        {"run_cost", {Dimension::Money}, "\"120,000 USD\""},
        {"purchase", {Dimension::Money}, "\"40,000 USD\""}}},
      {ClaimKind::Collective,
       {{"latency", {Dimension::Time}, "\"< 3 us\""},
        {"busbw", {Dimension::Bandwidth}, "\"190 Gbps\" or \"24 GB/s\""},
        {"algbw", {Dimension::Bandwidth}, "\"190 Gbps\" or \"24 GB/s\""}}},
      {ClaimKind::Hardware,
       {{"dense_tflops", {Dimension::FlopRate}, "\"312 TFLOPS\""},
        {"peak_vs", {Dimension::Fraction}, "\"-8%\" (8% lower than compared_with)"},
        {"nvlink_bandwidth", {Dimension::Bandwidth}, "\"300 GB/s\""},
        {"memory", {Dimension::Bytes}, "\"80 GB\""},
        {"memory_bandwidth", {Dimension::Bandwidth}, "\"3.35 TB/s\""},
        {"power", {Dimension::Power}, "\"700 W\""},
        {"nic_bandwidth", {Dimension::Bandwidth}, "\"200 Gbps\""},
        {"software", {}, ""}}},
      {ClaimKind::Energy,
       {{"cost", {Dimension::Money}, "\"11M CNY\""}, {"saving", {Dimension::Money}, "\"1.2M CNY\""}}},
      {ClaimKind::Checkpoint,
       {{"write_time", {Dimension::Time}, "\"3 min\""},
        {"save_speedup", {Dimension::Fraction}, "\"40%\" (40% faster)"},
        {"storage_bandwidth", {Dimension::Bandwidth}, "\"5 GB/s\""},
        {"interval", {Dimension::Time}, "\"30 min\""},
        {"restart_time", {Dimension::Time}, "\"90 s\""},
        {"lost_work", {Dimension::Time}, "\"0 s\" (restart from the last step)"}}},
  };
  return rules;
}

std::shared_ptr<const pricing::PriceCatalog> Loader::price_catalog(const YAML::Node& at, const std::string& key,
                                                                   const std::string& name) {
  if (auto it = catalogs.find(name); it != catalogs.end()) return it->second;
  scenario::Diagnostics pd;
  auto loaded = load_price_catalog(name, data_dir, pd);
  for (auto d : pd.items()) {
    if (d.where.line == 0) {  // "not found": point at the key that names it
      d.where = detail::loc_of(at, r.file());
      d.key = key;
    }
    r.diags().add(d);
  }
  std::shared_ptr<const pricing::PriceCatalog> out;
  if (loaded) out = std::make_shared<const pricing::PriceCatalog>(std::move(*loaded));
  catalogs[name] = out;
  return out;
}

const hardware::GpuSpec* Loader::gpu(const YAML::Node& n, const std::string& key) {
  const auto name = r.string(n, key);
  if (!name) return nullptr;
  if (const hardware::GpuSpec* g = catalog.find_gpu(*name)) return g;
  error(n, key, "unknown GPU '" + *name + "'", unknown_gpu_hint(catalog, *name));
  return nullptr;
}

const hardware::FabricSpec* Loader::fabric(const YAML::Node& n, const std::string& key) {
  const auto name = r.string(n, key);
  if (!name) return nullptr;
  if (const hardware::FabricSpec* f = catalog.find_fabric(*name)) return f;
  const auto names = catalog.fabric_names();
  std::string hint = "known fabrics: " + join(names);
  if (auto m = did_you_mean(*name, names)) hint = "did you mean '" + *m + "'? (" + hint + ")";
  error(n, key, "unknown fabric '" + *name + "'", hint);
  return nullptr;
}

std::optional<std::string> Loader::scenario_path(const YAML::Node& n, const std::string& key) {
  const auto name = r.string(n, key);
  if (!name) return std::nullopt;
  const std::filesystem::path p =
      std::filesystem::path(*name).is_absolute() ? std::filesystem::path(*name) : dir / *name;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) {
    error(n, key, "scenario file '" + *name + "' not found", "paths are relative to the claims file's folder");
    return std::nullopt;
  }
  return p.lexically_normal().string();
}

std::optional<ScenarioRef> Loader::scenario_ref(const YAML::Node& needs, const std::string& key) {
  ScenarioRef ref;
  if (!needs["scenario"]) {
    missing(needs, key, "scenario", "the scenario file the claim is about, e.g. scenario: 65b-8xa100.yaml");
    return std::nullopt;
  }
  const auto path = scenario_path(needs["scenario"], child(key, "scenario"));
  if (!path) return std::nullopt;
  ref.path = *path;
  ref.name = needs["scenario"].Scalar();
  if (const auto set = needs["set"]) {
    if (!r.expect_map(set, child(key, "set"))) return std::nullopt;
    for (const auto& kv : set) {
      if (!kv.second.IsScalar()) {
        error(kv.second, child(child(key, "set"), kv.first.Scalar()),
              "expected a scalar value, got " + describe(kv.second),
              "set one scenario key per line, e.g. cluster.gpu: B200");
        return std::nullopt;
      }
      ref.set.emplace_back(kv.first.Scalar(), kv.second.Scalar());
    }
  }
  return ref;
}

std::optional<units::Time> Loader::duration(const YAML::Node& n, const std::string& key, const char* example) {
  const auto s = r.string(n, key);
  if (!s) return std::nullopt;
  const auto t = parse_duration(*s);
  if (!t || t->ns <= 0) {
    error(n, key, "bad duration '" + *s + "'", std::string("write a positive duration with a unit, e.g. ") + example);
    return std::nullopt;
  }
  return t;
}

std::optional<units::Bandwidth> Loader::bandwidth(const YAML::Node& n, const std::string& key) {
  const auto s = r.string(n, key);
  if (!s) return std::nullopt;
  const auto b = parse_bandwidth(*s);
  if (!b || b->bytes_per_s <= 0) {
    error(n, key, "bad bandwidth '" + *s + "'", "write a positive rate with a unit, e.g. \"5 GB/s\" or \"200 Gbps\"");
    return std::nullopt;
  }
  return b;
}

std::optional<PriceOption> Loader::option(const YAML::Node& map, const std::string& key,
                                          const pricing::PriceCatalog& cat, bool required) {
  PriceOption o;
  if (const auto p = map["plan"]) {
    const auto id = r.string(p, child(key, "plan"));
    if (!id) return std::nullopt;
    o.plan = cat.find_plan(*id);
    if (o.plan == nullptr) {
      std::vector<std::string> ids;
      for (const pricing::Plan& pl : cat.plans) ids.push_back(pl.id);
      std::string hint = "plans of catalog " + cat.name + ": " + join(ids);
      if (auto m = did_you_mean(*id, ids)) hint = "did you mean '" + *m + "'? (" + hint + ")";
      error(p, child(key, "plan"), "unknown plan '" + *id + "' in catalog " + cat.name, hint);
      return std::nullopt;
    }
    return o;
  }
  if (const auto c = map["cpu_instance"]) {
    const auto id = r.string(c, child(key, "cpu_instance"));
    if (!id) return std::nullopt;
    for (const pricing::CpuInstance& ci : cat.cpu_instances)
      if (ci.id == *id) o.cpu = &ci;
    if (o.cpu == nullptr) {
      std::vector<std::string> ids;
      for (const pricing::CpuInstance& ci : cat.cpu_instances) ids.push_back(ci.id);
      error(c, child(key, "cpu_instance"), "unknown CPU instance '" + *id + "' in catalog " + cat.name,
            ids.empty() ? "the catalog lists no CPU instance" : "CPU instances: " + join(ids));
      return std::nullopt;
    }
    return o;
  }
  if (required) missing(map, key, "plan", "a plan id of catalog " + cat.name + " (or cpu_instance: ID)");
  return std::nullopt;
}

}  // namespace flopcast::io::claims_detail

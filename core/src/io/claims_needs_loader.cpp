// The `needs:` block of each claim kind (docs/claims.md), read strictly: every name resolved
// against the catalogs, every unit parsed, every missing key named with an example.
#include <algorithm>

#include "claims_loader_detail.hpp"
#include "flopcast/io/claims_loader.hpp"
#include "flopcast/io/units_parse.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::io::claims_detail {
namespace {

using detail::describe;
using detail::join;

std::optional<TrainingNeeds> read_training(Loader& l, const YAML::Node& n, const std::string& key) {
  l.r.check_keys(n, key, {"scenario", "set"});
  auto ref = l.scenario_ref(n, key);
  if (!ref) return std::nullopt;
  return TrainingNeeds{std::move(*ref)};
}

std::optional<PriceUse> read_use(Loader& l, const YAML::Node& n, const std::string& key) {
  PriceUse use;
  if (!l.r.expect_map(n, key)) return std::nullopt;
  l.r.check_keys(n, key, {"gpus", "duration"});
  if (n["gpus"]) {
    const auto g = l.r.integer(n["gpus"], child(key, "gpus"), 1, 1'000'000);
    if (!g) return std::nullopt;
    use.gpus = *g;
  }
  if (n["duration"]) {
    const auto t = l.duration(n["duration"], child(key, "duration"), "\"720 h\" or \"1 h\"");
    if (!t) return std::nullopt;
    use.span = *t;
  }
  return use;
}

std::optional<PriceNeeds> read_price(Loader& l, const std::string& figure, const YAML::Node& n, const std::string& key,
                                     const std::optional<ClaimedValue>& claimed) {
  l.r.check_keys(n, key, {"catalog", "plan", "plans", "cpu_instance", "baseline", "use", "gpu", "scenario", "set"});
  PriceNeeds p;
  p.figure = figure == "rate"           ? PriceFigure::Rate
             : figure == "total"        ? PriceFigure::Total
             : figure == "saving"       ? PriceFigure::Saving
             : figure == "credit_hours" ? PriceFigure::CreditHours
             : figure == "run_cost"     ? PriceFigure::RunCost
                                        : PriceFigure::Purchase;
  if (p.figure == PriceFigure::Purchase || (p.figure == PriceFigure::CreditHours && !n["plan"])) {
    if (!n["gpu"]) {
      l.missing(n, key, "gpu", "the GPU the claim names, e.g. gpu: RTX 4090 (or plan: ID)");
      return std::nullopt;
    }
    if (const auto g = l.r.string(n["gpu"], child(key, "gpu"))) p.gpu = *g;
  }
  std::string cat_name = l.default_catalog;
  // yaml-cpp: `node = other` assigns contents; reset() rebinds the handle.
  YAML::Node cat_at;
  cat_at.reset(n);
  if (n["catalog"]) {
    const auto c = l.r.string(n["catalog"], child(key, "catalog"));
    if (!c) return std::nullopt;
    cat_name = *c;
    cat_at.reset(n["catalog"]);
  }
  if (cat_name.empty()) {
    l.missing(n, key, "catalog", "the price catalog the plans belong to, e.g. catalog: seed-vendor");
    return std::nullopt;
  }
  p.catalog = l.price_catalog(cat_at, child(key, "catalog"), cat_name);
  if (!p.catalog) return std::nullopt;
  const pricing::PriceCatalog& cat = *p.catalog;
  if (p.figure == PriceFigure::RunCost && n["plans"]) {
    if (!n["plans"].IsSequence() || n["plans"].size() == 0) {
      l.error(n["plans"], child(key, "plans"), "expected a list of plan ids, got " + describe(n["plans"]),
              "e.g. plans: [spheron-b200-spot, runpod-b200]");
      return std::nullopt;
    }
    for (std::size_t i = 0; i < n["plans"].size(); ++i) {
      YAML::Node one(YAML::NodeType::Map);
      one["plan"] = n["plans"][i];
      const auto o = l.option(one, child(key, "plans"), cat, true);
      if (!o) return std::nullopt;
      p.options.push_back(*o);
    }
  } else if (p.figure != PriceFigure::Purchase && (p.figure != PriceFigure::CreditHours || n["plan"])) {
    const auto o = l.option(n, key, cat, true);
    if (!o) return std::nullopt;
    if (o->cpu != nullptr && (p.figure == PriceFigure::Rate || p.figure == PriceFigure::RunCost)) {
      l.error(n["cpu_instance"], child(key, "cpu_instance"), "a " + figure + " claim is about a GPU plan",
              "use plan: ID, or figure: total for what the CPU instance costs");
      return std::nullopt;
    }
    p.options.push_back(*o);
  }
  if (const auto b = n["baseline"]) {
    if (!l.r.expect_map(b, child(key, "baseline"))) return std::nullopt;
    l.r.check_keys(b, child(key, "baseline"), {"plan", "cpu_instance"});
    const auto o = l.option(b, child(key, "baseline"), cat, true);
    if (!o) return std::nullopt;
    p.baseline = *o;
  }
  if (n["use"]) {
    const auto use = read_use(l, n["use"], child(key, "use"));
    if (!use) return std::nullopt;
    p.use = *use;
  }
  const bool needs_use = p.figure == PriceFigure::Total || p.figure == PriceFigure::Saving;
  if (needs_use) {
    const char* hint = "the use the bill is for, e.g. use: {gpus: 8, duration: 720 h}";
    if (!n["use"]) return l.missing(n, key, "use", hint);
    if (p.use.gpus <= 0) return l.missing(n["use"], child(key, "use"), "gpus", hint);
    if (p.use.span.ns <= 0) return l.missing(n["use"], child(key, "use"), "duration", hint);
  }
  if (p.figure == PriceFigure::Rate && claimed && claimed->price) {  // default use: one unit of the claimed price
    const ClaimedPrice& cp = *claimed->price;
    const pricing::Plan& plan = *p.options.front().plan;
    if (p.use.gpus <= 0) p.use.gpus = cp.basis == pricing::PriceBasis::PerNode ? plan.gpus_per_node : 1;
    if (p.use.span.ns <= 0) p.use.span = pricing::billing_unit_length(cp.unit);
  }
  if (p.figure == PriceFigure::RunCost) {
    auto ref = l.scenario_ref(n, key);
    if (!ref) return std::nullopt;
    p.run = std::move(*ref);
  }
  return p;
}

std::optional<CollectiveNeeds> read_collective(Loader& l, const std::string& figure, const YAML::Node& n,
                                               const std::string& key) {
  l.r.check_keys(n, key, {"op", "gpu", "fabric", "gpus", "ranks", "ranks_per_node", "min_size", "max_size"});
  CollectiveNeeds c;
  c.figure = figure;
  if (!n["gpu"]) return l.missing(n, key, "gpu", "the GPU of the cluster, e.g. gpu: H800");
  if (!n["gpus"]) return l.missing(n, key, "gpus", "GPUs of the cluster, e.g. gpus: 16 (two 8-GPU nodes)");
  const hardware::GpuSpec* g = l.gpu(n["gpu"], child(key, "gpu"));
  if (g == nullptr) return std::nullopt;
  c.gpu = *g;
  const hardware::FabricSpec* f =
      n["fabric"] ? l.fabric(n["fabric"], child(key, "fabric")) : l.catalog.find_fabric(g->default_fabric);
  if (f == nullptr) return std::nullopt;
  c.fabric = *f;
  const auto gpus = l.r.integer(n["gpus"], child(key, "gpus"), 1, 1'000'000);
  if (!gpus) return std::nullopt;
  c.gpus = *gpus;
  if (n["op"]) {
    const auto op = l.r.string(n["op"], child(key, "op"));
    if (!op) return std::nullopt;
    const auto parsed = comm::parse_collective(*op);
    if (!parsed) {
      l.error(n["op"], child(key, "op"), "unknown collective '" + *op + "'",
              "one of all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv");
      return std::nullopt;
    }
    c.op = *parsed;
  }
  c.group.ranks = c.gpus;
  if (n["ranks"]) {
    const auto v = l.r.integer(n["ranks"], child(key, "ranks"), 1, 1'000'000);
    if (!v) return std::nullopt;
    c.group.ranks = *v;
  }
  c.group.ranks_per_node = static_cast<int>(std::min<std::int64_t>(c.group.ranks, std::max(1, c.fabric.gpus_per_node)));
  if (n["ranks_per_node"]) {
    const auto v = l.r.integer(n["ranks_per_node"], child(key, "ranks_per_node"), 1, 4096);
    if (!v) return std::nullopt;
    c.group.ranks_per_node = static_cast<int>(*v);
  }
  if (const std::string why = topology::check_group_shape(c.group, c.fabric.gpus_per_node, c.gpus); !why.empty()) {
    l.error(n["ranks"] ? n["ranks"] : n, child(key, n["ranks"] ? "ranks" : "gpus"), why,
            "the group must fit the cluster: ranks <= gpus, ranks_per_node <= the node's GPUs");
    return std::nullopt;
  }
  for (const auto& [name, slot] : {std::pair{"min_size", &c.min_size}, std::pair{"max_size", &c.max_size}}) {
    if (!n[name]) continue;
    const auto s = l.r.string(n[name], child(key, name));
    const auto b = s ? parse_bytes(*s) : std::nullopt;
    if (!b || b->value <= 0) {
      l.error(n[name], child(key, name), "bad message size " + describe(n[name]), "write e.g. \"8 B\" or \"8 GiB\"");
      return std::nullopt;
    }
    *slot = *b;
  }
  return c;
}

std::optional<HardwareNeeds> read_hardware(Loader& l, const std::string& figure, const YAML::Node& n,
                                           const std::string& key) {
  l.r.check_keys(n, key, {"gpu", "precision", "compared_with", "fabric"});
  HardwareNeeds h;
  h.figure = figure;
  if (figure == "nic_bandwidth") {
    if (!n["fabric"]) return l.missing(n, key, "fabric", "the node type, e.g. fabric: hgx-h800-roce200");
    const hardware::FabricSpec* f = l.fabric(n["fabric"], child(key, "fabric"));
    if (f == nullptr) return std::nullopt;
    h.fabric = *f;
    return h;
  }
  if (!n["gpu"]) {
    if (figure == "software") return h;
    return l.missing(n, key, "gpu", "a GPU of data/gpus.yaml, e.g. gpu: A100-80G");
  }
  const hardware::GpuSpec* g = l.gpu(n["gpu"], child(key, "gpu"));
  if (g == nullptr) return std::nullopt;
  h.gpu = *g;
  if (figure == "dense_tflops" || figure == "peak_vs") {
    if (!n["precision"]) return l.missing(n, key, "precision", "the number format of the peak, e.g. precision: fp16");
    const auto p = l.r.choice(n["precision"], child(key, "precision"), {"fp32", "tf32", "fp16", "bf16", "fp8", "fp4"});
    if (!p) return std::nullopt;
    h.precision = hardware::parse_precision(*p);
  }
  if (figure == "peak_vs") {
    if (!n["compared_with"])
      return l.missing(n, key, "compared_with", "the GPU the claim compares with, e.g. compared_with: A100-80G");
    const hardware::GpuSpec* o = l.gpu(n["compared_with"], child(key, "compared_with"));
    if (o == nullptr) return std::nullopt;
    h.compared_with = *o;
  }
  return h;
}

std::optional<FleetPower> read_fleet(Loader& l, const YAML::Node& n, const std::string& key) {
  FleetPower f;
  if (!n["gpu"]) return l.missing(n, key, "gpu", "the fleet's GPU, e.g. gpu: H800");
  if (!n["gpus"]) return l.missing(n, key, "gpus", "the fleet's size in GPUs, e.g. gpus: 1000");
  const hardware::GpuSpec* g = l.gpu(n["gpu"], child(key, "gpu"));
  if (g == nullptr) return std::nullopt;
  f.gpu = *g;
  const hardware::FabricSpec* fab =
      n["fabric"] ? l.fabric(n["fabric"], child(key, "fabric")) : l.catalog.find_fabric(g->default_fabric);
  if (fab == nullptr) return std::nullopt;
  f.fabric = *fab;
  const auto gpus = l.r.integer(n["gpus"], child(key, "gpus"), 1, 10'000'000);
  if (!gpus) return std::nullopt;
  f.gpus = *gpus;
  return f;
}

std::optional<EnergyNeeds> read_energy(Loader& l, const std::string& figure, const YAML::Node& n,
                                       const std::string& key, const std::optional<ClaimedValue>& claimed) {
  l.r.check_keys(n, key, {"gpu", "gpus", "fabric", "period", "utilisation", "pue", "tariff", "catalog", "baseline"});
  EnergyNeeds e;
  e.figure = figure;
  auto fleet = read_fleet(l, n, key);
  if (!fleet) return std::nullopt;
  e.fleet = *fleet;
  if (!n["period"]) return l.missing(n, key, "period", "how long the fleet runs, e.g. period: 8760 h (a year)");
  const auto period = l.duration(n["period"], child(key, "period"), "\"8760 h\" (a year)");
  if (!period) return std::nullopt;
  e.period = *period;
  if (n["utilisation"]) {
    const auto u = l.r.number(n["utilisation"], child(key, "utilisation"), 0.0, 1.0);
    if (!u) return std::nullopt;
    e.utilisation = *u;
  }
  std::shared_ptr<const pricing::PriceCatalog> cat;
  if (n["catalog"] || (!n["tariff"] && !l.default_catalog.empty())) {
    const YAML::Node at = n["catalog"] ? n["catalog"] : n;
    const auto name = n["catalog"] ? l.r.string(n["catalog"], child(key, "catalog")) : l.default_catalog;
    if (!name) return std::nullopt;
    cat = l.price_catalog(at, child(key, "catalog"), *name);
    if (!cat) return std::nullopt;
  }
  if (n["tariff"]) {
    const auto s = l.r.string(n["tariff"], child(key, "tariff"));
    const auto slash = s ? s->find("/kWh") : std::string::npos;
    const auto v = slash != std::string::npos ? parse_claimed_value(s->substr(0, slash)) : std::nullopt;
    if (!v || !v->money || v->money->minor < 0) {
      l.error(n["tariff"], child(key, "tariff"), "bad tariff " + describe(n["tariff"]), "write e.g. \"0.65 CNY/kWh\"");
      return std::nullopt;
    }
    e.tariff = units::PriceRate::of_micro(v->money->micro(), v->money->currency);
    e.tariff_from = "the claims file";
  } else if (cat && cat->electricity) {
    e.tariff = cat->electricity->per_kwh;
    e.pue = cat->electricity->pue;
    e.tariff_from = "catalog " + cat->name;
  } else {
    return l.missing(n, key, "tariff", "the electricity price, e.g. tariff: 0.65 CNY/kWh (or catalog: NAME)");
  }
  if (n["pue"]) {
    const auto p = l.r.number(n["pue"], child(key, "pue"), 1.0, 5.0);
    if (!p) return std::nullopt;
    e.pue = *p;
  } else if (e.tariff_from == "the claims file") {
    return l.missing(n, key, "pue", "the facility's power usage effectiveness, e.g. pue: 1.58 (UPTIME)");
  }
  if (claimed && claimed->money && !(claimed->money->currency == e.tariff.currency)) {
    l.error(n, key,
            "the claimed figure is in " + claimed->money->currency.str() + " but the tariff is in " +
                e.tariff.currency.str(),
            "state the claim and the tariff in the same currency");
    return std::nullopt;
  }
  if (const auto b = n["baseline"]) {
    if (!l.r.expect_map(b, child(key, "baseline"))) return std::nullopt;
    l.r.check_keys(b, child(key, "baseline"), {"gpu", "gpus", "fabric"});
    auto base = read_fleet(l, b, child(key, "baseline"));
    if (!base) return std::nullopt;
    e.baseline = *base;
  }
  return e;
}

std::optional<CheckpointNeeds> read_checkpoint(Loader& l, const std::string& figure, const YAML::Node& n,
                                               const std::string& key) {
  l.r.check_keys(n, key, {"model", "gpus", "storage_write", "storage_read", "baseline", "interval", "async"});
  CheckpointNeeds c;
  c.figure = figure;
  if (!n["model"]) return l.missing(n, key, "model", "the model whose state is saved, e.g. model: llama-65b");
  if (!n["gpus"]) return l.missing(n, key, "gpus", "GPUs of the job, e.g. gpus: 8");
  if (!n["storage_write"])
    return l.missing(n, key, "storage_write", "the storage's write bandwidth, e.g. storage_write: 5 GB/s");
  const auto model = l.r.string(n["model"], child(key, "model"));
  if (!model) return std::nullopt;
  const workload::ModelSpec* m = l.catalog.find_model(*model);
  if (m == nullptr) {
    const auto names = l.catalog.model_names();
    std::string hint = "known models: " + join(names);
    if (auto d = detail::did_you_mean(*model, names)) hint = "did you mean '" + *d + "'?";
    l.error(n["model"], child(key, "model"), "unknown model preset '" + *model + "'", hint);
    return std::nullopt;
  }
  c.model = *model;
  c.params = workload::parameter_count(*m).total;
  const auto gpus = l.r.integer(n["gpus"], child(key, "gpus"), 1, 1'000'000);
  const auto write = l.bandwidth(n["storage_write"], child(key, "storage_write"));
  if (!gpus || !write) return std::nullopt;
  c.gpus = *gpus;
  c.storage_write = *write;
  if (n["storage_read"]) {
    const auto read = l.bandwidth(n["storage_read"], child(key, "storage_read"));
    if (!read) return std::nullopt;
    c.storage_read = *read;
  }
  if (const auto b = n["baseline"]) {
    if (!l.r.expect_map(b, child(key, "baseline"))) return std::nullopt;
    l.r.check_keys(b, child(key, "baseline"), {"storage_write"});
    if (!b["storage_write"])
      return l.missing(b, child(key, "baseline"), "storage_write", "e.g. baseline: {storage_write: 5 GB/s}");
    const auto bw = l.bandwidth(b["storage_write"], child(child(key, "baseline"), "storage_write"));
    if (!bw) return std::nullopt;
    c.baseline_write = *bw;
  }
  if (n["interval"]) {
    const auto t = l.duration(n["interval"], child(key, "interval"), "\"30 min\"");
    if (!t) return std::nullopt;
    c.interval = *t;
  } else if (figure == "lost_work") {
    return l.missing(n, key, "interval", "the checkpoint interval, e.g. interval: 30 min");
  }
  if (n["async"]) {
    const auto a = l.r.boolean(n["async"], child(key, "async"));
    if (!a) return std::nullopt;
    c.async = *a;
  }
  return c;
}

}  // namespace

std::optional<ClaimNeeds> read_needs(Loader& l, ClaimKind kind, const std::string& figure, const YAML::Node& n,
                                     const std::string& key, const std::optional<ClaimedValue>& claimed) {
  if (!l.r.expect_map(n, key)) return std::nullopt;
  auto wrap = [](auto opt) -> std::optional<ClaimNeeds> {
    if (!opt) return std::nullopt;
    return ClaimNeeds{std::move(*opt)};
  };
  switch (kind) {
    case ClaimKind::Training:
      return wrap(read_training(l, n, key));
    case ClaimKind::Price:
      return wrap(read_price(l, figure, n, key, claimed));
    case ClaimKind::Collective:
      return wrap(read_collective(l, figure, n, key));
    case ClaimKind::Hardware:
      return wrap(read_hardware(l, figure, n, key));
    case ClaimKind::Energy:
      return wrap(read_energy(l, figure, n, key, claimed));
    case ClaimKind::Checkpoint:
      return wrap(read_checkpoint(l, figure, n, key));
  }
  return std::nullopt;
}

}  // namespace flopcast::io::claims_detail

#include "flopcast/io/fleet_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/units_parse.hpp"
#include "flopcast/units/money.hpp"
#include "yaml_util.hpp"

namespace flopcast::io {
namespace {

using detail::child;
using detail::describe;
using detail::Reader;

/// Longest horizon: 10 years (Time is int64 ns, 292 years; the drain and what-ifs need headroom).
constexpr double kMaxHorizonDays = 3650;
/// Seeds: each is a whole fleet simulation.
constexpr std::int64_t kMaxSeeds = 10'000;
/// Nodes per pool: 1M nodes is far beyond any cluster built (xAI Colossus: 200k GPUs, 2025).
constexpr std::int64_t kMaxNodes = 1'000'000;
/// Jobs in a list or drawn by a generator per seed: bounds memory and run time.
constexpr std::int64_t kMaxJobs = 10'000'000;

std::string idx(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

class FleetReader {
 public:
  FleetReader(const std::string& file, const Catalog& cat, scenario::Diagnostics& diags, scenario::LocationMap& locs)
      : file_(file), cat_(cat), diags_(diags), r_(file, diags, &locs) {}

  std::optional<FleetFile> read(const YAML::Node& root) {
    FleetFile out;
    out.file = file_;
    fleet::Fleet& f = out.fleet;
    if (!r_.expect_map(root, "")) return std::nullopt;
    r_.check_keys(root, "",
                  {"name", "description", "horizon", "seeds", "seed", "sample_interval", "currency", "policy", "pools",
                   "job_classes", "jobs", "generator", "revenue", "what_if"});
    if (auto n = root["name"]) {
      if (auto s = r_.string(n, "name")) f.name = *s;
    } else {
      f.name = std::filesystem::path(file_).stem().string();
    }
    if (auto n = root["description"])
      if (auto s = r_.string(n, "description")) f.description = *s;
    if (auto n = root["horizon"]) {
      if (auto d = duration(n, "horizon", true)) {
        if (d->days() > kMaxHorizonDays)
          r_.error(n, "horizon", "horizon " + describe(n) + " is longer than 10 years", "plan a shorter horizon");
        else
          f.horizon = *d;
      }
    }
    if (auto n = root["seeds"])
      if (auto v = r_.integer(n, "seeds", 1, kMaxSeeds)) f.seeds = static_cast<int>(*v);
    if (auto n = root["seed"])
      if (auto v = r_.integer(n, "seed", 0, std::numeric_limits<std::int64_t>::max()))
        f.seed = static_cast<std::uint64_t>(*v);
    if (auto n = root["sample_interval"])
      if (auto d = duration(n, "sample_interval", true)) f.sample_interval = *d;
    if (auto n = root["policy"]) read_policy(n, f.policy);
    if (auto n = root["currency"]) out.currency = currency(n, "currency");

    if (!root["pools"])
      r_.error(root, "pools", "missing required key 'pools'", "list the node pools; see docs/fleet.md");
    else
      read_pools(root["pools"], f);
    if (!root["job_classes"])
      r_.error(root, "job_classes", "missing required key 'job_classes'",
               "list the scenarios jobs run; see docs/fleet.md");
    else
      read_classes(root["job_classes"], out);
    const bool has_jobs = static_cast<bool>(root["jobs"]);
    const bool has_gen = static_cast<bool>(root["generator"]);
    if (has_jobs && has_gen)
      r_.error(root["generator"], "generator", "a fleet has either 'jobs' or 'generator', not both",
               "remove one of them");
    else if (!has_jobs && !has_gen)
      r_.error(root, "jobs", "missing the job stream", "give 'jobs' (a list) or 'generator' (arrivals and a mix)");
    else if (has_jobs)
      read_jobs(root["jobs"], out);
    else
      read_generator(root["generator"], out);
    if (auto n = root["revenue"]) read_revenue(n, f);
    if (f.revenue) check_pools_earn(f);
    if (auto n = root["what_if"]) read_what_ifs(n, f);
    if (diags_.has_errors()) return std::nullopt;
    // Where exchange rates are looked up: the revenue catalog first, then the pools' in order.
    if (f.revenue && f.revenue->catalog) out.catalogs.push_back(f.revenue->catalog);
    for (const auto& p : f.pools)
      if (p.kind == fleet::PoolKind::Rented && p.rented.catalog &&
          std::find(out.catalogs.begin(), out.catalogs.end(), p.rented.catalog) == out.catalogs.end())
        out.catalogs.push_back(p.rented.catalog);
    return out;
  }

 private:
  std::optional<units::Time> duration(const YAML::Node& n, const std::string& path, bool positive) {
    r_.note(path, n);
    std::optional<units::Time> v;
    if (n.IsScalar()) v = parse_duration(n.Scalar());
    if (!v || v->ns < 0 || (positive && v->ns == 0)) {
      r_.error(n, path, std::string("expected a duration ") + (positive ? "> 0" : ">= 0") + ", got " + describe(n),
               "write e.g. \"90d\", \"12h\", \"30min\" or \"1w\"");
      return std::nullopt;
    }
    return v;
  }

  /// A decimal amount (at most 6 decimals, >= 0) in micro-units.
  std::optional<std::int64_t> micro(const YAML::Node& n, const std::string& path) {
    r_.note(path, n);
    std::optional<std::int64_t> v;
    if (n.IsScalar()) v = units::parse_micro_units(n.Scalar());
    if (!v || *v < 0) {
      r_.error(n, path, "expected an amount >= 0 with at most 6 decimals, got " + describe(n),
               "write e.g. 250000 or \"0.08\" (no currency sign; the currency is a separate key)");
      return std::nullopt;
    }
    return v;
  }

  std::optional<units::Currency> currency(const YAML::Node& n, const std::string& path) {
    auto s = r_.string(n, path);
    if (!s) return std::nullopt;
    if (!units::is_currency_code(*s)) {
      r_.error(n, path, "expected a three-letter currency code, got " + describe(n), "write e.g. USD or CNY");
      return std::nullopt;
    }
    return units::Currency::of(*s);
  }

  std::shared_ptr<const pricing::PriceCatalog> price_catalog(const YAML::Node& n, const std::string& path) {
    auto name = r_.string(n, path);
    if (!name) return nullptr;
    if (auto it = catalogs_.find(*name); it != catalogs_.end()) return it->second;
    scenario::Diagnostics pd;
    std::string target = *name;
    // A path is relative to the fleet file, like scenario paths.
    if (target.find('/') != std::string::npos || target.ends_with(".yaml")) target = resolve(target);
    auto loaded = load_price_catalog(target, cat_.data_dir, pd);
    for (auto d : pd.items()) {
      if (d.where.line == 0) {
        d.where = detail::loc_of(n, file_);
        d.key = path;
      }
      diags_.add(d);
    }
    if (!loaded) return nullptr;
    auto p = std::make_shared<const pricing::PriceCatalog>(std::move(*loaded));
    catalogs_[*name] = p;
    return p;
  }

  std::string resolve(const std::string& rel) const {
    const std::filesystem::path p(rel);
    if (p.is_absolute()) return rel;
    return (std::filesystem::path(file_).parent_path() / p).lexically_normal().string();
  }

  const hardware::GpuSpec* gpu(const YAML::Node& n, const std::string& path) {
    auto s = r_.string(n, path);
    if (!s) return nullptr;
    if (const auto* g = cat_.find_gpu(*s)) return g;
    r_.error(n, path, "unknown GPU '" + *s + "'", unknown_gpu_hint(cat_, *s));
    return nullptr;
  }

  void read_policy(const YAML::Node& n, fleet::Policy& p) {
    if (!r_.expect_map(n, "policy")) return;
    r_.check_keys(n, "policy", {"order", "backfill", "gang", "preemption"});
    if (auto v = n["order"])
      if (auto c = r_.choice(v, "policy.order", {"fifo", "priority"}))
        p.order = *c == "fifo" ? fleet::QueueOrder::Fifo : fleet::QueueOrder::Priority;
    if (auto v = n["backfill"])
      if (auto c = r_.choice(v, "policy.backfill", {"none", "easy"}))
        p.backfill = *c == "none" ? fleet::Backfill::None : fleet::Backfill::Easy;
    if (auto v = n["gang"])
      if (auto b = r_.boolean(v, "policy.gang")) p.gang = *b;
    if (auto v = n["preemption"])
      if (auto b = r_.boolean(v, "policy.preemption")) p.preemption = *b;
  }

  void read_pools(const YAML::Node& n, fleet::Fleet& f) {
    if (!n.IsSequence() || n.size() == 0) {
      r_.error(n, "pools", "expected a non-empty list of pools, got " + describe(n), "see docs/fleet.md");
      return;
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string path = idx("pools", i);
      const YAML::Node pn = n[i];
      if (!r_.expect_map(pn, path)) continue;
      r_.check_keys(pn, path, {"name", "gpu", "fabric", "nodes", "gpus_per_node", "owned", "rented", "internal"});
      pool_nodes_.push_back(pn);
      fleet::Pool p;
      if (!pn["name"])
        r_.error(pn, child(path, "name"), "missing required key 'name'", "name the pool, e.g. a100-hourly");
      else if (auto s = r_.string(pn["name"], child(path, "name"))) {
        p.name = *s;
        if (!names.insert(p.name).second)
          r_.error(pn["name"], child(path, "name"), "pool name '" + p.name + "' is used twice",
                   "pool names must be unique");
      }
      const hardware::GpuSpec* g = nullptr;
      if (!pn["gpu"])
        r_.error(pn, child(path, "gpu"), "missing required key 'gpu'", "one of: " + detail::join(cat_.gpu_names()));
      else
        g = gpu(pn["gpu"], child(path, "gpu"));
      if (g) p.gpu = g->name;
      if (pn["gpus_per_node"])
        if (auto v = r_.integer(pn["gpus_per_node"], child(path, "gpus_per_node"), 1, 72))
          p.gpus_per_node = static_cast<int>(*v);
      if (!pn["nodes"])
        r_.error(pn, child(path, "nodes"), "missing required key 'nodes'", "how many nodes the pool has, e.g. 16");
      else if (auto v = r_.integer(pn["nodes"], child(path, "nodes"), 1, kMaxNodes))
        p.nodes = *v;
      const hardware::FabricSpec* fab = nullptr;
      if (pn["fabric"]) {
        if (auto s = r_.string(pn["fabric"], child(path, "fabric"))) {
          fab = cat_.find_fabric(*s);
          if (!fab) {
            const auto names2 = cat_.fabric_names();
            std::string hint = "known fabrics: " + detail::join(names2);
            if (auto m = detail::did_you_mean(*s, names2)) hint = "did you mean '" + *m + "'? " + hint;
            r_.error(pn["fabric"], child(path, "fabric"), "unknown fabric '" + *s + "'", hint);
          }
        }
      } else if (g) {
        fab = cat_.find_fabric(g->default_fabric);
      }
      if (fab) p.fabric = fab->name;
      if (pn["internal"])
        if (auto b = r_.boolean(pn["internal"], child(path, "internal"))) p.internal = *b;
      const bool owned = static_cast<bool>(pn["owned"]);
      const bool rented = static_cast<bool>(pn["rented"]);
      if (owned == rented) {
        r_.error(pn, path, owned ? "a pool is either 'owned' or 'rented', not both" : "missing 'owned' or 'rented'",
                 "give owned: {capex_per_node, currency, amortisation_years, ...} or rented: {catalog, plan}");
      } else if (owned) {
        p.kind = fleet::PoolKind::Owned;
        read_owned(pn["owned"], child(path, "owned"), g, fab, p);
      } else {
        p.kind = fleet::PoolKind::Rented;
        read_rented(pn["rented"], child(path, "rented"), p);
      }
      f.pools.push_back(std::move(p));
    }
  }

  void read_owned(const YAML::Node& n, const std::string& path, const hardware::GpuSpec* g,
                  const hardware::FabricSpec* fab, fleet::Pool& p) {
    if (!r_.expect_map(n, path)) return;
    r_.check_keys(n, path,
                  {"capex_per_node", "currency", "amortisation_years", "node_power_kw", "idle_fraction",
                   "electricity_per_kwh", "pue"});
    fleet::OwnedCosts& o = p.owned;
    units::Currency cur = units::Currency::of("USD");
    if (!n["currency"])
      r_.error(n, child(path, "currency"), "missing required key 'currency'", "write e.g. currency: USD");
    else if (auto c = currency(n["currency"], child(path, "currency")))
      cur = *c;
    if (!n["capex_per_node"])
      r_.error(n, child(path, "capex_per_node"), "missing required key 'capex_per_node'",
               "purchase price of one node, e.g. 300000");
    else if (auto v = micro(n["capex_per_node"], child(path, "capex_per_node")))
      o.capex_per_node = units::Money::of_micro(*v, cur);
    if (!n["amortisation_years"])
      r_.error(n, child(path, "amortisation_years"), "missing required key 'amortisation_years'",
               "write-off period, e.g. 4");
    else if (auto v = r_.number(n["amortisation_years"], child(path, "amortisation_years"), 0.1, 30))
      o.amortisation = units::Time::from_seconds(*v * 365 * 86400.0);
    if (n["node_power_kw"]) {
      if (auto v = r_.number(n["node_power_kw"], child(path, "node_power_kw"), 0.01, 1000)) o.node_power_kw = *v;
    } else if (fab && fab->node_power_kw > 0) {
      o.node_power_kw = fab->node_power_kw;
    } else if (g) {
      // Unknown node power: the GPUs' TDP plus kNodeOverheadFraction for the rest (job_input.hpp).
      o.node_power_kw = g->tdp_w * p.gpus_per_node * (1.0 + job::kNodeOverheadFraction) / 1000.0;
    }
    if (n["idle_fraction"])
      if (auto v = r_.number(n["idle_fraction"], child(path, "idle_fraction"), 0, 1)) o.idle_fraction = *v;
    if (!n["electricity_per_kwh"]) {
      r_.error(n, child(path, "electricity_per_kwh"), "missing required key 'electricity_per_kwh'",
               "price of a kWh in the pool's currency, e.g. 0.08 (US industrial, EIA 2024)");
    } else if (auto v = micro(n["electricity_per_kwh"], child(path, "electricity_per_kwh"))) {
      o.price_per_kwh = units::PriceRate::of_micro(*v, cur);
    }
    if (n["pue"])
      if (auto v = r_.number(n["pue"], child(path, "pue"), 1.0, 3.0)) o.pue = *v;
  }

  void read_rented(const YAML::Node& n, const std::string& path, fleet::Pool& p) {
    if (!r_.expect_map(n, path)) return;
    r_.check_keys(n, path, {"catalog", "plan", "billing"});
    if (!n["catalog"]) {
      r_.error(n, child(path, "catalog"), "missing required key 'catalog'",
               "one of: " + detail::join(price_catalog_names()));
      return;
    }
    p.rented.catalog = price_catalog(n["catalog"], child(path, "catalog"));
    if (n["billing"])
      if (auto c = r_.choice(n["billing"], child(path, "billing"), {"reserved", "on_demand"}))
        p.rented.billing = *c == "reserved" ? fleet::RentalBilling::Reserved : fleet::RentalBilling::OnDemand;
    if (!n["plan"]) {
      r_.error(n, child(path, "plan"), "missing required key 'plan'", "a plan id of the catalog");
      return;
    }
    if (auto s = r_.string(n["plan"], child(path, "plan"))) {
      p.rented.plan = *s;
      if (p.rented.catalog) check_plan(n["plan"], child(path, "plan"), *p.rented.catalog, *s, p.gpu);
    }
  }

  /// The plan exists in `catalog` and rents `gpu_name` (when known).
  bool check_plan(const YAML::Node& at, const std::string& path, const pricing::PriceCatalog& catalog,
                  const std::string& id, const std::string& gpu_name) {
    const pricing::Plan* plan = catalog.find_plan(id);
    if (!plan) {
      std::vector<std::string> ids;
      for (const auto& pl : catalog.plans)
        if (gpu_name.empty() || pl.applies_to(gpu_name)) ids.push_back(pl.id);
      std::string hint = "plans for " + (gpu_name.empty() ? std::string("it") : gpu_name) + ": " + detail::join(ids);
      if (auto m = detail::did_you_mean(id, ids)) hint = "did you mean '" + *m + "'? " + hint;
      r_.error(at, path, "no plan '" + id + "' in catalog '" + catalog.name + "'", hint);
      return false;
    }
    if (!gpu_name.empty() && !plan->applies_to(gpu_name)) {
      r_.error(at, path, "plan '" + id + "' does not rent " + gpu_name + " (it rents " + detail::join(plan->gpus) + ")",
               "pick a plan for the pool's GPU");
      return false;
    }
    return true;
  }

  void read_classes(const YAML::Node& n, FleetFile& out) {
    if (!n.IsSequence() || n.size() == 0) {
      r_.error(n, "job_classes", "expected a non-empty list of job classes, got " + describe(n), "see docs/fleet.md");
      return;
    }
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string path = idx("job_classes", i);
      const YAML::Node cn = n[i];
      if (!r_.expect_map(cn, path)) continue;
      r_.check_keys(cn, path, {"name", "scenario", "tokens", "gpus", "replan"});
      FleetClassInput c;
      c.key = path;
      if (!cn["scenario"]) {
        r_.error(cn, child(path, "scenario"), "missing required key 'scenario'",
                 "path of a scenario file, relative to this file");
        continue;
      }
      const auto sp = r_.string(cn["scenario"], child(path, "scenario"));
      if (!sp) continue;
      c.scenario_path = *sp;
      c.scenario_file = resolve(*sp);
      c.name = std::filesystem::path(*sp).stem().string();
      if (cn["name"])
        if (auto s = r_.string(cn["name"], child(path, "name"))) c.name = *s;
      if (class_index_.count(c.name))
        r_.error(cn, child(path, "name"), "job class name '" + c.name + "' is used twice",
                 "give each class a unique name");
      // Known from here on, even when its scenario does not load: jobs naming it get no second error.
      class_index_.emplace(c.name, out.classes.size());
      scenario::Diagnostics sd;
      auto s = load_scenario_file(c.scenario_file, cat_, sd);
      for (auto d : sd.items()) {
        if (d.where.line == 0 && d.key.empty()) {  // file not found / unreadable: point at our key
          d.message = "scenario '" + c.scenario_file + "': " + d.message;
          d.where = detail::loc_of(cn["scenario"], file_);
          d.key = child(path, "scenario");
        }
        diags_.add(d);
      }
      if (s) c.scenario = std::move(*s);
      // A scenario that failed to load has its errors reported above, so the fleet file is
      // refused; one GPU keeps the per-class checks below from adding a second, misleading one.
      else
        c.scenario.cluster.gpus = 1;
      c.tokens = c.scenario.training.tokens;
      c.gpus = c.scenario.cluster.gpus;
      if (cn["tokens"])
        if (auto v = r_.number(cn["tokens"], child(path, "tokens"), 1, 1e16)) c.tokens = *v;
      if (s && !(c.tokens > 0))
        r_.error(cn, child(path, "tokens"),
                 "scenario '" + c.scenario_path + "' has no training.tokens: a fleet job needs a run length",
                 "add tokens: (e.g. 20B) to the job class");
      if (cn["gpus"])
        if (auto v = r_.integer(cn["gpus"], child(path, "gpus"), 1, kMaxNodes * 72)) c.gpus = *v;
      if (auto rp = cn["replan"]) {
        const std::string rpath = child(path, "replan");
        if (r_.expect_map(rp, rpath)) {
          r_.check_keys(rp, rpath, {"gpu_types", "gpu_counts"});
          if (auto l = rp["gpu_types"]) {
            if (!l.IsSequence())
              r_.error(l, child(rpath, "gpu_types"), "expected a list of GPU names, got " + describe(l),
                       "write e.g. [H800, B200]");
            else
              for (std::size_t k = 0; k < l.size(); ++k)
                if (const auto* g = gpu(l[k], idx(child(rpath, "gpu_types"), k))) c.replan_gpus.push_back(g->name);
          }
          if (auto l = rp["gpu_counts"]) {
            if (!l.IsSequence())
              r_.error(l, child(rpath, "gpu_counts"), "expected a list of GPU counts, got " + describe(l),
                       "write e.g. [64, 256]");
            else
              for (std::size_t k = 0; k < l.size(); ++k)
                if (auto v = r_.integer(l[k], idx(child(rpath, "gpu_counts"), k), 1, kMaxNodes * 72))
                  c.replan_counts.push_back(*v);
          }
        }
      }
      fleet::JobClass jc;
      jc.name = c.name;
      jc.scenario = c.scenario_path;
      jc.gpu = c.scenario.cluster.gpu.name;
      jc.gpus = c.gpus;
      out.fleet.classes.push_back(std::move(jc));
      out.classes.push_back(std::move(c));
    }
  }

  std::optional<std::size_t> job_class(const YAML::Node& n, const std::string& path) {
    auto s = r_.string(n, path);
    if (!s) return std::nullopt;
    if (auto it = class_index_.find(*s); it != class_index_.end()) return it->second;
    std::vector<std::string> names;
    for (const auto& [k, v] : class_index_) names.push_back(k);
    std::string hint = "job classes: " + detail::join(names);
    if (auto m = detail::did_you_mean(*s, names)) hint = "did you mean '" + *m + "'? " + hint;
    r_.error(n, path, "unknown job class '" + *s + "'", hint);
    return std::nullopt;
  }

  void read_jobs(const YAML::Node& n, FleetFile& out) {
    if (!n.IsSequence() || n.size() == 0) {
      r_.error(n, "jobs", "expected a non-empty list of jobs, got " + describe(n), "see docs/fleet.md");
      return;
    }
    if (n.size() > static_cast<std::size_t>(kMaxJobs)) {
      r_.error(n, "jobs", "more than 10M jobs", "use a generator");
      return;
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string path = idx("jobs", i);
      const YAML::Node jn = n[i];
      if (!r_.expect_map(jn, path)) continue;
      r_.check_keys(jn, path, {"name", "class", "arrival", "priority", "deadline"});
      fleet::JobSpec j;
      j.name = "job" + std::to_string(i + 1);
      if (jn["name"])
        if (auto s = r_.string(jn["name"], child(path, "name"))) j.name = *s;
      if (!names.insert(j.name).second)
        r_.error(jn, child(path, "name"), "job name '" + j.name + "' is used twice", "job names must be unique");
      if (!jn["class"])
        r_.error(jn, child(path, "class"), "missing required key 'class'", "the name of a job class");
      else if (auto c = job_class(jn["class"], child(path, "class")))
        j.job_class = *c;
      if (!jn["arrival"])
        r_.error(jn, child(path, "arrival"), "missing required key 'arrival'",
                 "time after the start of the horizon, e.g. 3d");
      else if (auto d = duration(jn["arrival"], child(path, "arrival"), false))
        j.arrival = *d;
      if (jn["priority"])
        if (auto v = r_.integer(jn["priority"], child(path, "priority"), -1000, 1000))
          j.priority = static_cast<int>(*v);
      if (jn["deadline"])
        if (auto d = duration(jn["deadline"], child(path, "deadline"), true)) j.deadline = *d;
      if (j.arrival > out.fleet.horizon)
        diags_.warning(detail::loc_of(jn["arrival"], file_), child(path, "arrival"),
                       "arrives after the horizon: it is simulated, but its wait counts beyond the planned period");
      out.fleet.jobs.push_back(std::move(j));
    }
  }

  void read_generator(const YAML::Node& n, FleetFile& out) {
    if (!r_.expect_map(n, "generator")) return;
    r_.check_keys(n, "generator", {"process", "rate_per_day", "start", "end", "max_jobs", "mix"});
    fleet::StreamGenerator g;
    if (n["process"])
      if (auto c = r_.choice(n["process"], "generator.process", {"poisson", "uniform"}))
        g.process = *c == "poisson" ? fleet::ArrivalProcess::Poisson : fleet::ArrivalProcess::Uniform;
    if (!n["rate_per_day"])
      r_.error(n, "generator.rate_per_day", "missing required key 'rate_per_day'",
               "mean job arrivals per day, e.g. 12");
    else if (auto v = r_.number(n["rate_per_day"], "generator.rate_per_day", 1e-6, 1e7))
      g.rate_per_day = *v;
    if (n["start"])
      if (auto d = duration(n["start"], "generator.start", false)) g.start = *d;
    if (n["end"])
      if (auto d = duration(n["end"], "generator.end", true)) g.end = *d;
    if (n["max_jobs"])
      if (auto v = r_.integer(n["max_jobs"], "generator.max_jobs", 0, kMaxJobs)) g.max_jobs = *v;
    if (g.max_jobs == 0 && g.rate_per_day > 0) {
      const double expected = g.rate_per_day * (g.end.value_or(out.fleet.horizon) - g.start).days();
      if (expected > static_cast<double>(kMaxJobs))
        r_.error(n["rate_per_day"], "generator.rate_per_day",
                 "about " + std::to_string(std::llround(expected)) + " jobs per seed: more than 10M",
                 "lower the rate or set max_jobs");
    }
    const YAML::Node mix = n["mix"];
    if (!mix || !mix.IsSequence() || mix.size() == 0) {
      r_.error(mix ? mix : n, "generator.mix", "expected a non-empty list of job templates",
               "write mix: [{class: NAME, weight: 3}, ...]");
    } else {
      for (std::size_t i = 0; i < mix.size(); ++i) {
        const std::string path = idx("generator.mix", i);
        const YAML::Node m = mix[i];
        if (!r_.expect_map(m, path)) continue;
        r_.check_keys(m, path, {"class", "weight", "priority", "deadline"});
        fleet::MixEntry e;
        if (!m["class"])
          r_.error(m, child(path, "class"), "missing required key 'class'", "the name of a job class");
        else if (auto c = job_class(m["class"], child(path, "class")))
          e.job_class = *c;
        if (m["weight"])
          if (auto v = r_.number(m["weight"], child(path, "weight"), 1e-9, 1e9)) e.weight = *v;
        if (m["priority"])
          if (auto v = r_.integer(m["priority"], child(path, "priority"), -1000, 1000))
            e.priority = static_cast<int>(*v);
        if (m["deadline"])
          if (auto d = duration(m["deadline"], child(path, "deadline"), true)) e.deadline = *d;
        g.mix.push_back(e);
      }
    }
    out.fleet.generator = std::move(g);
  }

  void read_revenue(const YAML::Node& n, fleet::Fleet& f) {
    if (!r_.expect_map(n, "revenue")) return;
    r_.check_keys(n, "revenue", {"catalog", "plans", "currency"});
    fleet::RevenueSpec rs;
    if (!n["catalog"]) {
      r_.error(n, "revenue.catalog", "missing required key 'catalog'",
               "one of: " + detail::join(price_catalog_names()));
      return;
    }
    rs.catalog = price_catalog(n["catalog"], "revenue.catalog");
    if (n["currency"]) rs.currency = currency(n["currency"], "revenue.currency");
    const YAML::Node plans = n["plans"];
    if (!plans || !plans.IsMap() || plans.size() == 0) {
      r_.error(plans ? plans : n, "revenue.plans", "expected a mapping from GPU to plan id",
               "write plans: {A100-80G: a100-80g-hourly}");
      return;
    }
    for (const auto& kv : plans) {
      const std::string gpath = "revenue.plans." + kv.first.Scalar();
      const hardware::GpuSpec* g = gpu(kv.first, gpath);
      auto id = r_.string(kv.second, gpath);
      if (!g || !id) continue;
      if (rs.catalog && check_plan(kv.second, gpath, *rs.catalog, *id, g->name))
        check_revenue_plan(kv.second, gpath, *rs.catalog, *rs.catalog->find_plan(*id), g->name,
                           rs.currency.value_or(rs.catalog->currency));
      rs.plans.emplace_back(g->name, *id);
    }
    f.revenue = std::move(rs);
  }

  /// The provider's own plans bill its customers: a competitor's price is not revenue, and the
  /// catalog must convert the plan's prices into the customers' bill currency.
  void check_revenue_plan(const YAML::Node& at, const std::string& path, const pricing::PriceCatalog& catalog,
                          const pricing::Plan& plan, const std::string& gpu_name, units::Currency billed_in) {
    if (plan.competitor) {
      std::vector<std::string> own;
      for (const pricing::Plan* pl : catalog.plans_for({gpu_name}))
        if (!pl->competitor) own.push_back(pl->id);
      r_.error(at, path,
               "plan '" + plan.id + "' is a competitor's price (competitor: true in " + catalog.name +
                   "): revenue bills customers under the provider's own plans",
               own.empty() ? catalog.name + " has no plan of its own for " + gpu_name + "; mark the pool internal: true"
                           : "the provider's plans for " + gpu_name + ": " + detail::join(own));
      return;
    }
    std::vector<units::Currency> priced_in{plan.price.currency};
    for (const pricing::AddOn& a : plan.add_ons)
      if (!a.optional) priced_in.push_back(a.price.currency);
    for (const units::Currency c : priced_in) {
      if (c == billed_in || catalog.fx_between(c, billed_in)) continue;
      r_.error(at, path,
               "plan '" + plan.id + "' is priced in " + c.str() + " and catalog '" + catalog.name +
                   "' states no exchange rate between " + c.str() + " and " + billed_in.str(),
               "bill customers in " + c.str() + " (revenue.currency) or add the rate to the catalog's fx list");
      return;
    }
  }

  /// With revenue, every pool earns under a plan for its GPU or says it earns nothing.
  void check_pools_earn(const fleet::Fleet& f) {
    const fleet::RevenueSpec& rs = *f.revenue;
    for (std::size_t i = 0; i < f.pools.size() && i < pool_nodes_.size(); ++i) {
      const fleet::Pool& p = f.pools[i];
      if (p.internal || p.gpu.empty()) continue;
      const bool has_plan = std::any_of(rs.plans.begin(), rs.plans.end(), [&](const auto& gp) {
        return pricing::normalize_gpu_name(gp.first) == pricing::normalize_gpu_name(p.gpu);
      });
      if (has_plan) continue;
      std::string hint = "add '" + p.gpu + ": PLAN' to revenue.plans";
      if (rs.catalog) {
        std::vector<std::string> own;
        for (const pricing::Plan* pl : rs.catalog->plans_for({p.gpu}))
          if (!pl->competitor && pl->names_gpu(p.gpu)) own.push_back(pl->id);
        hint += own.empty() ? " (" + rs.catalog->name + " has no plan for " + p.gpu + ")"
                            : " (" + rs.catalog->name + "'s plans for " + p.gpu + ": " + detail::join(own) + ")";
      }
      hint += ", or mark the pool internal: true (its cost counts, it earns nothing)";
      r_.error(pool_nodes_[i], idx("pools", i),
               "pool '" + p.name + "' (" + p.gpu + ") has no revenue plan: its runs would earn nothing", hint);
    }
  }

  void read_what_ifs(const YAML::Node& n, fleet::Fleet& f) {
    if (!n.IsSequence()) {
      r_.error(n, "what_if", "expected a list of what-ifs, got " + describe(n),
               "write what_if: [{add_nodes: 4, gpu: H800}, {pool: p, plan: id}]");
      return;
    }
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string path = idx("what_if", i);
      const YAML::Node w = n[i];
      if (!r_.expect_map(w, path)) continue;
      r_.check_keys(w, path, {"label", "add_nodes", "gpu", "pool", "plan", "billing"});
      fleet::WhatIf wi;
      const fleet::Pool* pool = nullptr;
      if (w["pool"]) {
        if (auto s = r_.string(w["pool"], child(path, "pool"))) {
          for (const auto& p : f.pools)
            if (p.name == *s) pool = &p;
          if (!pool) {
            std::vector<std::string> names;
            for (const auto& p : f.pools) names.push_back(p.name);
            std::string hint = "pools: " + detail::join(names);
            if (auto m = detail::did_you_mean(*s, names)) hint = "did you mean '" + *m + "'? " + hint;
            r_.error(w["pool"], child(path, "pool"), "no pool '" + *s + "'", hint);
            continue;
          }
        }
      } else if (w["gpu"]) {
        if (const hardware::GpuSpec* g = gpu(w["gpu"], child(path, "gpu"))) {
          for (const auto& p : f.pools)
            if (!pool && pricing::normalize_gpu_name(p.gpu) == pricing::normalize_gpu_name(g->name)) pool = &p;
          if (!pool) {
            r_.error(w["gpu"], child(path, "gpu"), "no pool of " + g->name,
                     "add a pool of it (nodes: 1) to grow it in a what-if");
            continue;
          }
        }
      } else {
        r_.error(w, child(path, "pool"), "missing 'pool' (or 'gpu')", "name the pool the what-if changes");
        continue;
      }
      if (!pool) continue;
      wi.pool = pool->name;
      if (w["add_nodes"] && w["plan"]) {
        r_.error(w, path, "a what-if either adds nodes or changes a plan, not both", "split it into two what-ifs");
        continue;
      }
      if (w["add_nodes"]) {
        wi.kind = fleet::WhatIf::Kind::AddNodes;
        if (auto v = r_.integer(w["add_nodes"], child(path, "add_nodes"), -kMaxNodes, kMaxNodes)) {
          wi.nodes = *v;
          if (pool->nodes + *v < 1)
            r_.error(w["add_nodes"], child(path, "add_nodes"),
                     "the pool would have " + std::to_string(pool->nodes + *v) + " nodes", "keep at least one node");
        }
        wi.label = (wi.nodes >= 0 ? "+" : "") + std::to_string(wi.nodes) + " nodes " + pool->name;
      } else if (w["plan"]) {
        wi.kind = fleet::WhatIf::Kind::ChangePlan;
        if (pool->kind != fleet::PoolKind::Rented) {
          r_.error(w["plan"], child(path, "plan"), "pool '" + pool->name + "' is owned: it has no plan to change",
                   "what-ifs on plans apply to rented pools");
          continue;
        }
        if (auto s = r_.string(w["plan"], child(path, "plan"))) {
          wi.plan = *s;
          if (pool->rented.catalog) check_plan(w["plan"], child(path, "plan"), *pool->rented.catalog, *s, pool->gpu);
        }
        if (w["billing"])
          if (auto c = r_.choice(w["billing"], child(path, "billing"), {"reserved", "on_demand"}))
            wi.billing = *c == "reserved" ? fleet::RentalBilling::Reserved : fleet::RentalBilling::OnDemand;
        wi.label = pool->name + " under " + wi.plan;
      } else {
        r_.error(w, path, "a what-if needs 'add_nodes' or 'plan'",
                 "write {add_nodes: 4, pool: NAME} or {pool: NAME, plan: ID}");
        continue;
      }
      if (w["label"])
        if (auto s = r_.string(w["label"], child(path, "label"))) wi.label = *s;
      f.what_ifs.push_back(std::move(wi));
    }
  }

  std::string file_;
  const Catalog& cat_;
  scenario::Diagnostics& diags_;
  Reader r_;
  std::map<std::string, std::shared_ptr<const pricing::PriceCatalog>> catalogs_;
  std::map<std::string, std::size_t> class_index_;
  std::vector<YAML::Node> pool_nodes_;  ///< pools[i] as written (for errors about a pool as a whole)
};

/// A currency something in the fleet bills in, and the key that says so.
struct Billed {
  units::Currency currency;
  std::string what;  ///< "pool 'h100-owned': capex"
  std::string key;   ///< "pools[0].owned.currency"
};

std::vector<Billed> billed_currencies(const fleet::Fleet& f) {
  std::vector<Billed> out;
  for (std::size_t i = 0; i < f.pools.size(); ++i) {
    const fleet::Pool& p = f.pools[i];
    const std::string key = "pools[" + std::to_string(i) + "]";
    if (p.kind == fleet::PoolKind::Owned) {
      out.push_back(
          {p.owned.capex_per_node.currency, "pool '" + p.name + "': capex and electricity", key + ".owned.currency"});
    } else if (p.rented.catalog) {
      out.push_back({p.rented.catalog->currency, "pool '" + p.name + "': the bill of " + p.rented.catalog->name,
                     key + ".rented.catalog"});
    }
  }
  if (f.revenue && f.revenue->catalog)
    out.push_back({f.revenue->currency.value_or(f.revenue->catalog->currency), "revenue",
                   f.revenue->currency ? "revenue.currency" : "revenue.catalog"});
  return out;
}

std::string catalog_names(const FleetFile& ff) {
  std::string s;
  for (const auto& c : ff.catalogs) s += (s.empty() ? "" : ", ") + c->name;
  return s;
}

}  // namespace

bool resolve_fleet_currency(FleetFile& ff, std::optional<units::Currency> asked, scenario::Diagnostics& diags) {
  fleet::Fleet& f = ff.fleet;
  const auto billed = billed_currencies(f);
  std::optional<units::Currency> r = asked ? asked : ff.currency;
  std::string named_by = asked         ? "as asked, --currency " + asked->str()
                         : ff.currency ? "currency: " + ff.currency->str()
                                       : "";
  if (!r && f.revenue && f.revenue->catalog) {
    r = f.revenue->currency.value_or(f.revenue->catalog->currency);
    named_by = "the revenue's currency";
  }
  if (!r) {
    std::vector<std::string> codes;
    for (const auto& b : billed)
      if (std::find(codes.begin(), codes.end(), b.currency.str()) == codes.end()) codes.push_back(b.currency.str());
    if (codes.size() > 1) {
      std::string listed;
      for (std::size_t i = 0; i < codes.size(); ++i)
        listed += (i == 0 ? "" : i + 1 == codes.size() ? " and " : ", ") + codes[i];
      diags.error(
          {ff.file, 1, 1}, "currency",
          "the pools bill in " + listed + " and the file names no reporting currency for the totals",
          "add currency: " + codes.front() + " (or another) to the fleet file, or pass --currency " + codes.front());
      return false;
    }
    r = codes.empty() ? units::Currency::of("USD") : units::Currency::of(codes.front());
    named_by = "the pools' currency";
  }
  f.currency = *r;
  f.fx.clear();
  bool ok = true;
  for (const Billed& b : billed) {
    if (b.currency == *r) continue;
    const bool known = std::any_of(f.fx.begin(), f.fx.end(), [&](const fleet::FxQuote& q) {
      return (q.rate.from == b.currency && q.rate.to == *r) || (q.rate.from == *r && q.rate.to == b.currency);
    });
    if (known) continue;
    std::optional<fleet::FxQuote> first;
    for (const auto& cat : ff.catalogs) {
      const units::FxRate* rate = cat->fx_between(b.currency, *r);
      if (!rate) continue;
      if (!first) {
        first = fleet::FxQuote{*rate, cat->name};
      } else if (rate->micro != first->rate.micro || !(rate->from == first->rate.from)) {
        diags.warning(scenario::locate(ff.locations, b.key), b.key,
                      "catalogs disagree on " + b.currency.str() + "/" + r->str() + ": " + first->catalog + " states " +
                          first->rate.str() + ", " + cat->name + " " + rate->str() + "; " + first->catalog +
                          "'s rate is used",
                      "rates are looked up in the revenue catalog first, then in the pools' catalogs in order");
      }
    }
    if (first) {
      f.fx.push_back(*first);
      continue;
    }
    const std::string where = ff.catalogs.empty() ? std::string("the fleet uses no price catalog, so it has no rates")
                                                  : "none in the catalogs " + catalog_names(ff);
    diags.error_at(ff.locations, b.key,
                   b.what + " in " + b.currency.str() + " cannot be reported in " + r->str() + " (" + named_by +
                       "): no exchange rate between " + b.currency.str() + " and " + r->str() + " (" + where + ")",
                   ff.catalogs.empty()
                       ? "report in " + b.currency.str() + " (--currency " + b.currency.str() + ")"
                       : "add {from: " + b.currency.str() + ", to: " + r->str() +
                             ", rate: R, note: SOURCE} to the fx list of " + catalog_names(ff) + ", or report in " +
                             b.currency.str() + " (--currency " + b.currency.str() + ")");
    ok = false;
  }
  return ok;
}

std::optional<FleetFile> parse_fleet(const std::string& text, const std::string& file, const Catalog& catalog,
                                     scenario::Diagnostics& diags, const FleetLoadOptions& options) {
  const YAML::Node root = detail::load_yaml(text, file, diags);
  if (!root.IsDefined()) return std::nullopt;
  if (root.IsNull()) {
    diags.error({file, 1, 1}, "", "the file is empty",
                "see scenarios/fleets/ for examples and docs/fleet.md for the format");
    return std::nullopt;
  }
  scenario::Diagnostics local;
  scenario::LocationMap locs;
  std::optional<FleetFile> out;
  try {
    FleetReader reader(file, catalog, local, locs);
    out = reader.read(root);
  } catch (const YAML::Exception& e) {
    local.error({file, e.mark.line + 1, e.mark.column + 1}, "", std::string("invalid value: ") + e.msg);
    out.reset();
  }
  diags.append(local);
  if (!out || local.has_errors()) return std::nullopt;
  out->locations = std::move(locs);
  if (!resolve_fleet_currency(*out, options.currency, diags)) return std::nullopt;
  return out;
}

std::optional<FleetFile> load_fleet_file(const std::string& path, const Catalog& catalog, scenario::Diagnostics& diags,
                                         const FleetLoadOptions& options) {
  const auto text = read_text_file(path, diags);
  if (!text) return std::nullopt;
  return parse_fleet(*text, path, catalog, diags, options);
}

}  // namespace flopcast::io

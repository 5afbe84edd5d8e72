#include "flopcast/io/price_catalog_io.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/units_parse.hpp"
#include "yaml_util.hpp"

namespace flopcast::io {
namespace {

using detail::child;
using detail::describe;
using detail::Reader;

/// The catalogs data/CMakeLists.txt embeds (FLOPCAST_EMBEDDED_DATA).
const char* const kShippedCatalogs[] = {"seed-vendor", "public-cloud", "china-rental-2026"};

constexpr std::int64_t kMaxUnits = 1'000'000;    // a minimum term or threshold of 10^6 units
constexpr std::int64_t kMaxGpusPerNode = 1'024;  // NVL72 racks hold 72; 1,024 is generous
constexpr double kMaxPue = 3.0;                  // survey averages are 1.1-1.6 (UPTIME)

/// Reads price-like decimals exactly from the scalar text (never through a double).
class PriceReader {
 public:
  explicit PriceReader(Reader& r) : r_(r) {}

  std::optional<units::Currency> currency(const YAML::Node& n, const std::string& path) {
    auto s = r_.string(n, path);
    if (!s) return std::nullopt;
    const auto c = parse_currency(*s, false);  // RMB, 元 and ¥ are CNY; $ is USD
    if (!c) {
      r_.error(n, path, "expected an ISO 4217 currency code, got " + describe(n), "write e.g. CNY or USD");
      return std::nullopt;
    }
    return c;
  }

  /// A decimal with up to six decimals, >= 0, as micro-units.
  std::optional<std::int64_t> micro(const YAML::Node& n, const std::string& path) {
    r_.note(path, n);
    if (!n.IsScalar()) {
      r_.error(n, path, "expected a price such as 6.8 or \"57,600\", got " + describe(n));
      return std::nullopt;
    }
    const auto v = units::parse_micro_units(n.Scalar());
    if (!v) {
      r_.error(n, path, "expected a decimal price with at most 6 decimals, got " + describe(n),
               "write e.g. 4.916 or \"57,600\" (no currency sign; the currency is a separate key)");
      return std::nullopt;
    }
    if (*v < 0) {
      r_.error(n, path, "a price cannot be negative, got " + describe(n));
      return std::nullopt;
    }
    return v;
  }

  /// A decimal with at most two decimals, >= 0, as minor units.
  std::optional<std::int64_t> minor(const YAML::Node& n, const std::string& path) {
    r_.note(path, n);
    std::optional<std::int64_t> v;
    if (n.IsScalar()) v = units::parse_minor_units(n.Scalar());
    if (!v || *v < 0) {
      r_.error(n, path, "expected an amount >= 0 with at most 2 decimals, got " + describe(n),
               "write e.g. 30000 or \"30,000.00\"");
      return std::nullopt;
    }
    return v;
  }

  std::optional<units::Time> duration(const YAML::Node& n, const std::string& path) {
    r_.note(path, n);
    std::optional<units::Time> v;
    if (n.IsScalar()) v = parse_duration(n.Scalar());
    if (!v || v->ns < 0) {
      r_.error(n, path, "expected a duration >= 0, got " + describe(n),
               "write e.g. \"90s\", \"10min\", \"2.5 h\" or \"3d\"");
      return std::nullopt;
    }
    return v;
  }

  std::optional<units::Bandwidth> bandwidth(const YAML::Node& n, const std::string& path) {
    r_.note(path, n);
    std::optional<units::Bandwidth> v;
    if (n.IsScalar()) v = parse_bandwidth(n.Scalar());
    if (!v || !(v->bytes_per_s > 0.0)) {
      r_.error(n, path, "expected a bandwidth > 0, got " + describe(n),
               "write e.g. \"5 GB/s\" (bytes) or \"200 Gbps\" (bits)");
      return std::nullopt;
    }
    return v;
  }

  /// A list of strings, or one string.
  std::vector<std::string> strings(const YAML::Node& n, const std::string& path) {
    r_.note(path, n);
    std::vector<std::string> out;
    if (n.IsScalar()) {
      out.push_back(n.Scalar());
    } else if (n.IsSequence()) {
      for (std::size_t i = 0; i < n.size(); ++i) {
        if (auto s = r_.string(n[i], path + "[" + std::to_string(i) + "]")) out.push_back(*s);
      }
    } else {
      r_.error(n, path, "expected a list of names, got " + describe(n), "write e.g. [A100-80G, A100]");
    }
    return out;
  }

  void text(const YAML::Node& parent, std::string_view key, const std::string& path, std::string& out) {
    if (const YAML::Node n = parent[std::string(key)]) {
      if (auto s = r_.string(n, child(path, key))) out = *s;
    }
  }

 private:
  Reader& r_;
};

void read_add_on(const YAML::Node& n, const std::string& path, Reader& r, PriceReader& pr,
                 units::Currency plan_currency, pricing::AddOn& a) {
  if (!r.expect_map(n, path)) return;
  r.check_keys(n, path,
               {"id", "name", "name_zh", "kind", "price", "currency", "included", "optional", "note", "note_zh"});
  pr.text(n, "id", path, a.id);
  pr.text(n, "name", path, a.name);
  pr.text(n, "name_zh", path, a.name_zh);
  pr.text(n, "note", path, a.note);
  pr.text(n, "note_zh", path, a.note_zh);
  if (a.id.empty()) r.error(n, path, "an add-on needs an 'id'");
  if (const YAML::Node k = n["kind"]) {
    if (auto v = r.choice(k, child(path, "kind"), {"gpu_unit", "node_unit", "storage_gb_month", "once"}))
      a.kind = *pricing::parse_add_on_kind(*v);
  } else {
    r.error(n, child(path, "kind"), "missing 'kind'", "one of gpu_unit, node_unit, storage_gb_month, once");
  }
  a.price.currency = plan_currency;
  if (const YAML::Node c = n["currency"]) {
    if (auto v = pr.currency(c, child(path, "currency"))) a.price.currency = *v;
  }
  if (const YAML::Node b = n["included"]) {
    if (auto v = r.boolean(b, child(path, "included"))) a.included = *v;
  }
  if (const YAML::Node o = n["optional"]) {
    if (auto v = r.boolean(o, child(path, "optional"))) a.optional = *v;
  }
  if (const YAML::Node p = n["price"]) {
    if (auto v = pr.micro(p, child(path, "price"))) a.price.micro = *v;
  } else if (!a.included) {
    r.error(n, child(path, "price"), "missing 'price'", "give a price, or 'included: true'");
  }
}

/// What the plan's price is (`kind:`, required) and, for spot plans, its interruptions
/// (`spot: {interruptions_per_hour, restart, source}`, required for kind spot).
void read_kind(const YAML::Node& n, const std::string& path, Reader& r, PriceReader& pr, pricing::Plan& p) {
  if (const YAML::Node k = n["kind"]) {
    if (auto v = r.choice(k, child(path, "kind"), {"offer", "list", "contract", "spot", "assumption", "competitor"})) {
      p.kind = *pricing::parse_price_kind(*v);
      if (p.kind == pricing::PriceKind::Competitor) p.competitor = true;
    }
  } else {
    r.error(n, child(path, "kind"), "missing 'kind'",
            "say what the price is: offer (the provider's own), list (a public price), contract, spot, "
            "assumption (a figure someone assumed) or competitor");
  }
  if (p.competitor && p.kind != pricing::PriceKind::Competitor && n["kind"])
    r.error(n["kind"], child(path, "kind"), "a plan with 'competitor: true' must have kind competitor",
            "drop 'competitor: true' (kind: competitor says it)");
  const YAML::Node sp = n["spot"];
  if (!sp) {
    if (p.kind == pricing::PriceKind::Spot)
      r.error(n, child(path, "spot"), "a spot plan needs its interruptions",
              "spot: {interruptions_per_hour: 0.0003, restart: 30min, source: \"...\"} (per node of gpus_per_node "
              "GPUs, per hour of use)");
    return;
  }
  const std::string spath = child(path, "spot");
  if (p.kind != pricing::PriceKind::Spot)
    r.error(sp, spath, "only a spot plan has 'spot:'", "set kind: spot, or drop it");
  if (!r.expect_map(sp, spath)) return;
  r.check_keys(sp, spath, {"interruptions_per_hour", "restart", "source"});
  if (const YAML::Node x = sp["interruptions_per_hour"]) {
    if (auto v = r.number(x, child(spath, "interruptions_per_hour"), 0.0, 100.0)) p.interruptions_per_hour = *v;
  } else {
    r.error(sp, child(spath, "interruptions_per_hour"), "missing 'interruptions_per_hour'",
            "interruptions per node (gpus_per_node GPUs) per hour of use, as the source states it");
  }
  if (const YAML::Node x = sp["restart"]) {
    if (auto v = pr.duration(x, child(spath, "restart"))) p.interruption_restart = *v;
  }
  pr.text(sp, "source", spath, p.interruption_source);
  if (p.interruption_source.empty())
    r.error(sp, child(spath, "source"), "missing 'source'", "cite where the interruption rate comes from");
}

void read_plan(const YAML::Node& n, const std::string& path, Reader& r, PriceReader& pr,
               units::Currency catalog_currency, pricing::Plan& p) {
  if (!r.expect_map(n, path)) return;
  r.check_keys(n, path,
               {"id",
                "name",
                "name_zh",
                "gpus",
                "unit",
                "basis",
                "gpus_per_node",
                "price",
                "currency",
                "rounding",
                "minimum_units",
                "deposit",
                "discount_percent",
                "discount_min_units",
                "add_ons",
                "queue",
                "claim",
                "competitor",
                "kind",
                "spot",
                "date",
                "source",
                "confidence",
                "note"});
  pr.text(n, "id", path, p.id);
  pr.text(n, "name", path, p.name);
  pr.text(n, "name_zh", path, p.name_zh);
  pr.text(n, "date", path, p.date);
  pr.text(n, "source", path, p.source);
  pr.text(n, "note", path, p.note);
  if (p.id.empty()) r.error(n, child(path, "id"), "a plan needs an 'id'", "a short unique name such as a100-hourly");
  if (const YAML::Node g = n["gpus"]) {
    p.gpus = pr.strings(g, child(path, "gpus"));
    if (p.gpus.empty())
      r.error(g, child(path, "gpus"), "a plan must name at least one GPU", "use \"*\" when the source does not say");
  } else {
    r.error(n, child(path, "gpus"), "missing 'gpus'",
            "list GPU catalog names such as [A100-80G], or [\"*\"] when the source does not say");
  }
  if (const YAML::Node u = n["unit"]) {
    if (auto v = r.choice(u, child(path, "unit"), {"hour", "day", "month", "year"}))
      p.unit = *pricing::parse_billing_unit(*v);
  } else {
    r.error(n, child(path, "unit"), "missing 'unit'", "one of hour, day, month, year");
  }
  if (const YAML::Node b = n["basis"]) {
    if (auto v = r.choice(b, child(path, "basis"), {"gpu", "node"})) p.basis = *pricing::parse_price_basis(*v);
  }
  if (const YAML::Node g = n["gpus_per_node"]) {
    if (auto v = r.integer(g, child(path, "gpus_per_node"), 1, kMaxGpusPerNode)) p.gpus_per_node = static_cast<int>(*v);
  }
  p.price.currency = catalog_currency;
  if (const YAML::Node c = n["currency"]) {
    if (auto v = pr.currency(c, child(path, "currency"))) p.price.currency = *v;
  }
  if (const YAML::Node pv = n["price"]) {
    if (auto v = pr.micro(pv, child(path, "price"))) p.price.micro = *v;
  } else {
    r.error(n, child(path, "price"), "missing 'price'",
            "the price per unit per GPU (or node), as the source states it");
  }
  if (const YAML::Node rd = n["rounding"]) {
    if (auto v = r.choice(rd, child(path, "rounding"), {"started_unit", "prorated"}))
      p.rounding = *pricing::parse_rounding(*v);
  }
  if (const YAML::Node m = n["minimum_units"]) {
    if (auto v = r.integer(m, child(path, "minimum_units"), 1, kMaxUnits)) p.minimum_units = *v;
  }
  p.deposit = units::Money::zero(p.price.currency);
  if (const YAML::Node d = n["deposit"]) {
    if (auto v = pr.minor(d, child(path, "deposit"))) p.deposit.minor = *v;
  }
  if (const YAML::Node d = n["discount_percent"]) {
    // Percent with two decimals = basis points; -1 marks a malformed value.
    const std::int64_t bp = d.IsScalar() ? units::parse_minor_units(d.Scalar()).value_or(-1) : -1;
    r.note(child(path, "discount_percent"), d);
    if (bp < 0 || bp > 10'000)
      r.error(d, child(path, "discount_percent"),
              "expected a percentage from 0 to 100 with at most 2 decimals, got " + describe(d));
    else
      p.discount_bp = static_cast<std::int32_t>(bp);
  }
  if (const YAML::Node m = n["discount_min_units"]) {
    if (auto v = r.integer(m, child(path, "discount_min_units"), 0, kMaxUnits)) p.discount_min_units = *v;
  }
  if (const YAML::Node a = n["add_ons"]) {
    const std::string apath = child(path, "add_ons");
    if (!a.IsSequence()) {
      r.error(a, apath, "expected a list of add-ons, got " + describe(a));
    } else {
      for (std::size_t i = 0; i < a.size(); ++i) {
        pricing::AddOn addon;
        read_add_on(a[i], apath + "[" + std::to_string(i) + "]", r, pr, p.price.currency, addon);
        p.add_ons.push_back(std::move(addon));
      }
    }
  }
  if (const YAML::Node q = n["queue"]) {
    if (auto v = pr.duration(q, child(path, "queue"))) p.queue = *v;
  }
  if (const YAML::Node c = n["claim"]) {
    if (auto v = r.boolean(c, child(path, "claim"))) p.claim = *v;
  }
  if (const YAML::Node c = n["competitor"]) {
    if (auto v = r.boolean(c, child(path, "competitor"))) p.competitor = *v;
  }
  if (const YAML::Node c = n["confidence"]) {
    if (auto v = r.choice(c, child(path, "confidence"), {"A", "B", "C", "A/B", "B/C", "CLAIM"})) p.confidence = *v;
  }
  read_kind(n, path, r, pr, p);
}

/// The catalog's exchange rates (`fx:`), each from, to, rate > 0 and an optional note.
void read_fx(const YAML::Node& root, Reader& r, PriceReader& pr, pricing::PriceCatalog& c) {
  if (const YAML::Node fx = root["fx"]) {
    if (!fx.IsSequence()) {
      r.error(fx, "fx", "expected a list of rates, got " + describe(fx),
              "- {from: USD, to: CNY, rate: 7.2, note: ...}");
    } else {
      for (std::size_t i = 0; i < fx.size(); ++i) {
        const std::string path = "fx[" + std::to_string(i) + "]";
        const YAML::Node e = fx[i];
        if (!r.expect_map(e, path)) continue;
        r.check_keys(e, path, {"from", "to", "rate", "note"});
        units::FxRate rate;
        bool ok = true;
        for (const char* key : {"from", "to", "rate"}) {
          if (!e[key]) {
            r.error(e, child(path, key), std::string("missing '") + key + "'");
            ok = false;
          }
        }
        if (!ok) continue;
        auto from = pr.currency(e["from"], child(path, "from"));
        auto to = pr.currency(e["to"], child(path, "to"));
        auto micro = pr.micro(e["rate"], child(path, "rate"));
        pr.text(e, "note", path, rate.note);
        if (!from || !to || !micro) continue;
        if (*micro == 0) {
          r.error(e["rate"], child(path, "rate"), "an exchange rate must be > 0");
          continue;
        }
        rate.from = *from;
        rate.to = *to;
        rate.micro = *micro;
        c.fx.push_back(rate);
      }
    }
  }
}

/// The catalog's electricity figures (`electricity:`): price per kWh, PUE, source.
void read_electricity(const YAML::Node& root, Reader& r, PriceReader& pr, pricing::PriceCatalog& c) {
  if (const YAML::Node el = root["electricity"]) {
    if (r.expect_map(el, "electricity")) {
      r.check_keys(el, "electricity", {"price_per_kwh", "currency", "pue", "source", "note"});
      pricing::Electricity e;
      e.per_kwh.currency = c.currency;
      if (const YAML::Node cur = el["currency"]) {
        if (auto v = pr.currency(cur, "electricity.currency")) e.per_kwh.currency = *v;
      }
      if (const YAML::Node p = el["price_per_kwh"]) {
        if (auto v = pr.micro(p, "electricity.price_per_kwh")) e.per_kwh.micro = *v;
      } else {
        r.error(el, "electricity.price_per_kwh", "missing 'price_per_kwh'");
      }
      if (const YAML::Node p = el["pue"]) {
        if (auto v = r.number(p, "electricity.pue", 1.0, kMaxPue)) e.pue = *v;
      }
      pr.text(el, "source", "electricity", e.source);
      pr.text(el, "note", "electricity", e.note);
      c.electricity = e;
    }
  }
}

/// The tax quotes add (`tax: {name, rate, basis, source}`; rate a percentage, e.g. 6%).
void read_tax(const YAML::Node& root, Reader& r, PriceReader& pr, pricing::PriceCatalog& c) {
  const YAML::Node t = root["tax"];
  if (!t || !r.expect_map(t, "tax")) return;
  r.check_keys(t, "tax", {"name", "rate", "basis", "source"});
  pricing::Tax tax;
  pr.text(t, "name", "tax", tax.name);
  pr.text(t, "basis", "tax", tax.basis);
  pr.text(t, "source", "tax", tax.source);
  if (const YAML::Node rate = t["rate"]) {
    std::string text = rate.IsScalar() ? rate.Scalar() : std::string();
    const bool pct = !text.empty() && text.back() == '%';
    if (pct) text.pop_back();
    char* end = nullptr;
    const double v = text.empty() ? -1 : std::strtod(text.c_str(), &end);
    if (!pct || end == nullptr || *end != '\0' || v < 0 || v > 100)
      r.error(rate, "tax.rate", "expected a percentage, got '" + (rate.IsScalar() ? rate.Scalar() : "?") + "'",
              "write e.g. 6%");
    else
      tax.rate_bp = static_cast<std::int64_t>(std::llround(v * 100));
  } else {
    r.error(t, "tax.rate", "missing 'rate'", "write e.g. rate: 6%");
  }
  if (tax.name.empty()) r.error(t, "tax.name", "missing 'name'", "e.g. VAT");
  if (tax.source.empty()) r.error(t, "tax.source", "missing 'source'", "cite the rule that sets the rate");
  c.tax = tax;
}

/// The catalog's credit for new customers (`new_user_credit:`).
void read_new_user_credit(const YAML::Node& root, Reader& r, PriceReader& pr, pricing::PriceCatalog& c) {
  if (const YAML::Node cr = root["new_user_credit"]) {
    if (r.expect_map(cr, "new_user_credit")) {
      r.check_keys(cr, "new_user_credit", {"amount", "currency", "source", "note"});
      pricing::Credit credit;
      credit.amount.currency = c.currency;
      if (const YAML::Node cur = cr["currency"]) {
        if (auto v = pr.currency(cur, "new_user_credit.currency")) credit.amount.currency = *v;
      }
      if (const YAML::Node a = cr["amount"]) {
        if (auto v = pr.minor(a, "new_user_credit.amount")) credit.amount.minor = *v;
      } else {
        r.error(cr, "new_user_credit.amount", "missing 'amount'");
      }
      pr.text(cr, "source", "new_user_credit", credit.source);
      pr.text(cr, "note", "new_user_credit", credit.note);
      c.new_user_credit = credit;
    }
  }
}

/// The CPU instances a debug phase is billed on (`cpu_instances:`).
void read_cpu_instances(const YAML::Node& root, Reader& r, PriceReader& pr, pricing::PriceCatalog& c) {
  if (const YAML::Node cpus = root["cpu_instances"]) {
    if (!cpus.IsSequence()) {
      r.error(cpus, "cpu_instances", "expected a list, got " + describe(cpus));
    } else {
      for (std::size_t i = 0; i < cpus.size(); ++i) {
        const std::string path = "cpu_instances[" + std::to_string(i) + "]";
        const YAML::Node e = cpus[i];
        if (!r.expect_map(e, path)) continue;
        r.check_keys(e, path,
                     {"id", "name", "name_zh", "price_per_hour", "currency", "minimum_hours", "source", "note"});
        pricing::CpuInstance cpu;
        pr.text(e, "id", path, cpu.id);
        pr.text(e, "name", path, cpu.name);
        pr.text(e, "name_zh", path, cpu.name_zh);
        pr.text(e, "source", path, cpu.source);
        pr.text(e, "note", path, cpu.note);
        cpu.per_hour.currency = c.currency;
        if (const YAML::Node cur = e["currency"]) {
          if (auto v = pr.currency(cur, child(path, "currency"))) cpu.per_hour.currency = *v;
        }
        if (const YAML::Node p = e["price_per_hour"]) {
          if (auto v = pr.micro(p, child(path, "price_per_hour"))) cpu.per_hour.micro = *v;
        } else {
          r.error(e, child(path, "price_per_hour"), "missing 'price_per_hour'");
        }
        if (const YAML::Node m = e["minimum_hours"]) {
          if (auto v = r.integer(m, child(path, "minimum_hours"), 0, kMaxUnits)) cpu.minimum_hours = *v;
        }
        if (cpu.id.empty()) r.error(e, child(path, "id"), "a CPU instance needs an 'id'");
        c.cpu_instances.push_back(std::move(cpu));
      }
    }
  }
}

/// The plans (`plans:`, required), with unique ids.
void read_plans(const YAML::Node& root, Reader& r, PriceReader& pr, pricing::PriceCatalog& c) {
  if (const YAML::Node plans = root["plans"]) {
    if (!plans.IsSequence()) {
      r.error(plans, "plans", "expected a list of plans, got " + describe(plans));
    } else {
      for (std::size_t i = 0; i < plans.size(); ++i) {
        const std::string path = "plans[" + std::to_string(i) + "]";
        pricing::Plan p;
        read_plan(plans[i], path, r, pr, c.currency, p);
        if (!p.id.empty() && c.find_plan(p.id) != nullptr)
          r.error(plans[i]["id"], child(path, "id"), "duplicate plan id '" + p.id + "'",
                  "plan ids must be unique in a catalog");
        c.plans.push_back(std::move(p));
      }
    }
  } else {
    r.error(root, "plans", "missing 'plans'", "a catalog lists at least one plan");
  }
}

/// Every currency a price uses must convert to the catalog's with a stated rate.
void check_rates(const YAML::Node& root, Reader& r, const pricing::PriceCatalog& c) {
  auto need_rate = [&](units::Currency cur, const YAML::Node& at, const std::string& path) {
    if (cur == c.currency || c.fx_between(cur, c.currency) != nullptr) return;
    r.error(at, path,
            "priced in " + cur.str() + " but the catalog states no " + cur.str() + "/" + c.currency.str() + " rate",
            "add it under fx: (from, to, rate, note)");
  };
  for (std::size_t i = 0; i < c.plans.size() && root["plans"].IsSequence(); ++i) {
    const std::string path = "plans[" + std::to_string(i) + "]";
    need_rate(c.plans[i].price.currency, root["plans"][i], child(path, "currency"));
    if (c.plans[i].deposit.minor != 0) need_rate(c.plans[i].deposit.currency, root["plans"][i], child(path, "deposit"));
    for (const pricing::AddOn& a : c.plans[i].add_ons)
      need_rate(a.price.currency, root["plans"][i], child(path, "add_ons"));
  }
  for (std::size_t i = 0; i < c.cpu_instances.size(); ++i)
    need_rate(c.cpu_instances[i].per_hour.currency, root["cpu_instances"][i],
              "cpu_instances[" + std::to_string(i) + "].currency");
  if (c.new_user_credit)
    need_rate(c.new_user_credit->amount.currency, root["new_user_credit"], "new_user_credit.currency");
}

void read_catalog(const YAML::Node& root, Reader& r, pricing::PriceCatalog& c) {
  PriceReader pr(r);
  if (!r.expect_map(root, "")) return;
  r.check_keys(root, "",
               {"name", "provider", "currency", "date", "source", "note", "fx", "electricity", "new_user_credit",
                "cpu_instances", "plans", "notes", "tax", "payment_terms", "issues_quotes"});
  pr.text(root, "name", "", c.name);
  pr.text(root, "provider", "", c.provider);
  pr.text(root, "date", "", c.date);
  pr.text(root, "source", "", c.source);
  pr.text(root, "note", "", c.note);
  pr.text(root, "payment_terms", "", c.payment_terms);
  if (const YAML::Node b = root["issues_quotes"])
    if (auto v = r.boolean(b, "issues_quotes")) c.issues_quotes = *v;
  if (const YAML::Node cur = root["currency"]) {
    if (auto v = pr.currency(cur, "currency")) c.currency = *v;
  } else {
    r.error(root, "currency", "missing 'currency'", "the ISO code bills are written in, e.g. CNY");
  }
  read_fx(root, r, pr, c);
  read_electricity(root, r, pr, c);
  read_new_user_credit(root, r, pr, c);
  read_tax(root, r, pr, c);
  read_cpu_instances(root, r, pr, c);
  read_plans(root, r, pr, c);
  if (const YAML::Node notes = root["notes"]) {
    c.notes = pr.strings(notes, "notes");
  }
  check_rates(root, r, c);
}

std::string file_stem(const std::string& file) {
  std::string stem = std::filesystem::path(file).stem().string();
  return stem;
}

}  // namespace

std::optional<pricing::PriceCatalog> parse_price_catalog(const std::string& text, const std::string& file,
                                                         scenario::Diagnostics& diags) {
  scenario::Diagnostics local;
  const YAML::Node root = detail::load_yaml(text, file, local);
  pricing::PriceCatalog c;
  if (root.IsDefined()) {
    Reader r(file, local, nullptr);
    read_catalog(root, r, c);
  }
  diags.append(local);
  if (local.has_errors() || !root.IsDefined()) return std::nullopt;
  if (c.name.empty()) c.name = file_stem(file);
  return c;
}

std::vector<std::string> price_catalog_names() { return {std::begin(kShippedCatalogs), std::end(kShippedCatalogs)}; }

std::optional<pricing::PriceCatalog> load_price_catalog(const std::string& name_or_path, const std::string& data_dir,
                                                        scenario::Diagnostics& diags) {
  const bool is_path =
      name_or_path.find('/') != std::string::npos || (name_or_path.size() > 5 && name_or_path.ends_with(".yaml"));
  if (is_path) {
    std::ifstream in(name_or_path, std::ios::binary);
    if (!in) {
      diags.error({name_or_path, 0, 0}, "pricing.catalog", "price catalog file not found",
                  "give a readable file, or a shipped catalog name: " + detail::join(price_catalog_names()));
      return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_price_catalog(ss.str(), name_or_path, diags);
  }
  const std::string rel = "prices/" + name_or_path + ".yaml";
  const auto text = read_data_file(data_dir, rel);
  if (!text) {
    std::string hint = "known catalogs: " + detail::join(price_catalog_names());
    if (auto m = detail::did_you_mean(name_or_path, price_catalog_names()))
      hint = "did you mean '" + *m + "'? (" + hint + ")";
    diags.error({data_dir.empty() ? "<embedded>/data/" + rel : data_dir + "/" + rel, 0, 0}, "pricing.catalog",
                "unknown price catalog '" + name_or_path + "'", hint);
    return std::nullopt;
  }
  const std::string shown = data_dir.empty() ? "<embedded>/data/" + rel : data_dir + "/" + rel;
  return parse_price_catalog(*text, shown, diags);
}

void parse_reliability_block(const YAML::Node& node, const std::string& file, scenario::Diagnostics& diags,
                             job::ReliabilitySpec& out, scenario::LocationMap& locs) {
  Reader r(file, diags, &locs);
  PriceReader pr(r);
  const std::string base = "reliability";
  r.note(base, node);
  if (!r.expect_map(node, base)) return;
  r.check_keys(node, base,
               {"failures_per_gpu_hour", "restart_time", "checkpoint_interval", "async_checkpoint", "storage_write",
                "checkpoint_bytes_per_param", "async_stall", "provisioning", "debug_phase", "trials", "seed"});
  if (const YAML::Node n = node["failures_per_gpu_hour"]) {
    // 1 per GPU-hour is 50,000x the Llama 3 rate (L3): anything above is a typo.
    if (auto v = r.number(n, child(base, "failures_per_gpu_hour"), 0.0, 1.0)) out.failures_per_gpu_hour = *v;
  }
  if (const YAML::Node n = node["restart_time"]) {
    if (auto v = pr.duration(n, child(base, "restart_time"))) out.restart_time = *v;
  }
  if (const YAML::Node n = node["checkpoint_interval"]) {
    if (n.IsScalar() && (n.Scalar() == "auto" || n.Scalar() == "young_daly")) {
      r.note(child(base, "checkpoint_interval"), n);
      out.checkpoint_interval = units::Time{0};
    } else if (auto v = pr.duration(n, child(base, "checkpoint_interval"))) {
      // Zero is how `auto` is stored: a written 0 is refused rather than read as it.
      if (v->ns == 0)
        r.error(n, child(base, "checkpoint_interval"), "an interval of " + n.Scalar() + " is no interval",
                "write auto for the Young/Daly interval, or a duration above zero, e.g. 30min");
      else
        out.checkpoint_interval = *v;
    }
  }
  if (const YAML::Node n = node["async_checkpoint"]) {
    if (auto v = r.boolean(n, child(base, "async_checkpoint"))) out.async_checkpoint = *v;
  }
  if (const YAML::Node n = node["storage_write"]) {
    if (auto v = pr.bandwidth(n, child(base, "storage_write"))) out.storage_write = *v;
  }
  if (const YAML::Node n = node["checkpoint_bytes_per_param"]) {
    if (auto v = r.number(n, child(base, "checkpoint_bytes_per_param"), 0.0, 64.0)) out.checkpoint_bytes_per_param = *v;
  }
  if (const YAML::Node n = node["async_stall"]) {
    if (auto v = pr.duration(n, child(base, "async_stall"))) out.async_stall = *v;
  }
  if (const YAML::Node n = node["provisioning"]) {
    if (auto v = pr.duration(n, child(base, "provisioning"))) out.provisioning = *v;
  }
  if (const YAML::Node n = node["debug_phase"]) {
    if (auto v = pr.duration(n, child(base, "debug_phase"))) out.debug_phase = *v;
  }
  if (const YAML::Node n = node["trials"]) {
    if (auto v = r.integer(n, child(base, "trials"), 1, 100'000)) out.trials = static_cast<int>(*v);
  }
  if (const YAML::Node n = node["seed"]) {
    if (auto v = r.integer(n, child(base, "seed"), 0, std::numeric_limits<std::int64_t>::max()))
      out.seed = static_cast<std::uint64_t>(*v);
  }
}

void parse_pricing_block(const YAML::Node& node, const std::string& file, scenario::Diagnostics& diags,
                         pricing::PricingSpec& out, scenario::LocationMap& locs) {
  Reader r(file, diags, &locs);
  PriceReader pr(r);
  const std::string base = "pricing";
  r.note(base, node);
  if (node.IsScalar()) {  // `pricing: seed-vendor`
    r.note(child(base, "catalog"), node);
    out.catalog = node.Scalar();
    return;
  }
  if (!r.expect_map(node, base)) return;
  r.check_keys(node, base,
               {"catalog", "plans", "currency", "new_user", "mixes", "add_ons", "checkpoints_kept", "pue",
                "electricity_per_kwh"});
  if (const YAML::Node n = node["catalog"]) {
    if (auto v = r.string(n, child(base, "catalog"))) out.catalog = *v;
  } else {
    r.error(node, child(base, "catalog"), "missing 'catalog'",
            "name a price catalog: " + detail::join(price_catalog_names()) + ", or a file path");
  }
  if (const YAML::Node n = node["plans"]) out.plans = pr.strings(n, child(base, "plans"));
  if (const YAML::Node n = node["add_ons"]) out.add_ons = pr.strings(n, child(base, "add_ons"));
  if (const YAML::Node n = node["currency"]) {
    if (auto v = pr.currency(n, child(base, "currency"))) out.currency = v->str();
  }
  if (const YAML::Node n = node["new_user"]) {
    if (auto v = r.boolean(n, child(base, "new_user"))) out.new_user = *v;
  }
  if (const YAML::Node n = node["mixes"]) {
    if (auto v = r.boolean(n, child(base, "mixes"))) out.mixes = *v;
  }
  if (const YAML::Node n = node["checkpoints_kept"]) {
    if (auto v = r.integer(n, child(base, "checkpoints_kept"), 0, 1000)) out.checkpoints_kept = static_cast<int>(*v);
  }
  if (const YAML::Node n = node["pue"]) {
    if (auto v = r.number(n, child(base, "pue"), 1.0, kMaxPue)) out.pue = *v;
  }
  if (const YAML::Node n = node["electricity_per_kwh"]) {
    const std::string path = child(base, "electricity_per_kwh");
    r.note(path, n);
    // "0.6 CNY": a decimal and a currency code.
    std::optional<units::PriceRate> rate;
    if (n.IsScalar()) {
      const std::string s = n.Scalar();
      const auto space = s.find_last_of(' ');
      if (space != std::string::npos) {
        const std::string code = s.substr(space + 1);
        std::string number = s.substr(0, space);
        while (!number.empty() && number.back() == ' ') number.pop_back();
        const auto micro = units::parse_micro_units(number);
        const auto currency = parse_currency(code);  // "0.6 RMB" is CNY
        if (micro && *micro >= 0 && currency) rate = units::PriceRate{*micro, *currency};
      }
    }
    if (rate)
      out.electricity_per_kwh = *rate;
    else
      r.error(n, path, "expected a price per kWh with its currency, got " + describe(n),
              "write e.g. \"0.6 CNY\" or \"0.08 USD\"");
  }
}

}  // namespace flopcast::io

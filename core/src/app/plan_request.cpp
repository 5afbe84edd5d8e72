#include "flopcast/app/plan_request.hpp"

#include <algorithm>
#include <cstdio>

#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/scenario_writer.hpp"
#include "flopcast/io/units_parse.hpp"

namespace flopcast::app {

bool plan_clusters(const io::Catalog& cat, const scenario::Scenario& s, const std::vector<std::string>& gpus,
                   std::vector<scenario::ClusterSpec>& out, std::string& why) {
  out.clear();
  if (gpus.empty()) {
    out.push_back(s.cluster);
    return true;
  }
  for (const auto& name : gpus) {
    const hardware::GpuSpec* g = cat.find_gpu(name);
    if (!g) {
      why = "unknown GPU '" + name + "' (" + io::unknown_gpu_hint(cat, name) + ")";
      return false;
    }
    if (g->name == s.cluster.gpu.name) {
      out.push_back(s.cluster);
      continue;
    }
    scenario::ClusterSpec c;
    c.gpu = *g;
    const hardware::FabricSpec* f = g->default_fabric.empty() ? nullptr : cat.find_fabric(g->default_fabric);
    if (!f) {
      why = "the GPU '" + g->name +
            "' has no usual fabric in data/gpus.yaml; plan it from a scenario naming its cluster.fabric";
      return false;
    }
    c.fabric = *f;
    c.gpus_per_node = f->gpus_per_node;
    out.push_back(c);
  }
  return true;
}

std::vector<std::string> default_plan_catalogs(const scenario::Scenario& s) {
  std::vector<std::string> names;
  if (s.has_pricing && !s.pricing.catalog.empty()) names.push_back(s.pricing.catalog);
  for (const auto& n : io::price_catalog_names())
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

PlanProblem prepare_plan_space(const io::Catalog& cat, const scenario::Scenario& s, const PlanRequest& request,
                               search::PlanSpace& space, std::string& why) {
  space.gpus_max = request.gpus_max;
  space.gpus_min = request.gpus_min;
  if (!plan_clusters(cat, s, request.gpu_types, space.clusters, why)) return PlanProblem::UnknownGpu;
  for (const auto& p : request.precisions) {
    const auto prec = hardware::parse_precision(p);
    if (!prec) {
      why = "unknown precision '" + p + "' (known: fp32, tf32, fp16, bf16, fp8, fp4, mxfp8, nvfp4)";
      return PlanProblem::BadPrecision;
    }
    space.precisions.push_back(*prec);
  }
  return PlanProblem::None;
}

namespace {

/// What `text` reads with its one comma as a decimal point ("2,5M USD" -> "2.5M USD"); "" when it
/// has more or fewer commas than one (no single reading to suggest).
std::string decimal_point_form(std::string text) {
  if (std::count(text.begin(), text.end(), ',') != 1) return {};
  std::replace(text.begin(), text.end(), ',', '.');
  return text;
}

}  // namespace

std::string deadline_problem_text(const std::string& t, io::UnitProblem problem) {
  switch (problem) {
    case io::UnitProblem::MissingUnit:
      return "'" + t + "' has no unit: write the whole run's longest wall time with one, e.g. " + t + "d or " + t + "h";
    case io::UnitProblem::Negative:
      return "'" + t + "' is not a positive duration";
    case io::UnitProblem::AmbiguousUnit: {
      const std::string n = t.substr(0, t.find_last_of('M'));
      return "'" + t + "' could be minutes or months: write " + n + "min, or " + n + "mo (30 days each) or days";
    }
    case io::UnitProblem::DecimalComma: {
      const std::string point = decimal_point_form(t);
      return "'" + t + "' has a comma that does not group thousands: write decimals with a point" +
             (point.empty() ? std::string() : " ('" + point + "')");
    }
    default:
      break;
  }
  return "'" + t + "' is not a duration (e.g. 45d, 1080h, 6w, 2mo)";
}

std::string money_problem_text(const std::string& text, io::UnitProblem problem, const std::string& example) {
  const std::string t = "'" + text + "'";
  switch (problem) {
    case io::UnitProblem::MissingCurrency:
      return t + " has no currency: write its ISO code after the amount, e.g. '" + text + " " + example + "'";
    case io::UnitProblem::UnknownCurrency:
      return t + " names no currency flopcast reads: write an ISO code (CNY, USD, EUR) or RMB, 元, ¥ (CNY), $ (USD)";
    case io::UnitProblem::Negative:
      return t + " is not a positive amount";
    case io::UnitProblem::DecimalComma: {
      const std::string point = decimal_point_form(text);
      return t + " has a comma that does not group thousands: write decimals with a point" +
             (point.empty() ? std::string() : " ('" + point + "')") + " and group thousands by three ('2,500,000')";
    }
    default:
      break;
  }
  return t + " is not an amount with its currency (e.g. '5M CNY', '500万 CNY', '2e6 USD', '$2M')";
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

pricing::PriceCatalog billable_catalog(pricing::PriceCatalog catalog, bool allow_spot) {
  std::vector<pricing::Plan> kept;
  for (auto& p : catalog.plans)
    if (pricing::billable_by_default(p.kind) || (allow_spot && p.kind == pricing::PriceKind::Spot))
      kept.push_back(std::move(p));
  catalog.plans = std::move(kept);
  return catalog;
}

namespace {

/// The deadline of the request: its text (a unit required) or its Time.
PlanProblem request_deadline(const PlanRequest& request, std::optional<units::Time>& out, std::string& why) {
  out = request.deadline;
  if (request.deadline_text.empty()) return PlanProblem::None;
  io::UnitProblem problem = io::UnitProblem::None;
  const auto d = io::parse_duration_with_unit(request.deadline_text, &problem);
  if (d) {
    out = *d;
    return PlanProblem::None;
  }
  why = deadline_problem_text(request.deadline_text, problem);
  return PlanProblem::BadDeadline;
}

/// Whether a catalog bills in `c` or states a rate between `c` and its own currency.
bool catalogs_know(const std::vector<std::shared_ptr<const pricing::PriceCatalog>>& catalogs, units::Currency c) {
  for (const auto& cat : catalogs) {
    if (cat->currency == c) return true;
    for (const units::FxRate& r : cat->fx)
      if (r.from == c || r.to == c) return true;
  }
  return false;
}

/// "CNY or USD": the currencies the catalogs bill in.
std::string catalog_currencies(const std::vector<std::shared_ptr<const pricing::PriceCatalog>>& catalogs) {
  std::vector<std::string> codes;
  for (const auto& cat : catalogs)
    if (std::find(codes.begin(), codes.end(), cat->currency.str()) == codes.end()) codes.push_back(cat->currency.str());
  std::string out;
  for (std::size_t i = 0; i < codes.size(); ++i)
    out += (i == 0 ? "" : i + 1 == codes.size() ? " or " : ", ") + codes[i];
  return out;
}

/// The budget of the request in the search's currency (`currency`; empty = the budget's own).
PlanProblem request_budget(const PlanRequest& request, const search::PlannerOptions& options,
                           std::optional<units::Money>& out, std::string& why) {
  io::UnitProblem problem = io::UnitProblem::None;
  const auto b = io::parse_money(request.budget, &problem);
  const std::string& t = request.budget;
  if (!b) {
    why = money_problem_text(t, problem, "CNY");
    return PlanProblem::BadBudget;
  }
  if (!catalogs_know(options.catalogs, b->currency)) {
    why = "'" + t + "' is in " + b->currency.str() +
          ", which no price catalog bills in or states a rate for: write it in " +
          catalog_currencies(options.catalogs) + " (RMB, 元 and ¥ are read as CNY, $ as USD)";
    return PlanProblem::BadBudget;
  }
  out = *b;
  if (options.currency.empty() || options.currency == b->currency.str()) return PlanProblem::None;
  const units::Currency to = units::Currency::of(options.currency);
  for (const auto& cat : options.catalogs) {
    if (const auto micro = pricing::convert_micro(*cat, b->minor * 10'000, b->currency, to)) {
      out = units::Money::of_minor((*micro + (*micro >= 0 ? 5'000 : -5'000)) / 10'000, to);
      return PlanProblem::None;
    }
  }
  why = "'" + t + "' is in " + b->currency.str() + " but the search bills in " + options.currency +
        " and no price catalog states a rate between them";
  return PlanProblem::BadBudget;
}

/// The search's currency as the request writes it (a word such as RMB read as its code), or
/// "" with `why` when it names none the catalogs know.
std::optional<std::string> request_currency(const PlanRequest& request,
                                            const std::vector<std::shared_ptr<const pricing::PriceCatalog>>& catalogs,
                                            std::string& why) {
  const auto c = io::parse_currency(request.currency);
  if (c && catalogs_know(catalogs, *c)) return c->str();
  why = "'" + request.currency + "' " +
        (c ? "is " + c->str() + ", which no price catalog bills in or states a rate for"
           : std::string("names no currency")) +
        ": write " + catalog_currencies(catalogs) + " (RMB, 元 and ¥ are read as CNY, $ as USD)";
  return std::nullopt;
}

}  // namespace

PlanProblem prepare_plan_options(const scenario::Scenario& s, const PlanRequest& request, const std::string& data_dir,
                                 search::PlannerOptions& options, std::string& why, scenario::Diagnostics& diags) {
  options.top_k = request.top_k;
  options.threads = std::max(1, request.threads);
  options.cancel = request.cancel;
  options.confidence = request.confidence;
  if (const PlanProblem p = request_deadline(request, options.deadline, why); p != PlanProblem::None) return p;
  if (request.tokens_max && request.budget.empty()) {
    why = "--tokens max asks what the budget buys: give --budget";
    return PlanProblem::NeedsBudget;
  }
  options.currency = s.has_pricing ? s.pricing.currency : std::string();
  const std::vector<std::string> names = request.catalogs.empty() ? default_plan_catalogs(s) : request.catalogs;
  for (const auto& n : names) {
    scenario::Diagnostics d;  // a catalog that loads says nothing
    auto pc = io::load_price_catalog(n, data_dir, d);
    if (!pc) {
      for (const auto& x : d.items()) diags.add(x);
      why = n;
      return PlanProblem::CatalogUnreadable;
    }
    options.catalogs.push_back(
        std::make_shared<const pricing::PriceCatalog>(billable_catalog(std::move(*pc), request.allow_spot)));
  }
  if (!request.currency.empty()) {
    const auto c = request_currency(request, options.catalogs, why);
    if (!c) return PlanProblem::BadCurrency;
    options.currency = *c;
  }
  if (!request.budget.empty()) {
    if (request.currency.empty()) options.currency.clear();  // the budget's currency is the search's
    if (const PlanProblem p = request_budget(request, options, options.budget, why); p != PlanProblem::None) return p;
    if (options.currency.empty()) options.currency = options.budget->currency.str();
  }
  options.objective = request.tokens_max                    ? search::Objective::MostTokens
                      : options.budget && !options.deadline ? search::Objective::Fastest
                                                            : search::Objective::Cheapest;
  return PlanProblem::None;
}

namespace {

quote::QuoteAlternative alternative_of(const search::Resimulated& x) {
  const search::PlanCandidate& c = x.plan.candidate;
  std::string plan = parallel::plan_label(c.plan);
  if (c.precision != hardware::Precision::BF16) plan += std::string(" ") + to_string(c.precision);
  return quote::QuoteAlternative{c.gpu,  c.gpus,           plan,          x.plan.price_label, x.wall,
                                 x.cost, x.meets_deadline, x.meets_budget};
}

/// How many of the two constraints (deadline, budget) `x` misses.
int misses(const search::Resimulated& x) { return (x.meets_deadline ? 0 : 1) + (x.meets_budget ? 0 : 1); }

}  // namespace

QuotePlanChoice quote_plan_choice(const search::PlanResult& r, const search::PlanSpace& space, bool allow_miss) {
  QuotePlanChoice out;
  if (r.chosen) {
    out.plan = &*r.chosen;
    out.recommended = true;
  } else if (allow_miss && !r.closest.empty()) {
    out.plan = &r.closest.front();  // the nearest miss, as `plan` lists it first
  }
  const std::size_t own = out.plan ? out.plan->plan.candidate.cluster : space.clusters.size();
  for (std::size_t c = 0; c < space.clusters.size(); ++c) {
    if (c == own) continue;
    const search::Resimulated* best = nullptr;
    for (const auto& x : r.resimulated) {
      if (!x.run_ok || x.plan.candidate.cluster != c) continue;
      // Those that meet, cheapest first; else those that miss least, fastest first.
      const bool better = !best || (x.meets() != best->meets()   ? x.meets()
                                    : x.meets()                  ? x.cost.minor < best->cost.minor
                                    : misses(x) != misses(*best) ? misses(x) < misses(*best)
                                                                 : x.wall < best->wall);
      if (better) best = &x;
    }
    if (best) out.alternatives.push_back(alternative_of(*best));
  }
  return out;
}

scenario::Scenario plan_scenario(const scenario::Scenario& base, const search::PlanSpace& space,
                                 const search::Resimulated& chosen) {
  const search::PlanCandidate& c = chosen.plan.candidate;
  scenario::Scenario s = base;
  s.locations = {};
  s.cluster = space.clusters.at(c.cluster);
  s.cluster.gpus = c.gpus;
  s.precision = c.precision;
  s.plan = c.plan;
  if (!chosen.plan.catalog.empty()) {
    s.has_pricing = true;
    s.pricing.catalog = chosen.plan.catalog;
  }
  return s;
}

std::string plan_scenario_yaml(const std::string& base_yaml, const scenario::Scenario& base,
                               const search::PlanSpace& space, const search::Resimulated& chosen,
                               const io::Catalog& catalog) {
  const scenario::Scenario s = plan_scenario(base, space, chosen);
  io::ScenarioForm form = io::form_from_scenario(base, base_yaml);
  form.gpu = s.cluster.gpu.name;
  form.gpus = s.cluster.gpus;
  form.gpus_per_node = s.cluster.gpus_per_node;
  if (s.cluster.gpu.name != base.cluster.gpu.name || form.fabric != io::kFabricFromFile)
    form.fabric = s.cluster.fabric.name;
  io::set_parallel_plan(form, s.plan);
  form.precision = to_string(s.precision);
  if (!chosen.plan.catalog.empty()) form.pricing_catalog = chosen.plan.catalog;
  if (chosen.tokens > 0 && chosen.tokens != base.training.tokens) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", chosen.tokens);
    form.tokens = buf;
  }
  return io::compose_scenario_yaml(base_yaml, form, catalog);
}

}  // namespace flopcast::app

#include "flopcast/pricing/plan_comparison.hpp"

#include <algorithm>
#include <tuple>

namespace flopcast::pricing {
namespace {

std::string plan_label(const Plan& p) { return p.name.empty() ? p.id : p.name; }

bool bill_less(const Bill& a50, const Bill& a90, const Bill& b50, const Bill& b90) {
  return std::tie(a50.total.minor, a90.total.minor) < std::tie(b50.total.minor, b90.total.minor);
}

}  // namespace

Bill bill_option(const PriceCatalog& catalog, const PlanOption& option, const BillUsage& usage,
                 const BillOptions& options) {
  if (option.overflow != nullptr)
    return bill_mix(catalog, *option.plan, option.committed_units, *option.overflow, usage, options);
  return bill_plan(catalog, *option.plan, usage, options);
}

PlanComparison compare_plans(const PriceCatalog& catalog, const std::vector<std::string>& gpu_names,
                             const BillUsage& p50, const BillUsage& p90, const CompareOptions& options) {
  PlanComparison cmp;
  cmp.currency = options.bill.currency.value_or(catalog.currency);

  std::vector<const Plan*> plans;
  if (options.plan_ids.empty()) {
    plans = catalog.plans_for(gpu_names);
    if (options.named_gpu_only)
      std::erase_if(plans, [&](const Plan* p) {
        return std::none_of(gpu_names.begin(), gpu_names.end(), [&](const std::string& g) { return p->names_gpu(g); });
      });
    if (plans.empty()) {
      std::string names;
      for (const auto& g : gpu_names) names += (names.empty() ? "" : ", ") + g;
      cmp.errors.push_back("catalog '" + catalog.name + "' has no plan for " + names);
    }
  } else {
    for (const std::string& id : options.plan_ids) {
      const Plan* p = catalog.find_plan(id);
      if (p == nullptr) {
        std::string known;
        for (const Plan& q : catalog.plans) known += (known.empty() ? "" : ", ") + q.id;
        cmp.errors.push_back("unknown plan '" + id + "' in catalog '" + catalog.name + "' (known: " + known + ")");
        continue;
      }
      const bool fits =
          std::any_of(gpu_names.begin(), gpu_names.end(), [&](const std::string& g) { return p->applies_to(g); });
      if (!fits) {
        std::string for_gpus;
        for (const auto& g : p->gpus) for_gpus += (for_gpus.empty() ? "" : ", ") + g;
        cmp.errors.push_back("plan '" + id + "' is for " + for_gpus + ", not " +
                             (gpu_names.empty() ? std::string("this GPU") : gpu_names.front()));
        continue;
      }
      plans.push_back(p);
    }
  }

  for (const Plan* p : plans) {
    ComparisonRow row;
    row.option.id = p->id;
    row.option.label = plan_label(*p);
    row.option.plan = p;
    row.p50 = bill_option(catalog, row.option, p50, options.bill);
    row.p90 = bill_option(catalog, row.option, p90, options.bill);
    cmp.rows.push_back(std::move(row));
  }

  if (options.mixes) {
    for (const Plan* longer : plans) {
      for (const Plan* shorter : plans) {
        if (longer == shorter) continue;
        if (longer->competitor || shorter->competitor) continue;  // one contract, one provider
        if (!(billing_unit_length(longer->unit) > billing_unit_length(shorter->unit))) continue;
        const bool named = std::any_of(gpu_names.begin(), gpu_names.end(), [&](const std::string& g) {
          return longer->names_gpu(g) && shorter->names_gpu(g);
        });
        if (!named) continue;  // never mix a "*" (GPU unstated) plan with a real one
        const std::int64_t unit_ns = billing_unit_length(longer->unit).ns;
        const std::int64_t floor_units = p50.gpu_span.ns / unit_ns;
        const std::int64_t ceil_units = floor_units + (p50.gpu_span.ns % unit_ns != 0 ? 1 : 0);
        std::optional<ComparisonRow> best;
        for (std::int64_t m : {floor_units, ceil_units}) {
          if (m < std::max<std::int64_t>(1, longer->minimum_units)) continue;
          if (best && best->option.committed_units == m) continue;
          // A mix whose committed units also cover the P90 run is the long plan alone.
          if (p90.gpu_span.ns <= m * unit_ns) continue;
          ComparisonRow row;
          row.option.plan = longer;
          row.option.overflow = shorter;
          row.option.committed_units = m;
          row.option.id = longer->id + '+' + shorter->id;
          row.p50 = bill_option(catalog, row.option, p50, options.bill);
          row.p90 = bill_option(catalog, row.option, p90, options.bill);
          row.option.label = row.p50.label;
          if (!best || bill_less(row.p50, row.p90, best->p50, best->p90)) best = std::move(row);
        }
        if (best) cmp.rows.push_back(std::move(*best));
      }
    }
  }

  for (std::size_t i = 0; i < cmp.rows.size(); ++i) {
    const ComparisonRow& r = cmp.rows[i];
    if (!r.p50.ok() || !r.p90.ok()) continue;
    if (!cmp.cheapest || bill_less(r.p50, r.p90, cmp.rows[*cmp.cheapest].p50, cmp.rows[*cmp.cheapest].p90))
      cmp.cheapest = i;
  }
  if (cmp.cheapest) cmp.rows[*cmp.cheapest].cheapest = true;
  bool any_competitor = false;
  for (std::size_t i = 0; i < cmp.rows.size(); ++i) {
    const ComparisonRow& r = cmp.rows[i];
    if (r.option.plan && r.option.plan->competitor) {
      any_competitor = true;
      continue;
    }
    if (!r.p50.ok() || !r.p90.ok()) continue;
    // As a quote recommends (quote.hpp: quoted_kind): offers, list and contract prices; a spot
    // price or an assumption is compared, never recommended by default.
    if (!r.option.plan || !billable_by_default(r.option.plan->kind) ||
        (r.option.overflow && !billable_by_default(r.option.overflow->kind)))
      continue;
    if (!cmp.cheapest_offered ||
        bill_less(r.p50, r.p90, cmp.rows[*cmp.cheapest_offered].p50, cmp.rows[*cmp.cheapest_offered].p90))
      cmp.cheapest_offered = i;
  }
  cmp.notes.push_back(
      "cheapest = lowest total at the P50 run, then at the P90 run; refundable "
      "deposits are shown apart and not counted");
  if (any_competitor)
    cmp.notes.push_back(
        "plans marked competitor are other providers' prices as the catalog records them, "
        "shown for comparison; a quote recommends only the provider's own plans");
  if (cmp.cheapest && cmp.rows[*cmp.cheapest].option.plan && !cmp.rows[*cmp.cheapest].option.plan->competitor &&
      cmp.cheapest != cmp.cheapest_offered)
    cmp.notes.push_back(std::string("the cheapest plan is a ") + to_string(cmp.rows[*cmp.cheapest].option.plan->kind) +
                        " price: a quote recommends offers, list and contract prices (spot ones only with "
                        "quote --plan best --allow-spot)");
  return cmp;
}

std::vector<CostPoint> cost_over_calendar(const PriceCatalog& catalog, const PlanOption& option, const BillUsage& usage,
                                          int points, const BillOptions& options) {
  std::vector<CostPoint> out;
  if (points < 1 || usage.gpu_span.ns <= 0) return out;
  out.reserve(static_cast<std::size_t>(points) + 1);
  // Exact integer points span * i / points (no float: a point 1 ns past a whole hour would be
  // billed another started hour); q * i + r * i / points cannot overflow.
  const std::int64_t q = usage.gpu_span.ns / points, r = usage.gpu_span.ns % points;
  for (int i = 0; i <= points; ++i) {
    const std::int64_t ns = q * i + r * i / points;
    BillUsage u = usage;  // storage: the checkpoints kept, billed for the span so far
    u.gpu_span = units::Time{ns};
    u.restart_idle = units::Time{std::min(usage.restart_idle.ns, ns)};
    const Bill b = bill_option(catalog, option, u, options);
    if (b.ok()) out.push_back({u.gpu_span, b.total});
  }
  return out;
}

CompareOptions compare_options(const PricingSpec& pricing) {
  CompareOptions opt;
  if (!pricing.currency.empty()) opt.bill.currency = units::Currency::of(pricing.currency);
  opt.bill.new_user = pricing.new_user;
  opt.bill.add_ons = pricing.add_ons;
  opt.plan_ids = pricing.plans;
  opt.mixes = pricing.mixes;
  return opt;
}

}  // namespace flopcast::pricing

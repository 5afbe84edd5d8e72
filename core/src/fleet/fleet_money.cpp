// Money of a fleet run: what each pool costs (owned: amortised capex and energy; rented: its
// plan's bill), what its runs earn under the revenue catalog, and the conversion of every amount
// into the reporting currency with the rates the catalogs state.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "fleet_aggregate.hpp"
#include "flopcast/pricing/bill.hpp"
#include "flopcast/units/assert.hpp"

namespace flopcast::fleet {

std::string FxQuote::str() const {
  return rate.str() + " (" + catalog + (rate.note.empty() ? "" : ": " + rate.note) + ")";
}

std::optional<units::Money> convert_money(units::Money m, units::Currency to, const std::vector<FxQuote>& fx) {
  if (m.currency == to) return m;
  for (const FxQuote& q : fx) {
    const bool forward = q.rate.from == m.currency && q.rate.to == to;
    const bool backward = q.rate.from == to && q.rate.to == m.currency;
    if (forward || backward) return units::Money::of_micro(q.rate.convert_micro(m.micro(), m.currency), to);
  }
  return std::nullopt;
}

namespace detail {
namespace {

/// Mean of per-seed amounts, rounded half away from zero to the minor unit.
units::Money mean_money(const std::vector<units::Money>& v, units::Currency c) {
  if (v.empty()) return units::Money::zero(c);
  std::int64_t sum = 0;
  for (const units::Money& m : v) sum += m.minor;
  return units::Money::of_minor(units::mul_div_round(sum, 1, static_cast<std::int64_t>(v.size())), c);
}

MoneyStats money_stats(std::vector<units::Money> v, units::Currency c) {
  MoneyStats s;
  s.mean = mean_money(v, c);
  std::sort(v.begin(), v.end(), [](const units::Money& a, const units::Money& b) { return a.minor < b.minor; });
  s.p50 = v.empty() ? units::Money::zero(c) : v[(v.size() + 1) / 2 - 1];
  return s;
}

units::Time clip_end(units::Time end, units::Time horizon) { return std::min(end, horizon); }

/// A bill for `gpus` GPUs used for `span` under `plan`.
pricing::Bill bill_for(const pricing::PriceCatalog& catalog, const pricing::Plan& plan, std::int64_t gpus,
                       units::Time span, std::optional<units::Currency> currency = {}) {
  pricing::BillUsage u;
  u.gpu_span = span;
  u.gpus = gpus;
  pricing::BillOptions o;
  o.currency = currency;
  return pricing::bill_plan(catalog, plan, u, o);
}

void owned_cost(const Fleet& f, const Pool& pool, PoolCost& c) {
  const OwnedCosts& o = pool.owned;
  // Straight-line amortisation of the horizon's share of the purchase.
  c.capex = units::Money::of_minor(
      units::mul_div_round(units::checked_mul(o.capex_per_node.minor, pool.nodes), f.horizon.ns, o.amortisation.ns),
      o.capex_per_node.currency);
  const double busy_node_h = c.busy_gpu_hours / pool.gpus_per_node;
  const double all_node_h = static_cast<double>(pool.nodes) * f.horizon.hours();
  const double it_kwh = o.node_power_kw * (busy_node_h + (all_node_h - busy_node_h) * o.idle_fraction);
  c.energy_kwh = it_kwh * o.pue;
  c.energy = units::Money::of_micro(std::llround(c.energy_kwh * static_cast<double>(o.price_per_kwh.micro)),
                                    o.price_per_kwh.currency);
  c.cost = to_reporting(f, c.capex) + to_reporting(f, c.energy);
  if (o.node_power_kw <= 0) c.notes.push_back("node power unknown: energy not counted");
  c.notes.push_back("capex " + o.capex_per_node.str() + " per node over " +
                    std::to_string(std::llround(o.amortisation.days())) + " days");
}

void rented_cost(const Fleet& f, std::size_t p, const std::vector<SeedRun>& runs, PoolCost& c,
                 std::vector<std::string>& warnings) {
  const Pool& pool = f.pools[p];
  const pricing::PriceCatalog& cat = *pool.rented.catalog;
  const pricing::Plan* plan = cat.find_plan(pool.rented.plan);
  c.plan = plan->id;
  c.billing = pool.rented.billing;
  std::set<std::string> errors;
  // The pool's usage under `pl`: the whole pool for the horizon, or each run on its own.
  const auto bill_under = [&](const pricing::Plan& pl) -> std::optional<units::Money> {
    if (pool.rented.billing == RentalBilling::Reserved) {
      const pricing::Bill b = bill_for(cat, pl, pool.gpus(), f.horizon);
      errors.insert(b.errors.begin(), b.errors.end());
      return b.ok() ? std::optional<units::Money>(b.total) : std::nullopt;
    }
    std::vector<units::Money> per_seed;
    bool ok = true;
    for (const SeedRun& r : runs) {
      units::Money sum = units::Money::zero(cat.currency);
      for (const auto& a : r.attempts) {
        if (a.pool != p || a.start >= f.horizon) continue;
        const pricing::Bill b = bill_for(cat, pl, a.gpus, clip_end(a.end, f.horizon) - a.start);
        if (!b.ok()) {
          errors.insert(b.errors.begin(), b.errors.end());
          ok = false;
          continue;
        }
        sum += b.total;
      }
      per_seed.push_back(sum);
    }
    return ok ? std::optional<units::Money>(mean_money(per_seed, cat.currency)) : std::nullopt;
  };
  const auto own = bill_under(*plan);
  c.bill = own.value_or(units::Money::zero(cat.currency));
  for (const auto& e : errors) warnings.push_back("pool '" + pool.name + "': not billed: " + e);
  if (pool.rented.billing == RentalBilling::Reserved) {
    const pricing::Bill b = bill_for(cat, *plan, pool.gpus(), f.horizon);
    c.notes.push_back("billed " + std::to_string(std::llround(b.billed_gpu_time.hours())) + " h x " +
                      std::to_string(pool.gpus()) + " GPUs");
  } else {
    c.notes.push_back("on demand: each run billed on its own, clipped to the horizon");
  }
  for (const pricing::Plan* other : cat.plans_for({pool.gpu})) {
    errors.clear();
    if (other == plan)
      c.plan_bills.emplace_back(other->id, to_reporting(f, c.bill));
    else if (const auto m = bill_under(*other))
      c.plan_bills.emplace_back(other->id, to_reporting(f, *m));
  }
  c.cost = to_reporting(f, c.bill);
}

}  // namespace

units::Money to_reporting(const Fleet& f, units::Money m) {
  const auto converted = convert_money(m, f.currency, f.fx);
  FLOPCAST_ASSERT(converted.has_value(), "fleet: no exchange rate into the reporting currency (validate_fleet)");
  return *converted;
}

const std::string* revenue_plan_of(const Fleet& f, const Pool& pool) {
  if (!f.revenue || pool.internal) return nullptr;
  for (const auto& [gpu, plan] : f.revenue->plans)
    if (pricing::normalize_gpu_name(gpu) == pricing::normalize_gpu_name(pool.gpu)) return &plan;
  return nullptr;
}

std::vector<PoolCost> pool_costs(const Fleet& f, const std::vector<SeedRun>& runs, std::vector<std::string>& warnings) {
  std::vector<PoolCost> costs;
  const double seeds = static_cast<double>(runs.size());
  for (std::size_t p = 0; p < f.pools.size(); ++p) {
    const Pool& pool = f.pools[p];
    PoolCost c;
    c.pool = pool.name;
    c.kind = pool.kind;
    c.internal = pool.internal;
    double busy_ns = 0;
    for (const SeedRun& r : runs) busy_ns += r.pool_busy_gpu_ns[p];
    busy_ns /= seeds;
    c.busy_gpu_hours = busy_ns / 3.6e12;
    c.utilisation = c.busy_gpu_hours / (static_cast<double>(pool.gpus()) * f.horizon.hours());
    if (pool.kind == PoolKind::Owned)
      owned_cost(f, pool, c);
    else
      rented_cost(f, p, runs, c, warnings);
    costs.push_back(std::move(c));
  }
  return costs;
}

std::optional<RevenueResult> add_revenue(const Fleet& f, const std::vector<SeedRun>& runs, std::vector<PoolCost>& costs,
                                         std::vector<std::string>& warnings) {
  if (!f.revenue) return std::nullopt;
  const RevenueSpec& rs = *f.revenue;
  const pricing::PriceCatalog& cat = *rs.catalog;
  const units::Currency billed_in = rs.currency.value_or(cat.currency);
  RevenueResult out;
  out.currency = f.currency;
  std::vector<const pricing::Plan*> plan_of_pool(f.pools.size(), nullptr);
  for (std::size_t p = 0; p < f.pools.size(); ++p)
    if (const std::string* id = revenue_plan_of(f, f.pools[p])) plan_of_pool[p] = cat.find_plan(*id);
  // Per pool and per seed, in the customers' bill currency.
  std::vector<std::vector<units::Money>> per_pool(f.pools.size());
  std::vector<units::Money> totals;
  std::set<std::string> errors;
  for (const SeedRun& r : runs) {
    std::vector<units::Money> sum(f.pools.size(), units::Money::zero(billed_in));
    for (const auto& a : r.attempts) {
      const pricing::Plan* plan = plan_of_pool[a.pool];
      if (!plan || a.start >= f.horizon) continue;
      const pricing::Bill b = bill_for(cat, *plan, a.gpus, clip_end(a.end, f.horizon) - a.start, billed_in);
      if (!b.ok()) {
        errors.insert(b.errors.begin(), b.errors.end());
        continue;
      }
      sum[a.pool] += b.total;
    }
    units::Money total = units::Money::zero(billed_in);
    for (std::size_t p = 0; p < sum.size(); ++p) {
      per_pool[p].push_back(sum[p]);
      total += sum[p];
    }
    totals.push_back(to_reporting(f, total));
  }
  for (const auto& e : errors) warnings.push_back("revenue: runs not billed: " + e);
  out.total = money_stats(totals, f.currency);
  out.total.mean = units::Money::zero(f.currency);
  for (std::size_t p = 0; p < f.pools.size(); ++p) {
    PoolCost& c = costs[p];
    c.revenue = to_reporting(f, mean_money(per_pool[p], billed_in));
    if (plan_of_pool[p]) c.revenue_plan = plan_of_pool[p]->id;
    c.margin = *c.revenue - c.cost;
    out.total.mean += *c.revenue;
  }
  out.notes.push_back("each run billed on its own under its GPU's plan in " + cat.name + ", clipped to the horizon");
  for (const PoolCost& c : costs)
    if (c.internal) out.notes.push_back("pool '" + c.pool + "' is internal: its cost counts, it earns nothing");
  return out;
}

}  // namespace detail
}  // namespace flopcast::fleet

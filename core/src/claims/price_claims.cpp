// Price claims, billed through core/pricing with the catalog's own plans: exact money in
// integer minor units, conversions only at the catalog's stated exchange rates.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "claim_checks.hpp"
#include "claim_format.hpp"
#include "flopcast/pricing/bill.hpp"

namespace flopcast::claims::detail {
namespace {

constexpr std::int64_t kHourNs = 3'600'000'000'000;

/// What one option costs for a use, in one currency.
struct Cost {
  bool ok = false;
  units::Money total;
  std::string how;    ///< "8 GPU x 1 hour at 6.80 CNY / GPU-hour (a100-80g-hourly)"
  std::string error;  ///< why there is no cost
  std::string fx;     ///< "converted at 1 USD = 7.2 CNY" when a conversion was needed
  units::Money deposit;
};

std::string fx_text(const pricing::PriceCatalog& cat, units::Currency from, units::Currency to) {
  if (from == to) return "";
  const units::FxRate* r = cat.fx_between(from, to);
  return r == nullptr ? "" : "converted at " + r->str() + " (catalog " + cat.name + "'s stated rate)";
}

Cost cost_of(const pricing::PriceCatalog& cat, const PriceOption& o, const PriceUse& use, units::Currency cur) {
  Cost k;
  k.deposit = units::Money::zero(cur);
  if (o.plan != nullptr) {
    pricing::BillUsage u;
    u.gpu_span = use.span;
    u.gpus = use.gpus;
    pricing::BillOptions opt;
    opt.currency = cur;
    pricing::Bill b = pricing::bill_plan(cat, *o.plan, u, opt);
    if (!b.ok()) {
      k.error = b.errors.front();
      return k;
    }
    for (const pricing::LineItem& item : b.items)
      if (item.kind == pricing::LineKind::GpuTime) k.how = item.quantity + " at " + item.unit_price;
    k.how += " (" + o.plan->id + ")";
    k.fx = fx_text(cat, o.plan->price.currency, cur);
    k.total = b.total;
    k.deposit = b.deposit;
    k.ok = true;
    return k;
  }
  const pricing::CpuInstance& cpu = *o.cpu;
  const std::int64_t started = use.span.ns / kHourNs + (use.span.ns % kHourNs != 0 ? 1 : 0);
  const std::int64_t hours = std::max(started, cpu.minimum_hours);
  const auto converted =
      pricing::convert_micro(cat, units::checked_mul(cpu.per_hour.micro, hours), cpu.per_hour.currency, cur);
  if (!converted) {
    k.error = "no exchange rate between " + cpu.per_hour.currency.str() + " and " + cur.str() + " in catalog '" +
              cat.name + "'";
    return k;
  }
  k.total = units::Money::of_micro(*converted, cur);
  k.how = fmt::format("{} hour at {} / hour ({}; started hours billed whole, at least {})", hours, cpu.per_hour.str(),
                      cpu.id, cpu.minimum_hours);
  k.fx = fx_text(cat, cpu.per_hour.currency, cur);
  k.ok = true;
  return k;
}

units::Currency currency_of(const Claim& c, const pricing::PriceCatalog& cat) {
  if (c.claimed && c.claimed->money) return c.claimed->money->currency;
  if (c.claimed && c.claimed->price) return c.claimed->price->rate.currency;
  return cat.currency;
}

std::string with_fx(std::string how, const std::string& fx) { return fx.empty() ? how : how + "; " + fx; }

ComputedFigure money_figure(units::Money m) { return {true, m.major(), m.currency.str(), m.str()}; }

/// A plan's price per GPU-hour in `cur` (micro-units, as a double), or nullopt without a rate.
std::optional<double> per_gpu_hour(const pricing::PriceCatalog& cat, const pricing::Plan& p, units::Currency cur) {
  const auto micro = pricing::convert_micro(cat, p.price.micro, p.price.currency, cur);
  if (!micro) return std::nullopt;
  const double hours = pricing::billing_unit_length(p.unit).hours();
  const double gpus = p.basis == pricing::PriceBasis::PerGpu ? 1.0 : std::max(1, p.gpus_per_node);
  return static_cast<double>(*micro) / hours / gpus;
}

/// "GPU" or "node", as a price is quoted.
const char* basis_word(pricing::PriceBasis b) { return b == pricing::PriceBasis::PerGpu ? "GPU" : "node"; }

/// GPUs a plan names explicitly (not "*").
std::vector<std::string> named_gpus(const pricing::Plan& p) {
  std::vector<std::string> out;
  for (const auto& g : p.gpus)
    if (g != "*") out.push_back(g);
  return out;
}

bool same_gpu(const pricing::Plan& a, const pricing::Plan& b) {
  const auto gpus = named_gpus(a);
  return std::any_of(gpus.begin(), gpus.end(), [&](const std::string& g) { return b.names_gpu(g); });
}

/// Other plans of the same seller for the same GPU, unit and basis at another price: two
/// prices for one product.
void find_contradictions(const pricing::Plan& plan, const pricing::PriceCatalog& cat, units::Currency cur,
                         EvalContext& ctx, Verdict& v) {
  const auto mine = per_gpu_hour(cat, plan, cur);
  if (!mine || *mine <= 0) return;
  std::vector<std::string> others;
  std::string reasons;
  for (const pricing::Plan& p : cat.plans) {
    if (&p == &plan || p.competitor || p.unit != plan.unit || p.basis != plan.basis || !same_gpu(plan, p)) continue;
    const auto theirs = per_gpu_hour(cat, p, cur);
    if (!theirs) continue;
    const double ratio = *theirs / *mine;
    if (std::fabs(ratio - 1.0) <= kTolerance) continue;
    auto ids = ctx.rate_claims_of(cat.name, p.id);
    if (ids.empty()) ids.push_back(p.id);
    for (const auto& id : ids)
      if (std::find(others.begin(), others.end(), id) == others.end()) others.push_back(id);
    const std::string conv =
        p.price.currency == cur
            ? ""
            : " = " +
                  grouped(*theirs * pricing::billing_unit_length(p.unit).hours() *
                              (p.basis == pricing::PriceBasis::PerGpu ? 1.0 : p.gpus_per_node) / 1e6,
                          3) +
                  " " + cur.str() + " " + fx_text(cat, p.price.currency, cur);
    reasons += fmt::format("{}the same product ({}, per {}-{}) is also listed at {}{} (plan {}): {:.2f}x this price",
                           reasons.empty() ? "" : "; ", named_gpus(plan).front(), basis_word(plan.basis),
                           to_string(plan.unit), p.price.str(), conv, p.id, ratio);
  }
  if (others.empty()) return;
  if (v.kind == VerdictKind::Holds) {
    v.kind = VerdictKind::Contradicts;
    v.others = others;
    v.reason = reasons;
  } else {
    v.notes.push_back(reasons);
  }
}

/// Notes when `plan` has a longer unit than another plan of the same catalog, GPU and basis and
/// costs more than the same span under it (a commitment dearer than paying as you go).
void longer_but_dearer(const pricing::Plan& plan, const pricing::PriceCatalog& cat, units::Currency cur, Verdict& v) {
  for (const pricing::Plan& p : cat.plans) {
    if (&p == &plan || p.competitor || p.basis != plan.basis || !same_gpu(plan, p)) continue;
    if (pricing::billing_unit_length(p.unit) >= pricing::billing_unit_length(plan.unit)) continue;
    const pricing::Plan& longer = plan;
    const pricing::Plan& shorter = p;
    PriceUse use{longer.basis == pricing::PriceBasis::PerGpu ? 1 : longer.gpus_per_node,
                 pricing::billing_unit_length(longer.unit)};
    const Cost a = cost_of(cat, {&longer, nullptr}, use, cur), b = cost_of(cat, {&shorter, nullptr}, use, cur);
    if (!a.ok || !b.ok || b.total.minor <= 0) continue;
    const double ratio = static_cast<double>(a.total.minor) / static_cast<double>(b.total.minor);
    if (ratio <= 1.0 + kTolerance) continue;
    v.notes.push_back(fmt::format(
        "one {}-{} costs {} under {} but {} under {} ({:.2f}x): the longer commitment is the "
        "dearer one",
        basis_word(longer.basis), to_string(longer.unit), b.total.str(), shorter.id, a.total.str(), longer.id, ratio));
  }
}

Verdict judge_rate(const Claim& c, const PriceNeeds& n, EvalContext& ctx) {
  const pricing::PriceCatalog& cat = *n.catalog;
  const pricing::Plan& plan = *n.options.front().plan;
  const ClaimedPrice& cp = *c.claimed->price;
  const units::Currency cur = cp.rate.currency;
  const Cost k = cost_of(cat, n.options.front(), n.use, cur);
  if (!k.ok) return cannot_judge(k.error);
  const double count = cp.basis == pricing::PriceBasis::PerGpu
                           ? static_cast<double>(n.use.gpus)
                           : std::ceil(static_cast<double>(n.use.gpus) / std::max(1, plan.gpus_per_node));
  const double units =
      static_cast<double>(n.use.span.ns) / static_cast<double>(pricing::billing_unit_length(cp.unit).ns);
  const double per = k.total.major() / (count * units);
  Verdict v = compare(cp.rate.major(), per, Better::Lower, c.claimed->bound);
  const std::string unit = cur.str() + "/" + cp.per();
  v.figure = {true, per, unit, grouped(per, 2) + " " + unit};
  v.how = with_fx(fmt::format("{} in catalog {} = {} over {} {}{} = {}", k.how, cat.name, k.total.str(),
                              grouped(count * units, count * units == std::floor(count * units) ? 0 : 2), cp.per(),
                              count * units == 1.0 ? "" : "s", v.figure.text),
                  k.fx);
  if (k.deposit.minor != 0) v.notes.push_back("refundable deposit " + k.deposit.str() + ", not counted");
  if (plan.queue.ns > 0) v.notes.push_back("stated queue before the GPUs are ready: " + duration(plan.queue));
  if (plan.competitor) {
    v.kind = VerdictKind::CannotJudge;
    v.percent = 0;
    v.reason = "another provider's price as the vendor reports it (plan " + plan.id +
               " is marked competitor): flopcast has no independent price to hold it against";
    return v;
  }
  find_contradictions(plan, cat, cur, ctx, v);
  longer_but_dearer(plan, cat, cur, v);
  settle(v, c, "the catalog bills it at " + v.figure.text + ", not " + c.claimed->text);
  return v;
}

Verdict judge_total(const Claim& c, const PriceNeeds& n) {
  const pricing::PriceCatalog& cat = *n.catalog;
  const Cost k = cost_of(cat, n.options.front(), n.use, currency_of(c, cat));
  if (!k.ok) return cannot_judge(k.error);
  Verdict v = compare(c.claimed->money->major(), k.total.major(), Better::Lower, c.claimed->bound);
  v.figure = money_figure(k.total);
  v.how = with_fx(k.how + " in catalog " + cat.name + " = " + k.total.str(), k.fx);
  settle(v, c, "the bill is " + k.total.str() + ", not " + c.claimed->text);
  return v;
}

Verdict judge_saving(const Claim& c, const PriceNeeds& n) {
  const pricing::PriceCatalog& cat = *n.catalog;
  const units::Currency cur = currency_of(c, cat);
  const Cost a = cost_of(cat, n.options.front(), n.use, cur);
  if (!a.ok) return cannot_judge(a.error);
  const std::string a_how = with_fx(a.how + " = " + a.total.str(), a.fx);
  if (!n.baseline) {
    Verdict v = cannot_judge("the claim does not say what it saves against (no baseline): a saving needs one");
    v.figure = money_figure(a.total);
    v.how = "what the claimed option itself costs: " + a_how + " in catalog " + cat.name;
    if (c.claimed->money && a.total.minor > 0)
      v.notes.push_back(fmt::format("the claimed {} is {} of that", c.claimed->text,
                                    percent(c.claimed->money->major() / a.total.major())));
    return v;
  }
  const Cost b = cost_of(cat, *n.baseline, n.use, cur);
  if (!b.ok) return cannot_judge(b.error);
  if (b.total.minor <= 0) return cannot_judge("the baseline " + n.baseline->id() + " costs nothing for this use");
  const std::string how = "claimed option: " + a_how + "; baseline: " + with_fx(b.how + " = " + b.total.str(), b.fx);
  Verdict v;
  std::string saving_text;
  if (c.claimed->dimension == Dimension::Fraction) {
    const double share = static_cast<double>(a.total.minor) / static_cast<double>(b.total.minor);
    const double saving = 1.0 - share;
    v = compare(1.0 - c.claimed->value, share, Better::Lower, c.claimed->bound);
    saving_text = saving >= 0 ? percent(saving) + " cheaper" : percent(-saving) + " dearer";
    v.figure = {true, saving * 100, "%", saving_text};
    v.how = how + fmt::format(": 1 - {} / {} = {}", a.total.amount_str(), b.total.amount_str(), percent(saving));
  } else {
    const units::Money saving = b.total - a.total;
    v = compare(c.claimed->money->major(), saving.major(), Better::Higher, c.claimed->bound);
    saving_text = saving.str();
    v.figure = money_figure(saving);
    v.how = how + ": saving " + b.total.amount_str() + " - " + a.total.amount_str() + " = " + saving.str();
  }
  settle(v, c,
         fmt::format("{} costs {} and {} costs {} for the same use: {}, not {}", n.options.front().id(), a.total.str(),
                     n.baseline->id(), b.total.str(), saving_text, c.claimed->text));
  if (v.kind == VerdictKind::Impossible && v.reason.empty())
    v.reason = n.baseline->id() + " costs " + b.total.str() + ", no more than " + a.total.str() + ": nothing is saved";
  return v;
}

Verdict judge_credit(const Claim& c, const PriceNeeds& n) {
  const pricing::PriceCatalog& cat = *n.catalog;
  if (!cat.new_user_credit) return cannot_judge("catalog " + cat.name + " states no new-user credit");
  const units::Money credit = cat.new_user_credit->amount;
  const std::int64_t gpus = std::max<std::int64_t>(1, n.use.gpus);
  const pricing::Plan* plan = n.options.empty() ? nullptr : n.options.front().plan;
  if (plan == nullptr) {
    for (const pricing::Plan& p : cat.plans)
      if (!p.competitor && p.names_gpu(n.gpu)) plan = &p;
  }
  if (plan == nullptr) {
    Verdict v =
        cannot_judge("catalog " + cat.name + " has no plan for the " + n.gpu + ": nothing to price its hours with");
    const double hours = c.claimed->value / 3600.0;
    if (hours > 0) {
      const double implied = credit.major() / (hours * static_cast<double>(gpus));
      v.figure = {true, implied, credit.currency.str() + "/GPU-hour",
                  "implied " + grouped(implied, 2) + " " + credit.currency.str() + "/GPU-hour"};
      v.how = fmt::format("the {} credit / ({} x {} GPU): the price the claim implies", credit.str(),
                          duration_s(c.claimed->value), gpus);
    }
    return v;
  }
  const auto rate = per_gpu_hour(cat, *plan, credit.currency);
  if (!rate || *rate <= 0) return cannot_judge("no exchange rate or price to turn plan " + plan->id + " into hours");
  const double per_hour_major = *rate * static_cast<double>(gpus) / 1e6;
  const double hours = credit.major() / per_hour_major;
  Verdict v = compare(c.claimed->value / 3600.0, hours, Better::Higher, c.claimed->bound);
  v.figure = {true, hours, "h", fmt::format("{:.2f} h ({})", hours, duration_s(hours * 3600))};
  v.how = with_fx(fmt::format("the {} credit / ({} GPU x {:.2f} {}/GPU-hour under {}) = {:.2f} h, prorated",
                              credit.str(), gpus, *rate / 1e6, credit.currency.str(), plan->id, hours),
                  fx_text(cat, plan->price.currency, credit.currency));
  if (plan->rounding == pricing::Rounding::StartedUnit && hours < 1.0 && plan->unit == pricing::BillingUnit::Hour)
    v.notes.push_back(
        fmt::format("{} bills started hours whole: the first hour of {} GPU costs {:.2f} {}, more than "
                    "the credit",
                    plan->id, gpus, per_hour_major, credit.currency.str()));
  settle(v, c,
         fmt::format("{} buys {:.2f} h of {} GPU at {:.2f} {}/GPU-hour ({}), not {}: {} h would cost {:.2f} {}",
                     credit.str(), hours, gpus, *rate / 1e6, credit.currency.str(), plan->id, c.claimed->text,
                     c.claimed->value / 3600.0, c.claimed->value / 3600.0 * per_hour_major, credit.currency.str()));
  return v;
}

Verdict judge_run_cost(const Claim& c, const PriceNeeds& n, EvalContext& ctx) {
  const pricing::PriceCatalog& cat = *n.catalog;
  const ScenarioOutcome& o = ctx.run(*n.run);
  const std::string& file = n.run->name;
  if (o.status == ScenarioOutcome::Status::BadInput)
    return cannot_judge("scenario " + file + " cannot be read: " + (o.problems.empty() ? "" : o.problems.front()));
  if (o.status == ScenarioOutcome::Status::Inconsistent) {
    Verdict v;
    v.kind = VerdictKind::Impossible;
    v.reason = "the run does not add up: " + (o.problems.empty() ? std::string() : o.problems.front());
    return v;
  }
  if (o.train_seconds <= 0) return cannot_judge("scenario " + file + " states no training.tokens: no run to price");
  const units::Currency cur = currency_of(c, cat);
  const PriceUse use{o.gpus, units::Time::from_seconds(o.train_seconds)};
  const Cost* best = nullptr;
  std::vector<Cost> costs;
  costs.reserve(n.options.size());
  std::vector<std::string> skipped;
  for (const PriceOption& opt : n.options) {
    const bool applies = std::any_of(o.gpu_names.begin(), o.gpu_names.end(),
                                     [&](const std::string& g) { return opt.plan->applies_to(g); });
    if (!applies) {
      skipped.push_back(opt.plan->id);
      continue;
    }
    costs.push_back(cost_of(cat, opt, use, cur));
  }
  for (const Cost& k : costs)
    if (k.ok && (best == nullptr || k.total.minor < best->total.minor)) best = &k;
  if (best == nullptr)
    return cannot_judge("none of the plans prices the scenario's " + o.gpu +
                        (skipped.empty() ? std::string() : " (" + fmt::format("{}", fmt::join(skipped, ", ")) + ")"));
  Verdict v = compare(c.claimed->money->major(), best->total.major(), Better::Lower, c.claimed->bound);
  v.figure = money_figure(best->total);
  v.how =
      with_fx(fmt::format("failure-free run of {} ({}): {} GPU-hours on {} x {} ({}); {} in catalog {}{} = {}", file,
                          o.engine, grouped(o.gpu_hours, 0), o.gpus, o.gpu, duration_s(o.train_seconds), best->how,
                          cat.name, costs.size() > 1 ? ", the cheapest of the plans named" : "", best->total.str()),
              best->fx);
  if (!skipped.empty()) v.notes.push_back(fmt::format("not for the {}: {}", o.gpu, fmt::join(skipped, ", ")));
  if (!o.fits_memory) {
    v.kind = VerdictKind::Impossible;
    v.percent = 0;
    v.reason = o.memory_problem + "; even if it fitted, the run would cost " + best->total.str();
    return v;
  }
  settle(v, c, "the simulated run costs " + best->total.str() + ", not " + c.claimed->text);
  return v;
}

}  // namespace

Verdict judge_price(const Claim& c, const PriceNeeds& n, EvalContext& ctx) {
  switch (n.figure) {
    case PriceFigure::Rate:
      return judge_rate(c, n, ctx);
    case PriceFigure::Total:
      return judge_total(c, n);
    case PriceFigure::Saving:
      return judge_saving(c, n);
    case PriceFigure::CreditHours:
      return judge_credit(c, n);
    case PriceFigure::RunCost:
      return judge_run_cost(c, n, ctx);
    case PriceFigure::Purchase:
      break;
  }
  Verdict v = cannot_judge(
      "flopcast's price catalogs hold rental plans, not purchase prices: nothing to hold a card's price against");
  v.how = "no figure: data/prices/ lists rental plans (per GPU or node and hour, day, month or year) only";
  return v;
}

}  // namespace flopcast::claims::detail

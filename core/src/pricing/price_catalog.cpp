#include "flopcast/pricing/price_catalog.hpp"

#include <algorithm>
#include <cctype>

namespace flopcast::pricing {

const char* to_string(PriceKind k) {
  switch (k) {
    case PriceKind::Offer:
      return "offer";
    case PriceKind::List:
      return "list";
    case PriceKind::Contract:
      return "contract";
    case PriceKind::Spot:
      return "spot";
    case PriceKind::Assumption:
      return "assumption";
    case PriceKind::Competitor:
      return "competitor";
  }
  return "?";
}

std::optional<PriceKind> parse_price_kind(std::string_view s) {
  for (const PriceKind k : {PriceKind::Offer, PriceKind::List, PriceKind::Contract, PriceKind::Spot,
                            PriceKind::Assumption, PriceKind::Competitor})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

bool billable_by_default(PriceKind k) {
  return k == PriceKind::Offer || k == PriceKind::List || k == PriceKind::Contract;
}

namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const char* to_string(BillingUnit u) {
  switch (u) {
    case BillingUnit::Hour:
      return "hour";
    case BillingUnit::Day:
      return "day";
    case BillingUnit::Month:
      return "month";
    case BillingUnit::Year:
      return "year";
  }
  return "hour";
}

std::optional<BillingUnit> parse_billing_unit(std::string_view s) {
  const std::string v = lower(s);
  if (v == "hour" || v == "hourly") return BillingUnit::Hour;
  if (v == "day" || v == "daily") return BillingUnit::Day;
  if (v == "month" || v == "monthly") return BillingUnit::Month;
  if (v == "year" || v == "yearly") return BillingUnit::Year;
  return std::nullopt;
}

units::Time billing_unit_length(BillingUnit u) {
  constexpr std::int64_t kHourNs = 3'600'000'000'000;
  switch (u) {
    case BillingUnit::Hour:
      return units::Time{kHourNs};
    case BillingUnit::Day:
      return units::Time{24 * kHourNs};
    case BillingUnit::Month:
      return units::Time{720 * kHourNs};
    case BillingUnit::Year:
      return units::Time{8760 * kHourNs};
  }
  return units::Time{kHourNs};
}

const char* to_string(PriceBasis b) { return b == PriceBasis::PerGpu ? "gpu" : "node"; }

std::optional<PriceBasis> parse_price_basis(std::string_view s) {
  const std::string v = lower(s);
  if (v == "gpu") return PriceBasis::PerGpu;
  if (v == "node" || v == "instance") return PriceBasis::PerNode;
  return std::nullopt;
}

const char* to_string(Rounding r) { return r == Rounding::StartedUnit ? "started_unit" : "prorated"; }

std::optional<Rounding> parse_rounding(std::string_view s) {
  const std::string v = lower(s);
  if (v == "started_unit") return Rounding::StartedUnit;
  if (v == "prorated") return Rounding::Prorated;
  return std::nullopt;
}

const char* to_string(AddOnKind k) {
  switch (k) {
    case AddOnKind::PerGpuUnit:
      return "gpu_unit";
    case AddOnKind::PerNodeUnit:
      return "node_unit";
    case AddOnKind::StorageGbMonth:
      return "storage_gb_month";
    case AddOnKind::Once:
      return "once";
  }
  return "once";
}

std::optional<AddOnKind> parse_add_on_kind(std::string_view s) {
  const std::string v = lower(s);
  if (v == "gpu_unit") return AddOnKind::PerGpuUnit;
  if (v == "node_unit") return AddOnKind::PerNodeUnit;
  if (v == "storage_gb_month") return AddOnKind::StorageGbMonth;
  if (v == "once") return AddOnKind::Once;
  return std::nullopt;
}

std::string normalize_gpu_name(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '-' || c == '_' || c == ' ' || c == '.') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool Plan::names_gpu(std::string_view gpu) const {
  const std::string want = normalize_gpu_name(gpu);
  return std::any_of(gpus.begin(), gpus.end(),
                     [&](const std::string& g) { return g != "*" && normalize_gpu_name(g) == want; });
}

void Plan::add_interruptions(job::JobInput& in) const {
  in.reliability.failures_per_gpu_hour += interruptions_per_hour / std::max(1, gpus_per_node);
  if (interruption_restart > in.reliability.restart_time) in.reliability.restart_time = interruption_restart;
}

bool Plan::applies_to(std::string_view gpu) const {
  return names_gpu(gpu) || std::any_of(gpus.begin(), gpus.end(), [](const std::string& g) { return g == "*"; });
}

const Plan* PriceCatalog::find_plan(std::string_view id) const {
  for (const Plan& p : plans)
    if (p.id == id) return &p;
  return nullptr;
}

const units::FxRate* PriceCatalog::fx_between(units::Currency a, units::Currency b) const {
  for (const units::FxRate& r : fx)
    if ((r.from == a && r.to == b) || (r.from == b && r.to == a)) return &r;
  return nullptr;
}

std::vector<const Plan*> PriceCatalog::plans_for(const std::vector<std::string>& gpu_names) const {
  std::vector<const Plan*> out;
  for (const Plan& p : plans) {
    if (std::any_of(gpu_names.begin(), gpu_names.end(), [&](const std::string& g) { return p.applies_to(g); }))
      out.push_back(&p);
  }
  return out;
}

job::EnergySpec energy_spec(const PriceCatalog& catalog, const PricingSpec& spec) {
  job::EnergySpec e;
  if (catalog.electricity) {
    e.price_per_kwh = catalog.electricity->per_kwh;
    e.pue = catalog.electricity->pue;
  }
  if (spec.pue) e.pue = *spec.pue;
  if (spec.electricity_per_kwh) e.price_per_kwh = *spec.electricity_per_kwh;
  return e;
}

std::optional<std::int64_t> convert_micro(const PriceCatalog& catalog, std::int64_t amount_micro, units::Currency from,
                                          units::Currency to) {
  if (from == to) return amount_micro;
  const units::FxRate* rate = catalog.fx_between(from, to);
  if (rate == nullptr) return std::nullopt;
  return rate->convert_micro(amount_micro, from);
}

}  // namespace flopcast::pricing

#pragma once
/// A provider's price list (data/prices/*.yaml): plans per GPU or node type with a billing
/// unit, rounding, minimum term, deposit, commitment discount and add-ons; CPU instances for
/// a debug phase; a new-user credit; exchange rates; electricity. Every price is kept as the
/// source states it (currency and unit), with the source and the date.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/job/job_input.hpp"
#include "flopcast/pricing/pricing_spec.hpp"
#include "flopcast/units/money.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::pricing {

/// The unit a plan bills GPU time in.
enum class BillingUnit { Hour, Day, Month, Year };

/// "hour", "day", "month", "year".
const char* to_string(BillingUnit u);
/// Parses "hour"/"hourly", "day"/"daily", "month"/"monthly", "year"/"yearly"; nullopt otherwise.
std::optional<BillingUnit> parse_billing_unit(std::string_view s);
/// Length of one unit: hour 3,600 s; day 24 h; month 720 h (30 days: the seed vendor's
/// "monthly (720 h)", SEED, also used to compare monthly with hourly cloud prices);
/// year 8,760 h (365 days).
units::Time billing_unit_length(BillingUnit u);

/// What one price unit covers.
enum class PriceBasis { PerGpu, PerNode };
const char* to_string(PriceBasis b);  ///< "gpu", "node"
std::optional<PriceBasis> parse_price_basis(std::string_view s);

/// How partial units are billed.
enum class Rounding {
  StartedUnit,  ///< a started unit is billed whole (ceil)
  Prorated,     ///< billed exactly for the time used (to the nanosecond), rounded to the minor unit
};
const char* to_string(Rounding r);  ///< "started_unit", "prorated"
std::optional<Rounding> parse_rounding(std::string_view s);

/// What an add-on price is per.
enum class AddOnKind {
  PerGpuUnit,      ///< per GPU per billing unit of the plan (e.g. RDMA per GPU-day)
  PerNodeUnit,     ///< per node per billing unit of the plan
  StorageGbMonth,  ///< per GB (1e9 B, started GB billed) per month (720 h) of the run, prorated by started hour
  Once,            ///< once per bill (setup fee)
};
const char* to_string(AddOnKind k);  ///< "gpu_unit", "node_unit", "storage_gb_month", "once"
std::optional<AddOnKind> parse_add_on_kind(std::string_view s);

/// An extra a plan bills (or includes at no charge).
struct AddOn {
  std::string id;    ///< e.g. "rdma-200g"
  std::string name;  ///< e.g. "200 Gb/s RDMA network"
  AddOnKind kind = AddOnKind::PerGpuUnit;
  units::PriceRate price;  ///< per kind's unit; zero when included
  bool included = false;   ///< part of the plan price (shown as a zero line)
  bool optional = false;   ///< billed only when asked for (not in the default bill)
  std::string note;
  /// The name and note in Simplified Chinese, for quotes in zh-CN ("" = none: written as is).
  std::string name_zh, note_zh;
};

/// What a price is: who stands behind it and whether a customer can be billed at it.
enum class PriceKind {
  Offer,       ///< the provider's own offer (what its quotes bill)
  List,        ///< a published list price anyone can buy at (on-demand, reserved, capacity blocks)
  Contract,    ///< a negotiated or committed-term price (a minimum term usually applies)
  Spot,        ///< preemptible capacity: cheaper, interrupted at the provider's will
  Assumption,  ///< a figure someone assumed (a paper's rental assumption): never billed as an offer
  Competitor,  ///< another provider's price recorded for comparison: shown only when asked
};
/// "offer", "list", "contract", "spot", "assumption", "competitor".
const char* to_string(PriceKind k);
std::optional<PriceKind> parse_price_kind(std::string_view s);
/// Whether plans and quotes bill a plan of this kind by default (offer, list, contract).
bool billable_by_default(PriceKind k);

/// One way to rent GPUs.
struct Plan {
  std::string id;    ///< unique in the catalog, e.g. "a100-80g-hourly"
  std::string name;  ///< human name
  /// GPU catalog names the plan applies to; "*" = any GPU (the source did not say which).
  std::vector<std::string> gpus;
  BillingUnit unit = BillingUnit::Hour;
  PriceBasis basis = PriceBasis::PerGpu;
  int gpus_per_node = 8;   ///< for per-node prices: GPUs one node unit holds
  units::PriceRate price;  ///< per GPU or per node, per unit, as stated
  Rounding rounding = Rounding::StartedUnit;
  std::int64_t minimum_units = 1;  ///< minimum term in units (a shorter run pays the minimum)
  units::Money deposit;            ///< refundable, per contract (shown apart from the total)
  /// Commitment discount in basis points (1/100 %) of the GPU time, granted when the billed
  /// units reach `discount_min_units`.
  std::int32_t discount_bp = 0;
  std::int64_t discount_min_units = 0;
  std::vector<AddOn> add_ons;
  units::Time queue{0};  ///< typical wait before the GPUs are ready, as stated
  bool claim = false;    ///< a vendor's claim, not independently verified
  /// A competitor's price the catalog records for comparison: billed and compared like any
  /// plan, never mixed with the provider's plans and never recommended in the provider's quote.
  bool competitor = false;
  /// What the price is (required in a catalog file); Competitor sets `competitor`.
  PriceKind kind = PriceKind::Offer;
  /// Spot plans: interruptions per node (gpus_per_node GPUs, default 8) per hour of use, the time to get capacity back
  /// and train again, and the source of the rate. A run under the plan is simulated with these interruptions on top of
  /// failures.
  double interruptions_per_hour = 0;
  units::Time interruption_restart{0};
  std::string interruption_source;
  std::string date;        ///< date of the price (YYYY-MM or as the source gives it)
  std::string source;      ///< citation
  std::string confidence;  ///< A, B, C or CLAIM (docs/references.md, Confidence grades)
  std::string note;        ///< contradictions and caveats
  std::string name_zh;     ///< the name in Simplified Chinese, for quotes in zh-CN ("" = none: written as is)

  /// True when the plan lists `gpu` (case and '-', '_', ' ' ignored) or "*".
  bool applies_to(std::string_view gpu) const;
  /// True when the plan lists a GPU explicitly (not "*").
  bool names_gpu(std::string_view gpu) const;
  /// Adds the plan's interruptions to `in`'s failures: per node-hour become per GPU-hour (a node
  /// of gpus_per_node GPUs), and the restart is the longer of the two.
  void add_interruptions(job::JobInput& in) const;
};

/// A CPU-only instance for a debug phase.
struct CpuInstance {
  std::string id;
  std::string name;
  units::PriceRate per_hour;
  std::int64_t minimum_hours = 1;  ///< started hours billed whole, at least this many
  std::string source;
  std::string note;
  std::string name_zh;  ///< the name in Simplified Chinese, for quotes in zh-CN ("" = none)
};

/// A one-time credit for new customers.
struct Credit {
  units::Money amount;
  std::string source;
  std::string note;
};

/// Electricity for owned clusters and the energy line of quotes.
struct Electricity {
  units::PriceRate per_kwh;
  double pue = 1.58;
  std::string source;
  std::string note;
};

/// The tax a quote adds to the bill (`tax:`): its name, rate and the rule it comes from.
struct Tax {
  std::string name;          ///< e.g. "VAT"
  std::int64_t rate_bp = 0;  ///< basis points: 600 = 6%
  std::string basis;         ///< what it is levied on and why this rate
  std::string source;        ///< the rule (law, circular) that sets it
};

/// A provider's price list.
struct PriceCatalog {
  std::string name;          ///< file stem, e.g. "seed-vendor"
  std::string provider;      ///< e.g. "Starverse (seed vendor)"
  units::Currency currency;  ///< the currency bills are written in by default
  std::string date;          ///< when the list was compiled
  std::string source;
  std::string note;
  std::vector<units::FxRate> fx;
  std::vector<Plan> plans;
  std::vector<CpuInstance> cpu_instances;
  std::optional<Credit> new_user_credit;
  std::optional<Electricity> electricity;
  std::vector<std::string> notes;  ///< claims that are not prices, caveats
  std::optional<Tax> tax;          ///< added to quoted totals; none = the quote says taxes are extra
  std::string payment_terms;       ///< as the provider states them; "" = to be agreed
  /// Whether `provider` issues quotes on these prices. False for a compilation of other
  /// providers' list prices: a quote priced on it names no issuer unless one is given.
  bool issues_quotes = true;

  /// The plan with that id, or nullptr.
  const Plan* find_plan(std::string_view id) const;
  /// The stated rate between `a` and `b` in either direction, or nullptr.
  const units::FxRate* fx_between(units::Currency a, units::Currency b) const;
  /// Plans that apply to any of `gpu_names`, in catalog order.
  std::vector<const Plan*> plans_for(const std::vector<std::string>& gpu_names) const;
};

/// Converts `amount_micro` of currency `from` into currency `to` with the catalog's stated
/// rate; nullopt when the catalog states none. Same currency: unchanged.
std::optional<std::int64_t> convert_micro(const PriceCatalog& catalog, std::int64_t amount_micro, units::Currency from,
                                          units::Currency to);

/// Energy assumptions for a run billed under `catalog`: EnergySpec's defaults, then the
/// catalog's electricity price and PUE, then the scenario's `pricing:` overrides.
job::EnergySpec energy_spec(const PriceCatalog& catalog, const PricingSpec& spec);

/// Lower-cases and drops '-', '_', ' ' and '.': "A100-80G" == "a100 80g".
std::string normalize_gpu_name(std::string_view s);

}  // namespace flopcast::pricing

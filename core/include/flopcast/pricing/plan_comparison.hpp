#pragma once
/// Every plan (and mix of plans) of a catalog billed for the same run at its P50 and P90 GPU
/// span, and the cheapest marked.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/pricing/bill.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/pricing/pricing_spec.hpp"

namespace flopcast::pricing {

/// A way to pay for the run: one plan, or whole units of a long plan plus a short plan for
/// the rest (`overflow` set). The plan pointers point into the catalog: valid while it lives.
struct PlanOption {
  std::string id;  ///< plan id, or "<long>+<short>"
  std::string label;
  const Plan* plan = nullptr;        ///< the plan, or the committed plan of a mix
  const Plan* overflow = nullptr;    ///< the plan for time beyond the committed units
  std::int64_t committed_units = 0;  ///< mixes: units of `plan` paid upfront
};

/// Bill an option (dispatches to bill_plan or bill_mix).
Bill bill_option(const PriceCatalog& catalog, const PlanOption& option, const BillUsage& usage,
                 const BillOptions& options = {});

/// One row of the comparison.
struct ComparisonRow {
  PlanOption option;
  Bill p50;  ///< bill at the P50 run
  Bill p90;  ///< bill at the P90 run
  bool cheapest = false;
};

/// Comparison settings.
struct CompareOptions {
  BillOptions bill;
  std::vector<std::string> plan_ids;  ///< plans to compare; empty = every plan for the GPU
  /// Add mixes: for each pair of plans naming the GPU with a longer and a shorter billing
  /// unit, commit floor or ceil(P50 span / long unit) long units (whichever bills less at P50,
  /// then at P90) and bill the rest under the short plan.
  bool mixes = true;
  /// Only plans that name the GPU: leaves out "*" plans (the source did not say which GPU),
  /// whose price cannot be assumed for every GPU type (the planner compares GPU types).
  bool named_gpu_only = false;
};

/// The comparison a scenario's `pricing:` block asks for: its currency (when given), new-user
/// credit, add-ons, plan ids and mixes.
CompareOptions compare_options(const PricingSpec& pricing);

/// The comparison table.
struct PlanComparison {
  units::Currency currency;
  std::vector<ComparisonRow> rows;      ///< plans in catalog order, then mixes
  std::optional<std::size_t> cheapest;  ///< lowest P50 total, then lowest P90 total, then first
  /// The same among the plans the provider's quote recommends: its own offers, list and contract
  /// prices (competitors' plans, spot prices and assumptions left out; quote.hpp: quoted_kind).
  std::optional<std::size_t> cheapest_offered;
  std::vector<std::string> errors;  ///< unknown plan ids, plans for another GPU
  std::vector<std::string> notes;
};

/// Bills every selected plan of `catalog` for `gpu_names` (the GPU's catalog name and
/// aliases) at the P50 and P90 usage. Deposits are refundable and do not count.
PlanComparison compare_plans(const PriceCatalog& catalog, const std::vector<std::string>& gpu_names,
                             const BillUsage& p50, const BillUsage& p90, const CompareOptions& options = {});

/// What the run has cost after each point of its calendar under one option: the bill of the
/// usage cut at `span` (GPU time, restart idle and storage up to then; the debug phase and
/// once-only add-ons from the start). Shows a monthly plan's whole-unit steps against an
/// hourly plan's line.
struct CostPoint {
  units::Time span;    ///< paid GPU time so far
  units::Money total;  ///< the bill if the run stopped there
};
/// `points` + 1 evenly spaced points from 0 to `usage.gpu_span` (inclusive), each billed
/// exactly; points whose bill fails are left out.
std::vector<CostPoint> cost_over_calendar(const PriceCatalog& catalog, const PlanOption& option, const BillUsage& usage,
                                          int points, const BillOptions& options = {});

}  // namespace flopcast::pricing

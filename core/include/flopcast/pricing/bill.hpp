#pragma once
/// The bill of a run under one plan, or under a mix of two plans (whole units of a long plan,
/// then a short plan for the rest). Money is exact: each line is computed in micro-units of
/// the plan's currency, converted with the catalog's stated rate when the bill is in another
/// currency, and rounded once, half away from zero, to the minor unit. The total is the sum
/// of the rounded lines, so the bill adds up as printed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/job/job_result.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/units/money.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::pricing {

/// What a run used: the input of a bill.
struct BillUsage {
  units::Time gpu_span;      ///< paid GPU time: GPUs ready -> last step (restarts included)
  units::Time restart_idle;  ///< part of gpu_span spent restarting after failures (billed, idle)
  std::int64_t gpus = 0;     ///< GPUs rented
  units::Time debug_phase;   ///< CPU-only debug phase before training (0 = none)
  units::Bytes storage;      ///< checkpoint storage kept for the span (0 = none)
};

/// The usage of trial `trial` of a simulated run, keeping `checkpoints_kept` checkpoints.
BillUsage usage_of_trial(const job::JobResult& job, std::size_t trial, int checkpoints_kept);

/// What a line of a bill is for.
enum class LineKind {
  GpuTime,     ///< GPU time of one plan, in billed units
  Discount,    ///< commitment discount (negative)
  AddOn,       ///< an add-on of the plan (RDMA, setup fee; zero when included)
  Storage,     ///< checkpoint storage per GB-month
  DebugPhase,  ///< CPU instance hours of the debug phase
  Credit,      ///< new-user credit (negative, at most the subtotal)
  Info,        ///< informational: part of a line above, not added to the total
};

/// One line of a bill.
struct LineItem {
  LineKind kind = LineKind::GpuTime;
  std::string label;       ///< "GPU time, A100 80G hourly"
  std::string quantity;    ///< "8 GPU x 100 hour"
  std::string unit_price;  ///< "6.80 CNY / GPU-hour" as the catalog states it
  units::Money amount;     ///< in the bill's currency
  bool in_total = true;    ///< false for Info lines
  std::string note;        ///< e.g. "converted at 1 USD = 7.2 CNY"
  /// The line as numbers, when its amount is exactly quantity x unit price rounded to the minor
  /// unit (whole billed units, priced in the bill's currency): a spreadsheet then shows the
  /// product as a formula. Empty `unit` when the line is not such a product (discount, credit,
  /// prorated or converted lines, storage): the amount stands alone.
  double quantity_value = 0;
  std::string unit;                   ///< "GPU-hour", "node-month", "hour", "once"
  std::int64_t unit_price_micro = 0;  ///< per `unit`, in micro-units of the bill's currency
};

/// A bill in one currency.
struct Bill {
  std::string option_id;  ///< plan id, or "<long>+<short>" for a mix
  std::string label;      ///< human description of the option
  units::Currency currency;
  std::vector<LineItem> items;
  units::Money total;           ///< sum of the lines with in_total
  units::Money deposit;         ///< refundable deposits, due upfront; not part of the total
  units::Time used_gpu_time;    ///< the usage's gpu_span
  units::Time billed_gpu_time;  ///< time the GPU lines pay for (>= used: rounding, minimum term)
  std::vector<std::string> notes;
  std::vector<std::string> errors;  ///< e.g. no stated exchange rate: the bill is not usable
  bool ok() const { return errors.empty(); }
};

/// Bill settings.
struct BillOptions {
  std::optional<units::Currency> currency;  ///< bill currency; default the catalog's
  bool new_user = false;                    ///< deduct the catalog's new-user credit
  std::vector<std::string> add_ons;         ///< ids of optional add-ons to include
};

/// The bill of `usage` under `plan` alone: GPU time for the whole span (started units billed
/// whole unless the plan is prorated; at least the minimum term), discount, add-ons, storage,
/// debug phase, credit; informational lines for the idle restart time and the billed but
/// unused time, both included in the GPU time.
Bill bill_plan(const PriceCatalog& catalog, const Plan& plan, const BillUsage& usage, const BillOptions& options = {});

/// The bill of `usage` under a mix: `committed_units` (>= the plan's minimum term) of
/// `committed` paid whatever happens, and the span beyond them under `overflow` (nothing when
/// the run ends within the committed units). Storage add-ons come from the committed plan.
Bill bill_mix(const PriceCatalog& catalog, const Plan& committed, std::int64_t committed_units, const Plan& overflow,
              const BillUsage& usage, const BillOptions& options = {});

}  // namespace flopcast::pricing

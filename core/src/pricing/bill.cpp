#include "flopcast/pricing/bill.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "flopcast/units/assert.hpp"
#include "flopcast/units/format.hpp"

namespace flopcast::pricing {
namespace {

constexpr std::int64_t kHourNs = 3'600'000'000'000;
constexpr std::int64_t kBasisPointsPerOne = 10'000;
constexpr double kBytesPerGb = 1e9;           // GB = 1e9 B (docs/references.md, Conventions)
constexpr std::int64_t kHoursPerMonth = 720;  // billing_unit_length(Month)

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  if (a <= 0) return 0;
  return a / b + (a % b != 0 ? 1 : 0);
}

std::string count_str(std::int64_t n, const char* what) { return std::to_string(n) + ' ' + what; }

/// "GPU-hour", "node-month".
std::string per_unit(PriceBasis basis, BillingUnit unit) {
  return std::string(basis == PriceBasis::PerGpu ? "GPU-" : "node-") + to_string(unit);
}

std::int64_t nodes_for(std::int64_t gpus, int gpus_per_node) {
  return ceil_div(gpus, gpus_per_node > 0 ? gpus_per_node : 1);
}

/// One plan's share of a bill: the span it covers and the units it bills.
struct Part {
  const Plan* plan = nullptr;
  units::Time cover;                        ///< used time this part pays for
  std::optional<std::int64_t> fixed_units;  ///< committed units of a mix
  std::string role;                         ///< "", "committed", "overflow"
};

/// Collects lines in the bill's currency.
class BillBuilder {
 public:
  BillBuilder(const PriceCatalog& catalog, const BillUsage& usage, const BillOptions& options)
      : catalog_(catalog), usage_(usage), options_(options) {
    bill_.currency = options.currency.value_or(catalog.currency);
    bill_.total = units::Money::zero(bill_.currency);
    bill_.deposit = units::Money::zero(bill_.currency);
    gpu_total_ = units::Money::zero(bill_.currency);
    bill_.used_gpu_time = usage.gpu_span;
  }

  /// Converts `micro` of `from` into the bill currency and rounds to the minor unit.
  std::optional<units::Money> to_bill(std::int64_t micro, units::Currency from, std::string* note) {
    const auto converted = convert_micro(catalog_, micro, from, bill_.currency);
    if (!converted) {
      const std::string err = "no exchange rate between " + from.str() + " and " + bill_.currency.str() +
                              " in catalog '" + catalog_.name + "'";
      if (std::find(bill_.errors.begin(), bill_.errors.end(), err) == bill_.errors.end()) bill_.errors.push_back(err);
      return std::nullopt;
    }
    if (note != nullptr && !(from == bill_.currency)) {
      const units::FxRate* r = catalog_.fx_between(from, bill_.currency);
      *note = units::format_micro(micro) + ' ' + from.str() + " converted at " + r->str();
    }
    return units::Money::of_micro(*converted, bill_.currency);
  }

  void add(LineKind kind, std::string label, std::string quantity, std::string unit_price, std::int64_t micro,
           units::Currency from, std::string note = {}) {
    std::string fx_note;
    const auto amount = to_bill(micro, from, &fx_note);
    if (!amount) return;
    LineItem item;
    item.kind = kind;
    item.label = std::move(label);
    item.quantity = std::move(quantity);
    item.unit_price = std::move(unit_price);
    item.amount = *amount;
    item.in_total = kind != LineKind::Info;
    item.note = note.empty() ? fx_note : (fx_note.empty() ? note : note + "; " + fx_note);
    if (kind == LineKind::GpuTime) gpu_total_ += item.amount;
    bill_.items.push_back(std::move(item));
    just_added_ = bill_.items.size();
  }

  /// Marks the line just added as `quantity` x `price` per `unit` (LineItem::quantity_value)
  /// when that product is its amount exactly: the price is in the bill's currency.
  void as_product(std::int64_t quantity, std::string unit, const units::PriceRate& price) {
    if (just_added_ != bill_.items.size() || !(price.currency == bill_.currency)) return;
    LineItem& item = bill_.items.back();
    item.quantity_value = static_cast<double>(quantity);
    item.unit = std::move(unit);
    item.unit_price_micro = price.micro;
  }

  void bill_part(const Part& part) {
    const Plan& plan = *part.plan;
    const units::Time unit = billing_unit_length(plan.unit);
    const std::int64_t gpus = usage_.gpus;
    const std::int64_t nodes = nodes_for(gpus, plan.gpus_per_node);
    const bool per_gpu = plan.basis == PriceBasis::PerGpu;
    const std::int64_t count = per_gpu ? gpus : nodes;
    if (!per_gpu && gpus % std::max(1, plan.gpus_per_node) != 0) {
      bill_.notes.push_back(std::to_string(gpus) + " GPUs take " + std::to_string(nodes) + " nodes of " +
                            std::to_string(plan.gpus_per_node) + " in plan '" + plan.id +
                            "': the last node is partly idle but billed whole");
    }

    // Billed time: whole units (fixed, or started units), or prorated; at least the minimum term.
    const units::Time minimum = units::Time{units::checked_mul(unit.ns, plan.minimum_units)};
    std::int64_t units = 0;  // whole units billed (StartedUnit or fixed)
    units::Time billed;
    const bool prorated = plan.rounding == Rounding::Prorated && !part.fixed_units;
    if (part.fixed_units) {
      units = *part.fixed_units;
      billed = units::Time{units::checked_mul(unit.ns, units)};
    } else if (!prorated) {
      units = std::max(ceil_div(part.cover.ns, unit.ns), plan.minimum_units);
      billed = units::Time{units::checked_mul(unit.ns, units)};
    } else {
      billed = std::max(part.cover, minimum);
    }
    billed_gpu_ += billed;
    // Amount for `price_micro` per counted thing per unit over the billed time.
    auto over_billed = [&](std::int64_t price_micro, std::int64_t things) {
      const std::int64_t per_unit_all = units::checked_mul(price_micro, things);
      return prorated ? units::mul_div_round(per_unit_all, billed.ns, unit.ns)
                      : units::checked_mul(per_unit_all, units);
    };
    const std::string units_str =
        prorated ? units::format_decimal(static_cast<double>(billed.ns) / static_cast<double>(unit.ns), 4)
                 : std::to_string(units);
    const std::string what = per_gpu ? "GPU" : "node";
    std::string label = "GPU time, " + (plan.name.empty() ? plan.id : plan.name);
    if (!part.role.empty()) label += " (" + part.role + ")";
    std::string note;
    if (!part.fixed_units && plan.minimum_units > 1 && part.cover < minimum)
      note = "minimum term " + std::to_string(plan.minimum_units) + ' ' + to_string(plan.unit);
    const std::int64_t gpu_micro = over_billed(plan.price.micro, count);
    add(LineKind::GpuTime, label, count_str(count, what.c_str()) + " x " + units_str + ' ' + to_string(plan.unit),
        plan.price.str() + " / " + per_unit(plan.basis, plan.unit), gpu_micro, plan.price.currency, note);
    if (!prorated) as_product(units::checked_mul(count, units), what + "-" + to_string(plan.unit), plan.price);

    if (plan.discount_bp > 0 && !prorated && units >= plan.discount_min_units) {
      add(LineKind::Discount,
          "Commitment discount " + units::format_decimal(static_cast<double>(plan.discount_bp) / 100.0, 4) + " %",
          ">= " + std::to_string(plan.discount_min_units) + ' ' + to_string(plan.unit), {},
          -units::mul_div_round(gpu_micro, plan.discount_bp, kBasisPointsPerOne), plan.price.currency);
    }

    for (const AddOn& a : plan.add_ons) {
      if (!selected(a) || a.kind == AddOnKind::StorageGbMonth) continue;
      const std::string name = a.name.empty() ? a.id : a.name;
      if (a.included) {
        add(LineKind::AddOn, name, "included", {}, 0, a.price.currency, a.note);
        continue;
      }
      switch (a.kind) {
        case AddOnKind::PerGpuUnit:
          add(LineKind::AddOn, name, count_str(gpus, "GPU") + " x " + units_str + ' ' + to_string(plan.unit),
              a.price.str() + " / GPU-" + to_string(plan.unit), over_billed(a.price.micro, gpus), a.price.currency,
              a.note);
          if (!prorated)
            as_product(units::checked_mul(gpus, units), std::string("GPU-") + to_string(plan.unit), a.price);
          break;
        case AddOnKind::PerNodeUnit:
          add(LineKind::AddOn, name, count_str(nodes, "node") + " x " + units_str + ' ' + to_string(plan.unit),
              a.price.str() + " / node-" + to_string(plan.unit), over_billed(a.price.micro, nodes), a.price.currency,
              a.note);
          if (!prorated)
            as_product(units::checked_mul(nodes, units), std::string("node-") + to_string(plan.unit), a.price);
          break;
        case AddOnKind::Once:
          add(LineKind::AddOn, name, "once", a.price.str(), a.price.micro, a.price.currency, a.note);
          as_product(1, "once", a.price);
          break;
        case AddOnKind::StorageGbMonth:
          break;
      }
    }

    // A deposit is per contract: count each plan once.
    if (std::find(deposit_plans_.begin(), deposit_plans_.end(), &plan) == deposit_plans_.end()) {
      deposit_plans_.push_back(&plan);
      if (plan.deposit.minor != 0) {
        if (auto d = to_bill(plan.deposit.micro(), plan.deposit.currency, nullptr)) bill_.deposit += *d;
      }
    }
  }

  void bill_storage(const Plan& plan) {
    if (usage_.storage.value <= 0.0) return;
    bool priced = false;
    for (const AddOn& a : plan.add_ons) {
      if (!selected(a) || a.kind != AddOnKind::StorageGbMonth) continue;
      priced = true;
      // Started GB and started hours are billed whole; a month is 720 h.
      const auto gb = static_cast<std::int64_t>(std::ceil(usage_.storage.value / kBytesPerGb - 1e-9));
      const std::int64_t hours = std::max<std::int64_t>(1, ceil_div(usage_.gpu_span.ns, kHourNs));
      const std::string name = a.name.empty() ? a.id : a.name;
      if (a.included) {
        add(LineKind::Storage, name, "included", {}, 0, a.price.currency, a.note);
        continue;
      }
      add(LineKind::Storage, name,
          std::to_string(gb) + " GB x " + std::to_string(hours) + " h (" +
              units::format_decimal(static_cast<double>(hours) / kHoursPerMonth, 4) + " month)",
          a.price.str() + " / GB-month",
          units::mul_div_round(units::checked_mul(a.price.micro, gb), hours, kHoursPerMonth), a.price.currency, a.note);
    }
    if (!priced) {
      // One decimal from 10 GB up (a 70B model's checkpoints: 1975.5 GB), three below (a LoRA
      // adapter's: 1.248 GB for Llama 2 70B's).
      const double gb = usage_.storage.value / kBytesPerGb;
      bill_.notes.push_back("checkpoint storage (" + units::format_decimal(gb, gb >= 10.0 ? 1 : 3) +
                            " GB) is not priced by plan '" + plan.id + "'");
    }
  }

  void bill_debug() {
    if (usage_.debug_phase.ns <= 0) return;
    if (catalog_.cpu_instances.empty()) {
      bill_.notes.push_back("debug phase not priced: catalog '" + catalog_.name + "' lists no CPU instance");
      return;
    }
    const CpuInstance& cpu = catalog_.cpu_instances.front();
    const std::int64_t hours = std::max(ceil_div(usage_.debug_phase.ns, kHourNs), cpu.minimum_hours);
    add(LineKind::DebugPhase, "Debug phase, " + (cpu.name.empty() ? cpu.id : cpu.name), count_str(hours, "hour"),
        cpu.per_hour.str() + " / hour", units::checked_mul(cpu.per_hour.micro, hours), cpu.per_hour.currency, cpu.note);
    as_product(hours, "hour", cpu.per_hour);
  }

  void bill_credit() {
    if (!options_.new_user || !catalog_.new_user_credit) return;
    const Credit& c = *catalog_.new_user_credit;
    std::string fx_note;
    const auto credit = to_bill(c.amount.micro(), c.amount.currency, &fx_note);
    if (!credit) return;
    units::Money subtotal = units::Money::zero(bill_.currency);
    for (const LineItem& i : bill_.items)
      if (i.in_total) subtotal += i.amount;
    const std::int64_t used = std::clamp<std::int64_t>(subtotal.minor, 0, credit->minor);
    LineItem item;
    item.kind = LineKind::Credit;
    item.label = "New-user credit";
    item.quantity = "once";
    item.unit_price = c.amount.str();
    item.amount = units::Money{-used, bill_.currency};
    item.note = used < credit->minor ? "capped at the subtotal" : c.note;
    if (!fx_note.empty()) item.note += (item.note.empty() ? "" : "; ") + fx_note;
    bill_.items.push_back(std::move(item));
  }

  /// Informational lines: how much of the GPU time paid for idle restarts and for time
  /// billed but not used (rounding up, minimum term), at the bill's average GPU rate.
  void bill_info() {
    if (billed_gpu_.ns <= 0 || gpu_total_.minor == 0) return;
    bill_.billed_gpu_time = billed_gpu_;
    const units::Time idle = std::min(usage_.restart_idle, usage_.gpu_span);
    if (idle.ns > 0) {
      LineItem item;
      item.kind = LineKind::Info;
      item.label = "of which idle during restarts";
      item.quantity = units::format_hours_or_minutes(idle) + " x " + std::to_string(usage_.gpus) + " GPU";
      item.amount = units::Money{units::mul_div_round(gpu_total_.minor, idle.ns, billed_gpu_.ns), bill_.currency};
      item.in_total = false;
      item.note = "included in GPU time";
      bill_.items.push_back(std::move(item));
    }
    const units::Time unused = billed_gpu_ - usage_.gpu_span;
    if (unused.ns > 0) {
      LineItem item;
      item.kind = LineKind::Info;
      item.label = "of which billed but unused (rounding up, minimum term)";
      item.quantity = units::format_hours_or_minutes(unused);
      item.amount = units::Money{units::mul_div_round(gpu_total_.minor, unused.ns, billed_gpu_.ns), bill_.currency};
      item.in_total = false;
      item.note = "included in GPU time";
      bill_.items.push_back(std::move(item));
    }
  }

  Bill finish() {
    bill_info();
    bill_.billed_gpu_time = billed_gpu_;
    for (const LineItem& i : bill_.items)
      if (i.in_total) bill_.total += i.amount;
    return std::move(bill_);
  }

  Bill& bill() { return bill_; }

 private:
  bool selected(const AddOn& a) const {
    return !a.optional || std::find(options_.add_ons.begin(), options_.add_ons.end(), a.id) != options_.add_ons.end();
  }

  const PriceCatalog& catalog_;
  const BillUsage& usage_;
  const BillOptions& options_;
  Bill bill_;
  units::Money gpu_total_;
  std::size_t just_added_ = 0;  ///< items.size() right after add() pushed a line
  units::Time billed_gpu_;
  std::vector<const Plan*> deposit_plans_;
};

Bill build(const PriceCatalog& catalog, const std::vector<Part>& parts, const BillUsage& usage,
           const BillOptions& options, std::string id, std::string label) {
  BillBuilder b(catalog, usage, options);
  b.bill().option_id = std::move(id);
  b.bill().label = std::move(label);
  if (usage.gpus <= 0) {
    b.bill().errors.push_back("no GPUs to bill");
    return b.finish();
  }
  for (const Part& p : parts) b.bill_part(p);
  b.bill_storage(*parts.front().plan);
  b.bill_debug();
  b.bill_credit();
  return b.finish();
}

}  // namespace

BillUsage usage_of_trial(const job::JobResult& job, std::size_t trial, int checkpoints_kept) {
  FLOPCAST_ASSERT(trial < job.samples.size(), "trial index out of range");
  const job::JobTrial& t = job.samples[trial];
  BillUsage u;
  u.gpu_span = t.gpu_span;
  u.restart_idle = t.restart;
  u.gpus = job.gpus;
  u.debug_phase = job.debug_phase;
  u.storage = job.checkpoint_size * static_cast<double>(std::max(0, checkpoints_kept));
  return u;
}

Bill bill_plan(const PriceCatalog& catalog, const Plan& plan, const BillUsage& usage, const BillOptions& options) {
  Part part;
  part.plan = &plan;
  part.cover = usage.gpu_span;
  return build(catalog, {part}, usage, options, plan.id, plan.name.empty() ? plan.id : plan.name);
}

Bill bill_mix(const PriceCatalog& catalog, const Plan& committed, std::int64_t committed_units, const Plan& overflow,
              const BillUsage& usage, const BillOptions& options) {
  const std::int64_t units = std::max(committed_units, committed.minimum_units);
  const units::Time committed_time{units::checked_mul(billing_unit_length(committed.unit).ns, units)};
  std::vector<Part> parts;
  Part first;
  first.plan = &committed;
  first.cover = std::min(usage.gpu_span, committed_time);
  first.fixed_units = units;
  first.role = "committed";
  parts.push_back(first);
  if (usage.gpu_span > committed_time) {
    Part rest;
    rest.plan = &overflow;
    rest.cover = usage.gpu_span - committed_time;
    rest.role = "overflow";
    parts.push_back(rest);
  }
  const std::string label = (committed.name.empty() ? committed.id : committed.name) + " x " + std::to_string(units) +
                            ' ' + to_string(committed.unit) + " + " +
                            (overflow.name.empty() ? overflow.id : overflow.name) + " for the rest";
  return build(catalog, parts, usage, options, committed.id + '+' + overflow.id, label);
}

}  // namespace flopcast::pricing

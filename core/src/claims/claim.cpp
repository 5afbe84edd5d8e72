#include "flopcast/claims/claim.hpp"

#include <array>

namespace flopcast::claims {
namespace {
constexpr std::array<std::pair<ClaimKind, const char*>, 6> kKinds{{{ClaimKind::Training, "training"},
                                                                   {ClaimKind::Price, "price"},
                                                                   {ClaimKind::Collective, "collective"},
                                                                   {ClaimKind::Hardware, "hardware"},
                                                                   {ClaimKind::Energy, "energy"},
                                                                   {ClaimKind::Checkpoint, "checkpoint"}}};
}  // namespace

const char* to_string(ClaimKind k) {
  for (const auto& [kind, name] : kKinds)
    if (kind == k) return name;
  return "training";
}

std::optional<ClaimKind> parse_claim_kind(std::string_view s) {
  for (const auto& [kind, name] : kKinds)
    if (s == name) return kind;
  return std::nullopt;
}

const char* to_string(Dimension d) {
  switch (d) {
    case Dimension::Time:
      return "time";
    case Dimension::Bandwidth:
      return "bandwidth";
    case Dimension::Bytes:
      return "size";
    case Dimension::FlopRate:
      return "compute rate";
    case Dimension::Power:
      return "power";
    case Dimension::Fraction:
      return "percentage";
    case Dimension::Ratio:
      return "ratio";
    case Dimension::Count:
      return "number";
    case Dimension::Money:
      return "amount of money";
    case Dimension::Price:
      return "price";
  }
  return "number";
}

const char* to_string(PriceFigure f) {
  switch (f) {
    case PriceFigure::Rate:
      return "rate";
    case PriceFigure::Total:
      return "total";
    case PriceFigure::Saving:
      return "saving";
    case PriceFigure::CreditHours:
      return "credit_hours";
    case PriceFigure::RunCost:
      return "run_cost";
    case PriceFigure::Purchase:
      return "purchase";
  }
  return "rate";
}

std::string ClaimedPrice::per() const {
  return std::string(basis == pricing::PriceBasis::PerGpu ? "GPU-" : "node-") + pricing::to_string(unit);
}

std::string ScenarioRef::key() const {
  std::string k = path;
  for (const auto& [key, value] : set) k += "\n" + key + "=" + value;
  return k;
}

std::string PriceOption::id() const {
  if (plan) return plan->id;
  if (cpu) return cpu->id;
  return "";
}

}  // namespace flopcast::claims

#include "flopcast/claims/verdict.hpp"

#include "flopcast/claims/scenario_runner.hpp"

#include <fmt/format.h>

#include <cmath>

namespace flopcast::claims {

const char* to_string(VerdictKind k) {
  switch (k) {
    case VerdictKind::Holds:
      return "holds";
    case VerdictKind::Optimistic:
      return "optimistic";
    case VerdictKind::Pessimistic:
      return "pessimistic";
    case VerdictKind::Contradicts:
      return "contradicts";
    case VerdictKind::Impossible:
      return "impossible";
    case VerdictKind::CannotJudge:
      return "cannot be judged";
  }
  return "cannot be judged";
}

std::string percent_text(double percent) { return fmt::format("{:.0f}%", percent); }

std::string Verdict::word() const {
  switch (kind) {
    case VerdictKind::Optimistic:
    case VerdictKind::Pessimistic:
      return std::string(to_string(kind)) + " by " + percent_text(percent);
    case VerdictKind::Contradicts: {
      std::string s = "contradicts";
      for (std::size_t i = 0; i < others.size(); ++i) s += (i == 0 ? " " : ", ") + others[i];
      return s;
    }
    default:
      return to_string(kind);
  }
}

std::string Verdict::line() const { return reason.empty() ? word() : word() + ": " + reason; }

std::string TrainingCheck::text() const {
  std::string s = verdict.line();
  for (const auto& n : verdict.notes) s += " (" + n + ")";
  return s;
}

Verdict compare(double claimed, double computed, Better better, Bound bound) {
  Verdict v;
  if (!std::isfinite(claimed) || !std::isfinite(computed)) return v;  // CannotJudge
  if (better == Better::Lower && claimed <= 0.0) {
    // "restart from the last step" (0 s lost): holds only when nothing is computed either.
    v.kind = computed <= 0.0 ? VerdictKind::Holds : VerdictKind::Impossible;
    return v;
  }
  if (better == Better::Higher && computed <= 0.0) {
    v.kind = claimed <= 0.0 ? VerdictKind::Holds : VerdictKind::Impossible;
    return v;
  }
  // ratio > 1: the claim promises more than flopcast computes (simulate's check, app/evaluation).
  const double ratio = better == Better::Higher ? claimed / computed : computed / claimed;
  const bool bounded_ok =
      (bound == Bound::AtMost && better == Better::Lower) || (bound == Bound::AtLeast && better == Better::Higher);
  if (ratio > 1.0 + kTolerance) {
    v.kind = VerdictKind::Optimistic;
    v.percent = (ratio - 1.0) * 100.0;
  } else if (ratio < 1.0 - kTolerance && !bounded_ok) {
    v.kind = VerdictKind::Pessimistic;
    v.percent = (1.0 - ratio) * 100.0;
  } else {
    v.kind = VerdictKind::Holds;
  }
  return v;
}

}  // namespace flopcast::claims

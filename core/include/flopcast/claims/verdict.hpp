#pragma once
/// A verdict on a claim: exactly one of holds, optimistic/pessimistic by N%, contradicts
/// another claim, impossible, or cannot be judged; always with the figure flopcast computes
/// and one line saying how, in units a buyer can follow.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/claims/claimed_value.hpp"

namespace flopcast::claims {

/// The verdict words.
enum class VerdictKind {
  Holds,        ///< within the tolerance of what flopcast computes
  Optimistic,   ///< better for the buyer than flopcast computes, by `percent`
  Pessimistic,  ///< worse for the buyer than flopcast computes, by `percent`
  Contradicts,  ///< cannot be true together with the claims in `others`
  Impossible,   ///< no setup can reach it: `reason` gives the physical or arithmetic cause
  CannotJudge,  ///< something is missing: `reason` says what
};

/// "holds", "optimistic", "pessimistic", "contradicts", "impossible", "cannot be judged".
const char* to_string(VerdictKind k);

/// Relative tolerance within which a claim holds: 10%. The one tolerance of every verdict:
/// `flopcast check`, the Claims tab, and the `claimed:` figures `flopcast simulate` and
/// `flopcast quote` check (app/evaluation.hpp judges them with compare() below).
inline constexpr double kTolerance = 0.10;

/// Which way is better for the one who buys or relies on the figure.
enum class Better {
  Higher,  ///< throughput, bandwidth, peak FLOP/s, memory, a saving, hours a credit buys
  Lower,   ///< latency, time, price, power, memory needed
};

/// The figure flopcast computes for a claim.
struct ComputedFigure {
  bool known = false;  ///< false when nothing could be computed
  double value = 0.0;  ///< in `unit`
  std::string unit;    ///< "us", "Gbps", "TFLOP/s", "CNY/GPU-hour", "%", "s"
  std::string text;    ///< as printed: "16.6 us", "192.0 Gbps (24.00 GB/s)"
};

/// A verdict.
struct Verdict {
  VerdictKind kind = VerdictKind::CannotJudge;
  double percent = 0.0;             ///< Optimistic / Pessimistic: by how much, in percent
  std::vector<std::string> others;  ///< Contradicts: ids of the claims (or catalog entries) it contradicts
  std::string reason;  ///< the arithmetic (Contradicts), the cause (Impossible), what is missing (CannotJudge)
  ComputedFigure figure;
  std::string how;                 ///< one line: how `figure` is computed, with units
  std::vector<std::string> notes;  ///< traps named, assumptions, figures for scale

  /// "holds", "optimistic by 105%", "pessimistic by 11%", "contradicts a100-hourly",
  /// "impossible", "cannot be judged".
  std::string word() const;
  /// word() and, when there is one, ": " and the reason: "impossible: MFU above 100%".
  std::string line() const;
};

/// Holds, optimistic or pessimistic: the claimed figure against the computed one, both in
/// the same units, with the tolerance kTolerance. `bound` AtMost / AtLeast claims ("< 3 us")
/// hold when the computed figure is on the claimed side (or within the tolerance of it).
/// A claimed zero that should be lower-is-better and a computed figure above zero is
/// Impossible ("no setup reaches 0"). Fills kind and percent only.
Verdict compare(double claimed, double computed, Better better, Bound bound = Bound::Exact);

/// "105%" (whole percent, as `simulate` prints its verdicts).
std::string percent_text(double percent);

}  // namespace flopcast::claims

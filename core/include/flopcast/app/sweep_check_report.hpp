#pragma once
/// The text `flopcast sweep --check` and `flopcast merge --check` print: first what changed in the
/// base scenario ("base scenario: training.tokens baseline 5B now 10B"), then one line per finding,
/// regressions first, then improvements, new figures and changes without a direction, each line
/// starting with its kind ("regression: point 4 (parallel.tp=2): step_time_s baseline 7.10 now
/// 7.40 (+4.2%, lower is better)"), then a summary line. Differences are signed: + is up, - down.
#include <cstddef>
#include <optional>
#include <string>

#include "flopcast/sweep/sweep_check.hpp"

namespace flopcast::app {

/// The report of `cr` (a check of `current` against `baseline`); at most `max_lines` lines of
/// each kind, the rest counted ("... and 1,234 more regressions"). Errors are not part of it.
std::string sweep_check_text(const sweep::CheckResult& cr, const std::string& current, const std::string& baseline,
                             std::size_t max_lines = 200);

/// --check's relative tolerance when neither flag is given: 2 %, the README's CI example.
inline constexpr double kDefaultCheckRtol = 0.02;

/// The relative tolerance of --check from its two spellings: `tolerance` a percentage ("2%"),
/// `rtol` a fraction ("0.02"); both "" gives the default. nullopt with `error` naming the flag
/// and the fix when they are wrong: both given, a percent sign on --rtol, a negative or
/// malformed number, and a bare --tolerance number ("--tolerance 2" once meant 200%).
std::optional<double> check_tolerance(const std::string& tolerance, const std::string& rtol, std::string& error);

}  // namespace flopcast::app

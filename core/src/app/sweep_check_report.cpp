#include "flopcast/app/sweep_check_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "flopcast/units/format.hpp"

namespace flopcast::app {
namespace {

using sweep::Better;
using sweep::Change;
using sweep::CheckFinding;

const char* kind_word(Change c) {
  switch (c) {
    case Change::Regression:
      return "regression";
    case Change::Improvement:
      return "improvement";
    case Change::New:
      return "new";
    case Change::Changed:
      break;
  }
  return "changed";
}

/// "regressions", "improvements", "new figures", "changes" (or the singular).
std::string kind_plural(Change c, std::int64_t n) {
  const bool one = n == 1;
  switch (c) {
    case Change::Regression:
      return one ? "regression" : "regressions";
    case Change::Improvement:
      return one ? "improvement" : "improvements";
    case Change::New:
      return one ? "new figure" : "new figures";
    case Change::Changed:
      break;
  }
  return one ? "change" : "changes";
}

/// The words after "baseline X now Y": the signed difference and why it is good or bad.
std::string explanation(const CheckFinding& f) {
  if (f.column == "(row)")
    return f.change == Change::Regression ? "the point's row is missing now" : "the point is not in the baseline";
  if (f.change == Change::New) return "empty in the baseline";
  if (f.current.empty()) return "the figure is gone";
  if (f.column == "feasible" && (f.change == Change::Regression || f.change == Change::Improvement))
    return f.change == Change::Regression ? "the plan no longer fits" : "the plan fits now";
  const char* better = sweep::better_name(f.better);
  const std::string dir = *better ? fmt::format("{} is better", better) : "";
  if (f.relative) {
    const std::string pct = fmt::format("{}{}%", *f.relative > 0 ? "+" : "", units::format_fixed(100 * *f.relative, 1));
    return dir.empty() ? pct : pct + ", " + dir;
  }
  if (f.baseline == "0" || (f.baseline.find_first_not_of("0.") == std::string::npos && !f.baseline.empty()))
    return dir.empty() ? "from 0" : "from 0, " + dir;
  return dir;
}

std::string finding_line(const CheckFinding& f) {
  std::string what = fmt::format("point {}", f.point);
  if (!f.where.empty()) what += " (" + f.where + ")";
  const auto cell = [](const std::string& v) { return v.empty() ? std::string("empty") : v; };
  std::string line;
  if (f.column == "(row)")
    line = fmt::format("{}: {}", kind_word(f.change), what);
  else if (f.change == Change::New)
    line = fmt::format("{}: {}: {} now {}", kind_word(f.change), what, f.column, f.current);
  else
    line = fmt::format("{}: {}: {} baseline {} now {}", kind_word(f.change), what, f.column, cell(f.baseline),
                       cell(f.current));
  const std::string why = explanation(f);
  return why.empty() ? line : line + " (" + why + ")";
}

}  // namespace

std::string sweep_check_text(const sweep::CheckResult& cr, const std::string& current, const std::string& baseline,
                             std::size_t max_lines) {
  std::string out;
  for (const auto& n : cr.notes) out += "note: " + n + "\n";
  for (const auto& c : cr.base_changes)
    out += fmt::format("base scenario: {} baseline {} now {}\n", c.key, c.in_theirs ? c.theirs : "absent",
                       c.in_ours ? c.ours : "absent");
  for (const Change c : {Change::Regression, Change::Improvement, Change::New, Change::Changed}) {
    std::size_t shown = 0, left = 0;
    for (const auto& f : cr.findings) {
      if (f.change != c) continue;
      if (shown < max_lines) {
        out += finding_line(f) + "\n";
        ++shown;
      } else {
        ++left;
      }
    }
    if (left > 0)
      out += fmt::format("{}: ... and {} more {} (the first {} are listed)\n", kind_word(c),
                         units::format_grouped(static_cast<std::int64_t>(left)),
                         kind_plural(c, static_cast<std::int64_t>(left)), shown);
  }
  std::string counts;
  for (const Change c : {Change::Regression, Change::Improvement, Change::New, Change::Changed}) {
    const std::int64_t n = cr.count(c);
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", units::format_grouped(n), kind_plural(c, n));
  }
  const std::string tol = units::format_decimal(100 * cr.rtol, 4) + "%";
  out += fmt::format("check: {} against {}: {} points compared at {} tolerance: {}", current, baseline,
                     units::format_grouped(cr.compared), tol, counts);
  out += cr.failed() ? " -> fails (regressions beyond the tolerance)\n" : " -> passes (no regression)\n";
  return out;
}

namespace {

/// A finite number >= 0 written in full ("2", "0.5", "1e-3"); nullopt otherwise.
std::optional<double> plain_number(const std::string& t) {
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || !(v >= 0)) return std::nullopt;
  return v;
}

}  // namespace

std::optional<double> check_tolerance(const std::string& tolerance, const std::string& rtol, std::string& error) {
  auto fail = [&](const std::string& message) -> std::optional<double> {
    error = message;
    return std::nullopt;
  };
  if (!tolerance.empty() && !rtol.empty())
    return fail(
        "--tolerance and --rtol both given: give the tolerance once, as a percentage (--tolerance 2%) or "
        "as a fraction (--rtol 0.02)");
  if (!rtol.empty()) {
    if (rtol.back() == '%')
      return fail("--rtol '" + rtol + "': --rtol takes a fraction (--rtol 0.02 is 2%); for a percentage write " +
                  "--tolerance " + rtol);
    const auto v = plain_number(rtol);
    if (!v) return fail("--rtol '" + rtol + "': expected a fraction of at least 0, e.g. --rtol 0.02 for 2%");
    return v;
  }
  if (tolerance.empty()) return kDefaultCheckRtol;
  if (tolerance.back() != '%') {
    if (const auto v = plain_number(tolerance))
      return fail(
          fmt::format("--tolerance '{0}': a bare number is ambiguous (a percentage or a fraction?): write "
                      "--tolerance {0}% for {0} percent, or --rtol {0} for the fraction {0} ({1}%)",
                      tolerance, units::format_decimal(*v * 100, 6)));
    return fail("--tolerance '" + tolerance + "': expected a percentage, e.g. --tolerance 2%");
  }
  const auto v = plain_number(tolerance.substr(0, tolerance.size() - 1));
  if (!v) return fail("--tolerance '" + tolerance + "': expected a percentage of at least 0%, e.g. --tolerance 2%");
  return *v / 100;
}

}  // namespace flopcast::app

#include "flopcast/app/kernel_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace flopcast::app {

namespace {

/// Predicted speed / measured speed of a row: a rate figure as it is, a time inverted.
double speed_ratio(const calibrate::FigureComparison& c) {
  const bool time = c.figure.rfind("time_", 0) == 0 || c.figure.rfind("latency_", 0) == 0;
  return time ? c.measured / c.predicted : c.predicted / c.measured;
}

std::string dtype_text(const calibrate::KernelMeasurement& k) { return k.dtype ? to_string(*k.dtype) : "none"; }

}  // namespace

KernelValidation validate_kernels(const std::vector<calibrate::KernelMeasurement>& kernels,
                                  const compute::ComputeProfile& profile) {
  KernelValidation v;
  for (const auto& k : kernels) {
    std::string why;
    if (auto c = calibrate::compare_kernel(k, profile, why))
      v.rows.push_back({*c, k.kind, k.gpu.name, dtype_text(k)});
    else
      v.not_predicted.push_back({k.id, k.kind, why});
  }
  return v;
}

std::vector<KernelSummary> summarize_kernels(const KernelValidation& v) {
  std::vector<KernelSummary> out;
  auto summary = [&](const std::string& name, auto&& in_group, std::size_t not_predicted) {
    std::vector<double> err, ratio;
    for (const auto& r : v.rows)
      if (in_group(r)) {
        err.push_back(std::fabs(r.comparison.error_pct));
        ratio.push_back(speed_ratio(r.comparison));
      }
    if (err.empty() && not_predicted == 0) return;
    out.push_back({name, err.size(), err.size() + not_predicted, calibrate::quantile(err, 0.5),
                   calibrate::quantile(err, 0.9), ratio.empty() ? 1.0 : calibrate::quantile(ratio, 0.5)});
  };
  for (const auto& name : calibrate::kernel_kind_names()) {
    const calibrate::KernelKind kind = *calibrate::parse_kernel_kind(name);
    const auto missing = static_cast<std::size_t>(std::count_if(
        v.not_predicted.begin(), v.not_predicted.end(), [kind](const KernelSkipped& s) { return s.kind == kind; }));
    summary(
        name, [kind](const KernelRow& r) { return r.kind == kind; }, missing);
  }
  summary(
      "all", [](const KernelRow&) { return true; }, v.not_predicted.size());
  return out;
}

std::string kernel_validation_text(const KernelValidation& v, bool summary_only) {
  std::string out;
  if (!summary_only) {
    out += fmt::format("{:<60} {:<14} {:<8} {:<6} {:<28} {:>10} {:>10} {:>8}\n", "kernel measurement", "kind", "gpu",
                       "dtype", "figure", "measured", "predicted", "error");
    for (const auto& r : v.rows)
      out += fmt::format("{:<60} {:<14} {:<8} {:<6} {:<28} {:>10.4g} {:>10.4g} {:>+7.1f}%\n", r.comparison.id,
                         to_string(r.kind), r.gpu, r.dtype, r.comparison.figure, r.comparison.measured,
                         r.comparison.predicted, r.comparison.error_pct);
    if (!v.not_predicted.empty()) {
      out += fmt::format("\nNot predicted ({}):\n", v.not_predicted.size());
      for (const auto& s : v.not_predicted) out += fmt::format("  {} ({}): {}\n", s.id, to_string(s.kind), s.why);
    }
    out += "\n";
  }
  out += fmt::format("Kernel measurements: {} of {} predicted by the cost layer\n", v.rows.size(), v.entries());
  out += fmt::format("{:<16} {:>9} {:>14} {:>12} {:>16}\n", "kind", "predicted", "median |err|", "p90 |err|",
                     "speed pred/meas");
  for (const auto& s : summarize_kernels(v))
    out += fmt::format("{:<16} {:>4} of {:<3} {:>12.1f}% {:>11.1f}% {:>16.2f}\n", s.name, s.predicted, s.entries,
                       s.median_abs_error_pct, s.p90_abs_error_pct, s.median_speed_ratio);
  return out;
}

nlohmann::ordered_json kernel_validation_json(const KernelValidation& v) {
  nlohmann::ordered_json j;
  j["kernels"] = nlohmann::ordered_json::array();
  for (const auto& r : v.rows)
    j["kernels"].push_back({{"id", r.comparison.id},
                            {"kind", to_string(r.kind)},
                            {"gpu", r.gpu},
                            {"dtype", r.dtype},
                            {"figure", r.comparison.figure},
                            {"measured", r.comparison.measured},
                            {"predicted", r.comparison.predicted},
                            {"error_pct", r.comparison.error_pct}});
  j["kernel_summary"] = nlohmann::ordered_json::object();
  for (const auto& s : summarize_kernels(v))
    j["kernel_summary"][s.name] = {{"predicted", s.predicted},
                                   {"entries", s.entries},
                                   {"median_abs_error_pct", s.median_abs_error_pct},
                                   {"p90_abs_error_pct", s.p90_abs_error_pct},
                                   {"median_speed_ratio", s.median_speed_ratio}};
  j["kernels_not_predicted"] = nlohmann::ordered_json::array();
  for (const auto& s : v.not_predicted)
    j["kernels_not_predicted"].push_back({{"id", s.id}, {"kind", to_string(s.kind)}, {"why", s.why}});
  return j;
}

}  // namespace flopcast::app

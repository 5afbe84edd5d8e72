// Fitting the cost layer's coefficients on kernel measurements (kernel_measurement.hpp).
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <string_view>

#include "flopcast/calibrate/kernel_measurement.hpp"
#include "levenberg_marquardt.hpp"

namespace flopcast::calibrate {

namespace {

/// The logarithm of predicted over measured speed of an entry's figure, or nullopt when the cost
/// layer does not predict it.
std::optional<double> log_speed_ratio(const KernelMeasurement& k, const compute::ComputeProfile& p) {
  std::string why;
  const auto c = compare_kernel(k, p, why);
  if (!c || !(c->predicted > 0) || !(c->measured > 0)) return std::nullopt;
  const bool time = c->figure.rfind("time_", 0) == 0 || c->figure.rfind("latency_", 0) == 0;
  return time ? std::log(c->measured / c->predicted) : std::log(c->predicted / c->measured);
}

/// The logarithm of predicted over measured speed of a collective point's first figure.
std::optional<double> log_speed_ratio(const MeasuredCollective& c, const compute::ComputeProfile& p) {
  std::string why;
  const auto rows = compare_collective(c, p, why);
  if (rows.empty()) return std::nullopt;
  const auto time =
      std::find_if(rows.begin(), rows.end(), [](const FigureComparison& f) { return f.figure == "time_us"; });
  const auto& f = time != rows.end() ? *time : rows.front();
  if (!(f.predicted > 0) || !(f.measured > 0)) return std::nullopt;
  return f.figure == "time_us" ? std::log(f.measured / f.predicted) : std::log(f.predicted / f.measured);
}

/// Cauchy loss as a residual: squared, c^2 log(1 + (e/c)^2); ~e^2 near zero, growing only
/// logarithmically for the entries the model does not explain. c = 0.10 (10%).
double cauchy(double e) {
  constexpr double c = 0.10;
  return std::copysign(c * std::sqrt(std::log1p((e / c) * (e / c))), e);
}

/// `p` with the coefficient `q` at `value`; a tied coefficient set this way is apart (for
/// gemm_fp8, its flag says so).
void set(compute::ComputeProfile& p, const compute::ProfileParameter& q, double value) {
  *q.slot(p) = value;
  constexpr std::string_view fp8 = ".gemm_fp8";
  if (q.name.size() > fp8.size() && q.name.compare(q.name.size() - fp8.size(), fp8.size(), fp8) == 0)
    if (const auto arch = hardware::parse_gpu_arch(q.name.substr(0, q.name.size() - fp8.size())))
      p.of(*arch).fp8_apart = true;
}

struct Summary {
  double median = 0, p90 = 0;
};
Summary summary(const std::vector<KernelMeasurement>& kernels, const compute::ComputeProfile& p) {
  std::vector<double> err;
  for (const auto& k : kernels)
    if (const auto r = log_speed_ratio(k, p)) err.push_back(std::fabs(std::exp(*r) - 1) * 100);
  return {quantile(err, 0.5), quantile(err, 0.9)};
}

}  // namespace

bool is_glue_parameter(const std::string& name) {
  static const std::string glue[] = {"host_overhead_us", "microbatch_overhead_ms", "iteration_overhead_ms",
                                     "kernel_overhead_us"};
  return std::find(std::begin(glue), std::end(glue), name) != std::end(glue) ||
         name.find(".sustained_clock") != std::string::npos;
}

KernelFitResult fit_kernel_profile(const std::vector<KernelMeasurement>& kernels, const compute::ComputeProfile& given,
                                   const KernelFitOptions& options) {
  KernelFitResult res;
  // A generation the profile runs on a stand-in's coefficients gets coefficients of its own where
  // its kernels are measured: listed, it starts from the stand-in's values, and those its
  // measurements inform are fitted on them alone.
  compute::ComputeProfile start = given;
  for (const auto& k : kernels) start.listed[static_cast<std::size_t>(k.gpu.arch)] = true;
  res.profile = start;
  // Which coefficients the measurements inform: those whose change moves an entry's prediction.
  // Every measurement, kernels then collective points, as one evaluator each.
  std::vector<std::function<std::optional<double>(const compute::ComputeProfile&)>> items;
  for (const auto& k : kernels)
    if (is_component_measurement(k))
      items.push_back([&k](const compute::ComputeProfile& p) { return log_speed_ratio(k, p); });
  for (const auto& c : options.collectives)
    items.push_back([&c](const compute::ComputeProfile& p) { return log_speed_ratio(c, p); });
  std::vector<std::optional<double>> base;
  for (const auto& item : items) base.push_back(item(start));
  // The entries whose prediction moves when `q` moves in `from` (q set apart).
  auto moved_by = [&](const compute::ProfileParameter& q, const compute::ComputeProfile& from) {
    std::vector<std::size_t> out;
    compute::ComputeProfile moved = from;
    set(moved, q, std::clamp(q.value(from) * 1.05 + 1e-3 * (q.upper - q.lower), q.lower, q.upper));
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!base[i]) continue;
      const auto before = items[i](from), after = items[i](moved);
      if (before && after && std::fabs(*after - *before) > 1e-9) out.push_back(i);
    }
    return out;
  };
  // The coefficients to fit: named, or (none named) every one neither held nor glue.
  auto candidate = [&](const compute::ProfileParameter& q) {
    const bool named =
        std::find(options.parameters.begin(), options.parameters.end(), q.name) != options.parameters.end();
    if (!options.parameters.empty()) return named;
    // The whole-step glue is the runs' to fit (kernel measurements do not inform it), and what the
    // start profile holds stays.
    const bool held = std::find(start.held.begin(), start.held.end(), q.name) != start.held.end();
    return !held && !is_glue_parameter(q.name);
  };
  // A coefficient tied to another is set apart only where some measurement informs it and not
  // the other: Ampere's attention measured forward and backward together cannot tell the two
  // directions apart.
  auto informs_alone = [&](const compute::ProfileParameter& q) {
    std::vector<std::size_t> informs = moved_by(q, start);
    compute::ComputeProfile apart = start;
    set(apart, q, q.value(start));
    const auto target = std::find_if(compute::profile_parameters().begin(), compute::profile_parameters().end(),
                                     [&](const compute::ProfileParameter& t) { return t.name == q.tied_to; });
    if (target == compute::profile_parameters().end()) return informs;
    const std::vector<std::size_t> both = moved_by(*target, apart);
    std::vector<std::size_t> alone;
    std::set_difference(informs.begin(), informs.end(), both.begin(), both.end(), std::back_inserter(alone));
    return alone;
  };
  // Those set apart start apart, so that what they fall back to answers only for its own
  // measurements (Hopper's 16-bit grouped-GEMM rate is not informed by DeepGEMM's 8-bit kernels
  // once the 8-bit rate stands apart).
  std::map<std::string, std::vector<std::size_t>> tied_informs;
  for (const auto& q : compute::profile_parameters()) {
    if (q.tied_to.empty() || !candidate(q)) continue;
    tied_informs[q.name] = informs_alone(q);
    if (static_cast<int>(tied_informs[q.name].size()) >= kMinKernelEntries) set(start, q, q.value(start));
  }
  // Measurements of a kernel whose own coefficient too few of them inform to set apart are scored,
  // not fitted: they measure that kernel, not the one it falls back to (two measurements of
  // bitsandbytes' NF4 dequantization say nothing of how fast a streaming kernel runs).
  for (const auto& [name, informs] : tied_informs) {
    if (static_cast<int>(informs.size()) >= kMinKernelEntries) continue;
    for (const std::size_t i : informs) base[i].reset();
  }
  res.entries =
      static_cast<std::size_t>(std::count_if(base.begin(), base.end(), [](auto& b) { return b.has_value(); }));
  std::vector<const compute::ProfileParameter*> params;
  for (const auto& q : compute::profile_parameters()) {
    if (!candidate(q)) continue;
    const std::vector<std::size_t> informs = q.tied_to.empty() ? moved_by(q, start) : tied_informs[q.name];
    const int n = static_cast<int>(informs.size());
    res.informed[q.name] = n;
    if (n >= kMinKernelEntries) params.push_back(&q);
  }
  const auto n = static_cast<Eigen::Index>(params.size());
  Eigen::VectorXd x(n), lo(n), hi(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto* q = params[static_cast<std::size_t>(i)];
    lo[i] = q->lower;
    hi[i] = q->upper;
    x[i] = std::clamp(q->value(start), lo[i], hi[i]);
  }
  auto profile_at = [&](const Eigen::VectorXd& v) {
    compute::ComputeProfile p = start;
    for (Eigen::Index i = 0; i < n; ++i) set(p, *params[static_cast<std::size_t>(i)], v[i]);
    return p;
  };
  const Residuals residuals = [&](const Eigen::VectorXd& v) {
    const compute::ComputeProfile p = profile_at(v);
    Eigen::VectorXd r(static_cast<Eigen::Index>(res.entries));
    Eigen::Index j = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!base[i]) continue;
      const auto e = items[i](p);
      r[j++] = e ? cauchy(*e) : 0.0;
    }
    return r;
  };
  const Summary before = summary(kernels, start);
  res.median_before_pct = before.median;
  res.p90_before_pct = before.p90;
  res.iterations = levenberg_marquardt(residuals, x, lo, hi, options.max_iterations);
  res.profile = profile_at(x);
  // A generation listed here for its own measurements keeps its stand-in's fitted values for the
  // coefficients none of its measurements informs.
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    const auto stand_in = hardware::coefficient_stand_in(a);
    if (given.listed[static_cast<std::size_t>(a)] || !start.listed[static_cast<std::size_t>(a)] || !stand_in) continue;
    const std::string own = std::string(to_string(a)) + ".", theirs = std::string(to_string(*stand_in)) + ".";
    for (const auto& q : compute::profile_parameters()) {
      if (q.name.rfind(own, 0) != 0 || std::find(params.begin(), params.end(), &q) != params.end()) continue;
      const auto from = std::find_if(
          compute::profile_parameters().begin(), compute::profile_parameters().end(),
          [&](const compute::ProfileParameter& t) { return t.name == theirs + q.name.substr(own.size()); });
      if (from != compute::profile_parameters().end()) *q.slot(res.profile) = *from->slot(res.profile);
    }
    res.profile.of(a).fp8_apart = res.profile.of(*stand_in).fp8_apart;
  }
  const Summary after = summary(kernels, res.profile);
  res.median_after_pct = after.median;
  res.p90_after_pct = after.p90;
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto* q = params[static_cast<std::size_t>(i)];
    res.fitted.push_back(q->name);
    const double span = hi[i] - lo[i];
    if (x[i] <= lo[i] + 1e-6 * span) res.at_bound.push_back(q->name + " lower");
    if (x[i] >= hi[i] - 1e-6 * span) res.at_bound.push_back(q->name + " upper");
  }
  return res;
}

std::string kernel_source_group(const KernelMeasurement& k) {
  std::string s = k.source;
  for (const char* stop : {" @", ":", ",", " "}) {
    const auto at = s.find(stop);
    if (at != std::string::npos && at > 0) s = s.substr(0, at);
  }
  return s;
}

KernelCvResult cross_validate_kernels(const std::vector<KernelMeasurement>& kernels,
                                      const compute::ComputeProfile& given, const KernelFitOptions& options) {
  compute::ComputeProfile start = given;
  std::erase_if(start.held, [&](const std::string& name) {
    return std::find(given.kernel_fitted.begin(), given.kernel_fitted.end(), name) != given.kernel_fitted.end();
  });
  KernelCvResult r;
  for (const auto& k : kernels) {
    const std::string g = kernel_source_group(k);
    if (std::find(r.groups.begin(), r.groups.end(), g) == r.groups.end()) r.groups.push_back(g);
  }
  std::vector<double> err;
  for (const auto& g : r.groups) {
    std::vector<KernelMeasurement> train, held;
    for (const auto& k : kernels) (kernel_source_group(k) == g ? held : train).push_back(k);
    const KernelFitResult fit = fit_kernel_profile(train, start, options);
    for (const auto& k : held) {
      std::string why;
      if (const auto c = compare_kernel(k, fit.profile, why)) {
        r.predictions.push_back(*c);
        r.prediction_groups.push_back(g);
        err.push_back(std::fabs(c->error_pct));
      }
    }
  }
  r.median_abs_pct = quantile(err, 0.5);
  r.p90_abs_pct = quantile(err, 0.9);
  return r;
}

}  // namespace flopcast::calibrate

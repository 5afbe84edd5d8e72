#include "flopcast/calibrate/calibrate.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "flopcast/calibrate/validation.hpp"
#include "flopcast/cost/op_cost.hpp"
#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/step/step_simulation.hpp"
#include "levenberg_marquardt.hpp"

namespace flopcast::calibrate {
namespace {

/// The figures of a collective point the fit uses: its time when measured (the bandwidths
/// nccl-tests prints beside it are the same measurement divided into the size), else each
/// bandwidth it gives.
std::vector<FigureComparison> collective_residual_figures(const MeasuredCollective& pt,
                                                          const compute::ComputeProfile& prof) {
  std::string why;
  auto c = compare_collective(pt, prof, why);
  const auto time = std::find_if(c.begin(), c.end(), [](const FigureComparison& f) { return f.figure == "time_us"; });
  if (time != c.end()) return {*time};
  return c;
}

/// A glue coefficient's prior: what is known of it before the runs, as a normal distribution.
/// Its residual (x - mean) / sigma weighs as much as one source group's runs at a 10% error, so
/// that a coefficient few runs inform (a fold of cross-validation that leaves out the one source
/// that shows it) stays near what is known instead of drifting to a bound.
struct GluePrior {
  double mean, sigma;
};
/// - host_overhead_us 40 +- 20: PyTorch eager dispatch costs tens of microseconds of CPU time per
///   kernel (PyTorch blog, "Accelerating PyTorch with CUDA Graphs", 2021);
/// - iteration_overhead_ms 10 +- 10: a data loader, logging and the optimizer's host bookkeeping,
///   tens of milliseconds at most in the Megatron-LM logs' per-iteration timers;
/// - GENERATION.sustained_clock 0.85 +- 0.10: training clocks 10-20% below boost under the
///   board power limit (nvidia-smi's clocks.sm during dense training on H100 SXM: ~1.6-1.75 of
///   1.98 GHz).
/// A prior one standard deviation off costs what one source group's runs (weights summing to 1)
/// off by 10% cost.
constexpr double kPriorWeight = 0.10;

const GluePrior* glue_prior(const std::string& name) {
  static const GluePrior host{40.0, 20.0}, iteration{10.0, 10.0}, clock{0.85, 0.10};
  if (name == "host_overhead_us") return &host;
  if (name == "iteration_overhead_ms") return &iteration;
  if (name.size() > 16 && name.compare(name.size() - 16, 16, ".sustained_clock") == 0) return &clock;
  return nullptr;
}

struct Problem {
  const std::vector<scenario::Scenario>& runs;
  const std::vector<double>& weights;
  const std::vector<MeasuredCollective>& collectives;
  const std::vector<double>& collective_weights;
  std::vector<const compute::ProfileParameter*> params;
  compute::ComputeProfile base;
  bool simulate = false;
  bool robust = true;  ///< soft-L1 loss on the relative errors (false: plain least squares)
  bool priors = true;  ///< the glue's priors as residuals (false: the data's residuals alone)

  /// Soft-L1 (pseudo-Huber) residual transform: squared, it is rho(e) = 2c^2 (sqrt(1 + (e/c)^2) - 1),
  /// ~e^2 for |e| << c and ~2c|e| beyond, so a few runs the model cannot explain (and the
  /// measurement noise in them) do not pull every coefficient; c = 10%, the accuracy the fit
  /// aims for. Same sign and, near zero, same value as e.
  static double soft_l1(double e) {
    constexpr double c = 0.10;
    const double rho = 2 * c * c * (std::sqrt(1 + (e / c) * (e / c)) - 1);
    return std::copysign(std::sqrt(rho), e);
  }

  compute::ComputeProfile with(const Eigen::VectorXd& x) const {
    compute::ComputeProfile p = base;
    for (std::size_t i = 0; i < params.size(); ++i) *params[i]->slot(p) = x[static_cast<Eigen::Index>(i)];
    return p;
  }

  double transform(double w, double error_pct) const {
    return w * (robust ? soft_l1(error_pct / 100.0) : error_pct / 100.0);
  }

  /// Relative error of every run's speed figure and of every collective point (the residual vector).
  Eigen::VectorXd residuals(const Eigen::VectorXd& x) const {
    const auto prof = with(x);
    std::vector<double> r;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const double w = weights.empty() ? 1.0 : std::sqrt(weights[i]);
      const auto figure = primary_figure(runs[i]);
      if (figure.empty()) continue;
      step::StepSimOptions sim;
      sim.timeline = false;
      const auto e =
          simulate ? step::simulate_step(runs[i], prof, sim).as_estimate() : estimate::estimate_step(runs[i], prof);
      for (const auto& c : compare_run(runs[i], e))
        if (c.figure == figure) r.push_back(transform(w, c.error_pct));
    }
    for (std::size_t i = 0; i < collectives.size(); ++i) {
      const double w = collective_weights.empty() ? 1.0 : std::sqrt(collective_weights[i]);
      for (const auto& c : collective_residual_figures(collectives[i], prof)) r.push_back(transform(w, c.error_pct));
    }
    if (priors)
      for (std::size_t i = 0; i < params.size(); ++i)
        if (const auto* prior = glue_prior(params[i]->name))
          r.push_back(kPriorWeight * (x[static_cast<Eigen::Index>(i)] - prior->mean) / prior->sigma);
    return Eigen::Map<Eigen::VectorXd>(r.data(), static_cast<Eigen::Index>(r.size()));
  }
};

double rms(const Eigen::VectorXd& r) {
  return r.size() ? std::sqrt(r.squaredNorm() / static_cast<double>(r.size())) : 0;
}
double median_abs(const Eigen::VectorXd& r) {
  std::vector<double> v(static_cast<std::size_t>(r.size()));
  for (Eigen::Index i = 0; i < r.size(); ++i) v[static_cast<std::size_t>(i)] = std::fabs(r[i]);
  return quantile(v, 0.5);
}

/// The generation of a per-generation coefficient whose name ends in `suffix` ("hopper.gemm_fp8",
/// ".gemm_fp8"); none for any other.
std::optional<hardware::GpuArch> generation_coefficient(const compute::ProfileParameter& p, std::string_view suffix) {
  const auto dot = p.name.find('.');
  if (dot == std::string::npos || std::string_view(p.name).substr(dot) != suffix) return std::nullopt;
  return hardware::parse_gpu_arch(p.name.substr(0, dot));
}

/// Whether the data can inform parameter `p`: a generation's coefficients need runs on it (a
/// fused-attention efficiency, runs with fused attention); the NIC efficiency multi-node runs or
/// points; a collective floor points with a message size (a generation's, its own points; the
/// shared one, those of generations without one in `start`); collective points alone inform only
/// the collective knobs.
bool informed(const compute::ProfileParameter& p, const std::vector<scenario::Scenario>& runs,
              const compute::ComputeProfile& start, const CalibrationOptions& options) {
  const auto dot = p.name.find('.');
  // A generation's collective floor: points of that generation with a message size.
  if (const auto arch = generation_coefficient(p, ".collective_latency_us"))
    return std::any_of(options.collectives.begin(), options.collectives.end(),
                       [&](const MeasuredCollective& c) { return c.gpu.arch == *arch && c.message_bytes.has_value(); });
  if (dot != std::string::npos) {
    const auto arch = hardware::parse_gpu_arch(p.name.substr(0, dot));
    const bool attention = generation_coefficient(p, ".flash_attention").has_value();
    const bool fp8 = generation_coefficient(p, ".gemm_fp8").has_value();
    return arch && std::any_of(runs.begin(), runs.end(), [&](const scenario::Scenario& s) {
             return s.cluster.gpu.arch == *arch && (!attention || s.plan.flash_attention) &&
                    (!fp8 || cost::is_8bit_gemm(s.precision));
           });
  }
  if (p.name == "nic_efficiency")
    return std::any_of(runs.begin(), runs.end(),
                       [](const scenario::Scenario& s) { return s.cluster.gpus > s.cluster.gpus_per_node; }) ||
           std::any_of(options.collectives.begin(), options.collectives.end(),
                       [](const MeasuredCollective& c) { return c.gpus > c.gpus_per_node; });
  // The shared one: points with a message size of a generation without a floor of its own.
  if (p.name == "collective_latency_us")
    return std::any_of(options.collectives.begin(), options.collectives.end(), [&](const MeasuredCollective& c) {
      return c.message_bytes.has_value() && start.collective_latency_shared(c.gpu.arch);
    });
  if (runs.empty()) return p.name == "nvlink_efficiency";
  return true;
}

std::vector<const compute::ProfileParameter*> chosen_parameters(const std::vector<scenario::Scenario>& runs,
                                                                const compute::ComputeProfile& start,
                                                                const CalibrationOptions& options) {
  std::vector<const compute::ProfileParameter*> out;
  for (const auto& p : compute::profile_parameters()) {
    const bool named =
        std::find(options.parameters.begin(), options.parameters.end(), p.name) != options.parameters.end();
    if (!options.parameters.empty() && !named) continue;
    // Without --param, the coefficients the start profile holds stay as they are.
    if (options.parameters.empty() && std::find(start.held.begin(), start.held.end(), p.name) != start.held.end())
      continue;
    // A named parameter the data cannot inform stays at its prior: fitting it would only
    // report a fit that never happened.
    if (informed(p, runs, start, options)) out.push_back(&p);
  }
  return out;
}

}  // namespace

int levenberg_marquardt(const Residuals& residuals, Eigen::VectorXd& x, const Eigen::VectorXd& lo,
                        const Eigen::VectorXd& hi, int max_iterations) {
  const auto n = x.size();
  Eigen::VectorXd r = residuals(x);
  double lambda = 1e-2;
  double cost = r.squaredNorm();
  int it = 0;
  for (; it < max_iterations && n > 0 && r.size() > 0; ++it) {
    // Forward-difference Jacobian, step scaled to each parameter's range.
    Eigen::MatrixXd J(r.size(), n);
    for (Eigen::Index j = 0; j < n; ++j) {
      Eigen::VectorXd xp = x;
      double h = 1e-4 * (hi[j] - lo[j]);
      if (xp[j] + h > hi[j]) h = -h;
      xp[j] += h;
      J.col(j) = (residuals(xp) - r) / h;
    }
    const Eigen::MatrixXd A = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false;
    for (int tries = 0; tries < 16; ++tries) {
      Eigen::MatrixXd Ad = A;
      Ad.diagonal() += lambda * A.diagonal().cwiseMax(1e-12);
      Eigen::VectorXd step = Ad.ldlt().solve(-g);
      Eigen::VectorXd xn = (x + step).cwiseMax(lo).cwiseMin(hi);  // projection keeps the fit physical
      Eigen::VectorXd rn = residuals(xn);
      const double cn = rn.squaredNorm();
      if (cn < cost) {
        x = xn;
        r = rn;
        improved = cost - cn > 1e-10 * cost;
        cost = cn;
        lambda = std::max(lambda / 3, 1e-7);
        break;
      }
      lambda *= 4;
    }
    if (!improved) break;
  }
  return it;
}

namespace {

/// Resolves every run's open settings with `profile`; returns whether any choice changed.
bool resolve_all(std::vector<scenario::Scenario>& runs, const compute::ComputeProfile& profile) {
  bool changed = false;
  for (auto& s : runs) {
    if (!s.open_settings.any()) continue;
    const auto before = s.resolved_settings.chosen;
    estimate::resolve_open_settings(s, profile);
    changed = changed || s.resolved_settings.chosen != before;
  }
  return changed;
}

}  // namespace

std::vector<double> source_group_weights(const std::vector<scenario::Scenario>& runs) {
  std::map<std::string, std::size_t> count;
  for (const auto& s : runs) ++count[s.source_group];
  std::vector<double> w;
  for (const auto& s : runs) w.push_back(1.0 / static_cast<double>(count[s.source_group]));
  return w;
}

namespace {

/// `start`, with each generation's 8-bit GEMM efficiency among `params` set apart from its
/// 16-bit one (from the same value, when it was tied): fitting it is what sets it apart.
compute::ComputeProfile with_fitted_fp8_apart(const compute::ComputeProfile& start,
                                              const std::vector<const compute::ProfileParameter*>& params) {
  compute::ComputeProfile p = start;
  for (const auto* q : params) {
    const auto arch = generation_coefficient(*q, ".gemm_fp8");
    if (!arch) continue;
    auto& e = p.of(*arch);
    if (!e.fp8_apart) e.gemm_fp8 = e.gemm;
    e.fp8_apart = true;
  }
  return p;
}

}  // namespace

CalibrationResult calibrate_profile(const std::vector<scenario::Scenario>& input_runs,
                                    const compute::ComputeProfile& given_start, const CalibrationOptions& options) {
  std::vector<scenario::Scenario> runs = input_runs;
  resolve_all(runs, given_start);
  const std::vector<double> weights = options.run_weights.empty() ? source_group_weights(runs) : options.run_weights;
  const auto params = chosen_parameters(runs, given_start, options);
  const compute::ComputeProfile start = with_fitted_fp8_apart(given_start, params);
  Problem prob{runs, weights, options.collectives, options.collective_weights, params, start, options.simulate};
  const auto n = static_cast<Eigen::Index>(prob.params.size());
  Eigen::VectorXd x(n), lo(n), hi(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto* p = prob.params[static_cast<std::size_t>(i)];
    lo[i] = p->lower;
    hi[i] = p->upper;
    // A tied coefficient (NaN in its slot) starts from the value it stands at.
    x[i] = std::clamp(p->value(start), lo[i], hi[i]);
  }
  CalibrationResult res;
  const std::vector<double> unit;
  // Unweighted, plain errors: the reported statistics.
  Problem plain{runs, unit, options.collectives, unit, prob.params, start, options.simulate};
  plain.robust = false;
  plain.priors = false;
  {
    const auto r0 = plain.residuals(x);
    res.residuals = static_cast<std::size_t>(r0.size());
    res.rms_before_pct = rms(r0) * 100;
    res.median_before_pct = median_abs(r0) * 100;
  }
  for (int round = 0; round < std::max(1, options.resolution_rounds); ++round) {
    res.iterations += levenberg_marquardt([&prob](const Eigen::VectorXd& v) { return prob.residuals(v); }, x, lo, hi,
                                          options.max_iterations);
    ++res.rounds;
    // Choices made with the fitted coefficients may differ from those made with the start's.
    if (!resolve_all(runs, prob.with(x))) break;
  }
  res.profile = prob.with(x);
  {
    const auto r1 = plain.residuals(x);
    res.rms_after_pct = rms(r1) * 100;
    res.median_after_pct = median_abs(r1) * 100;
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto* p = prob.params[static_cast<std::size_t>(i)];
    res.fitted.push_back(p->name);
    const double span = hi[i] - lo[i];
    if (x[i] <= lo[i] + 1e-6 * span) res.at_bound.push_back(p->name + " lower");
    if (x[i] >= hi[i] - 1e-6 * span) res.at_bound.push_back(p->name + " upper");
  }
  // Per generation, the runs its coefficients were fitted on (0: they kept the start's values).
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    const bool fitted = std::any_of(res.fitted.begin(), res.fitted.end(), [&](const std::string& name) {
      return name.rfind(std::string(to_string(a)) + ".", 0) == 0;
    });
    const auto on = std::count_if(runs.begin(), runs.end(), [&](const scenario::Scenario& s) {
      return s.cluster.gpu.arch == a && !primary_figure(s).empty();
    });
    res.profile.fitted_runs[static_cast<std::size_t>(a)] = fitted ? static_cast<int>(on) : 0;
    // A generation fitted here is the profile's own from now on.
    if (fitted) res.profile.listed[static_cast<std::size_t>(a)] = true;
  }
  // The generations still on a stand-in take the stand-in's fitted values; one listed for its
  // kernel measurements but without runs takes its stand-in's sustained clock (whole-step glue,
  // which only runs inform).
  res.profile.fill_stand_ins();
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    const auto stand_in = hardware::coefficient_stand_in(a);
    if (stand_in && res.profile.fitted_runs[static_cast<std::size_t>(a)] <= 0)
      res.profile.of(a).sustained_clock = res.profile.of(*stand_in).sustained_clock;
  }
  return res;
}

}  // namespace flopcast::calibrate

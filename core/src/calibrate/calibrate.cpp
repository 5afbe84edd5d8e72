#include "flopcast/calibrate/calibrate.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <set>

#include "flopcast/calibrate/validation.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/step/step_simulation.hpp"

namespace flopcast {
namespace {

/// The figures of a collective point the fit uses: its time when measured (the bandwidths
/// nccl-tests prints beside it are the same measurement divided into the size), else each
/// bandwidth it gives.
std::vector<FigureComparison> collective_residual_figures(const MeasuredCollective& pt, const ComputeProfile& prof) {
  std::string why;
  auto c = compare_collective(pt, prof, why);
  const auto time = std::find_if(c.begin(), c.end(), [](const FigureComparison& f) { return f.figure == "time_us"; });
  if (time != c.end()) return {*time};
  return c;
}

struct Problem {
  const std::vector<Scenario>& runs;
  const std::vector<double>& weights;
  const std::vector<MeasuredCollective>& collectives;
  const std::vector<double>& collective_weights;
  std::vector<const ProfileParameter*> params;
  ComputeProfile base;
  bool simulate = false;
  bool robust = true;            ///< soft-L1 loss on the relative errors (false: plain least squares)
  bool free_micro_batch = true;  ///< an unstated micro-batch is fitted (false: the schema default, as validate)

  /// Soft-L1 (pseudo-Huber) residual transform: squared, it is rho(e) = 2c^2 (sqrt(1 + (e/c)^2) - 1),
  /// ~e^2 for |e| << c and ~2c|e| beyond, so a few runs the model cannot explain (and the
  /// measurement noise in them) do not pull every coefficient; c = 10%, the accuracy the fit
  /// aims for. Same sign and, near zero, same value as e.
  static double soft_l1(double e) {
    constexpr double c = 0.10;
    const double rho = 2 * c * c * (std::sqrt(1 + (e / c) * (e / c)) - 1);
    return std::copysign(std::sqrt(rho), e);
  }

  /// The run as written and, when its micro-batch was not stated, its alternatives.
  static std::vector<Scenario> candidates(const Scenario& s, const ComputeProfile& prof) {
    std::vector<Scenario> out{s};
    for (auto& c : micro_batch_alternatives(s, prof)) out.push_back(std::move(c));
    return out;
  }

  ComputeProfile with(const Eigen::VectorXd& x) const {
    ComputeProfile p = base;
    for (std::size_t i = 0; i < params.size(); ++i) *params[i]->slot(p) = x[static_cast<Eigen::Index>(i)];
    return p;
  }

  /// Relative errors of every measured figure (the residual vector).
  Eigen::VectorXd residuals(const Eigen::VectorXd& x) const {
    const auto prof = with(x);
    std::vector<double> r;
    std::vector<double> best;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const double w = weights.empty() ? 1.0 : std::sqrt(weights[i]);
      // A run that does not state its micro-batch (the schema's default 1 was applied) cannot
      // pin the per-kernel and per-micro-batch costs: its step time depends on a setting the
      // source did not give. The fit treats it as unknown: of the micro-batches that divide
      // the run's per-replica batch and fit in memory, the one the current coefficients explain
      // best. Runs that state it are fitted as written.
      best.clear();
      double best_cost = INFINITY;
      for (const auto& run : free_micro_batch ? candidates(runs[i], prof) : std::vector<Scenario>{runs[i]}) {
        StepSimOptions sim;
        sim.timeline = false;
        const auto e = simulate ? simulate_step(run, prof, sim).as_estimate() : estimate_step(run, prof);
        std::vector<double> rr;
        double cost = 0;
        for (const auto& c : compare_run(run, e)) {
          rr.push_back(w * (robust ? soft_l1(c.error_pct / 100.0) : c.error_pct / 100.0));
          cost += rr.back() * rr.back();
        }
        if (cost < best_cost) {
          best_cost = cost;
          best = rr;
        }
      }
      r.insert(r.end(), best.begin(), best.end());
    }
    for (std::size_t i = 0; i < collectives.size(); ++i) {
      const double w = collective_weights.empty() ? 1.0 : std::sqrt(collective_weights[i]);
      for (const auto& c : collective_residual_figures(collectives[i], prof))
        r.push_back(w * (robust ? soft_l1(c.error_pct / 100.0) : c.error_pct / 100.0));
    }
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

}  // namespace

CalibrationResult calibrate_profile(const std::vector<Scenario>& runs, const ComputeProfile& start,
                                    const CalibrationOptions& options) {
  Problem prob{runs, options.run_weights, options.collectives, options.collective_weights, {}, start, options.simulate};
  std::set<GpuArch> archs;
  bool multi_node = false;
  for (const auto& s : runs) {
    archs.insert(s.cluster.gpu.arch);
    if (s.cluster.gpus > s.cluster.gpus_per_node) multi_node = true;
  }
  for (const auto& c : options.collectives)
    if (c.gpus > c.gpus_per_node) multi_node = true;
  for (const auto& p : profile_parameters()) {
    if (!options.parameters.empty()) {
      if (std::find(options.parameters.begin(), options.parameters.end(), p.name) != options.parameters.end())
        prob.params.push_back(&p);
      continue;
    }
    // Only what the runs can inform: an architecture's efficiencies need runs on it; the
    // NIC efficiency needs multi-node runs.
    const auto dot = p.name.find('.');
    if (dot != std::string::npos) {
      const auto arch = parse_gpu_arch(p.name.substr(0, dot));
      if (!arch || !archs.count(*arch)) continue;
    }
    if (p.name == "nic_efficiency" && !multi_node) continue;
    // Collective points alone inform only the collective knobs.
    if (runs.empty() && p.name != "collective_latency_us" && p.name != "nvlink_efficiency" &&
        p.name != "nic_efficiency")
      continue;
    // A latency floor shows only under messages of a stated size.
    if (p.name == "collective_latency_us" &&
        std::none_of(options.collectives.begin(), options.collectives.end(),
                     [](const MeasuredCollective& c) { return c.message_bytes.has_value(); }))
      continue;
    // Fused-attention efficiency needs runs that use fused attention on that architecture.
    if (p.name.size() > 16 && p.name.compare(p.name.size() - 16, 16, ".flash_attention") == 0) {
      const auto arch = parse_gpu_arch(p.name.substr(0, p.name.find('.')));
      const bool informed = std::any_of(runs.begin(), runs.end(), [&](const Scenario& s) {
        return s.plan.flash_attention && arch && s.cluster.gpu.arch == *arch;
      });
      if (!informed) continue;
    }
    prob.params.push_back(&p);
  }
  const auto n = static_cast<Eigen::Index>(prob.params.size());
  Eigen::VectorXd x(n), lo(n), hi(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto* p = prob.params[static_cast<std::size_t>(i)];
    ComputeProfile tmp = start;
    x[i] = *p->slot(tmp);
    lo[i] = p->lower;
    hi[i] = p->upper;
    x[i] = std::clamp(x[i], lo[i], hi[i]);
  }
  CalibrationResult res;
  Eigen::VectorXd r = prob.residuals(x);
  res.residuals = static_cast<std::size_t>(r.size());
  const std::vector<double> unit;
  Problem plain{runs,        unit,  options.collectives, unit,
                prob.params, start, options.simulate};  // unweighted, plain errors: the reported statistics
  plain.robust = false;
  plain.free_micro_batch = false;
  {
    const auto r0 = plain.residuals(x);
    res.rms_before_pct = rms(r0) * 100;
    res.median_before_pct = median_abs(r0) * 100;
  }
  double lambda = 1e-2;
  double cost = r.squaredNorm();
  int it = 0;
  for (; it < options.max_iterations && n > 0 && r.size() > 0; ++it) {
    // Forward-difference Jacobian, step scaled to each parameter's range.
    Eigen::MatrixXd J(r.size(), n);
    for (Eigen::Index j = 0; j < n; ++j) {
      Eigen::VectorXd xp = x;
      double h = 1e-4 * (hi[j] - lo[j]);
      if (xp[j] + h > hi[j]) h = -h;
      xp[j] += h;
      J.col(j) = (prob.residuals(xp) - r) / h;
    }
    const Eigen::MatrixXd A = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false;
    for (int tries = 0; tries < 8; ++tries) {
      Eigen::MatrixXd Ad = A;
      Ad.diagonal() += lambda * A.diagonal().cwiseMax(1e-12);
      Eigen::VectorXd step = Ad.ldlt().solve(-g);
      Eigen::VectorXd xn = (x + step).cwiseMax(lo).cwiseMin(hi);  // projection keeps the fit physical
      Eigen::VectorXd rn = prob.residuals(xn);
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
  res.iterations = it;
  res.profile = prob.with(x);
  {
    const auto r1 = plain.residuals(x);
    res.rms_after_pct = rms(r1) * 100;
    res.median_after_pct = median_abs(r1) * 100;
  }
  for (const auto* p : prob.params) res.fitted.push_back(p->name);
  return res;
}

}  // namespace flopcast

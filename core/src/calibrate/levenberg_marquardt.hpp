#pragma once
/// Bounded Levenberg-Marquardt (Eigen), private to core/calibrate: the profile fit on measured
/// runs (calibrate.cpp) and on kernel measurements (kernel_fit.cpp) share it.
#include <Eigen/Dense>

#include <functional>

namespace flopcast::calibrate {

/// The residual vector at a point of the parameter space.
using Residuals = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

/// Minimises the squared norm of `residuals` from `x` inside [lo, hi] (each step projected onto
/// the bounds), with a forward-difference Jacobian whose step is 1e-4 of each parameter's range.
/// Returns the iterations run.
int levenberg_marquardt(const Residuals& residuals, Eigen::VectorXd& x, const Eigen::VectorXd& lo,
                        const Eigen::VectorXd& hi, int max_iterations);

}  // namespace flopcast::calibrate

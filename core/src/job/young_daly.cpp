#include "flopcast/job/young_daly.hpp"

#include <cmath>

namespace flopcast::job {

units::Time young_interval(units::Time checkpoint_cost, double mtbf_s) {
  const double c = checkpoint_cost.seconds();
  if (!(c > 0.0) || !(mtbf_s > 0.0)) return units::Time{0};
  return units::Time::from_seconds(std::sqrt(2.0 * c * mtbf_s));
}

units::Time daly_interval(units::Time checkpoint_cost, double mtbf_s) {
  const double c = checkpoint_cost.seconds();
  if (!(c > 0.0) || !(mtbf_s > 0.0)) return units::Time{0};
  if (c >= 2.0 * mtbf_s) return units::Time::from_seconds(mtbf_s);
  const double x = c / (2.0 * mtbf_s);
  const double t = std::sqrt(2.0 * c * mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - c;
  return units::Time::from_seconds(t);
}

double waste_fraction(units::Time interval, units::Time checkpoint_cost, units::Time unprotected_window,
                      units::Time restart, double mtbf_s) {
  const double t = interval.seconds();
  if (!(t > 0.0)) return 0.0;
  double w = checkpoint_cost.seconds() / t;
  if (mtbf_s > 0.0) w += (t / 2.0 + unprotected_window.seconds() + restart.seconds()) / mtbf_s;
  return w;
}

double expected_segment_seconds(double length_s, double restart_s, double rate_per_s) {
  if (!(rate_per_s > 0.0)) return length_s;
  return std::exp(rate_per_s * restart_s) * std::expm1(rate_per_s * length_s) / rate_per_s;
}

units::Time expected_gpu_span_sync(units::Time step_time, std::int64_t steps, std::int64_t steps_per_checkpoint,
                                   units::Time checkpoint_cost, units::Time restart, double rate_per_s) {
  if (steps <= 0) return units::Time{0};
  const std::int64_t k = steps_per_checkpoint > 0 ? steps_per_checkpoint : steps;
  const std::int64_t segments = (steps + k - 1) / k;
  const std::int64_t last_steps = steps - (segments - 1) * k;
  const double full_s = static_cast<double>(k) * step_time.seconds() + checkpoint_cost.seconds();
  const double last_s = static_cast<double>(last_steps) * step_time.seconds();
  const double r = restart.seconds();
  const double total = static_cast<double>(segments - 1) * expected_segment_seconds(full_s, r, rate_per_s) +
                       expected_segment_seconds(last_s, r, rate_per_s);
  return units::Time::from_seconds(total);
}

}  // namespace flopcast::job

#include "log_axis.hpp"

#include <QtCharts/QCategoryAxis>

#include <algorithm>
#include <cmath>

#include "flopcast/units/format.hpp"

namespace flopcast::gui {

std::vector<double> log_ticks_125(double lo, double hi) {
  std::vector<double> ticks;
  if (!(lo > 0) || !(hi >= lo)) return ticks;
  const int first = static_cast<int>(std::floor(std::log10(lo)));
  const int last = static_cast<int>(std::ceil(std::log10(hi)));
  for (const bool dense : {false, true}) {
    ticks.clear();
    for (int e = first; e <= last; ++e)
      for (int m = 1; m <= 9; ++m) {
        if (!dense && m != 1 && m != 2 && m != 5) continue;
        const double v = m * std::pow(10.0, e);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back(v);
      }
    if (ticks.size() >= 3) break;
  }
  return ticks;
}

QString log_tick_label(double v) {
  int decimals = 0;
  while (decimals < 6 && std::abs(v * std::pow(10.0, decimals) - std::round(v * std::pow(10.0, decimals))) > 1e-6 * v)
    ++decimals;
  return QString::fromStdString(units::format_grouped_half_up(v, decimals));
}

double log_coord(double v) { return std::log10(v); }

QCategoryAxis* make_log_axis(double lo, double hi, const QString& title, std::size_t max_labels) {
  auto* axis = new QCategoryAxis();
  axis->setTitleText(title);
  axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  axis->setRange(log_coord(lo), log_coord(hi));
  std::vector<double> ticks = log_ticks_125(lo, hi);
  if (ticks.size() > max_labels) {
    std::vector<double> decades;
    for (const double t : ticks)
      if (std::abs(std::log10(t) - std::round(std::log10(t))) < 1e-9) decades.push_back(t);
    if (decades.size() >= 2) ticks = std::move(decades);
  }
  for (const double t : ticks) axis->append(log_tick_label(t), log_coord(t));
  return axis;
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || target < 1) return ticks;
  const double raw = (hi - lo) / target;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  double step = decade;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= raw) {
      step = m * decade;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step)
    ticks.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
  return ticks;
}

QCategoryAxis* make_value_axis(std::vector<double> values, const QString& title) {
  auto* axis = new QCategoryAxis();
  axis->setTitleText(title);
  axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.empty()) {
    axis->setRange(0, 1);
    return axis;
  }
  const bool integers =
      std::all_of(values.begin(), values.end(), [](double v) { return std::abs(v - std::round(v)) < 1e-9; });
  // Parallel degrees and counts, not money or times that happen to be whole.
  const bool small = std::abs(values.front()) <= 1e5 && std::abs(values.back()) <= 1e5;
  if (integers && small && values.size() <= 12) {
    double gap = values.size() > 1 ? values[1] - values[0] : 1.0;
    for (std::size_t i = 1; i < values.size(); ++i) gap = std::min(gap, values[i] - values[i - 1]);
    axis->setRange(values.front() - gap / 2, values.back() + gap / 2);
    for (const double v : values) axis->append(log_tick_label(std::abs(v)).prepend(v < 0 ? "-" : ""), v);
    return axis;
  }
  const double pad = values.back() > values.front() ? 0.04 * (values.back() - values.front()) : 1.0;
  const double lo = values.front() - pad, hi = values.back() + pad;
  axis->setRange(lo, hi);
  for (const double t : linear_ticks(lo, hi))
    axis->append(QString::fromStdString((t < 0 ? "-" : "") +
                                        units::format_grouped_half_up(std::abs(t), t == std::round(t) ? 0 : 2)),
                 t);
  return axis;
}

}  // namespace flopcast::gui

#include "log_axis.hpp"

#include <QtCharts/QCategoryAxis>

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
  return QString::fromStdString(format_grouped_half_up(v, decimals));
}

double log_coord(double v) { return std::log10(v); }

QCategoryAxis* make_log_axis(double lo, double hi, const QString& title) {
  auto* axis = new QCategoryAxis();
  axis->setTitleText(title);
  axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  axis->setRange(log_coord(lo), log_coord(hi));
  for (const double t : log_ticks_125(lo, hi)) axis->append(log_tick_label(t), log_coord(t));
  return axis;
}

}  // namespace flopcast::gui

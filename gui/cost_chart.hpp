#pragma once
/// Cost tab chart: the bill of each plan at P50 and P90 when pricing is loaded; otherwise
/// the run's duration failure-free and (with core/job) at P50 and P90.
#include <QtCharts/QChartView>

#include "flopcast/app/compute_result.hpp"

namespace flopcast::gui {

class CostChart : public QChartView {
  Q_OBJECT
 public:
  /// As tall as its minimum: the table under it keeps its rows, the chart takes the rest.
  QSize sizeHint() const override { return {QChartView::sizeHint().width(), minimumHeight()}; }
  explicit CostChart(QWidget* parent = nullptr);
  void set_result(const app::ComputeResult& r);
  /// True when the chart shows bills (pricing loaded), false when durations.
  bool shows_bills() const { return bills_; }

 private:
  void clear();
  bool bills_ = false;
};

/// Cost tab, second chart: what the run has cost after each day of its (P90) calendar under
/// the cheapest plans: whole-unit steps of daily/monthly plans against hourly lines.
class CostCalendarChart : public QChartView {
  Q_OBJECT
 public:
  /// As tall as its minimum: the table under it keeps its rows, the chart takes the rest.
  QSize sizeHint() const override { return {QChartView::sizeHint().width(), minimumHeight()}; }
  explicit CostCalendarChart(QWidget* parent = nullptr);
  void set_result(const app::ComputeResult& r);
  /// Curves drawn (0 when pricing or the whole run is missing).
  int curves() const { return curves_; }

 private:
  int curves_ = 0;
};

}  // namespace flopcast::gui

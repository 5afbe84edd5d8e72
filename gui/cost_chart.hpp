#pragma once
/// Cost tab chart: the bill of each plan at P50 and P90 when pricing is loaded; otherwise
/// the run's duration failure-free and (with core/job) at P50 and P90.
#include <QtCharts/QChartView>

#include "compute_result.hpp"

namespace flopcast::gui {

class CostChart : public QChartView {
  Q_OBJECT
 public:
  explicit CostChart(QWidget* parent = nullptr);
  void set_result(const ComputeResult& r);
  /// True when the chart shows bills (pricing loaded), false when durations.
  bool shows_bills() const { return bills_; }

 private:
  void clear();
  bool bills_ = false;
};

}  // namespace flopcast::gui

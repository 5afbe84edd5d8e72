#pragma once
/// Breakdown tab chart: one horizontal stacked bar of where a step's time goes (compute,
/// recompute, exposed communication, bubble, optimizer, overhead), in the timeline's colours.
#include <QtCharts/QChartView>

#include "flopcast/app/compute_result.hpp"

namespace flopcast::gui {

class BreakdownChart : public QChartView {
  Q_OBJECT
 public:
  /// As tall as its minimum: the table under it keeps its rows, the chart takes the rest.
  QSize sizeHint() const override { return {QChartView::sizeHint().width(), minimumHeight()}; }
  explicit BreakdownChart(QWidget* parent = nullptr);
  void set_result(const app::ComputeResult& r);
  /// Bar sets currently shown (for tests).
  int part_count() const { return parts_; }

 private:
  int parts_ = 0;
};

}  // namespace flopcast::gui

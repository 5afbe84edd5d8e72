#pragma once
/// Memory tab chart: memory per GPU of each pipeline stage as stacked bars by part (weights,
/// gradients, optimizer states, activations, ...) against a line at the GPU's HBM.
#include <QtCharts/QChartView>

#include "flopcast/app/compute_result.hpp"

namespace flopcast::gui {

class MemoryChart : public QChartView {
  Q_OBJECT
 public:
  /// As tall as its minimum: the table under it keeps its rows, the chart takes the rest.
  QSize sizeHint() const override { return {QChartView::sizeHint().width(), minimumHeight()}; }
  explicit MemoryChart(QWidget* parent = nullptr);
  void set_result(const app::ComputeResult& r);
  int bar_count() const { return bars_; }

 private:
  int bars_ = 0;
};

}  // namespace flopcast::gui

#include "breakdown_chart.hpp"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QHorizontalStackedBarSeries>
#include <QtCharts/QLegend>
#include <QtCharts/QValueAxis>

#include "flopcast/units/format.hpp"
#include "result_tables.hpp"

namespace flopcast::gui {

BreakdownChart::BreakdownChart(QWidget* parent) : QChartView(new QChart(), parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setAnimationOptions(QChart::NoAnimation);
  // The table under the chart names each colour (its swatches): no legend to squeeze in.
  chart()->legend()->setVisible(false);
  setMinimumHeight(220);
}

void BreakdownChart::set_result(const app::ComputeResult& r) {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
  parts_ = 0;
  if (!r.ok()) {
    c->setTitle(tr("No breakdown: the scenario has errors"));
    return;
  }
  const estimate::StepBreakdown& b = r.report.est.breakdown;
  const double step_ms = b.total().ms();
  // Milliseconds, or seconds for steps of two seconds and more.
  const bool seconds = step_ms >= 2'000;
  const double scale = seconds ? 1e-3 : 1.0;
  const QString unit = seconds ? QStringLiteral("s") : QStringLiteral("ms");
  auto* series = new QHorizontalStackedBarSeries();
  for (const auto& p : time_parts(b)) {
    if (p.time.ns <= 0) continue;
    const double v = p.time.ms() * scale;
    auto* set =
        new QBarSet(QStringLiteral("%1  %2").arg(p.label, percent_text(step_ms > 0 ? p.time.ms() / step_ms : 0)));
    set->append(v);
    set->setColor(color_of(p.part));
    set->setBorderColor(color_of(p.part).darker(130));
    series->append(set);
    ++parts_;
  }
  series->setBarWidth(0.5);
  c->addSeries(series);
  auto* cats = new QBarCategoryAxis();
  cats->append(tr("step"));
  c->addAxis(cats, Qt::AlignLeft);
  series->attachAxis(cats);
  auto* values = new QValueAxis();
  values->setTitleText(tr("time per step (%1)").arg(unit));
  values->setRange(0, step_ms * scale * 1.02);
  values->setLabelFormat(QStringLiteral("%.4g"));
  values->applyNiceNumbers();
  c->addAxis(values, Qt::AlignBottom);
  series->attachAxis(values);
  c->setTitle(tr("Where the step time goes: %1 per step, MFU %2")
                  .arg(QString::fromStdString(units::format_time(b.total())), percent_text(r.report.est.mfu)));
}

}  // namespace flopcast::gui

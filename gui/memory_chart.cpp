#include "memory_chart.hpp"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>

#include "result_tables.hpp"

namespace flopcast::gui {

MemoryChart::MemoryChart(QWidget* parent) : QChartView(new QChart(), parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setAnimationOptions(QChart::NoAnimation);
  // The table under the chart names each colour (its swatches): no legend to squeeze in.
  chart()->legend()->setVisible(false);
  setMinimumHeight(260);
}

void MemoryChart::set_result(const app::ComputeResult& r) {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
  bars_ = 0;
  if (!r.ok()) {
    c->setTitle(tr("No memory figures: the scenario has errors"));
    return;
  }
  std::vector<workload::MemoryBreakdown> stages = r.stage_memory;
  if (stages.empty()) stages.push_back(r.report.est.memory);
  const workload::MemoryBreakdown& worst = r.report.est.memory;
  const double cap = worst.capacity.gib();

  auto* series = new QStackedBarSeries();
  const auto parts0 = memory_parts(stages.front());
  std::vector<QBarSet*> sets;
  for (const auto& p : parts0) {
    auto* set = new QBarSet(p.label);
    set->setColor(color_of(p.part));
    set->setBorderColor(color_of(p.part).darker(130));
    sets.push_back(set);
  }
  QStringList categories;
  double top = cap;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto parts = memory_parts(stages[i]);
    for (std::size_t k = 0; k < parts.size(); ++k) sets[k]->append(parts[k].bytes.gib());
    top = std::max(top, stages[i].total().gib());
    categories << (stages.size() == 1 ? tr("per GPU") : tr("stage %1").arg(i));
    ++bars_;
  }
  for (QBarSet* set : sets) series->append(set);
  series->setBarWidth(stages.size() == 1 ? 0.35 : 0.7);
  c->addSeries(series);

  auto* hbm = new QLineSeries();
  hbm->setName(tr("HBM %1 GiB").arg(cap, 0, 'f', 1));
  hbm->append(-0.5, cap);
  hbm->append(static_cast<double>(stages.size()) - 0.5, cap);
  QPen pen(QColor(0xB0, 0x00, 0x20), 2.5, Qt::DashLine);
  hbm->setPen(pen);
  c->addSeries(hbm);

  auto* cats = new QBarCategoryAxis();
  cats->append(categories);
  c->addAxis(cats, Qt::AlignBottom);
  series->attachAxis(cats);
  hbm->attachAxis(cats);
  auto* values = new QValueAxis();
  values->setTitleText(tr("GiB per GPU"));
  values->setRange(0, top * 1.1);
  values->setLabelFormat(QStringLiteral("%.0f"));
  values->applyNiceNumbers();
  c->addAxis(values, Qt::AlignLeft);
  series->attachAxis(values);
  hbm->attachAxis(values);
  c->setTitle(
      worst.fits()
          ? tr("Memory per GPU: %1 of %2 GiB (fits)").arg(worst.total().gib(), 0, 'f', 1).arg(cap, 0, 'f', 1)
          : tr("Memory per GPU: %1 of %2 GiB: DOES NOT FIT").arg(worst.total().gib(), 0, 'f', 1).arg(cap, 0, 'f', 1));
}

}  // namespace flopcast::gui

#include "cost_chart.hpp"

#include <QtCharts/QAreaSeries>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <utility>

#include "result_palette.hpp"
#include "result_tables.hpp"

namespace flopcast::gui {
namespace {

/// Thousands or millions on a money axis, so its labels stay short: the factor to multiply
/// amounts by and the word for the axis title.
std::pair<double, QString> axis_scale(double top) {
  if (top >= 1e6) return {1e-6, QObject::tr("million ")};
  if (top >= 1e4) return {1e-3, QObject::tr("thousand ")};
  return {1.0, QString()};
}
}  // namespace

CostChart::CostChart(QWidget* parent) : QChartView(new QChart(), parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setAnimationOptions(QChart::NoAnimation);
  chart()->legend()->setAlignment(Qt::AlignBottom);
  chart()->legend()->setShowToolTips(true);  // an elided entry shows its whole text
  setMinimumHeight(220);
}

void CostChart::clear() {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
}

void CostChart::set_result(const app::ComputeResult& r) {
  clear();
  bills_ = false;
  QChart* c = chart();
  if (!r.ok()) {
    c->setTitle(tr("No cost figures: the scenario has errors"));
    return;
  }
  auto* series = new QHorizontalBarSeries();
  QStringList categories;
  double top = 0;
  QString value_title;
  if (r.plans() && !r.plans()->rows.empty()) {
    bills_ = true;
    auto* p50 = new QBarSet(tr("P50 run"));
    auto* p90 = new QBarSet(tr("P90 run"));
    p50->setColor(color_of(RunSeries::P50));
    p90->setColor(color_of(RunSeries::P90));
    // Horizontal bars list categories bottom-up: reverse so the table's first plan is on top.
    for (auto it = r.plans()->rows.rbegin(); it != r.plans()->rows.rend(); ++it) {
      const bool ok = it->p50.ok() && it->p90.ok();
      // Plan ids: short enough to show whole, and the names the legend of the calendar and
      // the table's "(id)" use; the table beside gives the full names.
      categories << QString::fromStdString(it->option.id);
      if (ok) top = std::max({top, it->p50.total.major(), it->p90.total.major()});
    }
    const auto [scale, prefix] = axis_scale(top);
    for (auto it = r.plans()->rows.rbegin(); it != r.plans()->rows.rend(); ++it) {
      const bool ok = it->p50.ok() && it->p90.ok();
      p50->append(ok ? it->p50.total.major() * scale : 0.0);
      p90->append(ok ? it->p90.total.major() * scale : 0.0);
    }
    top *= scale;
    series->append(p50);
    series->append(p90);
    value_title = tr("bill (%1%2)").arg(prefix, QString::fromStdString(r.plans()->currency.str()));
    c->setTitle(tr("Bill per plan at the P50 and P90 run"));
  }
  if (!bills_) {
    const scenario::Scenario& s = *r.scenario;
    if (s.training.tokens <= 0) {
      delete series;
      c->setTitle(tr("No whole-run figures: give training tokens"));
      return;
    }
    auto* days = new QBarSet(tr("days"));
    days->setColor(color_of(RunSeries::FailureFree));
    std::vector<std::pair<QString, double>> bars;
    if (r.job()) {
      bars.emplace_back(tr("wall P90"), r.job()->wall_p90.days());
      bars.emplace_back(tr("wall P50"), r.job()->wall_p50.days());
    }
    bars.emplace_back(tr("failure-free"), r.report.train_seconds / 86400.0);
    for (const auto& [label, v] : bars) {
      categories << label;
      days->append(v);
      top = std::max(top, v);
    }
    series->append(days);
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(4);
    value_title = tr("days to train");
    c->setTitle(tr("Time to train (pricing is not loaded)"));
  }
  c->addSeries(series);
  c->legend()->setVisible(bills_);  // one set of durations needs no legend
  auto* cats = new QBarCategoryAxis();
  cats->append(categories);
  c->addAxis(cats, Qt::AlignLeft);
  series->attachAxis(cats);
  auto* values = new QValueAxis();
  values->setTitleText(value_title);
  values->setRange(0, top > 0 ? top * 1.1 : 1.0);
  values->setLabelFormat(QStringLiteral("%.4g"));
  values->applyNiceNumbers();
  c->addAxis(values, Qt::AlignBottom);
  series->attachAxis(values);
}

CostCalendarChart::CostCalendarChart(QWidget* parent) : QChartView(new QChart(), parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setAnimationOptions(QChart::NoAnimation);
  chart()->legend()->setAlignment(Qt::AlignBottom);
  chart()->legend()->setShowToolTips(true);  // an elided entry shows its whole text
  setMinimumHeight(220);
}

void CostCalendarChart::set_result(const app::ComputeResult& r) {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
  curves_ = 0;
  if (!r.ok() || r.calendar.empty() || !r.plans()) {
    c->setTitle(tr("Cost over the calendar: needs pricing and training tokens"));
    return;
  }
  double top = 0, last_day = 0;
  for (const auto& curve : r.calendar)
    for (const auto& p : curve.points) {
      top = std::max(top, p.total.major());
      last_day = std::max(last_day, p.span.days());
    }
  // Model uncertainty: where the P90 run's paid GPU time ends with the step at the band's P10
  // and P90 (WholeRun::band_p10 / band_p90), drawn as a shaded span of days.
  const auto& run = r.report.run;
  const bool band = run && run->band_p10 && run->band_p90;
  const double band_lo = band ? run->band_p10->gpu_span_p90.days() : 0;
  const double band_hi = band ? run->band_p90->gpu_span_p90.days() : 0;
  if (band) last_day = std::max(last_day, band_hi);
  const auto [scale, prefix] = axis_scale(top);
  auto* x = new QValueAxis();
  x->setTitleText(tr("days of paid GPU time"));
  x->setRange(0, last_day > 0 ? last_day : 1.0);
  x->setLabelFormat(QStringLiteral("%.0f"));
  auto* y = new QValueAxis();
  y->setTitleText(tr("%1%2").arg(prefix, QString::fromStdString(r.plans()->currency.str())));
  y->setRange(0, top > 0 ? top * scale * 1.05 : 1.0);
  y->setLabelFormat(QStringLiteral("%.4g"));
  y->applyNiceNumbers();
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  // The recommended plan is the quote's (the provider's cheapest), as the Summary names it.
  const auto rec = recommended_row(r);
  const std::string rec_id = rec ? r.plans()->rows[*rec].option.id : std::string();
  for (const auto& curve : r.calendar) {
    auto* line = new QLineSeries();
    const bool recommended = curve.id == rec_id;
    line->setName(QString::fromStdString(curve.id) + (recommended ? tr(" (recommended)") : QString()));
    QPen pen(cost_curve_color(static_cast<std::size_t>(curves_)));
    pen.setWidthF(recommended ? 3.0 : 1.6);
    line->setPen(pen);
    for (const auto& p : curve.points) line->append(p.span.days(), p.total.major() * scale);
    c->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    ++curves_;
  }
  if (band && band_hi > band_lo) {
    auto* upper = new QLineSeries();
    auto* lower = new QLineSeries();
    const double y_top = y->max();
    upper->append(band_lo, y_top);
    upper->append(band_hi, y_top);
    lower->append(band_lo, 0);
    lower->append(band_hi, 0);
    auto* area = new QAreaSeries(upper, lower);
    area->setName(tr("model uncertainty: the run ends between %1 and %2 days (80%)")
                      .arg(band_lo, 0, 'f', 1)
                      .arg(band_hi, 0, 'f', 1));
    QColor fill = cost_curve_color(0);
    fill.setAlpha(40);
    area->setBrush(fill);
    area->setPen(Qt::NoPen);
    c->addSeries(area);
    area->attachAxis(x);
    area->attachAxis(y);
  }
  c->setTitle(tr("Cost after each day (P90 run)"));
}

}  // namespace flopcast::gui

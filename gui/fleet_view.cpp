#include "fleet_view.hpp"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QThread>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <exception>

#include "flopcast/app/fleet_request.hpp"
#include "flopcast/units/format.hpp"
#include "qt_text.hpp"
#include "result_palette.hpp"

namespace flopcast::gui {
namespace {

constexpr double kSecondsPerDay = 86'400.0;

QChartView* make_chart(QWidget* parent) {
  auto* v = new QChartView(new QChart(), parent);
  v->setRenderHint(QPainter::Antialiasing);
  v->chart()->setAnimationOptions(QChart::NoAnimation);
  v->chart()->legend()->setAlignment(Qt::AlignBottom);
  v->chart()->legend()->setShowToolTips(true);  // an elided entry shows its whole text
  v->setMinimumHeight(180);
  return v;
}

void clear_chart(QChart* c) {
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
}

}  // namespace

FleetOutcome simulate_fleet_file(const std::string& path, const io::Catalog& catalog, int threads) {
  FleetOutcome out;
  // Loaded, planned and validated as `flopcast fleet` does (app/fleet_request.hpp).
  scenario::Diagnostics diags;
  auto prepared = app::prepare_fleet_file(path, catalog, app::FleetOverrides{}, diags);
  if (!prepared) {
    out.errors = diags.str();
    return out;
  }
  out.notes = std::move(prepared->notes);
  fleet::FleetOptions opt;
  opt.threads = std::max(1, threads);
  opt.what_ifs = false;
  out.result = fleet::simulate_fleet(prepared->fleet, opt);
  return out;
}

FleetView::FleetView(std::shared_ptr<const io::Catalog> catalog, QWidget* parent)
    : QWidget(parent), catalog_(std::move(catalog)) {
  auto* v = new QVBoxLayout(this);
  auto* top = new QHBoxLayout();
  auto* open_button = new QPushButton(tr("Open fleet..."), this);
  connect(open_button, &QPushButton::clicked, this, &FleetView::openRequested);
  top->addWidget(open_button);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  connect(cancel_, &QPushButton::clicked, this, &FleetView::cancel);
  top->addWidget(cancel_);
  busy_ = new QProgressBar(this);
  busy_->setRange(0, 0);
  busy_->setMaximumWidth(140);
  busy_->hide();
  top->addWidget(busy_);
  info_ =
      new QLabel(tr("No fleet loaded. Open a fleet file (`flopcast fleet`'s input, e.g. scenarios/fleets/)."), this);
  info_->setWordWrap(true);
  top->addWidget(info_, 1);
  v->addLayout(top);
  // Pages, so that each chart keeps a readable size at 1000x700: the horizon (utilisation per
  // pool over the queue), the waits per job class, the money.
  pages_ = new QTabWidget(this);
  pages_->setDocumentMode(true);
  auto* split = new QSplitter(Qt::Vertical, pages_);
  utilisation_ = make_chart(split);
  queue_ = make_chart(split);
  split->addWidget(utilisation_);
  split->addWidget(queue_);
  pages_->addTab(split, tr("Utilisation and queue"));
  waits_ = make_chart(pages_);
  waits_->chart()->setTitle(tr("Wait per job class (open a fleet)"));
  pages_->addTab(waits_, tr("Waits per class"));
  money_ = make_chart(pages_);
  money_->chart()->setTitle(tr("Cost, revenue and margin per pool (open a fleet)"));
  pages_->addTab(money_, tr("Money"));
  v->addWidget(pages_, 1);
  utilisation_->chart()->setTitle(tr("GPU utilisation per pool over the horizon"));
  queue_->chart()->setTitle(tr("Jobs waiting and running over the horizon"));
  connect(&watcher_, &QFutureWatcherBase::finished, this, &FleetView::on_finished);
}

FleetView::~FleetView() { watcher_.waitForFinished(); }

void FleetView::open(const QString& path) {
  if (watcher_.isRunning()) {
    info_->setText(
        cancelled_ ? tr("The cancelled fleet simulation is still finishing in the background; try again in a moment.")
                   : tr("A fleet simulation is still running; wait for it or cancel it."));
    return;
  }
  cancelled_ = false;
  pending_name_ = QFileInfo(path).fileName();
  cancel_->setEnabled(true);
  busy_->show();
  info_->setText(tr("Simulating %1...").arg(pending_name_));
  auto catalog = catalog_;
  const std::string file = path.toStdString();
  const int threads = std::max(1, QThread::idealThreadCount() - 1);
  watcher_.setFuture(QtConcurrent::run([catalog, file, threads]() -> FleetOutcome {
    try {
      return simulate_fleet_file(file, *catalog, threads);
    } catch (const std::exception& e) {
      FleetOutcome failed;
      failed.errors = std::string("internal error in the fleet simulation: ") + e.what();
      return failed;
    }
  }));
}

void FleetView::cancel() {
  if (!watcher_.isRunning() || cancelled_) return;
  cancelled_ = true;
  cancel_->setEnabled(false);
  busy_->hide();
  info_->setText(tr("Fleet simulation cancelled: its result will be dropped."));
}

void FleetView::on_finished() {
  cancel_->setEnabled(false);
  busy_->hide();
  if (cancelled_) {
    cancelled_ = false;
    return;
  }
  const FleetOutcome out = watcher_.result();
  if (!out.result) {
    error_ = q(out.errors).trimmed();
    info_->setText(tr("%1 could not be simulated:\n%2").arg(pending_name_, error_.section(QLatin1Char('\n'), 0, 5)));
    emit finished(false);
    return;
  }
  error_.clear();
  show_result(*out.result, pending_name_);
  emit finished(true);
}

void FleetView::show_result(const fleet::FleetResult& r, const QString& name) {
  result_ = r;
  const auto& s = r.summary;
  QString text = tr("%1: %2 over %3 days, %4 seeds; %5 jobs per seed, utilisation %6%, wait P50 %7 h / P90 %8 h")
                     .arg(name, q(r.name))
                     .arg(q(units::format_grouped_half_up(r.horizon.seconds() / kSecondsPerDay, 0)))
                     .arg(r.seeds)
                     .arg(s.jobs)
                     .arg(q(units::format_grouped_half_up(100.0 * s.utilisation, 1)))
                     .arg(q(units::format_grouped_half_up(s.wait.p50.seconds() / 3600.0, 1)))
                     .arg(q(units::format_grouped_half_up(s.wait.p90.seconds() / 3600.0, 1)));
  text += tr(", cost %1").arg(q(s.cost.str()));
  if (s.margin) text += tr(", revenue %1, margin %2").arg(q(s.revenue->str()), q(s.margin->str()));
  if (s.unstarted > 0)
    text +=
        tr(", %1 jobs per seed never start within the horizon").arg(q(units::format_grouped_half_up(s.unstarted, 1)));
  if (s.deadline_misses > 0)
    text += tr(", %1 deadline misses per seed").arg(q(units::format_grouped_half_up(s.deadline_misses, 1)));
  text += QLatin1Char('.');
  for (const auto& w : r.warnings) text += QStringLiteral(" %1.").arg(q(w));
  info_->setText(text);

  const fleet::TimeSeries& ts = r.series;
  const double horizon_days = r.horizon.seconds() / kSecondsPerDay;
  const auto day_of = [&ts](std::size_t i) { return ts.bin_start[i].seconds() / kSecondsPerDay; };
  // Day ticks on round numbers: every day, week, 10 or 30 days as the horizon grows.
  const double tick = horizon_days <= 14 ? 1 : horizon_days <= 60 ? 7 : horizon_days <= 200 ? 10 : 30;
  const auto day_axis = [tick](QValueAxis* a) {
    a->setTickType(QValueAxis::TicksDynamic);
    a->setTickAnchor(0);
    a->setTickInterval(tick);
  };
  // Utilisation per pool (step-less lines through the bin starts).
  QChart* u = utilisation_->chart();
  clear_chart(u);
  auto* ux = new QValueAxis();
  auto* uy = new QValueAxis();
  ux->setTitleText(tr("day"));
  ux->setRange(0, horizon_days);
  ux->setLabelFormat(QStringLiteral("%.0f"));
  day_axis(ux);
  uy->setTitleText(tr("busy (%)"));  // short: the axis is as tall as a 1000 x 700 window leaves it
  uy->setRange(0, 100);
  uy->setLabelFormat(QStringLiteral("%.0f"));
  u->addAxis(ux, Qt::AlignBottom);
  u->addAxis(uy, Qt::AlignLeft);
  for (std::size_t p = 0; p < ts.pools.size() && p < ts.utilisation.size(); ++p) {
    auto* line = new QLineSeries();
    line->setName(q(ts.pools[p]));
    line->setColor(series_color(p));
    for (std::size_t i = 0; i < ts.bin_start.size() && i < ts.utilisation[p].size(); ++i)
      line->append(day_of(i), 100.0 * ts.utilisation[p][i]);
    u->addSeries(line);
    line->attachAxis(ux);
    line->attachAxis(uy);
  }
  // Queue: mean and P90 over seeds of jobs waiting; jobs running.
  QChart* qc = queue_->chart();
  clear_chart(qc);
  auto* qx = new QValueAxis();
  auto* qy = new QValueAxis();
  qx->setTitleText(tr("day"));
  qx->setRange(0, horizon_days);
  qx->setLabelFormat(QStringLiteral("%.0f"));
  day_axis(qx);
  qy->setTitleText(tr("jobs"));
  qc->addAxis(qx, Qt::AlignBottom);
  qc->addAxis(qy, Qt::AlignLeft);
  double top = 1;
  const auto add = [&](const std::vector<double>& values, const QString& title, const QColor& colour,
                       Qt::PenStyle style) {
    auto* line = new QLineSeries();
    line->setName(title);
    QPen pen(colour);
    pen.setWidthF(2);
    pen.setStyle(style);
    line->setPen(pen);
    for (std::size_t i = 0; i < ts.bin_start.size() && i < values.size(); ++i) {
      line->append(day_of(i), values[i]);
      top = std::max(top, values[i]);
    }
    qc->addSeries(line);
    line->attachAxis(qx);
    line->attachAxis(qy);
  };
  add(ts.queue_length, tr("waiting (mean over seeds)"), series_color(2), Qt::SolidLine);  // red
  add(ts.queue_length_p90, tr("waiting (P90 over seeds)"), series_color(2), Qt::DashLine);
  add(ts.running_jobs, tr("running (mean)"), series_color(0), Qt::SolidLine);  // blue
  qy->setRange(0, top * 1.1);
  qy->applyNiceNumbers();
  show_waits(r);
  show_money(r);
}

void FleetView::show_waits(const fleet::FleetResult& r) {
  QChart* c = waits_->chart();
  clear_chart(c);
  auto* p50 = new QBarSet(tr("P50 wait"));
  auto* p90 = new QBarSet(tr("P90 wait"));
  p50->setColor(series_color(0));
  p90->setColor(series_color(2));
  QStringList names;
  double top = 1;
  for (const auto& k : r.classes) {
    // A lower bound (jobs that never started) is marked "≥" in the category name.
    const bool bound = k.wait.p90_lower_bound || k.wait.p50_lower_bound;
    names << q(k.name) + (bound ? tr(" (≥)") : QString());
    p50->append(k.wait.p50.seconds() / 3600.0);
    p90->append(k.wait.p90.seconds() / 3600.0);
    top = std::max(top, k.wait.p90.seconds() / 3600.0);
  }
  auto* series = new QBarSeries();
  series->append(p50);
  series->append(p90);
  c->addSeries(series);
  auto* x = new QBarCategoryAxis();
  x->append(names);
  auto* y = new QValueAxis();
  y->setTitleText(tr("hours waited, all seeds"));
  y->setRange(0, top * 1.1);
  y->applyNiceNumbers();
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  c->setTitle(tr("Wait per job class (P50 and P90 over every job of every seed)"));
}

void FleetView::show_money(const fleet::FleetResult& r) {
  QChart* c = money_->chart();
  clear_chart(c);
  const bool revenue = r.summary.revenue.has_value();
  auto* cost = new QBarSet(tr("cost"));
  auto* rev = new QBarSet(tr("revenue"));
  auto* margin = new QBarSet(tr("margin"));
  cost->setColor(series_color(2));
  rev->setColor(series_color(0));
  margin->setColor(series_color(1));
  QStringList names;
  double lo = 0, hi = 1;
  const auto add = [&](const QString& name, const units::Money& k, const std::optional<units::Money>& v,
                       const std::optional<units::Money>& m) {
    names << name;
    cost->append(k.major());
    rev->append(v ? v->major() : 0.0);
    margin->append(m ? m->major() : 0.0);
    for (const double x : {k.major(), v ? v->major() : 0.0, m ? m->major() : 0.0}) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  };
  for (const auto& p : r.costs) add(q(p.pool), p.cost, p.revenue, p.margin);
  add(tr("all pools"), r.summary.cost, r.summary.revenue, r.summary.margin);
  auto* series = new QBarSeries();
  series->append(cost);
  if (revenue) {
    series->append(rev);
    series->append(margin);
  } else {
    delete rev;
    delete margin;
  }
  c->addSeries(series);
  auto* x = new QBarCategoryAxis();
  x->append(names);
  auto* y = new QValueAxis();
  // One currency: every figure is converted to the fleet's reporting currency.
  y->setTitleText(tr("%1 over the horizon (mean over seeds)").arg(q(r.currency.str())));
  y->setRange(lo * 1.1, hi * 1.1);
  y->applyNiceNumbers();
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  c->setTitle(revenue ? tr("Cost, revenue and margin per pool (%1)").arg(q(r.currency.str()))
                      : tr("Cost per pool (%1; the fleet has no revenue)").arg(q(r.currency.str())));
}

}  // namespace flopcast::gui

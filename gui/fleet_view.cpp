#include "fleet_view.hpp"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QThread>
#include <QVBoxLayout>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <exception>

#include "flopcast/app/fleet_request.hpp"
#include "flopcast/units/format.hpp"
#include "result_palette.hpp"

namespace flopcast::gui {
namespace {

constexpr double kSecondsPerDay = 86'400.0;

QString q(const std::string& s) { return QString::fromStdString(s); }

QChartView* make_chart(QWidget* parent) {
  auto* v = new QChartView(new QChart(), parent);
  v->setRenderHint(QPainter::Antialiasing);
  v->chart()->setAnimationOptions(QChart::NoAnimation);
  v->chart()->legend()->setAlignment(Qt::AlignRight);
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
  Diagnostics diags;
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
  auto* split = new QSplitter(Qt::Vertical, this);
  utilisation_ = make_chart(split);
  queue_ = make_chart(split);
  split->addWidget(utilisation_);
  split->addWidget(queue_);
  v->addWidget(split, 1);
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
                     .arg(q(format_grouped_half_up(r.horizon.seconds() / kSecondsPerDay, 0)))
                     .arg(r.seeds)
                     .arg(s.jobs)
                     .arg(q(format_grouped_half_up(100.0 * s.utilisation, 1)))
                     .arg(q(format_grouped_half_up(s.wait.p50.seconds() / 3600.0, 1)))
                     .arg(q(format_grouped_half_up(s.wait.p90.seconds() / 3600.0, 1)));
  text += tr(", cost %1").arg(q(s.cost.str()));
  if (s.margin) text += tr(", revenue %1, margin %2").arg(q(s.revenue->str()), q(s.margin->str()));
  if (s.unstarted > 0)
    text += tr(", %1 jobs per seed never start within the horizon").arg(q(format_grouped_half_up(s.unstarted, 1)));
  if (s.deadline_misses > 0)
    text += tr(", %1 deadline misses per seed").arg(q(format_grouped_half_up(s.deadline_misses, 1)));
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
  uy->setTitleText(tr("busy GPUs (%)"));
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
}

}  // namespace flopcast::gui

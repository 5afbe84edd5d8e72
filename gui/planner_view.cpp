#include "planner_view.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPromise>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>

#include "flopcast/app/plan_request.hpp"
#include "flopcast/app/scenario_session.hpp"
#include "flopcast/io/units_parse.hpp"
#include "flopcast/units/format.hpp"
#include "log_axis.hpp"
#include "qt_text.hpp"
#include "result_palette.hpp"

namespace flopcast::gui {
namespace {

constexpr double kSecondsPerDay = 86'400.0;

double days_of(const search::PricedPlan& p) { return p.candidate.wall.seconds() / kSecondsPerDay; }

bool has_cost(const search::PlanResult& r) { return !r.currency.empty(); }

/// The chart's y value: the bill (major units) when the search priced plans, else GPU-hours.
double y_of(const search::PlanResult& r, const search::PricedPlan& p) {
  return has_cost(r) ? p.cost.major() : p.candidate.gpu_hours;
}

}  // namespace

QString describe_plan(const search::PricedPlan& p) {
  const auto& c = p.candidate;
  QString text = QStringLiteral("%1 x %2, %3: %4 days")
                     .arg(q(c.gpu))
                     .arg(c.gpus)
                     .arg(q(parallel::plan_label(c.plan)))
                     .arg(q(units::format_grouped_half_up(days_of(p), 1)));
  if (!p.price_option.empty())
    text += QStringLiteral(", %1 (%2)").arg(q(p.cost.str()), q(p.price_label.empty() ? p.price_option : p.price_label));
  return text;
}

namespace {

/// "640 x H800, TP1 ...: 39.5 days and 17,408,000.00 CNY at P50; 43.2 days and 19,148,800.00 CNY
/// at P90 with the step at the band's x1.09 (H800 80G, daily)": a simulated plan, its days and
/// its bill paired on each footing the search used.
QString describe_simulated(const search::Resimulated& x, search::Confidence confidence) {
  const auto& c = x.plan.candidate;
  const auto days = [](units::Time t) { return QString::number(t.days(), 'f', 1) + QStringLiteral(" days"); };
  QString text = QStringLiteral("%1 x %2, %3: %4 and %5 at P50")
                     .arg(q(c.gpu))
                     .arg(c.gpus)
                     .arg(q(parallel::plan_label(c.plan)), days(x.wall_p50), q(x.cost_p50.str()));
  if (confidence == search::Confidence::P90 || x.band_factor != 1) {
    text += QStringLiteral("; %1 and %2 at %3").arg(days(x.wall), q(x.cost.str()), q(to_string(confidence)));
    if (x.band_factor != 1) text += QStringLiteral(" with the step at the band's x%1").arg(x.band_factor, 0, 'f', 2);
  }
  return text + QStringLiteral(" (%1)").arg(q(x.plan.price_label.empty() ? x.plan.price_option : x.plan.price_label));
}

}  // namespace

QString planner_summary(const search::PlanResult& r, bool constrained, search::Confidence confidence) {
  QString text = PlannerView::tr("%1 plans considered, %2 estimated in %3 s; %4 on the front.")
                     .arg(q(units::format_grouped(r.enumerated)))
                     .arg(q(units::format_grouped(r.estimated)))
                     .arg(r.seconds, 0, 'f', 1)
                     .arg(r.pareto.size());
  // "Best" as `flopcast plan` chooses it, on its simulated run; the fastest plan apart.
  if (r.chosen && constrained)
    text += PlannerView::tr(" Best (cheapest meeting the deadline and budget, simulated): %1.")
                .arg(describe_simulated(*r.chosen, confidence));
  else if (r.chosen)
    text += PlannerView::tr(
                " No deadline or budget: the cheapest plan, %1, is chosen however long it takes; set a deadline "
                "to trade cost for time.")
                .arg(describe_simulated(*r.chosen, confidence));
  else
    text += PlannerView::tr(" No plan meets the deadline and budget in simulation.");
  if (!r.pareto.empty() && (!r.best || r.pareto.front().candidate.index != r.best->candidate.index))
    text += PlannerView::tr(" Fastest (expected, closed form): %1.").arg(describe_plan(r.pareto.front()));
  for (const auto& s : r.infeasible) text += QStringLiteral(" %1.").arg(q(s));
  if (!has_cost(r)) text += PlannerView::tr(" No pricing block: the chart shows GPU-hours instead of cost.");
  return text + PlannerView::tr(" Click a point to load its plan into the editor.");
}

PlannerOutcome run_planner(const PlannerRequest& req, const io::Catalog& catalog) {
  PlannerOutcome out;
  out.constrained = req.deadline.has_value() || !req.budget.empty();
  out.confidence = req.confidence;
  app::SessionOutcome loaded = app::parse_scenario_session(req.yaml, req.file, catalog);
  if (!loaded.ok()) {
    if (loaded.profile_diags.has_errors())
      out.errors.push_back("calibration profile '" + loaded.profile_name + "' could not be loaded");
    else
      out.errors.push_back("the scenario has errors: fix them in the editor first");
    return out;
  }
  const scenario::Scenario& s = loaded.session->scenario;
  // The space and the options as `flopcast plan` builds them (app/plan_request.hpp): each GPU
  // type on its usual fabric (the scenario's cluster for its own GPU), the scenario's price
  // catalog first (its currency is the default) and then every shipped one.
  app::PlanRequest request;
  request.gpu_types = req.gpu_types;
  request.gpus_max = req.gpus_max > 0 ? req.gpus_max : s.cluster.gpus;
  request.threads = req.threads;
  request.cancel = req.cancel.get();
  request.deadline = req.deadline;
  request.budget = req.budget;
  request.confidence = req.confidence;
  search::PlanSpace space;
  search::PlannerOptions opt;
  std::string why;
  if (app::prepare_plan_space(catalog, s, request, space, why) != app::PlanProblem::None) {
    out.errors.push_back(why);
    return out;
  }
  scenario::Diagnostics diags;
  if (const auto problem = app::prepare_plan_options(s, request, catalog.data_dir, opt, why, diags);
      problem != app::PlanProblem::None) {
    out.errors.push_back(problem == app::PlanProblem::BadBudget ? "budget: " + why
                                                                : "price catalog '" + why + "' could not be loaded");
    return out;
  }
  auto found = search::search_plans(s, loaded.session->profile, space, opt);
  if (!found.ok()) {
    out.errors = found.errors;
    return out;
  }
  out.result = std::move(found.result);
  for (const auto* list : {&out.result->pareto, &out.result->fastest_per_count})
    for (const auto& p : *list)
      if (const hardware::GpuSpec* g = catalog.find_gpu(p.candidate.gpu); g && !out.bands.count(p.candidate.gpu))
        out.bands[p.candidate.gpu] =
            compute::find_band(loaded.session->profile.bands, g->arch, compute::band_regime(s));
  return out;
}

PlannerView::PlannerView(std::shared_ptr<const io::Catalog> catalog, QWidget* parent)
    : QWidget(parent), catalog_(std::move(catalog)) {
  auto* v = new QVBoxLayout(this);
  auto* top = new QHBoxLayout();
  auto* form = new QFormLayout();
  gpu_list_ = new QListWidget(this);
  for (const auto& g : catalog_->gpu_names()) {
    auto* item = new QListWidgetItem(q(g), gpu_list_);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  gpu_list_->setFlow(QListView::LeftToRight);
  gpu_list_->setWrapping(true);
  gpu_list_->setResizeMode(QListView::Adjust);  // rewrap on resize: every type visible
  gpu_list_->setMaximumHeight(3 * gpu_list_->fontMetrics().height() + 16);
  gpu_list_->setToolTip(tr("GPU types to search, each on its usual node and fabric (the scenario's own for its GPU)"));
  form->addRow(tr("GPU types:"), gpu_list_);
  auto* row = new QHBoxLayout();
  gpus_max_ = new QSpinBox(this);
  gpus_max_->setRange(1, 1'000'000);
  gpus_max_->setToolTip(
      tr("Largest GPU count searched (counts are multiples of the node size); starts at the scenario's GPU count"));
  gpus_max_->setGroupSeparatorShown(true);
  connect(gpus_max_, &QSpinBox::valueChanged, this, [this] {
    if (gpus_max_->hasFocus()) gpus_max_set_ = true;
  });
  row->addWidget(gpus_max_);
  row->addWidget(new QLabel(tr("Checked at:"), this));
  confidence_ = new QComboBox(this);
  confidence_->addItem(tr("P90"), static_cast<int>(search::Confidence::P90));
  confidence_->addItem(tr("P50"), static_cast<int>(search::Confidence::P50));
  confidence_->setToolTip(
      tr("Simulated percentile of the whole run that must meet the deadline and budget "
         "(`flopcast plan --confidence`)"));
  row->addWidget(confidence_);
  row->addStretch(1);
  form->addRow(tr("Max GPUs:"), row);
  // The deadline and the budget on a row of their own: at 1000 x 700 their hints stay whole.
  auto* limits = new QHBoxLayout();
  deadline_ = new QLineEdit(this);
  deadline_->setPlaceholderText(tr("none (e.g. 30d, 720h)"));
  deadline_->setToolTip(tr("Longest wall time of the whole run, with a unit: 30d, 720h, 2w; empty = none"));
  deadline_->setMinimumWidth(deadline_->fontMetrics().horizontalAdvance(deadline_->placeholderText()) + 16);
  limits->addWidget(deadline_, 1);
  limits->addWidget(new QLabel(tr("Budget:"), this));
  budget_ = new QLineEdit(this);
  budget_->setPlaceholderText(tr("none (e.g. 2.5M USD)"));
  budget_->setToolTip(
      tr("Largest bill with its currency, as `flopcast plan --budget` reads it: 2.5M USD, 500万 CNY, 5M RMB; "
         "empty = none"));
  budget_->setMinimumWidth(budget_->fontMetrics().horizontalAdvance(budget_->placeholderText()) + 16);
  limits->addWidget(budget_, 1);
  form->addRow(tr("Deadline:"), limits);
  top->addLayout(form, 1);
  auto* buttons = new QVBoxLayout();
  run_ = new QPushButton(tr("Search plans"), this);
  run_->setToolTip(tr("Runs `flopcast plan`'s search for the editor's scenario"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  busy_ = new QProgressBar(this);
  busy_->setRange(0, 0);
  busy_->setMaximumWidth(160);
  busy_->hide();
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  buttons->addWidget(busy_);
  top->addLayout(buttons);
  v->addLayout(top);
  info_ = new QLabel(
      tr("Search the plans of the editor's scenario: press Search plans. Click a point to load its plan."), this);
  info_->setWordWrap(true);
  v->addWidget(info_);

  auto* split = new QSplitter(Qt::Vertical, this);
  chart_ = new QChartView(new QChart(), split);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->chart()->setAnimationOptions(QChart::NoAnimation);
  // On the right, one entry a line: at the bottom, in a row, the entries were elided.
  chart_->chart()->legend()->setAlignment(Qt::AlignRight);
  chart_->chart()->legend()->setShowToolTips(true);  // an elided entry shows its whole text
  chart_->setMinimumHeight(220);
  table_ = new QTableWidget(split);
  table_->setColumnCount(7);
  table_->setHorizontalHeaderLabels(
      {tr("GPU"), tr("GPUs"), tr("Plan"), tr("Days"), tr("Cost"), tr("Price option"), tr("MFU")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(5, QHeaderView::Stretch);
  // Cells wrap rather than being cut off; a cell still shows its whole plan on hover.
  table_->setWordWrap(true);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setToolTip(tr("The time/cost Pareto front; double-click a row to load its plan"));
  split->addWidget(chart_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setSizes({560, 220});
  v->addWidget(split, 1);

  connect(run_, &QPushButton::clicked, this, &PlannerView::run);
  connect(cancel_, &QPushButton::clicked, this, &PlannerView::cancel);
  connect(&watcher_, &QFutureWatcherBase::finished, this, &PlannerView::on_finished);
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int r, int) {
    if (!result_ || r < 0 || r >= static_cast<int>(result_->pareto.size())) return;
    emit planChosen(result_->pareto[static_cast<std::size_t>(r)]);
  });
  rebuild_chart();
}

PlannerView::~PlannerView() { watcher_.waitForFinished(); }

void PlannerView::set_scenario(std::string yaml, std::string file, const std::string& gpu, std::int64_t gpus) {
  next_.yaml = std::move(yaml);
  next_.file = std::move(file);
  bool any = false;
  for (int i = 0; i < gpu_list_->count(); ++i) any = any || gpu_list_->item(i)->checkState() == Qt::Checked;
  if (!any) set_gpu_types({q(gpu)});
  // At least the scenario's own GPU count, unless the user chose a limit.
  if (!gpus_max_set_ && gpus > 0) gpus_max_->setValue(static_cast<int>(std::clamp<std::int64_t>(gpus, 1, 1'000'000)));
}

void PlannerView::set_gpu_types(const QStringList& names) {
  for (int i = 0; i < gpu_list_->count(); ++i) {
    QListWidgetItem* item = gpu_list_->item(i);
    bool on = false;
    for (const QString& n : names) on = on || n.trimmed().compare(item->text(), Qt::CaseInsensitive) == 0;
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
}

bool PlannerView::has_gpu_type(const QString& name) const {
  for (int i = 0; i < gpu_list_->count(); ++i)
    if (gpu_list_->item(i)->text().compare(name, Qt::CaseInsensitive) == 0) return true;
  return false;
}

void PlannerView::set_gpus_max(std::int64_t n) {
  gpus_max_set_ = true;
  gpus_max_->setValue(static_cast<int>(std::clamp<std::int64_t>(n, 1, 1'000'000)));
}

std::int64_t PlannerView::gpus_max() const { return gpus_max_->value(); }

void PlannerView::set_deadline_text(const QString& text) { deadline_->setText(text); }

void PlannerView::set_budget_text(const QString& text) { budget_->setText(text); }

void PlannerView::set_confidence(search::Confidence c) {
  confidence_->setCurrentIndex(confidence_->findData(static_cast<int>(c)));
}

search::Confidence PlannerView::confidence() const {
  return static_cast<search::Confidence>(confidence_->currentData().toInt());
}

bool PlannerView::parse_deadline(const QString& text, std::optional<units::Time>& out, QString& why) {
  const QString t = text.trimmed();
  out.reset();
  if (t.isEmpty() || t.compare(QLatin1String("none"), Qt::CaseInsensitive) == 0) return true;
  bool bare = false;
  t.toDouble(&bare);
  const auto d = bare ? std::nullopt : io::parse_duration(t.toStdString());
  if (!d || d->ns <= 0) {
    why = tr("deadline '%1' is not a duration with a unit (30d, 720h, 2w)").arg(t);
    return false;
  }
  out = *d;
  return true;
}

void PlannerView::run() {
  if (watcher_.isRunning()) {
    if (!cancelled_) return;  // one search at a time
    info_->setText(tr("The cancelled search is still finishing in the background; try again in a moment."));
    return;
  }
  PlannerRequest req = next_;
  req.gpu_types.clear();
  for (int i = 0; i < gpu_list_->count(); ++i)
    if (gpu_list_->item(i)->checkState() == Qt::Checked)
      req.gpu_types.push_back(gpu_list_->item(i)->text().toStdString());
  req.gpus_max = gpus_max_->value();
  QString why;
  if (!parse_deadline(deadline_->text(), req.deadline, why)) {
    info_->setText(tr("No search: %1").arg(why));
    emit finished(false);
    return;
  }
  req.budget = budget_->text().trimmed().toStdString();
  req.confidence = confidence();
  // Leave a core to the UI and the scenario computation.
  req.threads = std::max(1, QThread::idealThreadCount() - 1);
  cancelled_ = false;
  req.cancel = std::make_shared<std::atomic<bool>>(false);
  running_cancel_ = req.cancel;
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  busy_->show();
  info_->setText(
      tr("Searching plans for %n GPU type(s) up to %1 GPUs...", nullptr, static_cast<int>(req.gpu_types.size()))
          .arg(req.gpus_max));
  auto catalog = catalog_;
  watcher_.setFuture(QtConcurrent::run([catalog, req]() -> PlannerOutcome {
    try {
      return run_planner(req, *catalog);
    } catch (const std::exception& e) {
      PlannerOutcome failed;
      failed.errors.push_back(std::string("internal error in the plan search: ") + e.what());
      return failed;
    }
  }));
}

void PlannerView::cancel() {
  if (!watcher_.isRunning() || cancelled_) return;
  cancelled_ = true;
  if (running_cancel_) running_cancel_->store(true);  // the search stops at its next item
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  busy_->hide();
  info_->setText(tr("Search cancelled: it stops at its next GPU type and count. The chart keeps the previous search."));
  emit cancelled();
}

void PlannerView::on_finished() {
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  busy_->hide();
  if (cancelled_) {
    cancelled_ = false;
    return;
  }
  const PlannerOutcome out = watcher_.result();
  if (!out.result) {
    QStringList why;
    for (const auto& e : out.errors) why << q(e);
    info_->setText(tr("No search: %1").arg(why.join(QStringLiteral("; "))));
    emit finished(false);
    return;
  }
  bands_ = out.bands;
  show_result(*out.result, out.constrained, out.confidence);
  emit finished(true);
}

void PlannerView::show_result(const search::PlanResult& r, bool constrained, search::Confidence confidence) {
  result_ = r;
  info_->setText(planner_summary(r, constrained, confidence));
  table_->setRowCount(static_cast<int>(r.pareto.size()));
  for (std::size_t i = 0; i < r.pareto.size(); ++i) {
    const auto& p = r.pareto[i];
    const int row = static_cast<int>(i);
    const auto cell = [&](int col, const QString& s, bool number) {
      auto* item = new QTableWidgetItem(s);
      if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      item->setToolTip(s + QStringLiteral("\n\n") + describe_plan(p));
      table_->setItem(row, col, item);
    };
    cell(0, q(p.candidate.gpu), false);
    cell(1, QString::number(p.candidate.gpus), true);
    cell(2, q(parallel::plan_label(p.candidate.plan)), false);
    cell(3, QString::number(days_of(p), 'f', 1), true);
    cell(4, has_cost(r) ? q(p.cost.str()) : QString(), true);
    cell(5, q(p.price_label.empty() ? p.price_option : p.price_label), false);
    cell(6, QStringLiteral("%1%").arg(100.0 * p.candidate.mfu, 0, 'f', 1), true);
  }
  rebuild_chart();
}

void PlannerView::choose(std::size_t i) {
  if (i < points_.size()) emit planChosen(points_[i]);
}

void PlannerView::rebuild_chart() {
  QChart* c = chart_->chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
  points_.clear();
  if (!result_) {
    c->setTitle(tr("Days against cost of the best plans, by GPU type (run a search)"));
    return;
  }
  const search::PlanResult& r = *result_;
  const QString y_title = has_cost(r) ? tr("cost (%1)").arg(q(r.currency)) : tr("GPU-hours");
  bool any_band = false;
  for (const auto& [type, band] : bands_) any_band = any_band || band.known;
  c->setTitle(tr("Pareto front: days against %1 at the expected run, by GPU type (log)%2")
                  .arg(has_cost(r) ? tr("cost") : tr("GPU-hours"))
                  .arg(any_band ? tr("; lines: 80% band") : QString()));
  // Costs in thousands when large (as the Cost tab).
  double max_y = 0;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto* list : {&r.pareto, &r.fastest_per_count})
    for (const auto& p : *list) max_y = std::max(max_y, y_of(r, p));
  const double y_scale = max_y >= 1e5 ? 1e-3 : 1.0;
  for (const auto* list : {&r.pareto, &r.fastest_per_count})
    for (const auto& p : *list) {
      x0 = std::min(x0, days_of(p));
      x1 = std::max(x1, days_of(p));
      y0 = std::min(y0, y_of(r, p) * y_scale);
      y1 = std::max(y1, y_of(r, p) * y_scale);
    }
  if (!(x0 > 0) || !(y0 > 0)) x0 = y0 = 1, x1 = y1 = 10;
  // Room for the front points' 80% ranges of days.
  for (const auto& [type, band] : bands_)
    if (band.known) x0 = std::min(x0, x0 * band.p10), x1 = std::max(x1, x1 * band.p90);
  // Log scales labelled 1-2-5 per decade: GPU counts from one node to thousands span decades
  // of run time. The series plot log10 of their values (log_axis.hpp).
  // At most 7 labels across: with the legend beside it the chart is narrow at 1000 x 700.
  auto* ax = make_log_axis(std::max(1e-3, x0 / 1.25), x1 * 1.25, tr("days (expected wall time)"), 7);
  auto* ay = make_log_axis(std::max(1e-6, y0 / 1.25), y1 * 1.25,
                           y_scale == 1.0 ? y_title
                           : has_cost(r)  ? tr("cost (thousand %1)").arg(q(r.currency))
                                          : tr("thousand GPU-hours"));
  c->addAxis(ax, Qt::AlignBottom);
  c->addAxis(ay, Qt::AlignLeft);

  // GPU types in order of first appearance.
  std::vector<std::string> types;
  for (const auto* list : {&r.pareto, &r.fastest_per_count})
    for (const auto& p : *list)
      if (std::find(types.begin(), types.end(), p.candidate.gpu) == types.end()) types.push_back(p.candidate.gpu);
  const auto add_points = [&](QScatterSeries* s, const std::vector<const search::PricedPlan*>& plans) {
    std::vector<std::size_t> ids;
    for (const auto* p : plans) {
      s->append(log_coord(days_of(*p)), log_coord(y_of(r, *p) * y_scale));
      ids.push_back(points_.size());
      points_.push_back(*p);
    }
    c->addSeries(s);
    s->attachAxis(ax);
    s->attachAxis(ay);
    connect(s, &QScatterSeries::clicked, this, [this, ids, s](const QPointF& at) {
      // The nearest of this series' points, in screen distance.
      const QPointF click = chart_->chart()->mapToPosition(at, s);
      std::size_t best = ids.front();
      double best_d = std::numeric_limits<double>::infinity();
      for (std::size_t k = 0; k < ids.size(); ++k) {
        const QPointF pt = chart_->chart()->mapToPosition(s->at(static_cast<int>(k)), s);
        const double d = std::hypot(pt.x() - click.x(), pt.y() - click.y());
        if (d < best_d) {
          best_d = d;
          best = ids[k];
        }
      }
      choose(best);
    });
  };
  // The front as a line under its points.
  if (r.pareto.size() > 1) {
    auto* line = new QLineSeries();
    line->setName(tr("front"));
    line->setColor(QColor(0x88, 0x88, 0x88));
    for (const auto& p : r.pareto) line->append(log_coord(days_of(p)), log_coord(y_of(r, p) * y_scale));
    c->addSeries(line);
    line->attachAxis(ax);
    line->attachAxis(ay);
  }
  for (std::size_t t = 0; t < types.size(); ++t) {
    const QColor colour = series_color(t);
    std::vector<const search::PricedPlan*> front, others;
    for (const auto& p : r.pareto)
      if (p.candidate.gpu == types[t]) front.push_back(&p);
    for (const auto& p : r.fastest_per_count)
      if (p.candidate.gpu == types[t]) others.push_back(&p);
    if (!others.empty()) {
      auto* s = new QScatterSeries();
      s->setName(tr("%1 per count").arg(q(types[t])));
      s->setMarkerSize(7);
      QColor light = colour;
      light.setAlpha(110);
      s->setColor(light);
      s->setBorderColor(Qt::transparent);
      add_points(s, others);
    }
    // Each front point's 80% range of days (the step-time band of its generation applied to
    // the days: failures and checkpoints scale with the run), drawn under the point.
    const auto band = bands_.find(types[t]);
    if (band != bands_.end() && band->second.known) {
      for (const auto* p : front) {
        auto* range = new QLineSeries();
        QColor faint = colour;
        faint.setAlpha(150);
        QPen pen(faint);
        pen.setWidthF(2.5);
        range->setPen(pen);
        const double y = log_coord(y_of(r, *p) * y_scale);
        range->append(log_coord(days_of(*p) * band->second.p10), y);
        range->append(log_coord(days_of(*p) * band->second.p90), y);
        range->setName(tr("%1 80% band (x%2 to x%3)")
                           .arg(q(types[t]))
                           .arg(band->second.p10, 0, 'f', 2)
                           .arg(band->second.p90, 0, 'f', 2));
        c->addSeries(range);
        range->attachAxis(ax);
        range->attachAxis(ay);
        // The title names the ranges; one legend entry per point would crowd out the GPU types.
        c->legend()->markers(range).front()->setVisible(false);
      }
    }
    if (!front.empty()) {
      auto* s = new QScatterSeries();
      s->setName(tr("%1 front").arg(q(types[t])));
      s->setMarkerSize(13);
      s->setColor(colour);
      s->setBorderColor(colour.darker(150));
      add_points(s, front);
    }
  }
}

}  // namespace flopcast::gui

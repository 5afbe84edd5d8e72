#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDate>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QtCharts/QChartView>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "breakdown_chart.hpp"
#include "chart_export.hpp"
#include "claims_view.hpp"
#include "cost_chart.hpp"
#include "figure_table_model.hpp"
#include "fleet_view.hpp"
#include "flopcast/app/scenario_form.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/scenario_draft.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/scenario_writer.hpp"
#include "flopcast/io/yaml_patch.hpp"
#include "flopcast/units/format.hpp"
#include "form_edit_command.hpp"
#include "log_import_dialog.hpp"
#include "memory_chart.hpp"
#include "planner_view.hpp"
#include "qt_text.hpp"
#include "result_tables.hpp"
#include "scenario_computer.hpp"
#include "scenario_editor.hpp"
#include "sweep_view.hpp"
#include "timeline_view.hpp"

namespace flopcast::gui {
namespace {

/// The editor's narrowest width, and its share of a window not yet laid out by the user.
constexpr int kEditorMinWidth = 330;
constexpr double kEditorShare = 0.34;
constexpr int kEditorMaxWidth = 470;

/// Timelines with at most this many rows also get the zoomed detail view.
constexpr std::size_t kMaxDetailRows = 4;

/// A table that asks for the height of its rows (at most fit()'s `max_rows`) and can shrink to
/// two rows with a scroll bar, so a small window shrinks the table rather than clipping the tab.
class FittedTable : public QTableView {
 public:
  using QTableView::QTableView;
  void fit(int max_rows) {
    rows_ = std::clamp(model()->rowCount(), 1, max_rows);
    updateGeometry();
  }
  QSize sizeHint() const override { return {QTableView::sizeHint().width(), height_for(rows_)}; }
  QSize minimumSizeHint() const override {
    return {QTableView::minimumSizeHint().width(), height_for(std::min(rows_, 2))};
  }

 private:
  int height_for(int rows) const {
    // Room for the horizontal scroll bar when the columns are wider than the view.
    const int bar = horizontalHeader()->length() > viewport()->width() ? horizontalScrollBar()->sizeHint().height() : 0;
    // Each row as tall as it is (wrapped rows are taller), else the default.
    int height = 0;
    for (int r = 0; r < rows; ++r)
      height += r < model()->rowCount() ? rowHeight(r) : verticalHeader()->defaultSectionSize();
    return horizontalHeader()->sizeHint().height() + height + 2 * frameWidth() + 2 + bar;
  }
  int rows_ = 1;
};

/// A read-only table; `stretch` is the column that takes the spare width. Cut-off cells show
/// their whole text on hover (FigureTableModel's tooltip).
QTableView* make_table(FigureTableModel* model, QWidget* parent, int stretch) {
  auto* view = new FittedTable(parent);
  // Never taller than its rows: the chart above takes the spare height.
  view->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
  view->setModel(model);
  view->verticalHeader()->hide();
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view->horizontalHeader()->setSectionResizeMode(stretch, QHeaderView::Stretch);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  view->setShowGrid(false);
  view->setTextElideMode(Qt::ElideRight);
  return view;
}

/// Sizes `view` to show its rows (at most `max_rows`) when there is room; the chart above it
/// takes the rest of the tab.
void fit_height(QTableView* view, int max_rows) { static_cast<FittedTable*>(view)->fit(max_rows); }

/// "error: parallel.tp: tp 3 does not divide heads 32 (hint: ...)": the diagnostic without its
/// location when it points into the composed text rather than a file the user has; with it
/// ("quickstart.yaml:12:7: ...") when `file_text` (the unedited file itself was loaded).
QString problem_text(const scenario::Diagnostic& d, bool file_text) {
  if (file_text) return q(d.str());
  scenario::Diagnostic copy = d;
  copy.where = {};
  const std::string full = copy.str();
  const std::string prefix = scenario::SourceLocation{}.str() + ": ";
  return q(full.rfind(prefix, 0) == 0 ? full.substr(prefix.size()) : full);
}

/// The Summary of a scenario with errors: one row per diagnostic (severity, key, message), so
/// the tab the window opens on says what is wrong.
std::vector<TableRow> problem_rows(const app::ComputeResult& r, bool file_text) {
  std::vector<TableRow> rows;
  for (const auto& d : r.diags.items()) {
    TableRow t;
    t.cells = {d.severity == scenario::Severity::Error ? QStringLiteral("Error") : QStringLiteral("Warning"), q(d.key),
               q(d.message) + (d.hint.empty() ? QString() : QStringLiteral(" (hint: %1)").arg(q(d.hint)))};
    t.emphasis = d.severity == scenario::Severity::Error;
    t.tooltip = problem_text(d, file_text);
    rows.push_back(t);
  }
  return rows;
}

}  // namespace

MainWindow::MainWindow(std::shared_ptr<const io::Catalog> catalog, QWidget* parent)
    : QMainWindow(parent), catalog_(std::move(catalog)) {
  computer_ = new ScenarioComputer(catalog_, this);
  undo_ = new QUndoStack(this);
  editor_ = new ScenarioEditor(*catalog_, this);

  editor_scroll_ = new QScrollArea(this);
  editor_scroll_->setWidget(editor_);
  editor_scroll_->setWidgetResizable(true);
  editor_scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  editor_scroll_->setMinimumWidth(kEditorMinWidth);

  auto* problems_box = new QWidget(this);
  auto* pv = new QVBoxLayout(problems_box);
  pv->setContentsMargins(4, 0, 4, 0);
  pv->addWidget(new QLabel(tr("Problems"), problems_box));
  problems_ = new QListWidget(problems_box);
  problems_->setWordWrap(true);
  problems_->setAlternatingRowColors(true);
  problems_->setToolTip(tr("Click a problem to go to its field"));
  connect(problems_, &QListWidget::itemClicked, this,
          [this](QListWidgetItem* item) { show_field(item->data(Qt::UserRole).toString()); });
  pv->addWidget(problems_);

  auto* left = new QSplitter(Qt::Vertical, this);
  left->addWidget(editor_scroll_);
  left->addWidget(problems_box);
  left->setStretchFactor(0, 5);
  left->setStretchFactor(1, 1);
  left->setChildrenCollapsible(false);

  tabs_ = new QTabWidget(this);
  tabs_->addTab(build_summary_tab(), tr("Summary"));
  tabs_->addTab(build_timeline_tab(), tr("Timeline"));
  tabs_->addTab(build_breakdown_tab(), tr("Breakdown"));
  tabs_->addTab(build_memory_tab(), tr("Memory"));
  tabs_->addTab(build_cost_tab(), tr("Cost"));
  planner_ = new PlannerView(catalog_, this);
  tabs_->addTab(planner_, tr("Planner"));
  connect(planner_, &PlannerView::planChosen, this, &MainWindow::load_plan);
  sweep_ = new SweepView(this);
  tabs_->addTab(sweep_, tr("Sweep"));
  connect(sweep_, &SweepView::openRequested, this, &MainWindow::action_open_sweep);
  fleet_ = new FleetView(catalog_, this);
  tabs_->addTab(fleet_, tr("Fleet"));
  connect(fleet_, &FleetView::openRequested, this, &MainWindow::action_open_fleet);
  claims_ = new ClaimsView(catalog_, this);
  tabs_->addTab(claims_, tr("Claims"));
  yaml_view_ = new QPlainTextEdit(this);
  yaml_view_->setReadOnly(true);
  yaml_view_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  tabs_->addTab(yaml_view_, tr("YAML"));
  tabs_->setTabToolTip(tabs_->count() - 1,
                       tr("The scenario text the form composes: what `flopcast simulate` would read"));

  splitter_ = new QSplitter(Qt::Horizontal, this);
  splitter_->addWidget(left);
  splitter_->addWidget(tabs_);
  splitter_->setStretchFactor(0, 0);
  splitter_->setStretchFactor(1, 1);
  splitter_->setChildrenCollapsible(false);
  splitter_->setSizes({430, 970});
  // Until the user drags it (or settings restore it), the editor keeps a share of the width.
  connect(splitter_, &QSplitter::splitterMoved, this, [this] { splitter_placed_ = true; });
  // Compact tabs: all ten fit beside the editor at 1000 px.
  tabs_->setStyleSheet(QStringLiteral("QTabBar::tab { padding: 4px 7px; }"));
  tabs_->setElideMode(Qt::ElideNone);
  setCentralWidget(splitter_);

  status_text_ = new QLabel(this);
  statusBar()->addWidget(status_text_, 1);
  busy_bar_ = new QProgressBar(this);
  busy_bar_->setRange(0, 100);
  busy_bar_->setMaximumWidth(260);
  busy_bar_->setMinimumWidth(200);
  busy_bar_->setFormat(tr("%p%"));
  busy_bar_->hide();
  statusBar()->addPermanentWidget(busy_bar_);
  cancel_button_ = new QToolButton(this);
  cancel_button_->setText(tr("Cancel"));
  cancel_button_->setToolTip(tr("Stop this computation (Esc); the tabs keep the previous results"));
  cancel_button_->hide();
  connect(cancel_button_, &QToolButton::clicked, computer_, &ScenarioComputer::cancel);
  statusBar()->addPermanentWidget(cancel_button_);

  build_menus();
  add_export_menu(timeline_, QStringLiteral("flopcast-timeline"), tr("flopcast step timeline"));
  add_export_menu(breakdown_chart_, QStringLiteral("flopcast-breakdown"), tr("flopcast step breakdown"));
  add_export_menu(memory_chart_, QStringLiteral("flopcast-memory"), tr("flopcast memory per GPU"));
  add_export_menu(cost_calendar_, QStringLiteral("flopcast-cost-calendar"), tr("flopcast cost over the calendar"));
  add_export_menu(cost_chart_, QStringLiteral("flopcast-cost"), tr("flopcast cost"));
  add_export_menu(sweep_->chart_view(), QStringLiteral("flopcast-sweep"), tr("flopcast sweep"));
  add_export_menu(fleet_->utilisation_chart(), QStringLiteral("flopcast-fleet-utilisation"),
                  tr("flopcast fleet utilisation"));
  add_export_menu(fleet_->queue_chart(), QStringLiteral("flopcast-fleet-queue"), tr("flopcast fleet queue"));
  add_export_menu(planner_->chart_view(), QStringLiteral("flopcast-planner"), tr("flopcast plan search"));
  connect(editor_, &ScenarioEditor::edited, this, &MainWindow::on_edited);
  connect(computer_, &ScenarioComputer::resultsUpdated, this, &MainWindow::show_result);
  connect(computer_, &ScenarioComputer::busyChanged, this, &MainWindow::set_busy);
  connect(computer_, &ScenarioComputer::progressChanged, this, [this](int percent, const QString& stage) {
    busy_bar_->setValue(percent);
    busy_bar_->setFormat(tr("%p% %1").arg(stage));
    busy_bar_->setToolTip(stage);
  });
  connect(computer_, &ScenarioComputer::cancelled, this, [this] {
    status_text_->setText(
        tr("Computation cancelled: the tabs show the previous results. Edit or press F5 to compute again."));
  });
  connect(undo_, &QUndoStack::cleanChanged, this, &MainWindow::update_title);
  new_document();
}

MainWindow::~MainWindow() = default;

QWidget* MainWindow::build_summary_tab() {
  auto* w = new QWidget(this);
  auto* v = new QVBoxLayout(w);
  summary_title_ = new QLabel(w);
  summary_title_->setWordWrap(true);
  QFont f = summary_title_->font();
  f.setPointSizeF(f.pointSizeF() * 1.25);
  f.setBold(true);
  summary_title_->setFont(f);
  v->addWidget(summary_title_);
  summary_model_ = new FigureTableModel(summary_headers(), {1}, this);
  // Every figure's detail is read in full: long cells wrap and rows grow to fit them.
  QTableView* table = make_table(summary_model_, w, 2);
  table->setWordWrap(true);
  table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Interactive);
  table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  summary_view_ = table;
  v->addWidget(table, 1);
  return w;
}

QWidget* MainWindow::build_timeline_tab() {
  auto* w = new QWidget(this);
  auto* v = new QVBoxLayout(w);
  timeline_info_ = new QLabel(w);
  timeline_info_->setWordWrap(true);
  v->addWidget(timeline_info_);
  timeline_ = new TimelineView(w);
  v->addWidget(timeline_, 1);
  timeline_detail_label_ = new QLabel(tr("Detail: the first micro-batches, zoomed in."), w);
  v->addWidget(timeline_detail_label_);
  timeline_detail_ = new TimelineView(w);
  v->addWidget(timeline_detail_, 1);
  v->addWidget(new QLabel(tr("Per micro-batch, by pipeline stage:"), w));
  stage_model_ = new FigureTableModel(stage_headers(), {1, 2, 3, 4, 5, 6, 7}, this);
  stage_view_ = make_table(stage_model_, w, 7);
  v->addWidget(stage_view_);
  v->addStretch(0);
  return w;
}

QWidget* MainWindow::build_breakdown_tab() {
  auto* w = new QWidget(this);
  auto* v = new QVBoxLayout(w);
  breakdown_chart_ = new BreakdownChart(w);
  v->addWidget(breakdown_chart_, 1);
  breakdown_model_ = new FigureTableModel(breakdown_headers(), {1, 2}, this);
  breakdown_view_ = make_table(breakdown_model_, w, 0);
  v->addWidget(breakdown_view_);
  return w;
}

QWidget* MainWindow::build_memory_tab() {
  auto* w = new QWidget(this);
  auto* v = new QVBoxLayout(w);
  memory_chart_ = new MemoryChart(w);
  v->addWidget(memory_chart_, 1);
  memory_model_ = new FigureTableModel(memory_headers(), {1, 2}, this);
  memory_view_ = make_table(memory_model_, w, 0);
  v->addWidget(memory_view_);
  return w;
}

QWidget* MainWindow::build_cost_tab() {
  auto* w = new QWidget(this);
  auto* v = new QVBoxLayout(w);
  cost_notes_ = new QLabel(w);
  cost_notes_->setWordWrap(true);
  v->addWidget(cost_notes_);
  // Three pages, so that each chart has the tab's whole width at 1000 px: the bills with
  // their chart, the cost over the calendar, the whole run's figures.
  auto* pages = new QTabWidget(w);
  pages->setDocumentMode(true);
  auto* bills_page = new QWidget(pages);
  auto* bv = new QVBoxLayout(bills_page);
  bv->setContentsMargins(0, 4, 0, 0);
  cost_chart_ = new CostChart(bills_page);
  bv->addWidget(cost_chart_, 1);
  bill_model_ = new FigureTableModel(bill_headers(), {1, 2, 3}, this);
  bills_view_ = make_table(bill_model_, bills_page, 0);
  // Plan names and notes wrap in the tab's width rather than being cut off.
  bills_view_->setWordWrap(true);
  bills_view_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  bills_view_->horizontalHeader()->setSectionResizeMode(4, QHeaderView::Stretch);
  bv->addWidget(bills_view_);
  pages->addTab(bills_page, tr("Bills per plan"));
  cost_calendar_ = new CostCalendarChart(pages);
  pages->addTab(cost_calendar_, tr("Cost over the calendar"));
  run_model_ = new FigureTableModel(run_headers(), {1}, this);
  run_view_ = make_table(run_model_, pages, 2);
  pages->addTab(run_view_, tr("Whole run"));
  v->addWidget(pages, 1);
  return w;
}

QList<FigureTableModel*> MainWindow::models() const {
  return {summary_model_, stage_model_, breakdown_model_, memory_model_, run_model_, bill_model_};
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New"), QKeySequence(QKeySequence::New), this, &MainWindow::action_new);
  file->addAction(tr("&Open..."), QKeySequence(QKeySequence::Open), this, &MainWindow::action_open);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("Open S&weep CSV..."), this, &MainWindow::action_open_sweep);
  file->addAction(tr("Open &Fleet..."), this, &MainWindow::action_open_fleet);
  file->addAction(tr("&Import training logs..."), this,
                  [this] { import_training_logs_interactively(this, *catalog_); });
  file->addAction(tr("&Save"), QKeySequence(QKeySequence::Save), this, [this] { action_save(); });
  file->addAction(tr("Save &As..."), QKeySequence(QKeySequence::SaveAs), this, [this] { action_save_as(); });
  file->addSeparator();
  QMenu* exports = file->addMenu(tr("&Export"));
  exports->addAction(tr("Chart as &PNG..."), this, [this] { action_export_chart(false); });
  exports->addAction(tr("Chart as &SVG..."), this, [this] { action_export_chart(true); });
  QAction* pdf =
      exports->addAction(tr("&Quote as PDF..."), this, [this] { action_export_quote(quote::QuoteLanguage::En); });
  pdf->setToolTip(tr("The quote `flopcast quote --format pdf` writes for this scenario"));
  QAction* zh = exports->addAction(tr("Quote as PDF in &Chinese (中文)..."), this,
                                   [this] { action_export_quote(quote::QuoteLanguage::ZhCn); });
  zh->setToolTip(tr("The quote `flopcast quote --format pdf --lang zh-CN` writes for this scenario"));
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence(QKeySequence::Quit), this, &QWidget::close);
  rebuild_recent_menu();

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = undo_->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = undo_->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  edit->addAction(tr("Re&compute"), QKeySequence(Qt::Key_F5), this, [this] { recompute(true); });
  cancel_action_ =
      edit->addAction(tr("&Cancel computation"), QKeySequence(Qt::Key_Escape), computer_, &ScenarioComputer::cancel);
  cancel_action_->setEnabled(false);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < tabs_->count(); ++i)
    view->addAction(tabs_->tabText(i), QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)), this,
                    [this, i] { tabs_->setCurrentIndex(i); });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About flopcast-gui"), this, [this] {
    QMessageBox::about(this, tr("About flopcast-gui"),
                       tr("<b>flopcast-gui</b><p>What-if planning of LLM training: step time, MFU, memory, "
                          "timeline and cost, from the same models as the <tt>flopcast</tt> CLI.</p>"));
  });
}

void MainWindow::on_edited(const QString& key) {
  const io::ScenarioForm next = editor_->form_state();
  if (next == form_) return;
  undo_->push(new FormEditCommand(form_, next, key, [this](const io::ScenarioForm& f) { apply_form(f); }));
  form_ = next;
  recompute(false);
}

void MainWindow::apply_form(const io::ScenarioForm& f) {
  form_ = f;
  editor_->set_form_state(f);
  recompute(false);
}

std::string MainWindow::current_yaml() const { return io::compose_scenario_yaml(base_yaml_, form_, *catalog_); }

QString MainWindow::document_label() const {
  return path_.isEmpty() ? tr("untitled.yaml") : QFileInfo(path_).fileName();
}

void MainWindow::recompute(bool now) {
  // An unedited document is its file: loaded as `flopcast simulate` reads it, so that its
  // diagnostics name the file's lines.
  const bool unedited = form_ == saved_form_ && !base_yaml_.empty();
  std::string yaml = unedited ? base_yaml_ : current_yaml();
  yaml_view_->setPlainText(q(yaml));
  planner_->set_scenario(yaml, document_label().toStdString(), form_.gpu, form_.gpus);
  const std::string file = document_label().toStdString();
  if (now)
    computer_->schedule_now(std::move(yaml), file);
  else
    computer_->schedule(std::move(yaml), file);
}

std::shared_ptr<const app::ComputeResult> MainWindow::result() const { return computer_->latest(); }
bool MainWindow::computing() const { return computer_->busy(); }
bool MainWindow::is_modified() const { return !undo_->isClean(); }

void MainWindow::set_busy(bool busy) {
  busy_bar_->setVisible(busy);
  cancel_button_->setVisible(busy);
  cancel_action_->setEnabled(busy);
  if (busy) {
    busy_bar_->setValue(0);
    busy_bar_->setFormat(tr("%p% waiting"));
    status_text_->setText(tr("computing..."));
  }
}

void MainWindow::show_result() {
  const auto r = computer_->latest();
  if (!r) return;
  editor_->show_diagnostics(r->diags);
  problems_->clear();
  const bool file_text = !base_yaml_.empty() && r->yaml == base_yaml_;
  for (const auto& d : r->diags.items()) {
    auto* item = new QListWidgetItem(problem_text(d, file_text), problems_);
    item->setForeground(d.severity == scenario::Severity::Error ? QColor(0xB0, 0x00, 0x20) : QColor(0x8A, 0x5A, 0x00));
    item->setData(Qt::UserRole, q(d.key));
  }
  if (r->diags.empty()) {
    auto* item =
        new QListWidgetItem(tr("No problems: the scenario loads as `flopcast simulate` would read it."), problems_);
    item->setForeground(palette().color(QPalette::PlaceholderText));
    item->setFlags(Qt::NoItemFlags);
  }
  summary_model_->set_rows(r->ok() ? summary_rows(*r) : problem_rows(*r, file_text));
  breakdown_model_->set_rows(breakdown_rows(*r));
  memory_model_->set_rows(memory_rows(*r));
  run_model_->set_rows(run_rows(*r));
  bill_model_->set_rows(bill_rows(*r));
  stage_model_->set_rows(stage_rows(*r));
  bills_view_->setVisible(bill_model_->rowCount() > 0);
  summary_view_->horizontalHeader()->resizeSection(1, std::max(120, summary_view_->viewport()->width() / 3));
  fit_height(stage_view_, 6);
  fit_height(breakdown_view_, 12);
  fit_height(memory_view_, 12);
  fit_height(run_view_, 12);
  bills_view_->resizeRowsToContents();  // wrapped rows: their heights before the fit
  fit_height(bills_view_, 6);
  breakdown_chart_->set_result(*r);
  memory_chart_->set_result(*r);
  cost_chart_->set_result(*r);
  cost_calendar_->set_result(*r);
  timeline_->set_timeline(r->timeline);
  // A short pipeline leaves room for a zoomed view of its first micro-batches.
  const bool detail = r->ok() && !r->timeline.empty() && r->timeline.rows.size() <= kMaxDetailRows;
  timeline_detail_->setVisible(detail);
  timeline_detail_label_->setVisible(detail);
  if (detail) {
    units::Time per{0};
    for (const auto& st : r->report.est.stages) per = std::max(per, st.per_microbatch() + units::Time{2 * st.p2p.ns});
    const double window = 2.2 * static_cast<double>(per.ns) * static_cast<double>(r->report.est.stages.size());
    timeline_detail_->set_timeline(r->timeline);
    if (window > 0) timeline_detail_->set_zoom(static_cast<double>(r->timeline.end.ns) / window, 0);
  }

  int errors = 0;
  for (const auto& d : r->diags.items()) errors += d.severity == scenario::Severity::Error ? 1 : 0;
  if (r->ok()) {
    const auto& e = r->report.est;
    const scenario::Scenario& s = *r->scenario;
    QString title =
        QStringLiteral("%1: step %2, MFU %3")
            .arg(q(s.name.empty() ? s.model.display : s.name), q(units::format_time(e.step)), percent_text(e.mfu));
    if (s.training.tokens > 0)
      title += QStringLiteral(", %1 to train").arg(days_text(units::Time::from_seconds(r->report.train_seconds)));
    if (!r->report.fits_memory) title += tr(" (does not fit memory)");
    summary_title_->setText(title);
    summary_title_->setStyleSheet(r->report.fits_memory ? QString() : QStringLiteral("color: #b00020;"));
    status_text_->setText(tr("step %1, MFU %2, %3 tokens/s")
                              .arg(q(units::format_time(e.step)), percent_text(e.mfu))
                              .arg(q(units::format_grouped_half_up(e.tokens_per_s, 0))));
    const app::Timeline& t = r->timeline;
    QString info =
        t.simulated
            ? tr("One step simulated event by event (DES), %1 schedule, %2 micro-batches per pipeline, %3 stage(s): "
                 "step %4 (closed-form estimate %5); one row per stage and stream. "
                 "Wheel zooms, drag pans, double-click fits, hover for times.")
            : tr("One step, %1 schedule, %2 micro-batches per pipeline, %3 stage(s): laid out %4, estimate %5. "
                 "Wheel zooms, drag pans, double-click fits, hover for times.");
    info = info.arg(q(t.schedule).toUpper())
               .arg(t.microbatches)
               .arg(s.plan.pp)
               .arg(q(units::format_time(t.simulated ? e.step : t.end)), q(units::format_time(t.estimate_step)));
    for (const auto& n : t.notes) info += QStringLiteral(" Note: %1.").arg(q(n));
    timeline_info_->setText(info);
  } else {
    summary_title_->setText(tr("The scenario has %n error(s): see the editor", nullptr, errors));
    summary_title_->setStyleSheet(QStringLiteral("color: #b00020;"));
    status_text_->setText(tr("%n error(s)", nullptr, errors));
    timeline_info_->setText(QString());
  }
  QStringList notes;
  for (const auto& n : r->cost_notes) notes << q(n);
  cost_notes_->setText(notes.join(QLatin1Char('\n')));
  cost_notes_->setVisible(!notes.isEmpty());
  emit resultsUpdated();
}

void MainWindow::show_field(const QString& key) {
  const QString field_key = editor_->field_key_for(key);
  QWidget* target = editor_->field(field_key);
  if (!target) target = editor_->message_label(field_key);
  if (!target) return;
  editor_scroll_->ensureWidgetVisible(target);
  target->setFocus(Qt::OtherFocusReason);
}

void MainWindow::load_plan(const search::PricedPlan& plan) {
  const auto& c = plan.candidate;
  const auto& p = c.plan;
  io::ScenarioForm next = form_;
  next.gpu = c.gpu;
  next.gpus = c.gpus;
  io::set_parallel_plan(next, p);
  if (next == form_) return;
  undo_->push(new FormEditCommand(form_, next, QStringLiteral("planner"),
                                  [this](const io::ScenarioForm& f) { apply_form(f); }));
  form_ = next;
  editor_->set_form_state(next);
  recompute(true);
  status_text_->setText(tr("loaded from the planner: %1").arg(describe_plan(plan)));
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  if (splitter_placed_) return;
  const int editor = std::clamp(static_cast<int>(width() * kEditorShare), kEditorMinWidth, kEditorMaxWidth);
  splitter_->setSizes({editor, std::max(1, width() - editor)});
}

}  // namespace flopcast::gui

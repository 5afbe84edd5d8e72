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

const QString kRecentKey = QStringLiteral("recentFiles");
const QString kLastDirKey = QStringLiteral("lastDirectory");

QString q(const std::string& s) { return QString::fromStdString(s); }

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
QString problem_text(const Diagnostic& d, bool file_text) {
  if (file_text) return q(d.str());
  Diagnostic copy = d;
  copy.where = {};
  const std::string full = copy.str();
  const std::string prefix = SourceLocation{}.str() + ": ";
  return q(full.rfind(prefix, 0) == 0 ? full.substr(prefix.size()) : full);
}

/// The Summary of a scenario with errors: one row per diagnostic (severity, key, message), so
/// the tab the window opens on says what is wrong.
std::vector<TableRow> problem_rows(const app::ComputeResult& r, bool file_text) {
  std::vector<TableRow> rows;
  for (const auto& d : r.diags.items()) {
    TableRow t;
    t.cells = {d.severity == Severity::Error ? QStringLiteral("Error") : QStringLiteral("Warning"), q(d.key),
               q(d.message) + (d.hint.empty() ? QString() : QStringLiteral(" (hint: %1)").arg(q(d.hint)))};
    t.emphasis = d.severity == Severity::Error;
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

QStringList MainWindow::tab_names() {
  QStringList names = {QStringLiteral("summary"), QStringLiteral("timeline"), QStringLiteral("breakdown"),
                       QStringLiteral("memory"), QStringLiteral("cost")};
  names << QStringLiteral("planner");
  names << QStringLiteral("sweep") << QStringLiteral("fleet") << QStringLiteral("claims") << QStringLiteral("yaml");
  return names;
}

bool MainWindow::select_tab(const QString& name) {
  const auto i = tab_names().indexOf(name.toLower());
  if (i < 0) return false;
  tabs_->setCurrentIndex(static_cast<int>(i));
  return true;
}

QStringList MainWindow::chart_tabs() {
  QStringList names = {QStringLiteral("timeline"), QStringLiteral("breakdown"), QStringLiteral("memory"),
                       QStringLiteral("cost")};
  names << QStringLiteral("planner");
  names << QStringLiteral("sweep") << QStringLiteral("fleet");
  return names;
}

QWidget* MainWindow::chart_widget(const QString& tab) const {
  const QString t = tab.toLower();
  if (t == QLatin1String("timeline")) return timeline_;
  if (t == QLatin1String("breakdown")) return breakdown_chart_;
  if (t == QLatin1String("memory")) return memory_chart_;
  if (t == QLatin1String("cost")) return cost_chart_;
  if (t == QLatin1String("planner")) return planner_->chart_view();
  if (t == QLatin1String("sweep")) return sweep_->chart_view();
  if (t == QLatin1String("fleet")) return fleet_->utilisation_chart();
  return nullptr;
}

bool MainWindow::export_chart(const QString& tab, const QString& path, QString* error) {
  QWidget* chart = chart_widget(tab);
  if (!chart) {
    if (error) *error = tr("the %1 tab has no chart (charts: %2)").arg(tab, chart_tabs().join(QStringLiteral(", ")));
    return false;
  }
  return export_picture(chart, path, tr("flopcast %1: %2").arg(tab, document_label()), error);
}

void MainWindow::action_export_chart(bool svg) {
  const QString tab = tab_names().value(tabs_->currentIndex());
  QWidget* chart = chart_widget(tab);
  if (!chart) {
    QMessageBox::information(
        this, tr("No chart"),
        tr("The current tab has no chart. Charts: %1.").arg(chart_tabs().join(QStringLiteral(", "))));
    return;
  }
  export_interactively(chart, svg ? PictureFormat::Svg : PictureFormat::Png,
                       QStringLiteral("%1-%2").arg(QFileInfo(document_label()).completeBaseName(), tab),
                       tr("flopcast %1: %2").arg(tab, document_label()));
}

QuoteDocument MainWindow::quote_document(const std::string& date, const std::string& customer,
                                         QuoteLanguage language) const {
  const auto r = result();
  if (!r) {
    QuoteDocument none;
    none.errors.push_back("nothing computed yet");
    return none;
  }
  return make_quote_document(*r, *catalog_, date, customer, language);
}

void MainWindow::action_export_quote(QuoteLanguage language) {
  const auto r = result();
  if (quote_running_) return;
  if (!r || !r->ok() || computing()) {
    QMessageBox::information(
        this, tr("No quote yet"),
        tr("The quote is made from the scenario's results: wait for them and fix any errors first."));
    return;
  }
  QSettings settings;
  const QString dir = settings.value(kLastDirKey, QDir::homePath()).toString();
  QString path =
      QFileDialog::getSaveFileName(this, tr("Export quote as PDF"),
                                   QDir(dir).filePath(QFileInfo(document_label()).completeBaseName() +
                                                      (language == QuoteLanguage::ZhCn ? QStringLiteral("-quote-zh.pdf")
                                                                                       : QStringLiteral("-quote.pdf"))),
                                   tr("PDF documents (*.pdf)"));
  if (path.isEmpty()) return;
  if (!path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)) path += QStringLiteral(".pdf");
  const std::string date = QDate::currentDate().toString(Qt::ISODate).toStdString();
  // The quote runs the whole-run Monte Carlo again, as `flopcast quote` does: off the UI thread.
  quote_running_ = true;
  status_text_->setText(tr("preparing the quote..."));
  auto* watcher = new QFutureWatcher<QuoteDocument>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path] {
    quote_running_ = false;
    watcher->deleteLater();
    const QuoteDocument doc = watcher->result();
    if (!doc.ok()) {
      QStringList why;
      for (const auto& e : doc.errors) why << q(e);
      status_text_->setText(tr("no quote"));
      QMessageBox::warning(this, tr("No quote"),
                           tr("No quote for this scenario:\n%1").arg(why.join(QLatin1Char('\n'))));
      return;
    }
    QString error;
    if (!write_quote_pdf(doc, path, &error)) {
      status_text_->setText(tr("the quote was not written"));
      QMessageBox::critical(this, tr("Cannot export the quote"), error);
      return;
    }
    status_text_->setText(tr("wrote %1: quote %2").arg(QDir::toNativeSeparators(path), q(doc.summary)));
  });
  auto catalog = catalog_;
  watcher->setFuture(QtConcurrent::run(
      [r, catalog, date, language] { return make_quote_document(*r, *catalog, date, {}, language); }));
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
  QAction* pdf = exports->addAction(tr("&Quote as PDF..."), this, [this] { action_export_quote(QuoteLanguage::En); });
  pdf->setToolTip(tr("The quote `flopcast quote --format pdf` writes for this scenario"));
  QAction* zh = exports->addAction(tr("Quote as PDF in &Chinese (中文)..."), this,
                                   [this] { action_export_quote(QuoteLanguage::ZhCn); });
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
    item->setForeground(d.severity == Severity::Error ? QColor(0xB0, 0x00, 0x20) : QColor(0x8A, 0x5A, 0x00));
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
    Time per{0};
    for (const auto& st : r->report.est.stages) per = std::max(per, st.per_microbatch() + Time{2 * st.p2p.ns});
    const double window = 2.2 * static_cast<double>(per.ns) * static_cast<double>(r->report.est.stages.size());
    timeline_detail_->set_timeline(r->timeline);
    if (window > 0) timeline_detail_->set_zoom(static_cast<double>(r->timeline.end.ns) / window, 0);
  }

  int errors = 0;
  for (const auto& d : r->diags.items()) errors += d.severity == Severity::Error ? 1 : 0;
  if (r->ok()) {
    const auto& e = r->report.est;
    const Scenario& s = *r->scenario;
    QString title = QStringLiteral("%1: step %2, MFU %3")
                        .arg(q(s.name.empty() ? s.model.display : s.name), q(format_time(e.step)), percent_text(e.mfu));
    if (s.training.tokens > 0)
      title += QStringLiteral(", %1 to train").arg(days_text(Time::from_seconds(r->report.train_seconds)));
    if (!r->report.fits_memory) title += tr(" (does not fit memory)");
    summary_title_->setText(title);
    summary_title_->setStyleSheet(r->report.fits_memory ? QString() : QStringLiteral("color: #b00020;"));
    status_text_->setText(tr("step %1, MFU %2, %3 tokens/s")
                              .arg(q(format_time(e.step)), percent_text(e.mfu))
                              .arg(q(format_grouped_half_up(e.tokens_per_s, 0))));
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
               .arg(q(format_time(t.simulated ? e.step : t.end)), q(format_time(t.estimate_step)));
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

void MainWindow::update_title() {
  const QString name = form_.name.empty() ? document_label() : q(form_.name);
  setWindowTitle(QStringLiteral("%1[*] - %2 - flopcast").arg(name, document_label()));
  setWindowModified(!undo_->isClean());
}

void MainWindow::new_document() {
  opened_with_errors_ = false;
  path_.clear();
  base_yaml_.clear();
  form_ = app::default_form(*catalog_);
  saved_form_ = form_;
  file_time_ = {};
  editor_->set_form_state(form_);
  undo_->clear();
  undo_->setClean();
  update_title();
  recompute(true);
}

bool MainWindow::open_file(const QString& path, QString* error, bool allow_errors) {
  Diagnostics diags;
  const std::string file = path.toStdString();
  const auto text = io::read_text_file(file, diags);
  if (text && io::looks_like_fleet_file(*text)) {
    if (error)
      *error = tr("%1: this is a fleet file: open it with --fleet (File > Open Fleet...), not as a scenario").arg(path);
    return false;
  }
  std::optional<Scenario> s;
  if (text) s = io::parse_scenario(*text, file, *catalog_, diags);
  if (!s && (!text || !allow_errors)) {
    if (error) *error = q(diags.str()).trimmed();
    return false;
  }
  if (!s && error) *error = q(diags.str()).trimmed();
  opened_with_errors_ = !s;
  path_ = QFileInfo(path).absoluteFilePath();
  base_yaml_ = *text;
  form_ = s ? io::form_from_scenario(*s, *text) : io::draft_form(*text, *catalog_, app::default_form(*catalog_));
  saved_form_ = form_;
  file_time_ = QFileInfo(path_).lastModified();
  editor_->set_form_state(form_);
  undo_->clear();
  undo_->setClean();
  update_title();
  add_recent(path_);
  recompute(true);
  return true;
}

bool MainWindow::save_to(const QString& path, QString* error) {
  // The edits are patched into the text the document was read from: its comments, key order
  // and layout stay (an unedited document is written as it was read).
  std::string text;
  if (form_ == saved_form_ && !base_yaml_.empty()) {
    text = base_yaml_;
  } else {
    std::string why;
    const auto patched = io::patch_scenario_text(base_yaml_, saved_form_, form_, *catalog_, why);
    text = patched ? *patched : current_yaml();
    if (!patched)
      status_text_->setText(tr("saved as composed text (comments not kept: %1); the backup keeps them").arg(q(why)));
  }
  const QString target = QFileInfo(path).absoluteFilePath();
  if (QFileInfo::exists(target)) {
    const QString backup = target + QStringLiteral(".bak");
    QFile::remove(backup);
    if (!QFile::copy(target, backup)) {
      if (error) *error = tr("cannot keep a backup of %1 as %2").arg(target, backup);
      return false;
    }
  }
  std::string why;
  if (!io::write_file_atomically(target.toStdString(), text, true, why)) {
    if (error) *error = q(why);
    return false;
  }
  path_ = target;
  base_yaml_ = text;
  saved_form_ = form_;
  file_time_ = QFileInfo(path_).lastModified();
  undo_->setClean();
  update_title();
  add_recent(path_);
  return true;
}

void MainWindow::action_new() {
  if (maybe_save()) new_document();
}

void MainWindow::action_open() {
  if (!maybe_save()) return;
  QSettings settings;
  const QString dir = settings.value(kLastDirKey).toString();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open scenario"), dir, tr("Scenarios (*.yaml *.yml);;All files (*)"));
  if (!path.isEmpty()) open_interactively(path);
}

void MainWindow::open_interactively(const QString& path) {
  QString error;
  if (open_file(path, &error)) {
    QSettings().setValue(kLastDirKey, QFileInfo(path).absolutePath());
    return;
  }
  QMessageBox box(QMessageBox::Warning, tr("Cannot open scenario"),
                  tr("%1 could not be loaded. The current document is unchanged.").arg(QFileInfo(path).fileName()),
                  QMessageBox::Ok, this);
  box.setInformativeText(error.section(QLatin1Char('\n'), 0, 4));
  box.setDetailedText(error);
  box.exec();
}

bool MainWindow::action_save() {
  if (path_.isEmpty()) return action_save_as();
  if (QFileInfo::exists(path_) && file_time_.isValid() && QFileInfo(path_).lastModified() != file_time_) {
    const auto answer = QMessageBox::warning(
        this, tr("File changed on disk"),
        tr("%1 was changed by another program since it was opened. Overwrite it? The other version is kept as %2.bak.")
            .arg(QFileInfo(path_).fileName(), QFileInfo(path_).fileName()),
        QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Save) return false;
  }
  QString error;
  if (save_to(path_, &error)) return true;
  QMessageBox::critical(this, tr("Cannot save"), error);
  return false;
}

bool MainWindow::action_save_as() {
  QSettings settings;
  const QString start = path_.isEmpty() ? settings.value(kLastDirKey).toString() : path_;
  QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), start, tr("Scenarios (*.yaml *.yml)"), nullptr,
                                              QFileDialog::DontConfirmOverwrite);
  if (path.isEmpty()) return false;
  if (!path.endsWith(QLatin1String(".yaml")) && !path.endsWith(QLatin1String(".yml"))) path += QStringLiteral(".yaml");
  if (QFileInfo::exists(path)) {
    const auto answer = QMessageBox::question(
        this, tr("Replace file?"),
        tr("%1 already exists. Replace it? The current file is kept as %1.bak.").arg(QFileInfo(path).fileName()),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes) return false;
  }
  QString error;
  if (save_to(path, &error)) {
    settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    return true;
  }
  QMessageBox::critical(this, tr("Cannot save"), error);
  return false;
}

bool MainWindow::maybe_save() {
  if (!is_modified()) return true;
  const auto answer =
      QMessageBox::warning(this, tr("Unsaved changes"), tr("%1 has unsaved changes. Save them?").arg(document_label()),
                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return action_save();
  return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybe_save()) {
    event->ignore();
    return;
  }
  save_settings();
  event->accept();
}

void MainWindow::add_recent(const QString& path) {
  QSettings settings;
  QStringList files = settings.value(kRecentKey).toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  settings.setValue(kRecentKey, files);
  rebuild_recent_menu();
}

bool MainWindow::open_sweep(const QString& path, QString* error) { return sweep_->open(path, error); }

void MainWindow::open_fleet(const QString& path) { fleet_->open(path); }

void MainWindow::action_open_fleet() {
  QSettings settings;
  const QString dir = settings.value(QStringLiteral("fleetDirectory"), settings.value(kLastDirKey)).toString();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open fleet"), dir, tr("Fleet files (*.yaml *.yml);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(QStringLiteral("fleetDirectory"), QFileInfo(path).absolutePath());
  open_fleet(path);
  select_tab(QStringLiteral("fleet"));
}

void MainWindow::action_open_sweep() {
  QSettings settings;
  const QString dir = settings.value(QStringLiteral("sweepDirectory"), settings.value(kLastDirKey)).toString();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open sweep CSV"), dir, tr("Sweep results (*.csv);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!open_sweep(path, &error)) {
    QMessageBox::warning(this, tr("Cannot open sweep"), error);
    return;
  }
  settings.setValue(QStringLiteral("sweepDirectory"), QFileInfo(path).absolutePath());
  select_tab(QStringLiteral("sweep"));
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

QStringList MainWindow::recent_files() const { return QSettings().value(kRecentKey).toStringList(); }

QStringList MainWindow::recent_menu_titles() const {
  QStringList titles;
  for (const QAction* a : recent_menu_->actions()) titles << a->text();
  return titles;
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList files = QSettings().value(kRecentKey).toStringList();
  for (const QString& f : files) {
    QAction* a = recent_menu_->addAction(QFileInfo(f).fileName(), this, [this, f] {
      if (maybe_save()) open_interactively(f);
    });
    a->setToolTip(f);
    a->setEnabled(QFileInfo::exists(f));
  }
  recent_menu_->setEnabled(!files.isEmpty());
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  if (splitter_placed_) return;
  const int editor = std::clamp(static_cast<int>(width() * kEditorShare), kEditorMinWidth, kEditorMaxWidth);
  splitter_->setSizes({editor, std::max(1, width() - editor)});
}

void MainWindow::restore_settings() {
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
  splitter_placed_ = splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
  tabs_->setCurrentIndex(settings.value(QStringLiteral("tab"), 0).toInt());
}

void MainWindow::save_settings() const {
  QSettings settings;
  settings.setValue(QStringLiteral("geometry"), saveGeometry());
  settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
  settings.setValue(QStringLiteral("tab"), tabs_->currentIndex());
}

}  // namespace flopcast::gui

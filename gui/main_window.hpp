#pragma once
/// The flopcast-gui window: the scenario editor on the left (with the loader's problems
/// under it), the result tabs on the right (Summary, Timeline, Breakdown, Memory, Cost, YAML),
/// File menu with open/save/recent files, Edit menu with undo/redo of form edits.
///
/// A document is the YAML text it was opened from plus the form's state; every edit
/// composes new YAML (io/scenario_writer.hpp) and recomputes it in the background
/// (ScenarioComputer). Non-interactive entry points (open_file, save_to, select_tab) serve
/// the command line and the tests; the menu actions wrap them with dialogs.
#include <QDateTime>
#include <QMainWindow>

#include <memory>

#include "flopcast/app/compute_result.hpp"
#include "flopcast/io/scenario_form.hpp"
#include "flopcast/search/planner.hpp"
#include "quote_export.hpp"

class QAction;
class QLabel;
class QToolButton;
class QListWidget;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QScrollArea;
class QSplitter;
class QTabWidget;
class QTableView;
class QUndoStack;

namespace flopcast::gui {

class BreakdownChart;
class CostChart;
class CostCalendarChart;
class FigureTableModel;
class MemoryChart;
class ScenarioComputer;
class ScenarioEditor;
class TimelineView;
class SweepView;
class ClaimsView;
class FleetView;
class PlannerView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// Most recent files kept in the File menu.
  static constexpr int kMaxRecentFiles = 8;

  explicit MainWindow(std::shared_ptr<const io::Catalog> catalog, QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens a scenario file. On any error the current document stays as it is and `error`
  /// gets the loader's diagnostics (file:line:col, key, message, hint), one per line.
  /// With `allow_errors`, a file that reads but does not load (a typo, a bad value) opens as
  /// well: the form shows what the file says (io::draft_form), the fields its diagnostics
  /// name are marked and the Problems list names file:line; open_file then returns true and
  /// opened_with_errors() tells. A fleet file is refused with one message saying so.
  bool open_file(const QString& path, QString* error = nullptr, bool allow_errors = false);
  /// True when the document was opened from a file that does not load (see open_file).
  bool opened_with_errors() const { return opened_with_errors_; }
  /// Writes the document to `path` (an existing file is first copied to PATH.bak) and makes
  /// it the document's file. The edits since the file was opened or saved are patched into
  /// its text (io::patch_scenario_text): comments, key order and layout are kept. No
  /// questions asked: the menu actions ask first.
  bool save_to(const QString& path, QString* error = nullptr);
  /// Starts an unsaved document with the default form.
  void new_document();

  /// Opens a sweep CSV in the Sweep tab (errors name file:line).
  bool open_sweep(const QString& path, QString* error = nullptr);
  SweepView* sweep_view() const { return sweep_; }
  /// Simulates a fleet file in the Fleet tab (in the background; FleetView::finished tells).
  void open_fleet(const QString& path);
  FleetView* fleet_view() const { return fleet_; }
  /// The Claims tab (a claims file judged as `flopcast check` judges it).
  ClaimsView* claims_view() const { return claims_; }
  PlannerView* planner_view() const { return planner_; }
  /// Loads a plan the planner found into the editor (one undoable edit) and recomputes.
  void load_plan(const search::PricedPlan& plan);

  /// Shows the tab named `name` (summary, timeline, breakdown, memory, cost, planner, sweep,
  /// fleet, claims, yaml; any case).
  bool select_tab(const QString& name);
  /// The tab names select_tab() accepts, in order.
  static QStringList tab_names();

  /// The YAML text the current form composes.
  std::string current_yaml() const;
  /// The latest result shown (null before the first).
  std::shared_ptr<const app::ComputeResult> result() const;
  /// True while a computation for the current form is pending or running.
  bool computing() const;
  /// True when the document has edits not saved.
  bool is_modified() const;
  QString file_path() const { return path_; }

  ScenarioEditor* editor() const { return editor_; }
  ScenarioComputer* computer() const { return computer_; }
  QUndoStack* undo_stack() const { return undo_; }
  QTabWidget* tabs() const { return tabs_; }
  TimelineView* timeline_view() const { return timeline_; }
  BreakdownChart* breakdown_chart() const { return breakdown_chart_; }
  MemoryChart* memory_chart() const { return memory_chart_; }
  CostChart* cost_chart() const { return cost_chart_; }
  CostCalendarChart* cost_calendar() const { return cost_calendar_; }
  /// The item models of the tabs (for QAbstractItemModelTester).
  QList<FigureTableModel*> models() const;
  QListWidget* problems_view() const { return problems_; }

  /// The chart of the tab named `tab` (timeline, breakdown, memory, cost, ...), or null
  /// when that tab has none. chart_tabs() lists the tabs that have one.
  QWidget* chart_widget(const QString& tab) const;
  static QStringList chart_tabs();
  /// Writes the chart of `tab` as PNG or SVG (by `path`'s suffix). No questions asked.
  bool export_chart(const QString& tab, const QString& path, QString* error = nullptr);
  /// The quote of the current result, issued on `date` in `language` (make_quote_document).
  /// Synchronous.
  QuoteDocument quote_document(const std::string& date, const std::string& customer = {},
                               quote::QuoteLanguage language = quote::QuoteLanguage::En) const;

  /// The recent files, newest first (from QSettings), and the titles of the File > Open
  /// Recent entries built from them.
  QStringList recent_files() const;
  QStringList recent_menu_titles() const;
  /// File > New as the menu runs it: asks about unsaved edits first.
  void trigger_new() { action_new(); }

  /// Restores and saves window geometry, splitter and last tab (interactive runs only).
  void restore_settings();
  void save_settings() const;

 signals:
  /// The tabs show a new result.
  void resultsUpdated();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// QSettings keys: the recent files, and the folder the last file dialog showed.
  static inline const QString kRecentKey = QStringLiteral("recentFiles");
  static inline const QString kLastDirKey = QStringLiteral("lastDirectory");

  void build_menus();
  QWidget* build_summary_tab();
  QWidget* build_timeline_tab();
  QWidget* build_breakdown_tab();
  QWidget* build_memory_tab();
  QWidget* build_cost_tab();
  void on_edited(const QString& key);
  void apply_form(const io::ScenarioForm& f);
  void recompute(bool now);
  void show_result();
  void update_title();
  void set_busy(bool busy);
  /// Scrolls the editor to the field showing diagnostics of `key` and focuses it.
  void show_field(const QString& key);

  // Menu actions (interactive: they may ask questions).
  void action_new();
  void action_open();
  bool action_save();
  bool action_save_as();
  void open_interactively(const QString& path);
  bool maybe_save();
  void add_recent(const QString& path);
  void rebuild_recent_menu();
  QString document_label() const;
  void action_export_chart(bool svg);
  void action_open_sweep();
  void action_open_fleet();
  /// File > Export > Quote as PDF (English) or Quote as PDF in Chinese.
  void action_export_quote(quote::QuoteLanguage language);

  std::shared_ptr<const io::Catalog> catalog_;
  ScenarioComputer* computer_ = nullptr;
  ScenarioEditor* editor_ = nullptr;
  QUndoStack* undo_ = nullptr;
  QSplitter* splitter_ = nullptr;
  QScrollArea* editor_scroll_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QListWidget* problems_ = nullptr;
  QLabel* summary_title_ = nullptr;
  QLabel* timeline_info_ = nullptr;
  QLabel* cost_notes_ = nullptr;
  QTableView* summary_view_ = nullptr;
  QTableView* bills_view_ = nullptr;
  QTableView* breakdown_view_ = nullptr;
  QTableView* memory_view_ = nullptr;
  QTableView* run_view_ = nullptr;
  QTableView* stage_view_ = nullptr;
  QPlainTextEdit* yaml_view_ = nullptr;
  QLabel* status_text_ = nullptr;
  QProgressBar* busy_bar_ = nullptr;
  QToolButton* cancel_button_ = nullptr;
  QAction* cancel_action_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  TimelineView* timeline_ = nullptr;
  TimelineView* timeline_detail_ = nullptr;  ///< the first micro-batches, zoomed (short pipelines)
  QLabel* timeline_detail_label_ = nullptr;
  BreakdownChart* breakdown_chart_ = nullptr;
  MemoryChart* memory_chart_ = nullptr;
  CostChart* cost_chart_ = nullptr;
  CostCalendarChart* cost_calendar_ = nullptr;
  SweepView* sweep_ = nullptr;
  FleetView* fleet_ = nullptr;
  ClaimsView* claims_ = nullptr;
  PlannerView* planner_ = nullptr;
  FigureTableModel* summary_model_ = nullptr;
  FigureTableModel* breakdown_model_ = nullptr;
  FigureTableModel* memory_model_ = nullptr;
  FigureTableModel* run_model_ = nullptr;
  FigureTableModel* bill_model_ = nullptr;
  FigureTableModel* stage_model_ = nullptr;

  bool quote_running_ = false;
  QString path_;                 ///< "" = not saved yet
  std::string base_yaml_;        ///< the text the document was opened from or last saved as
  io::ScenarioForm form_;        ///< what the editor shows
  io::ScenarioForm saved_form_;  ///< the form of base_yaml_
  QDateTime file_time_;          ///< modification time of path_ when opened or saved
  bool opened_with_errors_ = false;
  bool splitter_placed_ = false;  ///< the user (or saved settings) placed the splitter
};

}  // namespace flopcast::gui

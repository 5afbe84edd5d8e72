#pragma once
#include <atomic>
#include <map>
#include <memory>
/// The Planner tab: runs the plan search (core/search, `flopcast plan`) for the editor's
/// scenario in a worker thread and shows its time/cost Pareto front as a scatter of days
/// against cost, one colour per GPU type (each GPU count's fastest plan as a small point, the
/// front as large points joined by a line) on log axes labelled 1-2-5 per decade. "Best" is
/// the search's choice as `flopcast plan` makes it (the cheapest simulated plan meeting the
/// deadline and budget, its simulated days and bill); the fastest plan is named apart. Clicking a point asks the window
/// to load that plan into the editor. A table lists the front.
#include <QFutureWatcher>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/compute/prediction_band.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/search/planner.hpp"

class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QComboBox;
class QLineEdit;
class QTableWidget;
class QChartView;

namespace flopcast::gui {

/// What one planner run searches (the tab's controls).
struct PlannerRequest {
  std::string yaml;  ///< the editor's scenario (model, batch, tokens, pricing)
  std::string file;
  std::vector<std::string> gpu_types;   ///< catalog GPU names; empty = the scenario's GPU
  std::int64_t gpus_max = 0;            ///< 0 = the scenario's GPU count
  std::optional<units::Time> deadline;  ///< longest wall time of the whole run; none = no deadline
  std::string budget;                   ///< largest bill as written ("2.5M USD"); "" = none
  /// The simulated percentile that must meet the deadline and budget (`flopcast plan --confidence`).
  search::Confidence confidence = search::Confidence::P90;
  int threads = 1;
  /// Set by Cancel: the search stops at its next (GPU type, count) item.
  std::shared_ptr<std::atomic<bool>> cancel;
};

/// A finished search, or why there is none.
struct PlannerOutcome {
  std::optional<search::PlanResult> result;
  bool constrained = false;                                 ///< the request gave a deadline or a budget
  search::Confidence confidence = search::Confidence::P90;  ///< the request's
  std::vector<std::string> errors;
  /// Per GPU type in the result: the profile's 80% prediction band of its generation (and the
  /// model's regime), drawn as each front point's range of days.
  std::map<std::string, compute::PredictionBand> bands;
};

/// The Planner tab's summary of a search `r`: the plans considered, the choice, the fastest
/// plan, the infeasible GPU types. The choice is the simulated run `flopcast plan` chooses, its
/// days and bill paired on one footing each ("39.5 days and 17,408,000.00 CNY at P50; 43.2 days
/// and 19,148,800.00 CNY at P90 with the step at the band's x1.09"). Without a deadline or a
/// budget (`constrained` false) the search's choice is merely the cheapest plan, the slowest to
/// finish: it is named so, never "Best". `confidence`: the percentile the search checked.
QString planner_summary(const search::PlanResult& r, bool constrained,
                        search::Confidence confidence = search::Confidence::P90);

/// Runs the search for `req` (loads the scenario and its price catalog, builds the space:
/// each GPU type on its usual fabric as `flopcast plan` does, GPU counts up to gpus_max, the
/// planner's default ranges for every parallel axis). Thread-safe for a shared const catalog.
PlannerOutcome run_planner(const PlannerRequest& req, const io::Catalog& catalog);

class PlannerView : public QWidget {
  Q_OBJECT
 public:
  explicit PlannerView(std::shared_ptr<const io::Catalog> catalog, QWidget* parent = nullptr);
  ~PlannerView() override;

  /// The scenario the next run searches from (the window passes the editor's text).
  void set_scenario(std::string yaml, std::string file, const std::string& gpu, std::int64_t gpus);
  /// Starts a search with the tab's settings (GPU types checked, max GPUs, deadline).
  void run();
  /// Stops waiting for the running search: its result will be dropped. The search itself
  /// runs on to its end in the background (core/search has no stop hook yet).
  void cancel();
  bool running() const { return watcher_.isRunning() && !cancelled_; }

  /// Checks exactly these GPU types in the list (names from the catalog, any case).
  void set_gpu_types(const QStringList& names);
  bool has_gpu_type(const QString& name) const;
  void set_gpus_max(std::int64_t n);
  std::int64_t gpus_max() const;
  /// The deadline and budget fields as typed ("30d", "720 h"; "2.5M USD"); "" = none.
  void set_deadline_text(const QString& text);
  void set_budget_text(const QString& text);
  /// The confidence choice: P50 or P90 of the simulated run (the default, as the CLI's).
  void set_confidence(search::Confidence c);
  search::Confidence confidence() const;
  /// The deadline field parsed: nullopt for none; false with `why` when it is not a duration
  /// with a unit.
  static bool parse_deadline(const QString& text, std::optional<units::Time>& out, QString& why);

  /// Shows a finished search (also used by tests); `constrained`: a deadline or a budget was
  /// given; `confidence`: the percentile it was checked at.
  void show_result(const search::PlanResult& r, bool constrained = true,
                   search::Confidence confidence = search::Confidence::P90);
  /// The bands of the last search's GPU types (PlannerOutcome::bands).
  const std::map<std::string, compute::PredictionBand>& bands() const { return bands_; }
  const std::optional<search::PlanResult>& result() const { return result_; }
  /// The plans drawn as points, in series order (front first per GPU type).
  const std::vector<search::PricedPlan>& points() const { return points_; }
  /// As if the user clicked point `i` of points().
  void choose(std::size_t i);

  QChartView* chart_view() const { return chart_; }
  QTableWidget* front_table() const { return table_; }

 signals:
  /// The user picked a plan to load into the editor.
  void planChosen(const search::PricedPlan& plan);
  /// A search finished (result() holds it) or failed (errors shown).
  void finished(bool ok);
  void cancelled();

 private:
  void on_finished();
  void rebuild_chart();

  std::shared_ptr<const io::Catalog> catalog_;
  PlannerRequest next_;
  QFutureWatcher<PlannerOutcome> watcher_;
  bool cancelled_ = false;
  std::shared_ptr<std::atomic<bool>> running_cancel_;  ///< the running search's stop flag
  std::optional<search::PlanResult> result_;
  std::map<std::string, compute::PredictionBand> bands_;
  std::vector<search::PricedPlan> points_;

  QListWidget* gpu_list_ = nullptr;
  QSpinBox* gpus_max_ = nullptr;
  bool gpus_max_set_ = false;  ///< the user (or a flag) chose Max GPUs: the scenario no longer sets it
  QLineEdit* deadline_ = nullptr;
  QLineEdit* budget_ = nullptr;
  QComboBox* confidence_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QLabel* info_ = nullptr;
  QChartView* chart_ = nullptr;
  QTableWidget* table_ = nullptr;
};

/// "H100 x 256, TP8 PP2 ... : 21.3 days, 1,234,567.00 USD (plan label)" for tooltips and the status bar.
QString describe_plan(const search::PricedPlan& p);

}  // namespace flopcast::gui

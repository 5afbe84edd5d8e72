#pragma once
/// The Fleet tab: a fleet file (`flopcast fleet`'s input: pools of nodes and a stream of
/// training jobs) simulated in a worker thread as `flopcast fleet` does
/// (app::prepare_fleet_file, fleet::simulate_fleet), shown as utilisation per pool and the job
/// queue over the horizon (the result's TimeSeries), the waits per job class and the money
/// (cost, revenue, margin per pool in the reporting currency), with its headline figures.
#include <QFutureWatcher>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/fleet/fleet.hpp"
#include "flopcast/io/catalog.hpp"

class QLabel;
class QProgressBar;
class QPushButton;
class QChartView;
class QTabWidget;

namespace flopcast::gui {

/// A simulated fleet file, or why there is none (file:line diagnostics).
struct FleetOutcome {
  std::optional<fleet::FleetResult> result;
  std::vector<std::string> notes;  ///< variants dropped while planning
  std::string errors;              ///< diagnostics text; empty when result is set
};

/// Loads, plans and simulates the fleet file at `path` (what-ifs skipped). Thread-safe for a
/// shared const catalog.
FleetOutcome simulate_fleet_file(const std::string& path, const io::Catalog& catalog, int threads);

class FleetView : public QWidget {
  Q_OBJECT
 public:
  explicit FleetView(std::shared_ptr<const io::Catalog> catalog, QWidget* parent = nullptr);
  ~FleetView() override;

  /// Starts simulating a fleet file in the background; finished() tells when it is done.
  void open(const QString& path);
  /// Stops waiting for the running simulation: its result is dropped (the engine has no
  /// stop hook; it runs on to its end in the background).
  void cancel();
  bool running() const { return watcher_.isRunning() && !cancelled_; }

  /// Shows a simulated fleet (also used by tests).
  void show_result(const fleet::FleetResult& r, const QString& name);
  const std::optional<fleet::FleetResult>& result() const { return result_; }
  QChartView* utilisation_chart() const { return utilisation_; }
  QChartView* queue_chart() const { return queue_; }
  /// P50 and P90 wait per job class; cost, revenue and margin per pool (reporting currency).
  QChartView* waits_chart() const { return waits_; }
  QChartView* money_chart() const { return money_; }
  /// The last error shown (empty after a success).
  QString error_text() const { return error_; }

 signals:
  void openRequested();
  void finished(bool ok);

 private:
  void on_finished();
  void show_waits(const fleet::FleetResult& r);
  void show_money(const fleet::FleetResult& r);

  std::shared_ptr<const io::Catalog> catalog_;
  QFutureWatcher<FleetOutcome> watcher_;
  bool cancelled_ = false;
  QString pending_name_;
  QString error_;
  std::optional<fleet::FleetResult> result_;
  QLabel* info_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QChartView* utilisation_ = nullptr;
  QChartView* queue_ = nullptr;
  QChartView* waits_ = nullptr;
  QChartView* money_ = nullptr;
  QTabWidget* pages_ = nullptr;
};

}  // namespace flopcast::gui

#pragma once
/// Runs compute_scenario() off the UI thread. Requests are debounced (a burst of edits
/// computes once, for the last state); one computation runs at a time; a result whose
/// request has been superseded is discarded, so the tabs only ever show the latest state.
#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "compute_result.hpp"

namespace flopcast::gui {

class ScenarioComputer : public QObject {
  Q_OBJECT
 public:
  /// Delay between the last edit and the start of its computation.
  static constexpr int kDefaultDebounceMs = 250;

  explicit ScenarioComputer(std::shared_ptr<const io::Catalog> catalog, QObject* parent = nullptr);
  /// Waits for a running computation (it only reads its own copies and the shared catalog).
  ~ScenarioComputer() override;

  void set_debounce_ms(int ms) { debounce_.setInterval(ms); }
  /// Computes `yaml` (named `file` in diagnostics) after the debounce delay; replaces any
  /// request not yet started.
  void schedule(std::string yaml, std::string file);
  /// The same without the delay.
  void schedule_now(std::string yaml, std::string file);

  /// The latest published result (null before the first).
  std::shared_ptr<const ComputeResult> latest() const { return latest_; }
  /// True from a request until its result is published.
  bool busy() const { return busy_; }
  /// Results published so far.
  std::uint64_t published() const { return published_; }

 signals:
  /// A new result is in latest().
  void resultsUpdated();
  void busyChanged(bool busy);

 private:
  struct Request {
    std::string yaml;
    std::string file;
    std::uint64_t generation = 0;
  };
  void start_pending();
  void on_finished();
  void set_busy(bool b);

  std::shared_ptr<const io::Catalog> catalog_;
  QTimer debounce_;
  QFutureWatcher<std::shared_ptr<const ComputeResult>> watcher_;
  std::optional<Request> pending_;
  std::uint64_t generation_ = 0;          ///< of the newest request
  std::uint64_t running_generation_ = 0;  ///< of the computation in flight
  std::shared_ptr<const ComputeResult> latest_;
  std::uint64_t published_ = 0;
  bool busy_ = false;
};

}  // namespace flopcast::gui

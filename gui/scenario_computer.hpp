#pragma once
/// Runs compute_scenario() off the UI thread. An edit while idle starts at once; edits that
/// follow within the debounce interval are held and the last of them computes (a burst of
/// edits publishes only its last state); one computation runs at a time; a newer request
/// cancels the one in flight (it stops at its next stage) and its result is discarded, so
/// the tabs only ever show the latest state. Progress (percent, stage) is reported as the
/// computation goes; cancel() stops it and keeps the last published result.
#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "flopcast/app/compute_result.hpp"

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
  /// Computes `yaml` (named `file` in diagnostics): at once when idle, else after the
  /// debounce delay; replaces any request not yet started.
  void schedule(std::string yaml, std::string file);
  /// The same without the delay.
  void schedule_now(std::string yaml, std::string file);

  /// Stops the pending and the running computation. The running one ends at its next stage
  /// (compute_scenario checks between stages); latest() keeps the last published result and
  /// cancelled() is emitted. No effect when idle.
  void cancel();

  /// The latest published result (null before the first).
  std::shared_ptr<const app::ComputeResult> latest() const { return latest_; }
  /// True from a request until its result is published.
  bool busy() const { return busy_; }
  /// Results published so far.
  std::uint64_t published() const { return published_; }
  /// Computations cancelled by cancel() so far (superseded ones are not counted).
  std::uint64_t cancellations() const { return cancellations_; }

 signals:
  /// A new result is in latest().
  void resultsUpdated();
  void busyChanged(bool busy);
  /// The computation of the latest request reached `percent` (0..100), about to do `stage`.
  void progressChanged(int percent, const QString& stage);
  /// cancel() stopped a computation; latest() is unchanged.
  void cancelled();

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
  QFutureWatcher<std::shared_ptr<const app::ComputeResult>> watcher_;
  std::optional<Request> pending_;
  std::uint64_t generation_ = 0;          ///< of the newest request
  std::uint64_t running_generation_ = 0;  ///< of the computation in flight
  std::shared_ptr<const app::ComputeResult> latest_;
  std::uint64_t published_ = 0;
  std::uint64_t cancellations_ = 0;
  bool cancel_requested_ = false;
  bool busy_ = false;
};

}  // namespace flopcast::gui

#include "scenario_computer.hpp"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

namespace flopcast::gui {

ScenarioComputer::ScenarioComputer(std::shared_ptr<const io::Catalog> catalog, QObject* parent)
    : QObject(parent), catalog_(std::move(catalog)) {
  debounce_.setSingleShot(true);
  debounce_.setInterval(kDefaultDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, &ScenarioComputer::start_pending);
  connect(&watcher_, &QFutureWatcherBase::finished, this, &ScenarioComputer::on_finished);
  connect(&watcher_, &QFutureWatcherBase::progressValueChanged, this, [this](int value) {
    if (running_generation_ == generation_ && !cancel_requested_) emit progressChanged(value, watcher_.progressText());
  });
}

ScenarioComputer::~ScenarioComputer() {
  watcher_.cancel();  // the computation stops at its next stage
  watcher_.waitForFinished();
}

void ScenarioComputer::schedule(std::string yaml, std::string file) {
  // Leading edge: an edit while nothing computes or waits starts at once, so a single edit
  // is shown as soon as it is computed; the debounce then holds the edits that follow while
  // it computes, and the last of them computes when the interval ends.
  const bool idle = !watcher_.isRunning() && !pending_;
  pending_ = Request{std::move(yaml), std::move(file), ++generation_};
  cancel_requested_ = false;
  set_busy(true);
  if (watcher_.isRunning()) watcher_.cancel();  // superseded: no need to finish it
  debounce_.start();
  if (idle) start_pending();
}

void ScenarioComputer::schedule_now(std::string yaml, std::string file) {
  pending_ = Request{std::move(yaml), std::move(file), ++generation_};
  cancel_requested_ = false;
  set_busy(true);
  debounce_.stop();
  if (watcher_.isRunning()) watcher_.cancel();
  start_pending();
}

void ScenarioComputer::cancel() {
  if (!busy_) return;
  cancel_requested_ = true;
  debounce_.stop();
  pending_.reset();
  ++cancellations_;
  if (watcher_.isRunning()) {
    watcher_.cancel();  // on_finished() reports it
    return;
  }
  set_busy(false);
  emit cancelled();
}

void ScenarioComputer::start_pending() {
  if (!pending_ || watcher_.isRunning()) return;  // on_finished() starts it
  Request req = std::move(*pending_);
  pending_.reset();
  running_generation_ = req.generation;
  auto catalog = catalog_;
  emit progressChanged(0, QStringLiteral("starting"));
  watcher_.setFuture(QtConcurrent::run([catalog, req = std::move(req)](
                                           QPromise<std::shared_ptr<const app::ComputeResult>>& promise) {
    promise.setProgressRange(0, 100);
    const app::ComputeProgress progress = [&promise](int percent, std::string_view stage) {
      if (promise.isCanceled()) return false;
      promise.setProgressValueAndText(percent, QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size())));
      return true;
    };
    // An exception must not cross into Qt's event loop: it becomes the result's diagnostic.
    try {
      auto r = app::compute_scenario(req.yaml, req.file, *catalog, progress);
      if (r) promise.addResult(std::move(r));
    } catch (const std::exception& e) {
      auto failed = std::make_shared<app::ComputeResult>();
      failed->yaml = req.yaml;
      failed->diags.error({req.file, 0, 0}, "", std::string("internal error while computing: ") + e.what(),
                          "please report this with the scenario (YAML tab)");
      promise.addResult(std::shared_ptr<const app::ComputeResult>(std::move(failed)));
    }
  }));
}

void ScenarioComputer::on_finished() {
  const bool has_result = watcher_.future().resultCount() > 0 && !watcher_.isCanceled();
  if (running_generation_ == generation_ && !cancel_requested_ && has_result) {
    latest_ = watcher_.result();
    ++published_;
    set_busy(false);
    emit resultsUpdated();
    return;
  }
  if (!pending_ && !debounce_.isActive()) {  // cancelled, nothing newer to compute
    // cancel() has already reported it when the worker had stopped before the call (its
    // finished signal still queued) and so was no longer running: once, not twice.
    const bool report = cancel_requested_ && busy_;
    set_busy(false);
    if (report) emit cancelled();
    return;
  }
  // Superseded while it ran: drop it; the newer request starts now unless still debouncing.
  if (!debounce_.isActive()) start_pending();
}

void ScenarioComputer::set_busy(bool b) {
  if (busy_ == b) return;
  busy_ = b;
  emit busyChanged(b);
}

}  // namespace flopcast::gui

#include "scenario_computer.hpp"

#include <QtConcurrent/QtConcurrentRun>

#include <exception>

namespace flopcast::gui {

ScenarioComputer::ScenarioComputer(std::shared_ptr<const io::Catalog> catalog, QObject* parent)
    : QObject(parent), catalog_(std::move(catalog)) {
  debounce_.setSingleShot(true);
  debounce_.setInterval(kDefaultDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, &ScenarioComputer::start_pending);
  connect(&watcher_, &QFutureWatcherBase::finished, this, &ScenarioComputer::on_finished);
}

ScenarioComputer::~ScenarioComputer() { watcher_.waitForFinished(); }

void ScenarioComputer::schedule(std::string yaml, std::string file) {
  pending_ = Request{std::move(yaml), std::move(file), ++generation_};
  set_busy(true);
  debounce_.start();
}

void ScenarioComputer::schedule_now(std::string yaml, std::string file) {
  pending_ = Request{std::move(yaml), std::move(file), ++generation_};
  set_busy(true);
  debounce_.stop();
  start_pending();
}

void ScenarioComputer::start_pending() {
  if (!pending_ || watcher_.isRunning()) return;  // on_finished() starts it
  Request req = std::move(*pending_);
  pending_.reset();
  running_generation_ = req.generation;
  auto catalog = catalog_;
  watcher_.setFuture(QtConcurrent::run([catalog, req = std::move(req)]() -> std::shared_ptr<const ComputeResult> {
    // An exception must not cross into Qt's event loop: it becomes the result's diagnostic.
    try {
      return compute_scenario(req.yaml, req.file, *catalog);
    } catch (const std::exception& e) {
      auto failed = std::make_shared<ComputeResult>();
      failed->yaml = req.yaml;
      failed->diags.error({req.file, 0, 0}, "", std::string("internal error while computing: ") + e.what(),
                          "please report this with the scenario (YAML tab)");
      return failed;
    }
  }));
}

void ScenarioComputer::on_finished() {
  auto result = watcher_.result();
  if (running_generation_ == generation_) {
    latest_ = std::move(result);
    ++published_;
    set_busy(false);
    emit resultsUpdated();
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

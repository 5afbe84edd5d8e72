// flopcast-gui's recompute latency: the time from a field edit (the global batch spin box) to
// the Summary showing the result of the edited scenario, through the window as a user drives
// it: the editor's signal, the debounce, the loader, the step estimate, the DES of one step,
// the whole-run Monte Carlo, the bills, the timeline layout and the tabs' update. Targets: 50 ms
// for the quickstart, 300 ms for Llama 3 405B on 16,384 H100, on 2 cores. Runs headless.
//
//   bench_gui_recompute [EDITS]   (default 20 edits per scenario; prints min / median / max)
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSpinBox>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "flopcast/app/compute_result.hpp"
#include "flopcast/io/catalog.hpp"
#include "gui_app.hpp"
#include "main_window.hpp"
#include "scenario_editor.hpp"

namespace {

using flopcast::gui::MainWindow;

/// Waits for the window's next resultsUpdated (true) or `timeout_ms` (false).
bool next_result(MainWindow& w, int timeout_ms) {
  QEventLoop loop;
  bool got = false;
  QObject::connect(&w, &MainWindow::resultsUpdated, &loop, [&] {
    if (!w.computing()) {
      got = true;
      loop.quit();
    }
  });
  QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
  loop.exec();
  return got;
}

int bench(const std::shared_ptr<const flopcast::io::Catalog>& catalog, const char* name, const QString& path,
          int edits) {
  MainWindow w(catalog);
  QString error;
  if (!w.open_file(path, &error)) {
    std::fprintf(stderr, "%s: %s\n", name, error.toLocal8Bit().constData());
    return 1;
  }
  if (!flopcast::gui::wait_for_results(w, 600'000) || !w.result()->ok()) {
    std::fprintf(stderr, "%s: the scenario did not compute\n", name);
    return 1;
  }
  auto* batch = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.global_batch")));
  const auto& plan = w.result()->scenario->plan;
  const int step = static_cast<int>(plan.dp * plan.micro_batch);  // keeps the batch a whole number of micro-batches
  const int base = batch->value();
  std::vector<double> ms;
  for (int i = 0; i < edits; ++i) {
    QElapsedTimer t;
    t.start();
    batch->setValue(i % 2 == 0 ? base + step : base);  // the edit
    if (!next_result(w, 600'000) || !w.result()->ok()) {
      std::fprintf(stderr, "%s: edit %d gave no result\n", name, i);
      return 1;
    }
    ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  const auto& r = *w.result();
  std::printf("%-40s edit -> Summary: min %8.1f ms  median %8.1f ms  max %8.1f ms  (%d edits; DES %s, whole run %s)\n",
              name, ms.front(), ms[ms.size() / 2], ms.back(), edits, r.report.sim ? "yes" : "no",
              r.job() ? "yes" : "no");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const int edits = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  flopcast::scenario::Diagnostics d;
  auto cat = flopcast::io::load_catalog("", d);
  if (!cat) {
    std::fprintf(stderr, "%s", d.str().c_str());
    return 1;
  }
  const auto catalog = std::make_shared<const flopcast::io::Catalog>(std::move(*cat));
  const QString dir = QStringLiteral(FLOPCAST_SCENARIOS_DIR);
  int rc = bench(catalog, "quickstart (Llama 3 8B, 64 H800)", dir + QStringLiteral("/quickstart.yaml"), edits);
  rc |= bench(catalog, "Llama 3 405B on 16,384 H100", dir + QStringLiteral("/published/llama3-405b-16384xh100.yaml"),
              edits);
  return rc;
}

#include "gui_app.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QMessageBox>
#include <QPixmap>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <memory>

#include "claims_view.hpp"
#include "fleet_view.hpp"
#include "flopcast/io/catalog.hpp"
#include "main_window.hpp"
#include "planner_view.hpp"

namespace flopcast::gui {
namespace {

constexpr int kUsage = 2;
constexpr int kBadInput = 3;
constexpr int kIoError = 4;
constexpr int kComputeTimeoutMs = 120'000;
constexpr int kSettleMs = 150;  // lets charts and layouts finish after the result arrives

void print_error(const QString& text) { std::fprintf(stderr, "flopcast-gui: %s\n", text.toLocal8Bit().constData()); }

void settle(int ms) {
  QEventLoop loop;
  QTimer::singleShot(ms, &loop, &QEventLoop::quit);
  loop.exec();
}

/// Starts judging the claims file `path` in the Claims tab; `opened` turns false (and the
/// errors are printed) when it fails. False at once when the file is missing.
bool open_claims_file(MainWindow& window, const QString& path, bool& opened) {
  if (!QFileInfo::exists(path)) {
    print_error(QStringLiteral("--claims: %1: file not found").arg(path));
    return false;
  }
  QObject::connect(window.claims_view(), &ClaimsView::finished, &window, [&opened, &window](bool ok) {
    opened = ok;
    if (!ok) print_error(window.claims_view()->error_text());
  });
  window.claims_view()->open(path);
  return true;
}

/// As open_claims_file for a fleet file in the Fleet tab.
bool open_fleet_file(MainWindow& window, const QString& path, bool& opened) {
  if (!QFileInfo::exists(path)) {
    print_error(QStringLiteral("--fleet: %1: file not found").arg(path));
    return false;
  }
  QObject::connect(window.fleet_view(), &FleetView::finished, &window, [&opened, &window](bool ok) {
    opened = ok;
    if (!ok) print_error(window.fleet_view()->error_text());
  });
  window.open_fleet(path);
  return true;
}

/// The Planner tab's headless flags.
struct PlannerFlags {
  QCommandLineOption max_gpus, deadline, budget, confidence;
};

PlannerFlags planner_flags() {
  QCommandLineOption max_gpus(QStringLiteral("max-gpus"),
                              QStringLiteral("largest GPU count the Planner tab searches (default: the scenario's)"),
                              QStringLiteral("N"));
  QCommandLineOption deadline(QStringLiteral("deadline"),
                              QStringLiteral("the Planner tab's deadline for the whole run (30d, 720h)"),
                              QStringLiteral("DURATION"));
  QCommandLineOption budget(QStringLiteral("budget"),
                            QStringLiteral("the Planner tab's budget, with its currency (2.5M USD, '500万 CNY')"),
                            QStringLiteral("AMOUNT"));
  QCommandLineOption confidence(
      QStringLiteral("confidence"),
      QStringLiteral("the simulated percentile the Planner tab's plan must meet the deadline and budget at (p50, p90)"),
      QStringLiteral("p50|p90"));
  return {max_gpus, deadline, budget, confidence};
}

/// --max-gpus, --deadline, --budget and --confidence into the Planner tab ("" = not given).
/// False (the error printed, naming the flag) for a bad value; the budget is checked by the search.
bool apply_planner_flags(MainWindow& window, const QString& max_gpus, const QString& deadline, const QString& budget,
                         const QString& confidence) {
  PlannerView* planner = window.planner_view();
  if (!confidence.isEmpty()) {
    const QString c = confidence.toLower();
    if (c != QStringLiteral("p50") && c != QStringLiteral("p90")) {
      print_error(QStringLiteral("--confidence: expected p50 or p90, got '%1'").arg(confidence));
      return false;
    }
    planner->set_confidence(c == QStringLiteral("p50") ? search::Confidence::P50 : search::Confidence::P90);
  }
  if (!max_gpus.isEmpty()) {
    bool ok = false;
    const qlonglong n = max_gpus.toLongLong(&ok);
    if (!ok || n < 1 || n > 1'000'000) {
      print_error(QStringLiteral("--max-gpus: expected a GPU count from 1 to 1000000, got '%1'").arg(max_gpus));
      return false;
    }
    planner->set_gpus_max(n);
  }
  if (!deadline.isEmpty()) {
    std::optional<units::Time> d;
    QString why;
    if (!PlannerView::parse_deadline(deadline, d, why)) {
      print_error(QStringLiteral("--deadline: %1").arg(why));
      return false;
    }
    planner->set_deadline_text(deadline);
  }
  if (!budget.isEmpty()) planner->set_budget_text(budget);
  return true;
}

}  // namespace

bool wait_for_results(MainWindow& window, int timeout_ms) {
  QElapsedTimer clock;
  clock.start();
  while (window.computing() || !window.result()) {
    const qint64 left = timeout_ms - clock.elapsed();
    if (left <= 0) return false;
    QEventLoop loop;
    QObject::connect(&window, &MainWindow::resultsUpdated, &loop, &QEventLoop::quit);
    QTimer::singleShot(static_cast<int>(std::min<qint64>(left, 100)), &loop, &QEventLoop::quit);
    loop.exec();
  }
  return true;
}

bool save_screenshot(MainWindow& window, const QString& tab, const QString& path, QString* error) {
  if (!tab.isEmpty() && !window.select_tab(tab)) {
    if (error)
      *error =
          QStringLiteral("unknown tab '%1' (one of: %2)").arg(tab, MainWindow::tab_names().join(QStringLiteral(", ")));
    return false;
  }
  if (!window.isVisible()) window.show();
  if (!wait_for_results(window, kComputeTimeoutMs)) {
    if (error) *error = QStringLiteral("the computation did not finish within %1 s").arg(kComputeTimeoutMs / 1000);
    return false;
  }
  PlannerView* planner = window.planner_view();
  if (tab.compare(QLatin1String("planner"), Qt::CaseInsensitive) == 0 && !planner->result()) {
    QEventLoop loop;
    bool ok = false;
    QObject::connect(planner, &PlannerView::finished, &loop, [&](bool done) {
      ok = done;
      loop.quit();
    });
    QTimer::singleShot(kComputeTimeoutMs, &loop, &QEventLoop::quit);
    planner->run();
    loop.exec();
    if (!ok) {
      if (error)
        *error =
            QStringLiteral("the plan search did not finish within %1 s or found nothing").arg(kComputeTimeoutMs / 1000);
      return false;
    }
  }
  FleetView* fleet = window.fleet_view();
  if (fleet->running()) {
    QEventLoop loop;
    QObject::connect(fleet, &FleetView::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(kComputeTimeoutMs, &loop, &QEventLoop::quit);
    if (fleet->running()) loop.exec();
    if (fleet->running()) {
      if (error)
        *error = QStringLiteral("the fleet simulation did not finish within %1 s").arg(kComputeTimeoutMs / 1000);
      return false;
    }
  }
  ClaimsView* claims = window.claims_view();
  if (claims->running()) {
    QEventLoop loop;
    QObject::connect(claims, &ClaimsView::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(kComputeTimeoutMs, &loop, &QEventLoop::quit);
    if (claims->running()) loop.exec();
    if (claims->running()) {
      if (error) *error = QStringLiteral("the claims check did not finish within %1 s").arg(kComputeTimeoutMs / 1000);
      return false;
    }
  }
  settle(kSettleMs);
  const QPixmap image = window.grab();
  if (image.isNull() || !image.save(path, "PNG")) {
    if (error) *error = QStringLiteral("cannot write %1").arg(path);
    return false;
  }
  return true;
}

int run_gui(int argc, char** argv) {
  // Arguments are parsed before QApplication exists, so --help, --version and usage errors
  // work without a display.
  QStringList arguments;
  for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("flopcast-gui: what-if planning of LLM training runs"));
  const QCommandLineOption help = parser.addHelpOption();
  const QCommandLineOption version = parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("SCENARIO"), QStringLiteral("scenario YAML file to open"),
                               QStringLiteral("[SCENARIO]"));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("render the window headless to FILE.png and exit"),
                                      QStringLiteral("FILE.png"));
  const QCommandLineOption tab(
      QStringLiteral("tab"), QStringLiteral("tab to show: %1").arg(MainWindow::tab_names().join(QStringLiteral(", "))),
      QStringLiteral("NAME"));
  const QCommandLineOption size(
      QStringLiteral("size"),
      QStringLiteral("screenshot size (default %1x%2)").arg(kScreenshotWidth).arg(kScreenshotHeight),
      QStringLiteral("WxH"));
  const QCommandLineOption sweep(QStringLiteral("sweep"),
                                 QStringLiteral("open a sweep CSV (`flopcast sweep` output) in the Sweep tab"),
                                 QStringLiteral("FILE.csv"));
  const QCommandLineOption claims_file(QStringLiteral("claims"),
                                       QStringLiteral("open a claims file (`flopcast check` input) in the Claims tab"),
                                       QStringLiteral("FILE.yaml"));
  const QCommandLineOption data_dir(QStringLiteral("data-dir"),
                                    QStringLiteral("read catalogs from DIR instead of the built-in copy"),
                                    QStringLiteral("DIR"));
  const QCommandLineOption planner_gpus(
      QStringLiteral("planner-gpus"),
      QStringLiteral("GPU types the Planner tab searches, comma-separated (default: the scenario's)"),
      QStringLiteral("LIST"));
  const QCommandLineOption fleet_file(QStringLiteral("fleet"),
                                      QStringLiteral("open a fleet file (`flopcast fleet` input) in the Fleet tab"),
                                      QStringLiteral("FILE.yaml"));
  const PlannerFlags pf = planner_flags();
  parser.addOptions({screenshot, tab, size, sweep, claims_file, fleet_file, planner_gpus, pf.max_gpus, pf.deadline,
                     pf.budget, pf.confidence, data_dir});
  if (!parser.parse(arguments)) {
    print_error(parser.errorText());
    return kUsage;
  }
  if (parser.isSet(help)) {
    // No QCoreApplication yet: the parser cannot know the program's name.
    const QString text = parser.helpText().replace(QStringLiteral("<executable_name>"), QStringLiteral("flopcast-gui"));
    std::fputs(text.toLocal8Bit().constData(), stdout);
    return 0;
  }
  if (parser.isSet(version)) {
    std::printf("flopcast-gui %s\n", FLOPCAST_GUI_VERSION);
    return 0;
  }
  const QStringList args = parser.positionalArguments();
  if (args.size() > 1) {
    print_error(QStringLiteral("expected at most one SCENARIO, got %1").arg(args.size()));
    return kUsage;
  }
  const QString tab_name = parser.value(tab);
  if (!tab_name.isEmpty() && !MainWindow::tab_names().contains(tab_name.toLower())) {
    print_error(QStringLiteral("unknown tab '%1' (one of: %2)")
                    .arg(tab_name, MainWindow::tab_names().join(QStringLiteral(", "))));
    return kUsage;
  }
  QSize window_size(kScreenshotWidth, kScreenshotHeight);
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    bool ok_w = false, ok_h = false;
    if (wh.size() == 2) window_size = QSize(wh[0].toInt(&ok_w), wh[1].toInt(&ok_h));
    if (!ok_w || !ok_h || window_size.width() < 400 || window_size.height() < 300 || window_size.width() > 10000 ||
        window_size.height() > 10000) {
      print_error(
          QStringLiteral("--size: expected WxH between 400x300 and 10000x10000, got '%1'").arg(parser.value(size)));
      return kUsage;
    }
  }
  const bool headless = parser.isSet(screenshot);
  // The screenshot mode renders headless: the offscreen platform unless one is chosen.
  if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");

  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("flopcast"));
  QCoreApplication::setApplicationName(QStringLiteral("flopcast-gui"));
  QCoreApplication::setApplicationVersion(QStringLiteral(FLOPCAST_GUI_VERSION));

  scenario::Diagnostics diags;
  auto catalog = io::load_catalog(parser.value(data_dir).toStdString(), diags);
  if (!catalog) {
    const QString text = QString::fromStdString(diags.str()).trimmed();
    print_error(QStringLiteral("the catalogs have errors:\n%1").arg(text));
    if (!headless)
      QMessageBox::critical(nullptr, QStringLiteral("flopcast-gui"),
                            QStringLiteral("The catalogs have errors:\n%1").arg(text));
    return kBadInput;
  }
  MainWindow window(std::make_shared<const io::Catalog>(std::move(*catalog)));
  QString open_error;
  // A scenario with errors opens too: the form marks the fields the diagnostics name.
  const bool opened = args.isEmpty() || window.open_file(args.front(), &open_error, true);
  if (!opened || window.opened_with_errors()) print_error(open_error);
  if (parser.isSet(planner_gpus)) {
    const QStringList names = parser.value(planner_gpus).split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString& n : names)
      if (!window.planner_view()->has_gpu_type(n.trimmed())) {
        print_error(QStringLiteral("--planner-gpus: unknown GPU type '%1' (see `flopcast catalog gpus`)").arg(n));
        return kUsage;
      }
    window.planner_view()->set_gpu_types(names);
  }
  if (!apply_planner_flags(window, parser.value(pf.max_gpus), parser.value(pf.deadline), parser.value(pf.budget),
                           parser.value(pf.confidence)))
    return kUsage;
  QString sweep_error;
  const bool sweep_opened = !parser.isSet(sweep) || window.open_sweep(parser.value(sweep), &sweep_error);
  if (!sweep_opened) print_error(sweep_error);
  bool claims_opened = true;
  if (parser.isSet(claims_file) && !open_claims_file(window, parser.value(claims_file), claims_opened)) return kIoError;

  bool fleet_opened = true;
  if (parser.isSet(fleet_file) && !open_fleet_file(window, parser.value(fleet_file), fleet_opened)) return kIoError;

  if (headless) {
    if (!opened || !sweep_opened) return kBadInput;
    window.resize(window_size);
    QString error;
    if (!save_screenshot(window, tab_name, parser.value(screenshot), &error)) {
      print_error(error);
      return kIoError;
    }
    // A scenario with errors: the picture shows them; the exit status says so.
    if (window.opened_with_errors()) return kBadInput;
    return claims_opened && fleet_opened ? 0 : kBadInput;
  }
  window.restore_settings();
  if (!tab_name.isEmpty()) window.select_tab(tab_name);
  window.show();
  if (!sweep_opened) QMessageBox::warning(&window, QStringLiteral("Cannot open sweep"), sweep_error);
  if (!opened)
    QMessageBox::warning(&window, QStringLiteral("Cannot open scenario"),
                         QStringLiteral("%1 could not be loaded:\n\n%2").arg(args.front(), open_error));
  return app.exec();
}

}  // namespace flopcast::gui

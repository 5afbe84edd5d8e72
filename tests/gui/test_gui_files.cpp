// flopcast-gui and files (QtTest, headless): a scenario with errors opens with its fields
// marked and its Problems listed, and `--screenshot` of it writes the picture and exits 3; a
// fleet file given as the scenario gets one message; an edit saved keeps the file's
// comments and key order, undo and redo included; `--fleet` simulates a fleet headless.
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "figure_table_model.hpp"
#include "fleet_view.hpp"
#include "flopcast/app/evaluation.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/units/format.hpp"
#include "gui_app.hpp"
#include "gui_test_support.hpp"
#include "log_axis.hpp"
#include "main_window.hpp"
#include "planner_view.hpp"
#include "quote_export.hpp"
#include "scenario_editor.hpp"

using namespace flopcast;
using namespace flopcast::gui;

namespace {

const QString kScenarios = QStringLiteral(FLOPCAST_SCENARIOS_DIR);
const QString kGui = QStringLiteral(FLOPCAST_GUI_EXE);
constexpr int kTimeoutMs = 120'000;
constexpr int kBadInput = 3;

/// tp 3 divides neither the heads nor the GPU count: three errors, two at line 7.
const char* const kTypo =
    "# a plan with a mistake\n"
    "model: llama3-8b\n"
    "cluster:\n"
    "  gpu: H800\n"
    "  gpus: 64\n"
    "parallel:\n"
    "  tp: 3\n"
    "  dp: 16\n"
    "  global_batch: 512\n"
    "precision: bf16\n";

std::string read_all(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

bool write_all(const QString& path, const std::string& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  if (at == std::string::npos) return {};
  return s.replace(at, from.size(), to);
}

/// Pixels of `image` in the editor's error colour (#b00020, give or take antialiasing).
int error_pixels(const QImage& image) {
  const QImage img = image.convertToFormat(QImage::Format_RGB32);
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QColor c = img.pixelColor(x, y);
      n += c.red() > 140 && c.green() < 60 && c.blue() < 80 ? 1 : 0;
    }
  return n;
}

struct Run {
  int exit_code = -1;
  QString err;
};

Run run_gui_process(const QStringList& args) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  p.setProcessEnvironment(env);
  p.start(kGui, args);
  Run r;
  if (!p.waitForFinished(kTimeoutMs)) return r;
  r.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.err = QString::fromLocal8Bit(p.readAllStandardError());
  return r;
}

/// The lines of a program's stderr that are its own (not Qt's platform notes).
QStringList own_lines(const QString& err) {
  QStringList out;
  for (const QString& l : err.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
    if (l.startsWith(QLatin1String("flopcast-gui:"))) out << l;
  return out;
}

}  // namespace

class GuiFilesTest : public test::GuiTestBase {
  Q_OBJECT

 private slots:
  void initTestCase();
  void scenario_with_errors_opens_with_marked_fields();
  void screenshot_of_a_scenario_with_errors_exits_3();
  void fleet_file_as_scenario_gets_one_message();
  void saved_edit_keeps_comments_and_key_order();
  void fleet_opens_headless();
  void summary_cost_and_quote_name_one_recommended_plan();
  void summary_shows_the_step_time_band();
  void log_axis_labels_1_2_5_per_decade();
  void planner_takes_the_scenario_size_deadline_and_budget();

 private:
};

void GuiFilesTest::initTestCase() { init_environment(); }

void GuiFilesTest::scenario_with_errors_opens_with_marked_fields() {
  const QString path = tmp_.filePath(QStringLiteral("typo.yaml"));
  QVERIFY(write_all(path, kTypo));
  MainWindow w(catalog_);
  QString error;
  // Without allow_errors the document is refused, as File > Open does for a broken file...
  QVERIFY(!w.open_file(path, &error));
  QVERIFY(!w.opened_with_errors());
  // ...with it, the form shows the file and marks its mistakes.
  QVERIFY(w.open_file(path, &error, true));
  QVERIFY(w.opened_with_errors());
  QVERIFY2(error.contains(QStringLiteral("typo.yaml:7")), qPrintable(error));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(!w.result()->ok());
  QCOMPARE(qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")))->value(), 3);
  QCOMPARE(qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.dp")))->value(), 16);
  QLabel* tp_message = w.editor()->message_label(QStringLiteral("parallel.tp"));
  QVERIFY(tp_message);
  QVERIFY(!tp_message->isHidden());
  QVERIFY2(tp_message->text().contains(QStringLiteral("tp 3 does not divide heads 32")),
           qPrintable(tp_message->text()));
  // The Problems list names the file's lines (the unedited file itself was loaded).
  QCOMPARE(w.problems_view()->count(), 3);
  QVERIFY2(w.problems_view()->item(1)->text().startsWith(QStringLiteral("typo.yaml:7:7: error: parallel.tp")),
           qPrintable(w.problems_view()->item(1)->text()));
  // The Summary lists the problems too.
  FigureTableModel* summary = w.models()[0];
  QCOMPARE(summary->rowCount(), 3);
  QCOMPARE(summary->index(1, 1).data().toString(), QStringLiteral("parallel.tp"));
  QVERIFY(summary->index(1, 2).data().toString().startsWith(QStringLiteral("tp 3 does not divide heads 32")));
  // Fixing the field in the form clears the marks.
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")))->setValue(4);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY2(w.result()->ok(), w.result()->diags.str().c_str());
  QVERIFY(tp_message->isHidden());
}

void GuiFilesTest::screenshot_of_a_scenario_with_errors_exits_3() {
  const QString path = tmp_.filePath(QStringLiteral("typo-cli.yaml"));
  QVERIFY(write_all(path, kTypo));
  const QString png = tmp_.filePath(QStringLiteral("typo.png"));
  const Run r = run_gui_process(
      {path, QStringLiteral("--size"), QStringLiteral("1000x700"), QStringLiteral("--screenshot"), png});
  QCOMPARE(r.exit_code, kBadInput);
  QVERIFY2(r.err.contains(QStringLiteral("typo-cli.yaml:7:7: error: parallel.tp: tp 3 does not divide heads 32")),
           qPrintable(r.err));
  const QImage image(png);
  QVERIFY2(!image.isNull(), "no picture written");
  QCOMPARE(image.size(), QSize(1000, 700));
  // The marked field's caption and messages, the Problems list and the summary title are red.
  QVERIFY2(error_pixels(image) > 500, qPrintable(QString::number(error_pixels(image))));
  // The same file without errors: exit 0 and far less red.
  const QString good = tmp_.filePath(QStringLiteral("fixed.yaml"));
  QVERIFY(write_all(good, replaced(kTypo, "tp: 3", "tp: 4")));
  const QString png2 = tmp_.filePath(QStringLiteral("fixed.png"));
  const Run ok = run_gui_process(
      {good, QStringLiteral("--size"), QStringLiteral("1000x700"), QStringLiteral("--screenshot"), png2});
  QCOMPARE(ok.exit_code, 0);
  QVERIFY(error_pixels(QImage(png2)) < error_pixels(image) / 4);
}

void GuiFilesTest::fleet_file_as_scenario_gets_one_message() {
  const QString fleet = kScenarios + QStringLiteral("/fleets/company-quarter.yaml");
  const QString png = tmp_.filePath(QStringLiteral("fleet-as-scenario.png"));
  const Run r = run_gui_process({fleet, QStringLiteral("--screenshot"), png});
  QCOMPARE(r.exit_code, kBadInput);
  const QStringList lines = own_lines(r.err);
  QCOMPARE(lines.size(), 1);
  QVERIFY2(lines.front().contains(QStringLiteral("this is a fleet file: open it with --fleet")), qPrintable(r.err));
  QVERIFY(!r.err.contains(QStringLiteral("unknown key")));
  MainWindow w(catalog_);
  QString error;
  QVERIFY(!w.open_file(fleet, &error, true));
  QVERIFY(error.contains(QStringLiteral("this is a fleet file")));
}

void GuiFilesTest::saved_edit_keeps_comments_and_key_order() {
  const QString path = tmp_.filePath(QStringLiteral("quickstart.yaml"));
  const std::string original = read_all(kScenarios + QStringLiteral("/quickstart.yaml"));
  QVERIFY(original.find("# Quickstart") == 0);
  QVERIFY(write_all(path, original));
  MainWindow w(catalog_);
  QVERIFY(w.open_file(path));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  // Keyboard edits: tp 2 -> 4 and dp 32 -> 16.
  auto* tp = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")));
  auto* dp = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.dp")));
  tp->setFocus();
  tp->selectAll();
  QTest::keyClicks(tp, QStringLiteral("4"));
  QTest::keyClick(tp, Qt::Key_Tab);
  dp->selectAll();
  QTest::keyClicks(dp, QStringLiteral("16"));
  QTest::keyClick(dp, Qt::Key_Return);
  QCOMPARE(tp->value(), 4);
  QCOMPARE(dp->value(), 16);
  QString error;
  QVERIFY2(w.save_to(path, &error), qPrintable(error));
  const std::string edited = replaced(replaced(original, "  tp: 2\n", "  tp: 4\n"), "  dp: 32\n", "  dp: 16\n");
  QVERIFY(!edited.empty());
  QCOMPARE(read_all(path), edited);
  QCOMPARE(read_all(path + QStringLiteral(".bak")), original);
  scenario::Diagnostics d;
  const auto saved = io::load_scenario_file(path.toStdString(), *catalog_, d);
  QVERIFY2(saved.has_value(), d.str().c_str());
  QCOMPARE(saved->plan.tp, 4);
  QCOMPARE(saved->plan.dp, 16);
  // Undo both edits and save: the original file, byte for byte.
  while (w.undo_stack()->canUndo()) w.undo_stack()->undo();
  QCOMPARE(tp->value(), 2);
  QVERIFY(w.save_to(path, &error));
  QCOMPARE(read_all(path), original);
  // Redo them and save: the edited text again; a new key lands in its block.
  while (w.undo_stack()->canRedo()) w.undo_stack()->redo();
  QCOMPARE(dp->value(), 16);
  QVERIFY(w.save_to(path, &error));
  QCOMPARE(read_all(path), edited);
  auto* gpus = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("cluster.gpus")));
  gpus->setValue(128);
  QVERIFY(w.save_to(path, &error));
  QCOMPARE(read_all(path), replaced(edited, "  gpus: 64\n", "  gpus: 128\n"));
}

void GuiFilesTest::fleet_opens_headless() {
  const QString png = tmp_.filePath(QStringLiteral("fleet.png"));
  const Run r =
      run_gui_process({QStringLiteral("--fleet"), kScenarios + QStringLiteral("/fleets/company-quarter.yaml"),
                       QStringLiteral("--tab"), QStringLiteral("fleet"), QStringLiteral("--screenshot"), png});
  QVERIFY2(r.exit_code == 0, qPrintable(r.err));
  QVERIFY(!QImage(png).isNull());
  // In the window: the result is the file's fleet.
  MainWindow w(catalog_);
  QSignalSpy done(w.fleet_view(), &FleetView::finished);
  w.open_fleet(kScenarios + QStringLiteral("/fleets/company-quarter.yaml"));
  QVERIFY(done.wait(kTimeoutMs));
  QCOMPARE(done.front().front().toBool(), true);
  QVERIFY(w.fleet_view()->result().has_value());
  const auto& fr = *w.fleet_view()->result();
  // Waits per class: one category per job class, P50 and P90 bars at the result's figures.
  const auto* waits = qobject_cast<QBarSeries*>(w.fleet_view()->waits_chart()->chart()->series().value(0));
  QVERIFY(waits);
  QCOMPARE(waits->count(), 2);
  QCOMPARE(waits->barSets()[1]->count(), static_cast<int>(fr.classes.size()));
  for (std::size_t k = 0; k < fr.classes.size(); ++k)
    QCOMPARE(waits->barSets()[1]->at(static_cast<int>(k)), fr.classes[k].wait.p90.seconds() / 3600.0);
  // Money: each pool and the total, in the reporting currency.
  const auto* money = qobject_cast<QBarSeries*>(w.fleet_view()->money_chart()->chart()->series().value(0));
  QVERIFY(money);
  QCOMPARE(money->barSets()[0]->count(), static_cast<int>(fr.costs.size()) + 1);
  QCOMPARE(money->barSets()[0]->at(static_cast<int>(fr.costs.size())), fr.summary.cost.major());
  QCOMPARE(money->count(), fr.summary.revenue ? 3 : 1);
  QVERIFY(w.fleet_view()->money_chart()->chart()->title().contains(QString::fromStdString(fr.currency.str())));
}

void GuiFilesTest::summary_shows_the_step_time_band() {
  // The quickstart runs on H800 (Hopper), whose profile entry has cross-validated bands: the
  // Summary gives the step time at the band's P10 and P90 (app::step_band, what simulate prints)
  // and how the coefficients were obtained.
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kScenarios + QStringLiteral("/quickstart.yaml")));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const auto r = w.result();
  QVERIFY(r->ok() && r->report.band.known);
  const auto [lo, hi] = app::step_band(r->report);
  QVERIFY(lo < r->report.est.step && r->report.est.step < hi);
  FigureTableModel* summary = w.models()[0];
  int band_rows = 0, basis_rows = 0;
  for (int row = 0; row < summary->rowCount(); ++row) {
    const QString label = summary->index(row, 0).data().toString();
    if (label == QStringLiteral("Step time 80% band")) {
      ++band_rows;
      QCOMPARE(summary->index(row, 1).data().toString(),
               QString::fromStdString(units::format_time(lo) + " to " + units::format_time(hi)));
      QVERIFY(summary->index(row, 2).data().toString().contains(QString::fromStdString(r->report.band.basis)));
    }
    if (label == QStringLiteral("Coefficients")) {
      ++basis_rows;
      QCOMPARE(summary->index(row, 2).data().toString(), QString::fromStdString(r->report.coefficients_basis));
      QVERIFY(summary->index(row, 2).data().toString().contains(QStringLiteral("fitted on")));
    }
  }
  QCOMPARE(band_rows, 1);
  QCOMPARE(basis_rows, 1);
}

void GuiFilesTest::summary_cost_and_quote_name_one_recommended_plan() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kScenarios + QStringLiteral("/quickstart.yaml")));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const auto r = w.result();
  QVERIFY(r->ok() && r->plans() && r->plans()->cheapest_offered);
  const auto& rec = r->plans()->rows[*r->plans()->cheapest_offered];
  // The quickstart's lowest price is a competitor's reference quote: never the recommendation.
  QVERIFY(r->plans()->cheapest != r->plans()->cheapest_offered);
  QVERIFY(!(rec.option.plan && rec.option.plan->competitor));
  const QString total = QString::fromStdString(rec.p50.total.str());
  const QString id = QString::fromStdString(rec.option.id);
  // Summary.
  const QList<FigureTableModel*> models = w.models();
  FigureTableModel* summary = models[0];
  int found = 0;
  for (int row = 0; row < summary->rowCount(); ++row) {
    if (summary->index(row, 0).data().toString() != QStringLiteral("Recommended plan (P50)")) continue;
    ++found;
    QCOMPARE(summary->index(row, 1).data().toString(), total);
    QVERIFY(summary->index(row, 2).data().toString().endsWith(QStringLiteral("(%1)").arg(id)));
  }
  QCOMPARE(found, 1);
  // Cost: the one emphasised bill is the same plan at the same total.
  FigureTableModel* bills = models[5];
  int emphasised = 0;
  for (int row = 0; row < bills->rowCount(); ++row) {
    if (!bills->index(row, 0).data(Qt::FontRole).isValid()) continue;
    ++emphasised;
    QVERIFY(bills->index(row, 0).data().toString().endsWith(QStringLiteral("(%1)").arg(id)));
    QCOMPARE(bills->index(row, 1).data().toString(), total);
    QVERIFY(bills->index(row, 4).data().toString().contains(QStringLiteral("recommended")));
  }
  QCOMPARE(emphasised, 1);
  // The quote recommends the same plan at the same total.
  const QuoteDocument q = w.quote_document("2026-01-05");
  QVERIFY(q.ok());
  QVERIFY2(QString::fromStdString(q.summary).contains(total), q.summary.c_str());
  // Figures worded as the CLI words them.
  FigureTableModel* run = models[4];
  bool interval = false;
  for (int row = 0; row < run->rowCount(); ++row)
    if (run->index(row, 0).data().toString() == QStringLiteral("Checkpoint interval")) {
      interval = true;
      // As `flopcast simulate` prints it (30 min rounded to whole steps): the checkpoint line of
      // tests/golden/quickstart.txt, "..., every 29.9 min (217 steps)".
      QFile golden(QStringLiteral(FLOPCAST_TESTS_DIR "/golden/quickstart.txt"));
      QVERIFY(golden.open(QIODevice::ReadOnly | QIODevice::Text));
      QString every;
      for (const QString& line : QString::fromUtf8(golden.readAll()).split(QLatin1Char('\n')))
        if (line.startsWith(QStringLiteral("  checkpoint "))) {
          const qsizetype at = line.lastIndexOf(QStringLiteral(", every "));
          const qsizetype end = line.lastIndexOf(QStringLiteral(" ("));
          QVERIFY(at >= 0 && end > at);
          every = line.mid(at + 2, end - at - 2);
        }
      QVERIFY(every.startsWith(QStringLiteral("every ")) && every.endsWith(QStringLiteral(" min")));
      QCOMPARE(run->index(row, 1).data().toString(), every);
    }
  QVERIFY(interval);
  bool plan = false;
  for (int row = 0; row < summary->rowCount(); ++row)
    if (summary->index(row, 0).data().toString() == QStringLiteral("Plan")) {
      plan = true;
      // As `flopcast plan` and the Planner tab label it (parallel/plan_text.hpp): the quickstart's
      // tp 2, pp 1, dp 32, micro_batch 1, sequence parallelism, ZeRO-1, selective recompute (no
      // schedule without a pipeline).
      QCOMPARE(summary->index(row, 1).data().toString(), QStringLiteral("TP2 PP1 DP32 mb1 SP ZeRO-1 rc-selective"));
    }
  QVERIFY(plan);
}

void GuiFilesTest::log_axis_labels_1_2_5_per_decade() {
  QCOMPARE(log_ticks_125(15, 1200), (std::vector<double>{20, 50, 100, 200, 500, 1000}));
  // Within one decade, 1-2-5 gives too few: every multiple.
  QCOMPARE(log_ticks_125(350, 900), (std::vector<double>{400, 500, 600, 700, 800, 900}));
  QCOMPARE(log_tick_label(2000), QStringLiteral("2,000"));
  QCOMPARE(log_tick_label(0.5), QStringLiteral("0.5"));
  QVERIFY(log_ticks_125(0, 10).empty());
  QCOMPARE(linear_ticks(0, 2.5e6, 5), (std::vector<double>{0, 500'000, 1'000'000, 1'500'000, 2'000'000, 2'500'000}));
  // tp values: one category each; money: round, grouped ticks.
  std::unique_ptr<QCategoryAxis> tp(make_value_axis({8, 1, 2, 4, 2}, QStringLiteral("tp")));
  QCOMPARE(tp->categoriesLabels(), (QStringList{"1", "2", "4", "8"}));
  std::unique_ptr<QCategoryAxis> cost(make_value_axis({680'000, 2'040'000, 1'349'120}, QStringLiteral("cost")));
  QVERIFY(cost->categoriesLabels().contains(QStringLiteral("1,000,000")));
  for (const QString& l : cost->categoriesLabels()) QVERIFY2(!l.contains(QLatin1Char('.')), qPrintable(l));
}

void GuiFilesTest::planner_takes_the_scenario_size_deadline_and_budget() {
  // Max GPUs starts at the scenario's GPU count (16,384), not a fixed default.
  MainWindow big(catalog_);
  QVERIFY(big.open_file(kScenarios + QStringLiteral("/published/llama3-405b-16384xh100.yaml")));
  QCOMPARE(big.planner_view()->gpus_max(), 16384);
  // The deadline needs a unit; none is allowed.
  std::optional<units::Time> d;
  QString why;
  QVERIFY(PlannerView::parse_deadline(QStringLiteral("30d"), d, why));
  QVERIFY(d && std::abs(d->seconds() - 30 * 86400.0) < 1e-6);
  QVERIFY(PlannerView::parse_deadline(QString(), d, why) && !d);
  QVERIFY(!PlannerView::parse_deadline(QStringLiteral("30"), d, why));
  QVERIFY(why.contains(QStringLiteral("unit")));
  // A search with a deadline: best is the cheapest plan meeting it, fastest apart.
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kScenarios + QStringLiteral("/quickstart.yaml")));
  PlannerView* planner = w.planner_view();
  QCOMPARE(planner->gpus_max(), 64);
  planner->set_deadline_text(QStringLiteral("30d"));
  QSignalSpy done(planner, &PlannerView::finished);
  planner->run();
  QVERIFY(done.wait(kTimeoutMs));
  QVERIFY(done.front().front().toBool());
  const auto& r = *planner->result();
  QVERIFY(r.best.has_value());
  QVERIFY(r.best->meets_deadline);
  // Each GPU type's band (H800: Hopper) is drawn as the front points' range of days.
  QVERIFY(planner->bands().count("H800") && planner->bands().at("H800").known);
  QVERIFY(planner->bands().at("H800").p10 < 1 && planner->bands().at("H800").p90 > 1);
  QVERIFY(r.best->candidate.wall.seconds() <= 30 * 86400.0);
  // The choice is checked in simulation (P90, with the prediction band of each plan's GPU):
  // every simulated plan that meets the deadline there costs at least as much.
  QVERIFY(r.chosen.has_value());
  QVERIFY(r.chosen->wall.seconds() <= 30 * 86400.0);
  for (const auto& x : r.resimulated)
    if (x.meets()) QVERIFY(x.cost.minor >= r.best->cost.minor);
  // The confidence reaches the search: a plan that meets deadline and budget at P90 meets them
  // at P50 (its band factor and failure percentile are both lower), so the cheapest at P50
  // costs no more than the cheapest at P90.
  QCOMPARE(planner->confidence(), search::Confidence::P90);
  PlannerRequest req;
  QFile file(kScenarios + QStringLiteral("/quickstart.yaml"));
  QVERIFY(file.open(QIODevice::ReadOnly));
  req.yaml = file.readAll().toStdString();
  req.file = (kScenarios + QStringLiteral("/quickstart.yaml")).toStdString();
  req.deadline = units::Time::from_seconds(30 * 86400.0);
  req.threads = 2;
  const PlannerOutcome at90 = run_planner(req, *catalog_);
  req.confidence = search::Confidence::P50;
  const PlannerOutcome at50 = run_planner(req, *catalog_);
  QVERIFY(at90.result && at90.result->best && at50.result && at50.result->best);
  QVERIFY(at50.result->best->cost.minor <= at90.result->best->cost.minor);
  planner->set_confidence(search::Confidence::P50);
  QCOMPARE(planner->confidence(), search::Confidence::P50);
  // A bad budget is named, and no search runs.
  planner->set_budget_text(QStringLiteral("lots"));
  QSignalSpy failed(planner, &PlannerView::finished);
  planner->run();
  QVERIFY(failed.wait(kTimeoutMs));
  QCOMPARE(failed.front().front().toBool(), false);
  // Headless flags: a bad --deadline is a usage error naming the flag.
  const Run bad = run_gui_process({kScenarios + QStringLiteral("/quickstart.yaml"), QStringLiteral("--deadline"),
                                   QStringLiteral("soon"), QStringLiteral("--screenshot"), tmp_.filePath("x.png")});
  QCOMPARE(bad.exit_code, 2);
  QVERIFY2(bad.err.contains(QStringLiteral("--deadline")), qPrintable(bad.err));
  const Run bad_confidence =
      run_gui_process({kScenarios + QStringLiteral("/quickstart.yaml"), QStringLiteral("--confidence"),
                       QStringLiteral("p75"), QStringLiteral("--screenshot"), tmp_.filePath("y.png")});
  QCOMPARE(bad_confidence.exit_code, 2);
  QVERIFY2(bad_confidence.err.contains(QStringLiteral("--confidence: expected p50 or p90")),
           qPrintable(bad_confidence.err));
  const QString png = tmp_.filePath(QStringLiteral("planner.png"));
  const Run ok = run_gui_process({kScenarios + QStringLiteral("/quickstart.yaml"), QStringLiteral("--tab"),
                                  QStringLiteral("planner"), QStringLiteral("--max-gpus"), QStringLiteral("32"),
                                  QStringLiteral("--deadline"), QStringLiteral("90d"), QStringLiteral("--budget"),
                                  QStringLiteral("2M CNY"), QStringLiteral("--confidence"), QStringLiteral("p50"),
                                  QStringLiteral("--screenshot"), png});
  QVERIFY2(ok.exit_code == 0, qPrintable(ok.err));
  QVERIFY(!QImage(png).isNull());
}

QTEST_MAIN(GuiFilesTest)
#include "test_gui_files.moc"

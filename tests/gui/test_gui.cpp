// flopcast-gui tests (QtTest, headless): item models under QAbstractItemModelTester, the
// form <-> YAML composition over the shipped scenarios, the timeline layout, the editor's
// inline diagnostics, background recomputation, undo/redo, open/save, and a non-blank
// screenshot of every tab.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChartView>
#include <sstream>

#include <memory>

#include <QtCharts/QLineSeries>
#include "chart_export.hpp"
#include "claims_table_model.hpp"
#include "claims_view.hpp"
#include "cli_context.hpp"
#include "cost_chart.hpp"
#include "figure_table_model.hpp"
#include "fleet_view.hpp"
#include "flopcast/app/compute_result.hpp"
#include "flopcast/app/scenario_form.hpp"
#include "flopcast/app/step_timeline.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/scenario_writer.hpp"
#include "flopcast/workload/workload.hpp"
#include "gui_app.hpp"
#include "main_window.hpp"
#include "planner_view.hpp"
#include "quote_export.hpp"
#include "result_palette.hpp"
#include "result_tables.hpp"
#include "scenario_computer.hpp"
#include "scenario_editor.hpp"
#include "sweep_table.hpp"
#include "sweep_view.hpp"
#include "timeline_view.hpp"

using namespace flopcast;
using namespace flopcast::gui;
using namespace flopcast::app;

namespace {

const QString kQuickstart = QStringLiteral(FLOPCAST_SCENARIOS_DIR "/quickstart.yaml");
constexpr int kTimeoutMs = 60'000;

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

int distinct_colours(const QImage& image, int stop_at) {
  QSet<QRgb> colours;
  const QImage img = image.convertToFormat(QImage::Format_RGB32);
  for (int y = 0; y < img.height(); ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(img.constScanLine(y));
    for (int x = 0; x < img.width(); ++x) {
      colours.insert(line[x]);
      if (colours.size() >= stop_at) return static_cast<int>(colours.size());
    }
  }
  return static_cast<int>(colours.size());
}

StageTimes stage(double f_ms, double b_ms, double p2p_ms) {
  StageTimes s;
  s.forward = Time::from_seconds(f_ms * 1e-3);
  s.backward = Time::from_seconds(b_ms * 1e-3);
  s.p2p = Time::from_seconds(p2p_ms * 1e-3);
  return s;
}

}  // namespace

class GuiTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void figure_model_passes_tester();
  void form_round_trips_shipped_scenarios();
  void compose_keeps_keys_the_form_does_not_edit();
  void custom_model_keeps_the_preset_architecture();
  void timeline_lays_out_1f1b();
  void timeline_lays_out_gpipe();
  void window_models_pass_tester_while_editing();
  void editing_a_field_updates_results();
  void invalid_field_shows_cli_message_inline();
  void undo_and_redo_restore_the_form();
  void bad_file_leaves_document_intact();
  void save_keeps_a_backup();
  void cost_tab_bills_each_plan_when_pricing_is_loaded();
  void big_cluster_computes_in_background_with_progress();
  void cancel_keeps_the_previous_result();
  void window_stays_editable_while_a_big_job_computes();
  void settings_and_recent_files_are_remembered();
  void unsaved_edits_are_never_dropped_without_asking();
  void charts_export_as_png_and_svg();
  void quote_pdf_has_the_cli_quote_content();
  void csv_parser_reads_quotes_and_names_bad_lines();
  void sweep_tab_sorts_filters_and_charts();
  void planner_front_click_loads_the_plan();
  void planner_best_is_the_simulated_run_it_names();
  void fleet_tab_shows_utilisation_and_queue();
  void claims_tab_shows_every_verdict_and_its_computation();
  void timeline_tab_draws_the_simulated_step();
  void timeline_shows_cp_communication_apart();
  void screenshot_of_each_tab_is_not_blank_data();
  void screenshot_of_each_tab_is_not_blank();
  void every_tab_fits_1000_by_700();
  void every_tab_fits_1000_by_700_data();

 private:
  /// Where screenshots go: $FLOPCAST_GUI_TEST_OUTPUT when set (CI keeps them), else scratch.
  QString shot_path(const QString& name) const {
    const QString dir = qEnvironmentVariable("FLOPCAST_GUI_TEST_OUTPUT");
    return dir.isEmpty() ? tmp_.filePath(name) : QDir(dir).filePath(name);
  }

  QString write_sweep_csv() const;

  std::shared_ptr<const io::Catalog> catalog_;
  QTemporaryDir tmp_;
};

void GuiTest::initTestCase() {
  QVERIFY(tmp_.isValid());
  // Recent files and window settings go to a scratch folder, never the user's.
  QCoreApplication::setOrganizationName(QStringLiteral("flopcast-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("flopcast-gui-tests"));
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, tmp_.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, tmp_.path());
  Diagnostics d;
  auto cat = io::load_catalog("", d);
  QVERIFY2(cat.has_value(), d.str().c_str());
  catalog_ = std::make_shared<const io::Catalog>(std::move(*cat));
}

void GuiTest::figure_model_passes_tester() {
  const auto r = compute_scenario(read_all(kQuickstart), "quickstart.yaml", *catalog_);
  QVERIFY2(r->ok(), r->diags.str().c_str());
  using Build = std::vector<TableRow> (*)(const ComputeResult&);
  const std::vector<std::pair<QStringList, Build>> tables = {{summary_headers(), &summary_rows},
                                                             {breakdown_headers(), &breakdown_rows},
                                                             {memory_headers(), &memory_rows},
                                                             {run_headers(), &run_rows},
                                                             {bill_headers(), &bill_rows}};
  for (const auto& [headers, build] : tables) {
    FigureTableModel model(headers, {1});
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_rows(build(*r));
    model.set_rows(build(*r));  // same shape: dataChanged
    model.set_rows({});         // reset to empty
    model.set_rows(build(*r));
    QCOMPARE(model.columnCount(), headers.size());
  }
  // The numbers behind the text: the breakdown's parts sum to its total row.
  FigureTableModel model(breakdown_headers(), {1, 2});
  model.set_rows(breakdown_rows(*r));
  double sum = 0;
  for (int i = 0; i + 1 < model.rowCount(); ++i) sum += model.index(i, 0).data(FigureTableModel::ValueRole).toDouble();
  const double total = model.index(model.rowCount() - 1, 0).data(FigureTableModel::ValueRole).toDouble();
  QVERIFY(total > 0);
  QVERIFY(std::abs(sum - total) < 1e-6 * total);
}

void GuiTest::form_round_trips_shipped_scenarios() {
  // Every shipped scenario: load, show in the form, compose YAML from the form over the file,
  // load that: the same model, cluster, plan, precision and tokens.
  int checked = 0;
  QDirIterator it(QStringLiteral(FLOPCAST_SCENARIOS_DIR), {QStringLiteral("*.yaml")}, QDir::Files,
                  QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString path = it.next();
    const std::string text = read_all(path);
    Diagnostics d;
    const auto s = io::parse_scenario(text, path.toStdString(), *catalog_, d);
    if (!s) continue;  // scenarios that are meant to fail, or need blocks this build lacks
    const io::ScenarioForm f = io::form_from_scenario(*s, text);
    const std::string yaml = io::compose_scenario_yaml(text, f, *catalog_);
    Diagnostics d2;
    const auto back = io::parse_scenario(yaml, "composed.yaml", *catalog_, d2);
    QVERIFY2(back.has_value(), (path.toStdString() + "\n" + yaml + d2.str()).c_str());
    QCOMPARE(back->model.layers, s->model.layers);
    QCOMPARE(back->model.hidden, s->model.hidden);
    QCOMPARE(back->model.heads, s->model.heads);
    QCOMPARE(back->model.kv_heads, s->model.kv_heads);
    QCOMPARE(back->model.ffn, s->model.ffn);
    QCOMPARE(back->model.seq_len, s->model.seq_len);
    QCOMPARE(parameter_count(back->model).total, parameter_count(s->model).total);
    QCOMPARE(back->cluster.gpu.name, s->cluster.gpu.name);
    QCOMPARE(back->cluster.gpus, s->cluster.gpus);
    QCOMPARE(back->cluster.gpus_per_node, s->cluster.gpus_per_node);
    QCOMPARE(back->cluster.fabric.name, s->cluster.fabric.name);
    QCOMPARE(back->cluster.fabric.nic_gbps, s->cluster.fabric.nic_gbps);
    QCOMPARE(back->plan.tp, s->plan.tp);
    QCOMPARE(back->plan.pp, s->plan.pp);
    QCOMPARE(back->plan.dp, s->plan.dp);
    QCOMPARE(back->plan.cp, s->plan.cp);
    QCOMPARE(back->plan.ep, s->plan.ep);
    QCOMPARE(back->plan.vpp, s->plan.vpp);
    QCOMPARE(back->plan.zero, s->plan.zero);
    QCOMPARE(back->plan.micro_batch, s->plan.micro_batch);
    QCOMPARE(back->plan.global_batch, s->plan.global_batch);
    QCOMPARE(back->plan.recompute, s->plan.recompute);
    QCOMPARE(back->plan.schedule, s->plan.schedule);
    QCOMPARE(back->plan.sequence_parallel, s->plan.sequence_parallel);
    QCOMPARE(back->plan.overlap_dp_comm, s->plan.overlap_dp_comm);
    QCOMPARE(back->precision, s->precision);
    QCOMPARE(back->training.tokens, s->training.tokens);
    QCOMPARE(back->claimed.figures, s->claimed.figures);
    // The form read back from the composed text is the same form.
    QVERIFY(io::form_from_scenario(*back, yaml) == f);
    ++checked;
  }
  QVERIFY2(checked >= 5, qPrintable(QStringLiteral("only %1 scenarios loaded").arg(checked)));
}

void GuiTest::compose_keeps_keys_the_form_does_not_edit() {
  const std::string base = R"(# a comment
name: keep me
description: not in the form
model: llama3-8b
cluster: {gpu: H800, gpus: 64, fabric: {preset: hgx-h800-roce200, nic_gbps: 400}}
parallel: {tp: 2, pp: 1, dp: 32, global_batch: 512, overlap_dp_comm: true}
precision: bf16
claimed: {mfu: 0.5}
)";
  Diagnostics d;
  const auto s = io::parse_scenario(base, "base.yaml", *catalog_, d);
  QVERIFY2(s.has_value(), d.str().c_str());
  io::ScenarioForm f = io::form_from_scenario(*s, base);
  QCOMPARE(f.fabric, std::string(io::kFabricFromFile));
  QVERIFY(f.tokens.empty());
  f.tp = 4;
  f.dp = 16;
  const std::string yaml = io::compose_scenario_yaml(base, f, *catalog_);
  Diagnostics d2;
  const auto back = io::parse_scenario(yaml, "composed.yaml", *catalog_, d2);
  QVERIFY2(back.has_value(), (yaml + d2.str()).c_str());
  QCOMPARE(back->plan.tp, 4);
  QCOMPARE(back->description, std::string("not in the form"));
  QVERIFY(back->plan.overlap_dp_comm);
  QCOMPARE(back->claimed.figures.at("mfu"), 0.5);
  QCOMPARE(back->cluster.fabric.nic_gbps, 400.0);       // the inline fabric stays
  QVERIFY(yaml.find("training") == std::string::npos);  // no tokens given: no block added
  // dp "auto": the key is left out and the loader derives it.
  f.dp_auto = true;
  const auto derived = io::parse_scenario(io::compose_scenario_yaml(base, f, *catalog_), "auto.yaml", *catalog_, d2);
  QVERIFY(derived.has_value());
  QCOMPARE(derived->plan.dp, std::int64_t{16});
}

void GuiTest::custom_model_keeps_the_preset_architecture() {
  io::ScenarioForm f = app::default_form(*catalog_);
  const ModelSpec* preset = catalog_->find_model(f.model_preset);
  QVERIFY(preset);
  f.model_base = f.model_preset;  // "Custom shape" chosen while the preset was shown
  f.model_preset.clear();
  const std::string yaml = io::compose_scenario_yaml("", f, *catalog_);
  Diagnostics d;
  const auto s = io::parse_scenario(yaml, "custom.yaml", *catalog_, d);
  QVERIFY2(s.has_value(), (yaml + d.str()).c_str());
  QCOMPARE(s->model.name, std::string("custom"));
  QCOMPARE(parameter_count(s->model).total, parameter_count(*preset).total);
  QCOMPARE(s->model.ffn_kind, preset->ffn_kind);
  // Through the editor: choosing "Custom shape" records the preset it came from.
  ScenarioEditor editor(*catalog_);
  editor.set_form_state(app::default_form(*catalog_));
  auto* combo = qobject_cast<QComboBox*>(editor.field(QStringLiteral("model.preset")));
  QVERIFY(combo);
  combo->setCurrentIndex(combo->findData(QString()));
  QCOMPARE(editor.form_state().model_base, preset->name);
  QVERIFY(editor.form_state().model_preset.empty());
  // A preset with one field changed is written as an override of the preset.
  f = app::default_form(*catalog_);
  f.seq_len = 4096;
  const std::string over = io::compose_scenario_yaml("", f, *catalog_);
  QVERIFY2(over.find("preset: " + f.model_preset) != std::string::npos, over.c_str());
  QVERIFY2(over.find("seq_len: 4096") != std::string::npos, over.c_str());
  QVERIFY2(over.find("layers:") == std::string::npos, over.c_str());
}

void GuiTest::timeline_lays_out_1f1b() {
  // 4 equal stages, F 1 ms, B 2 ms, p2p 0.1 ms; 8 micro-batches.
  StepEstimate est;
  for (int i = 0; i < 4; ++i) est.stages.push_back(stage(1, 2, 0.1));
  est.breakdown.optimizer = Time::from_seconds(0.5e-3);
  ParallelPlan plan;
  plan.pp = 4;
  plan.dp = 1;
  plan.micro_batch = 1;
  plan.global_batch = 8;
  const Timeline t = build_timeline(est, plan);
  QCOMPARE(t.microbatches, std::int64_t{8});
  QCOMPARE(static_cast<int>(t.rows.size()), 8);  // compute + comm row per stage
  for (const auto& row : t.rows) {
    for (std::size_t i = 1; i < row.slices.size(); ++i) QVERIFY(row.slices[i - 1].end <= row.slices[i].start);
  }
  // Stage s starts with p-s-1 warm-up forwards, then alternates (PipeDream-Flush).
  for (int s = 0; s < 4; ++s) {
    std::vector<const app::TimelineSlice*> passes;
    for (const auto& x : t.rows[static_cast<std::size_t>(2 * s)].slices)
      if (x.kind == SliceKind::Forward || x.kind == SliceKind::Backward) passes.push_back(&x);
    QCOMPARE(static_cast<int>(passes.size()), 16);
    for (int i = 0; i < 4 - s - 1; ++i) QCOMPARE(passes[static_cast<std::size_t>(i)]->kind, SliceKind::Forward);
    QCOMPARE(passes[static_cast<std::size_t>(4 - s - 1)]->kind, SliceKind::Forward);
    QCOMPARE(passes[static_cast<std::size_t>(4 - s)]->kind, SliceKind::Backward);
  }
  // Dependencies: F of stage 1 starts after F of stage 0 plus its send.
  const auto& f0 = t.rows[0].slices.front();
  const auto& f1 = t.rows[2].slices.front();
  QVERIFY(f1.start >= f0.end + est.stages[0].p2p);
  // Length: (m + p - 1) passes of the slowest stage, within the sends: 11 x 3 ms = 33 ms plus
  // at most 2 x 0.1 ms per pass, plus the optimizer.
  QVERIFY(t.end.ms() >= 33.5 - 1e-9);
  QVERIFY(t.end.ms() <= 33.0 + 11 * 0.2 + 0.5 + 1e-9);
  // Hover text names the pass, micro-batch, stage and duration.
  QVERIFY2(TimelineView::describe(f1).startsWith(QStringLiteral("F mb0 stage 1: 1.00 ms")),
           qPrintable(TimelineView::describe(f1)));
}

void GuiTest::timeline_lays_out_gpipe() {
  StepEstimate est;
  for (int i = 0; i < 2; ++i) est.stages.push_back(stage(1, 2, 0));
  ParallelPlan plan;
  plan.pp = 2;
  plan.global_batch = 4;
  plan.schedule = Schedule::GPipe;
  const Timeline t = build_timeline(est, plan);
  QCOMPARE(t.schedule, std::string("gpipe"));
  // Stage 0 runs every forward before any backward.
  bool seen_backward = false;
  for (const auto& x : t.rows[0].slices) {
    if (x.kind == SliceKind::Backward) seen_backward = true;
    if (x.kind == SliceKind::Forward) QVERIFY(!seen_backward);
  }
  // A scenario without stages lays out nothing.
  QVERIFY(build_timeline(StepEstimate{}, plan).empty());
}

void GuiTest::window_models_pass_tester_while_editing() {
  MainWindow w(catalog_);
  std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
  for (FigureTableModel* m : w.models())
    testers.push_back(
        std::make_unique<QAbstractItemModelTester>(m, QAbstractItemModelTester::FailureReportingMode::QtTest));
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(w.models().front()->rowCount() > 5);
  // An invalid state empties the figure tables (the Summary lists the errors instead), a
  // valid one fills them again.
  auto* tp = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")));
  QVERIFY(tp);
  tp->setValue(3);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(w.models().front()->rowCount() > 0);
  for (int row = 0; row < w.models().front()->rowCount(); ++row)
    QCOMPARE(w.models().front()->index(row, 0).data().toString(), QStringLiteral("Error"));
  for (int m = 1; m < w.models().size(); ++m) QCOMPARE(w.models()[m]->rowCount(), 0);
  tp->setValue(2);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(w.models().front()->rowCount() > 5);
}

void GuiTest::editing_a_field_updates_results() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const auto before = w.result();
  QVERIFY2(before->ok(), before->diags.str().c_str());
  QCOMPARE(before->scenario->plan.tp, 2);
  const auto published = w.computer()->published();

  QSignalSpy spy(&w, &MainWindow::resultsUpdated);
  auto* tp = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")));
  auto* dp = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.dp")));
  QVERIFY(tp && dp);
  tp->setValue(4);
  dp->setValue(16);
  QVERIFY(w.computing());  // the first edit started at once; the second supersedes it
  QTRY_VERIFY_WITH_TIMEOUT(spy.count() >= 1 && !w.computing(), kTimeoutMs);
  // Two quick edits, one published result (the last state).
  QCOMPARE(w.computer()->published(), published + 1);
  const auto after = w.result();
  QVERIFY2(after->ok(), after->diags.str().c_str());
  QCOMPARE(after->scenario->plan.tp, 4);
  QCOMPARE(after->scenario->plan.dp, std::int64_t{16});
  QVERIFY(after->report.est.step != before->report.est.step);
  QVERIFY(w.is_modified());
}

void GuiTest::invalid_field_shows_cli_message_inline() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  ScenarioEditor* editor = w.editor();
  QLabel* tp_message = editor->message_label(QStringLiteral("parallel.tp"));
  QVERIFY(tp_message);
  QVERIFY(tp_message->isHidden());

  qobject_cast<QSpinBox*>(editor->field(QStringLiteral("parallel.tp")))->setValue(3);  // llama3-8b has 32 heads
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(!w.result()->ok());
  QVERIFY(!tp_message->isHidden());
  QVERIFY2(tp_message->text().startsWith(QStringLiteral("tp 3 does not divide heads 32")),
           qPrintable(tp_message->text()));
  // The same message the CLI prints for the same text.
  Diagnostics d;
  QVERIFY(!io::parse_scenario(w.current_yaml(), "cli.yaml", *catalog_, d).has_value());
  bool found = false;
  for (const auto& x : d.items())
    if (x.key == "parallel.tp") found = tp_message->text().contains(QString::fromStdString(x.message));
  QVERIFY(found);
  // tp*pp*dp*cp != gpus is a plan-level problem: shown on the plan group.
  QLabel* plan_message = editor->message_label(QStringLiteral("parallel"));
  QVERIFY(!plan_message->isHidden());
  QVERIFY2(plan_message->text().contains(QStringLiteral("but cluster.gpus is 64")), qPrintable(plan_message->text()));
  QVERIFY(w.problems_view()->count() >= 2);
  w.resize(kScreenshotWidth, kScreenshotHeight);
  QString error;
  QVERIFY2(save_screenshot(w, QStringLiteral("summary"), shot_path(QStringLiteral("gui-invalid.png")), &error),
           qPrintable(error));
  // Fixing it clears the message.
  qobject_cast<QSpinBox*>(editor->field(QStringLiteral("parallel.tp")))->setValue(2);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(w.result()->ok());
  QVERIFY(tp_message->isHidden());
  // A bad unit string in a text field gets the loader's message too.
  auto* tokens = qobject_cast<QLineEdit*>(editor->field(QStringLiteral("training.tokens")));
  QVERIFY(tokens);
  QTest::keyClicks(tokens, QStringLiteral("x"));  // "1Tx"
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(!editor->message_label(QStringLiteral("training.tokens"))->isHidden());
}

void GuiTest::undo_and_redo_restore_the_form() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  auto* tp = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")));
  auto* gpus = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("cluster.gpus")));
  tp->setValue(4);
  gpus->setValue(128);
  QCOMPARE(w.undo_stack()->count(), 2);
  QVERIFY(w.is_modified());
  w.undo_stack()->undo();
  QCOMPARE(gpus->value(), 64);
  QCOMPARE(tp->value(), 4);
  w.undo_stack()->undo();
  QCOMPARE(tp->value(), 2);
  QVERIFY(!w.is_modified());
  w.undo_stack()->redo();
  QCOMPARE(tp->value(), 4);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(w.result()->yaml.find("tp: 4") != std::string::npos);

  // Quick edits of one field (typing "16" into a spin box) merge into one step.
  MainWindow fresh(catalog_);
  auto* tp2 = qobject_cast<QSpinBox*>(fresh.editor()->field(QStringLiteral("parallel.tp")));
  tp2->setValue(1);
  tp2->setValue(16);
  QCOMPARE(fresh.undo_stack()->count(), 1);
  fresh.undo_stack()->undo();
  QCOMPARE(tp2->value(), 2);
}

void GuiTest::bad_file_leaves_document_intact() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  const io::ScenarioForm before = w.editor()->form_state();
  const QString bad = tmp_.filePath(QStringLiteral("bad.yaml"));
  QVERIFY(write_all(
      bad,
      "model: llama3-8b\ncluster: {gpu: H801, gpus: 64}\nparallel: {tp: 3, global_batch: 512}\nprecision: bf16\n"));
  QString error;
  QVERIFY(!w.open_file(bad, &error));
  QVERIFY2(error.contains(QStringLiteral("bad.yaml:2")), qPrintable(error));
  QVERIFY2(error.contains(QStringLiteral("unknown GPU 'H801'")), qPrintable(error));
  QVERIFY(w.editor()->form_state() == before);
  QCOMPARE(QFileInfo(w.file_path()).fileName(), QStringLiteral("quickstart.yaml"));
  QVERIFY(!w.open_file(tmp_.filePath(QStringLiteral("missing.yaml")), &error));
  QVERIFY(error.contains(QStringLiteral("file not found")));
}

void GuiTest::save_keeps_a_backup() {
  const QString path = tmp_.filePath(QStringLiteral("plan.yaml"));
  const std::string original = read_all(kQuickstart);
  QVERIFY(write_all(path, original));
  MainWindow w(catalog_);
  QVERIFY(w.open_file(path));
  // Saving an unedited document writes it as it was, comments and all.
  QVERIFY(w.save_to(path));
  QCOMPARE(read_all(path), original);
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")))->setValue(4);
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.dp")))->setValue(16);
  QVERIFY(w.is_modified());
  QString error;
  QVERIFY2(w.save_to(path, &error), qPrintable(error));
  QVERIFY(!w.is_modified());
  QCOMPARE(read_all(path + QStringLiteral(".bak")), original);
  Diagnostics d;
  const auto saved = io::load_scenario_file(path.toStdString(), *catalog_, d);
  QVERIFY2(saved.has_value(), d.str().c_str());
  QCOMPARE(saved->plan.tp, 4);
  QCOMPARE(saved->training.tokens, 1e12);
  QVERIFY(!saved->description.empty());
  QSettings settings;
  QVERIFY(settings.value(QStringLiteral("recentFiles")).toStringList().contains(QFileInfo(path).absoluteFilePath()));
}

void GuiTest::cost_tab_bills_each_plan_when_pricing_is_loaded() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  auto* catalogs = qobject_cast<QComboBox*>(w.editor()->field(QStringLiteral("pricing.catalog")));
  QVERIFY(catalogs);
  const int seed = catalogs->findData(QStringLiteral("seed-vendor"));
  QVERIFY(seed > 0);
  catalogs->setCurrentIndex(seed);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const auto r = w.result();
  QVERIFY2(r->ok(), r->diags.str().c_str());
  QVERIFY(r->scenario->has_pricing);
  FigureTableModel* bills = w.models().back();
  QVERIFY(bills->rowCount() > 0);
  QVERIFY(w.cost_chart()->shows_bills());
  // The cheapest plan is marked, as compare_plans decided.
  int cheapest = 0;
  for (const auto& row : bills->rows()) cheapest += row.emphasis ? 1 : 0;
  QCOMPARE(cheapest, 1);
  QVERIFY(w.current_yaml().find("catalog: seed-vendor") != std::string::npos);
  // Cost over the calendar: one curve per cheapest option, never decreasing, each ending at
  // that option's P90 bill.
  QVERIFY(w.cost_calendar()->curves() > 0);
  QCOMPARE(static_cast<int>(r->calendar.size()), w.cost_calendar()->curves());
  for (const auto& curve : r->calendar) {
    QVERIFY(curve.points.size() > 2);
    for (std::size_t i = 1; i < curve.points.size(); ++i)
      QVERIFY(curve.points[i].total.minor >= curve.points[i - 1].total.minor);
    bool matched = false;
    for (const auto& row : r->plans()->rows)
      if (row.option.label == curve.label) matched = row.p90.total.minor == curve.points.back().total.minor;
    QVERIFY2(matched, curve.label.c_str());
  }
  // Model uncertainty: a shaded span from where the P90 run ends with the step at the band's
  // P10 to where it ends at its P90 (H800: a Hopper band), around the curves' end.
  QVERIFY(r->report.run && r->report.run->band_p10 && r->report.run->band_p90);
  const double lo = r->report.run->band_p10->gpu_span_p90.days();
  const double hi = r->report.run->band_p90->gpu_span_p90.days();
  QVERIFY(lo < r->report.run->result.gpu_span_p90.days() && r->report.run->result.gpu_span_p90.days() < hi);
  int areas = 0;
  for (QAbstractSeries* series : w.cost_calendar()->chart()->series()) {
    auto* area = qobject_cast<QAreaSeries*>(series);
    if (!area) continue;
    ++areas;
    QVERIFY2(area->name().startsWith(QStringLiteral("model uncertainty: the run ends between %1 and %2 days")
                                         .arg(lo, 0, 'f', 1)
                                         .arg(hi, 0, 'f', 1)),
             qPrintable(area->name()));
    QCOMPARE(area->upperSeries()->at(0).x(), lo);
    QCOMPARE(area->upperSeries()->at(1).x(), hi);
  }
  QCOMPARE(areas, 1);
  w.cost_calendar()->resize(900, 500);
  QVERIFY(w.cost_calendar()->grab().save(shot_path(QStringLiteral("gui-cost-calendar.png"))));
}

void GuiTest::screenshot_of_each_tab_is_not_blank_data() {
  QTest::addColumn<QString>("tab");
  for (const QString& tab : MainWindow::tab_names()) QTest::newRow(qPrintable(tab)) << tab;
}

void GuiTest::every_tab_fits_1000_by_700_data() {
  QTest::addColumn<QString>("tab");
  for (const QString& t : MainWindow::tab_names()) QTest::newRow(qPrintable(t)) << t;
}

/// At 1000 x 700 (docs/gui.md's smallest size) no tab makes the window wider or taller: every
/// field, legend and hint fits, so nothing is cut off (the screenshots at that size were looked
/// at); the screenshot is the window's size.
void GuiTest::every_tab_fits_1000_by_700() {
  QFETCH(QString, tab);
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(w.open_sweep(write_sweep_csv()));
  w.claims_view()->open(QStringLiteral(FLOPCAST_SCENARIOS_DIR "/seed-claims/claims.yaml"));
  w.resize(1000, 700);
  const QString path = shot_path(QStringLiteral("gui-%1-1000x700.png").arg(tab));
  QString error;
  QVERIFY2(save_screenshot(w, tab, path, &error), qPrintable(error));
  QString wide;
  for (QWidget* c : w.findChildren<QWidget*>())
    if (c->isVisible() && c->minimumSizeHint().width() > 600)
      wide += QStringLiteral("%1 (%2) ")
                  .arg(QString::fromLatin1(c->metaObject()->className()))
                  .arg(c->minimumSizeHint().width());
  QVERIFY2(w.minimumSizeHint().width() <= 1000, qPrintable(wide));
  QCOMPARE(QImage(path).size(), QSize(1000, 700));
}

void GuiTest::screenshot_of_each_tab_is_not_blank() {
  QFETCH(QString, tab);
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(w.open_sweep(write_sweep_csv()));
  w.claims_view()->open(QStringLiteral(FLOPCAST_SCENARIOS_DIR "/seed-claims/claims.yaml"));
  w.resize(kScreenshotWidth, kScreenshotHeight);
  const QString path = shot_path(QStringLiteral("gui-%1.png").arg(tab));
  QString error;
  QVERIFY2(save_screenshot(w, tab, path, &error), qPrintable(error));
  const QImage image(path);
  QCOMPARE(image.size(), QSize(kScreenshotWidth, kScreenshotHeight));
  QVERIFY(distinct_colours(image, 64) >= 64);
  // The tab's own area has content, not just the editor beside it.
  const QImage page = w.tabs()->currentWidget()->grab().toImage();
  QVERIFY2(distinct_colours(page, 16) >= 16, qPrintable(tab));
}

/// A sweep CSV as `flopcast sweep` writes it: 12 points over GPU type x count.
QString GuiTest::write_sweep_csv() const {
  const QString path = tmp_.filePath(QStringLiteral("sweep.csv"));
  std::string text = "# flopcast sweep test-sweep points=12\npoint,gpu,gpus,tp,days,cost_usd\n";
  int point = 0;
  for (const char* gpu : {"H100", "H800"})
    for (int gpus : {8, 16, 24, 32, 48, 64}) {
      const double days = 400.0 / gpus * (gpu[1] == '1' ? 1.0 : 1.1);
      text += std::to_string(point++) + "," + gpu + "," + std::to_string(gpus) + ",2," + std::to_string(days) + "," +
              std::to_string(days * gpus * 24 * 2.5) + "\n";
    }
  write_all(path, text);
  return path;
}

/// quickstart.yaml scaled to 16,384 GPUs (DP 8192, global batch 16,384 sequences).
std::string big_cluster_yaml() {
  std::string y = read_all(kQuickstart);
  const auto swap = [&y](const std::string& from, const std::string& to) {
    const auto at = y.find(from);
    if (at != std::string::npos) y.replace(at, from.size(), to);
    return at != std::string::npos;
  };
  if (!swap("gpus: 64", "gpus: 16384") || !swap("dp: 32", "dp: 8192") ||
      !swap("global_batch: 512", "global_batch: 16384"))
    return {};
  return y;
}

void GuiTest::big_cluster_computes_in_background_with_progress() {
  const std::string yaml = big_cluster_yaml();
  QVERIFY(!yaml.empty());
  ScenarioComputer c(catalog_);
  QSignalSpy progress(&c, &ScenarioComputer::progressChanged);
  QSignalSpy done(&c, &ScenarioComputer::resultsUpdated);
  // The UI thread keeps running events while the worker computes.
  int events_while_busy = 0;
  QTimer tick;
  tick.setInterval(1);
  connect(&tick, &QTimer::timeout, this, [&] { events_while_busy += c.busy() ? 1 : 0; });
  tick.start();
  c.schedule_now(yaml, "big.yaml");
  QVERIFY(c.busy());
  QVERIFY(done.wait(kTimeoutMs));
  tick.stop();
  QVERIFY(!c.busy());
  QVERIFY2(c.latest()->ok(), c.latest()->diags.str().c_str());
  QCOMPARE(c.latest()->scenario->cluster.gpus, std::int64_t{16384});
  QVERIFY2(events_while_busy > 0, "the event loop did not run while computing");
  // Progress: starts at 0, never goes back, ends at 100 ("done").
  QVERIFY(progress.count() >= 2);
  int last = -1;
  for (const auto& args : progress) {
    QVERIFY(args.at(0).toInt() >= last);
    last = args.at(0).toInt();
  }
  QCOMPARE(progress.first().at(0).toInt(), 0);
  QCOMPARE(last, 100);
  QCOMPARE(progress.last().at(1).toString(), QStringLiteral("done"));
}

void GuiTest::cancel_keeps_the_previous_result() {
  ScenarioComputer c(catalog_);
  QSignalSpy done(&c, &ScenarioComputer::resultsUpdated);
  QSignalSpy cancelled(&c, &ScenarioComputer::cancelled);
  QSignalSpy busy(&c, &ScenarioComputer::busyChanged);
  c.schedule_now(read_all(kQuickstart), "quickstart.yaml");
  QVERIFY(done.wait(kTimeoutMs));
  const auto first = c.latest();
  QVERIFY(first && first->ok());

  // Cancel while running: the worker stops at its next stage, nothing is published.
  c.schedule_now(big_cluster_yaml(), "big.yaml");
  QVERIFY(c.busy());
  c.cancel();
  QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, kTimeoutMs);
  QVERIFY(!c.busy());
  QCOMPARE(busy.last().at(0).toBool(), false);
  QCOMPARE(c.latest(), first);
  QCOMPARE(done.count(), 1);
  QCOMPARE(c.cancellations(), std::uint64_t{1});

  // Cancel while an edit is held by the debounce (the first edit of a burst starts at once,
  // the second waits): neither is published and nothing more starts.
  c.schedule(big_cluster_yaml(), "big.yaml");
  c.schedule(big_cluster_yaml(), "big.yaml");
  c.cancel();
  QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 2, kTimeoutMs);
  QVERIFY(!c.busy());
  QTest::qWait(2 * ScenarioComputer::kDefaultDebounceMs);
  QCOMPARE(done.count(), 1);
  QCOMPARE(c.latest(), first);

  // Cancelling when idle does nothing; a new request computes again.
  c.cancel();
  QCOMPARE(cancelled.count(), 2);
  c.schedule_now(big_cluster_yaml(), "big.yaml");
  QVERIFY(done.wait(kTimeoutMs));
  QCOMPARE(c.latest()->scenario->cluster.gpus, std::int64_t{16384});
}

void GuiTest::window_stays_editable_while_a_big_job_computes() {
  const QString path = tmp_.filePath(QStringLiteral("big.yaml"));
  QVERIFY(write_all(path, big_cluster_yaml()));
  MainWindow w(catalog_);
  QSignalSpy updated(&w, &MainWindow::resultsUpdated);
  QVERIFY(w.open_file(path));
  QVERIFY(w.computing());
  // Edits go through while the 16,384-GPU job computes; the last one wins.
  auto* tp = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")));
  auto* dp = qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.dp")));
  QVERIFY(tp && dp);
  tp->setValue(4);
  dp->setValue(4096);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY2(w.result()->ok(), w.result()->diags.str().c_str());
  QCOMPARE(w.result()->scenario->plan.tp, 4);
  QCOMPARE(w.result()->scenario->plan.dp, std::int64_t{4096});
  QVERIFY(updated.count() >= 1);
}

void GuiTest::settings_and_recent_files_are_remembered() {
  // initTestCase points QSettings at a temporary folder.
  QSettings().clear();
  QStringList paths;
  for (const char* name : {"a.yaml", "b.yaml"}) {
    paths << tmp_.filePath(QString::fromLatin1(name));
    QVERIFY(write_all(paths.back(), read_all(kQuickstart)));
  }
  {
    MainWindow w(catalog_);
    QVERIFY(w.open_file(paths[0]));
    QVERIFY(w.open_file(paths[1]));
    QVERIFY(w.open_file(paths[0]));
    QCOMPARE(w.recent_files(),
             (QStringList{QFileInfo(paths[0]).absoluteFilePath(), QFileInfo(paths[1]).absoluteFilePath()}));
    w.select_tab(QStringLiteral("cost"));
    w.save_settings();
  }
  MainWindow again(catalog_);
  QCOMPARE(again.recent_files().size(), 2);
  QCOMPARE(again.recent_files().front(), QFileInfo(paths[0]).absoluteFilePath());
  QCOMPARE(again.recent_menu_titles(), (QStringList{QStringLiteral("a.yaml"), QStringLiteral("b.yaml")}));
  QVERIFY(again.tabs()->currentIndex() != MainWindow::tab_names().indexOf(QStringLiteral("cost")));
  again.restore_settings();
  QCOMPARE(again.tabs()->currentIndex(), MainWindow::tab_names().indexOf(QStringLiteral("cost")));
  // The list keeps the newest kMaxRecentFiles.
  for (int i = 0; i < MainWindow::kMaxRecentFiles + 2; ++i) {
    const QString p = tmp_.filePath(QStringLiteral("r%1.yaml").arg(i));
    QVERIFY(write_all(p, read_all(kQuickstart)));
    QVERIFY(again.open_file(p));
  }
  QCOMPARE(again.recent_files().size(), MainWindow::kMaxRecentFiles);
  QCOMPARE(QFileInfo(again.recent_files().front()).fileName(),
           QStringLiteral("r%1.yaml").arg(MainWindow::kMaxRecentFiles + 1));
}

/// Answers the next modal message box with `button` (from the event loop, once it shows).
void answer_next_message_box(QMessageBox::StandardButton button, QString* text) {
  QTimer::singleShot(0, [button, text] {
    QTRY_VERIFY(QApplication::activeModalWidget() != nullptr);
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    QVERIFY(box);
    if (text) *text = box->text();
    box->button(button)->click();
  });
}

void GuiTest::unsaved_edits_are_never_dropped_without_asking() {
  const QString path = tmp_.filePath(QStringLiteral("unsaved.yaml"));
  QVERIFY(write_all(path, read_all(kQuickstart)));
  MainWindow w(catalog_);
  QVERIFY(w.open_file(path));
  w.show();
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")))->setValue(4);
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.dp")))->setValue(16);
  QVERIFY(w.is_modified());
  // Closing asks; Cancel keeps the window and the edit.
  QString asked;
  answer_next_message_box(QMessageBox::Cancel, &asked);
  QVERIFY(!w.close());
  QVERIFY2(asked.contains(QStringLiteral("unsaved changes")), qPrintable(asked));
  QVERIFY(w.is_modified());
  QCOMPARE(w.editor()->form_state().tp, std::int64_t{4});
  // New document asks too; Cancel keeps the edit.
  asked.clear();
  answer_next_message_box(QMessageBox::Cancel, &asked);
  w.trigger_new();
  QVERIFY(!asked.isEmpty());
  QCOMPARE(w.editor()->form_state().tp, std::int64_t{4});
  // Save writes the edit (keeping a backup); then closing asks nothing.
  answer_next_message_box(QMessageBox::Save, nullptr);
  QVERIFY(w.close());
  QVERIFY(!w.is_modified());
  QVERIFY(QFileInfo::exists(path + QStringLiteral(".bak")));
  Diagnostics d;
  const auto saved = io::load_scenario_file(path.toStdString(), *catalog_, d);
  QVERIFY2(saved.has_value(), d.str().c_str());
  QCOMPARE(saved->plan.tp, 4);
}

void GuiTest::charts_export_as_png_and_svg() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  w.resize(kScreenshotWidth, kScreenshotHeight);
  w.show();
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(w.open_sweep(write_sweep_csv()));
  for (const QString& tab : MainWindow::chart_tabs()) {
    if (tab == QLatin1String("planner")) continue;  // empty until a search ran: planner test
    QVERIFY(w.select_tab(tab));
    QTest::qWait(50);
    QWidget* chart = w.chart_widget(tab);
    QVERIFY2(chart && chart->isVisible(), qPrintable(tab));
    const QString png = tmp_.filePath(QStringLiteral("export-%1.png").arg(tab));
    const QString svg = tmp_.filePath(QStringLiteral("export-%1.svg").arg(tab));
    QString error;
    QVERIFY2(w.export_chart(tab, png, &error), qPrintable(error));
    QVERIFY2(w.export_chart(tab, svg, &error), qPrintable(error));
    const QImage image(png);
    QCOMPARE(image.size(), chart->size() * 2);
    QVERIFY2(distinct_colours(image, 16) >= 16, qPrintable(tab));
    QSvgRenderer renderer(svg);
    QVERIFY2(renderer.isValid(), qPrintable(tab));
    QCOMPARE(renderer.viewBox().size(), chart->size());
    // The drawing has content: rendered back, it is not one flat colour.
    QImage back(chart->size(), QImage::Format_ARGB32);
    back.fill(Qt::white);
    QPainter painter(&back);
    renderer.render(&painter);
    painter.end();
    QVERIFY2(distinct_colours(back, 16) >= 16, qPrintable(tab));
    QVERIFY(read_all(svg).find("<svg") != std::string::npos);
  }
  QString error;
  QVERIFY(!w.export_chart(QStringLiteral("cost"), tmp_.filePath(QStringLiteral("x.jpg")), &error));
  QVERIFY2(error.contains(QStringLiteral(".png or .svg")), qPrintable(error));
  QVERIFY(!w.export_chart(QStringLiteral("summary"), tmp_.filePath(QStringLiteral("x.png")), &error));
  QVERIFY(!w.chart_widget(QStringLiteral("yaml")));
}

void GuiTest::quote_pdf_has_the_cli_quote_content() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const std::string date = "2026-03-02";
  const QuoteDocument doc = w.quote_document(date, "ACME");
  QVERIFY2(doc.ok(), doc.errors.empty() ? "no html" : doc.errors.front().c_str());
  // The same HTML `flopcast quote` writes for the same file and date.
  const std::string file = kQuickstart.toStdString();
  const char* argv[] = {"flopcast", "quote",      file.c_str(), "--format", "html",
                        "--date",   date.c_str(), "--customer", "ACME"};
  std::ostringstream out, err;
  QCOMPARE(cli::run(9, argv, out, err), 0);
  QVERIFY(out.str() == doc.html);
  QVERIFY(doc.html.find(doc.id) != std::string::npos);
  QVERIFY(doc.html.find("ACME") != std::string::npos);
  const QString pdf = tmp_.filePath(QStringLiteral("quote.pdf"));
  QString error;
  QVERIFY2(write_quote_pdf(doc, pdf, &error), qPrintable(error));
  const std::string bytes = read_all(pdf);
  QVERIFY(bytes.rfind("%PDF-", 0) == 0);
  QVERIFY(bytes.size() > 2000);
  // In Chinese: the HTML of `flopcast quote --lang zh-CN`, the same quote id, a Chinese title.
  const QuoteDocument zh = w.quote_document(date, "ACME", QuoteLanguage::ZhCn);
  QVERIFY2(zh.ok(), zh.errors.empty() ? "no html" : zh.errors.front().c_str());
  const char* argv_zh[] = {"flopcast",   "quote",      file.c_str(), "--format", "html", "--date",
                           date.c_str(), "--customer", "ACME",       "--lang",   "zh-CN"};
  std::ostringstream out_zh, err_zh;
  QCOMPARE(cli::run(11, argv_zh, out_zh, err_zh), 0);
  QVERIFY(out_zh.str() == zh.html);
  QCOMPARE(zh.id, doc.id);
  QCOMPARE(QString::fromStdString(zh.title), QStringLiteral("训练报价单 ") + QString::fromStdString(doc.id));
  QVERIFY(zh.html != doc.html);
  const QString pdf_zh = tmp_.filePath(QStringLiteral("quote-zh.pdf"));
  QVERIFY2(write_quote_pdf(zh, pdf_zh, &error), qPrintable(error));
  QVERIFY(read_all(pdf_zh).rfind("%PDF-", 0) == 0);
  // An edited scenario is a different quote.
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")))->setValue(4);
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.dp")))->setValue(16);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const QuoteDocument edited = w.quote_document(date, "ACME");
  QVERIFY(edited.ok());
  QVERIFY(edited.id != doc.id);
  // A scenario with errors has no quote, and says why.
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")))->setValue(3);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const QuoteDocument none = w.quote_document(date);
  QVERIFY(!none.ok());
  QVERIFY(!none.errors.empty());
}

void GuiTest::csv_parser_reads_quotes_and_names_bad_lines() {
  QString error;
  const auto t = parse_csv(
      "# flopcast sweep s-1, 3 points\npoint,gpu,label,step_s\n0,H100,\"a, \"\"b\"\"\",1.5\r\n1,H800,\"two\nlines\",\n2,A100,c,10\n",
      QStringLiteral("s.csv"), &error);
  QVERIFY2(t.has_value(), qPrintable(error));
  QCOMPARE(t->headers, (QStringList{QStringLiteral("point"), QStringLiteral("gpu"), QStringLiteral("label"),
                                    QStringLiteral("step_s")}));
  QCOMPARE(t->rows.size(), std::size_t{3});
  QCOMPARE(t->rows[0][2], QStringLiteral("a, \"b\""));
  QCOMPARE(t->rows[1][2], QStringLiteral("two\nlines"));
  QCOMPARE(t->rows[1][3], QString());
  QCOMPARE(t->notes, QStringList{QStringLiteral("flopcast sweep s-1, 3 points")});
  QCOMPARE(t->numeric, (std::vector<bool>{true, false, false, true}));
  // A short row names its line (after a two-line cell).
  QVERIFY(!parse_csv("a,b\n1,\"x\ny\"\n3\n", QStringLiteral("bad.csv"), &error));
  QVERIFY2(error.startsWith(QStringLiteral("bad.csv:4: the row has 1 cells, the header 2")), qPrintable(error));
  QVERIFY(!parse_csv("a,b\n1,\"open\n", QStringLiteral("q.csv"), &error));
  QVERIFY2(error.contains(QStringLiteral("q.csv:2: a quoted cell is not closed")), qPrintable(error));
  QVERIFY(!parse_csv("# only notes\n", QStringLiteral("e.csv"), &error));
  QVERIFY2(error.contains(QStringLiteral("no header row")), qPrintable(error));
  QVERIFY(!read_csv(tmp_.filePath(QStringLiteral("missing.csv")), &error));
  QVERIFY2(error.contains(QStringLiteral("cannot read")), qPrintable(error));
}

void GuiTest::sweep_tab_sorts_filters_and_charts() {
  SweepView view;
  QAbstractItemModelTester model_tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester proxy_tester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QString error;
  QVERIFY2(view.open(write_sweep_csv(), &error), qPrintable(error));
  QCOMPARE(view.model()->rowCount(), 12);
  QCOMPARE(view.model()->columnCount(), 6);
  // Numbers sort as numbers: gpus 8 < 16 < 64 (as text "16" < "64" < "8").
  const int gpus = static_cast<int>(view.model()->table().headers.indexOf(QStringLiteral("gpus")));
  view.proxy()->sort(gpus, Qt::AscendingOrder);
  QCOMPARE(view.proxy()->index(0, gpus).data().toString(), QStringLiteral("8"));
  QCOMPARE(view.proxy()->index(11, gpus).data().toString(), QStringLiteral("64"));
  view.proxy()->sort(gpus, Qt::DescendingOrder);
  QCOMPARE(view.proxy()->index(0, gpus).data().toString(), QStringLiteral("64"));
  // The chart plots every row, then only the filtered ones.
  QVERIFY(view.set_axes(QStringLiteral("gpus"), QStringLiteral("days"), QStringLiteral("gpu")));
  QCOMPARE(view.plotted_points(), 12);
  QCOMPARE(view.chart_view()->chart()->series().size(), 2);  // one per GPU type
  view.set_filter(QStringLiteral("h800"));
  QCOMPARE(view.proxy()->rowCount(), 6);
  QCOMPARE(view.plotted_points(), 6);
  QCOMPARE(view.chart_view()->chart()->series().size(), 1);
  view.set_filter(QString());
  QVERIFY(!view.set_axes(QStringLiteral("gpu"), QStringLiteral("days")));  // not a number column
  // A bad file leaves the table as it was.
  const QString bad = tmp_.filePath(QStringLiteral("bad-sweep.csv"));
  QVERIFY(write_all(bad, "point,gpus\n0,8\n1\n"));
  QVERIFY(!view.open(bad, &error));
  QVERIFY2(error.contains(QStringLiteral("bad-sweep.csv:3")), qPrintable(error));
  QCOMPARE(view.model()->rowCount(), 12);
}

void GuiTest::planner_front_click_loads_the_plan() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  PlannerView* planner = w.planner_view();
  planner->set_gpu_types({QStringLiteral("H800")});
  planner->set_gpus_max(64);
  QSignalSpy finished(planner, &PlannerView::finished);
  planner->run();
  QVERIFY(planner->running());
  QVERIFY(finished.wait(5 * kTimeoutMs));
  QCOMPARE(finished.first().at(0).toBool(), true);
  QVERIFY(planner->result().has_value());
  QVERIFY(!planner->result()->pareto.empty());
  QVERIFY(!planner->points().empty());
  QCOMPARE(planner->front_table()->rowCount(), static_cast<int>(planner->result()->pareto.size()));
  // Clicking the front's first point loads its plan; the result follows.
  const search::PricedPlan chosen = planner->result()->pareto.front();
  std::size_t at = planner->points().size();
  for (std::size_t i = 0; i < planner->points().size(); ++i)
    if (planner->points()[i].candidate.index == chosen.candidate.index) at = i;
  QVERIFY(at < planner->points().size());
  QSignalSpy updated(&w, &MainWindow::resultsUpdated);
  const int undo_before = w.undo_stack()->count();
  planner->choose(at);
  const io::ScenarioForm f = w.editor()->form_state();
  QCOMPARE(f.gpus, chosen.candidate.gpus);
  QCOMPARE(f.tp, std::int64_t{chosen.candidate.plan.tp});
  QCOMPARE(f.pp, std::int64_t{chosen.candidate.plan.pp});
  QCOMPARE(f.dp, chosen.candidate.plan.dp);
  QCOMPARE(f.micro_batch, chosen.candidate.plan.micro_batch);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY2(w.result()->ok(), w.result()->diags.str().c_str());
  QCOMPARE(w.result()->scenario->plan.tp, chosen.candidate.plan.tp);
  QCOMPARE(w.result()->scenario->cluster.gpus, chosen.candidate.gpus);
  // One undo step brings the old plan back.
  if (w.undo_stack()->count() > undo_before) {
    w.undo_stack()->undo();
    QCOMPARE(w.editor()->form_state().tp, std::int64_t{2});
  }
  // Cancel drops a running search.
  QSignalSpy cancelled(planner, &PlannerView::cancelled);
  planner->run();
  planner->cancel();
  QCOMPARE(cancelled.count(), 1);
  QVERIFY(!planner->running());
  w.resize(kScreenshotWidth, kScreenshotHeight);
  QString error;
  QVERIFY2(save_screenshot(w, QStringLiteral("planner"), shot_path(QStringLiteral("gui-planner-test.png")), &error),
           qPrintable(error));
}

void GuiTest::planner_best_is_the_simulated_run_it_names() {
  // Once "Best" paired the closed form's expected days with the bill at P90 with the model's
  // band, and named a 487-day plan "Best" when no deadline was given.
  PlannerRequest req;
  req.yaml = read_all(kQuickstart);
  req.file = "quickstart.yaml";
  req.gpu_types = {"H800"};
  req.gpus_max = 64;
  req.deadline = Time::from_seconds(60.0 * 86'400);
  const PlannerOutcome out = run_planner(req, *catalog_);
  QVERIFY(out.result.has_value());
  const search::PlanResult& r = *out.result;
  QVERIFY(r.chosen.has_value());
  const search::Resimulated& x = *r.chosen;
  const QString text = planner_summary(r, true);
  // The days and the bill of the same simulated run, each named: P50, and P90 at the band's factor.
  const auto days = [](Time t) { return QString::number(t.days(), 'f', 1) + QStringLiteral(" days"); };
  QVERIFY2(text.contains(days(x.wall_p50) + QStringLiteral(" and ") + QString::fromStdString(x.cost_p50.str()) +
                         QStringLiteral(" at P50")),
           qPrintable(text));
  QVERIFY2(text.contains(days(x.wall) + QStringLiteral(" and ") + QString::fromStdString(x.cost.str()) +
                         QStringLiteral(" at P90 with the step at the band's x")),
           qPrintable(text));
  QVERIFY(text.contains(QStringLiteral("Best (cheapest meeting the deadline and budget")));
  // Without a deadline or a budget the cheapest plan is not called the best: it is the slowest.
  req.deadline.reset();
  const PlannerOutcome open = run_planner(req, *catalog_);
  QVERIFY(open.result.has_value());
  const QString unconstrained = planner_summary(*open.result, false);
  QVERIFY2(!unconstrained.contains(QStringLiteral("Best")), qPrintable(unconstrained));
  QVERIFY2(unconstrained.contains(QStringLiteral("No deadline or budget: the cheapest plan")),
           qPrintable(unconstrained));
  QVERIFY(unconstrained.contains(QStringLiteral("set a deadline")));
}

void GuiTest::fleet_tab_shows_utilisation_and_queue() {
  MainWindow w(catalog_);
  FleetView* fleet = w.fleet_view();
  QSignalSpy finished(fleet, &FleetView::finished);
  // A bad file: the loader's file:line message, nothing shown.
  const QString bad = tmp_.filePath(QStringLiteral("bad-fleet.yaml"));
  QVERIFY(write_all(bad, "name: bad\npools:\n  - {name: p, gpu: H801, nodes: 2}\n"));
  w.open_fleet(bad);
  QVERIFY(finished.wait(kTimeoutMs));
  QCOMPARE(finished.last().at(0).toBool(), false);
  QVERIFY2(fleet->error_text().contains(QStringLiteral("bad-fleet.yaml:")), qPrintable(fleet->error_text()));
  QVERIFY(!fleet->result());
  // A shipped fleet: one utilisation line per pool, the queue lines, values in range.
  w.open_fleet(QStringLiteral(FLOPCAST_SCENARIOS_DIR "/fleets/company-quarter.yaml"));
  QVERIFY(fleet->running());
  QVERIFY(finished.wait(5 * kTimeoutMs));
  QVERIFY2(finished.last().at(0).toBool(), qPrintable(fleet->error_text()));
  QVERIFY(fleet->result().has_value());
  const auto& ts = fleet->result()->series;
  QVERIFY(!ts.bin_start.empty());
  QCOMPARE(fleet->utilisation_chart()->chart()->series().size(), static_cast<qsizetype>(ts.pools.size()));
  QCOMPARE(fleet->queue_chart()->chart()->series().size(), qsizetype{3});
  for (QAbstractSeries* a : fleet->utilisation_chart()->chart()->series()) {
    auto* line = qobject_cast<QLineSeries*>(a);
    QVERIFY(line);
    QCOMPARE(line->count(), static_cast<int>(ts.bin_start.size()));
    for (const QPointF& p : line->points()) QVERIFY(p.y() >= 0 && p.y() <= 100.0 + 1e-9);
  }
  w.resize(kScreenshotWidth, kScreenshotHeight);
  QString error;
  QVERIFY2(save_screenshot(w, QStringLiteral("fleet"), shot_path(QStringLiteral("gui-fleet-test.png")), &error),
           qPrintable(error));
  QVERIFY(distinct_colours(fleet->grab().toImage(), 32) >= 32);
}

void GuiTest::claims_tab_shows_every_verdict_and_its_computation() {
  MainWindow w(catalog_);
  ClaimsView* claims = w.claims_view();
  QAbstractItemModelTester tester(claims->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QSignalSpy finished(claims, &ClaimsView::finished);
  // A file that is not a claims file: the loader's file:line message, nothing shown.
  const QString bad = tmp_.filePath(QStringLiteral("bad-claims.yaml"));
  QVERIFY(write_all(bad, "- not\n- a mapping\n"));
  claims->open(bad);
  QVERIFY(finished.wait(kTimeoutMs));
  QCOMPARE(finished.last().at(0).toBool(), false);
  QVERIFY2(claims->error_text().contains(QStringLiteral("bad-claims.yaml:1:1")), qPrintable(claims->error_text()));
  QCOMPARE(claims->model()->rowCount(), 0);
  // The seed vendor's claims: the same verdicts `flopcast check` prints, one row each.
  claims->open(QStringLiteral(FLOPCAST_SCENARIOS_DIR "/seed-claims/claims.yaml"));
  QVERIFY(finished.wait(5 * kTimeoutMs));
  QVERIFY2(finished.last().at(0).toBool(), qPrintable(claims->error_text()));
  ClaimsTableModel* model = claims->model();
  QCOMPARE(model->rowCount(), 44);
  QCOMPARE(model->columnCount(), int{ClaimsTableModel::ColumnCount});
  const auto expected = check_claims(FLOPCAST_SCENARIOS_DIR "/seed-claims/claims.yaml", *catalog_);
  QVERIFY(expected.report);
  for (int row = 0; row < model->rowCount(); ++row) {
    const auto& r = expected.report->results[static_cast<std::size_t>(row)];
    QCOMPARE(model->index(row, ClaimsTableModel::Claim).data().toString(), QString::fromStdString(r.id));
    QCOMPARE(model->index(row, ClaimsTableModel::Verdict).data().toString(), QString::fromStdString(r.verdict.word()));
  }
  // Selecting a row opens its computation: the arithmetic of "38% cheaper" against the two plans.
  int row = -1;
  for (int i = 0; i < model->rowCount(); ++i)
    if (model->index(i, ClaimsTableModel::Claim).data().toString() == QLatin1String("monthly-38pct-cheaper")) row = i;
  QVERIFY(row >= 0);
  claims->select_row(row);
  const QString details = claims->details_text();
  QVERIFY2(details.contains(QStringLiteral("verdict   contradicts a100-node-month-price, a100-hourly-price")),
           qPrintable(details));
  QVERIFY2(details.contains(QStringLiteral("57,600.00 CNY")) && details.contains(QStringLiteral("39,168.00 CNY")),
           qPrintable(details));
  QVERIFY(
      model->index(row, ClaimsTableModel::Verdict).data(Qt::ToolTipRole).toString().contains(QStringLiteral("47.1%")));
  w.resize(kScreenshotWidth, kScreenshotHeight);
  QString error;
  QVERIFY2(save_screenshot(w, QStringLiteral("claims"), shot_path(QStringLiteral("gui-claims-test.png")), &error),
           qPrintable(error));
  QVERIFY(distinct_colours(claims->grab().toImage(), 16) >= 16);
}

void GuiTest::timeline_tab_draws_the_simulated_step() {
  // Quickstart with a 4-stage pipeline: every stage forwards and backwards every micro-batch.
  std::string yaml = read_all(kQuickstart);
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"pp: 1", "pp: 4"}, {"dp: 32", "dp: 8"}}) {
    const auto at = yaml.find(from);
    QVERIFY(at != std::string::npos);
    yaml.replace(at, from.size(), to);
  }
  const auto r = compute_scenario(yaml, "pp4.yaml", *catalog_);
  QVERIFY2(r && r->ok(), r ? r->diags.str().c_str() : "cancelled");
  QVERIFY(r->report.sim.has_value());
  const Timeline& t = r->timeline;
  QVERIFY(t.simulated);
  QCOMPARE(t.microbatches, std::int64_t{512 / 8});
  // One row per (stage, stream) that ran something, named as the simulator names its tracks.
  QVERIFY(t.rows.size() >= 4);
  std::vector<int> forwards(4, 0), backwards(4, 0);
  for (const auto& row : t.rows) {
    QVERIFY(!row.label.empty());
    QVERIFY(row.stage >= 0 && row.stage < 4);
    for (std::size_t i = 0; i < row.slices.size(); ++i) {
      const auto& x = row.slices[i];
      QVERIFY(x.start <= x.end);
      QVERIFY(x.end <= t.end);
      if (i > 0) QVERIFY(row.slices[i - 1].end <= x.start);  // a track runs one task at a time
      if (!row.comm && x.kind == SliceKind::Forward) ++forwards[static_cast<std::size_t>(row.stage)];
      if (!row.comm && x.kind == SliceKind::Backward && x.name.rfind("B", 0) == 0)
        ++backwards[static_cast<std::size_t>(row.stage)];
      if (row.comm) QVERIFY(x.kind != SliceKind::Forward && x.kind != SliceKind::Backward);
    }
  }
  for (int st = 0; st < 4; ++st) {
    QCOMPARE(forwards[static_cast<std::size_t>(st)], 64);
    QCOMPARE(backwards[static_cast<std::size_t>(st)], 64);
  }
  // The simulated step is the report's step; the closed form is kept for comparison.
  QCOMPARE(r->report.est.step, r->report.sim->step);
  QCOMPARE(t.estimate_step, r->report.closed_form_step);
  // Hover text names the simulator's slice.
  const app::TimelineSlice* first = nullptr;
  for (const auto& row : t.rows)
    if (!row.comm && !row.slices.empty()) first = &row.slices.front();
  QVERIFY(first);
  QVERIFY2(TimelineView::describe(*first).startsWith(QString::fromStdString(first->name)),
           qPrintable(TimelineView::describe(*first)));
}

void GuiTest::timeline_shows_cp_communication_apart() {
  // Quickstart with context parallelism 16 across two nodes (tp 2 cp 16 dp 2): 512 tokens per
  // rank, too few to hide the K/V exchange behind attention, so the simulated step has exposed CP
  // communication (simulate: 14.4 s of it), drawn in its own colour, apart from TP's.
  std::string yaml = read_all(kQuickstart);
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"cp: 1", "cp: 16"}, {"dp: 32", "dp: 2"}}) {
    const auto at = yaml.find(from);
    QVERIFY(at != std::string::npos);
    yaml.replace(at, from.size(), to);
  }
  const auto r = compute_scenario(yaml, "cp16.yaml", *catalog_);
  QVERIFY2(r && r->ok(), r ? r->diags.str().c_str() : "cancelled");
  const Timeline& t = r->timeline;
  QVERIFY(t.simulated);
  int cp = 0, tp = 0, mixed = 0;
  for (const auto& row : t.rows)
    for (const auto& x : row.slices) {
      cp += x.kind == SliceKind::CpComm;
      tp += x.kind == SliceKind::TpComm;
      mixed += x.kind == SliceKind::Comm;
    }
  QVERIFY(cp > 0);
  QVERIFY(tp > 0);
  QCOMPARE(mixed, 0);  // the simulated timeline names each collective's group
  QVERIFY(color_of(SliceKind::CpComm) != color_of(SliceKind::TpComm));
  QCOMPARE(QString::fromLatin1(app::slice_label(SliceKind::CpComm)), QStringLiteral("CP comm"));
}

QTEST_MAIN(GuiTest)
#include "test_gui.moc"

// flopcast-gui tests (QtTest, headless), the parts without a window: item models under
// QAbstractItemModelTester, the form <-> YAML composition over the shipped scenarios, the
// timeline layout and the sweep CSV reader.
#include "gui_test_support.hpp"

using namespace flopcast;
using namespace flopcast::gui;
using namespace flopcast::gui::test;
using namespace flopcast::app;

class GuiModelsTest : public GuiTestBase {
  Q_OBJECT

 private slots:
  void initTestCase() { init_environment(); }
  void figure_model_passes_tester();
  void memory_row_counts_in_flight_as_the_cli();
  void form_round_trips_shipped_scenarios();
  void compose_keeps_keys_the_form_does_not_edit();
  void custom_model_keeps_the_preset_architecture();
  void timeline_lays_out_1f1b();
  void timeline_lays_out_gpipe();
  void csv_parser_reads_quotes_and_names_bad_lines();
};

void GuiModelsTest::figure_model_passes_tester() {
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

void GuiModelsTest::memory_row_counts_in_flight_as_the_cli() {
  // DualPipe's stages hold half micro-batches at the peak: `simulate` prints 8.5, and so does the
  // summary (it rounded to 9).
  const QString path = QStringLiteral(FLOPCAST_SCENARIOS_DIR "/published/deepseek-v3-2048xh800.yaml");
  const auto r = compute_scenario(read_all(path), "deepseek-v3-2048xh800.yaml", *catalog_);
  QVERIFY2(r->ok(), r->diags.str().c_str());
  QString detail;
  for (const TableRow& row : summary_rows(*r))
    if (row.cells.value(0) == QStringLiteral("Memory per GPU")) detail = row.cells.value(2);
  QCOMPARE(detail, QStringLiteral("fits (stage 15, 8.5 micro-batches in flight)"));
}

void GuiModelsTest::form_round_trips_shipped_scenarios() {
  // Every shipped scenario: load, show in the form, compose YAML from the form over the file,
  // load that: the same model, cluster, plan, precision and tokens.
  int checked = 0;
  QDirIterator it(QStringLiteral(FLOPCAST_SCENARIOS_DIR), {QStringLiteral("*.yaml")}, QDir::Files,
                  QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString path = it.next();
    const std::string text = read_all(path);
    scenario::Diagnostics d;
    const auto s = io::parse_scenario(text, path.toStdString(), *catalog_, d);
    if (!s) continue;  // scenarios that are meant to fail, or need blocks this build lacks
    const io::ScenarioForm f = io::form_from_scenario(*s, text);
    const std::string yaml = io::compose_scenario_yaml(text, f, *catalog_);
    scenario::Diagnostics d2;
    const auto back = io::parse_scenario(yaml, "composed.yaml", *catalog_, d2);
    QVERIFY2(back.has_value(), (path.toStdString() + "\n" + yaml + d2.str()).c_str());
    QCOMPARE(back->model.layers, s->model.layers);
    QCOMPARE(back->model.hidden, s->model.hidden);
    QCOMPARE(back->model.heads, s->model.heads);
    QCOMPARE(back->model.kv_heads, s->model.kv_heads);
    QCOMPARE(back->model.ffn, s->model.ffn);
    QCOMPARE(back->model.seq_len, s->model.seq_len);
    QCOMPARE(workload::parameter_count(back->model).total, workload::parameter_count(s->model).total);
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

void GuiModelsTest::compose_keeps_keys_the_form_does_not_edit() {
  const std::string base = R"(# a comment
name: keep me
description: not in the form
model: llama3-8b
cluster: {gpu: H800, gpus: 64, fabric: {preset: hgx-h800-roce200, nic_gbps: 400}}
parallel: {tp: 2, pp: 1, dp: 32, global_batch: 512, overlap_dp_comm: true}
precision: bf16
claimed: {mfu: 0.5}
)";
  scenario::Diagnostics d;
  const auto s = io::parse_scenario(base, "base.yaml", *catalog_, d);
  QVERIFY2(s.has_value(), d.str().c_str());
  io::ScenarioForm f = io::form_from_scenario(*s, base);
  QCOMPARE(f.fabric, std::string(io::kFabricFromFile));
  QVERIFY(f.tokens.empty());
  f.tp = 4;
  f.dp = 16;
  const std::string yaml = io::compose_scenario_yaml(base, f, *catalog_);
  scenario::Diagnostics d2;
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

void GuiModelsTest::custom_model_keeps_the_preset_architecture() {
  io::ScenarioForm f = app::default_form(*catalog_);
  const workload::ModelSpec* preset = catalog_->find_model(f.model_preset);
  QVERIFY(preset);
  f.model_base = f.model_preset;  // "Custom shape" chosen while the preset was shown
  f.model_preset.clear();
  const std::string yaml = io::compose_scenario_yaml("", f, *catalog_);
  scenario::Diagnostics d;
  const auto s = io::parse_scenario(yaml, "custom.yaml", *catalog_, d);
  QVERIFY2(s.has_value(), (yaml + d.str()).c_str());
  QCOMPARE(s->model.name, std::string("custom"));
  QCOMPARE(workload::parameter_count(s->model).total, workload::parameter_count(*preset).total);
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

void GuiModelsTest::timeline_lays_out_1f1b() {
  // 4 equal stages, F 1 ms, B 2 ms, p2p 0.1 ms; 8 micro-batches.
  estimate::StepEstimate est;
  for (int i = 0; i < 4; ++i) est.stages.push_back(stage(1, 2, 0.1));
  est.breakdown.optimizer = units::Time::from_seconds(0.5e-3);
  parallel::ParallelPlan plan;
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

void GuiModelsTest::timeline_lays_out_gpipe() {
  estimate::StepEstimate est;
  for (int i = 0; i < 2; ++i) est.stages.push_back(stage(1, 2, 0));
  parallel::ParallelPlan plan;
  plan.pp = 2;
  plan.global_batch = 4;
  plan.schedule = parallel::Schedule::GPipe;
  const Timeline t = build_timeline(est, plan);
  QCOMPARE(t.schedule, std::string("gpipe"));
  // Stage 0 runs every forward before any backward.
  bool seen_backward = false;
  for (const auto& x : t.rows[0].slices) {
    if (x.kind == SliceKind::Backward) seen_backward = true;
    if (x.kind == SliceKind::Forward) QVERIFY(!seen_backward);
  }
  // A scenario without stages lays out nothing.
  QVERIFY(build_timeline(estimate::StepEstimate{}, plan).empty());
}

void GuiModelsTest::csv_parser_reads_quotes_and_names_bad_lines() {
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

QTEST_MAIN(GuiModelsTest)
#include "test_gui_models.moc"

// flopcast-gui tests (QtTest, headless), the main window as a user edits in it: item models
// while editing, results that follow a field, inline diagnostics, undo/redo, open/save and
// backups, settings and recent files, unsaved edits, and the background computation of a big
// cluster (progress, cancel, an editor that stays usable).
#include "gui_test_support.hpp"

using namespace flopcast;
using namespace flopcast::gui;
using namespace flopcast::gui::test;
using namespace flopcast::app;

class GuiEditingTest : public GuiTestBase {
  Q_OBJECT

 private slots:
  void initTestCase() { init_environment(); }
  void window_models_pass_tester_while_editing();
  void editing_a_field_updates_results();
  void invalid_field_shows_cli_message_inline();
  void undo_and_redo_restore_the_form();
  void bad_file_leaves_document_intact();
  void save_keeps_a_backup();
  void settings_and_recent_files_are_remembered();
  void unsaved_edits_are_never_dropped_without_asking();
  void big_cluster_computes_in_background_with_progress();
  void cancel_keeps_the_previous_result();
  void window_stays_editable_while_a_big_job_computes();
};

void GuiEditingTest::window_models_pass_tester_while_editing() {
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

void GuiEditingTest::editing_a_field_updates_results() {
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

void GuiEditingTest::invalid_field_shows_cli_message_inline() {
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
  scenario::Diagnostics d;
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

void GuiEditingTest::undo_and_redo_restore_the_form() {
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

void GuiEditingTest::bad_file_leaves_document_intact() {
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

void GuiEditingTest::save_keeps_a_backup() {
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
  scenario::Diagnostics d;
  const auto saved = io::load_scenario_file(path.toStdString(), *catalog_, d);
  QVERIFY2(saved.has_value(), d.str().c_str());
  QCOMPARE(saved->plan.tp, 4);
  QCOMPARE(saved->training.tokens, 1e12);
  QVERIFY(!saved->description.empty());
  QSettings settings;
  QVERIFY(settings.value(QStringLiteral("recentFiles")).toStringList().contains(QFileInfo(path).absoluteFilePath()));
}

void GuiEditingTest::settings_and_recent_files_are_remembered() {
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

void GuiEditingTest::unsaved_edits_are_never_dropped_without_asking() {
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
  scenario::Diagnostics d;
  const auto saved = io::load_scenario_file(path.toStdString(), *catalog_, d);
  QVERIFY2(saved.has_value(), d.str().c_str());
  QCOMPARE(saved->plan.tp, 4);
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

void GuiEditingTest::big_cluster_computes_in_background_with_progress() {
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

void GuiEditingTest::cancel_keeps_the_previous_result() {
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

void GuiEditingTest::window_stays_editable_while_a_big_job_computes() {
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

QTEST_MAIN(GuiEditingTest)
#include "test_gui_editing.moc"

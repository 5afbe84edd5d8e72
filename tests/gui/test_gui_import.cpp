// flopcast-gui's File > Import training logs (QtTest, headless): the menu action opens the logs
// dialog; the runs file of app::import_logs is saved, read back as a run file, never replaces a
// file without a "yes", and a bad log writes nothing and names file:line.
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>
#include <memory>

#include "flopcast/app/log_import.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "gui_test_support.hpp"
#include "log_import_dialog.hpp"
#include "main_window.hpp"

using namespace flopcast;
using namespace flopcast::gui;

namespace {

const std::string kTests = FLOPCAST_TESTS_DIR;

QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class GuiImportTest : public test::GuiTestBase {
  Q_OBJECT

 private slots:
  void initTestCase();
  void file_menu_action_opens_the_logs_dialog();
  void saved_runs_load_as_a_run_file();
  void an_existing_file_is_replaced_only_after_yes();
  void a_bad_log_writes_nothing_and_names_file_and_line();

 private:
  app::ImportResult import_megatron() const;
};

void GuiImportTest::initTestCase() { init_environment(); }

app::ImportResult GuiImportTest::import_megatron() const {
  app::ImportRequest req;
  req.logs = {kTests + "/io/data/megatron-llama3-70b-h100x64.log"};
  req.gpu = "H100";
  return app::import_logs(req, *catalog_);
}

void GuiImportTest::file_menu_action_opens_the_logs_dialog() {
  MainWindow w(catalog_);
  QAction* import = nullptr;
  for (QAction* menu : w.menuBar()->actions())
    if (menu->menu() && menu->text().remove(QLatin1Char('&')) == QStringLiteral("File"))
      for (QAction* a : menu->menu()->actions())
        if (a->text().remove(QLatin1Char('&')) == QStringLiteral("Import training logs...")) import = a;
  QVERIFY(import);
  QVERIFY(import->isEnabled());
  // The action asks for the logs first; cancelling that dialog imports nothing.
  QString title;
  int tries = 0;
  std::function<void()> close_dialog = [&] {
    if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
      title = dialog->windowTitle();
      dialog->reject();
    } else if (++tries < 200) {
      QTimer::singleShot(25, close_dialog);
    }
  };
  QTimer::singleShot(25, close_dialog);
  import->trigger();
  QCOMPARE(title, QStringLiteral("Import training logs"));
}

void GuiImportTest::saved_runs_load_as_a_run_file() {
  const auto result = import_megatron();
  QVERIFY2(result.ok(), result.diags.str().c_str());
  const QString path = tmp_.filePath(QStringLiteral("runs.yaml"));
  QString message;
  QVERIFY2(save_imported_runs(
               result, path, [](const QString&) { return false; }, &message),
           qPrintable(message));
  QVERIFY2(message.startsWith(QStringLiteral("wrote ")), qPrintable(message));
  QVERIFY(message.contains(QStringLiteral("17.48 s per iteration (median of 27)")));
  scenario::Diagnostics d;
  const auto runs = io::load_run_file(path.toStdString(), *catalog_, d);
  QVERIFY2(!d.has_errors(), d.str().c_str());
  QCOMPARE(runs.size(), std::size_t{1});
  QVERIFY2(runs[0].scenario.has_value(), runs[0].diags.str().c_str());
  QCOMPARE(runs[0].scenario->plan.tp, 8);
  // The steady iteration: the median of iterations 3-30 without 17 (tests/app/test_log_import.cpp).
  QCOMPARE(runs[0].scenario->measured.at("iteration_time_s"), 17.4765);
}

void GuiImportTest::an_existing_file_is_replaced_only_after_yes() {
  const auto result = import_megatron();
  const QString path = tmp_.filePath(QStringLiteral("mine.yaml"));
  {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("# mine\n");
  }
  QString asked, message;
  const auto no = [&](const QString& p) {
    asked = p;
    return false;
  };
  QVERIFY(!save_imported_runs(result, path, no, &message));
  QCOMPARE(asked, path);
  QCOMPARE(read_all(path), QByteArray("# mine\n"));
  QVERIFY(message.contains(QStringLiteral("was not replaced")));
  QVERIFY(save_imported_runs(
      result, path, [](const QString&) { return true; }, &message));
  QCOMPARE(read_all(path), QByteArray::fromStdString(result.yaml));
}

void GuiImportTest::a_bad_log_writes_nothing_and_names_file_and_line() {
  app::ImportRequest req;
  req.gpu = "H100";
  req.logs = {kTests + "/negative/log-world-size-mismatch.log"};
  const auto result = app::import_logs(req, *catalog_);
  const QString path = tmp_.filePath(QStringLiteral("bad.yaml"));
  QString message;
  QVERIFY(!save_imported_runs(
      result, path, [](const QString&) { return true; }, &message));
  QVERIFY(!QFile::exists(path));
  QVERIFY2(message.contains(QStringLiteral("log-world-size-mismatch.log:25: error: world_size:")), qPrintable(message));
}

QTEST_MAIN(GuiImportTest)
#include "test_gui_import.moc"

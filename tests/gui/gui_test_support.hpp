#pragma once
// What the GUI's QtTest programs share: the headers they test, the scenario they open, file
// helpers, and a base test object that keeps settings and screenshots in a scratch folder and
// loads the shipped catalog once per program.
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
#include <QtCharts/QLineSeries>
#include <memory>
#include <sstream>

#include "chart_export.hpp"
#include "claims_table_model.hpp"
#include "claims_view.hpp"
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

namespace flopcast::gui::test {

inline const QString kQuickstart = QStringLiteral(FLOPCAST_SCENARIOS_DIR "/quickstart.yaml");
inline constexpr int kTimeoutMs = 60'000;

/// The file's bytes ("" when it cannot be read).
std::string read_all(const QString& path);
/// Writes `text` to `path`, replacing it; false when it cannot.
bool write_all(const QString& path, const std::string& text);
/// Distinct colours in `image`, counted up to `stop_at`.
int distinct_colours(const QImage& image, int stop_at);
/// A pipeline stage's forward, backward and send times, in milliseconds.
cost::StageTimes stage(double f_ms, double b_ms, double p2p_ms);

/// The base of each GUI test object: its initTestCase calls init_environment().
class GuiTestBase : public QObject {
 protected:
  /// Recent files and window settings go to a scratch folder, never the user's; the shipped
  /// catalog is loaded.
  void init_environment();

  /// Where screenshots go: $FLOPCAST_GUI_TEST_OUTPUT when set (CI keeps them), else scratch.
  QString shot_path(const QString& name) const {
    const QString dir = qEnvironmentVariable("FLOPCAST_GUI_TEST_OUTPUT");
    return dir.isEmpty() ? tmp_.filePath(name) : QDir(dir).filePath(name);
  }

  QString write_sweep_csv() const;

  /// A scratch folder made on first use: a QTemporaryDir made with the test object would be made,
  /// and left behind, by `program -functions` (the build's test discovery), which QtTest ends
  /// with exit() before any destructor runs.
  class ScratchDir {
   public:
    bool isValid() const { return dir().isValid(); }
    QString path() const { return dir().path(); }
    QString filePath(const QString& name) const { return dir().filePath(name); }

   private:
    QTemporaryDir& dir() const {
      if (!dir_) dir_ = std::make_unique<QTemporaryDir>();
      return *dir_;
    }
    mutable std::unique_ptr<QTemporaryDir> dir_;
  };

  std::shared_ptr<const io::Catalog> catalog_;
  ScratchDir tmp_;
};

}  // namespace flopcast::gui::test

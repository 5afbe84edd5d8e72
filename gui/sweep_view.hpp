#pragma once
/// The Sweep tab: a sweep CSV in a sortable, filterable table and a scatter chart of one
/// numeric column against another (optionally coloured by a third column's values). The
/// chart shows the rows the filter lets through.
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QChartView;

namespace flopcast::gui {

class SweepTableModel;

class SweepView : public QWidget {
  Q_OBJECT
 public:
  /// Distinct values of the colour column drawn as separate series; more go to "other".
  static constexpr int kMaxGroups = 10;

  explicit SweepView(QWidget* parent = nullptr);

  /// Loads a sweep CSV; on error the view keeps what it showed and `error` says why.
  bool open(const QString& path, QString* error = nullptr);
  QString path() const { return path_; }

  SweepTableModel* model() const { return model_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  QChartView* chart_view() const { return chart_; }
  QTableView* table_view() const { return table_; }

  /// Chooses the chart's axes and colour column by header name ("" colour = none).
  bool set_axes(const QString& x, const QString& y, const QString& colour = {});
  void set_filter(const QString& text);
  /// Points the chart draws (filtered rows with numbers in both columns).
  int plotted_points() const { return plotted_; }

 signals:
  /// The user asked for a file (the window shows its dialog and calls open()).
  void openRequested();

 private:
  void rebuild_chart();
  void fill_combos();

  SweepTableModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* table_ = nullptr;
  QChartView* chart_ = nullptr;
  QLabel* info_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QComboBox* x_ = nullptr;
  QComboBox* y_ = nullptr;
  QComboBox* colour_ = nullptr;
  QString path_;
  int plotted_ = 0;
};

}  // namespace flopcast::gui

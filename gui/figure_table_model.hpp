#pragma once
/// A read-only table of figures (label, formatted values, detail) behind every result table:
/// Summary, Breakdown, Memory, the whole-run figures and the bills. Rows are built by the
/// functions of result_tables.hpp from a ComputeResult.
#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>

#include <vector>

namespace flopcast::gui {

/// One row of a figure table.
struct TableRow {
  QStringList cells;      ///< one formatted text per column
  double value = 0.0;     ///< the row's main figure in base units (s, bytes, major currency units)
  QColor swatch;          ///< colour key shown in the first column (invalid = none)
  bool emphasis = false;  ///< totals and verdicts, shown bold
  QString tooltip;        ///< longer explanation
};

/// A table model over TableRows. Replacing rows of the same count emits dataChanged (views
/// keep their scroll position while the user edits); otherwise the model is reset.
class FigureTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// The row's `value` (double) for column 0.
  static constexpr int ValueRole = Qt::UserRole + 1;

  /// `right_aligned`: the columns holding numbers.
  FigureTableModel(QStringList headers, QList<int> right_aligned, QObject* parent = nullptr);

  void set_rows(std::vector<TableRow> rows);
  const std::vector<TableRow>& rows() const { return rows_; }

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QStringList headers_;
  QList<int> right_aligned_;
  std::vector<TableRow> rows_;
};

}  // namespace flopcast::gui

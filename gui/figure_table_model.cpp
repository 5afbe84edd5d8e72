#include "figure_table_model.hpp"

#include <QFont>

namespace flopcast::gui {

FigureTableModel::FigureTableModel(QStringList headers, QList<int> right_aligned, QObject* parent)
    : QAbstractTableModel(parent), headers_(std::move(headers)), right_aligned_(std::move(right_aligned)) {}

void FigureTableModel::set_rows(std::vector<TableRow> rows) {
  if (rows.size() == rows_.size() && !rows_.empty()) {
    rows_ = std::move(rows);
    emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    return;
  }
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int FigureTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int FigureTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(headers_.size());
}

QVariant FigureTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const TableRow& row = rows_[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return index.column() < row.cells.size() ? row.cells[index.column()] : QString();
    case Qt::ToolTipRole: {
      // The whole cell (a narrow column elides it), then what the row explains.
      const QString cell = index.column() < row.cells.size() ? row.cells[index.column()] : QString();
      if (cell.isEmpty()) return row.tooltip.isEmpty() ? QVariant() : QVariant(row.tooltip);
      return row.tooltip.isEmpty() || row.tooltip == cell ? QVariant(cell)
                                                          : QVariant(cell + QStringLiteral("\n\n") + row.tooltip);
    }
    case Qt::DecorationRole:
      return index.column() == 0 && row.swatch.isValid() ? QVariant(row.swatch) : QVariant();
    case Qt::FontRole:
      if (row.emphasis) {
        QFont f;
        f.setBold(true);
        return f;
      }
      return {};
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(right_aligned_.contains(index.column())
                                     ? Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter)
                                     : Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter));
    case ValueRole:
      return index.column() == 0 ? QVariant(row.value) : QVariant();
    default:
      return {};
  }
}

QVariant FigureTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  if (section < 0 || section >= headers_.size()) return {};
  return headers_[section];
}

}  // namespace flopcast::gui

#include "sweep_table.hpp"

#include <QFile>

#include <cmath>
#include <limits>

namespace flopcast::gui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double number_of(const QString& cell) {
  bool ok = false;
  const double v = cell.trimmed().toDouble(&ok);
  return ok && std::isfinite(v) ? v : kNaN;
}

}  // namespace

std::optional<CsvTable> parse_csv(const QByteArray& bytes, const QString& name, QString* error) {
  const QString text = QString::fromUtf8(bytes);
  CsvTable t;
  std::vector<std::pair<int, QStringList>> records;  // (first line, cells)
  QStringList cells;
  QString cell;
  bool quoted = false, cell_started = false, at_record_start = true;
  int line = 1, record_line = 1;
  const auto end_record = [&] {
    cells << cell;
    records.emplace_back(record_line, cells);
    cells.clear();
    cell.clear();
    cell_started = false;
    at_record_start = true;
  };
  for (qsizetype i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (at_record_start) {
      record_line = line;
      at_record_start = false;
      if (c == QLatin1Char('#')) {  // a note line
        qsizetype j = text.indexOf(QLatin1Char('\n'), i);
        if (j < 0) j = text.size();
        t.notes << text.mid(i + 1, j - i - 1).trimmed();
        i = j;
        ++line;
        at_record_start = true;
        continue;
      }
      if (c == QLatin1Char('\n') || c == QLatin1Char('\r')) {  // blank line
        if (c == QLatin1Char('\n')) ++line;
        at_record_start = true;
        continue;
      }
    }
    if (quoted) {
      if (c == QLatin1Char('"')) {
        if (i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
          cell += QLatin1Char('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == QLatin1Char('\n')) ++line;
        cell += c;
      }
      continue;
    }
    if (c == QLatin1Char('"') && !cell_started) {
      quoted = true;
      cell_started = true;
    } else if (c == QLatin1Char(',')) {
      cells << cell;
      cell.clear();
      cell_started = false;
    } else if (c == QLatin1Char('\r')) {
      // CRLF: the \n ends the record.
    } else if (c == QLatin1Char('\n')) {
      ++line;
      end_record();
    } else {
      cell += c;
      cell_started = true;
    }
  }
  if (quoted) {
    if (error)
      *error = QStringLiteral("%1:%2: a quoted cell is not closed (a '\"' is missing)").arg(name).arg(record_line);
    return std::nullopt;
  }
  if (!at_record_start) end_record();
  if (records.empty()) {
    if (error)
      *error =
          QStringLiteral("%1: no header row (expected column names, e.g. the CSV `flopcast sweep` writes)").arg(name);
    return std::nullopt;
  }
  t.headers = records.front().second;
  for (qsizetype c = 0; c < t.headers.size(); ++c) {
    t.headers[c] = t.headers[c].trimmed();
    if (t.headers[c].isEmpty()) {
      if (error)
        *error = QStringLiteral("%1:%2: column %3 of the header has no name")
                     .arg(name)
                     .arg(records.front().first)
                     .arg(c + 1);
      return std::nullopt;
    }
  }
  for (std::size_t r = 1; r < records.size(); ++r) {
    const auto& [at, row] = records[r];
    if (row.size() != t.headers.size()) {
      if (error)
        *error = QStringLiteral("%1:%2: the row has %3 cells, the header %4 (a torn or hand-edited line?)")
                     .arg(name)
                     .arg(at)
                     .arg(row.size())
                     .arg(t.headers.size());
      return std::nullopt;
    }
    t.rows.push_back(row);
  }
  t.numeric.assign(static_cast<std::size_t>(t.headers.size()), false);
  for (qsizetype c = 0; c < t.headers.size(); ++c) {
    bool any = false, all = true;
    for (const auto& row : t.rows) {
      const QString& v = row[c];
      if (v.trimmed().isEmpty()) continue;
      any = true;
      if (std::isnan(number_of(v))) {
        all = false;
        break;
      }
    }
    t.numeric[static_cast<std::size_t>(c)] = any && all;
  }
  return t;
}

std::optional<CsvTable> read_csv(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = QStringLiteral("%1: cannot read: %2").arg(path, f.errorString());
    return std::nullopt;
  }
  return parse_csv(f.readAll(), path, error);
}

SweepTableModel::SweepTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void SweepTableModel::set_table(CsvTable table) {
  beginResetModel();
  table_ = std::move(table);
  numbers_.clear();
  numbers_.reserve(table_.rows.size());
  for (const auto& row : table_.rows) {
    std::vector<double> n(static_cast<std::size_t>(row.size()), kNaN);
    for (qsizetype c = 0; c < row.size(); ++c)
      if (is_numeric(static_cast<int>(c))) n[static_cast<std::size_t>(c)] = number_of(row[c]);
    numbers_.push_back(std::move(n));
  }
  endResetModel();
}

bool SweepTableModel::is_numeric(int column) const {
  return column >= 0 && column < static_cast<int>(table_.numeric.size()) &&
         table_.numeric[static_cast<std::size_t>(column)];
}

int SweepTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.rows.size());
}

int SweepTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.headers.size());
}

QVariant SweepTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const auto r = static_cast<std::size_t>(index.row());
  const int c = index.column();
  const QString& text = table_.rows[r][c];
  const double n = numbers_[r][static_cast<std::size_t>(c)];
  switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
      return text;
    case Qt::TextAlignmentRole:
      return is_numeric(c) ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                           : QVariant(int(Qt::AlignLeft | Qt::AlignVCenter));
    case SortRole:
      if (is_numeric(c)) return std::isnan(n) ? QVariant(-std::numeric_limits<double>::infinity()) : QVariant(n);
      return text;
    case NumberRole:
      return std::isnan(n) ? QVariant() : QVariant(n);
    default:
      return {};
  }
}

QVariant SweepTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  if (section < 0 || section >= table_.headers.size()) return {};
  return table_.headers[section];
}

}  // namespace flopcast::gui

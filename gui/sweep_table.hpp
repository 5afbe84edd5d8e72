#pragma once
/// Sweep tab data: a sweep result file (`flopcast sweep -o FILE.csv`: one header row of
/// input and output column names, then one row per point; lines starting with '#' carry the
/// sweep's identification and are kept as notes) read into a table model that sorts numbers
/// as numbers, behind a filter proxy and a chart of one column against another.
#include <QAbstractTableModel>
#include <QStringList>

#include <optional>
#include <vector>

namespace flopcast::gui {

/// A CSV file's cells. Every row has headers.size() cells.
struct CsvTable {
  QStringList headers;
  std::vector<QStringList> rows;
  std::vector<bool> numeric;  ///< per column: every non-empty cell is a number (and one is)
  QStringList notes;          ///< the '#' lines, without the '#'
};

/// Parses RFC 4180 CSV (quoted cells with "" escapes and line breaks, CRLF or LF). Errors
/// name `name`:line and what is wrong ("row has 5 cells, the header 7"); nullopt then.
std::optional<CsvTable> parse_csv(const QByteArray& text, const QString& name, QString* error);
/// Reads and parses a file (errors as above, or why it could not be read).
std::optional<CsvTable> read_csv(const QString& path, QString* error);

/// The rows of a CsvTable. Display: the cell as written; SortRole: a double for numeric
/// columns (so 10 sorts after 9), the text otherwise; NumberRole: the double or an invalid
/// QVariant for empty/non-numeric cells.
class SweepTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;
  static constexpr int NumberRole = Qt::UserRole + 2;

  explicit SweepTableModel(QObject* parent = nullptr);
  void set_table(CsvTable table);
  const CsvTable& table() const { return table_; }
  bool is_numeric(int column) const;

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  CsvTable table_;
  std::vector<std::vector<double>> numbers_;  ///< per row, per column (NaN: none)
};

}  // namespace flopcast::gui

#pragma once
/// The Claims tab's table: one row per judged claim (claim, kind, claimed, verdict, flopcast's
/// figure, how) over a claims report, read-only. The verdict's reason is the row's tool tip and
/// its kind colours the verdict cell.
#include <QAbstractTableModel>

#include <memory>

#include "flopcast/claims/claim_results.hpp"

namespace flopcast::gui {

class ClaimsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// The columns, in order.
  enum Column { Claim, Kind, Claimed, Verdict, Figure, How, ColumnCount };

  explicit ClaimsTableModel(QObject* parent = nullptr);

  /// Shows `report` (shared: the view keeps reading it); null clears the table.
  void set_report(std::shared_ptr<const claims::ClaimsReport> report);
  const claims::ClaimsReport* report() const { return report_.get(); }
  /// The claim of row `row`, or nullptr.
  const claims::ClaimResult* claim_at(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const claims::ClaimsReport> report_;
};

}  // namespace flopcast::gui

#include "claims_table_model.hpp"

#include <QBrush>
#include <QColor>
#include "qt_text.hpp"

namespace flopcast::gui {
namespace {

/// Light backgrounds by verdict, as the HTML report colours them.
QColor verdict_colour(claims::VerdictKind k) {
  switch (k) {
    case claims::VerdictKind::Holds:
      return QColor(0xE3, 0xF4, 0xE1);
    case claims::VerdictKind::Optimistic:
    case claims::VerdictKind::Pessimistic:
      return QColor(0xFD, 0xF2, 0xD0);
    case claims::VerdictKind::Contradicts:
      return QColor(0xF9, 0xDC, 0xC4);
    case claims::VerdictKind::Impossible:
      return QColor(0xF6, 0xC9, 0xC9);
    case claims::VerdictKind::CannotJudge:
      return QColor(0xE8, 0xE8, 0xE8);
  }
  return QColor(0xE8, 0xE8, 0xE8);
}

}  // namespace

ClaimsTableModel::ClaimsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ClaimsTableModel::set_report(std::shared_ptr<const claims::ClaimsReport> report) {
  beginResetModel();
  report_ = std::move(report);
  endResetModel();
}

const claims::ClaimResult* ClaimsTableModel::claim_at(int row) const {
  if (!report_ || row < 0 || row >= static_cast<int>(report_->results.size())) return nullptr;
  return &report_->results[static_cast<std::size_t>(row)];
}

int ClaimsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !report_ ? 0 : static_cast<int>(report_->results.size());
}

int ClaimsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ClaimsTableModel::data(const QModelIndex& index, int role) const {
  const claims::ClaimResult* c = index.isValid() ? claim_at(index.row()) : nullptr;
  if (c == nullptr || index.column() >= ColumnCount) return {};
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Claim:
        return q(c->id);
      case Kind:
        return QString::fromLatin1(to_string(c->kind));
      case Claimed:
        return c->claimed.empty() ? QStringLiteral("-") : q(c->claimed);
      case Verdict:
        return q(c->verdict.word());
      case Figure:
        return c->verdict.figure.known ? q(c->verdict.figure.text) : QStringLiteral("-");
      case How:
        return q(c->verdict.how);
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    const QString reason =
        c->verdict.reason.empty() ? q(c->verdict.word()) : q(c->verdict.word() + ": " + c->verdict.reason);
    return QStringLiteral("\u201C%1\u201D (%2)\n%3").arg(q(c->quote), q(c->source), reason);
  }
  if (role == Qt::BackgroundRole && index.column() == Verdict) return QBrush(verdict_colour(c->verdict.kind));
  return {};
}

QVariant ClaimsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case Claim:
      return tr("claim");
    case Kind:
      return tr("kind");
    case Claimed:
      return tr("claimed");
    case Verdict:
      return tr("verdict");
    case Figure:
      return tr("flopcast's figure");
    case How:
      return tr("how");
    default:
      return {};
  }
}

}  // namespace flopcast::gui

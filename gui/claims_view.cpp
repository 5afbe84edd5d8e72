#include "claims_view.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "claims_table_model.hpp"
#include "flopcast/app/claims_check.hpp"
#include "qt_text.hpp"

namespace flopcast::gui {
namespace {

/// "43 claims judged: 12 hold, ..." for the header line.
QString summary(const claims::ClaimsReport& r) {
  static const std::pair<claims::VerdictKind, const char*> kKinds[] = {
      {claims::VerdictKind::Holds, "hold"},
      {claims::VerdictKind::Optimistic, "optimistic"},
      {claims::VerdictKind::Pessimistic, "pessimistic"},
      {claims::VerdictKind::Contradicts, "contradict another claim"},
      {claims::VerdictKind::Impossible, "impossible"},
      {claims::VerdictKind::CannotJudge, "cannot be judged"}};
  QStringList parts;
  for (const auto& [k, label] : kKinds)
    if (const auto n = r.count(k)) parts << QStringLiteral("%1 %2").arg(n).arg(QString::fromLatin1(label));
  return QStringLiteral("%1 claims judged: %2").arg(r.results.size()).arg(parts.join(QStringLiteral(", ")));
}

}  // namespace

ClaimsOutcome check_claims(const std::string& path, const io::Catalog& catalog) {
  ClaimsOutcome out;
  scenario::Diagnostics diags;
  auto report = app::check_claims_file(path, catalog, catalog.data_dir, diags);
  out.diagnostics = diags.str();
  if (report) out.report = std::make_shared<const claims::ClaimsReport>(std::move(*report));
  return out;
}

ClaimsView::ClaimsView(std::shared_ptr<const io::Catalog> catalog, QWidget* parent)
    : QWidget(parent), catalog_(std::move(catalog)) {
  auto* v = new QVBoxLayout(this);
  auto* top = new QHBoxLayout();
  auto* open = new QPushButton(tr("Open claims file..."), this);
  open->setToolTip(tr("A claims file (`flopcast check`'s input, docs/claims.md)"));
  connect(open, &QPushButton::clicked, this, &ClaimsView::choose_file);
  info_ = new QLabel(tr("No claims file open: judge a vendor's claims with Open claims file..."), this);
  info_->setWordWrap(true);
  top->addWidget(open);
  top->addWidget(info_, 1);
  v->addLayout(top);

  model_ = new ClaimsTableModel(this);
  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  // The verdict wraps in the table's width; the figure and its computation are in the details
  // below (and the model's columns for copying), so no text is cut off at the table's edge.
  table_->setWordWrap(true);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->setVisible(false);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setColumnHidden(ClaimsTableModel::Figure, true);
  table_->setColumnHidden(ClaimsTableModel::How, true);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(ClaimsTableModel::Verdict, QHeaderView::Stretch);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { show_details(current.row()); });

  details_ = new QPlainTextEdit(this);
  details_->setReadOnly(true);
  details_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  details_->setPlaceholderText(tr("Select a claim to see how flopcast judges it"));

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(details_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  v->addWidget(split, 1);
  connect(&watcher_, &QFutureWatcher<ClaimsOutcome>::finished, this, &ClaimsView::on_finished);
}

ClaimsView::~ClaimsView() { watcher_.waitForFinished(); }

void ClaimsView::choose_file() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open claims file"), QString(),
                                                    tr("Claims files (*.yaml *.yml);;All files (*)"));
  if (!path.isEmpty()) open(path);
}

void ClaimsView::open(const QString& path) {
  if (watcher_.isRunning()) watcher_.waitForFinished();
  pending_ = path;
  info_->setText(tr("Judging %1 ...").arg(QFileInfo(path).fileName()));
  const std::string file = path.toStdString();
  const std::shared_ptr<const io::Catalog> cat = catalog_;
  watcher_.setFuture(QtConcurrent::run([file, cat] { return check_claims(file, *cat); }));
}

void ClaimsView::on_finished() {
  const ClaimsOutcome out = watcher_.result();
  if (!out.report) {
    error_ = q(out.diagnostics).trimmed();
    info_->setText(tr("%1 cannot be read:\n%2").arg(QFileInfo(pending_).fileName(), error_));
    model_->set_report(nullptr);
    details_->clear();
    emit finished(false);
    return;
  }
  show_report(out.report, q(out.diagnostics));
  emit finished(true);
}

void ClaimsView::show_report(std::shared_ptr<const claims::ClaimsReport> report, const QString& diagnostics) {
  error_ = diagnostics.trimmed();
  QString text = (report->title.empty() ? q(report->file) : q(report->title)) + QStringLiteral(": ") + summary(*report);
  if (!error_.isEmpty()) text += tr("\nNot judged (bad input):\n%1").arg(error_);
  info_->setText(text);
  model_->set_report(std::move(report));
  if (model_->rowCount() > 0) select_row(0);
}

void ClaimsView::select_row(int row) {
  if (row < 0 || row >= model_->rowCount()) return;
  table_->selectionModel()->setCurrentIndex(model_->index(row, 0),
                                            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  show_details(row);
}

void ClaimsView::show_details(int row) {
  const claims::ClaimResult* c = model_->claim_at(row);
  if (c == nullptr) {
    details_->clear();
    return;
  }
  const claims::Verdict& v = c->verdict;
  QStringList lines;
  lines << QStringLiteral("%1 (%2, %3, %4)")
               .arg(q(c->id), QString::fromLatin1(to_string(c->kind)), q(c->source), q(c->where.str()));
  lines << QStringLiteral("quote     \u201C%1\u201D").arg(q(c->quote));
  if (!c->claimed.empty()) lines << QStringLiteral("claimed   %1").arg(q(c->claimed));
  if (!c->reading.empty()) lines << QStringLiteral("reading   %1").arg(q(c->reading));
  lines << QStringLiteral("verdict   %1").arg(q(v.reason.empty() ? v.word() : v.word() + ": " + v.reason));
  lines << QStringLiteral("figure    %1").arg(v.figure.known ? q(v.figure.text) : QStringLiteral("-"));
  lines << QStringLiteral("how       %1").arg(q(v.how));
  for (const auto& n : v.notes) lines << QStringLiteral("note      %1").arg(q(n));
  details_->setPlainText(lines.join(QLatin1Char('\n')));
}

QString ClaimsView::details_text() const { return details_->toPlainText(); }

}  // namespace flopcast::gui

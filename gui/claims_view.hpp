#pragma once
/// The Claims tab: a claims file (`flopcast check`'s input) judged in a worker thread exactly as
/// the command judges it, shown as a table of claims and verdicts (ClaimsTableModel); the row
/// selected opens its computation below: the quote, the claimed figure, the verdict and its
/// reason, flopcast's figure, how it is computed, the reading of the claim and the notes.
#include <QFutureWatcher>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>

#include "flopcast/claims/claim_results.hpp"
#include "flopcast/io/catalog.hpp"

class QLabel;
class QPlainTextEdit;
class QTableView;

namespace flopcast::gui {

class ClaimsTableModel;

/// A judged claims file, or why there is none.
struct ClaimsOutcome {
  std::shared_ptr<const claims::ClaimsReport> report;  ///< null when the file cannot be read
  std::string diagnostics;                             ///< every problem, one per line (also for bad claims)
};

/// Loads and judges the claims file at `path` as `flopcast check` does. Thread-safe for a
/// shared const catalog.
ClaimsOutcome check_claims(const std::string& path, const io::Catalog& catalog);

class ClaimsView : public QWidget {
  Q_OBJECT
 public:
  explicit ClaimsView(std::shared_ptr<const io::Catalog> catalog, QWidget* parent = nullptr);
  ~ClaimsView() override;

  /// Starts judging a claims file in the background; finished() tells when it is done.
  void open(const QString& path);
  bool running() const { return watcher_.isRunning(); }
  /// Shows a judged report (also used by tests).
  void show_report(std::shared_ptr<const claims::ClaimsReport> report, const QString& diagnostics);
  /// Selects row `row` and shows its computation.
  void select_row(int row);

  ClaimsTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  /// The computation of the selected claim, as shown.
  QString details_text() const;
  /// The problems of the last file (empty after a clean one).
  QString error_text() const { return error_; }

 signals:
  void finished(bool ok);

 private:
  void on_finished();
  void show_details(int row);
  void choose_file();

  std::shared_ptr<const io::Catalog> catalog_;
  QFutureWatcher<ClaimsOutcome> watcher_;
  QString pending_;
  QString error_;
  ClaimsTableModel* model_ = nullptr;
  QLabel* info_ = nullptr;
  QTableView* table_ = nullptr;
  QPlainTextEdit* details_ = nullptr;
};

}  // namespace flopcast::gui

#pragma once
/// File > Import training logs...: training logs (Megatron-LM, torchtitan) made into a
/// measured-run file by the same app function as `flopcast import` (app/log_import.hpp), saved
/// where the user says, never over a file without asking. save_imported_runs is the
/// non-interactive part (tests); import_training_logs_interactively adds the dialogs.
#include <QString>

#include <functional>

#include "flopcast/app/log_import.hpp"

class QWidget;

namespace flopcast::gui {

/// Writes `result`'s runs file to `path`. When `path` exists, `confirm_overwrite(path)` is asked
/// first and a "no" leaves it as it is. A result with a problem writes nothing. Returns whether
/// the file was written; `message` (when given) says what was written or why nothing was: the
/// problem's words, every diagnostic as file:line: error: ..., or the write error.
bool save_imported_runs(const app::ImportResult& result, const QString& path,
                        const std::function<bool(const QString&)>& confirm_overwrite, QString* message = nullptr);

/// The menu action: asks for the logs, for a GPU type when a log names none the catalog knows,
/// and for the runs file (asking before replacing one); then says what was imported.
void import_training_logs_interactively(QWidget* parent, const io::Catalog& catalog);

}  // namespace flopcast::gui

#include "log_import_dialog.hpp"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QSettings>
#include <QStringList>

#include "flopcast/io/atomic_file.hpp"
#include "qt_text.hpp"

namespace flopcast::gui {
namespace {

/// Where the import dialogs start (the folder of the last logs imported).
const QString kImportDirKey = QStringLiteral("importDirectory");

}  // namespace

bool save_imported_runs(const app::ImportResult& result, const QString& path,
                        const std::function<bool(const QString&)>& confirm_overwrite, QString* message) {
  auto say = [&](const QString& m) {
    if (message) *message = m;
  };
  if (!result.ok()) {
    say(result.message.empty() ? q(result.diags.str()).trimmed() : q(result.message));
    return false;
  }
  if (QFileInfo::exists(path) && !confirm_overwrite(path)) {
    say(QObject::tr("%1 was not replaced").arg(QDir::toNativeSeparators(path)));
    return false;
  }
  std::string error;
  if (!io::write_file_atomically(path.toStdString(), result.yaml, true, error)) {
    say(q(error));
    return false;
  }
  QStringList lines;
  lines << QObject::tr("wrote %1: %n run(s)", nullptr, static_cast<int>(result.runs.size()))
               .arg(QDir::toNativeSeparators(path));
  for (const auto& run : result.runs) lines << q(app::import_summary(run));
  lines << QObject::tr("next: flopcast validate %1").arg(QFileInfo(path).fileName());
  say(lines.join(QLatin1Char('\n')));
  return true;
}

void import_training_logs_interactively(QWidget* parent, const io::Catalog& catalog) {
  QSettings settings;
  const QString dir = settings.value(kImportDirKey, QDir::homePath()).toString();
  const QStringList logs =
      QFileDialog::getOpenFileNames(parent, QObject::tr("Import training logs"), dir,
                                    QObject::tr("Training logs (*.log *.txt *.out);;All files (*)"));
  if (logs.isEmpty()) return;
  settings.setValue(kImportDirKey, QFileInfo(logs.front()).absolutePath());
  app::ImportRequest request;
  for (const auto& l : logs) request.logs.push_back(l.toStdString());
  app::ImportResult result = app::import_logs(request, catalog);
  if (result.problem == app::ImportProblem::NoGpu) {
    QStringList gpus;
    for (const auto& g : catalog.gpu_names()) gpus << q(g);
    bool ok = false;
    const QString gpu = QInputDialog::getItem(
        parent, QObject::tr("GPU type"), q(result.message) + QLatin1Char('\n') + QObject::tr("GPU type of the runs:"),
        gpus, 0, false, &ok);
    if (!ok) return;
    request.gpu = gpu.toStdString();
    result = app::import_logs(request, catalog);
  }
  if (!result.ok()) {
    QString why;
    save_imported_runs(result, {}, {}, &why);
    QMessageBox box(QMessageBox::Warning, QObject::tr("Cannot import"),
                    QObject::tr("Nothing was imported: fix the logs or leave them out."), QMessageBox::Ok, parent);
    box.setInformativeText(why.section(QLatin1Char('\n'), 0, 4));
    box.setDetailedText(why);
    box.exec();
    return;
  }
  const QString path =
      QFileDialog::getSaveFileName(parent, QObject::tr("Save measured runs"),
                                   QDir(QFileInfo(logs.front()).absolutePath()).filePath(QStringLiteral("runs.yaml")),
                                   QObject::tr("Run files (*.yaml *.yml)"), nullptr, QFileDialog::DontConfirmOverwrite);
  if (path.isEmpty()) return;
  bool declined = false;
  const auto confirm = [parent, &declined](const QString& target) {
    declined = QMessageBox::question(parent, QObject::tr("Replace file?"),
                                     QObject::tr("%1 already exists. Replace it?").arg(QFileInfo(target).fileName()),
                                     QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes;
    return !declined;
  };
  QString message;
  if (save_imported_runs(result, path, confirm, &message))
    QMessageBox::information(parent, QObject::tr("Training logs imported"), message);
  else if (!declined)
    QMessageBox::warning(parent, QObject::tr("Runs not saved"), message);
}

}  // namespace flopcast::gui

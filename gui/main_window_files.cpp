// MainWindow's document: new, open and save (only the edited values patched into the file's text,
// never replaced without asking), the recent files, the sweep and fleet files the tabs open, and
// the window's settings. The window's tabs and results are in main_window.cpp.
#include <QAction>
#include <QCloseEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QUndoStack>

#include <algorithm>

#include "fleet_view.hpp"
#include "flopcast/app/scenario_form.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/scenario_draft.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/scenario_writer.hpp"
#include "flopcast/io/yaml_patch.hpp"
#include "main_window.hpp"
#include "qt_text.hpp"
#include "scenario_computer.hpp"
#include "scenario_editor.hpp"
#include "sweep_view.hpp"

namespace flopcast::gui {

void MainWindow::update_title() {
  const QString name = form_.name.empty() ? document_label() : q(form_.name);
  setWindowTitle(QStringLiteral("%1[*] - %2 - flopcast").arg(name, document_label()));
  setWindowModified(!undo_->isClean());
}

void MainWindow::new_document() {
  opened_with_errors_ = false;
  path_.clear();
  base_yaml_.clear();
  form_ = app::default_form(*catalog_);
  saved_form_ = form_;
  file_time_ = {};
  editor_->set_form_state(form_);
  undo_->clear();
  undo_->setClean();
  update_title();
  recompute(true);
}

bool MainWindow::open_file(const QString& path, QString* error, bool allow_errors) {
  scenario::Diagnostics diags;
  const std::string file = path.toStdString();
  const auto text = io::read_text_file(file, diags);
  if (text && io::looks_like_fleet_file(*text)) {
    if (error)
      *error = tr("%1: this is a fleet file: open it with --fleet (File > Open Fleet...), not as a scenario").arg(path);
    return false;
  }
  std::optional<scenario::Scenario> s;
  if (text) s = io::parse_scenario(*text, file, *catalog_, diags);
  if (!s && (!text || !allow_errors)) {
    if (error) *error = q(diags.str()).trimmed();
    return false;
  }
  if (!s && error) *error = q(diags.str()).trimmed();
  opened_with_errors_ = !s;
  path_ = QFileInfo(path).absoluteFilePath();
  base_yaml_ = *text;
  form_ = s ? io::form_from_scenario(*s, *text) : io::draft_form(*text, *catalog_, app::default_form(*catalog_));
  saved_form_ = form_;
  file_time_ = QFileInfo(path_).lastModified();
  editor_->set_form_state(form_);
  undo_->clear();
  undo_->setClean();
  update_title();
  add_recent(path_);
  recompute(true);
  return true;
}

bool MainWindow::save_to(const QString& path, QString* error) {
  // The edits are patched into the text the document was read from: its comments, key order
  // and layout stay (an unedited document is written as it was read).
  std::string text;
  if (form_ == saved_form_ && !base_yaml_.empty()) {
    text = base_yaml_;
  } else {
    std::string why;
    const auto patched = io::patch_scenario_text(base_yaml_, saved_form_, form_, *catalog_, why);
    text = patched ? *patched : current_yaml();
    if (!patched)
      status_text_->setText(tr("saved as composed text (comments not kept: %1); the backup keeps them").arg(q(why)));
  }
  const QString target = QFileInfo(path).absoluteFilePath();
  if (QFileInfo::exists(target)) {
    const QString backup = target + QStringLiteral(".bak");
    QFile::remove(backup);
    if (!QFile::copy(target, backup)) {
      if (error) *error = tr("cannot keep a backup of %1 as %2").arg(target, backup);
      return false;
    }
  }
  std::string why;
  if (!io::write_file_atomically(target.toStdString(), text, true, why)) {
    if (error) *error = q(why);
    return false;
  }
  path_ = target;
  base_yaml_ = text;
  saved_form_ = form_;
  file_time_ = QFileInfo(path_).lastModified();
  undo_->setClean();
  update_title();
  add_recent(path_);
  return true;
}

void MainWindow::action_new() {
  if (maybe_save()) new_document();
}

void MainWindow::action_open() {
  if (!maybe_save()) return;
  QSettings settings;
  const QString dir = settings.value(kLastDirKey).toString();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open scenario"), dir, tr("Scenarios (*.yaml *.yml);;All files (*)"));
  if (!path.isEmpty()) open_interactively(path);
}

void MainWindow::open_interactively(const QString& path) {
  QString error;
  if (open_file(path, &error)) {
    QSettings().setValue(kLastDirKey, QFileInfo(path).absolutePath());
    return;
  }
  QMessageBox box(QMessageBox::Warning, tr("Cannot open scenario"),
                  tr("%1 could not be loaded. The current document is unchanged.").arg(QFileInfo(path).fileName()),
                  QMessageBox::Ok, this);
  box.setInformativeText(error.section(QLatin1Char('\n'), 0, 4));
  box.setDetailedText(error);
  box.exec();
}

bool MainWindow::action_save() {
  if (path_.isEmpty()) return action_save_as();
  if (QFileInfo::exists(path_) && file_time_.isValid() && QFileInfo(path_).lastModified() != file_time_) {
    const auto answer = QMessageBox::warning(
        this, tr("File changed on disk"),
        tr("%1 was changed by another program since it was opened. Overwrite it? The other version is kept as %2.bak.")
            .arg(QFileInfo(path_).fileName(), QFileInfo(path_).fileName()),
        QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Save) return false;
  }
  QString error;
  if (save_to(path_, &error)) return true;
  QMessageBox::critical(this, tr("Cannot save"), error);
  return false;
}

bool MainWindow::action_save_as() {
  QSettings settings;
  const QString start = path_.isEmpty() ? settings.value(kLastDirKey).toString() : path_;
  QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), start, tr("Scenarios (*.yaml *.yml)"), nullptr,
                                              QFileDialog::DontConfirmOverwrite);
  if (path.isEmpty()) return false;
  if (!path.endsWith(QLatin1String(".yaml")) && !path.endsWith(QLatin1String(".yml"))) path += QStringLiteral(".yaml");
  if (QFileInfo::exists(path)) {
    const auto answer = QMessageBox::question(
        this, tr("Replace file?"),
        tr("%1 already exists. Replace it? The current file is kept as %1.bak.").arg(QFileInfo(path).fileName()),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes) return false;
  }
  QString error;
  if (save_to(path, &error)) {
    settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    return true;
  }
  QMessageBox::critical(this, tr("Cannot save"), error);
  return false;
}

bool MainWindow::maybe_save() {
  if (!is_modified()) return true;
  const auto answer =
      QMessageBox::warning(this, tr("Unsaved changes"), tr("%1 has unsaved changes. Save them?").arg(document_label()),
                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return action_save();
  return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybe_save()) {
    event->ignore();
    return;
  }
  save_settings();
  event->accept();
}

void MainWindow::add_recent(const QString& path) {
  QSettings settings;
  QStringList files = settings.value(kRecentKey).toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  settings.setValue(kRecentKey, files);
  rebuild_recent_menu();
}

bool MainWindow::open_sweep(const QString& path, QString* error) { return sweep_->open(path, error); }

void MainWindow::open_fleet(const QString& path) { fleet_->open(path); }

void MainWindow::action_open_fleet() {
  QSettings settings;
  const QString dir = settings.value(QStringLiteral("fleetDirectory"), settings.value(kLastDirKey)).toString();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open fleet"), dir, tr("Fleet files (*.yaml *.yml);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(QStringLiteral("fleetDirectory"), QFileInfo(path).absolutePath());
  open_fleet(path);
  select_tab(QStringLiteral("fleet"));
}

void MainWindow::action_open_sweep() {
  QSettings settings;
  const QString dir = settings.value(QStringLiteral("sweepDirectory"), settings.value(kLastDirKey)).toString();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open sweep CSV"), dir, tr("Sweep results (*.csv);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!open_sweep(path, &error)) {
    QMessageBox::warning(this, tr("Cannot open sweep"), error);
    return;
  }
  settings.setValue(QStringLiteral("sweepDirectory"), QFileInfo(path).absolutePath());
  select_tab(QStringLiteral("sweep"));
}

QStringList MainWindow::recent_files() const { return QSettings().value(kRecentKey).toStringList(); }

QStringList MainWindow::recent_menu_titles() const {
  QStringList titles;
  for (const QAction* a : recent_menu_->actions()) titles << a->text();
  return titles;
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList files = QSettings().value(kRecentKey).toStringList();
  for (const QString& f : files) {
    QAction* a = recent_menu_->addAction(QFileInfo(f).fileName(), this, [this, f] {
      if (maybe_save()) open_interactively(f);
    });
    a->setToolTip(f);
    a->setEnabled(QFileInfo::exists(f));
  }
  recent_menu_->setEnabled(!files.isEmpty());
}

void MainWindow::restore_settings() {
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
  splitter_placed_ = splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
  tabs_->setCurrentIndex(settings.value(QStringLiteral("tab"), 0).toInt());
}

void MainWindow::save_settings() const {
  QSettings settings;
  settings.setValue(QStringLiteral("geometry"), saveGeometry());
  settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
  settings.setValue(QStringLiteral("tab"), tabs_->currentIndex());
}

}  // namespace flopcast::gui

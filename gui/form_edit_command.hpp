#pragma once
/// One undoable edit of the scenario form: the form before and after. Quick successive edits
/// of the same field (typing "128" into a spin box) merge into one step.
#include <QElapsedTimer>
#include <QString>
#include <QUndoCommand>

#include <functional>

#include "flopcast/io/scenario_form.hpp"

namespace flopcast::gui {

class FormEditCommand : public QUndoCommand {
 public:
  /// Edits closer together than this, of the same field, are one undo step.
  static constexpr qint64 kMergeWindowMs = 1000;

  /// `apply` shows a form state (and recomputes). The first redo() is skipped: the form
  /// already shows `after` when the command is pushed.
  FormEditCommand(io::ScenarioForm before, io::ScenarioForm after, QString key,
                  std::function<void(const io::ScenarioForm&)> apply);

  void undo() override;
  void redo() override;
  int id() const override { return 1; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  io::ScenarioForm before_, after_;
  QString key_;
  std::function<void(const io::ScenarioForm&)> apply_;
  QElapsedTimer since_;
  bool first_ = true;
};

}  // namespace flopcast::gui

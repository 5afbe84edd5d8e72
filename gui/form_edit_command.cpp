#include "form_edit_command.hpp"

namespace flopcast::gui {

FormEditCommand::FormEditCommand(io::ScenarioForm before, io::ScenarioForm after, QString key,
                                 std::function<void(const io::ScenarioForm&)> apply)
    : before_(std::move(before)), after_(std::move(after)), key_(std::move(key)), apply_(std::move(apply)) {
  setText(QObject::tr("edit %1").arg(key_.isEmpty() ? QObject::tr("scenario") : key_));
  since_.start();
}

void FormEditCommand::undo() { apply_(before_); }

void FormEditCommand::redo() {
  if (first_) {
    first_ = false;
    return;
  }
  apply_(after_);
}

bool FormEditCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = static_cast<const FormEditCommand*>(other);
  if (o->key_ != key_ || since_.elapsed() > kMergeWindowMs) return false;
  after_ = o->after_;
  since_.restart();
  setObsolete(after_ == before_);
  return true;
}

}  // namespace flopcast::gui

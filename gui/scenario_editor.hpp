#pragma once
/// The scenario form: model (preset or custom shape), cluster, parallel plan, precision,
/// training length and price catalog. It holds no logic about validity: the main window
/// turns its io::ScenarioForm into YAML, runs the CLI's loader, and hands the diagnostics back to
/// show_diagnostics(), which puts each message under the field its key names.
#include <QHash>
#include <QWidget>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_form.hpp"
#include "flopcast/scenario/diagnostic.hpp"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QVBoxLayout;

namespace flopcast::gui {

class ScenarioEditor : public QWidget {
  Q_OBJECT
 public:
  ScenarioEditor(const io::Catalog& catalog, QWidget* parent = nullptr);

  /// The values the form shows now.
  io::ScenarioForm form_state() const;
  /// Shows `f` (emits nothing).
  void set_form_state(const io::ScenarioForm& f);

  /// Puts each diagnostic under the field of its key, or of the key's nearest parent (the
  /// group: "parallel" for the tp*pp*dp*cp check), replacing the previous ones. Returns how
  /// many diagnostics were placed.
  int show_diagnostics(const scenario::Diagnostics& diags);

  /// The scenario key whose field shows diagnostics of `key` ("parallel.tp" -> itself,
  /// "model.moe.top_k" -> "model", unknown -> "").
  QString field_key_for(const QString& key) const;
  /// The widget editing `key` ("parallel.tp"); nullptr when the form has none.
  QWidget* field(const QString& key) const;
  /// The inline message under `key`'s field (hidden when it has none); nullptr when unknown.
  QLabel* message_label(const QString& key) const;

 signals:
  /// The user changed the field of scenario key `key` (Qt signal naming, as the views use).
  void edited(const QString& key);

 private:
  struct Field {
    QWidget* widget = nullptr;
    QLabel* caption = nullptr;
    QLabel* message = nullptr;
  };
  QSpinBox* add_spin(QFormLayout* form, const QString& key, const QString& caption, int min, int max,
                     const QString& tip);
  QComboBox* add_combo(QFormLayout* form, const QString& key, const QString& caption, const QString& tip);
  /// The parallel plan group's fields, degrees to FSDP.
  void build_plan_fields(QFormLayout* plan);
  void add_field(QFormLayout* form, const QString& key, const QString& caption, QWidget* w, const QString& tip);
  QLabel* add_group_message(QVBoxLayout* box, const QString& key);
  void changed(const QString& key);
  void fill_from_preset(const QString& preset);
  void update_fabric_default_text();

  const io::Catalog& catalog_;
  QHash<QString, Field> fields_;
  bool updating_ = false;
  QString shown_preset_;  ///< the preset the combo showed before its last change
  QString custom_base_;   ///< io::ScenarioForm::model_base while "Custom shape" is selected

  QLineEdit* name_ = nullptr;
  QComboBox* preset_ = nullptr;
  QSpinBox *layers_ = nullptr, *hidden_ = nullptr, *heads_ = nullptr, *kv_heads_ = nullptr, *ffn_ = nullptr,
           *vocab_ = nullptr, *seq_len_ = nullptr;
  QComboBox* gpu_ = nullptr;
  QSpinBox *gpus_ = nullptr, *gpus_per_node_ = nullptr;
  QComboBox* fabric_ = nullptr;
  QSpinBox *tp_ = nullptr, *pp_ = nullptr, *dp_ = nullptr, *cp_ = nullptr, *ep_ = nullptr, *vpp_ = nullptr;
  QCheckBox* sp_ = nullptr;
  QComboBox* zero_ = nullptr;
  QSpinBox *micro_ = nullptr, *global_ = nullptr;
  QComboBox *recompute_ = nullptr, *schedule_ = nullptr, *precision_ = nullptr;
  QSpinBox *first_stage_ = nullptr, *last_stage_ = nullptr;
  QCheckBox *account_embedding_ = nullptr, *account_loss_ = nullptr;
  QComboBox *dispatcher_ = nullptr, *dispatch_dtype_ = nullptr, *fsdp_ = nullptr;
  QLineEdit* tokens_ = nullptr;
  QComboBox* pricing_ = nullptr;
};

}  // namespace flopcast::gui

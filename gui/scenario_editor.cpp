#include "scenario_editor.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

#include "flopcast/app/compute_result.hpp"

#include "flopcast/io/price_catalog_io.hpp"

namespace flopcast::gui {
namespace {

constexpr int kSpinMax = std::numeric_limits<int>::max();
const QString kErrorColour = QStringLiteral("#b00020");
const QString kWarningColour = QStringLiteral("#8a5a00");

QString q(const std::string& s) { return QString::fromStdString(s); }
std::string s(const QString& v) { return v.toStdString(); }

int to_int(std::int64_t v) {
  return static_cast<int>(std::clamp<std::int64_t>(v, std::numeric_limits<int>::min(), kSpinMax));
}

/// Selects the item whose data is `value`, adding it (shown as itself) when missing.
void select_data(QComboBox* box, const QString& value) {
  int i = box->findData(value);
  if (i < 0) {
    box->addItem(value, value);
    i = box->count() - 1;
  }
  box->setCurrentIndex(i);
}

QString data_of(const QComboBox* box) { return box->currentData().toString(); }

}  // namespace

ScenarioEditor::ScenarioEditor(const io::Catalog& catalog, QWidget* parent) : QWidget(parent), catalog_(catalog) {
  auto* top = new QVBoxLayout(this);
  top->setContentsMargins(6, 6, 6, 6);
  add_group_message(top, QString());

  auto* head = new QFormLayout();
  top->addLayout(head);
  name_ = new QLineEdit(this);
  name_->setPlaceholderText(tr("untitled scenario"));
  add_field(head, QStringLiteral("name"), tr("Name"), name_, tr("name: shown in reports"));
  connect(name_, &QLineEdit::textEdited, this, [this] { changed(QStringLiteral("name")); });

  auto group = [&](const QString& title, const QString& key) {
    auto* box = new QGroupBox(title, this);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(8, 6, 8, 6);
    add_group_message(v, key);
    auto* form = new QFormLayout();
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    v->addLayout(form);
    top->addWidget(box);
    return form;
  };

  // Model.
  QFormLayout* model = group(tr("Model"), QStringLiteral("model"));
  preset_ = add_combo(model, QStringLiteral("model.preset"), tr("Preset"),
                      tr("model: a preset of data/models.yaml, or a custom shape"));
  for (const auto& m : catalog_.models)
    preset_->addItem(QStringLiteral("%1 (%2)").arg(q(m.display), q(m.name)), q(m.name));
  preset_->addItem(tr("Custom shape"), QString());
  layers_ = add_spin(model, QStringLiteral("model.layers"), tr("Layers"), 0, kSpinMax,
                     tr("model.layers: transformer layers"));
  hidden_ = add_spin(model, QStringLiteral("model.hidden"), tr("Hidden size"), 0, kSpinMax,
                     tr("model.hidden: model width h"));
  heads_ = add_spin(model, QStringLiteral("model.heads"), tr("Attention heads"), 0, kSpinMax, tr("model.heads"));
  kv_heads_ = add_spin(model, QStringLiteral("model.kv_heads"), tr("KV heads"), 0, kSpinMax,
                       tr("model.kv_heads: key/value heads (GQA when fewer than heads)"));
  ffn_ = add_spin(model, QStringLiteral("model.ffn"), tr("FFN size"), 0, kSpinMax,
                  tr("model.ffn: intermediate size of the MLP"));
  vocab_ = add_spin(model, QStringLiteral("model.vocab"), tr("Vocabulary"), 0, kSpinMax, tr("model.vocab"));
  seq_len_ = add_spin(model, QStringLiteral("model.seq_len"), tr("Sequence length"), 0, kSpinMax,
                      tr("model.seq_len: tokens per sequence"));
  connect(preset_, &QComboBox::currentIndexChanged, this, [this] {
    if (updating_) return;
    const QString now = data_of(preset_);
    // A custom shape made from a preset keeps that preset's architecture.
    if (now.isEmpty())
      custom_base_ = shown_preset_;
    else
      fill_from_preset(now);
    shown_preset_ = now;
    changed(QStringLiteral("model.preset"));
  });

  // Cluster.
  QFormLayout* cluster = group(tr("Cluster"), QStringLiteral("cluster"));
  gpu_ = add_combo(cluster, QStringLiteral("cluster.gpu"), tr("GPU"), tr("cluster.gpu: a GPU of data/gpus.yaml"));
  for (const auto& g : catalog_.gpus) gpu_->addItem(q(g.name), q(g.name));
  gpus_ =
      add_spin(cluster, QStringLiteral("cluster.gpus"), tr("GPUs"), 0, kSpinMax, tr("cluster.gpus: GPUs of the job"));
  gpus_per_node_ = add_spin(cluster, QStringLiteral("cluster.gpus_per_node"), tr("GPUs per node"), 0, kSpinMax,
                            tr("cluster.gpus_per_node"));
  fabric_ = add_combo(cluster, QStringLiteral("cluster.fabric"), tr("Node / fabric"),
                      tr("cluster.fabric: a node and network type of data/fabrics.yaml"));
  fabric_->addItem(QString(), QString());  // text set by update_fabric_default_text()
  for (const auto& f : catalog_.fabrics) fabric_->addItem(q(f.name), q(f.name));
  update_fabric_default_text();
  connect(gpu_, &QComboBox::currentIndexChanged, this, [this] {
    update_fabric_default_text();
    changed(QStringLiteral("cluster.gpu"));
  });
  connect(fabric_, &QComboBox::currentIndexChanged, this, [this] {
    if (updating_) return;
    // A node type fixes its GPU count: follow it (the user may still override it).
    if (const hardware::FabricSpec* f = catalog_.find_fabric(s(data_of(fabric_))); f && f->gpus_per_node > 0) {
      updating_ = true;
      gpus_per_node_->setValue(f->gpus_per_node);
      updating_ = false;
    }
    changed(QStringLiteral("cluster.fabric"));
  });

  // Parallel plan.
  QFormLayout* plan = group(tr("Parallel plan"), QStringLiteral("parallel"));
  build_plan_fields(plan);

  // Run.
  QFormLayout* run = group(tr("Training run"), QStringLiteral("training"));
  precision_ = add_combo(run, QStringLiteral("precision"), tr("Precision"), tr("precision: tensor-core math format"));
  for (const char* p : {"bf16", "fp16", "fp8", "fp32"})
    precision_->addItem(QString::fromLatin1(p), QString::fromLatin1(p));
  tokens_ = new QLineEdit(this);
  tokens_->setPlaceholderText(tr("e.g. 1T, 300B, 1.4e12"));
  add_field(run, QStringLiteral("training.tokens"), tr("Training tokens"), tokens_,
            tr("training.tokens: tokens to train on"));
  connect(tokens_, &QLineEdit::textEdited, this, [this] { changed(QStringLiteral("training.tokens")); });
  pricing_ = add_combo(run, QStringLiteral("pricing.catalog"), tr("Price catalog"),
                       tr("pricing.catalog: the price list bills are made from (data/prices)"));
  pricing_->addItem(tr("none"), QString());
  for (const auto& name : io::price_catalog_names()) pricing_->addItem(q(name), q(name));
  top->addStretch(1);
}

void ScenarioEditor::build_plan_fields(QFormLayout* plan) {
  tp_ = add_spin(plan, QStringLiteral("parallel.tp"), tr("Tensor parallel (TP)"), 0, kSpinMax,
                 tr("parallel.tp: splits each layer's heads and MLP"));
  pp_ = add_spin(plan, QStringLiteral("parallel.pp"), tr("Pipeline parallel (PP)"), 0, kSpinMax,
                 tr("parallel.pp: pipeline stages"));
  dp_ = add_spin(plan, QStringLiteral("parallel.dp"), tr("Data parallel (DP)"), 0, kSpinMax,
                 tr("parallel.dp: model replicas; 'auto' = gpus / (tp*pp*cp)"));
  dp_->setSpecialValueText(tr("auto"));
  cp_ = add_spin(plan, QStringLiteral("parallel.cp"), tr("Context parallel (CP)"), 0, kSpinMax,
                 tr("parallel.cp: splits the sequence"));
  ep_ = add_spin(plan, QStringLiteral("parallel.ep"), tr("Expert parallel (EP)"), 0, kSpinMax,
                 tr("parallel.ep: MoE models only"));
  vpp_ = add_spin(plan, QStringLiteral("parallel.vpp"), tr("Virtual stages (VPP)"), 0, kSpinMax,
                  tr("parallel.vpp: model chunks per pipeline rank (interleaved schedule)"));
  micro_ = add_spin(plan, QStringLiteral("parallel.micro_batch"), tr("Micro-batch"), 0, kSpinMax,
                    tr("parallel.micro_batch: sequences per micro-batch per DP rank"));
  global_ = add_spin(plan, QStringLiteral("parallel.global_batch"), tr("Global batch"), 0, kSpinMax,
                     tr("parallel.global_batch: sequences per optimizer step"));
  sp_ = new QCheckBox(tr("sequence parallelism"), this);
  add_field(plan, QStringLiteral("parallel.sequence_parallel"), tr("Sequence parallel"), sp_,
            tr("parallel.sequence_parallel: shards norms and dropout over TP ranks"));
  connect(sp_, &QCheckBox::toggled, this, [this] { changed(QStringLiteral("parallel.sequence_parallel")); });
  zero_ = add_combo(plan, QStringLiteral("parallel.zero"), tr("ZeRO stage"), tr("parallel.zero: 0-3"));
  zero_->addItem(tr("0: none"), 0);
  zero_->addItem(tr("1: optimizer states"), 1);
  zero_->addItem(tr("2: + gradients"), 2);
  zero_->addItem(tr("3: + parameters (FSDP)"), 3);
  recompute_ = add_combo(plan, QStringLiteral("parallel.recompute"), tr("Recompute"), tr("parallel.recompute"));
  for (const char* r : {"none", "selective", "full"})
    recompute_->addItem(QString::fromLatin1(r), QString::fromLatin1(r));
  schedule_ = add_combo(plan, QStringLiteral("parallel.schedule"), tr("Schedule"), tr("parallel.schedule"));
  for (const char* r : {"1f1b", "gpipe", "interleaved", "zero-bubble", "dualpipe", "dualpipev"})
    schedule_->addItem(QString::fromLatin1(r), QString::fromLatin1(r));
  first_stage_ = add_spin(plan, QStringLiteral("parallel.pipeline_layout.first_stage_layers"), tr("First stage layers"),
                          0, kSpinMax,
                          tr("parallel.pipeline_layout.first_stage_layers: the first pipeline rank's layers "
                             "(Megatron-LM --decoder-first-pipeline-num-layers); 'even' = the even split"));
  first_stage_->setSpecialValueText(tr("even"));
  last_stage_ =
      add_spin(plan, QStringLiteral("parallel.pipeline_layout.last_stage_layers"), tr("Last stage layers"), 0, kSpinMax,
               tr("parallel.pipeline_layout.last_stage_layers: the last pipeline rank's layers "
                  "(Megatron-LM --decoder-last-pipeline-num-layers); 'even' = the even split"));
  last_stage_->setSpecialValueText(tr("even"));
  account_embedding_ = new QCheckBox(tr("embedding counts as a layer"), this);
  add_field(plan, QStringLiteral("parallel.pipeline_layout.account_for_embedding"), tr("Stage split"),
            account_embedding_,
            tr("parallel.pipeline_layout.account_for_embedding: Megatron-LM "
               "--account-for-embedding-in-pipeline-split"));
  connect(account_embedding_, &QCheckBox::toggled, this,
          [this] { changed(QStringLiteral("parallel.pipeline_layout.account_for_embedding")); });
  account_loss_ = new QCheckBox(tr("loss counts as a layer"), this);
  add_field(plan, QStringLiteral("parallel.pipeline_layout.account_for_loss"), QString(), account_loss_,
            tr("parallel.pipeline_layout.account_for_loss: Megatron-LM --account-for-loss-in-pipeline-split"));
  connect(account_loss_, &QCheckBox::toggled, this,
          [this] { changed(QStringLiteral("parallel.pipeline_layout.account_for_loss")); });
  dispatcher_ = add_combo(plan, QStringLiteral("parallel.moe_dispatcher"), tr("MoE dispatcher"),
                          tr("parallel.moe_dispatcher: how MoE tokens reach their experts (MoE models only)"));
  dispatcher_->addItem(tr("not stated"), QString());
  for (const char* d : {"alltoall", "allgather", "deepep", "hybridep"})
    dispatcher_->addItem(QString::fromLatin1(d), QString::fromLatin1(d));
  dispatch_dtype_ = add_combo(plan, QStringLiteral("parallel.moe_dispatch_dtype"), tr("MoE dispatch in"),
                              tr("parallel.moe_dispatch_dtype: the tokens sent to 8-bit expert GEMMs, quantized "
                                 "before the dispatch (DeepEP, HybridEP; FP8 runs)"));
  dispatch_dtype_->addItem(tr("not stated (bf16)"), QString());
  for (const char* d : {"bf16", "fp8", "mxfp8"})
    dispatch_dtype_->addItem(QString::fromLatin1(d), QString::fromLatin1(d));
  fsdp_ = add_combo(plan, QStringLiteral("parallel.fsdp"), tr("FSDP2"),
                    tr("parallel.fsdp: torch FSDP2 / torchtitan, ZeRO-3 with per-layer gathers"));
  fsdp_->addItem(tr("no"), QString());
  fsdp_->addItem(tr("reshard after forward"), QStringLiteral("reshard"));
  fsdp_->addItem(tr("keep gathered to backward"), QStringLiteral("keep"));
}

QSpinBox* ScenarioEditor::add_spin(QFormLayout* form, const QString& key, const QString& caption, int min, int max,
                                   const QString& tip) {
  auto* spin = new QSpinBox(this);
  spin->setRange(min, max);
  spin->setGroupSeparatorShown(true);
  spin->setAccelerated(true);
  add_field(form, key, caption, spin, tip);
  connect(spin, &QSpinBox::valueChanged, this, [this, key] { changed(key); });
  return spin;
}

QComboBox* ScenarioEditor::add_combo(QFormLayout* form, const QString& key, const QString& caption,
                                     const QString& tip) {
  auto* box = new QComboBox(this);
  box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  box->setMinimumContentsLength(12);
  add_field(form, key, caption, box, tip);
  // Preset and fabric connect their own handlers (they also update other fields).
  if (key != QLatin1String("model.preset") && key != QLatin1String("cluster.fabric") &&
      key != QLatin1String("cluster.gpu"))
    connect(box, &QComboBox::currentIndexChanged, this, [this, key] { changed(key); });
  return box;
}

void ScenarioEditor::add_field(QFormLayout* form, const QString& key, const QString& caption, QWidget* w,
                               const QString& tip) {
  auto* label = new QLabel(caption, this);
  label->setBuddy(w);
  w->setToolTip(tip);
  w->setObjectName(key);
  form->addRow(label, w);
  auto* message = new QLabel(this);
  message->setWordWrap(true);
  message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message->setObjectName(key + QStringLiteral(".message"));
  message->hide();
  form->addRow(message);
  fields_.insert(key, Field{w, label, message});
}

QLabel* ScenarioEditor::add_group_message(QVBoxLayout* box, const QString& key) {
  auto* message = new QLabel(this);
  message->setWordWrap(true);
  message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message->setObjectName(key + QStringLiteral(".message"));
  message->hide();
  box->addWidget(message);
  fields_.insert(key, Field{nullptr, nullptr, message});
  return message;
}

void ScenarioEditor::changed(const QString& key) {
  if (updating_) return;
  emit edited(key);
}

void ScenarioEditor::fill_from_preset(const QString& preset) {
  const workload::ModelSpec* m = catalog_.find_model(s(preset));
  if (!m) return;
  const bool was = updating_;
  updating_ = true;
  layers_->setValue(m->layers);
  hidden_->setValue(to_int(m->hidden));
  heads_->setValue(m->heads);
  kv_heads_->setValue(m->kv_heads);
  ffn_->setValue(to_int(m->ffn));
  vocab_->setValue(to_int(m->vocab));
  seq_len_->setValue(to_int(m->seq_len));
  updating_ = was;
}

void ScenarioEditor::update_fabric_default_text() {
  const hardware::GpuSpec* g = catalog_.find_gpu(s(data_of(gpu_)));
  const QString usual = g && !g->default_fabric.empty() ? q(g->default_fabric) : tr("none");
  fabric_->setItemText(0, tr("usual for the GPU (%1)").arg(usual));
}

io::ScenarioForm ScenarioEditor::form_state() const {
  io::ScenarioForm f;
  f.name = s(name_->text());
  f.model_preset = s(data_of(preset_));
  if (f.model_preset.empty()) f.model_base = s(custom_base_);
  f.layers = layers_->value();
  f.hidden = hidden_->value();
  f.heads = heads_->value();
  f.kv_heads = kv_heads_->value();
  f.ffn = ffn_->value();
  f.vocab = vocab_->value();
  f.seq_len = seq_len_->value();
  f.gpu = s(data_of(gpu_));
  f.gpus = gpus_->value();
  f.gpus_per_node = gpus_per_node_->value();
  f.fabric = s(data_of(fabric_));
  f.tp = tp_->value();
  f.pp = pp_->value();
  f.dp_auto = dp_->value() == 0;
  f.dp = dp_->value();
  f.cp = cp_->value();
  f.ep = ep_->value();
  f.vpp = vpp_->value();
  f.sequence_parallel = sp_->isChecked();
  f.zero = zero_->currentData().toInt();
  f.micro_batch = micro_->value();
  f.global_batch = global_->value();
  f.recompute = s(data_of(recompute_));
  f.schedule = s(data_of(schedule_));
  f.first_stage_layers = first_stage_->value();
  f.last_stage_layers = last_stage_->value();
  f.account_for_embedding = account_embedding_->isChecked();
  f.account_for_loss = account_loss_->isChecked();
  f.moe_dispatcher = s(data_of(dispatcher_));
  f.moe_dispatch_dtype = s(data_of(dispatch_dtype_));
  f.fsdp = s(data_of(fsdp_));
  f.precision = s(data_of(precision_));
  f.tokens = s(tokens_->text().trimmed());
  f.pricing_catalog = s(data_of(pricing_));
  return f;
}

void ScenarioEditor::set_form_state(const io::ScenarioForm& f) {
  const bool was = updating_;
  updating_ = true;
  name_->setText(q(f.name));
  name_->setCursorPosition(0);
  select_data(preset_, q(f.model_preset));
  shown_preset_ = q(f.model_preset);
  custom_base_ = q(f.model_base);
  layers_->setValue(to_int(f.layers));
  hidden_->setValue(to_int(f.hidden));
  heads_->setValue(to_int(f.heads));
  kv_heads_->setValue(to_int(f.kv_heads));
  ffn_->setValue(to_int(f.ffn));
  vocab_->setValue(to_int(f.vocab));
  seq_len_->setValue(to_int(f.seq_len));
  select_data(gpu_, q(f.gpu));
  gpus_->setValue(to_int(f.gpus));
  gpus_per_node_->setValue(to_int(f.gpus_per_node));
  // The "inline fabric of the file" entry exists only while the document has one.
  const int from_file = fabric_->findData(QString::fromLatin1(io::kFabricFromFile));
  if (f.fabric == io::kFabricFromFile && from_file < 0)
    fabric_->addItem(tr("inline fabric of the file"), QString::fromLatin1(io::kFabricFromFile));
  if (f.fabric != io::kFabricFromFile && from_file >= 0) fabric_->removeItem(from_file);
  select_data(fabric_, q(f.fabric));
  update_fabric_default_text();
  tp_->setValue(to_int(f.tp));
  pp_->setValue(to_int(f.pp));
  dp_->setValue(f.dp_auto ? 0 : to_int(f.dp));
  cp_->setValue(to_int(f.cp));
  ep_->setValue(to_int(f.ep));
  vpp_->setValue(to_int(f.vpp));
  sp_->setChecked(f.sequence_parallel);
  zero_->setCurrentIndex(std::max(0, zero_->findData(static_cast<int>(f.zero))));
  micro_->setValue(to_int(f.micro_batch));
  global_->setValue(to_int(f.global_batch));
  select_data(recompute_, q(f.recompute));
  select_data(schedule_, q(f.schedule));
  first_stage_->setValue(to_int(f.first_stage_layers));
  last_stage_->setValue(to_int(f.last_stage_layers));
  account_embedding_->setChecked(f.account_for_embedding);
  account_loss_->setChecked(f.account_for_loss);
  select_data(dispatcher_, q(f.moe_dispatcher));
  select_data(dispatch_dtype_, q(f.moe_dispatch_dtype));
  select_data(fsdp_, q(f.fsdp));
  select_data(precision_, q(f.precision));
  tokens_->setText(q(f.tokens));
  select_data(pricing_, q(f.pricing_catalog));
  updating_ = was;
}

QString ScenarioEditor::field_key_for(const QString& key) const {
  QString k = key;
  while (!k.isEmpty()) {
    if (fields_.contains(k)) return k;
    const auto dot = k.lastIndexOf(QLatin1Char('.'));
    k = dot < 0 ? QString() : k.left(dot);
  }
  if (key == QLatin1String("pricing") || key.startsWith(QLatin1String("pricing."))) return QStringLiteral("training");
  return QString();
}

QWidget* ScenarioEditor::field(const QString& key) const {
  auto it = fields_.find(key);
  return it == fields_.end() ? nullptr : it->widget;
}

QLabel* ScenarioEditor::message_label(const QString& key) const {
  auto it = fields_.find(key);
  return it == fields_.end() ? nullptr : it->message;
}

int ScenarioEditor::show_diagnostics(const scenario::Diagnostics& diags) {
  struct Lines {
    QStringList text;
    bool error = false;
  };
  QHash<QString, Lines> by_field;
  for (const auto& d : diags.items()) {
    const QString key = field_key_for(q(d.key));
    Lines& l = by_field[key];
    QString line = d.severity == scenario::Severity::Warning ? tr("warning: %1").arg(q(d.message)) : q(d.message);
    if (!d.hint.empty()) line += QStringLiteral("\n") + tr("hint: %1").arg(q(d.hint));
    l.text << line;
    l.error = l.error || d.severity == scenario::Severity::Error;
  }
  int placed = 0;
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    Field& f = it.value();
    const auto found = by_field.constFind(it.key());
    const bool has = found != by_field.constEnd();
    const QString colour = has && found->error ? kErrorColour : kWarningColour;
    f.message->setText(has ? found->text.join(QLatin1Char('\n')) : QString());
    f.message->setStyleSheet(has ? QStringLiteral("color: %1;").arg(colour) : QString());
    f.message->setVisible(has);
    if (f.caption)
      f.caption->setStyleSheet(has ? QStringLiteral("color: %1; font-weight: bold;").arg(colour) : QString());
    if (has) placed += static_cast<int>(found->text.size());
  }
  return placed;
}

}  // namespace flopcast::gui

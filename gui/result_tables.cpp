#include "result_tables.hpp"

#include <algorithm>
#include <cmath>

#include "flopcast/parallel/plan_text.hpp"
#include "flopcast/units/format.hpp"
#include "flopcast/workload/workload.hpp"
#include "qt_text.hpp"

namespace flopcast::gui {
namespace {

QString time_text(units::Time t) { return t.ns == 0 ? QStringLiteral("0") : q(units::format_time(t)); }
QString gib_text(units::Bytes b) { return q(units::format_fixed_half_up(b.gib(), 1) + " GiB"); }
QString grouped(double v, int decimals = 0) { return q(units::format_grouped_half_up(v, decimals)); }

TableRow row(QString label, QString value, QString detail = {}, double number = 0.0) {
  TableRow r;
  r.cells = {std::move(label), std::move(value), std::move(detail)};
  r.value = number;
  return r;
}

/// The step time's 80% band (cross-validated residuals, compute/prediction_band.hpp) and how the
/// generation's coefficients were obtained, worded as `flopcast simulate` words them.
void add_band_rows(const app::SimReport& rep, std::vector<TableRow>& rows) {
  if (!rep.band.known) {
    rows.push_back(row(QStringLiteral("Step time 80% band"), QStringLiteral("unknown"), q(rep.band.basis)));
  } else {
    const auto [lo, hi] = app::step_band(rep);
    const auto [mfu_lo, mfu_hi] = app::mfu_band(rep);
    rows.push_back(row(QStringLiteral("Step time 80% band"),
                       QStringLiteral("%1 to %2").arg(time_text(lo)).arg(time_text(hi)),
                       QStringLiteral("P10-P90 model uncertainty, MFU %1 to %2; cross-validated on %3")
                           .arg(percent_text(mfu_lo))
                           .arg(percent_text(mfu_hi))
                           .arg(q(rep.band.basis)),
                       lo.seconds()));
  }
  rows.push_back(row(QStringLiteral("Coefficients"), q(rep.profile_name), q(rep.coefficients_basis)));
}

}  // namespace

QString percent_text(double fraction) { return q(units::format_fixed_half_up(fraction * 100.0, 1) + " %"); }

QString days_text(units::Time t) { return q(units::format_days_or_hours_half_up(t)); }

std::optional<std::size_t> recommended_row(const app::ComputeResult& r) {
  return r.plans() ? r.plans()->cheapest_offered : std::nullopt;
}

QString plan_name(const pricing::PlanOption& o) { return QStringLiteral("%1 (%2)").arg(q(o.label), q(o.id)); }

std::vector<TimePartValue> time_parts(const estimate::StepBreakdown& b) {
  return {
      {TimePart::Compute, QStringLiteral("Compute"), b.compute},
      {TimePart::Recompute, QStringLiteral("Recompute"), b.recompute},
      {TimePart::TpComm, QStringLiteral("TP/SP comm (exposed)"), b.tp_comm},
      {TimePart::CpComm, QStringLiteral("CP comm (exposed)"), b.cp_comm},
      {TimePart::EpComm, QStringLiteral("EP all-to-all (exposed)"), b.ep_comm},
      {TimePart::PpComm, QStringLiteral("PP send/recv (exposed)"), b.pp_comm},
      {TimePart::Bubble, QStringLiteral("Pipeline bubble"), b.bubble},
      {TimePart::DpComm, QStringLiteral("DP gradient sync (exposed)"), b.dp_comm},
      {TimePart::Optimizer, QStringLiteral("Optimizer"), b.optimizer},
      {TimePart::Overhead, QStringLiteral("Host overhead"), b.overhead},
  };
}

std::vector<MemoryPartValue> memory_parts(const workload::MemoryBreakdown& m) {
  return {
      {MemoryPart::Weights, QStringLiteral("Weights"), m.weights},
      {MemoryPart::Gradients, QStringLiteral("Gradients"), m.gradients},
      {MemoryPart::Optimizer, QStringLiteral("Optimizer states"), m.optimizer},
      {MemoryPart::Activations, QStringLiteral("Activations"), m.activations},
      {MemoryPart::Logits, QStringLiteral("Logits / loss"), m.logits},
      {MemoryPart::Workspace, QStringLiteral("Workspace"), m.workspace},
      {MemoryPart::Fragmentation, QStringLiteral("Fragmentation"), m.fragmentation},
  };
}

QStringList summary_headers() { return {QStringLiteral("Figure"), QStringLiteral("Value"), QStringLiteral("Detail")}; }
QStringList breakdown_headers() {
  return {QStringLiteral("Part"), QStringLiteral("Time per step"), QStringLiteral("Share of step")};
}
QStringList memory_headers() {
  return {QStringLiteral("Part"), QStringLiteral("Per GPU"), QStringLiteral("Share of HBM")};
}
QStringList run_headers() { return {QStringLiteral("Figure"), QStringLiteral("Value"), QStringLiteral("Detail")}; }
QStringList bill_headers() {
  return {QStringLiteral("Plan"), QStringLiteral("P50 total"), QStringLiteral("P90 total"),
          QStringLiteral("Billed GPU time (P50)"), QStringLiteral("Note")};
}

QStringList stage_headers() {
  return {QStringLiteral("Stage"),    QStringLiteral("Layers"),         QStringLiteral("Forward"),
          QStringLiteral("Backward"), QStringLiteral("Recompute"),      QStringLiteral("TP/CP/EP comm"),
          QStringLiteral("P2P send"), QStringLiteral("Per micro-batch")};
}

std::vector<TableRow> stage_rows(const app::ComputeResult& r) {
  std::vector<TableRow> rows;
  if (!r.ok()) return rows;
  const auto& stages = r.report.est.stages;
  units::Time slowest{0};
  for (const auto& st : stages) slowest = std::max(slowest, st.per_microbatch() + units::Time{2 * st.p2p.ns});
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const cost::StageTimes& st = stages[i];
    const units::Time per = st.per_microbatch() + units::Time{2 * st.p2p.ns};
    TableRow t;
    t.cells = {QStringLiteral("stage %1").arg(i),
               QString::number(st.layers),
               time_text(st.forward),
               time_text(st.backward),
               time_text(st.recompute),
               time_text(st.tp_comm + st.cp_comm + st.ep_comm),
               time_text(st.p2p),
               time_text(per)};
    t.value = per.seconds();
    t.emphasis = stages.size() > 1 && per == slowest;
    t.tooltip = t.emphasis ? QStringLiteral("the slowest stage: it sets the pipeline's pace") : QString();
    rows.push_back(t);
  }
  return rows;
}

std::vector<TableRow> summary_rows(const app::ComputeResult& r) {
  std::vector<TableRow> rows;
  if (!r.ok()) return rows;
  const scenario::Scenario& s = *r.scenario;
  const app::SimReport& rep = r.report;
  const estimate::StepEstimate& e = rep.est;
  const double gpus = static_cast<double>(s.cluster.gpus);
  const auto params = workload::parameter_count(s.model);

  rows.push_back(row(QStringLiteral("Model"), q(s.model.display.empty() ? s.model.name : s.model.display),
                     QStringLiteral("%1 parameters, %2 layers, seq %3")
                         .arg(q(units::format_count(params.total)))
                         .arg(s.model.layers)
                         .arg(s.model.seq_len),
                     params.total));
  rows.push_back(row(QStringLiteral("Cluster"),
                     QStringLiteral("%1 x %2").arg(s.cluster.gpus).arg(q(s.cluster.gpu.name)),
                     QStringLiteral("%1 nodes of %2, %3")
                         .arg(s.cluster.nodes())
                         .arg(s.cluster.gpus_per_node)
                         .arg(q(s.cluster.fabric.name)),
                     gpus));
  const std::string dispatch = parallel::dispatch_text(s.plan);
  rows.push_back(row(QStringLiteral("Plan"), q(parallel::plan_label(s.plan)),
                     QStringLiteral("micro-batch %1, global batch %2, %3 micro-batches per step, %4")
                             .arg(s.plan.micro_batch)
                             .arg(s.plan.global_batch)
                             .arg(s.plan.microbatches())
                             .arg(to_string(s.precision)) +
                         (dispatch.empty() ? QString() : QStringLiteral(", ") + q(dispatch))));
  const QString how = r.report.sim ? QStringLiteral("simulated event by event (DES); closed-form estimate %1")
                                         .arg(time_text(r.report.closed_form_step))
                                   : QStringLiteral("closed-form estimate");
  TableRow step = row(QStringLiteral("Step time"), time_text(e.step), how, e.step.seconds());
  step.emphasis = true;
  rows.push_back(step);
  add_band_rows(rep, rows);
  rows.push_back(row(QStringLiteral("Throughput"), QStringLiteral("%1 tokens/s").arg(grouped(e.tokens_per_s)),
                     QStringLiteral("%1 tokens/s per GPU").arg(grouped(gpus > 0 ? e.tokens_per_s / gpus : 0)),
                     e.tokens_per_s));
  const double tflops = e.step.ns > 0 && gpus > 0 ? e.model_flops.value / e.step.seconds() / gpus / 1e12 : 0;
  const auto peak = s.cluster.gpu.peak(s.precision);
  rows.push_back(row(
      QStringLiteral("Model TFLOP/s per GPU"), QStringLiteral("%1 TFLOP/s").arg(tflops, 0, 'f', 1),
      peak ? QStringLiteral("of %1 TFLOP/s dense %2 peak").arg(peak->tflops(), 0, 'f', 0).arg(to_string(s.precision))
           : QString(),
      tflops * 1e12));
  TableRow mfu = row(QStringLiteral("MFU"), percent_text(e.mfu),
                     QStringLiteral("model FLOPs / (step x GPUs x peak), PaLM"), e.mfu);
  mfu.emphasis = true;
  rows.push_back(mfu);
  rows.push_back(
      row(QStringLiteral("HFU"), percent_text(e.hfu), QStringLiteral("hardware FLOPs, recompute counted"), e.hfu));
  const workload::MemoryBreakdown& m = e.memory;
  TableRow mem = row(
      QStringLiteral("Memory per GPU"), QStringLiteral("%1 of %2").arg(gib_text(m.total())).arg(gib_text(m.capacity)),
      m.fits() ? QStringLiteral("fits (stage %1, %2 micro-batches in flight)").arg(m.stage).arg(m.in_flight, 0, 'g', 6)
               : QStringLiteral("DOES NOT FIT: %1 over (stage %2)").arg(gib_text(m.total() - m.capacity)).arg(m.stage),
      m.total().value);
  mem.emphasis = !m.fits();
  rows.push_back(mem);
  if (s.training.tokens > 0) {
    rows.push_back(
        row(QStringLiteral("Training tokens"), q(units::format_count(s.training.tokens)),
            QStringLiteral("%1 steps of %2 tokens")
                .arg(grouped(rep.steps))
                .arg(grouped(static_cast<double>(s.plan.global_batch) * static_cast<double>(s.model.seq_len))),
            s.training.tokens));
    const units::Time ideal = units::Time::from_seconds(rep.train_seconds);
    TableRow days =
        row(QStringLiteral("Time to train"), days_text(ideal), QStringLiteral("failure-free"), rep.train_seconds);
    days.emphasis = true;
    rows.push_back(days);
    if (r.job()) {
      rows.push_back(row(QStringLiteral("Wall time P50 / P90"),
                         QStringLiteral("%1 / %2").arg(days_text(r.job()->wall_p50)).arg(days_text(r.job()->wall_p90)),
                         QStringLiteral("with failures and checkpoints, %1 trials").arg(r.job()->trials),
                         r.job()->wall_p50.seconds()));
    }
    rows.push_back(row(QStringLiteral("GPU-hours"), grouped(rep.gpu_hours),
                       QStringLiteral("%1 node-hours, failure-free").arg(grouped(rep.node_hours)), rep.gpu_hours));
    // The plan the quote recommends: the provider's cheapest (a competitor's reference price
    // is never the recommendation), named as the Cost tab and the quote name it.
    if (const auto rec = recommended_row(r)) {
      const pricing::ComparisonRow& c = r.plans()->rows[*rec];
      TableRow cost =
          row(QStringLiteral("Recommended plan (P50)"), q(c.p50.total.str()), plan_name(c.option), c.p50.total.major());
      cost.emphasis = true;
      rows.push_back(cost);
    }
  }
  return rows;
}

std::vector<TableRow> breakdown_rows(const app::ComputeResult& r) {
  std::vector<TableRow> rows;
  if (!r.ok()) return rows;
  const estimate::StepBreakdown& b = r.report.est.breakdown;
  const double total = b.total().seconds();
  for (const auto& p : time_parts(b)) {
    TableRow t;
    t.cells = {p.label, time_text(p.time), percent_text(total > 0 ? p.time.seconds() / total : 0)};
    t.value = p.time.seconds();
    t.swatch = color_of(p.part);
    rows.push_back(t);
  }
  TableRow t;
  t.cells = {QStringLiteral("Step"), time_text(b.total()), percent_text(1.0)};
  t.value = total;
  t.emphasis = true;
  rows.push_back(t);
  return rows;
}

std::vector<TableRow> memory_rows(const app::ComputeResult& r) {
  std::vector<TableRow> rows;
  if (!r.ok()) return rows;
  const workload::MemoryBreakdown& m = r.report.est.memory;
  const double cap = m.capacity.value;
  auto share = [&](units::Bytes b) { return percent_text(cap > 0 ? b.value / cap : 0); };
  for (const auto& p : memory_parts(m)) {
    TableRow t;
    t.cells = {p.label, gib_text(p.bytes), share(p.bytes)};
    t.value = p.bytes.value;
    t.swatch = color_of(p.part);
    rows.push_back(t);
  }
  TableRow total;
  total.cells = {QStringLiteral("Total"), gib_text(m.total()), share(m.total())};
  total.value = m.total().value;
  total.emphasis = true;
  rows.push_back(total);
  TableRow hbm;
  hbm.cells = {QStringLiteral("HBM capacity"), gib_text(m.capacity), percent_text(1.0)};
  hbm.value = cap;
  rows.push_back(hbm);
  TableRow head;
  const units::Bytes headroom = m.capacity - m.total();
  head.cells = {headroom.value >= 0 ? QStringLiteral("Headroom") : QStringLiteral("Over capacity"),
                gib_text(units::Bytes{std::fabs(headroom.value)}), share(units::Bytes{std::fabs(headroom.value)})};
  head.value = headroom.value;
  head.emphasis = headroom.value < 0;
  rows.push_back(head);
  return rows;
}

std::vector<TableRow> run_rows(const app::ComputeResult& r) {
  std::vector<TableRow> rows;
  if (!r.ok()) return rows;
  const scenario::Scenario& s = *r.scenario;
  const app::SimReport& rep = r.report;
  if (s.training.tokens <= 0) return rows;
  rows.push_back(row(QStringLiteral("Training tokens"), q(units::format_count(s.training.tokens)),
                     QStringLiteral("%1 steps").arg(grouped(rep.steps)), s.training.tokens));
  rows.push_back(row(QStringLiteral("Step time"), time_text(rep.est.step), {}, rep.est.step.seconds()));
  TableRow ideal =
      row(QStringLiteral("Training time, failure-free"), days_text(units::Time::from_seconds(rep.train_seconds)),
          QStringLiteral("steps x step time"), rep.train_seconds);
  ideal.emphasis = true;
  rows.push_back(ideal);
  rows.push_back(row(QStringLiteral("GPU-hours, failure-free"), grouped(rep.gpu_hours),
                     QStringLiteral("%1 node-hours").arg(grouped(rep.node_hours)), rep.gpu_hours));
  if (r.job()) {
    const job::JobResult& j = *r.job();
    TableRow wall =
        row(QStringLiteral("Wall time P50 / P90"),
            QStringLiteral("%1 / %2").arg(days_text(j.wall_p50)).arg(days_text(j.wall_p90)),
            QStringLiteral("Monte Carlo, %1 trials, seed %2").arg(j.trials).arg(j.seed), j.wall_p50.seconds());
    wall.emphasis = true;
    rows.push_back(wall);
    rows.push_back(row(QStringLiteral("GPU-hours P50 / P90"),
                       QStringLiteral("%1 / %2").arg(grouped(j.gpu_hours_p50)).arg(grouped(j.gpu_hours_p90)),
                       QStringLiteral("paid GPU span x GPUs"), j.gpu_hours_p50));
    rows.push_back(row(QStringLiteral("Goodput"), QStringLiteral("%1 %").arg(j.goodput_mean * 100.0, 0, 'f', 2),
                       QStringLiteral("useful / paid GPU time (mean)"), j.goodput_mean));
    rows.push_back(row(QStringLiteral("Failures"), QStringLiteral("%1").arg(j.failures_mean, 0, 'f', 1),
                       QStringLiteral("mean per run at %1 per GPU-hour").arg(j.failures_per_gpu_hour, 0, 'g', 3),
                       j.failures_mean));
    rows.push_back(row(QStringLiteral("Lost work + restarts"),
                       QStringLiteral("%1 + %2").arg(days_text(j.lost_work_mean)).arg(days_text(j.restart_mean)),
                       QStringLiteral("mean per run"), (j.lost_work_mean + j.restart_mean).seconds()));
    // Worded as `flopcast simulate` prints it (units/format.hpp): "every 4.0 min".
    rows.push_back(row(QStringLiteral("Checkpoint interval"),
                       QStringLiteral("every %1").arg(q(units::format_duration(j.checkpoint_interval))),
                       QStringLiteral("%1 steps, write %2 (%3)")
                           .arg(q(units::format_grouped(j.steps_per_checkpoint)))
                           .arg(q(units::format_duration(j.checkpoint_write)))
                           .arg(j.async_checkpoint ? QStringLiteral("async") : QStringLiteral("sync")),
                       j.checkpoint_interval.seconds()));
    rows.push_back(row(QStringLiteral("Energy"),
                       QStringLiteral("%1 MWh").arg(j.energy.facility_kwh / 1000.0, 0, 'f', 1),
                       QStringLiteral("facility, PUE %1, %2").arg(j.energy.pue, 0, 'f', 2).arg(q(j.energy.cost.str())),
                       j.energy.facility_kwh));
  }
  return rows;
}

std::vector<TableRow> bill_rows(const app::ComputeResult& r) {
  std::vector<TableRow> rows;
  if (!r.plans()) return rows;
  for (std::size_t i = 0; i < r.plans()->rows.size(); ++i) {
    const pricing::ComparisonRow& c = r.plans()->rows[i];
    TableRow t;
    const bool ok = c.p50.ok() && c.p90.ok();
    QStringList notes;
    const bool recommended = recommended_row(r) == i;
    if (recommended) notes << QStringLiteral("recommended (the quote's plan)");
    if (c.option.plan && c.option.plan->competitor) notes << QStringLiteral("competitor (reference only)");
    if (c.cheapest && !recommended) notes << QStringLiteral("lowest price");
    QString note = notes.join(QStringLiteral("; "));
    if (!ok) note = q(c.p50.errors.empty() ? c.p90.errors.front() : c.p50.errors.front());
    t.cells = {plan_name(c.option), ok ? q(c.p50.total.str()) : QStringLiteral("-"),
               ok ? q(c.p90.total.str()) : QStringLiteral("-"), days_text(c.p50.billed_gpu_time), note};
    t.value = ok ? c.p50.total.major() : 0.0;
    t.emphasis = recommended;
    QStringList lines;
    for (const auto& item : c.p50.items)
      lines << QStringLiteral("%1: %2 x %3 = %4")
                   .arg(q(item.label))
                   .arg(q(item.quantity))
                   .arg(q(item.unit_price))
                   .arg(q(item.amount.str()));
    // The model's uncertainty, as `flopcast simulate` prints it for the cheapest plan.
    const auto& band = r.report.bills->model_uncertainty;
    if (band && i < band->rows.size() && band->rows[i].p50.ok() && band->rows[i].p90.ok())
      lines << QStringLiteral("model uncertainty: %1 to %2 (80% step-time band, failures at their P50)")
                   .arg(q(band->rows[i].p50.total.str()))
                   .arg(q(band->rows[i].p90.total.str()));
    t.tooltip = lines.join(QLatin1Char('\n'));
    rows.push_back(t);
  }
  return rows;
}

}  // namespace flopcast::gui

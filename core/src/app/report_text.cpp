#include "flopcast/app/report_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <ostream>

#include "flopcast/parallel/plan_text.hpp"
#include "flopcast/units/format.hpp"
#include "flopcast/workload/fine_tuning.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::app {

namespace {

void print_whole_run(const SimReport& r, std::ostream& o) {
  const WholeRun& run = *r.run;
  if (!run.ok()) {
    o << "\nWhole run: not simulated\n";
    for (const auto& e : run.errors) o << "  " << e << "\n";
    return;
  }
  const job::JobResult& j = run.result;
  const double gpus = static_cast<double>(j.gpus);
  o << fmt::format("\nWhole run (Monte Carlo: {} trials, seed {}; reliability: {})\n", j.trials, j.seed,
                   run.reliability_defaults ? "defaults" : "scenario");
  if (!r.fits_memory) o << "  (the plan does not fit memory: these figures assume it would)\n";
  o << fmt::format("  wall time            P50 {:.1f} days, P90 {:.1f} days", j.wall_p50.days(), j.wall_p90.days());
  if (j.provisioning.ns > 0 || j.debug_phase.ns > 0)
    o << fmt::format(" (provisioning {}, CPU debug {})", units::format_duration(j.provisioning),
                     units::format_duration(j.debug_phase));
  o << "\n";
  o << fmt::format("  paid GPU time        P50 {:.1f} days, P90 {:.1f} days (failure-free {:.1f} days)\n",
                   j.gpu_span_p50.days(), j.gpu_span_p90.days(), j.useful.days());
  o << fmt::format("  GPU-hours            P50 {:.0f}, P90 {:.0f}\n", j.gpu_hours_p50, j.gpu_hours_p90);
  if (run.band_p10 && run.band_p90)
    o << fmt::format(
        "  model uncertainty    wall time {:.1f} to {:.1f} days, GPU-hours {:.0f} to {:.0f} (80% step-time band, "
        "failures at their P50)\n",
        run.band_p10->wall_p50.days(), run.band_p90->wall_p50.days(), run.band_p10->gpu_hours_p50,
        run.band_p90->gpu_hours_p50);
  o << fmt::format("  goodput              {:.1f}% (useful training / paid GPU time)\n", j.goodput_mean * 100);
  o << fmt::format("  failures expected    {:.1f} ({:.3g} per GPU-hour", j.failures_mean, j.failures_per_gpu_hour);
  if (j.advice.job_mtbf_hours > 0) o << fmt::format(", job MTBF {:.1f} h", j.advice.job_mtbf_hours);
  o << fmt::format("), restart {} each\n", units::format_duration(j.restart_time));
  // GPU-hours: one decimal while small, whole hours once they are in the hundreds.
  const auto gpu_h = [&](units::Time t) {
    const double h = t.hours() * gpus;
    return h >= 100 ? fmt::format("{:.0f}", h) : fmt::format("{:.1f}", h);
  };
  o << fmt::format("  time lost (mean)     {} GPU-hours redone, {} restarting, {} in checkpoint stalls\n",
                   gpu_h(j.lost_work_mean), gpu_h(j.restart_mean), gpu_h(j.checkpoint_stall_mean));
  const double bpp = run.input.params > 0 ? j.checkpoint_size.value / run.input.params : 0;
  o << fmt::format("  checkpoint           {:.1f} GB ({:g} B/param), {}, write {}, stall {}, every {} ({} steps)\n",
                   j.checkpoint_size.gb(), bpp, j.async_checkpoint ? "async" : "sync",
                   units::format_duration(j.checkpoint_write), units::format_time(j.checkpoint_stall),
                   units::format_duration(j.checkpoint_interval), j.steps_per_checkpoint);
  const job::CheckpointAdvice& a = j.advice;
  if (a.job_mtbf_hours <= 0) {
    o << "  Young/Daly           no failures: no optimal interval\n";
  } else {
    // An async write longer than Daly's interval sets the suggestion: say so, or the line reads
    // as if Young/Daly gave it.
    const std::string bound =
        a.write_bound ? fmt::format(", no shorter than the {} write", units::format_duration(j.checkpoint_write)) : "";
    o << fmt::format("  Young/Daly           Young {}, Daly {}: suggests every {}{} (waste {:.2f}% -> {:.2f}%)\n",
                     units::format_duration(a.young), units::format_duration(a.daly),
                     units::format_duration(a.suggested), bound, a.waste_scenario * 100, a.waste_suggested * 100);
    if (a.simulated)
      o << fmt::format("                       saves {:.0f} GPU-hours and {} of GPU time (mean) against every {}\n",
                       a.gpu_hours_saved, units::format_duration(a.span_saved), units::format_duration(a.scenario));
    else
      o << "                       the scenario already checkpoints at the suggested interval\n";
  }
  const job::EnergyResult& e = j.energy;
  o << fmt::format(
      "  energy               {:.0f} kWh ({:.0f} kWh IT x PUE {:.2f}; {:.0f} kW average IT), {} at {}/kWh\n",
      e.facility_kwh, e.it_kwh, e.pue, e.avg_it_power_kw, e.cost.str(), run.input.energy.price_per_kwh.str());
  for (const auto& w : j.warnings) o << "  warning: " << w << "\n";
}

std::string total_or_na(const pricing::Bill& b) { return b.ok() ? b.total.amount_str() : std::string("n/a"); }

void print_bills(const SimReport& r, std::ostream& o) {
  const RunBills& b = *r.bills;
  const pricing::PriceCatalog& cat = *b.catalog;
  const pricing::PlanComparison& c = b.comparison;
  o << fmt::format("\nBills under '{}' ({}{}) for {} x {}, in {}\n", cat.name, cat.provider,
                   cat.date.empty() ? "" : ", " + cat.date, r.scenario->cluster.gpus, r.scenario->cluster.gpu.name,
                   c.currency.str());
  if (c.rows.empty()) {
    o << "  no plan of the catalog applies to the " << r.scenario->cluster.gpu.name << "\n";
  } else {
    o << fmt::format("  {:<36} {:>16} {:>16} {:>12}\n", "plan", "P50 total", "P90 total", "deposit");
    for (const auto& row : c.rows) {
      const bool rival = row.option.plan && row.option.plan->competitor;
      o << fmt::format("{} {:<36} {:>16} {:>16} {:>12}\n", row.cheapest ? "*" : " ",
                       rival ? row.option.id + " [competitor]" : row.option.id, total_or_na(row.p50),
                       total_or_na(row.p90), row.p50.deposit.minor != 0 ? row.p50.deposit.amount_str() : "-");
      for (const auto& e : row.p50.errors) o << "      " << e << "\n";
    }
    if (c.cheapest) {
      const pricing::ComparisonRow& best = c.rows[*c.cheapest];
      o << fmt::format("  * cheapest: {}: {} at P50, {} at P90\n", best.option.label, best.p50.total.str(),
                       best.p90.total.str());
      // The P50 bill's lines; informational lines (part of a line above) are indented and in parentheses.
      std::size_t label_w = 0, qty_w = 0, amount_w = 0;
      std::vector<std::array<std::string, 4>> lines;
      for (const auto& item : best.p50.items) {
        lines.push_back({item.in_total ? item.label : "  " + item.label, item.quantity,
                         item.in_total ? item.amount.amount_str() : "(" + item.amount.amount_str() + ")", item.note});
        label_w = std::max(label_w, lines.back()[0].size());
        qty_w = std::max(qty_w, lines.back()[1].size());
        amount_w = std::max(amount_w, lines.back()[2].size());
      }
      for (const auto& l : lines)
        o << fmt::format("    {:<{}}  {:<{}}  {:>{}}{}\n", l[0], label_w, l[1], qty_w, l[2], amount_w,
                         l[3].empty() ? "" : "  " + l[3]);
      for (const auto& n : best.p50.notes) o << "    note: " << n << "\n";
    }
    if (c.cheapest && b.model_uncertainty && *c.cheapest < b.model_uncertainty->rows.size()) {
      const pricing::ComparisonRow& mu = b.model_uncertainty->rows[*c.cheapest];
      o << fmt::format("  model uncertainty of the cheapest: {} to {} (80% step-time band, failures at their P50)\n",
                       mu.p50.ok() ? mu.p50.total.str() : "n/a", mu.p90.ok() ? mu.p90.total.str() : "n/a");
    }
    if (c.cheapest_offered && c.cheapest_offered != c.cheapest) {
      const pricing::ComparisonRow& own = c.rows[*c.cheapest_offered];
      o << fmt::format("  cheapest of the provider's own plans (what its quote recommends): {}: {} at P50, {} at P90\n",
                       own.option.label, own.p50.total.str(), own.p90.total.str());
    }
  }
  for (const auto& n : c.notes) o << "  note: " << n << "\n";
  for (const auto& e : c.errors) o << "  error: " << e << "\n";
}

}  // namespace

void print_text(const SimReport& r, std::ostream& o) {
  const auto& s = *r.scenario;
  const auto& e = r.est;
  const auto& p = s.plan;
  const auto pc = workload::parameter_count(s.model);
  if (!s.name.empty()) o << s.name << "\n\n";
  o << fmt::format("Model       {} ({} params, {} layers, hidden {}, heads {}/{} kv, seq {})\n", s.model.display,
                   units::format_count(pc.total), s.model.layers, s.model.hidden, s.model.heads, s.model.kv_heads,
                   s.model.seq_len);
  if (s.model.moe) o << fmt::format("            MoE: {} active params per token\n", units::format_count(pc.active));
  o << fmt::format("Cluster     {} x {} ({} nodes of {}), {}: {} x {:g} Gb/s {}\n", s.cluster.gpus, s.cluster.gpu.name,
                   s.cluster.nodes(), s.cluster.gpus_per_node, s.cluster.fabric.name, s.cluster.fabric.nics_per_node,
                   s.cluster.fabric.nic_gbps, to_string(s.cluster.fabric.kind));
  o << fmt::format("Plan        {}, {} ({} micro-batches per step){}\n", parallel::plan_summary(p),
                   to_string(s.precision), p.microbatches(),
                   p.fused_elementwise ? "" : "; elementwise ops eager, one kernel each");
  if (workload::is_fine_tuning(s))
    o << fmt::format("Training    {}; {}\n", workload::fine_tuning_summary(s),
                     units::format_count(workload::trainable_params(s)) + " trained");
  o << fmt::format("Profile     {} ({})\n", r.profile_name, r.coefficients_basis);
  if (!s.defaults_applied.empty()) {
    o << "Defaults    ";
    for (std::size_t i = 0; i < s.defaults_applied.size(); ++i) o << (i ? "; " : "") << s.defaults_applied[i];
    o << "\n";
  }
  o << "\nStep\n";
  const double gpus = static_cast<double>(s.cluster.gpus);
  o << fmt::format("  step time            {}\n", units::format_time(e.step));
  if (r.band.known) {
    const auto [lo, hi] = step_band(r);
    o << fmt::format("  80% band             {} to {} (x{:.2f} to x{:.2f}; cross-validated on {})\n",
                     units::format_time(lo), units::format_time(hi), r.band.p10, r.band.p90, r.band.basis);
  } else {
    o << "  80% band             unknown (" << r.band.basis << ")\n";
  }
  if (r.sim)
    o << fmt::format("  engine               discrete-event simulation (closed-form estimate {})\n",
                     units::format_time(r.closed_form_step));
  else
    o << "  engine               closed-form estimate\n";
  o << fmt::format("  tokens/s             {:.0f} total, {:.1f} per GPU\n", e.tokens_per_s, e.tokens_per_s / gpus);
  o << fmt::format("  model TFLOP/s/GPU    {:.1f}\n", e.model_flops.value / e.step.seconds() / gpus / 1e12);
  o << fmt::format("  MFU                  {:.1f}%", e.mfu * 100);
  if (r.band.known)
    o << fmt::format(" (80% band {:.1f}% to {:.1f}%)", mfu_band(r).first * 100, mfu_band(r).second * 100);
  o << "\n";
  o << fmt::format("  HFU                  {:.1f}%\n", e.hfu * 100);
  o << "  model FLOPs          " << to_string(scenario::kFlopcastFlopsConvention) << ": "
    << workload::model_flops_convention(s) << "\n";
  o << "\nMemory per GPU (stage " << e.memory.stage << ", " << fmt::format("{:g}", e.memory.in_flight)
    << " micro-batches in flight)\n";
  const auto& m = e.memory;
  const std::pair<const char*, units::Bytes> parts[] = {{"weights", m.weights},
                                                        {"gradients", m.gradients},
                                                        {"optimizer", m.optimizer},
                                                        {"activations", m.activations},
                                                        {"logits", m.logits},
                                                        {"workspace", m.workspace},
                                                        {"fragmentation", m.fragmentation}};
  for (const auto& [name, b] : parts) o << fmt::format("  {:<20} {:>10}\n", name, units::format_gib(b));
  o << fmt::format("  {:<20} {:>10} of {} HBM: {}\n", "total", units::format_gib(m.total()),
                   units::format_gib(m.capacity), r.fits_memory ? "fits" : "DOES NOT FIT");
  // PyTorch's two peaks: what its caching allocator hands out (max_memory_allocated, the tensors)
  // and what the process holds (max_memory_reserved and more, nvidia-smi's figure: the total).
  o << fmt::format("  {:<20} {:>10} (tensors, as torch.cuda.max_memory_allocated; reserved: the total)\n", "allocated",
                   units::format_gib(m.allocated()));
  o << "\nWhere the step time goes\n";
  const auto& b = e.breakdown;
  const std::pair<const char*, units::Time> rows[] = {
      {"compute", b.compute},           {"recompute", b.recompute},       {"TP comm (exposed)", b.tp_comm},
      {"CP comm (exposed)", b.cp_comm}, {"EP comm (exposed)", b.ep_comm}, {"PP comm (exposed)", b.pp_comm},
      {"DP comm (exposed)", b.dp_comm}, {"pipeline bubble", b.bubble},    {"optimizer", b.optimizer},
      {"host overhead", b.overhead}};
  for (const auto& [name, t] : rows)
    o << fmt::format("  {:<20} {:>12} {:>6.1f}%\n", name, units::format_time(t),
                     100.0 * t.seconds() / e.step.seconds());
  if (s.training.tokens > 0) {
    o << fmt::format("\nTraining {} tokens (failure-free)\n", units::format_count(s.training.tokens));
    o << fmt::format("  steps                {:.0f}\n", r.steps);
    o << fmt::format("  time                 {:.1f} days", r.train_seconds / 86400);
    if (r.band.known)
      o << fmt::format(" (80% band {:.1f} to {:.1f} days)", r.train_seconds * r.band.p10 / 86400,
                       r.train_seconds * r.band.p90 / 86400);
    o << "\n";
    o << fmt::format("  GPU-hours            {:.0f}\n", r.gpu_hours);
    o << fmt::format("  node-hours           {:.0f}\n", r.node_hours);
  }
  if (!r.claims.empty()) {
    o << "\nClaims vs simulation\n";
    for (const auto& c : r.claims)
      o << fmt::format("  {:<16} claimed {:<12.4g} simulated {:<12.4g} {}\n", c.figure, c.claimed, c.simulated,
                       c.text());
    if (!s.claimed.note.empty()) o << "  (" << s.claimed.note << ")\n";
  }
  if (!r.fits_memory) {
    o << "\nInfeasible: the plan needs " << units::format_gib(m.total()) << " per GPU, more than the "
      << units::format_gib(m.capacity)
      << " of HBM. Try more ZeRO sharding, recompute, a smaller micro-batch, or more tp/pp.\n";
  }
  // New sections go after the step report, so its lines stay a prefix of the output.
  if (r.run) print_whole_run(r, o);
  if (r.bills) print_bills(r, o);
}

}  // namespace flopcast::app

#include "flopcast/app/report_json.hpp"

#include "flopcast/workload/fine_tuning.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::app {

namespace {

using J = nlohmann::ordered_json;

J money_json(const units::Money& m) {
  return {{"minor", m.minor}, {"currency", m.currency.str()}, {"amount", m.amount_str()}};
}

J whole_run_json(const SimReport& r) {
  const WholeRun& run = *r.run;
  J j;
  if (!run.ok()) {
    j["errors"] = run.errors;
    return j;
  }
  const job::JobResult& x = run.result;
  const double gpus = static_cast<double>(x.gpus);
  j["trials"] = x.trials;
  j["seed"] = x.seed;
  j["reliability"] = run.reliability_defaults ? "defaults" : "scenario";
  j["steps"] = x.steps;
  j["step_time_s"] = x.step_time.seconds();
  j["gpus"] = x.gpus;
  j["failure_free_days"] = x.useful.days();
  j["wall_days"] = {{"p50", x.wall_p50.days()}, {"p90", x.wall_p90.days()}, {"mean", x.wall_mean.days()}};
  j["gpu_span_days"] = {
      {"p50", x.gpu_span_p50.days()}, {"p90", x.gpu_span_p90.days()}, {"mean", x.gpu_span_mean.days()}};
  j["gpu_hours"] = {{"p50", x.gpu_hours_p50}, {"p90", x.gpu_hours_p90}, {"mean", x.gpu_hours_mean}};
  j["goodput"] = x.goodput_mean;
  j["failures_expected"] = x.failures_mean;
  j["failures_per_gpu_hour"] = x.failures_per_gpu_hour;
  j["restart_time_s"] = x.restart_time.seconds();
  j["provisioning_s"] = x.provisioning.seconds();
  j["debug_phase_s"] = x.debug_phase.seconds();
  j["lost_gpu_hours_mean"] = {{"redone_work", x.lost_work_mean.hours() * gpus},
                              {"restarts", x.restart_mean.hours() * gpus},
                              {"checkpoint_stalls", x.checkpoint_stall_mean.hours() * gpus}};
  j["checkpoint"] = {{"size_gb", x.checkpoint_size.gb()},
                     {"async", x.async_checkpoint},
                     {"write_s", x.checkpoint_write.seconds()},
                     {"stall_s", x.checkpoint_stall.seconds()},
                     {"interval_s", x.checkpoint_interval.seconds()},
                     {"steps_per_checkpoint", x.steps_per_checkpoint}};
  const job::CheckpointAdvice& a = x.advice;
  j["young_daly"] = {{"job_mtbf_hours", a.job_mtbf_hours},
                     {"checkpoint_cost_s", a.checkpoint_cost.seconds()},
                     {"young_s", a.young.seconds()},
                     {"daly_s", a.daly.seconds()},
                     {"suggested_s", a.suggested.seconds()},
                     {"scenario_s", a.scenario.seconds()},
                     {"waste_scenario", a.waste_scenario},
                     {"waste_suggested", a.waste_suggested},
                     {"simulated", a.simulated},
                     {"gpu_hours_saved", a.gpu_hours_saved},
                     {"gpu_span_saved_hours", a.span_saved.hours()}};
  // The async write, not Daly's interval, set the suggestion (docs/references.md).
  j["young_daly"]["suggested_bound_by_write"] = a.write_bound;
  const job::EnergyResult& e = x.energy;
  j["energy"] = {{"it_kwh", e.it_kwh},
                 {"facility_kwh", e.facility_kwh},
                 {"pue", e.pue},
                 {"avg_it_power_kw", e.avg_it_power_kw},
                 {"price_per_kwh", run.input.energy.price_per_kwh.amount_str()},
                 {"cost", money_json(e.cost)}};
  j["gpu_span_closed_form_days"] = x.gpu_span_expected_closed_form.days();
  if (run.band_p10 && run.band_p90) {
    // The run at the step-time band's ends, failures at their P50 trial (apart from failures).
    const job::JobResult& lo = *run.band_p10;
    const job::JobResult& hi = *run.band_p90;
    j["model_uncertainty"] = {{"wall_days", {{"p10", lo.wall_p50.days()}, {"p90", hi.wall_p50.days()}}},
                              {"gpu_span_days", {{"p10", lo.gpu_span_p50.days()}, {"p90", hi.gpu_span_p50.days()}}},
                              {"gpu_hours", {{"p10", lo.gpu_hours_p50}, {"p90", hi.gpu_hours_p50}}}};
  }
  j["warnings"] = x.warnings;
  j["errors"] = J::array();
  return j;
}

J bill_json(const pricing::Bill& b) {
  J j;
  j["ok"] = b.ok();
  j["total"] = money_json(b.total);
  j["deposit"] = money_json(b.deposit);
  j["used_gpu_hours"] = b.used_gpu_time.hours();
  j["billed_gpu_hours"] = b.billed_gpu_time.hours();
  J items = J::array();
  for (const auto& i : b.items)
    items.push_back({{"label", i.label},
                     {"quantity", i.quantity},
                     {"unit_price", i.unit_price},
                     {"amount", money_json(i.amount)},
                     {"in_total", i.in_total},
                     {"note", i.note}});
  j["items"] = items;
  j["notes"] = b.notes;
  j["errors"] = b.errors;
  return j;
}

J bills_json(const SimReport& r) {
  const RunBills& b = *r.bills;
  const pricing::PlanComparison& c = b.comparison;
  J j;
  j["catalog"] = {{"name", b.catalog->name},
                  {"provider", b.catalog->provider},
                  {"date", b.catalog->date},
                  {"source", b.catalog->source}};
  j["gpu_names"] = b.gpu_names;
  j["currency"] = c.currency.str();
  j["cheapest"] = c.cheapest ? c.rows[*c.cheapest].option.id : std::string();  // "" when no plan applies
  // The provider's own cheapest plan (competitors' prices left out): what a quote recommends.
  j["cheapest_offered"] = c.cheapest_offered ? c.rows[*c.cheapest_offered].option.id : std::string();
  J rows = J::array();
  for (const auto& row : c.rows)
    rows.push_back({{"id", row.option.id},
                    {"label", row.option.label},
                    {"cheapest", row.cheapest},
                    {"competitor", row.option.plan && row.option.plan->competitor},
                    {"p50", bill_json(row.p50)},
                    {"p90", bill_json(row.p90)}});
  j["plans"] = rows;
  if (b.model_uncertainty) {
    // Each plan's total at the step-time band's P10 and P90 (failures at their P50 trial).
    J mu = J::array();
    for (const auto& row : b.model_uncertainty->rows)
      mu.push_back({{"id", row.option.id},
                    {"p10", row.p50.ok() ? money_json(row.p50.total) : J()},
                    {"p90", row.p90.ok() ? money_json(row.p90.total) : J()}});
    j["model_uncertainty"] = mu;
  }
  j["notes"] = c.notes;
  j["errors"] = c.errors;
  return j;
}

}  // namespace

nlohmann::ordered_json to_json(const SimReport& r) {
  const auto& s = *r.scenario;
  const auto& e = r.est;
  const auto pc = workload::parameter_count(s.model);
  const double gpus = static_cast<double>(s.cluster.gpus);
  J j;
  j["scenario"] = s.name;
  j["model"] = {{"name", s.model.display},      {"params", pc.total},        {"active_params", pc.active},
                {"layers", s.model.layers},     {"hidden", s.model.hidden},  {"heads", s.model.heads},
                {"kv_heads", s.model.kv_heads}, {"seq_len", s.model.seq_len}};
  j["cluster"] = {{"gpu", s.cluster.gpu.name},
                  {"gpus", s.cluster.gpus},
                  {"gpus_per_node", s.cluster.gpus_per_node},
                  {"nodes", s.cluster.nodes()},
                  {"fabric", s.cluster.fabric.name}};
  const auto& p = s.plan;
  j["parallel"] = {{"tp", p.tp},
                   {"pp", p.pp},
                   {"dp", p.dp},
                   {"cp", p.cp},
                   {"ep", p.ep},
                   {"vpp", p.vpp},
                   {"sequence_parallel", p.sequence_parallel},
                   {"zero", p.zero},
                   {"micro_batch", p.micro_batch},
                   {"global_batch", p.global_batch},
                   {"microbatches", p.microbatches()},
                   {"recompute", to_string(p.recompute)},
                   {"schedule", to_string(p.schedule)}};
  j["precision"] = to_string(s.precision);
  j["profile"] = r.profile_name;
  j["coefficients"] = r.coefficients_basis;
  {
    const auto [lo, hi] = step_band(r);
    const auto [mfu_lo, mfu_hi] = mfu_band(r);
    J band = {{"known", r.band.known},
              {"basis", r.band.basis},
              {"p10_factor", r.band.p10},
              {"p50_factor", r.band.p50},
              {"p90_factor", r.band.p90}};
    if (r.band.known) {
      band["step_time_s"] = {{"p10", lo.seconds()}, {"p90", hi.seconds()}};
      band["mfu"] = {{"p10", mfu_lo}, {"p90", mfu_hi}};
      if (s.training.tokens > 0)
        band["training_days"] = {{"p10", r.train_seconds * r.band.p10 / 86400},
                                 {"p90", r.train_seconds * r.band.p90 / 86400}};
    }
    j["prediction_band"] = band;
  }
  j["defaults_applied"] = s.defaults_applied;
  j["step"] = {{"time_s", e.step.seconds()},
               {"tokens_per_s", e.tokens_per_s},
               {"tokens_per_gpu_s", e.tokens_per_s / gpus},
               {"model_tflops_per_gpu", e.model_flops.value / e.step.seconds() / gpus / 1e12},
               {"mfu", e.mfu},
               {"hfu", e.hfu},
               {"model_flops", e.model_flops.value},
               {"hardware_flops", e.hardware_flops.value},
               {"engine", r.sim ? "simulation" : "estimate"},
               {"estimate_time_s", r.closed_form_step.seconds()}};
  j["step"]["flops_convention"] = to_string(scenario::kFlopcastFlopsConvention);
  j["step"]["model_flops_convention"] = workload::model_flops_convention(s);
  if (workload::is_fine_tuning(s)) {
    const auto& l = s.training.lora;
    J targets = J::array();
    for (const auto t : l.targets) targets.push_back(to_string(t));
    j["training"] = {{"method", to_string(s.training.method)},
                     {"rank", l.rank},
                     {"targets", targets},
                     {"base_weights", to_string(l.base_weights)},
                     {"dropout", l.dropout},
                     {"trainable_params", workload::trainable_params(s)}};
  }
  if (r.sim) {
    J st = J::array();
    for (const auto& u : r.sim->stages)
      st.push_back({{"stage", u.stage},
                    {"compute_busy_s", u.compute_busy.seconds()},
                    {"comm_busy_s", u.comm_busy.seconds()},
                    {"compute_utilisation", u.compute_utilisation}});
    j["stages"] = st;
    j["critical_stage"] = r.sim->critical_stage;
  }
  const auto& m = e.memory;
  j["memory_per_gpu_gib"] = {{"stage", m.stage},
                             {"in_flight_microbatches", m.in_flight},
                             {"weights", m.weights.gib()},
                             {"gradients", m.gradients.gib()},
                             {"optimizer", m.optimizer.gib()},
                             {"activations", m.activations.gib()},
                             {"logits", m.logits.gib()},
                             {"workspace", m.workspace.gib()},
                             {"fragmentation", m.fragmentation.gib()},
                             {"total", m.total().gib()},
                             {"allocated", m.allocated().gib()},
                             {"reserved", m.reserved().gib()},
                             {"capacity", m.capacity.gib()},
                             {"fits", r.fits_memory}};
  const auto& b = e.breakdown;
  j["breakdown_s"] = {{"compute", b.compute.seconds()},     {"recompute", b.recompute.seconds()},
                      {"tp_comm", b.tp_comm.seconds()},     {"cp_comm", b.cp_comm.seconds()},
                      {"ep_comm", b.ep_comm.seconds()},     {"pp_comm", b.pp_comm.seconds()},
                      {"dp_comm", b.dp_comm.seconds()},     {"bubble", b.bubble.seconds()},
                      {"optimizer", b.optimizer.seconds()}, {"overhead", b.overhead.seconds()}};
  if (s.training.tokens > 0) {
    j["training"] = {{"tokens", s.training.tokens},
                     {"steps", r.steps},
                     {"days", r.train_seconds / 86400},
                     {"gpu_hours", r.gpu_hours},
                     {"node_hours", r.node_hours}};
  }
  if (!r.claims.empty()) {
    J claims = J::array();
    for (const auto& c : r.claims)
      claims.push_back(
          {{"figure", c.figure}, {"claimed", c.claimed}, {"simulated", c.simulated}, {"verdict", c.text()}});
    j["claims"] = claims;
  }
  j["feasible"] = r.fits_memory;
  if (r.run) j["whole_run"] = whole_run_json(r);
  if (r.bills) j["bills"] = bills_json(r);
  return j;
}

}  // namespace flopcast::app

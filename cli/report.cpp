#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ostream>

#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/job/job_simulation.hpp"
#include "flopcast/job/job_size.hpp"
#include "flopcast/job/scenario_job.hpp"
#include "flopcast/pricing/bill.hpp"
#include "flopcast/step/step_simulation.hpp"
#include "flopcast/units/assert.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::cli {

namespace {

ClaimCheck check(const std::string& figure, double claimed, double simulated, bool higher_is_better,
                 const std::string& impossible) {
  ClaimCheck c{figure, claimed, simulated, ""};
  if (!impossible.empty()) {
    c.verdict = "impossible: " + impossible;
    return c;
  }
  if (simulated <= 0) {
    c.verdict = "not checkable";
    return c;
  }
  // ratio > 1 means the claim is better than what the simulation supports.
  const double ratio = higher_is_better ? claimed / simulated : simulated / claimed;
  if (ratio > 1.10)
    c.verdict = "optimistic by " + format_percent(ratio - 1, 0);
  else if (ratio < 0.90)
    c.verdict = "conservative by " + format_percent(1 - ratio, 0);
  else
    c.verdict = "consistent (within 10%)";
  return c;
}

}  // namespace

SimReport make_report(const Scenario& s, const ComputeProfile& profile, StepEngine engine) {
  SimReport r;
  r.scenario = &s;
  r.profile_name = profile.name;
  if (engine == StepEngine::Simulation) {
    r.sim = simulate_step(s, profile);
    r.est = r.sim->as_estimate();
    r.closed_form_step = r.sim->estimate.step;
  } else {
    r.est = estimate_step(s, profile);
    r.closed_form_step = r.est.step;
  }
  r.fits_memory = r.est.memory.fits();
  const double tokens_per_step = static_cast<double>(s.plan.global_batch) * static_cast<double>(s.model.seq_len);
  if (s.training.tokens > 0 && r.est.step.ns > 0) {
    r.steps = std::ceil(s.training.tokens / tokens_per_step);
    r.train_seconds = r.steps * r.est.step.seconds();
    r.gpu_hours = r.train_seconds / 3600 * static_cast<double>(s.cluster.gpus);
    r.node_hours = r.train_seconds / 3600 * static_cast<double>(s.cluster.nodes());
  }
  const std::string no_fit = r.fits_memory
                                 ? ""
                                 : "the plan needs " + format_gib(r.est.memory.total()) + " per GPU but the " +
                                       s.cluster.gpu.name + " has " + format_gib(r.est.memory.capacity);
  const double peak = s.cluster.gpu.peak(s.precision) ? s.cluster.gpu.peak(s.precision)->flops_per_s : 0;
  const double flops_per_token = r.est.model_flops.value / tokens_per_step;
  for (const auto& [fig, claimed] : s.claimed.figures) {
    if (fig == "mfu") {
      std::string imp = claimed > 1 ? "MFU above 100%" : no_fit;
      r.claims.push_back(check(fig, claimed, r.est.mfu, true, imp));
    } else if (fig == "days") {
      std::string imp = no_fit;
      if (imp.empty() && s.training.tokens > 0 && peak > 0) {
        const double needed_mfu =
            s.training.tokens * flops_per_token / (claimed * 86400 * static_cast<double>(s.cluster.gpus) * peak);
        if (needed_mfu > 1)
          imp = fmt::format("{:.3g} tokens in {:g} days on {} GPUs needs {:.0f}% MFU", s.training.tokens, claimed,
                            s.cluster.gpus, needed_mfu * 100);
      }
      r.claims.push_back(check(fig, claimed, r.train_seconds / 86400, false, imp));
    } else if (fig == "tokens_per_day") {
      std::string imp = no_fit;
      if (imp.empty() && peak > 0) {
        const double needed_mfu = claimed / 86400 * flops_per_token / (static_cast<double>(s.cluster.gpus) * peak);
        if (needed_mfu > 1)
          imp = fmt::format("{} tokens/day on {} GPUs needs {:.0f}% MFU", format_count(claimed), s.cluster.gpus,
                            needed_mfu * 100);
      }
      r.claims.push_back(check(fig, claimed, r.est.tokens_per_s * 86400, true, imp));
    } else if (fig == "memory_gb") {
      // Claimed memory is checked as "needs no more than": a lower claim is the optimistic one.
      const double sim_gb = r.est.memory.total().value / 1e9;
      r.claims.push_back(check(fig, claimed, sim_gb, false, ""));
    } else if (fig == "bubble_fraction") {
      const double sim = r.est.step.ns > 0 ? r.est.breakdown.bubble.seconds() / r.est.step.seconds() : 0;
      const double p = s.plan.pp;
      const double m_needed = p > 1 && claimed > 0 ? (p - 1) * (1 - claimed) / claimed : 0;
      ClaimCheck c = check(fig, claimed, sim, false, "");
      if (c.verdict.rfind("optimistic", 0) == 0)
        c.verdict +=
            fmt::format(" ((p-1)/(m+p-1) = {:g} with p = {:g} needs m >= {:.0f} micro-batches; the plan has {})",
                        claimed, p, std::ceil(m_needed), s.plan.microbatches());
      r.claims.push_back(c);
    } else if (fig == "step_time_s") {
      r.claims.push_back(check(fig, claimed, r.est.step.seconds(), false, no_fit));
    } else if (fig == "tflops_per_gpu") {
      const double sim = r.est.model_flops.value / r.est.step.seconds() / static_cast<double>(s.cluster.gpus) / 1e12;
      std::string imp = claimed * 1e12 > peak && peak > 0
                            ? fmt::format("above the dense peak of {:.0f} TFLOP/s", peak / 1e12)
                            : no_fit;
      r.claims.push_back(check(fig, claimed, sim, true, imp));
    } else if (fig == "gpu_hours") {
      r.claims.push_back(check(fig, claimed, r.gpu_hours, false, no_fit));
    }
  }
  return r;
}

JobInput job_input_of(const Scenario& s, const SimReport& r, const EnergySpec& energy) {
  return job_input_for(s, r.est.step, static_cast<std::int64_t>(r.steps), energy);
}

bool add_whole_run(SimReport& r, const std::string& data_dir, Diagnostics& diags) {
  const Scenario& s = *r.scenario;
  if (s.training.tokens <= 0 || r.steps <= 0) return true;
  std::shared_ptr<const PriceCatalog> catalog;
  if (s.has_pricing) {
    Diagnostics pd;
    auto loaded = io::load_price_catalog(s.pricing.catalog, data_dir, pd);
    for (auto d : pd.items()) {
      // "not found" has no line in the catalog: point at the scenario key that names it.
      if (d.where.line == 0) d.where = locate(s.locations, "pricing.catalog");
      diags.add(d);
    }
    if (!loaded) return false;
    catalog = std::make_shared<const PriceCatalog>(std::move(*loaded));
  }
  WholeRun run;
  run.reliability_defaults = !s.has_reliability;
  run.input = job_input_of(s, r, catalog ? energy_spec(*catalog, s.pricing) : EnergySpec{});
  if (const std::string why = job_too_big_to_simulate(run.input); !why.empty()) {
    run.errors.push_back(why);
  } else {
    JobOutcome outcome = simulate_job(run.input);
    run.errors = std::move(outcome.errors);
    run.result = std::move(outcome.result);
  }
  if (run.ok() && catalog) {
    const JobResult& job = run.result;
    RunBills bills;
    bills.catalog = catalog;
    bills.gpu_names.push_back(s.cluster.gpu.name);
    bills.gpu_names.insert(bills.gpu_names.end(), s.cluster.gpu.aliases.begin(), s.cluster.gpu.aliases.end());
    const CompareOptions opt = compare_options(s.pricing);
    const int kept = s.pricing.checkpoints_kept;
    bills.comparison = compare_plans(*catalog, bills.gpu_names, usage_of_trial(job, job.p50_trial, kept),
                                     usage_of_trial(job, job.p90_trial, kept), opt);
    r.bills = std::move(bills);
  }
  // The per-trial records are not printed; the bills above were their last user.
  run.result.samples.clear();
  run.result.samples.shrink_to_fit();
  r.run = std::move(run);
  return true;
}

namespace {

/// "TP2 PP1 DP32 +SP, ZeRO-1, micro-batch 1, global batch 512, recompute selective, 1f1b" for the quote.
std::string plan_summary(const ParallelPlan& p) {
  std::string out = fmt::format("TP{} PP{} DP{}", p.tp, p.pp, p.dp);
  if (p.cp > 1) out += fmt::format(" CP{}", p.cp);
  if (p.ep > 1) out += fmt::format(" EP{}", p.ep);
  if (p.vpp > 1) out += fmt::format(" VPP{}", p.vpp);
  if (p.sequence_parallel) out += " +SP";
  out += fmt::format(", ZeRO-{}, micro-batch {}, global batch {}, recompute {}, {}", p.zero, p.micro_batch,
                     p.global_batch, to_string(p.recompute), to_string(p.schedule));
  return out;
}

}  // namespace

QuoteInput quote_input_of(const SimReport& r) {
  FLOPCAST_ASSERT(r.run && r.run->ok() && r.bills, "quote_input_of needs a simulated run and bills");
  const Scenario& s = *r.scenario;
  QuoteInput in;
  QuoteJob& j = in.job;
  j.model_name = s.model.display;
  j.params = parameter_count(s.model).total;
  j.tokens = s.training.tokens;
  j.gpu_name = s.cluster.gpu.name;
  j.gpus = s.cluster.gpus;
  j.gpus_per_node = s.cluster.gpus_per_node;
  j.parallel_plan = plan_summary(s.plan) + ", " + to_string(s.precision);
  j.step_time = r.est.step;
  j.mfu = r.est.mfu;
  in.run = r.run->result;
  in.plans = r.bills->comparison;
  in.catalog = QuoteCatalog::of(*r.bills->catalog);
  in.extra_assumptions.push_back("Step time from flopcast's step model with calibration profile '" + r.profile_name +
                                 "'.");
  if (r.run->reliability_defaults)
    in.extra_assumptions.push_back("Reliability: flopcast's defaults (the scenario gives no reliability block).");
  for (const auto& c : r.claims)
    in.claims.push_back(
        fmt::format("{}: claimed {:.4g}, simulated {:.4g}: {}", c.figure, c.claimed, c.simulated, c.verdict));
  return in;
}

namespace {

void print_whole_run(const SimReport& r, std::ostream& o) {
  const WholeRun& run = *r.run;
  if (!run.ok()) {
    o << "\nWhole run: not simulated\n";
    for (const auto& e : run.errors) o << "  " << e << "\n";
    return;
  }
  const JobResult& j = run.result;
  const double gpus = static_cast<double>(j.gpus);
  o << fmt::format("\nWhole run (Monte Carlo: {} trials, seed {}; reliability: {})\n", j.trials, j.seed,
                   run.reliability_defaults ? "defaults" : "scenario");
  if (!r.fits_memory) o << "  (the plan does not fit memory: these figures assume it would)\n";
  o << fmt::format("  wall time            P50 {:.1f} days, P90 {:.1f} days", j.wall_p50.days(), j.wall_p90.days());
  if (j.provisioning.ns > 0 || j.debug_phase.ns > 0)
    o << fmt::format(" (provisioning {}, CPU debug {})", format_duration(j.provisioning),
                     format_duration(j.debug_phase));
  o << "\n";
  o << fmt::format("  paid GPU time        P50 {:.1f} days, P90 {:.1f} days (failure-free {:.1f} days)\n",
                   j.gpu_span_p50.days(), j.gpu_span_p90.days(), j.useful.days());
  o << fmt::format("  GPU-hours            P50 {:.0f}, P90 {:.0f}\n", j.gpu_hours_p50, j.gpu_hours_p90);
  o << fmt::format("  goodput              {:.1f}% (useful training / paid GPU time)\n", j.goodput_mean * 100);
  o << fmt::format("  failures expected    {:.1f} ({:.3g} per GPU-hour", j.failures_mean, j.failures_per_gpu_hour);
  if (j.advice.job_mtbf_hours > 0) o << fmt::format(", job MTBF {:.1f} h", j.advice.job_mtbf_hours);
  o << fmt::format("), restart {} each\n", format_duration(j.restart_time));
  // GPU-hours: one decimal while small, whole hours once they are in the hundreds.
  const auto gpu_h = [&](Time t) {
    const double h = t.hours() * gpus;
    return h >= 100 ? fmt::format("{:.0f}", h) : fmt::format("{:.1f}", h);
  };
  o << fmt::format("  time lost (mean)     {} GPU-hours redone, {} restarting, {} in checkpoint stalls\n",
                   gpu_h(j.lost_work_mean), gpu_h(j.restart_mean), gpu_h(j.checkpoint_stall_mean));
  const double bpp = run.input.params > 0 ? j.checkpoint_size.value / run.input.params : 0;
  o << fmt::format("  checkpoint           {:.1f} GB ({:g} B/param), {}, write {}, stall {}, every {} ({} steps)\n",
                   j.checkpoint_size.gb(), bpp, j.async_checkpoint ? "async" : "sync",
                   format_duration(j.checkpoint_write), format_time(j.checkpoint_stall),
                   format_duration(j.checkpoint_interval), j.steps_per_checkpoint);
  const CheckpointAdvice& a = j.advice;
  if (a.job_mtbf_hours <= 0) {
    o << "  Young/Daly           no failures: no optimal interval\n";
  } else {
    o << fmt::format("  Young/Daly           Young {}, Daly {}: suggests every {} (waste {:.2f}% -> {:.2f}%)\n",
                     format_duration(a.young), format_duration(a.daly), format_duration(a.suggested),
                     a.waste_scenario * 100, a.waste_suggested * 100);
    if (a.simulated)
      o << fmt::format("                       saves {:.0f} GPU-hours and {} of GPU time (mean) against every {}\n",
                       a.gpu_hours_saved, format_duration(a.span_saved), format_duration(a.scenario));
    else
      o << "                       the scenario already checkpoints at the suggested interval\n";
  }
  const EnergyResult& e = j.energy;
  o << fmt::format(
      "  energy               {:.0f} kWh ({:.0f} kWh IT x PUE {:.2f}; {:.0f} kW average IT), {} at {}/kWh\n",
      e.facility_kwh, e.it_kwh, e.pue, e.avg_it_power_kw, e.cost.str(), run.input.energy.price_per_kwh.str());
  for (const auto& w : j.warnings) o << "  warning: " << w << "\n";
}

std::string total_or_na(const Bill& b) { return b.ok() ? b.total.amount_str() : std::string("n/a"); }

void print_bills(const SimReport& r, std::ostream& o) {
  const RunBills& b = *r.bills;
  const PriceCatalog& cat = *b.catalog;
  const PlanComparison& c = b.comparison;
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
      const ComparisonRow& best = c.rows[*c.cheapest];
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
    if (c.cheapest_offered && c.cheapest_offered != c.cheapest) {
      const ComparisonRow& own = c.rows[*c.cheapest_offered];
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
  const auto pc = parameter_count(s.model);
  if (!s.name.empty()) o << s.name << "\n\n";
  o << fmt::format("Model       {} ({} params, {} layers, hidden {}, heads {}/{} kv, seq {})\n", s.model.display,
                   format_count(pc.total), s.model.layers, s.model.hidden, s.model.heads, s.model.kv_heads,
                   s.model.seq_len);
  if (s.model.moe) o << fmt::format("            MoE: {} active params per token\n", format_count(pc.active));
  o << fmt::format("Cluster     {} x {} ({} nodes of {}), {}: {} x {:g} Gb/s {}\n", s.cluster.gpus, s.cluster.gpu.name,
                   s.cluster.nodes(), s.cluster.gpus_per_node, s.cluster.fabric.name, s.cluster.fabric.nics_per_node,
                   s.cluster.fabric.nic_gbps, to_string(s.cluster.fabric.kind));
  o << fmt::format(
      "Plan        tp {} pp {} dp {} cp {} ep {} vpp {}{}, ZeRO-{}, micro-batch {}, global batch {} ({} micro-batches), "
      "recompute {}, {}, {}\n",
      p.tp, p.pp, p.dp, p.cp, p.ep, p.vpp, p.sequence_parallel ? " +SP" : "", p.zero, p.micro_batch, p.global_batch,
      p.microbatches(), to_string(p.recompute), to_string(p.schedule), to_string(s.precision));
  o << fmt::format("Profile     {}\n", r.profile_name);
  if (!s.defaults_applied.empty()) {
    o << "Defaults    ";
    for (std::size_t i = 0; i < s.defaults_applied.size(); ++i) o << (i ? "; " : "") << s.defaults_applied[i];
    o << "\n";
  }
  o << "\nStep\n";
  const double gpus = static_cast<double>(s.cluster.gpus);
  o << fmt::format("  step time            {}\n", format_time(e.step));
  if (r.sim)
    o << fmt::format("  engine               discrete-event simulation (closed-form estimate {})\n",
                     format_time(r.closed_form_step));
  else
    o << "  engine               closed-form estimate\n";
  o << fmt::format("  tokens/s             {:.0f} total, {:.1f} per GPU\n", e.tokens_per_s, e.tokens_per_s / gpus);
  o << fmt::format("  model TFLOP/s/GPU    {:.1f}\n", e.model_flops.value / e.step.seconds() / gpus / 1e12);
  o << fmt::format("  MFU                  {:.1f}%\n", e.mfu * 100);
  o << fmt::format("  HFU                  {:.1f}%\n", e.hfu * 100);
  o << "\nMemory per GPU (stage " << e.memory.stage << ", " << fmt::format("{:g}", e.memory.in_flight)
    << " micro-batches in flight)\n";
  const auto& m = e.memory;
  const std::pair<const char*, Bytes> parts[] = {{"weights", m.weights},
                                                 {"gradients", m.gradients},
                                                 {"optimizer", m.optimizer},
                                                 {"activations", m.activations},
                                                 {"logits", m.logits},
                                                 {"workspace", m.workspace},
                                                 {"fragmentation", m.fragmentation}};
  for (const auto& [name, b] : parts) o << fmt::format("  {:<20} {:>10}\n", name, format_gib(b));
  o << fmt::format("  {:<20} {:>10} of {} HBM: {}\n", "total", format_gib(m.total()), format_gib(m.capacity),
                   r.fits_memory ? "fits" : "DOES NOT FIT");
  o << "\nWhere the step time goes\n";
  const auto& b = e.breakdown;
  const std::pair<const char*, Time> rows[] = {{"compute", b.compute},           {"recompute", b.recompute},
                                               {"TP comm (exposed)", b.tp_comm}, {"CP comm (exposed)", b.cp_comm},
                                               {"EP comm (exposed)", b.ep_comm}, {"PP comm (exposed)", b.pp_comm},
                                               {"DP comm (exposed)", b.dp_comm}, {"pipeline bubble", b.bubble},
                                               {"optimizer", b.optimizer},       {"host overhead", b.overhead}};
  for (const auto& [name, t] : rows)
    o << fmt::format("  {:<20} {:>12} {:>6.1f}%\n", name, format_time(t), 100.0 * t.seconds() / e.step.seconds());
  if (s.training.tokens > 0) {
    o << fmt::format("\nTraining {} tokens (failure-free)\n", format_count(s.training.tokens));
    o << fmt::format("  steps                {:.0f}\n", r.steps);
    o << fmt::format("  time                 {:.1f} days\n", r.train_seconds / 86400);
    o << fmt::format("  GPU-hours            {:.0f}\n", r.gpu_hours);
    o << fmt::format("  node-hours           {:.0f}\n", r.node_hours);
  }
  if (!r.claims.empty()) {
    o << "\nClaims vs simulation\n";
    for (const auto& c : r.claims)
      o << fmt::format("  {:<16} claimed {:<12.4g} simulated {:<12.4g} {}\n", c.figure, c.claimed, c.simulated,
                       c.verdict);
    if (!s.claimed.note.empty()) o << "  (" << s.claimed.note << ")\n";
  }
  if (!r.fits_memory) {
    o << "\nInfeasible: the plan needs " << format_gib(m.total()) << " per GPU, more than the "
      << format_gib(m.capacity)
      << " of HBM. Try more ZeRO sharding, recompute, a smaller micro-batch, or more tp/pp.\n";
  }
  // New sections go after the step report, so its lines stay a prefix of the output.
  if (r.run) print_whole_run(r, o);
  if (r.bills) print_bills(r, o);
}

namespace {

using J = nlohmann::ordered_json;

J money_json(const Money& m) {
  return {{"minor", m.minor}, {"currency", m.currency.str()}, {"amount", m.amount_str()}};
}

J whole_run_json(const SimReport& r) {
  const WholeRun& run = *r.run;
  J j;
  if (!run.ok()) {
    j["errors"] = run.errors;
    return j;
  }
  const JobResult& x = run.result;
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
  const CheckpointAdvice& a = x.advice;
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
  const EnergyResult& e = x.energy;
  j["energy"] = {{"it_kwh", e.it_kwh},
                 {"facility_kwh", e.facility_kwh},
                 {"pue", e.pue},
                 {"avg_it_power_kw", e.avg_it_power_kw},
                 {"price_per_kwh", run.input.energy.price_per_kwh.amount_str()},
                 {"cost", money_json(e.cost)}};
  j["gpu_span_closed_form_days"] = x.gpu_span_expected_closed_form.days();
  j["warnings"] = x.warnings;
  j["errors"] = J::array();
  return j;
}

J bill_json(const Bill& b) {
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
  const PlanComparison& c = b.comparison;
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
  j["notes"] = c.notes;
  j["errors"] = c.errors;
  return j;
}

}  // namespace

nlohmann::ordered_json to_json(const SimReport& r) {
  using J = nlohmann::ordered_json;
  const auto& s = *r.scenario;
  const auto& e = r.est;
  const auto pc = parameter_count(s.model);
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
          {{"figure", c.figure}, {"claimed", c.claimed}, {"simulated", c.simulated}, {"verdict", c.verdict}});
    j["claims"] = claims;
  }
  j["feasible"] = r.fits_memory;
  if (r.run) j["whole_run"] = whole_run_json(r);
  if (r.bills) j["bills"] = bills_json(r);
  return j;
}

}  // namespace flopcast::cli

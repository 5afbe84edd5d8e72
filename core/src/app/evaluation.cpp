#include "flopcast/app/evaluation.hpp"

#include <fmt/format.h>

#include <cmath>

#include "flopcast/app/scenario_session.hpp"
#include "flopcast/job/job_simulation.hpp"
#include "flopcast/job/job_size.hpp"
#include "flopcast/job/scenario_job.hpp"
#include "flopcast/parallel/plan_text.hpp"
#include "flopcast/pricing/bill.hpp"
#include "flopcast/step/step_simulation.hpp"
#include "flopcast/units/assert.hpp"
#include "flopcast/units/format.hpp"
#include "flopcast/workload/fine_tuning.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::app {

namespace {

/// A claimed figure against the simulated one: claims::compare, the one tolerance and set of
/// verdict words. `impossible` (why no run can reach the claim) overrides the comparison.
ClaimCheck check(const std::string& figure, double claimed, double simulated, bool higher_is_better,
                 const std::string& impossible) {
  ClaimCheck c{figure, claimed, simulated, {}};
  if (!impossible.empty()) {
    c.verdict.kind = claims::VerdictKind::Impossible;
    c.verdict.reason = impossible;
    return c;
  }
  if (simulated <= 0) {
    c.verdict.kind = claims::VerdictKind::CannotJudge;
    c.verdict.reason = "the simulation gives no " + figure + " to compare with";
    return c;
  }
  c.verdict = claims::compare(claimed, simulated, higher_is_better ? claims::Better::Higher : claims::Better::Lower);
  if (c.verdict.kind == claims::VerdictKind::Impossible && c.verdict.reason.empty())
    c.verdict.reason = fmt::format("no run reaches {:g}", claimed);
  return c;
}

std::string coefficients_basis(const compute::ComputeProfile& p, hardware::GpuArch a) {
  const int n = p.fitted_runs[static_cast<std::size_t>(a)];
  if (n < 0)
    return fmt::format("{} coefficients: not recorded (the profile does not say how they were obtained)", to_string(a));
  if (n == 0 && p.coefficients_of(a) != a)
    return fmt::format("{} coefficients: {} ({}'s coefficients)", to_string(a), compute::kPriorOnlyWords,
                       to_string(p.coefficients_of(a)));
  if (n == 0) return fmt::format("{} coefficients: {}", to_string(a), compute::kPriorOnlyWords);
  return fmt::format("{} coefficients fitted on {} measured run{}", to_string(a), n, n == 1 ? "" : "s");
}

/// The run's Monte Carlo again with the step time scaled by `factor` (same seed).
std::optional<job::JobResult> run_at(const WholeRun& run, double factor) {
  job::JobInput in = run.input;
  in.step_time = units::Time::from_seconds(in.step_time.seconds() * factor);
  if (!job::job_too_big_to_simulate(in).empty()) return std::nullopt;
  job::JobOutcome outcome = job::simulate_job(in);
  if (!outcome.ok()) return std::nullopt;
  return std::move(outcome.result);
}

void drop_samples(job::JobResult& j) {
  j.samples.clear();
  j.samples.shrink_to_fit();
}

}  // namespace

std::pair<units::Time, units::Time> step_band(const SimReport& r) {
  const double t = r.est.step.seconds();
  return {units::Time::from_seconds(t * r.band.p10), units::Time::from_seconds(t * r.band.p90)};
}

std::pair<double, double> mfu_band(const SimReport& r) { return {r.est.mfu / r.band.p90, r.est.mfu / r.band.p10}; }

SimReport make_report(const scenario::Scenario& s, const compute::ComputeProfile& profile, StepEngine engine) {
  SimReport r;
  r.scenario = &s;
  r.profile_name = profile.name;
  r.band = compute::band_of(profile.bands, s);
  r.coefficients_basis = coefficients_basis(profile, s.cluster.gpu.arch);
  if (engine == StepEngine::Simulation) {
    r.sim = step::simulate_step(s, profile);
    r.est = r.sim->as_estimate();
    r.closed_form_step = r.sim->estimate.step;
  } else {
    r.est = estimate::estimate_step(s, profile);
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
                                 : "the plan needs " + units::format_gib(r.est.memory.total()) + " per GPU but the " +
                                       s.cluster.gpu.name + " has " + units::format_gib(r.est.memory.capacity);
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
          imp = fmt::format("{} tokens/day on {} GPUs needs {:.0f}% MFU", units::format_count(claimed), s.cluster.gpus,
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
      if (c.verdict.kind == claims::VerdictKind::Optimistic)
        c.verdict.notes.push_back(
            fmt::format("(p-1)/(m+p-1) = {:g} with p = {:g} needs m >= {:.0f} micro-batches; the plan has {}", claimed,
                        p, std::ceil(m_needed), s.plan.microbatches()));
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

job::JobInput job_input_of(const scenario::Scenario& s, const SimReport& r, const job::EnergySpec& energy) {
  return job::job_input_for(s, r.est.step, static_cast<std::int64_t>(r.steps), energy);
}

WholeRun simulate_whole_run(const SimReport& r, const pricing::PriceCatalog* catalog) {
  const scenario::Scenario& s = *r.scenario;
  WholeRun run;
  run.reliability_defaults = !s.has_reliability;
  run.input = job_input_of(s, r, catalog ? pricing::energy_spec(*catalog, s.pricing) : job::EnergySpec{});
  // As the planner's run under a spot plan (search/plan_choice.cpp).
  if (const pricing::Plan* spot = !r.spot_plan.empty() && catalog ? catalog->find_plan(r.spot_plan) : nullptr)
    spot->add_interruptions(run.input);
  if (const std::string why = job::job_too_big_to_simulate(run.input); !why.empty()) {
    run.errors.push_back(why);
  } else {
    job::JobOutcome outcome = job::simulate_job(run.input);
    run.errors = std::move(outcome.errors);
    run.result = std::move(outcome.result);
  }
  return run;
}

RunBills bill_whole_run(const scenario::Scenario& s, const WholeRun& run,
                        std::shared_ptr<const pricing::PriceCatalog> catalog) {
  FLOPCAST_ASSERT(run.ok() && catalog, "bill_whole_run needs a simulated run and a price catalog");
  const job::JobResult& job = run.result;
  RunBills bills;
  bills.catalog = std::move(catalog);
  bills.gpu_names.push_back(s.cluster.gpu.name);
  bills.gpu_names.insert(bills.gpu_names.end(), s.cluster.gpu.aliases.begin(), s.cluster.gpu.aliases.end());
  const int kept = s.pricing.checkpoints_kept;
  bills.comparison =
      pricing::compare_plans(*bills.catalog, bills.gpu_names, pricing::usage_of_trial(job, job.p50_trial, kept),
                             pricing::usage_of_trial(job, job.p90_trial, kept), pricing::compare_options(s.pricing));
  return bills;
}

void add_band_runs(const SimReport& r, WholeRun& run) {
  if (!run.ok() || !r.band.known) return;
  run.band_p10 = run_at(run, r.band.p10);
  run.band_p90 = run_at(run, r.band.p90);
  if (!run.band_p10 || !run.band_p90) run.band_p10.reset(), run.band_p90.reset();
}

std::optional<BandedRun> banded_run(const SimReport& r, double factor) {
  if (!r.run || !r.run->ok() || !r.bills) return std::nullopt;
  std::optional<job::JobResult> job = run_at(*r.run, factor);
  if (!job) return std::nullopt;
  const int kept = r.scenario->pricing.checkpoints_kept;
  BandedRun out;
  out.bills = pricing::compare_plans(
      *r.bills->catalog, r.bills->gpu_names, pricing::usage_of_trial(*job, job->p50_trial, kept),
      pricing::usage_of_trial(*job, job->p90_trial, kept), pricing::compare_options(r.scenario->pricing));
  drop_samples(*job);
  out.result = std::move(*job);
  return out;
}

void add_whole_run(SimReport& r, std::shared_ptr<const pricing::PriceCatalog> catalog, TrialSamples samples) {
  const scenario::Scenario& s = *r.scenario;
  if (s.training.tokens <= 0 || r.steps <= 0) return;
  r.bills.reset();
  WholeRun run = simulate_whole_run(r, catalog.get());
  add_band_runs(r, run);
  if (run.ok() && catalog) {
    r.bills = bill_whole_run(s, run, catalog);
    if (run.band_p10 && run.band_p90) {
      const int kept = s.pricing.checkpoints_kept;
      r.bills->model_uncertainty = pricing::compare_plans(
          *r.bills->catalog, r.bills->gpu_names, pricing::usage_of_trial(*run.band_p10, run.band_p10->p50_trial, kept),
          pricing::usage_of_trial(*run.band_p90, run.band_p90->p50_trial, kept), pricing::compare_options(s.pricing));
    }
  }
  // The per-trial records are not printed; the bills above were their last user.
  if (samples == TrialSamples::Drop) drop_samples(run.result);
  if (run.band_p10) drop_samples(*run.band_p10);
  if (run.band_p90) drop_samples(*run.band_p90);
  r.run = std::move(run);
}

bool add_whole_run(SimReport& r, const std::string& data_dir, scenario::Diagnostics& diags) {
  const scenario::Scenario& s = *r.scenario;
  if (s.training.tokens <= 0 || r.steps <= 0) return true;
  auto catalog = load_scenario_prices(s, data_dir, diags);
  if (!catalog) return false;
  add_whole_run(r, std::move(*catalog));
  return true;
}

quote::QuoteInput quote_input_of(const SimReport& r) {
  FLOPCAST_ASSERT(r.run && r.run->ok() && r.bills, "quote_input_of needs a simulated run and bills");
  const scenario::Scenario& s = *r.scenario;
  quote::QuoteInput in;
  quote::QuoteJob& j = in.job;
  j.model_name = s.model.display;
  j.params = workload::parameter_count(s.model).total;
  j.tokens = s.training.tokens;
  j.gpu_name = s.cluster.gpu.name;
  j.gpus = s.cluster.gpus;
  j.gpus_per_node = s.cluster.gpus_per_node;
  j.parallel_plan = parallel::plan_summary(s.plan) + ", " + to_string(s.precision);
  j.step_time = r.est.step;
  j.mfu = r.est.mfu;
  j.layers = s.model.layers;
  j.hidden = s.model.hidden;
  j.heads = s.model.heads;
  j.kv_heads = s.model.kv_heads;
  j.seq_len = s.model.seq_len;
  if (s.model.moe) {
    j.experts = s.model.moe->experts;
    j.experts_per_token = s.model.moe->top_k;
    j.shared_experts = s.model.moe->shared_experts;
    j.active_params = workload::parameter_count(s.model).active;
  }
  if (workload::is_fine_tuning(s)) {
    j.parallel_plan += ", " + workload::fine_tuning_label(s);
    j.checkpoint_params = workload::trainable_params(s);
  }
  in.run = r.run->result;
  in.plans = r.bills->comparison;
  in.catalog = quote::QuoteCatalog::of(*r.bills->catalog);
  in.extra_assumptions.push_back("Step time from flopcast's step model with calibration profile '" + r.profile_name +
                                 "' (" + r.coefficients_basis + ").");
  if (r.band.known) {
    const auto [lo, hi] = step_band(r);
    in.extra_assumptions.push_back(fmt::format(
        "Model band: the step time has an 80% interval of {} to {} (x{:.2f} to x{:.2f}; cross-validated on {}).",
        units::format_time(lo), units::format_time(hi), r.band.p10, r.band.p90, r.band.basis));
  }
  if (workload::is_fine_tuning(s))
    in.extra_assumptions.push_back("Fine-tuning: " + workload::fine_tuning_summary(s) +
                                   "; only the adapters have gradients, optimizer state and checkpoints. MFU counts "
                                   "as model FLOPs: " +
                                   workload::model_flops_convention(s) + ".");
  if (r.run->reliability_defaults)
    in.extra_assumptions.push_back("Reliability: flopcast's defaults (the scenario gives no reliability block).");
  for (const auto& c : r.claims)
    in.claims.push_back(
        fmt::format("{}: claimed {:.4g}, simulated {:.4g}: {}", c.figure, c.claimed, c.simulated, c.text()));
  return in;
}

}  // namespace flopcast::app

#include "flopcast/app/claims_check.hpp"

#include "flopcast/app/evaluation.hpp"
#include "flopcast/claims/claims_evaluation.hpp"
#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/io/claims_loader.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/scenario/scenario_check.hpp"
#include "flopcast/units/format.hpp"

namespace flopcast::app {

claims::ScenarioOutcome run_scenario_for_claims(const claims::ScenarioRef& ref, const io::Catalog& catalog) {
  using Status = claims::ScenarioOutcome::Status;
  claims::ScenarioOutcome o;
  scenario::Diagnostics diags;
  auto s = io::load_scenario_unchecked(ref.path, ref.set, catalog, diags);
  if (!s) {
    o.status = Status::BadInput;
    for (const auto& d : diags.items())
      if (d.severity == scenario::Severity::Error) o.problems.push_back(d.str());
    return o;
  }
  o.name = s->name;
  o.gpu = s->cluster.gpu.name;
  o.gpu_names.push_back(s->cluster.gpu.name);
  o.gpu_names.insert(o.gpu_names.end(), s->cluster.gpu.aliases.begin(), s->cluster.gpu.aliases.end());
  o.gpus = s->cluster.gpus;
  o.plan_gpus = s->plan.gpus_checked() ? s->plan.gpus() : 0;
  o.claimed = s->claimed.figures;
  scenario::Diagnostics checks;
  scenario::check_scenario(*s, checks);
  if (checks.has_errors()) {
    o.status = Status::Inconsistent;
    for (const auto& d : checks.items())
      if (d.severity == scenario::Severity::Error)
        o.problems.push_back(d.key + ": " + d.message + " (" + d.where.str() + ")");
    return o;
  }
  compute::ComputeProfile profile = catalog.profile;
  if (!s->calibration.empty()) {
    scenario::Diagnostics pd;
    auto p = io::load_profile(s->calibration, catalog, pd);
    if (!p) {
      o.status = Status::BadInput;
      for (const auto& d : pd.items()) o.problems.push_back(d.str());
      return o;
    }
    profile = *p;
  }
  if (s->open_settings.any()) estimate::resolve_open_settings(*s, profile);
  const SimReport r = make_report(*s, profile);
  o.status = Status::Simulated;
  o.engine = r.sim ? "discrete-event simulation" : "closed-form estimate";
  o.checks = r.claims;
  o.fits_memory = r.fits_memory;
  if (!r.fits_memory)
    o.memory_problem = "the plan needs " + units::format_gib(r.est.memory.total()) + " per GPU but the " + o.gpu +
                       " has " + units::format_gib(r.est.memory.capacity);
  o.mfu = r.est.mfu;
  o.step_time = r.est.step;
  o.train_seconds = r.train_seconds;
  o.gpu_hours = r.gpu_hours;
  return o;
}

std::optional<claims::ClaimsReport> check_claims_file(const std::string& path, const io::Catalog& catalog,
                                                      const std::string& data_dir, scenario::Diagnostics& diags) {
  scenario::Diagnostics load;
  auto file = io::load_claims_file(path, catalog, data_dir, load);
  diags.append(load);
  if (!file) return std::nullopt;
  claims::ClaimsReport report = claims::evaluate_claims(
      *file, [&](const claims::ScenarioRef& ref) { return run_scenario_for_claims(ref, catalog); });
  for (const auto& d : load.items())
    if (d.severity == scenario::Severity::Error) report.errors.push_back(d);
  return report;
}

}  // namespace flopcast::app

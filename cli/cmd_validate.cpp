// `flopcast validate` and `flopcast calibrate`: flags parsed here, the work done by
// app/validation.hpp and app/calibration.hpp, their reports printed or written.
#include <algorithm>
#include <optional>
#include <ostream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/calibration.hpp"
#include "flopcast/app/validation.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/catalog.hpp"

namespace flopcast::cli {
namespace {

/// Prints what reading the inputs met and sets the exit code as its status says.
void report_inputs(CliContext& ctx, const app::InputProblems& problems) {
  ctx.err << problems.text;
  if (problems.status == app::InputStatus::Unreadable) ctx.exit_code = kIoError;
  if (problems.status == app::InputStatus::BadInput) ctx.exit_code = kBadInput;
}

/// Loads --profile, or the catalog's default.
std::optional<compute::ComputeProfile> profile_for(CliContext& ctx, const io::Catalog& cat, const std::string& name) {
  if (name.empty()) return cat.profile;
  scenario::Diagnostics pd;
  auto p = io::load_profile(name, cat, pd);
  if (!p) {
    ctx.err << pd.str();
    ctx.exit_code = kBadInput;
  }
  return p;
}

/// Writes `profile` to `output`; on failure says why (exit 4).
bool write_profile(CliContext& ctx, const compute::ComputeProfile& profile, const std::string& output, bool force) {
  std::string error;
  if (io::write_file_atomically(output, io::profile_to_yaml(profile), force, error)) return true;
  ctx.err << "flopcast calibrate: " << error << "\n";
  ctx.exit_code = kIoError;
  return false;
}

/// Checks before a fit that may take minutes that its output can be written (exit 4 if not).
bool check_writable(CliContext& ctx, const std::string& output, bool force) {
  std::string error;
  if (app::output_writable(output, force, error)) return true;
  ctx.err << "flopcast calibrate: " << error << "\n";
  ctx.exit_code = kIoError;
  return false;
}

struct CalibrateOpts {
  std::vector<std::string> files;
  std::string output, profile, cv;
  std::vector<std::string> params;
  bool force = false, estimate = false, json = false;
  int jobs = 0;
};

/// The command a profile's provenance names: what it was fitted or cross-validated with.
std::string calibrate_command(const CalibrateOpts& c) {
  std::string command = "flopcast calibrate";
  if (!c.cv.empty()) {
    for (const auto& f : c.files) command += " " + f;
    command += " --cv source" + std::string(c.estimate ? " --estimate" : "") + " -o " + c.output;
  } else {
    command += c.estimate ? " --estimate" : "";
    for (const auto& f : c.files) command += " " + f;
    command += " -o " + c.output;
    for (const auto& p : c.params) command += " --param " + p;
  }
  if (!c.profile.empty()) command += " --profile " + c.profile;
  return command;
}

/// Usage errors caught before anything is read (exit 2).
bool calibrate_usage_ok(CliContext& ctx, const CalibrateOpts& c) {
  if (!c.cv.empty() && c.cv != "source") {
    ctx.err << "flopcast calibrate: --cv takes 'source' (leave one source group out), got '" << c.cv << "'\n";
    ctx.exit_code = kUsage;
    return false;
  }
  if (c.cv.empty() && c.output.empty()) {
    ctx.err << "flopcast calibrate: -o PROFILE.yaml is required (or --cv source)\n";
    ctx.exit_code = kUsage;
    return false;
  }
  const auto& all = compute::profile_parameters();
  for (const auto& name : c.params)
    if (std::none_of(all.begin(), all.end(), [&](const compute::ProfileParameter& p) { return p.name == name; })) {
      ctx.err << "flopcast calibrate: unknown parameter '" << name << "'\n";
      ctx.exit_code = kUsage;
      return false;
    }
  return true;
}

void run_calibrate(CliContext& ctx, const CalibrateOpts& c) {
  if (!calibrate_usage_ok(ctx, c)) return;
  const auto* cat = ctx.catalog();
  if (!cat) return;
  const auto start = profile_for(ctx, *cat, c.profile);
  if (!start) return;
  auto in = app::calibration_inputs(c.files, *cat);
  report_inputs(ctx, in.problems);
  if (in.empty()) {
    ctx.err << "flopcast calibrate: no usable runs\n";
    if (ctx.exit_code != kIoError) ctx.exit_code = kBadInput;
    return;
  }
  in.options.parameters = c.params;
  // Bottom-up: the cost layer's coefficients on the kernel measurements first, then, with them
  // held, only what the runs alone inform (the whole-step glue).
  const auto stage = app::fit_kernel_stage(in, *start);
  if (!c.cv.empty()) {
    if (!c.output.empty() && !check_writable(ctx, c.output, c.force)) return;
    const auto cv = app::cross_validate_fit(in, stage.profile, *start, !c.estimate, c.jobs);
    if (!cv.by_source.error.empty()) {
      ctx.err << "flopcast calibrate --cv source: " << cv.by_source.error << "\n";
      ctx.exit_code = kBadInput;
      return;
    }
    if (!c.output.empty() &&
        !write_profile(ctx, app::profile_with_bands(*start, cv, calibrate_command(c)), c.output, c.force))
      return;
    ctx.out << (c.json ? app::cross_validation_json(cv, c.estimate) : app::cross_validation_text(cv, c.estimate));
    return;
  }
  in.options.simulate = !c.estimate;
  if (!check_writable(ctx, c.output, c.force)) return;
  const auto res = calibrate::calibrate_profile(in.runs, stage.profile, in.options);
  const auto profile = app::fitted_profile(res, stage.provenance, calibrate_command(c), c.output);
  if (!write_profile(ctx, profile, c.output, c.force)) return;
  ctx.out << app::fit_report(profile, res, in.runs, c.output, c.json);
}

void register_calibrate(CLI::App& app, CliContext& ctx) {
  auto c = std::make_shared<CalibrateOpts>();
  auto* cal = app.add_subcommand("calibrate", "Fit the calibration profile to measured runs (writes a profile YAML)");
  cal->add_option("runs", c->files, "Measured-run YAML files (and nccl-tests collective files)")->required();
  cal->add_option("-o,--out", c->output,
                  "Profile file to write (with --cv: the starting profile with the cross-validated prediction bands)")
      ->type_name("FILE");
  add_deprecated_spelling(*cal, ctx, "--output", c->output, "-o, --out");
  cal->add_option("--param", c->params, "Fit only these coefficients (repeatable), e.g. ampere.gemm");
  cal->add_option("--profile", c->profile, "Profile to start from (file or name) instead of the default");
  cal->add_flag("--force", c->force, "Overwrite the output file if it exists");
  cal->add_flag(
      "--estimate", c->estimate,
      "Fit the closed-form estimate instead of the discrete-event simulation (with --cv: predict with it too)");
  cal->add_option("--cv", c->cv,
                  "Cross-validate instead of fitting a profile: 'source' predicts each source group's runs with a "
                  "profile fitted (closed form) without them, and reports the prediction bands and their coverage");
  cal->add_flag("--json", c->json, "Print the result as one JSON document");
  add_jobs_flag(*cal, c->jobs, "Cross-validation folds fitted at once (default: one per hardware thread)", 0);
  cal->callback([&ctx, c] { run_calibrate(ctx, *c); });
}

}  // namespace

void register_validate(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::vector<std::string> files;
    std::string profile;
    bool json = false;
    bool quiet = false;
    bool estimate = false;
    OutputFile out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("validate", "Predict measured runs (run-schema files) and report the error");
  cmd->add_option("runs", o->files, "Measured-run YAML files")->required();
  cmd->add_flag("--json", o->json, "One JSON document: runs, summary, resolved settings, memory, errors");
  cmd->add_option("--profile", o->profile, "Calibration profile (file or name) instead of the default");
  cmd->add_flag("--summary-only", o->quiet, "Print only the summary table");
  cmd->add_flag("--estimate", o->estimate,
                "Predict with the closed-form estimate instead of the discrete-event simulation");
  add_out_flag(*cmd, o->out, "Write the report to FILE instead of standard output");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE if it exists");
  cmd->callback([&ctx, o] {
    const auto* cat = ctx.catalog();
    if (!cat) return;
    const auto profile = profile_for(ctx, *cat, o->profile);
    if (!profile) return;
    const auto v = app::validate_measurements({o->files, o->estimate}, *cat, *profile);
    report_inputs(ctx, v.problems);
    write_output(ctx, o->out,
                 o->json ? app::validation_json(*profile, v, o->estimate)
                         : app::validation_text(*profile, v, o->estimate, o->quiet));
  });
  register_calibrate(app, ctx);
}

}  // namespace flopcast::cli

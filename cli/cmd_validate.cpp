#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/calibrate/calibrate.hpp"
#include "flopcast/calibrate/validation.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/collective_runs.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/step/step_simulation.hpp"

namespace flopcast::cli {
namespace {

/// Loads every run of every file; prints bad entries (id, file:line) and goes on.
std::vector<Scenario> load_runs(CliContext& ctx, const io::Catalog& cat, const std::vector<std::string>& files,
                                std::vector<std::string>& errors) {
  std::vector<Scenario> runs;
  for (const auto& f : files) {
    Diagnostics diags;
    auto entries = io::load_run_file(f, cat, diags);
    if (diags.has_errors()) {
      ctx.err << diags.str();
      for (const auto& d : diags.items()) errors.push_back(d.str());
      ctx.exit_code = io::any_unreadable_file(diags) ? kIoError : kBadInput;
    }
    for (auto& e : entries) {
      if (!e.diags.empty()) {
        ctx.err << (e.id.empty() ? std::string("entry at ") + e.where.str() : "run " + e.id) << ":\n";
        for (const auto& d : e.diags.items()) ctx.err << "  " << d.str() << "\n";
      }
      if (!e.scenario) {
        for (const auto& d : e.diags.items()) errors.push_back((e.id.empty() ? "" : e.id + ": ") + d.str());
        ctx.exit_code = kBadInput;
        continue;
      }
      runs.push_back(std::move(*e.scenario));
    }
  }
  return runs;
}

/// The inputs of validate and calibrate: nccl-tests collective files (with their text, read
/// once) and measured-run files (load_runs reads those and reports unreadable ones).
struct InputFiles {
  std::vector<std::string> runs;
  std::vector<std::pair<std::string, std::string>> collectives;
};
InputFiles split_inputs(const std::vector<std::string>& files) {
  InputFiles in;
  for (const auto& f : files) {
    Diagnostics rd;
    auto text = io::read_text_file(f, rd);
    if (text && io::is_collective_run_file(*text))
      in.collectives.emplace_back(f, std::move(*text));
    else
      in.runs.push_back(f);
  }
  return in;
}

/// The points of a collective benchmark file; bad entries are printed and recorded.
std::vector<io::CollectiveRun> load_collective_points(CliContext& ctx, const io::Catalog& cat, const std::string& file,
                                                      const std::string& text, std::vector<std::string>& errors) {
  Diagnostics diags;
  auto points = io::parse_collective_runs(text, file, cat, diags);
  if (!diags.empty()) {
    ctx.err << diags.str();
    for (const auto& d : diags.items()) errors.push_back(d.str());
    if (diags.has_errors()) ctx.exit_code = kBadInput;
  }
  return points;
}

/// Predicts every point of a collective benchmark file with core/comm (the same model the
/// step estimate uses) and appends one comparison per measured figure.
/// Returns how many points the file gave.
std::size_t validate_collectives(CliContext& ctx, const io::Catalog& cat, const ComputeProfile& profile,
                                 const std::string& file, const std::string& text, std::vector<FigureComparison>& rows,
                                 std::vector<std::string>& errors) {
  const auto points = load_collective_points(ctx, cat, file, text, errors);
  for (const auto& pt : points) {
    std::string why;
    const auto c = compare_collective(pt, profile, why);
    if (!why.empty()) errors.push_back(pt.id + ": " + why);
    rows.insert(rows.end(), c.begin(), c.end());
  }
  return points.size();
}

}  // namespace

/// For a run whose micro-batch the source did not state: the micro-batch flopcast itself
/// would pick, the fastest predicted of micro_batch_alternatives(), with its prediction. Chosen
/// by predicted step time alone, never by the measurement.
struct MicroBatchAlternative {
  std::int64_t micro_batch = 1;
  StepEstimate estimate;
};
std::optional<MicroBatchAlternative> fastest_micro_batch(const Scenario& s, const ComputeProfile& profile,
                                                         bool estimate) {
  std::optional<MicroBatchAlternative> best;
  for (const auto& c : micro_batch_alternatives(s, profile)) {
    StepSimOptions sim;
    sim.timeline = false;
    auto e = estimate ? estimate_step(c, profile) : simulate_step(c, profile, sim).as_estimate();
    if (!best || e.step < best->estimate.step) best = MicroBatchAlternative{c.plan.micro_batch, std::move(e)};
  }
  return best;
}

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
  cmd->add_flag("--json", o->json, "One JSON document: runs, summary, errors");
  cmd->add_option("--profile", o->profile, "Calibration profile (file or name) instead of the default");
  cmd->add_flag("--summary-only", o->quiet, "Print only the summary table");
  cmd->add_flag("--estimate", o->estimate,
                "Predict with the closed-form estimate instead of the discrete-event simulation");
  add_out_flag(*cmd, o->out, "Write the report to FILE instead of standard output");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE if it exists");
  cmd->callback([&ctx, o] {
    const auto* cat = ctx.catalog();
    if (!cat) return;
    ComputeProfile profile = cat->profile;
    if (!o->profile.empty()) {
      Diagnostics pd;
      auto p = io::load_profile(o->profile, *cat, pd);
      if (!p) {
        ctx.err << pd.str();
        ctx.exit_code = kBadInput;
        return;
      }
      profile = *p;
    }
    std::vector<std::string> errors;
    std::vector<FigureComparison> rows;
    const auto inputs = split_inputs(o->files);
    const auto& collective_files = inputs.collectives;
    const auto runs = load_runs(ctx, *cat, inputs.runs, errors);
    std::vector<std::string> memory_notes;
    std::vector<std::string> micro_batch_notes;  // runs that do not state their micro-batch
    for (const auto& s : runs) {
      StepSimOptions sim;
      sim.timeline = false;
      const auto e = o->estimate ? estimate_step(s, profile) : simulate_step(s, profile, sim).as_estimate();
      for (auto& c : compare_run(s, e)) rows.push_back(c);
      if (auto alt = fastest_micro_batch(s, profile, o->estimate); alt && alt->estimate.step < e.step) {
        std::string figures;
        for (const auto& c : compare_run(s, alt->estimate))
          figures +=
              fmt::format("{}{} {:.4g} ({:+.1f}%)", figures.empty() ? "" : ", ", c.figure, c.predicted, c.error_pct);
        micro_batch_notes.push_back(
            fmt::format("{}: the fastest micro-batch that fits is {}: {}", s.id, alt->micro_batch, figures));
      }
      if (!e.memory.fits())
        memory_notes.push_back(
            fmt::format("{}: the memory model gives {:.1f} GiB per GPU, above the {:.1f} GiB HBM the run had", s.id,
                        e.memory.total().gib(), e.memory.capacity.gib()));
    }
    std::size_t collective_points = 0;
    for (const auto& [f, text] : collective_files)
      collective_points += validate_collectives(ctx, *cat, profile, f, text, rows, errors);
    const auto summary = summarize(rows);
    if (o->json) {
      nlohmann::ordered_json j;
      j["profile"] = profile.name;
      j["engine"] = o->estimate ? "estimate" : "simulation";
      j["runs"] = nlohmann::ordered_json::array();
      for (const auto& r : rows)
        j["runs"].push_back({{"id", r.id},
                             {"figure", r.figure},
                             {"measured", r.measured},
                             {"predicted", r.predicted},
                             {"error_pct", r.error_pct}});
      j["summary"] = nlohmann::ordered_json::object();
      for (const auto& s : summary)
        j["summary"][s.figure] = {{"count", s.count},
                                  {"median_abs_error_pct", s.median_abs_error_pct},
                                  {"p90_abs_error_pct", s.p90_abs_error_pct},
                                  {"mean_abs_error_pct", s.mean_abs_error_pct}};
      j["errors"] = errors;
      j["memory_notes"] = memory_notes;
      j["micro_batch_notes"] = micro_batch_notes;
      write_output(ctx, o->out, j.dump(2) + "\n");
      return;
    }
    std::ostringstream out;
    if (!o->quiet) {
      out << fmt::format("{:<52} {:<17} {:>12} {:>12} {:>9}\n", "id", "figure", "measured", "predicted", "error");
      for (const auto& r : rows)
        out << fmt::format("{:<52} {:<17} {:>12.4g} {:>12.4g} {:>+8.1f}%\n", r.id, r.figure, r.measured, r.predicted,
                           r.error_pct);
      out << "\n";
    }
    out << fmt::format("Summary (profile {}; {}; {} runs", profile.name,
                       o->estimate ? "closed-form estimate" : "simulation", runs.size());
    if (!collective_files.empty()) out << fmt::format(", {} collective points", collective_points);
    if (!errors.empty()) out << fmt::format(", {} entries rejected", errors.size());
    out << ")\n";
    out << fmt::format("{:<17} {:>6} {:>14} {:>12} {:>12}\n", "figure", "count", "median |err|", "p90 |err|",
                       "mean |err|");
    for (const auto& s : summary)
      out << fmt::format("{:<17} {:>6} {:>13.1f}% {:>11.1f}% {:>11.1f}%\n", s.figure, s.count, s.median_abs_error_pct,
                         s.p90_abs_error_pct, s.mean_abs_error_pct);
    if (!micro_batch_notes.empty() && !o->quiet) {
      out << "\nMicro-batch not stated (" << micro_batch_notes.size()
          << " runs): predicted above with the run schema's default 1. At the micro-batch flopcast would pick\n"
             "(the fastest predicted that fits; never chosen by the measurement), the same profile gives:\n";
      for (const auto& n : micro_batch_notes) out << "  " << n << "\n";
    }
    if (!memory_notes.empty() && !o->quiet) {
      out << "\nMemory model above HBM on runs that did run (" << memory_notes.size() << "):\n";
      for (const auto& n : memory_notes) out << "  " << n << "\n";
    }
    write_output(ctx, o->out, out.str());
  });

  struct CalOpts {
    std::vector<std::string> files;
    OutputFile out;
    std::vector<std::string> params;
    bool estimate = false;
  };
  auto c = std::make_shared<CalOpts>();
  auto* cal = app.add_subcommand("calibrate", "Fit the calibration profile to measured runs (writes a profile YAML)");
  cal->add_option("runs", c->files, "Measured-run YAML files (and nccl-tests collective files)")->required();
  add_out_flag(*cal, c->out, "Profile file to write (required)");
  add_deprecated_spelling(*cal, ctx, "--output", c->out.path, "-o, --out");
  cal->add_option("--param", c->params, "Fit only these coefficients (repeatable), e.g. ampere.gemm");
  add_force_flag(*cal, c->out.force, "Overwrite the profile file if it exists");
  cal->add_flag("--estimate", c->estimate, "Fit the closed-form estimate instead of the discrete-event simulation");
  cal->callback([&ctx, c] {
    if (c->out.path.empty()) return ctx.fail(kUsage, "-o, --out PROFILE.yaml is required: the profile file to write");
    const auto* cat = ctx.catalog();
    if (!cat) return;
    std::vector<std::string> errors;
    std::vector<Scenario> runs;
    std::vector<double> weights;
    CalibrationOptions opts;
    const auto inputs = split_inputs(c->files);
    for (const auto& f : inputs.runs) {
      auto part = load_runs(ctx, *cat, {f}, errors);
      for (auto& r : part) {
        weights.push_back(1.0 / static_cast<double>(part.size()));
        runs.push_back(std::move(r));
      }
    }
    // nccl-tests points: they inform the collective knobs (collective_latency_us).
    for (const auto& [f, text] : inputs.collectives) {
      auto points = load_collective_points(ctx, *cat, f, text, errors);
      for (auto& p : points) {
        std::string why;
        if (compare_collective(p, cat->profile, why); !why.empty()) {  // reported, not silently dropped
          ctx.err << p.id << ": " << why << " (left out of the fit)\n";
          ctx.exit_code = kBadInput;
          continue;
        }
        opts.collective_weights.push_back(1.0 / static_cast<double>(points.size()));
        opts.collectives.push_back(std::move(p));
      }
    }
    if (runs.empty() && opts.collectives.empty())
      return ctx.fail(ctx.exit_code == kIoError ? kIoError : kBadInput, "no usable runs");
    opts.parameters = c->params;
    opts.run_weights = weights;
    opts.simulate = !c->estimate;
    for (const auto& name : opts.parameters) {
      const auto& all = profile_parameters();
      if (std::none_of(all.begin(), all.end(), [&](const ProfileParameter& p) { return p.name == name; }))
        return ctx.fail(kUsage, "--param: unknown parameter '" + name + "'");
    }
    auto res = calibrate_profile(runs, cat->profile, opts);
    std::string files;
    for (const auto& f : c->files) files += " " + f;
    res.profile.name = c->out.path;
    res.profile.provenance = fmt::format(
        "flopcast calibrate{}{} -o {}\nfitted: {}\n{} residuals; RMS relative error {:.1f}% -> {:.1f}%, median {:.1f}% -> {:.1f}% "
        "({} iterations)\n",
        c->estimate ? " --estimate" : "", files, c->out.path, fmt::join(res.fitted, ", "), res.residuals,
        res.rms_before_pct, res.rms_after_pct, res.median_before_pct, res.median_after_pct, res.iterations);
    // The profile goes to the file, the fit's summary to standard output.
    if (write_output(ctx, c->out, io::profile_to_yaml(res.profile))) ctx.out << res.profile.provenance;
  });
}

}  // namespace flopcast::cli

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/kernel_validation.hpp"
#include "flopcast/calibrate/calibrate.hpp"
#include "flopcast/calibrate/cross_validation.hpp"
#include "flopcast/calibrate/validation.hpp"
#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/collective_runs.hpp"
#include "flopcast/io/kernel_runs.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/step/step_simulation.hpp"
#include "flopcast/workload/fine_tuning.hpp"

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
  std::vector<std::pair<std::string, std::string>> kernels;  ///< kernel measurement files
};
InputFiles split_inputs(const std::vector<std::string>& files) {
  InputFiles in;
  for (const auto& f : files) {
    Diagnostics rd;
    auto text = io::read_text_file(f, rd);
    if (text && io::is_collective_run_file(*text))
      in.collectives.emplace_back(f, std::move(*text));
    else if (text && io::is_kernel_file(*text))
      in.kernels.emplace_back(f, std::move(*text));
    else
      in.runs.push_back(f);
  }
  return in;
}

/// The measurements of kernel files; bad entries are printed and recorded, the others load.
std::vector<KernelMeasurement> load_kernels(CliContext& ctx, const io::Catalog& cat,
                                            const std::vector<std::pair<std::string, std::string>>& files,
                                            std::vector<std::string>& errors) {
  std::vector<KernelMeasurement> out;
  for (const auto& [file, text] : files) {
    Diagnostics diags;
    auto entries = io::parse_kernel_file(text, file, cat, diags);
    if (!diags.empty()) {
      ctx.err << diags.str();
      for (const auto& d : diags.items()) errors.push_back(d.str());
      if (diags.has_errors()) ctx.exit_code = kBadInput;
    }
    std::move(entries.begin(), entries.end(), std::back_inserter(out));
  }
  return out;
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

/// "micro_batch 2, zero 1" for a run's resolved settings.
std::string settings_text(const ResolvedSettings& r) {
  std::string out;
  for (const auto& [key, value] : r.chosen) {
    const auto dot = key.find('.');
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", dot == std::string::npos ? key : key.substr(dot + 1), value);
  }
  return out;
}

nlohmann::ordered_json settings_json(const ResolvedSettings& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, value] : r.chosen) j[key] = value;
  return j;
}

/// A run the memory model says does not fit, although it ran.
struct MemoryFailure {
  std::string id;
  MemoryBreakdown memory;
  bool open = false;  ///< its settings were open and no choice fits
};

nlohmann::ordered_json memory_json(const MemoryBreakdown& m) {
  return {{"total_gib", m.total().gib()},
          {"capacity_gib", m.capacity.gib()},
          {"stage", m.stage},
          {"in_flight", m.in_flight},
          {"weights_gib", m.weights.gib()},
          {"gradients_gib", m.gradients.gib()},
          {"optimizer_gib", m.optimizer.gib()},
          {"activations_gib", m.activations.gib()},
          {"logits_gib", m.logits.gib()},
          {"workspace_gib", m.workspace.gib()},
          {"nccl_gib", m.nccl.gib()},
          {"fragmentation_gib", m.fragmentation.gib()}};
}

std::string memory_text(const MemoryBreakdown& m) {
  return fmt::format(
      "{:.1f} GiB of {:.1f} (stage {}, {:g} micro-batches in flight: weights {:.1f}, gradients {:.1f}, optimizer "
      "{:.1f}, activations {:.1f}, logits {:.1f}, workspace {:.1f}, NCCL {:.1f}, fragmentation {:.1f})",
      m.total().gib(), m.capacity.gib(), m.stage, m.in_flight, m.weights.gib(), m.gradients.gib(), m.optimizer.gib(),
      m.activations.gib(), m.logits.gib(), m.workspace.gib(), m.nccl.gib(), m.fragmentation.gib());
}

/// A run whose TFLOP/s or MFU its source counted in another convention than flopcast's.
struct FlopsConversion {
  std::string id;
  FlopsConvention convention = FlopsConvention::Model;
  double factor = 1;  ///< flopcast's count / the source's, for the run's plan
};

/// Everything validate found.
struct Validation {
  std::vector<FigureComparison> rows;
  std::vector<std::string> errors;
  std::vector<Scenario> runs;  ///< as predicted (open settings resolved with the profile)
  std::vector<MemoryFailure> memory_failures;
  std::vector<FlopsConversion> conversions;
  std::size_t collective_points = 0;
  app::KernelValidation kernels;
};

/// Predicts every run (its open settings resolved with `profile`) and every collective point.
Validation validate_inputs(CliContext& ctx, const io::Catalog& cat, const ComputeProfile& profile,
                           const std::vector<std::string>& files, bool estimate) {
  Validation v;
  const auto inputs = split_inputs(files);
  v.runs = load_runs(ctx, cat, inputs.runs, v.errors);
  for (auto& s : v.runs) {
    resolve_open_settings(s, profile);
    StepSimOptions sim;
    sim.timeline = false;
    const auto e = estimate ? estimate_step(s, profile) : simulate_step(s, profile, sim).as_estimate();
    for (auto& c : compare_run(s, e)) {
      // A run that says which peak memory it measured is compared with that one (allocated
      // tensors, or reserved with the allocator's slack, context and NCCL buffers: workload.hpp).
      if (c.figure == "memory_gib" && s.memory_kind != MemoryKind::Unstated) {
        c.predicted = memory_of_kind(e.memory, s.memory_kind).gib();
        c.error_pct = (c.predicted - c.measured) / c.measured * 100.0;
      }
      v.rows.push_back(c);
    }
    if (const double factor = convert_measured_flops(s); factor != 1.0)
      v.conversions.push_back({s.id, s.flops_convention, factor});
    if (!e.memory.fits())
      v.memory_failures.push_back({s.id, e.memory, s.resolved_settings.resolved && !s.resolved_settings.fits});
  }
  for (const auto& [f, text] : inputs.collectives)
    v.collective_points += validate_collectives(ctx, cat, profile, f, text, v.rows, v.errors);
  v.kernels = app::validate_kernels(load_kernels(ctx, cat, inputs.kernels, v.errors), profile);
  return v;
}

void print_validation_json(CliContext& ctx, const ComputeProfile& profile, const Validation& v, bool estimate) {
  nlohmann::ordered_json j;
  j["profile"] = profile.name;
  j["engine"] = estimate ? "estimate" : "simulation";
  j["runs"] = nlohmann::ordered_json::array();
  std::map<std::string, const Scenario*> by_id;
  for (const auto& s : v.runs) by_id[s.id] = &s;
  for (const auto& r : v.rows) {
    nlohmann::ordered_json row = {{"id", r.id},
                                  {"figure", r.figure},
                                  {"measured", r.measured},
                                  {"predicted", r.predicted},
                                  {"error_pct", r.error_pct}};
    // The prediction's 80% band in the unit of `measured`: a time scales by the band's factors,
    // a speed (tokens/s, TFLOP/s, MFU) by their inverses; memory has no band.
    const auto it = by_id.find(r.id);
    if (it != by_id.end() && r.figure != "memory_gib") {
      const PredictionBand band = band_of(profile.bands, *it->second);
      if (band.known) {
        const bool time = r.figure == "iteration_time_s";
        row["band_low"] = time ? r.predicted * band.p10 : r.predicted / band.p90;
        row["band_high"] = time ? r.predicted * band.p90 : r.predicted / band.p10;
        row["band_basis"] = band.basis;
      }
    }
    j["runs"].push_back(row);
  }
  j["summary"] = nlohmann::ordered_json::object();
  for (const auto& s : summarize(v.rows))
    j["summary"][s.figure] = {{"count", s.count},
                              {"median_abs_error_pct", s.median_abs_error_pct},
                              {"p90_abs_error_pct", s.p90_abs_error_pct},
                              {"mean_abs_error_pct", s.mean_abs_error_pct}};
  j["memory"] = {{"runs", v.runs.size()},
                 {"fit", v.runs.size() - v.memory_failures.size()},
                 {"fit_fraction", v.runs.empty() ? 0.0
                                                 : static_cast<double>(v.runs.size() - v.memory_failures.size()) /
                                                       static_cast<double>(v.runs.size())}};
  j["resolved_settings"] = nlohmann::ordered_json::array();
  for (const auto& s : v.runs) {
    if (!s.resolved_settings.resolved) continue;
    const auto& r = s.resolved_settings;
    j["resolved_settings"].push_back({{"id", s.id},
                                      {"settings", settings_json(r)},
                                      {"fits", r.fits},
                                      {"memory_gib", r.memory_gib},
                                      {"capacity_gib", r.capacity_gib},
                                      {"candidates", r.candidates}});
  }
  j["memory_failures"] = nlohmann::ordered_json::array();
  for (const auto& f : v.memory_failures)
    j["memory_failures"].push_back({{"id", f.id}, {"no_choice_fits", f.open}, {"memory", memory_json(f.memory)}});
  if (!v.conversions.empty()) {
    j["flops_conversions"] = nlohmann::ordered_json::array();
    for (const auto& c : v.conversions)
      j["flops_conversions"].push_back(
          {{"id", c.id}, {"flops_convention", to_string(c.convention)}, {"factor", c.factor}});
  }
  if (v.kernels.entries() > 0) j.update(app::kernel_validation_json(v.kernels));
  j["errors"] = v.errors;
  ctx.out << j.dump(2) << "\n";
}

void print_validation_text(CliContext& ctx, const ComputeProfile& profile, const Validation& v, bool estimate,
                           bool quiet) {
  auto& out = ctx.out;
  if (v.kernels.entries() > 0) {
    out << app::kernel_validation_text(v.kernels, quiet);
    if (v.runs.empty() && v.collective_points == 0) return;
    out << "\n";
  }
  if (!quiet) {
    out << fmt::format("{:<52} {:<17} {:>12} {:>12} {:>9}\n", "id", "figure", "measured", "predicted", "error");
    for (const auto& r : v.rows)
      out << fmt::format("{:<52} {:<17} {:>12.4g} {:>12.4g} {:>+8.1f}%\n", r.id, r.figure, r.measured, r.predicted,
                         r.error_pct);
    out << "\n";
  }
  out << fmt::format("Summary (profile {}; {}; {} runs", profile.name, estimate ? "closed-form estimate" : "simulation",
                     v.runs.size());
  if (v.collective_points > 0) out << fmt::format(", {} collective points", v.collective_points);
  if (!v.errors.empty()) out << fmt::format(", {} entries rejected", v.errors.size());
  out << ")\n";
  out << fmt::format("{:<17} {:>6} {:>14} {:>12} {:>12}\n", "figure", "count", "median |err|", "p90 |err|",
                     "mean |err|");
  for (const auto& s : summarize(v.rows))
    out << fmt::format("{:<17} {:>6} {:>13.1f}% {:>11.1f}% {:>11.1f}%\n", s.figure, s.count, s.median_abs_error_pct,
                       s.p90_abs_error_pct, s.mean_abs_error_pct);
  if (!v.runs.empty()) {
    const std::size_t fit = v.runs.size() - v.memory_failures.size();
    out << fmt::format("memory: {} of {} runs predicted to fit ({:.1f}%)\n", fit, v.runs.size(),
                       100.0 * static_cast<double>(fit) / static_cast<double>(v.runs.size()));
  }
  if (quiet) return;
  std::vector<const Scenario*> resolved;
  for (const auto& s : v.runs)
    if (s.resolved_settings.resolved) resolved.push_back(&s);
  if (!resolved.empty()) {
    out << "\nSettings the runs do not state (" << resolved.size()
        << " runs), resolved as the fastest choice that fits (never chosen by the measurement):\n";
    for (const auto* s : resolved)
      out << fmt::format("  {}: {}{}\n", s->id, settings_text(s->resolved_settings),
                         s->resolved_settings.fits ? "" : " (no choice fits: the leanest)");
  }
  if (!v.conversions.empty()) {
    out << "\nTFLOP/s and MFU counted otherwise, converted to flopcast's count (model FLOPs, full attention; "
           "no recompute) before comparing ("
        << v.conversions.size() << " runs):\n";
    for (const auto& c : v.conversions)
      out << fmt::format("  {}: counted {}, x{:.4f}\n", c.id, to_string(c.convention), c.factor);
  }
  if (!v.memory_failures.empty()) {
    out << "\nRuns that ran but the memory model says do not fit (" << v.memory_failures.size() << "):\n";
    for (const auto& f : v.memory_failures)
      out << fmt::format("  {}: {}{}\n", f.id, memory_text(f.memory),
                         f.open ? "; no choice of its unstated settings fits" : "");
  }
}

/// Loads --profile, or the catalog's default.
std::optional<ComputeProfile> profile_for(CliContext& ctx, const io::Catalog& cat, const std::string& name) {
  if (name.empty()) return cat.profile;
  Diagnostics pd;
  auto p = io::load_profile(name, cat, pd);
  if (!p) {
    ctx.err << pd.str();
    ctx.exit_code = kBadInput;
  }
  return p;
}

/// The coefficients of a profile, name -> value (profile_parameters()' order).
nlohmann::ordered_json coefficients_json(const ComputeProfile& p) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  ComputeProfile copy = p;
  for (const auto& param : profile_parameters()) {
    // Coefficients of a generation on a stand-in's are the stand-in's, listed under its name.
    const auto arch = parse_gpu_arch(param.name.substr(0, param.name.find('.')));
    if (arch && p.coefficients_of(*arch) != *arch) continue;
    j[param.name] = *param.slot(copy);
  }
  return j;
}

/// "ampere 1555 runs, hopper 25 runs, blackwell prior only"
std::string fitted_runs_text(const ComputeProfile& p) {
  std::string out;
  for (GpuArch a : kGpuArchs) {
    // A generation on a stand-in's coefficients is not one of the profile's.
    if (p.coefficients_of(a) != a) continue;
    const int n = p.fitted_runs[static_cast<std::size_t>(a)];
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", to_string(a),
                       n > 0 ? fmt::format("fitted on {} runs", n) : std::string("prior only"));
  }
  return out;
}

/// What the kernel stage of a fit says in the profile's provenance: each fitted coefficient with
/// the measurements that inform it, and the error before and after.
std::string kernel_fit_text(const KernelFitResult& k) {
  std::string fitted;
  for (const auto& name : k.fitted)
    fitted += fmt::format("{}{} ({})", fitted.empty() ? "" : ", ", name, k.informed.at(name));
  return fmt::format(
      "kernel stage: {} kernel and collective measurements; fitted (measurements informing each): {}\nkernel stage "
      "at a bound: "
      "{}\nkernel stage: median |error| {:.1f}% -> {:.1f}%, p90 {:.1f}% -> {:.1f}% ({} iterations)\n",
      k.entries, fitted.empty() ? std::string("none") : fitted,
      k.at_bound.empty() ? std::string("none") : fmt::format("{}", fmt::join(k.at_bound, ", ")), k.median_before_pct,
      k.median_after_pct, k.p90_before_pct, k.p90_after_pct, k.iterations);
}

/// The inputs of calibrate: runs and collective points (each collective file weighs the same).
struct CalibrationInputs {
  std::vector<Scenario> runs;
  CalibrationOptions options;
  std::vector<KernelMeasurement> kernels;  ///< kernel measurements: the cost layer is fitted on them first
  std::vector<std::string> errors;
};
CalibrationInputs calibration_inputs(CliContext& ctx, const io::Catalog& cat, const std::vector<std::string>& files) {
  CalibrationInputs in;
  const auto split = split_inputs(files);
  in.runs = load_runs(ctx, cat, split.runs, in.errors);
  in.kernels = load_kernels(ctx, cat, split.kernels, in.errors);
  // Fine-tuning runs (LoRA, QLoRA) are held out: the coefficients are fitted on full training, and
  // `validate` checks the fine-tuning mechanisms against these runs without having seen them.
  const auto held =
      std::stable_partition(in.runs.begin(), in.runs.end(), [](const Scenario& s) { return !is_fine_tuning(s); });
  if (const auto n = std::distance(held, in.runs.end()); n > 0) {
    ctx.err << "flopcast calibrate: " << n << " fine-tuning run" << (n == 1 ? "" : "s")
            << " (training.method lora or qlora) held out of the fit; `flopcast validate` checks "
            << (n == 1 ? "it" : "them") << "\n";
    in.runs.erase(held, in.runs.end());
  }
  // nccl-tests points: they inform the collective knobs (collective_latency_us).
  for (const auto& [f, text] : split.collectives) {
    auto points = load_collective_points(ctx, cat, f, text, in.errors);
    for (auto& p : points) {
      std::string why;
      if (compare_collective(p, cat.profile, why); !why.empty()) {  // reported, not silently dropped
        ctx.err << p.id << ": " << why << " (left out of the fit)\n";
        ctx.exit_code = kBadInput;
        continue;
      }
      in.options.collective_weights.push_back(1.0 / static_cast<double>(points.size()));
      in.options.collectives.push_back(std::move(p));
    }
  }
  return in;
}

void print_cv_text(CliContext& ctx, const CrossValidationResult& r, bool estimate, const CrossValidationResult* loro,
                   const std::optional<KernelCvResult>& kernels) {
  auto& out = ctx.out;
  out << fmt::format(
      "Cross-validation, one source group left out at a time ({} groups, {} runs; fitted with the closed-form "
      "estimate, predicted with the {})\n",
      r.groups.size(), r.predictions.size(), estimate ? "closed-form estimate" : "discrete-event simulation");
  out << "|error| of each run's speed figure; groups-equal: each source group weighs the same; runs-equal: each run\n\n";
  const auto row = [&](const CvSummary& s) {
    out << fmt::format("{:<44} {:>5} {:>6} {:>9.1f}% {:>8.1f}% {:>9.1f}% {:>8.1f}% {:>9.2f} {:>5}\n", s.name, s.runs,
                       s.groups, s.median_abs_pct, s.p90_abs_pct, s.median_abs_runs_pct, s.p90_abs_runs_pct,
                       s.median_speed_ratio, s.memory_fits);
  };
  const auto header = [&](const char* what) {
    out << fmt::format("{:<44} {:>5} {:>6} {:>10} {:>9} {:>10} {:>9} {:>9} {:>5}\n", what, "runs", "groups", "median",
                       "p90", "median", "p90", "speed", "fit");
    out << fmt::format("{:<44} {:>5} {:>6} {:>20} {:>20}\n", "", "", "", "(groups-equal)", "(runs-equal)");
  };
  header("source group");
  for (const auto& s : cv_by_group(r)) row(s);
  out << "\n";
  header("generation");
  for (const auto& s : cv_by_generation(r)) row(s);
  out << "\n";
  row(cv_overall(r));
  if (loro) {
    out << fmt::format(
        "\nOne regime left out at a time ({} regimes: generation x dense/MoE x full/fine-tuning x "
        "precision class x framework family), the honest figure for a workload unlike the data:\n",
        loro->groups.size());
    header("regime left out");
    for (const auto& s : cv_by_group(*loro)) row(s);
    out << "\n";
    row(cv_overall(*loro));
  }
  if (kernels)
    out << fmt::format(
        "\nKernel measurements, one source group left out at a time ({} groups, {} held-out predictions): median "
        "|error| {:.1f}%, p90 {:.1f}% (end-to-end runs above are scored apart)\n",
        kernels->groups.size(), kernels->predictions.size(), kernels->median_abs_pct, kernels->p90_abs_pct);
  out << "\nspeed: median predicted / measured speed (groups-equal; 1.00 is right, above 1 predicted too fast); fit: "
         "runs the memory model says fit\n";
  for (const auto& s : r.skipped) out << "not scored: " << s << "\n";
  const BandTails tails = choose_band_tails(r, loro);
  out << "\nBand coverage by where the ends sit: the residual quantiles, or those of a log-normal fitted to the "
         "residuals (groups-equal; each generation uses the one nearest 80%)\n";
  for (const BandRule& rule : band_rules()) {
    out << fmt::format("  {:<22}", fmt::format("{}{:g}-{:g}", rule.shape == BandShape::LogNormal ? "lognormal " : "",
                                               rule.tail, 1 - rule.tail));
    for (const auto& c : cv_band_coverage(r, uniform_band_tails(rule), loro))
      out << fmt::format(" {} {:.1f}%", c.name, c.covered_pct);
    out << "\n";
  }
  out << fmt::format(
      "\nPrediction bands (quantiles of measured / predicted step time of the held-out runs, groups-equal; a "
      "regime's own band needs {} runs of {} groups, else its generation's novel-regime spread, a log-normal's "
      "10-90% of the runs predicted with their regime left out)\n",
      kRegimeMinRuns, kRegimeMinGroups);
  out << fmt::format("{:<42} {:>5} {:>6} {:>15} {:>7} {:>7} {:>7}\n", "band", "runs", "groups", "ends", "p10", "p50",
                     "p90");
  for (const auto& q : cv_band_quantiles(r, "", tails, loro))
    out << fmt::format("{:<42} {:>5} {:>6} {:>15} {:>7.3f} {:>7.3f} {:>7.3f}\n",
                       std::string(to_string(q.arch)) + (q.regime == kBandRegimeAll ? "" : "." + q.regime), q.runs,
                       q.groups,
                       q.regime == kBandRegimeNovel ? std::string("lognormal 0.1")
                                                    : to_string(tails[static_cast<std::size_t>(q.arch)]),
                       q.p10, q.p50, q.p90);
  out << "\nBand coverage (each run's band made from the other source groups' residuals; target 75-85%)\n";
  out << fmt::format("{:<18} {:>5} {:>6} {:>9} {:>9} {:>9} {:>9} {:>8}\n", "generation", "runs", "groups", "covered",
                     "runs-eq", "below", "above", "no band");
  for (const auto& c : cv_band_coverage(r, tails, loro))
    out << fmt::format("{:<18} {:>5} {:>6} {:>8.1f}% {:>8.1f}% {:>8.1f}% {:>8.1f}% {:>8}\n", c.name, c.runs, c.groups,
                       c.covered_pct, c.covered_runs_pct, c.below_pct, c.above_pct, c.no_band);
}

void print_cv_json(CliContext& ctx, const CrossValidationResult& r, bool estimate, const CrossValidationResult* loro,
                   const std::optional<KernelCvResult>& kernels) {
  using J = nlohmann::ordered_json;
  auto summary = [](const CvSummary& s) {
    return J{{"name", s.name},
             {"runs", s.runs},
             {"groups", s.groups},
             {"median_abs_error_pct", s.median_abs_pct},
             {"p90_abs_error_pct", s.p90_abs_pct},
             {"median_abs_error_pct_runs_equal", s.median_abs_runs_pct},
             {"p90_abs_error_pct_runs_equal", s.p90_abs_runs_pct},
             {"median_speed_ratio", s.median_speed_ratio},
             {"memory_fits", s.memory_fits}};
  };
  J j;
  j["cv"] = "source";
  j["fit_engine"] = "estimate";
  j["prediction_engine"] = estimate ? "estimate" : "simulation";
  j["groups"] = J::array();
  for (const auto& s : cv_by_group(r)) j["groups"].push_back(summary(s));
  j["generations"] = J::array();
  for (const auto& s : cv_by_generation(r)) j["generations"].push_back(summary(s));
  j["overall"] = summary(cv_overall(r));
  if (loro) {
    j["regimes_left_out"] = J::array();
    for (const auto& s : cv_by_group(*loro)) j["regimes_left_out"].push_back(summary(s));
    j["overall_regime_left_out"] = summary(cv_overall(*loro));
  }
  if (kernels)
    j["kernels"] = {{"groups", kernels->groups.size()},
                    {"held_out_predictions", kernels->predictions.size()},
                    {"median_abs_error_pct", kernels->median_abs_pct},
                    {"p90_abs_error_pct", kernels->p90_abs_pct}};
  j["folds"] = J::array();
  for (const auto& f : r.folds)
    j["folds"].push_back({{"held_out_group", f.group},
                          {"trained_runs", f.trained},
                          {"held_out_runs", f.held_out},
                          {"fitted", f.fit.fitted},
                          {"at_bound", f.fit.at_bound},
                          {"fitted_runs", fitted_runs_text(f.fit.profile)},
                          {"coefficients", coefficients_json(f.fit.profile)}});
  j["predictions"] = J::array();
  for (const auto& p : r.predictions)
    j["predictions"].push_back({{"id", p.id},
                                {"group", p.group},
                                {"generation", to_string(p.arch)},
                                {"figure", p.figure},
                                {"measured", p.measured},
                                {"predicted", p.predicted},
                                {"error_pct", p.error_pct},
                                {"resolved_settings", settings_json(p.settings)},
                                {"fits_memory", p.fits_memory}});
  j["not_scored"] = r.skipped;
  const BandTails tails = choose_band_tails(r, loro);
  j["band_tail_coverage"] = J::array();
  for (const BandRule& rule : band_rules())
    for (const auto& c : cv_band_coverage(r, uniform_band_tails(rule), loro))
      j["band_tail_coverage"].push_back({{"shape", rule.shape == BandShape::LogNormal ? "lognormal" : "empirical"},
                                         {"tail", rule.tail},
                                         {"name", c.name},
                                         {"covered_pct", c.covered_pct}});
  j["bands"] = J::array();
  for (const auto& q : cv_band_quantiles(r, "", tails, loro))
    j["bands"].push_back(
        {{"generation", to_string(q.arch)},
         {"regime", q.regime},
         {"runs", q.runs},
         {"groups", q.groups},
         {"shape", tails[static_cast<std::size_t>(q.arch)].shape == BandShape::LogNormal ? "lognormal" : "empirical"},
         {"tail", tails[static_cast<std::size_t>(q.arch)].tail},
         {"p10", q.p10},
         {"p50", q.p50},
         {"p90", q.p90}});
  j["band_coverage"] = J::array();
  for (const auto& c : cv_band_coverage(r, tails, loro))
    j["band_coverage"].push_back({{"name", c.name},
                                  {"runs", c.runs},
                                  {"groups", c.groups},
                                  {"covered_pct", c.covered_pct},
                                  {"covered_pct_runs_equal", c.covered_runs_pct},
                                  {"below_p10_pct", c.below_pct},
                                  {"above_p90_pct", c.above_pct},
                                  {"no_band", c.no_band}});
  ctx.out << j.dump(2) << "\n";
}

/// Whether `output` can be written, checked before a fit that may take minutes: an existing file
/// without --force, a missing or unwritable folder. On failure the error is the one writing
/// would give (write_file_atomically refuses before creating anything in these cases).
bool output_writable(const std::string& output, bool force, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool exists = fs::exists(output, ec);
  if (exists && !force) return io::write_file_atomically(output, "", false, error);
  const fs::path dir = fs::path(output).parent_path().empty() ? fs::path(".") : fs::path(output).parent_path();
  const fs::path probe = dir / (".flopcast-calibrate-probe-" + std::to_string(::getpid()));
  {
    std::ofstream f(probe);
    if (f) {
      f.close();
      fs::remove(probe, ec);
      return true;
    }
  }
  if (exists) return true;  // the folder refuses new files, but the file itself may be replaced
  // The probe failed: writing fails the same way, with its own message, and creates nothing.
  if (!io::write_file_atomically(output, "", false, error)) return false;
  fs::remove(output, ec);  // it did write after all: undo, and let the real write go ahead
  return true;
}

/// Writes the fitted profile and prints its provenance and each run's resolved settings.
void finish_calibration(CliContext& ctx, CalibrationResult& res, std::vector<Scenario>& runs,
                        const std::string& kernel_stage, const std::string& command, const std::string& output,
                        bool force, bool json) {
  res.profile.name = std::filesystem::path(output).stem().string();
  res.profile.provenance = fmt::format(
      "{}\n{}fitted: {}\nper generation: {}\nat a bound: {}\n{} residuals; RMS relative error {:.1f}% -> {:.1f}%, median "
      "{:.1f}% -> {:.1f}% ({} iterations; unstated settings resolved {} times)\n",
      command, kernel_stage, fmt::join(res.fitted, ", "), fitted_runs_text(res.profile),
      res.at_bound.empty() ? std::string("none") : fmt::format("{}", fmt::join(res.at_bound, ", ")), res.residuals,
      res.rms_before_pct, res.rms_after_pct, res.median_before_pct, res.median_after_pct, res.iterations, res.rounds);
  std::string error;
  if (!io::write_file_atomically(output, io::profile_to_yaml(res.profile), force, error)) {
    ctx.err << "flopcast calibrate: " << error << "\n";
    ctx.exit_code = kIoError;
    return;
  }
  for (auto& s : runs) resolve_open_settings(s, res.profile);  // the choices the fitted profile makes
  if (json) {
    nlohmann::ordered_json j;
    j["profile"] = output;
    j["provenance"] = res.profile.provenance;
    j["fitted"] = res.fitted;
    j["at_bound"] = res.at_bound;
    j["coefficients"] = coefficients_json(res.profile);
    j["resolved_settings"] = nlohmann::ordered_json::array();
    for (const auto& s : runs)
      if (s.resolved_settings.resolved)
        j["resolved_settings"].push_back(
            {{"id", s.id}, {"settings", settings_json(s.resolved_settings)}, {"fits", s.resolved_settings.fits}});
    ctx.out << j.dump(2) << "\n";
    return;
  }
  ctx.out << res.profile.provenance;
  bool header = false;
  for (const auto& s : runs) {
    if (!s.resolved_settings.resolved) continue;
    if (!header) ctx.out << "settings the runs do not state, resolved with the fitted profile:\n";
    header = true;
    ctx.out << fmt::format("  {}: {}{}\n", s.id, settings_text(s.resolved_settings),
                           s.resolved_settings.fits ? "" : " (no choice fits: the leanest)");
  }
}

/// Writes `start` (the profile cross-validated) with its prediction bands replaced by the
/// quantiles of `r`: `calibrate --cv source -o FILE`.
bool write_bands(CliContext& ctx, ComputeProfile start, const CrossValidationResult& r,
                 const CrossValidationResult* loro, const std::string& command, const std::string& output, bool force) {
  const BandTails tails = choose_band_tails(r, loro);
  start.bands = cv_band_quantiles(r, "", tails, loro);
  start.bands_provenance = fmt::format(
      "{}; band ends at the quantiles (of the residuals, or of a log-normal fitted to them) whose cross-validated "
      "coverage is nearest 80%: ampere {}, hopper {}, blackwell {}",
      command, to_string(tails[0]), to_string(tails[1]), to_string(tails[2]));
  std::string error;
  if (!io::write_file_atomically(output, io::profile_to_yaml(start), force, error)) {
    ctx.err << "flopcast calibrate: " << error << "\n";
    ctx.exit_code = kIoError;
    return false;
  }
  return true;
}

void register_calibrate(CLI::App& app, CliContext& ctx) {
  struct CalOpts {
    std::vector<std::string> files;
    std::string output, profile, cv;
    std::vector<std::string> params;
    bool force = false, estimate = false, json = false;
    int jobs = 0;
  };
  auto c = std::make_shared<CalOpts>();
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
  cal->callback([&ctx, c] {
    if (!c->cv.empty() && c->cv != "source") {
      ctx.err << "flopcast calibrate: --cv takes 'source' (leave one source group out), got '" << c->cv << "'\n";
      ctx.exit_code = kUsage;
      return;
    }
    if (c->cv.empty() && c->output.empty()) {
      ctx.err << "flopcast calibrate: -o PROFILE.yaml is required (or --cv source)\n";
      ctx.exit_code = kUsage;
      return;
    }
    const auto& all = profile_parameters();
    for (const auto& name : c->params)
      if (std::none_of(all.begin(), all.end(), [&](const ProfileParameter& p) { return p.name == name; })) {
        ctx.err << "flopcast calibrate: unknown parameter '" << name << "'\n";
        ctx.exit_code = kUsage;
        return;
      }
    const auto* cat = ctx.catalog();
    if (!cat) return;
    const auto start = profile_for(ctx, *cat, c->profile);
    if (!start) return;
    auto in = calibration_inputs(ctx, *cat, c->files);
    if (in.runs.empty() && in.options.collectives.empty() && in.kernels.empty()) {
      ctx.err << "flopcast calibrate: no usable runs\n";
      if (ctx.exit_code != kIoError) ctx.exit_code = kBadInput;
      return;
    }
    in.options.parameters = c->params;
    // Bottom-up: the cost layer's coefficients on the kernel measurements first, then, with them
    // held, only what the runs alone inform (the whole-step glue).
    ComputeProfile first = *start;
    std::string kernel_stage;
    if (!in.kernels.empty()) {
      KernelFitOptions ko;
      ko.collectives = in.options.collectives;  // nccl-tests points are kernel-level measurements too
      const auto k = fit_kernel_profile(in.kernels, *start, ko);
      first = k.profile;
      // Every coefficient of the cost layer stays as the kernels left it (fitted, or a prior no
      // measurement informs): the runs fit the whole-step glue alone.
      first.held.clear();
      for (const auto& q : profile_parameters())
        if (!is_glue_parameter(q.name)) first.held.push_back(q.name);
      for (const auto& name : start->held)
        if (is_glue_parameter(name)) first.held.push_back(name);
      kernel_stage = kernel_fit_text(k);
    }
    if (!c->cv.empty()) {
      CrossValidationOptions cv;
      cv.fit = in.options;
      cv.simulate_predictions = !c->estimate;
      cv.jobs = c->jobs;
      if (std::string error; !c->output.empty() && !output_writable(c->output, c->force, error)) {
        ctx.err << "flopcast calibrate: " << error << "\n";
        ctx.exit_code = kIoError;
        return;
      }
      const auto r = cross_validate(in.runs, first, cv);
      CrossValidationOptions by_regime = cv;
      by_regime.by_regime = true;
      const auto loro = cross_validate(in.runs, first, by_regime);
      std::optional<KernelCvResult> kernel_cv;
      if (!in.kernels.empty()) kernel_cv = cross_validate_kernels(in.kernels, *start);
      if (!r.error.empty()) {
        ctx.err << "flopcast calibrate --cv source: " << r.error << "\n";
        ctx.exit_code = kBadInput;
        return;
      }
      std::string command = "flopcast calibrate";
      for (const auto& f : c->files) command += " " + f;
      command += " --cv source" + std::string(c->estimate ? " --estimate" : "") + " -o " + c->output;
      if (!c->profile.empty()) command += " --profile " + c->profile;
      if (!c->output.empty() && !write_bands(ctx, *start, r, &loro, command, c->output, c->force)) return;
      if (c->json)
        print_cv_json(ctx, r, c->estimate, &loro, kernel_cv);
      else
        print_cv_text(ctx, r, c->estimate, &loro, kernel_cv);
      return;
    }
    in.options.simulate = !c->estimate;
    if (std::string error; !output_writable(c->output, c->force, error)) {
      ctx.err << "flopcast calibrate: " << error << "\n";
      ctx.exit_code = kIoError;
      return;
    }
    auto res = calibrate_profile(in.runs, first, in.options);
    std::string command = "flopcast calibrate" + std::string(c->estimate ? " --estimate" : "");
    for (const auto& f : c->files) command += " " + f;
    command += " -o " + c->output;
    for (const auto& p : c->params) command += " --param " + p;
    if (!c->profile.empty()) command += " --profile " + c->profile;
    finish_calibration(ctx, res, in.runs, kernel_stage, command, c->output, c->force, c->json);
  });
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
    const auto v = validate_inputs(ctx, *cat, *profile, o->files, o->estimate);
    std::ostringstream report;  // the printers write to their context's out: here, the report
    CliContext to_report(report, ctx.err);
    to_report.command = ctx.command;
    if (o->json)
      print_validation_json(to_report, *profile, v, o->estimate);
    else
      print_validation_text(to_report, *profile, v, o->estimate, o->quiet);
    write_output(ctx, o->out, report.str());
  });
  register_calibrate(app, ctx);
}

}  // namespace flopcast::cli

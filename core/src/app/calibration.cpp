#include "flopcast/app/calibration.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/workload/fine_tuning.hpp"

namespace flopcast::app {
namespace {

/// The coefficients of a profile, name -> value (profile_parameters()' order).
nlohmann::ordered_json coefficients_json(const compute::ComputeProfile& p) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  compute::ComputeProfile copy = p;
  for (const auto& param : compute::profile_parameters()) {
    // Coefficients of a generation on a stand-in's are the stand-in's, listed under its name.
    const auto arch = hardware::parse_gpu_arch(param.name.substr(0, param.name.find('.')));
    if (arch && p.coefficients_of(*arch) != *arch) continue;
    j[param.name] = *param.slot(copy);
  }
  return j;
}

/// "ampere 1555 runs, hopper 25 runs, blackwell prior only"
std::string fitted_runs_text(const compute::ComputeProfile& p) {
  std::string out;
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    // A generation on a stand-in's coefficients is not one of the profile's.
    if (p.coefficients_of(a) != a) continue;
    const int n = p.fitted_runs[static_cast<std::size_t>(a)];
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", to_string(a),
                       n > 0 ? fmt::format("fitted on {} run{}", n, n == 1 ? "" : "s") : std::string("prior only"));
  }
  return out;
}

/// What the kernel stage of a fit says in the profile's provenance: each fitted coefficient with
/// the measurements that inform it, and the error before and after.
std::string kernel_fit_text(const calibrate::KernelFitResult& k) {
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

}  // namespace

CalibrationInputs calibration_inputs(const std::vector<std::string>& files, const io::Catalog& catalog) {
  CalibrationInputs in;
  const auto split = split_input_files(files);
  in.runs = load_measured_runs(split.runs, catalog, in.problems);
  in.kernels = load_kernel_measurements(split.kernels, catalog, in.problems);
  // Fine-tuning runs (LoRA, QLoRA) are held out: the coefficients are fitted on full training, and
  // `validate` checks the fine-tuning mechanisms against these runs without having seen them.
  const auto held = std::stable_partition(in.runs.begin(), in.runs.end(),
                                          [](const scenario::Scenario& s) { return !workload::is_fine_tuning(s); });
  if (const auto n = std::distance(held, in.runs.end()); n > 0) {
    in.fine_tuning_held_out = static_cast<std::size_t>(n);
    in.problems.text += fmt::format(
        "flopcast calibrate: {} fine-tuning run{} (training.method lora or qlora) held out of the fit; `flopcast "
        "validate` checks {}\n",
        n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
    in.runs.erase(held, in.runs.end());
  }
  // nccl-tests points: they inform the collective knobs (collective_latency_us).
  for (const auto& [f, text] : split.collectives) {
    auto points = load_collective_points(f, text, catalog, in.problems);
    for (auto& p : points) {
      std::string why;
      if (calibrate::compare_collective(p, catalog.profile, why); !why.empty()) {  // reported, not silently dropped
        in.problems.text += p.id + ": " + why + " (left out of the fit)\n";
        in.problems.status = InputStatus::BadInput;
        continue;
      }
      in.options.collective_weights.push_back(1.0 / static_cast<double>(points.size()));
      in.options.collectives.push_back(std::move(p));
    }
  }
  return in;
}

KernelStage fit_kernel_stage(const CalibrationInputs& in, const compute::ComputeProfile& start) {
  KernelStage stage{start, ""};
  if (in.kernels.empty()) return stage;
  calibrate::KernelFitOptions ko;
  ko.collectives = in.options.collectives;  // nccl-tests points are kernel-level measurements too
  const auto k = calibrate::fit_kernel_profile(in.kernels, start, ko);
  stage.profile = k.profile;
  // Every coefficient of the cost layer stays as the kernels left it (fitted, or a prior no
  // measurement informs): the runs fit the whole-step glue alone.
  stage.profile.held.clear();
  for (const auto& q : compute::profile_parameters())
    if (!calibrate::is_glue_parameter(q.name)) stage.profile.held.push_back(q.name);
  for (const auto& name : start.held)
    if (calibrate::is_glue_parameter(name)) stage.profile.held.push_back(name);
  stage.profile.kernel_fitted = k.fitted;
  stage.provenance = kernel_fit_text(k);
  return stage;
}

CalibrationCv cross_validate_fit(const CalibrationInputs& in, const compute::ComputeProfile& first,
                                 const compute::ComputeProfile& start, bool simulate_predictions, int jobs) {
  calibrate::CrossValidationOptions options;
  options.fit = in.options;
  options.simulate_predictions = simulate_predictions;
  options.jobs = jobs;
  CalibrationCv cv;
  cv.by_source = calibrate::cross_validate(in.runs, first, options);
  options.by_regime = true;
  cv.by_regime = calibrate::cross_validate(in.runs, first, options);
  if (!in.kernels.empty()) {
    calibrate::KernelFitOptions ko;
    ko.collectives = in.options.collectives;  // as the kernel stage fits (fit_kernel_stage)
    cv.kernels = calibrate::cross_validate_kernels(in.kernels, start, ko);
  }
  return cv;
}

compute::ComputeProfile profile_with_bands(compute::ComputeProfile start, const CalibrationCv& cv,
                                           const std::string& command) {
  const calibrate::BandTails tails = calibrate::choose_band_tails(cv.by_source, &cv.by_regime);
  start.bands = calibrate::cv_band_quantiles(cv.by_source, "", tails, &cv.by_regime);
  start.bands_provenance = fmt::format(
      "{}; band ends at the quantiles (of the residuals, or of a log-normal fitted to them) whose cross-validated "
      "coverage is nearest 80%: ampere {}, hopper {}, blackwell {}",
      command, to_string(tails[0]), to_string(tails[1]), to_string(tails[2]));
  return start;
}

compute::ComputeProfile fitted_profile(const calibrate::CalibrationResult& res, const std::string& kernel_stage,
                                       const std::string& command, const std::string& output) {
  compute::ComputeProfile p = res.profile;
  p.name = std::filesystem::path(output).stem().string();
  p.provenance = fmt::format(
      "{}\n{}fitted: {}\nper generation: {}\nat a bound: {}\n{} residuals; RMS relative error {:.1f}% -> {:.1f}%, median "
      "{:.1f}% -> {:.1f}% ({} iterations; unstated settings resolved {} times)\n",
      command, kernel_stage, fmt::join(res.fitted, ", "), fitted_runs_text(p),
      res.at_bound.empty() ? std::string("none") : fmt::format("{}", fmt::join(res.at_bound, ", ")), res.residuals,
      res.rms_before_pct, res.rms_after_pct, res.median_before_pct, res.median_after_pct, res.iterations, res.rounds);
  return p;
}

std::string fit_report(const compute::ComputeProfile& profile, const calibrate::CalibrationResult& res,
                       std::vector<scenario::Scenario>& runs, const std::string& output, bool json) {
  for (auto& s : runs) estimate::resolve_open_settings(s, profile);  // the choices the fitted profile makes
  if (json) {
    nlohmann::ordered_json j;
    j["profile"] = output;
    j["provenance"] = profile.provenance;
    j["fitted"] = res.fitted;
    j["at_bound"] = res.at_bound;
    j["coefficients"] = coefficients_json(profile);
    j["resolved_settings"] = nlohmann::ordered_json::array();
    for (const auto& s : runs)
      if (s.resolved_settings.resolved)
        j["resolved_settings"].push_back({{"id", s.id},
                                          {"settings", resolved_settings_json(s.resolved_settings)},
                                          {"fits", s.resolved_settings.fits}});
    return j.dump(2) + "\n";
  }
  std::string out = profile.provenance;
  bool header = false;
  for (const auto& s : runs) {
    if (!s.resolved_settings.resolved) continue;
    if (!header) out += "settings the runs do not state, resolved with the fitted profile:\n";
    header = true;
    out += fmt::format("  {}: {}{}\n", s.id, resolved_settings_text(s.resolved_settings),
                       s.resolved_settings.fits ? "" : " (no choice fits: the leanest)");
  }
  return out;
}

namespace {

/// One row of the cross-validation tables.
std::string cv_row(const calibrate::CvSummary& s) {
  return fmt::format("{:<44} {:>5} {:>6} {:>9.1f}% {:>8.1f}% {:>9.1f}% {:>8.1f}% {:>9.2f} {:>5}\n", s.name, s.runs,
                     s.groups, s.median_abs_pct, s.p90_abs_pct, s.median_abs_runs_pct, s.p90_abs_runs_pct,
                     s.median_speed_ratio, s.memory_fits);
}

std::string cv_header(const char* what) {
  return fmt::format("{:<44} {:>5} {:>6} {:>10} {:>9} {:>10} {:>9} {:>9} {:>5}\n", what, "runs", "groups", "median",
                     "p90", "median", "p90", "speed", "fit") +
         fmt::format("{:<44} {:>5} {:>6} {:>20} {:>20}\n", "", "", "", "(groups-equal)", "(runs-equal)");
}

/// The error tables: by source group, by generation, overall, and with one regime left out.
std::string cv_error_text(const CalibrationCv& cv, bool estimate) {
  const auto& r = cv.by_source;
  std::string out = fmt::format(
      "Cross-validation, one source group left out at a time ({} groups, {} runs; fitted with the closed-form "
      "estimate, predicted with the {})\n",
      r.groups.size(), r.predictions.size(), estimate ? "closed-form estimate" : "discrete-event simulation");
  out +=
      "|error| of each run's speed figure; groups-equal: each source group weighs the same; runs-equal: each run\n\n";
  out += cv_header("source group");
  for (const auto& s : calibrate::cv_by_group(r)) out += cv_row(s);
  out += "\n" + cv_header("generation");
  for (const auto& s : calibrate::cv_by_generation(r)) out += cv_row(s);
  out += "\n" + cv_row(calibrate::cv_overall(r));
  out += fmt::format(
      "\nOne regime left out at a time ({} regimes: generation x dense/MoE x full/fine-tuning x "
      "precision class x framework family), the honest figure for a workload unlike the data:\n",
      cv.by_regime.groups.size());
  out += cv_header("regime left out");
  for (const auto& s : calibrate::cv_by_group(cv.by_regime)) out += cv_row(s);
  out += "\n" + cv_row(calibrate::cv_overall(cv.by_regime));
  if (cv.kernels)
    out += fmt::format(
        "\nKernel measurements, one source group left out at a time ({} groups, {} held-out predictions): median "
        "|error| {:.1f}%, p90 {:.1f}% (end-to-end runs above are scored apart)\n",
        cv.kernels->groups.size(), cv.kernels->predictions.size(), cv.kernels->median_abs_pct, cv.kernels->p90_abs_pct);
  out +=
      "\nspeed: median predicted / measured speed (groups-equal; 1.00 is right, above 1 predicted too fast); fit: "
      "runs the memory model says fit\n";
  for (const auto& s : r.skipped) out += "not scored: " + s + "\n";
  return out;
}

}  // namespace

std::string cross_validation_text(const CalibrationCv& cv, bool estimate) {
  const auto& r = cv.by_source;
  const auto* loro = &cv.by_regime;
  std::string out = cv_error_text(cv, estimate);
  const calibrate::BandTails tails = calibrate::choose_band_tails(r, loro);
  out +=
      "\nBand coverage by where the ends sit: the residual quantiles, or those of a log-normal fitted to the "
      "residuals (groups-equal; each generation uses the one nearest 80%)\n";
  for (const calibrate::BandRule& rule : calibrate::band_rules()) {
    out += fmt::format("  {:<22}",
                       fmt::format("{}{:g}-{:g}", rule.shape == calibrate::BandShape::LogNormal ? "lognormal " : "",
                                   rule.tail, 1 - rule.tail));
    for (const auto& c : calibrate::cv_band_coverage(r, calibrate::uniform_band_tails(rule), loro))
      out += fmt::format(" {} {:.1f}%", c.name, c.covered_pct);
    out += "\n";
  }
  out += fmt::format(
      "\nPrediction bands (quantiles of measured / predicted step time of the held-out runs, groups-equal; a "
      "regime's own band needs {} runs of {} groups, else its generation's novel-regime spread, a log-normal's "
      "10-90% of the runs predicted with their regime left out)\n",
      compute::kRegimeMinRuns, compute::kRegimeMinGroups);
  out += fmt::format("{:<42} {:>5} {:>6} {:>15} {:>7} {:>7} {:>7}\n", "band", "runs", "groups", "ends", "p10", "p50",
                     "p90");
  for (const auto& q : calibrate::cv_band_quantiles(r, "", tails, loro))
    out += fmt::format("{:<42} {:>5} {:>6} {:>15} {:>7.3f} {:>7.3f} {:>7.3f}\n",
                       std::string(to_string(q.arch)) + (q.regime == compute::kBandRegimeAll ? "" : "." + q.regime),
                       q.runs, q.groups,
                       q.regime == compute::kBandRegimeNovel ? std::string("lognormal 0.1")
                                                             : to_string(tails[static_cast<std::size_t>(q.arch)]),
                       q.p10, q.p50, q.p90);
  out += "\nBand coverage (each run's band made from the other source groups' residuals; target 75-85%)\n";
  out += fmt::format("{:<18} {:>5} {:>6} {:>9} {:>9} {:>9} {:>9} {:>8}\n", "generation", "runs", "groups", "covered",
                     "runs-eq", "below", "above", "no band");
  for (const auto& c : calibrate::cv_band_coverage(r, tails, loro))
    out += fmt::format("{:<18} {:>5} {:>6} {:>8.1f}% {:>8.1f}% {:>8.1f}% {:>8.1f}% {:>8}\n", c.name, c.runs, c.groups,
                       c.covered_pct, c.covered_runs_pct, c.below_pct, c.above_pct, c.no_band);
  return out;
}

namespace {

using J = nlohmann::ordered_json;

J cv_summary_json(const calibrate::CvSummary& s) {
  return J{{"name", s.name},
           {"runs", s.runs},
           {"groups", s.groups},
           {"median_abs_error_pct", s.median_abs_pct},
           {"p90_abs_error_pct", s.p90_abs_pct},
           {"median_abs_error_pct_runs_equal", s.median_abs_runs_pct},
           {"p90_abs_error_pct_runs_equal", s.p90_abs_runs_pct},
           {"median_speed_ratio", s.median_speed_ratio},
           {"memory_fits", s.memory_fits}};
}

/// The folds (each with its fitted coefficients) and every held-out prediction.
void add_folds_json(J& j, const calibrate::CrossValidationResult& r) {
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
                                {"resolved_settings", resolved_settings_json(p.settings)},
                                {"fits_memory", p.fits_memory}});
  j["not_scored"] = r.skipped;
}

/// The band tail rules' coverage, the bands and their coverage.
void add_bands_json(J& j, const calibrate::CrossValidationResult& r, const calibrate::CrossValidationResult* loro) {
  const calibrate::BandTails tails = calibrate::choose_band_tails(r, loro);
  j["band_tail_coverage"] = J::array();
  for (const calibrate::BandRule& rule : calibrate::band_rules())
    for (const auto& c : calibrate::cv_band_coverage(r, calibrate::uniform_band_tails(rule), loro))
      j["band_tail_coverage"].push_back(
          {{"shape", rule.shape == calibrate::BandShape::LogNormal ? "lognormal" : "empirical"},
           {"tail", rule.tail},
           {"name", c.name},
           {"covered_pct", c.covered_pct}});
  j["bands"] = J::array();
  for (const auto& q : calibrate::cv_band_quantiles(r, "", tails, loro))
    j["bands"].push_back(
        {{"generation", to_string(q.arch)},
         {"regime", q.regime},
         {"runs", q.runs},
         {"groups", q.groups},
         {"shape",
          tails[static_cast<std::size_t>(q.arch)].shape == calibrate::BandShape::LogNormal ? "lognormal" : "empirical"},
         {"tail", tails[static_cast<std::size_t>(q.arch)].tail},
         {"p10", q.p10},
         {"p50", q.p50},
         {"p90", q.p90}});
  j["band_coverage"] = J::array();
  for (const auto& c : calibrate::cv_band_coverage(r, tails, loro))
    j["band_coverage"].push_back({{"name", c.name},
                                  {"runs", c.runs},
                                  {"groups", c.groups},
                                  {"covered_pct", c.covered_pct},
                                  {"covered_pct_runs_equal", c.covered_runs_pct},
                                  {"below_p10_pct", c.below_pct},
                                  {"above_p90_pct", c.above_pct},
                                  {"no_band", c.no_band}});
}

}  // namespace

std::string cross_validation_json(const CalibrationCv& cv, bool estimate) {
  const auto& r = cv.by_source;
  J j;
  j["cv"] = "source";
  j["fit_engine"] = "estimate";
  j["prediction_engine"] = estimate ? "estimate" : "simulation";
  j["groups"] = J::array();
  for (const auto& s : calibrate::cv_by_group(r)) j["groups"].push_back(cv_summary_json(s));
  j["generations"] = J::array();
  for (const auto& s : calibrate::cv_by_generation(r)) j["generations"].push_back(cv_summary_json(s));
  j["overall"] = cv_summary_json(calibrate::cv_overall(r));
  j["regimes_left_out"] = J::array();
  for (const auto& s : calibrate::cv_by_group(cv.by_regime)) j["regimes_left_out"].push_back(cv_summary_json(s));
  j["overall_regime_left_out"] = cv_summary_json(calibrate::cv_overall(cv.by_regime));
  if (cv.kernels)
    j["kernels"] = {{"groups", cv.kernels->groups.size()},
                    {"held_out_predictions", cv.kernels->predictions.size()},
                    {"median_abs_error_pct", cv.kernels->median_abs_pct},
                    {"p90_abs_error_pct", cv.kernels->p90_abs_pct}};
  add_folds_json(j, r);
  add_bands_json(j, r, &cv.by_regime);
  return j.dump(2) + "\n";
}

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

}  // namespace flopcast::app

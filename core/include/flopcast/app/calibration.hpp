#pragma once
/// `flopcast calibrate`: a profile fitted bottom-up (the cost layer on kernel and nccl-tests
/// measurements first, then only the whole-step glue on measured runs), or the cross-validation
/// of that fit (one source group left out, and one regime left out) with the prediction bands it
/// gives (docs/calibration.md). The fronts parse their input, call these and render the result.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/app/validation.hpp"
#include "flopcast/calibrate/calibrate.hpp"
#include "flopcast/calibrate/cross_validation.hpp"
#include "flopcast/calibrate/kernel_measurement.hpp"

namespace flopcast::app {

/// The inputs of a fit: full-training runs (fine-tuning runs are held out: `validate` checks the
/// fine-tuning mechanisms on them), nccl-tests points (each file weighing the same) and kernel
/// measurements, with the problems met reading them.
struct CalibrationInputs {
  std::vector<scenario::Scenario> runs;
  calibrate::CalibrationOptions options;
  std::vector<calibrate::KernelMeasurement> kernels;
  std::size_t fine_tuning_held_out = 0;
  InputProblems problems;
  bool empty() const { return runs.empty() && options.collectives.empty() && kernels.empty(); }
};
/// Reads `files` (run, collective and kernel files in any order); collective points are checked
/// with the catalog's profile and a point it cannot predict is left out of the fit (a problem).
CalibrationInputs calibration_inputs(const std::vector<std::string>& files, const io::Catalog& catalog);

/// The kernel stage of a fit: the profile the runs start from (the cost layer's coefficients as
/// the kernels left them, held) and its line in the provenance ("" without kernel measurements).
struct KernelStage {
  compute::ComputeProfile profile;
  std::string provenance;
};
KernelStage fit_kernel_stage(const CalibrationInputs& in, const compute::ComputeProfile& start);

/// Cross-validation of the fit: by source group, by regime, and of the kernel stage.
struct CalibrationCv {
  calibrate::CrossValidationResult by_source;
  calibrate::CrossValidationResult by_regime;
  std::optional<calibrate::KernelCvResult> kernels;
};
/// `first` is the kernel stage's profile, `start` the profile the kernels were fitted from.
CalibrationCv cross_validate_fit(const CalibrationInputs& in, const compute::ComputeProfile& first,
                                 const compute::ComputeProfile& start, bool simulate_predictions, int jobs);

/// `start` with its prediction bands replaced by the cross-validated quantiles, and their
/// provenance naming `command`.
compute::ComputeProfile profile_with_bands(compute::ComputeProfile start, const CalibrationCv& cv,
                                           const std::string& command);

/// The fitted profile named after `output`'s file stem, with its provenance (`command`, the
/// kernel stage, what was fitted and the error before and after).
compute::ComputeProfile fitted_profile(const calibrate::CalibrationResult& res, const std::string& kernel_stage,
                                       const std::string& command, const std::string& output);

/// The text and JSON reports of a cross-validation (`estimate`: predicted with the closed form).
std::string cross_validation_text(const CalibrationCv& cv, bool estimate);
std::string cross_validation_json(const CalibrationCv& cv, bool estimate);

/// The report of a fit written to `output`: its provenance and the settings the runs left open as
/// the fitted profile resolves them (`runs` are resolved here), or the JSON document.
std::string fit_report(const compute::ComputeProfile& profile, const calibrate::CalibrationResult& res,
                       std::vector<scenario::Scenario>& runs, const std::string& output, bool json);

/// Whether `output` can be written, checked before a fit that may take minutes: an existing file
/// without `force`, a missing or unwritable folder. On failure `error` is the one writing would
/// give (io::write_file_atomically refuses before creating anything in these cases).
bool output_writable(const std::string& output, bool force, std::string& error);

}  // namespace flopcast::app

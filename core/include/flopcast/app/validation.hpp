#pragma once
/// `flopcast validate`: measured runs, nccl-tests collective points and kernel measurements
/// predicted and compared with what was measured (docs/run-schema.md, docs/calibration.md).
/// The inputs are read here with their problems kept as text and a status, so that a front
/// prints them and maps the status to its exit code; the renderers give validate's text and
/// JSON reports.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "flopcast/app/kernel_validation.hpp"
#include "flopcast/calibrate/validation.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/collective_runs.hpp"
#include "flopcast/parallel/open_settings.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::app {

/// How reading a command's input files went. Each problem found replaces the status before it
/// (the last one read decides), as the CLI's exit status has always been set.
enum class InputStatus {
  Ok,
  BadInput,    ///< an entry or a file has errors: the rest was read
  Unreadable,  ///< a run file could not be read at all
};

/// What reading input files met: the text a front prints on its error stream (bad entries at
/// file:line, and notes such as the runs a fit holds out, in the order read), one line per
/// rejected entry, and the status.
struct InputProblems {
  std::string text;
  std::vector<std::string> errors;
  InputStatus status = InputStatus::Ok;
};

/// The input files of validate and calibrate sorted by kind: nccl-tests collective files and
/// kernel measurement files (each with its text, read once), and measured-run files.
struct InputFiles {
  std::vector<std::string> runs;
  std::vector<std::pair<std::string, std::string>> collectives;
  std::vector<std::pair<std::string, std::string>> kernels;
};
InputFiles split_input_files(const std::vector<std::string>& files);

/// Every run of every run file; bad entries are recorded in `problems` and left out.
std::vector<scenario::Scenario> load_measured_runs(const std::vector<std::string>& files, const io::Catalog& catalog,
                                                   InputProblems& problems);
/// The measurements of kernel files; bad entries are recorded, the others load.
std::vector<calibrate::KernelMeasurement> load_kernel_measurements(
    const std::vector<std::pair<std::string, std::string>>& files, const io::Catalog& catalog, InputProblems& problems);
/// The points of one collective benchmark file; bad entries are recorded.
std::vector<io::CollectiveRun> load_collective_points(const std::string& file, const std::string& text,
                                                      const io::Catalog& catalog, InputProblems& problems);

/// "micro_batch 2, zero 1": the settings a run left open, as resolved.
std::string resolved_settings_text(const parallel::ResolvedSettings& r);
/// {"parallel.micro_batch": "2", ...}
nlohmann::ordered_json resolved_settings_json(const parallel::ResolvedSettings& r);

/// A run the memory model says does not fit, although it ran.
struct MemoryFailure {
  std::string id;
  workload::MemoryBreakdown memory;
  bool open = false;  ///< its settings were open and no choice fits
};

/// A run whose TFLOP/s or MFU its source counted in another convention than flopcast's.
struct FlopsConversion {
  std::string id;
  scenario::FlopsConvention convention = scenario::FlopsConvention::Model;
  double factor = 1;  ///< flopcast's count / the source's, for the run's plan
};

/// What to validate.
struct ValidationRequest {
  std::vector<std::string> files;  ///< run files, collective files and kernel files, in any order
  bool estimate = false;           ///< predict with the closed-form estimate instead of the simulation
};

/// Everything validate found.
struct Validation {
  std::vector<calibrate::FigureComparison> rows;
  std::vector<scenario::Scenario> runs;  ///< as predicted (open settings resolved with the profile)
  std::vector<MemoryFailure> memory_failures;
  std::vector<FlopsConversion> conversions;
  std::size_t collective_points = 0;
  KernelValidation kernels;
  InputProblems problems;  ///< entries rejected (problems.errors) and what to print about them
};

/// Predicts every run (its open settings resolved with `profile`), every collective point and
/// every kernel measurement of the request's files.
Validation validate_measurements(const ValidationRequest& request, const io::Catalog& catalog,
                                 const compute::ComputeProfile& profile);

/// validate's text report: the rows (unless `summary_only`), the summary, the memory fit, the
/// settings resolved, the FLOP conversions and the runs the memory model says do not fit.
std::string validation_text(const compute::ComputeProfile& profile, const Validation& v, bool estimate,
                            bool summary_only);
/// validate's JSON document (with each prediction's 80% band in the unit of `measured`).
std::string validation_json(const compute::ComputeProfile& profile, const Validation& v, bool estimate);

}  // namespace flopcast::app

#pragma once
/// `flopcast import` and the GUI's File > Import training logs: training logs (Megatron-LM,
/// torchtitan; io/training_log.hpp) made into a measured-run file (docs/run-schema.md) that
/// `validate` and `calibrate` read as any other: the model, plan and precision the job printed,
/// the steady-state iteration and the peak memory it measured, the GPU type from the log or the
/// request. A problem is typed, so that each front words it and the CLI maps it to its exit code.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/training_log.hpp"

namespace flopcast::app {

/// What to import.
struct ImportRequest {
  std::vector<std::string> logs;  ///< log files, one run each
  std::string gpu;                ///< catalog GPU for every run; "" = the GPU each log names
  std::string fabric;             ///< catalog fabric for every run; "" = unstated (the GPU's usual node)
  int gpus_per_node = 0;          ///< 0 = unstated (the fabric's node)
  std::string torchtitan_config;  ///< a torchtitan job config (TOML) for torchtitan logs; "" = none
};

/// Why nothing was imported.
enum class ImportProblem {
  None,
  UnknownGpu,     ///< the request's GPU is not in the catalog (`message`): usage
  UnknownFabric,  ///< the request's fabric is not in the catalog (`message`): usage
  NoGpu,          ///< a log names no GPU the catalog knows and the request gives none (`message`): usage
  Unreadable,     ///< a log or the config cannot be read (`diags`): I/O
  BadLog,         ///< a log is not a training log, contradicts itself or has no steady iteration (`diags`): bad input
};

/// The steady state of a log's iterations: warm-up dropped (the first kWarmupIntervals logged
/// intervals, batch ramp-up, and any interval slower than kSlowFactor times the median of the
/// rest), then the median of what is left.
struct SteadyState {
  static constexpr int kWarmupIntervals = 2;
  static constexpr double kSlowFactor = 1.5;
  std::vector<std::size_t> kept;  ///< indices of the steady intervals, in log order
  int warmup = 0;                 ///< intervals dropped as the run's start
  int ramp_up = 0;                ///< intervals dropped for a smaller global batch than the run's
  int slow = 0;                   ///< intervals dropped for being slower than kSlowFactor x the median
  double seconds = 0;             ///< median time of one iteration, s
  double min_seconds = 0, max_seconds = 0;
  std::optional<double> tokens_per_gpu_s, tflops_per_gpu, mfu;  ///< medians over the kept intervals
  bool empty() const { return kept.empty(); }
};

/// The steady state of `intervals` (global_batch: the run's, 0 = no ramp-up check).
SteadyState steady_state(const std::vector<io::LoggedInterval>& intervals, std::int64_t global_batch);

/// One imported run.
struct ImportedRun {
  std::string id;    ///< the entry's id (from the log's file name, made unique)
  std::string file;  ///< the log
  io::LoggedRun log;
  SteadyState steady;
  std::string gpu;  ///< the catalog GPU written
  io::RunDraft entry;
};

/// The runs file, or the problem that stops it.
struct ImportResult {
  std::string yaml;  ///< the measured-run file ("" on any problem: nothing is written)
  std::vector<ImportedRun> runs;
  scenario::Diagnostics diags;  ///< every log's problems (errors make BadLog or Unreadable), and warnings
  ImportProblem problem = ImportProblem::None;
  std::string message;  ///< UnknownGpu, UnknownFabric, NoGpu: what to give
  bool ok() const { return problem == ImportProblem::None; }
};

/// Reads every log of `request` and, when all read, composes the runs file.
ImportResult import_logs(const ImportRequest& request, const io::Catalog& catalog);

/// One line for a front: "llama70b: Megatron-LM, 80 layers x 8192, 64 x H100 (tp 8, pp 4, dp 2),
/// 16.04 s per iteration (median of 28), peak 71.3 GiB reserved".
std::string import_summary(const ImportedRun& run);

}  // namespace flopcast::app

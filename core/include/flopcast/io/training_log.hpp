#pragma once
/// Reading training logs (Megatron-LM, torchtitan) into measured-run entries: what the job's
/// printed configuration says about the model, the plan and the precision, and the figures of
/// every logged iteration. `flopcast import` (app/log_import.hpp) picks the steady state from
/// the iterations and writes the entry (io/run_draft.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/io/run_draft.hpp"
#include "flopcast/scenario/diagnostic.hpp"

namespace flopcast::io {

/// The framework whose log it is.
enum class LogFramework { MegatronLm, Torchtitan };

/// "Megatron-LM" or "torchtitan".
const char* to_string(LogFramework f);

/// One logged interval: the iteration (step) it ends on and what the log says of it. A
/// framework logs every N iterations the average over those N (Megatron-LM's --log-interval,
/// torchtitan's metrics.log_freq); `seconds` is the time of one iteration.
struct LoggedInterval {
  int line = 0;                            ///< where the log prints it (1-based)
  std::int64_t iteration = 0;              ///< the iteration (step) it ends on
  double seconds = 0;                      ///< time of one iteration, s (torchtitan: from tps, see the parser)
  std::int64_t global_batch = 0;           ///< sequences of this iteration (Megatron-LM's batch ramp-up); 0 = the run's
  std::optional<double> tflops_per_gpu;    ///< the framework's own count (LoggedRun::flops_convention)
  std::optional<double> tokens_per_gpu_s;  ///< torchtitan's tps
  std::optional<double> mfu;               ///< torchtitan's mfu, a fraction of its own peak
};

/// The peak memory per GPU a log reports.
struct LoggedMemory {
  double gib = 0;                       ///< the highest peak the log reports, GiB
  std::string kind;                     ///< "reserved" (torch.cuda.max_memory_reserved) or "allocated"
  std::optional<double> allocated_gib;  ///< Megatron-LM: the highest max allocated beside it
  int line = 0;                         ///< the line reporting the highest peak
  int reports = 0;                      ///< how many lines report memory
};

/// What one training log says.
struct LoggedRun {
  LogFramework framework = LogFramework::MegatronLm;
  std::string file;
  /// The entry's model, cluster.gpus, parallel and precision keys as the log states them (no id,
  /// source or measured yet); keys a log does not state are absent.
  RunDraft draft;
  std::int64_t gpus = 0;          ///< world size
  std::int64_t global_batch = 0;  ///< sequences per iteration once any ramp-up is over
  std::int64_t seq_len = 0;
  std::string device_name;  ///< the GPU as the log names it ("NVIDIA H100 80GB HBM3"); "" = not named
  int device_line = 0;
  std::vector<LoggedInterval> intervals;  ///< every logged interval, in the log's order
  std::optional<LoggedMemory> memory;
  /// How the log counts the FLOPs of its TFLOP/s: "megatron" (Megatron-LM's
  /// num_floating_point_operations) or "model_full_attention" (torchtitan: 6 N plus full,
  /// not causal, attention); the newest run schema's measured.flops_convention.
  std::string flops_convention;
  /// The setting that sets how often it logs, for messages ("--log-interval", "metrics.log_freq").
  std::string log_interval_setting;
  int lines = 0;  ///< lines read
};

/// Options of a log's reading.
struct TrainingLogOptions {
  /// A torchtitan job config (TOML) to read beside a torchtitan log; "" = none (the log's own
  /// printed config and lines only).
  std::string torchtitan_config;
};

/// Reads the training log `path`: detects its framework and reads it. On any problem (not a
/// training log, arguments that contradict each other, a key the entry needs missing) adds
/// file:line diagnostics to `diags` and returns nullopt. A file that cannot be read at all is
/// reported as read_text_file reports it (is_unreadable_file).
std::optional<LoggedRun> read_training_log(const std::string& path, const TrainingLogOptions& options,
                                           scenario::Diagnostics& diags);
/// The same from the log's text; `file` names it in diagnostics.
std::optional<LoggedRun> parse_training_log(const std::string& text, const std::string& file,
                                            const TrainingLogOptions& options, scenario::Diagnostics& diags);

}  // namespace flopcast::io

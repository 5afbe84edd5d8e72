#pragma once
/// One row of `flopcast sweep` per point: the point's scenario (io::sweep_point_scenario), its
/// step, memory, whole run and bills (evaluation.hpp) as the cells of the output columns.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/app/evaluation.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/sweep_loader.hpp"
#include "flopcast/sweep/sweep_runner.hpp"

namespace flopcast::app {

/// The columns after the swept keys: feasible, why, method, step_time_s, mfu, tokens_per_s,
/// memory_gib, days_p50, days_p90, currency, cheapest_plan, cost_p50, cost_p90, costs; each with
/// its type and, for the figures --check compares, which way is better (lower step time, memory,
/// days and cost; higher MFU and tokens/s; feasible true).
const std::vector<sweep::Column>& sweep_output_columns();

/// The id that ties an output file to the sweep's axes and base scenario (FNV-1a 64 of the axes
/// and the base scenario's content, io::SweepSpec::base_values; 16 hex digits), so that --resume
/// and merge refuse another sweep's rows. A comment or layout edit of the base keeps the id.
std::string sweep_id(const io::SweepSpec& spec);

/// The sweep's identity for its output's sidecar: sweep_id, the base scenario's content and its
/// hash (FNV-1a 64), the axes and points, and this flopcast's version.
sweep::SweepIdentity sweep_identity(const io::SweepSpec& spec);

/// Evaluates the points of one sweep. Thread-safe: the sweep runner calls cells() from its
/// workers; calibration profiles are loaded once by name.
class SweepEvaluator {
 public:
  /// `profile` ("" = each point's own calibration) and `engine` apply to every point; price
  /// catalogs are read from `data_dir` ("" = the embedded copies). The spec and catalog
  /// outlive the evaluator.
  SweepEvaluator(const io::SweepSpec& spec, const io::Catalog& catalog, std::string data_dir, std::string profile,
                 StepEngine engine);

  /// The swept keys, then sweep_output_columns().
  std::vector<sweep::Column> columns() const;

  /// The cells of point `index`: the swept values as used (`auto` resolved, see
  /// io::sweep_point_scenario), then one per output column. A point that cannot be evaluated says
  /// why in `feasible` = "false" and `why`; it is never an exception.
  std::vector<std::string> cells(std::int64_t index);

 private:
  std::optional<compute::ComputeProfile> profile_for(const std::string& name);
  void evaluate(std::int64_t index, std::vector<std::string>& used, std::string* out);

  const io::SweepSpec& spec_;
  const io::Catalog& catalog_;
  std::string data_dir_;
  std::string profile_;
  StepEngine engine_;
  std::mutex profiles_mu_;
  std::map<std::string, std::optional<compute::ComputeProfile>> profiles_;
};

}  // namespace flopcast::app

#pragma once
/// Comparing predictions with measured runs (run-schema.md), and the error statistics
/// `validate` prints and `calibrate` minimises.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/comm/collective.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/scenario/diagnostic.hpp"

namespace flopcast::calibrate {

/// One measured figure of one run against its prediction.
struct FigureComparison {
  std::string id;
  std::string figure;  ///< iteration_time_s | tokens_per_gpu_s | mfu | tflops_per_gpu | memory_gib
  double measured = 0;
  double predicted = 0;
  double error_pct = 0;  ///< (predicted - measured) / measured x 100
};

/// The predicted value of `figure` ("iteration_time_s", ...) for a run; NaN when unknown.
double predicted_figure(const scenario::Scenario& s, const estimate::StepEstimate& e, const std::string& figure);

/// Every measured figure of `s` against `e`, in the order iteration_time_s, tokens_per_gpu_s,
/// mfu, tflops_per_gpu, memory_gib (peak memory per GPU against the memory model's total).
std::vector<FigureComparison> compare_run(const scenario::Scenario& s, const estimate::StepEstimate& e);

/// The figures that measure speed (all follow from the step time), in the order above.
const std::vector<std::string>& time_figures();
/// The run's first measured speed figure in that order ("" when it measures only memory): the
/// one figure per run that `calibrate` fits and cross-validation scores, so a run that reports
/// both tokens/s and TFLOP/s (one measurement) counts once.
std::string primary_figure(const scenario::Scenario& s);

/// One measured collective benchmark point (data/calibration/collectives*.yaml): nccl-tests
/// figures for a GPU count and a message size.
struct MeasuredCollective {
  std::string id;
  std::string source;
  scenario::SourceLocation where;
  hardware::GpuSpec gpu;
  std::int64_t gpus = 0;
  int gpus_per_node = 8;
  hardware::FabricSpec fabric;
  comm::Collective op = comm::Collective::AllReduce;
  std::optional<double> message_bytes;     ///< nullopt = the large-message plateau
  bool force_ring = false;                 ///< measured with NCCL_ALGO=RING (stated in notes)
  std::map<std::string, double> measured;  ///< busbw_gbytes_s, algbw_gbytes_s, time_us
};

/// Every measured figure of a collective point against core/comm's prediction with the
/// profile's collective knobs (link efficiencies, collective_latency_us): the model the step
/// estimate uses. A plateau point (no message size) is predicted at nccl-tests' -e 8G. Empty,
/// with `error` set, when the point cannot be costed on its cluster.
std::vector<FigureComparison> compare_collective(const MeasuredCollective& pt, const compute::ComputeProfile& profile,
                                                 std::string& error);

/// Error statistics of one figure over many runs.
struct FigureSummary {
  std::string figure;
  std::size_t count = 0;
  double median_abs_error_pct = 0;
  double p90_abs_error_pct = 0;  ///< linear interpolation between order statistics (numpy's default)
  double mean_abs_error_pct = 0;
};

/// One summary per figure, in first-seen order.
std::vector<FigureSummary> summarize(const std::vector<FigureComparison>& rows);

/// The q-quantile (0..1) of `v` by linear interpolation; v need not be sorted. 0 when empty.
double quantile(std::vector<double> v, double q);

}  // namespace flopcast::calibrate

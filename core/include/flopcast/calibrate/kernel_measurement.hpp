#pragma once
/// Published kernel-level measurements (data/calibration/kernels-2026.yaml: GEMMs, grouped GEMMs,
/// attention, collectives including MoE dispatch and combine, memory-bound kernels, per-op step
/// breakdowns), and their prediction by the cost layer (core/cost). `flopcast validate` compares
/// each entry's measured figure with what the cost layer predicts for its shape; `calibrate` fits
/// the cost layer's per-generation coefficients on them before the whole-step glue
/// (docs/calibration.md, "Kernel measurements").
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/calibrate/validation.hpp"
#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/scenario/diagnostic.hpp"

namespace flopcast::calibrate {

/// What a kernel entry measures.
enum class KernelKind { Gemm, GroupedGemm, Attention, Collective, MemoryBound, StepBreakdown };
const char* to_string(KernelKind k);
std::optional<KernelKind> parse_kernel_kind(std::string_view s);
/// Every kind's name, in enum order ("gemm", "grouped_gemm", ...).
const std::vector<std::string>& kernel_kind_names();

/// One measurement: the kernel's kind, GPU, element type and shape as its source printed them.
struct KernelMeasurement {
  std::string id;
  std::string source;
  scenario::SourceLocation where;
  KernelKind kind = KernelKind::Gemm;
  hardware::GpuSpec gpu;
  hardware::FabricSpec fabric;  ///< the GPU's usual node (its NICs for an RDMA collective)
  /// The element type of the math (for a quantization kernel, its output type); nullopt for
  /// `none` (a copy or collective of untyped bytes).
  std::optional<hardware::Precision> dtype;
  /// Shape keys as written: numbers and words (`op`, `layout`, `direction`, `transport`...) as
  /// text, booleans as "true" / "false". A list (`input_shape: [131072, 7168]`) is in `dims`.
  std::map<std::string, std::string> shape;
  std::vector<double> dims;  ///< `shape.input_shape`, outermost first (empty when absent)
  /// Numeric measured figures, in the unit their key names (tflops, time_us, ..._gbytes_s); the
  /// loader turns time_ms, gpu_time_us and ..._tbytes_s into time_us and ..._gbytes_s. Text
  /// figures ("2.7x", "73.7% peak BW") are metadata, not kept here.
  std::map<std::string, double> measured;
  std::vector<std::string> notes;

  /// The shape key as a number; nullopt when absent or not a number.
  std::optional<double> number(const std::string& key) const;
  /// The shape key's text ("" when absent).
  std::string text(const std::string& key) const;
  /// The shape key as a boolean (`fallback` when absent or not true/false).
  bool flag(const std::string& key, bool fallback) const;
};

/// An entry's measured figure against the cost layer's prediction for its shape on its GPU with
/// `profile`: the first figure it measures of time_us, tflops and the bandwidths its kind
/// reports. nullopt, with `why_not` set, when the cost layer cannot predict it (a kernel no
/// mechanism of flopcast stands for, a figure whose byte count the source does not state).
std::optional<FigureComparison> compare_kernel(const KernelMeasurement& k, const compute::ComputeProfile& profile,
                                               std::string& why_not);

/// Whether the fit uses a measurement: a component kernel or collective. Not a per-op step
/// breakdown, nor a training function timed with kernels the cost layer does not price (torchao's
/// MXFP8 grouped GEMM forward and backward, timed with its scale-layout conversions): each sums
/// kernels of several kinds, some beside work the cost layer does not price, which a fit would
/// charge to whichever coefficient they share. Those are predicted and scored, not fitted.
bool is_component_measurement(const KernelMeasurement& k);

/// Whether a coefficient is whole-step glue, fitted on measured runs only: the in-stream kernel
/// gap and host overheads (host_overhead_us, microbatch_overhead_ms, iteration_overhead_ms,
/// kernel_overhead_us) and each generation's sustained clock. Every other coefficient is the cost
/// layer's, fitted on kernel measurements (the link efficiencies and collective latency on
/// collective benchmarks among them).
bool is_glue_parameter(const std::string& name);

/// How the cost layer is fitted on kernel measurements.
struct KernelFitOptions {
  /// Coefficient names (profile_parameters()) to fit; empty = every coefficient at least
  /// kMinKernelEntries measurements inform.
  std::vector<std::string> parameters;
  int max_iterations = 100;
  /// nccl-tests points (data/calibration/collectives*.yaml): collective measurements fitted with
  /// the kernel entries (one residual each: its time when measured, else its first bandwidth).
  std::vector<MeasuredCollective> collectives;
};

/// A coefficient is fitted on kernels only when at least this many measurements inform it
/// (change when it changes): fewer would make it a fit of one benchmark's quirks.
inline constexpr int kMinKernelEntries = 3;

/// What fitting the cost layer on kernel measurements gave.
struct KernelFitResult {
  compute::ComputeProfile profile;
  std::vector<std::string> fitted;      ///< coefficients fitted, in profile_parameters() order
  std::map<std::string, int> informed;  ///< measurements informing each coefficient (fitted or not)
  std::vector<std::string> at_bound;    ///< fitted coefficients at a bound, "name lower|upper"
  std::size_t entries = 0;  ///< measurements fitted (the residuals; a tied coefficient's few are scored only)
  double median_before_pct = 0, median_after_pct = 0;  ///< median |error| of the predicted figure
  double p90_before_pct = 0, p90_after_pct = 0;
  int iterations = 0;
};

/// Fits the cost layer's coefficients to the measurements: bounded Levenberg-Marquardt on the
/// logarithm of predicted / measured speed of each entry's figure, under a Cauchy loss (scale 10%)
/// so that a benchmark of an unusually slow or fast implementation does not move a coefficient
/// the others agree on. Each entry weighs the same. Only component measurements are fitted
/// (is_component_measurement); the others are scored in the summary. Deterministic.
KernelFitResult fit_kernel_profile(const std::vector<KernelMeasurement>& kernels, const compute::ComputeProfile& start,
                                   const KernelFitOptions& options = {});

/// The publication a measurement comes from, for cross-validation: its source up to the first
/// " @" (a repository at a commit), ":" or "," ("deepseek-ai/DeepGEMM", "NVIDIA/cudnn-frontend").
std::string kernel_source_group(const KernelMeasurement& k);

/// Kernel-level cross-validation: each source group's measurements predicted by the cost layer
/// fitted (fit_kernel_profile, with `options`) on the other groups' alone. What `start` holds
/// stays, except the coefficients its kernel stage fitted (ComputeProfile::kernel_fitted): a
/// profile made by `calibrate` holds those for its run stage, and each fold fits them again.
struct KernelCvResult {
  std::vector<std::string> groups;             ///< in order of first appearance
  std::vector<FigureComparison> predictions;   ///< held-out predictions, by group
  std::vector<std::string> prediction_groups;  ///< the group of each prediction
  double median_abs_pct = 0, p90_abs_pct = 0;  ///< over the held-out predictions
};
KernelCvResult cross_validate_kernels(const std::vector<KernelMeasurement>& kernels,
                                      const compute::ComputeProfile& start, const KernelFitOptions& options = {});

}  // namespace flopcast::calibrate

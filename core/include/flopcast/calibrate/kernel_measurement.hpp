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

namespace flopcast {

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
  SourceLocation where;
  KernelKind kind = KernelKind::Gemm;
  GpuSpec gpu;
  /// The element type of the math (for a quantization kernel, its output type); nullopt for
  /// `none` (a copy or collective of untyped bytes).
  std::optional<Precision> dtype;
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
std::optional<FigureComparison> compare_kernel(const KernelMeasurement& k, const ComputeProfile& profile,
                                               std::string& why_not);

}  // namespace flopcast

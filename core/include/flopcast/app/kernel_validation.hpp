#pragma once
/// Kernel measurements predicted by the cost layer, as `flopcast validate` reports them: one row
/// per predicted entry (its measured figure against the prediction), the entries the cost layer
/// does not predict with why, and the error per kind and over all.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "flopcast/calibrate/kernel_measurement.hpp"

namespace flopcast::app {

/// One predicted entry.
struct KernelRow {
  calibrate::FigureComparison comparison;
  calibrate::KernelKind kind = calibrate::KernelKind::Gemm;
  std::string gpu;
  std::string dtype;  ///< as the entry names it ("none" for untyped bytes)
};

/// An entry the cost layer does not predict.
struct KernelSkipped {
  std::string id;
  calibrate::KernelKind kind = calibrate::KernelKind::Gemm;
  std::string why;
};

/// Every entry of the kernel files given, predicted or not.
struct KernelValidation {
  std::vector<KernelRow> rows;
  std::vector<KernelSkipped> not_predicted;
  std::size_t entries() const { return rows.size() + not_predicted.size(); }
};

/// Predicts every measurement with `profile`.
KernelValidation validate_kernels(const std::vector<calibrate::KernelMeasurement>& kernels,
                                  const compute::ComputeProfile& profile);

/// Absolute-error statistics of a kind ("gemm", ...) or of all entries ("all").
struct KernelSummary {
  std::string name;
  std::size_t predicted = 0;
  std::size_t entries = 0;  ///< predicted and not
  double median_abs_error_pct = 0;
  double p90_abs_error_pct = 0;
  /// Median of predicted / measured speed (rate figures as they are, times inverted): above 1
  /// the cost layer is too fast.
  double median_speed_ratio = 1;
};
/// One summary per kind that has entries (in kind order), then "all".
std::vector<KernelSummary> summarize_kernels(const KernelValidation& v);

/// The text `validate` prints: the rows (unless `summary_only`), the entries not predicted and the
/// summary table.
std::string kernel_validation_text(const KernelValidation& v, bool summary_only);
/// {"kernels": [...], "kernel_summary": {...}, "kernels_not_predicted": [...]} members to merge into
/// validate's JSON document.
nlohmann::ordered_json kernel_validation_json(const KernelValidation& v);

}  // namespace flopcast::app

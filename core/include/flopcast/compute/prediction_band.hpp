#pragma once
/// Prediction bands: how far a predicted step time is from a measured one, as cross-validation
/// found it. A band is three factors on the predicted step time, the 10th, 50th and 90th
/// percentiles of measured step time / predicted step time over the held-out runs of
/// `flopcast calibrate --cv source` (each run predicted by a profile fitted without its source
/// group). The true step time lies between p10 x predicted and p90 x predicted for about 80% of
/// runs like the calibration runs (docs/calibration.md, "Prediction bands"). Speeds (tokens/s,
/// MFU) scale by the inverse factors.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/hardware/gpu_spec.hpp"

namespace flopcast {

/// The regimes bands are kept for within a generation: the runs whose errors differ the most
/// in the calibration data (mixture-of-experts against dense models). "all" pools both.
inline constexpr const char* kBandRegimeAll = "all";
inline constexpr const char* kBandRegimeDense = "dense";
inline constexpr const char* kBandRegimeMoe = "moe";

/// The residual quantiles of one generation (and regime), fitted data stored in the profile.
struct BandQuantiles {
  GpuArch arch = GpuArch::Ampere;
  std::string regime = kBandRegimeAll;  ///< kBandRegimeAll, kBandRegimeDense or kBandRegimeMoe
  int runs = 0;                         ///< held-out runs the quantiles come from
  int groups = 0;                       ///< their source groups (each weighs the same)
  double p10 = 1, p50 = 1, p90 = 1;     ///< measured / predicted step time
};

/// A regime's own quantiles are used only when they rest on at least this many runs from this
/// many source groups; otherwise the generation's pooled ("all") quantiles are. Three groups:
/// a band from one or two publications would be one testbed's scatter, not the model's.
inline constexpr int kBandMinRuns = 10;
inline constexpr int kBandMinGroups = 3;

/// The 80% interval of one prediction, as factors on its step time (1, 1, 1 when unknown).
struct PredictionBand {
  double p10 = 1;      ///< the step takes at least p10 x predicted with 90% probability
  double p50 = 1;      ///< median of measured / predicted on cross-validation (the model's bias)
  double p90 = 1;      ///< the step takes at most p90 x predicted with 90% probability
  bool known = false;  ///< false: the profile has no cross-validated quantiles for the generation
  /// Set when the generation has no quantiles of its own and the band is its stand-in
  /// generation's (coefficient_stand_in), widened by kStandInBandWidening: prior only.
  std::optional<GpuArch> stand_in;
  /// How the band was obtained: "hopper, dense: 21 held-out runs of 7 source groups" or why
  /// there is none.
  std::string basis;
};

/// Said of every prediction on a generation that no measured run informs (its coefficients and
/// band are its stand-in generation's).
inline constexpr const char* kPriorOnlyWords = "prior only: no measured runs of this generation";

/// How much wider, at each end, the band of a generation without quantiles of its own is than
/// its stand-in generation's: p10 / 1.3 and p90 x 1.3 (p50 kept). In the shipped profile
/// (data/profiles/default.yaml) the GEMM efficiency fitted for a generation differs from its
/// predecessor's by up to 1.28x (Ampere 0.78 against Hopper 0.61; Hopper against Blackwell
/// 0.61 / 0.50 = 1.22x): a neighbour's coefficients may be off by about that much. A simple
/// rule, to be replaced when the generation's own runs are calibrated (docs/calibration.md).
inline constexpr double kStandInBandWidening = 1.3;

/// The band of a run on `arch` (moe: a mixture-of-experts model), from `quantiles`: the
/// regime's own entry when it has kBandMinRuns runs of kBandMinGroups groups, else the
/// generation's "all" entry; for a generation with neither, its stand-in generation's band found
/// the same way and widened by kStandInBandWidening; else unknown.
PredictionBand find_band(const std::vector<BandQuantiles>& quantiles, GpuArch arch, bool moe);

}  // namespace flopcast

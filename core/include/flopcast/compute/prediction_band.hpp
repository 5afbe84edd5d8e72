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
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::compute {

/// The regimes bands are kept for within a generation: the runs whose errors differ the most
/// in the calibration data (mixture-of-experts against dense models). "all" pools both.
inline constexpr const char* kBandRegimeAll = "all";
inline constexpr const char* kBandRegimeDense = "dense";
inline constexpr const char* kBandRegimeMoe = "moe";

/// The band of runs whose own regime has too few measured runs: the spread of runs predicted by a
/// profile fitted with their whole regime left out (leave-one-regime-out cross-validation).
inline constexpr const char* kBandRegimeNovel = "novel";

/// The regime of a run within its generation: what makes the model's errors differ (the
/// calibration data show it by these): dense or MoE, full training or fine-tuning (LoRA, QLoRA),
/// the GEMMs' precision class, and the framework family that ran it. Written
/// "dense.full.16bit.megatron".
struct BandRegime {
  bool moe = false;
  bool fine_tuning = false;
  std::string precision;  ///< "16bit" (BF16, FP16, TF32), "8bit" (FP8, MXFP8) or "4bit" (NVFP4)
  /// "megatron" (Megatron-LM, Megatron-core, NeMo, Megatron-Bridge, the MLPerf reference
  /// implementations built on them, vTrain's Megatron-DeepSpeed) or "torchtitan" (PyTorch's FSDP2
  /// stack): a run is torchtitan's when its source group or id names torchtitan or it uses FSDP2.
  /// "other": a plan Megatron-core cannot run (ZeRO-2/3 without FSDP2, a zero-bubble, GPipe or
  /// DualPipe pipeline), whose framework no calibration run used.
  std::string framework = "megatron";
  std::string key() const;
  /// "dense, full training, 16-bit GEMMs, Megatron-core" for reports.
  std::string words() const;
};
BandRegime band_regime(const scenario::Scenario& s);
/// Whether `key` is a regime key ("dense.full.16bit.megatron").
bool is_regime_key(const std::string& key);

/// The residual quantiles of one generation (and regime), fitted data stored in the profile.
struct BandQuantiles {
  hardware::GpuArch arch = hardware::GpuArch::Ampere;
  /// kBandRegimeAll, kBandRegimeDense, kBandRegimeMoe, a BandRegime key, or kBandRegimeNovel.
  std::string regime = kBandRegimeAll;
  int runs = 0;                      ///< held-out runs the quantiles come from
  int groups = 0;                    ///< their source groups (each weighs the same)
  double p10 = 1, p50 = 1, p90 = 1;  ///< measured / predicted step time
};

/// A dense/MoE split of a generation's quantiles is used only when it rests on at least this
/// many runs from this many source groups; otherwise the generation's pooled ("all") quantiles
/// are (profiles without regime bands). Three groups: a band from one or two publications would be
/// one testbed's scatter, not the model's.
inline constexpr int kBandMinRuns = 10;
inline constexpr int kBandMinGroups = 3;
/// A regime's own quantiles are used when they rest on at least this many held-out runs from
/// this many source groups; a regime with fewer borrows its generation's leave-one-regime-out
/// spread (kBandRegimeNovel), which is wider: a workload unlike the data.
inline constexpr int kRegimeMinRuns = 5;
inline constexpr int kRegimeMinGroups = 2;

/// The 80% interval of one prediction, as factors on its step time (1, 1, 1 when unknown).
struct PredictionBand {
  double p10 = 1;      ///< the step takes at least p10 x predicted with 90% probability
  double p50 = 1;      ///< median of measured / predicted on cross-validation (the model's bias)
  double p90 = 1;      ///< the step takes at most p90 x predicted with 90% probability
  bool known = false;  ///< false: the profile has no cross-validated quantiles for the generation
  /// Set when the generation has no quantiles of its own and the band is its stand-in
  /// generation's (coefficient_stand_in), widened by kStandInBandWidening: prior only.
  std::optional<hardware::GpuArch> stand_in;
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
PredictionBand find_band(const std::vector<BandQuantiles>& quantiles, hardware::GpuArch arch, bool moe);

/// The band of a run of `regime` on `arch`: its regime's own quantiles when they rest on
/// kRegimeMinRuns runs of kRegimeMinGroups groups; else its generation's leave-one-regime-out
/// spread (kBandRegimeNovel); else find_band(quantiles, arch, regime.moe) (a profile without
/// regime bands).
PredictionBand find_band(const std::vector<BandQuantiles>& quantiles, hardware::GpuArch arch, const BandRegime& regime);

/// The band of a run whose settings were left open and resolved as the fastest choice that fits
/// (resolve_open_settings): the other choices that fit would have run slower, so the band's median
/// and slow end grow by the median and 90th percentile of their step times over the chosen one
/// (ResolvedSettings::spread_p50, spread_p90); the fast end stays.
PredictionBand widened_for_open_settings(PredictionBand band, double spread_p50, double spread_p90);

/// The band of a scenario's prediction: its regime's (find_band with band_regime(s)), widened
/// for the settings it left open when they were resolved.
PredictionBand band_of(const std::vector<BandQuantiles>& quantiles, const scenario::Scenario& s);

}  // namespace flopcast::compute

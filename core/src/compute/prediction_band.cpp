#include "flopcast/compute/prediction_band.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "flopcast/workload/fine_tuning.hpp"

namespace flopcast::compute {
namespace {

const BandQuantiles* entry(const std::vector<BandQuantiles>& q, hardware::GpuArch arch, const std::string& regime) {
  for (const auto& e : q)
    if (e.arch == arch && e.regime == regime) return &e;
  return nullptr;
}

bool mentions_torchtitan(const std::string& text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("torchtitan") != std::string::npos;
}

std::string precision_class(hardware::Precision p) {
  switch (p) {
    case hardware::Precision::FP8:
    case hardware::Precision::MXFP8:
      return "8bit";
    case hardware::Precision::FP4:
    case hardware::Precision::NVFP4:
      return "4bit";
    default:
      return "16bit";
  }
}

}  // namespace

std::string BandRegime::key() const {
  return fmt::format("{}.{}.{}.{}", moe ? "moe" : "dense", fine_tuning ? "finetune" : "full", precision, framework);
}

std::string BandRegime::words() const {
  return fmt::format("{}, {}, {} GEMMs, {}", moe ? "MoE" : "dense", fine_tuning ? "fine-tuning" : "full training",
                     precision == "8bit"   ? "8-bit"
                     : precision == "4bit" ? "4-bit"
                                           : "16-bit",
                     framework == "torchtitan" ? "torchtitan"
                     : framework == "other"    ? "a framework other than Megatron-core and torchtitan"
                                               : "Megatron-core");
}

BandRegime band_regime(const scenario::Scenario& s) {
  BandRegime r;
  r.moe = s.model.moe.has_value();
  r.fine_tuning = workload::is_fine_tuning(s);
  r.precision = precision_class(s.precision);
  const auto& p = s.plan;
  // Megatron-core shards at most the optimizer state (its distributed optimizer) and pipelines
  // with 1F1B or interleaved 1F1B only (framework_rules.cpp, megatron_runs): a plan beyond that is
  // another framework's, whose runs the bands have not seen.
  const bool megatron_can =
      p.zero <= 1 && !p.fsdp &&
      (p.pp == 1 || p.schedule == parallel::Schedule::OneFOneB || p.schedule == parallel::Schedule::Interleaved);
  r.framework = mentions_torchtitan(s.source_group) || mentions_torchtitan(s.id) || p.fsdp ? "torchtitan"
                : megatron_can                                                             ? "megatron"
                                                                                           : "other";
  return r;
}

bool is_regime_key(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot; (dot = key.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(key.substr(start, dot - start));
  parts.push_back(key.substr(start));
  return parts.size() == 4 && (parts[0] == "dense" || parts[0] == "moe") &&
         (parts[1] == "full" || parts[1] == "finetune") &&
         (parts[2] == "16bit" || parts[2] == "8bit" || parts[2] == "4bit") &&
         (parts[3] == "megatron" || parts[3] == "torchtitan" || parts[3] == "other");
}

PredictionBand find_band(const std::vector<BandQuantiles>& quantiles, hardware::GpuArch arch,
                         const BandRegime& regime) {
  const BandQuantiles* own = entry(quantiles, arch, regime.key());
  if (own && own->runs >= kRegimeMinRuns && own->groups >= kRegimeMinGroups) {
    PredictionBand b{own->p10, own->p50, own->p90, true, std::nullopt, ""};
    b.basis = fmt::format("{}, {}: {} held-out runs of {} source groups", to_string(arch), regime.words(), own->runs,
                          own->groups);
    return b;
  }
  // A generation without residuals of its own takes its stand-in's band for the regime, widened.
  const bool any_own =
      std::any_of(quantiles.begin(), quantiles.end(), [&](const BandQuantiles& q) { return q.arch == arch; });
  if (!any_own) {
    const auto stand_in = hardware::coefficient_stand_in(arch);
    if (!stand_in) return find_band(quantiles, arch, regime.moe);
    PredictionBand b = find_band(quantiles, *stand_in, regime);
    if (!b.known) return b;
    b.p10 /= kStandInBandWidening;
    b.p90 *= kStandInBandWidening;
    b.stand_in = stand_in;
    b.basis = fmt::format("{}: {}; {}'s band ({}) widened x{:g} at each end", to_string(arch), kPriorOnlyWords,
                          to_string(*stand_in), b.basis, kStandInBandWidening);
    return b;
  }
  if (const BandQuantiles* novel = entry(quantiles, arch, kBandRegimeNovel)) {
    PredictionBand b{novel->p10, novel->p50, novel->p90, true, std::nullopt, ""};
    const int runs = own ? own->runs : 0;
    b.basis = fmt::format(
        "{}, {}: {} measured run{} of this regime; the spread of {} runs predicted with their own regime left out",
        to_string(arch), regime.words(), runs, runs == 1 ? "" : "s", novel->runs);
    return b;
  }
  return find_band(quantiles, arch, regime.moe);
}

PredictionBand widened_for_open_settings(PredictionBand band, double spread_p50, double spread_p90) {
  if (!band.known || (spread_p50 <= 1.0 && spread_p90 <= 1.0)) return band;
  band.p50 *= std::max(1.0, spread_p50);
  band.p90 *= std::max(1.0, spread_p90);
  band.basis += fmt::format("; slow end x{:.2f} for the settings the run leaves open (the other choices that fit)",
                            std::max(1.0, spread_p90));
  return band;
}

PredictionBand band_of(const std::vector<BandQuantiles>& quantiles, const scenario::Scenario& s) {
  const PredictionBand b = find_band(quantiles, s.cluster.gpu.arch, band_regime(s));
  const auto& r = s.resolved_settings;
  return r.resolved ? widened_for_open_settings(b, r.spread_p50, r.spread_p90) : b;
}

PredictionBand find_band(const std::vector<BandQuantiles>& quantiles, hardware::GpuArch arch, bool moe) {
  PredictionBand b;
  auto lookup = [&](hardware::GpuArch a) {
    const BandQuantiles* e = entry(quantiles, a, moe ? kBandRegimeMoe : kBandRegimeDense);
    if (e && (e->runs < kBandMinRuns || e->groups < kBandMinGroups)) e = nullptr;
    if (!e) e = entry(quantiles, a, kBandRegimeAll);
    return e;
  };
  const BandQuantiles* e = lookup(arch);
  if (!e) {
    const auto stand_in = hardware::coefficient_stand_in(arch);
    const BandQuantiles* s = stand_in ? lookup(*stand_in) : nullptr;
    if (!s) {
      b.basis = fmt::format("no band: the profile has no cross-validated residuals for {}", to_string(arch));
      return b;
    }
    b.p10 = s->p10 / kStandInBandWidening;
    b.p50 = s->p50;
    b.p90 = s->p90 * kStandInBandWidening;
    b.known = true;
    b.stand_in = stand_in;
    b.basis = fmt::format("{}: {}; {}'s band{} ({} held-out runs of {} source groups) widened x{:g} at each end",
                          to_string(arch), kPriorOnlyWords, to_string(*stand_in),
                          s->regime == kBandRegimeAll ? std::string() : ", " + s->regime, s->runs, s->groups,
                          kStandInBandWidening);
    return b;
  }
  b.p10 = e->p10;
  b.p50 = e->p50;
  b.p90 = e->p90;
  b.known = true;
  b.basis = fmt::format("{}{}: {} held-out runs of {} source groups", to_string(arch),
                        e->regime == kBandRegimeAll ? std::string() : ", " + e->regime, e->runs, e->groups);
  return b;
}

}  // namespace flopcast::compute

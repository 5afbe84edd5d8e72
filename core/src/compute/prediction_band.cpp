#include "flopcast/compute/prediction_band.hpp"

#include <fmt/format.h>

namespace flopcast {
namespace {

const BandQuantiles* entry(const std::vector<BandQuantiles>& q, GpuArch arch, const std::string& regime) {
  for (const auto& e : q)
    if (e.arch == arch && e.regime == regime) return &e;
  return nullptr;
}

}  // namespace

PredictionBand find_band(const std::vector<BandQuantiles>& quantiles, GpuArch arch, bool moe) {
  PredictionBand b;
  auto lookup = [&](GpuArch a) {
    const BandQuantiles* e = entry(quantiles, a, moe ? kBandRegimeMoe : kBandRegimeDense);
    if (e && (e->runs < kBandMinRuns || e->groups < kBandMinGroups)) e = nullptr;
    if (!e) e = entry(quantiles, a, kBandRegimeAll);
    return e;
  };
  const BandQuantiles* e = lookup(arch);
  if (!e) {
    const auto stand_in = coefficient_stand_in(arch);
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

}  // namespace flopcast

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
  const BandQuantiles* e = entry(quantiles, arch, moe ? kBandRegimeMoe : kBandRegimeDense);
  if (e && (e->runs < kBandMinRuns || e->groups < kBandMinGroups)) e = nullptr;
  if (!e) e = entry(quantiles, arch, kBandRegimeAll);
  if (!e) {
    b.basis = fmt::format("no band: the profile has no cross-validated residuals for {}", to_string(arch));
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

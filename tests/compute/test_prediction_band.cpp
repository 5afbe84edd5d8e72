// Prediction bands (prediction_band.hpp): which residual quantiles a prediction gets.
#include <doctest/doctest.h>

#include <vector>

#include "flopcast/compute/prediction_band.hpp"

using namespace flopcast;

namespace {

BandQuantiles q(GpuArch a, const char* regime, int runs, int groups, double p10, double p90) {
  BandQuantiles b;
  b.arch = a;
  b.regime = regime;
  b.runs = runs;
  b.groups = groups;
  b.p10 = p10;
  b.p50 = (p10 + p90) / 2;
  b.p90 = p90;
  return b;
}

}  // namespace

TEST_CASE("find_band: a regime's own quantiles when they rest on enough runs and groups, else the generation's") {
  const std::vector<BandQuantiles> bands = {
      q(GpuArch::Hopper, kBandRegimeAll, 26, 7, 0.65, 1.31),
      q(GpuArch::Hopper, kBandRegimeDense, 20, 6, 0.70, 1.30),
      q(GpuArch::Hopper, kBandRegimeMoe, 6, 3, 0.40, 0.95),  // 6 < kBandMinRuns: not used
      q(GpuArch::Blackwell, kBandRegimeAll, 13, 5, 0.77, 1.14),
      q(GpuArch::Blackwell, kBandRegimeMoe, 12, 2, 0.45, 2.20),  // 2 < kBandMinGroups: not used
  };
  const auto dense = find_band(bands, GpuArch::Hopper, false);
  CHECK(dense.known);
  CHECK(dense.p10 == 0.70);
  CHECK(dense.p90 == 1.30);
  CHECK(dense.basis == "hopper, dense: 20 held-out runs of 6 source groups");
  const auto moe = find_band(bands, GpuArch::Hopper, true);
  CHECK(moe.p10 == 0.65);  // the pooled hopper band
  CHECK(moe.basis == "hopper: 26 held-out runs of 7 source groups");
  const auto bw = find_band(bands, GpuArch::Blackwell, true);
  CHECK(bw.p90 == 1.14);
  const auto none = find_band(bands, GpuArch::Ampere, false);
  CHECK_FALSE(none.known);
  CHECK(none.p10 == 1);
  CHECK(none.p90 == 1);
  CHECK(none.basis.find("no band") == 0);
}

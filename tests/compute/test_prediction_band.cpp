// Prediction bands (prediction_band.hpp): which residual quantiles a prediction gets.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/compute/prediction_band.hpp"
#include "flopcast/io/scenario_loader.hpp"

using namespace flopcast;

namespace {

compute::BandQuantiles q(hardware::GpuArch a, const char* regime, int runs, int groups, double p10, double p90) {
  compute::BandQuantiles b;
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
  const std::vector<compute::BandQuantiles> bands = {
      q(hardware::GpuArch::Hopper, compute::kBandRegimeAll, 26, 7, 0.65, 1.31),
      q(hardware::GpuArch::Hopper, compute::kBandRegimeDense, 20, 6, 0.70, 1.30),
      q(hardware::GpuArch::Hopper, compute::kBandRegimeMoe, 6, 3, 0.40, 0.95),  // 6 < kBandMinRuns: not used
      q(hardware::GpuArch::Blackwell, compute::kBandRegimeAll, 13, 5, 0.77, 1.14),
      q(hardware::GpuArch::Blackwell, compute::kBandRegimeMoe, 12, 2, 0.45, 2.20),  // 2 < kBandMinGroups: not used
  };
  const auto dense = compute::find_band(bands, hardware::GpuArch::Hopper, false);
  CHECK(dense.known);
  CHECK(dense.p10 == 0.70);
  CHECK(dense.p90 == 1.30);
  CHECK(dense.basis == "hopper, dense: 20 held-out runs of 6 source groups");
  const auto moe = compute::find_band(bands, hardware::GpuArch::Hopper, true);
  CHECK(moe.p10 == 0.65);  // the pooled hopper band
  CHECK(moe.basis == "hopper: 26 held-out runs of 7 source groups");
  const auto bw = compute::find_band(bands, hardware::GpuArch::Blackwell, true);
  CHECK(bw.p90 == 1.14);
  const auto none = compute::find_band(bands, hardware::GpuArch::Ampere, false);
  CHECK_FALSE(none.known);
  CHECK(none.p10 == 1);
  CHECK(none.p90 == 1);
  CHECK(none.basis.find("no band") == 0);
}

TEST_CASE("find_band: a generation without quantiles of its own takes its stand-in's band, widened, prior only") {
  const std::vector<compute::BandQuantiles> bands = {
      q(hardware::GpuArch::Ampere, compute::kBandRegimeAll, 1555, 3, 0.90, 1.20),
      q(hardware::GpuArch::Blackwell, compute::kBandRegimeAll, 13, 5, 0.78, 1.17),
  };
  // Blackwell Ultra <- Blackwell: p10 / 1.3, p90 x 1.3 (kStandInBandWidening), p50 kept.
  const auto bu = compute::find_band(bands, hardware::GpuArch::BlackwellUltra, false);
  CHECK(bu.known);
  REQUIRE(bu.stand_in.has_value());
  CHECK(*bu.stand_in == hardware::GpuArch::Blackwell);
  CHECK(bu.p10 == doctest::Approx(0.78 / 1.3));
  CHECK(bu.p50 == doctest::Approx((0.78 + 1.17) / 2));
  CHECK(bu.p90 == doctest::Approx(1.17 * 1.3));
  CHECK(bu.basis ==
        "blackwell_ultra: prior only: no measured runs of this generation; blackwell's band (13 held-out runs of 5 "
        "source groups) widened x1.3 at each end");
  // Ada <- Ampere.
  const auto ada = compute::find_band(bands, hardware::GpuArch::Ada, true);
  CHECK(ada.p90 == doctest::Approx(1.20 * 1.3));
  // A generation with quantiles of its own uses them, not its stand-in's.
  auto own = bands;
  own.push_back(q(hardware::GpuArch::Ada, compute::kBandRegimeAll, 12, 3, 0.85, 1.25));
  const auto ada_own = compute::find_band(own, hardware::GpuArch::Ada, false);
  CHECK_FALSE(ada_own.stand_in.has_value());
  CHECK(ada_own.p90 == 1.25);
  // Hopper has no stand-in: no band.
  CHECK_FALSE(compute::find_band(bands, hardware::GpuArch::Hopper, false).known);
}

TEST_CASE("regime bands: its own with 5 runs of 2 groups, else the generation's novel-regime spread") {
  compute::BandRegime dense16;
  dense16.precision = "16bit";
  compute::BandRegime moe8 = dense16;
  moe8.moe = true;
  moe8.precision = "8bit";
  CHECK(dense16.key() == "dense.full.16bit.megatron");
  CHECK(moe8.key() == "moe.full.8bit.megatron");
  CHECK(compute::is_regime_key("moe.finetune.4bit.torchtitan"));
  CHECK_FALSE(compute::is_regime_key("moe.full.8bit"));
  CHECK_FALSE(compute::is_regime_key("dense.full.12bit.megatron"));
  const std::vector<compute::BandQuantiles> bands = {
      q(hardware::GpuArch::Hopper, compute::kBandRegimeAll, 26, 7, 0.65, 1.31),
      q(hardware::GpuArch::Hopper, "dense.full.16bit.megatron", 12, 2, 0.90, 1.20),
      q(hardware::GpuArch::Hopper, "moe.full.8bit.megatron", 4, 2, 0.50, 0.60),  // 4 < kRegimeMinRuns
      q(hardware::GpuArch::Hopper, compute::kBandRegimeNovel, 26, 7, 0.75, 1.40),
  };
  const auto own = compute::find_band(bands, hardware::GpuArch::Hopper, dense16);
  CHECK(own.known);
  CHECK(own.p10 == 0.90);
  CHECK(own.basis.find("hopper, dense, full training, 16-bit GEMMs, Megatron-core: 12 held-out runs of 2") == 0);
  const auto borrowed = compute::find_band(bands, hardware::GpuArch::Hopper, moe8);
  CHECK(borrowed.p10 == 0.75);
  CHECK(borrowed.p90 == 1.40);
  CHECK(borrowed.basis.find("4 measured runs of this regime") != std::string::npos);
  // One run of the regime: singular.
  const std::vector<compute::BandQuantiles> one = {
      q(hardware::GpuArch::Hopper, "moe.full.8bit.megatron", 1, 1, 0.50, 0.60),
      q(hardware::GpuArch::Hopper, compute::kBandRegimeNovel, 26, 7, 0.75, 1.40)};
  CHECK(compute::find_band(one, hardware::GpuArch::Hopper, moe8)
            .basis.find("Megatron-core: 1 measured run of this "
                        "regime;") != std::string::npos);
  // A profile without regime bands falls back to the generation's (find_band by dense/MoE).
  const std::vector<compute::BandQuantiles> old = {
      q(hardware::GpuArch::Hopper, compute::kBandRegimeAll, 26, 7, 0.65, 1.31)};
  CHECK(compute::find_band(old, hardware::GpuArch::Hopper, moe8).p10 == 0.65);
}

TEST_CASE("a band widens its median and slow end by the spread of the open settings' other choices") {
  compute::PredictionBand b{0.9, 1.0, 1.2, true, std::nullopt, "base"};
  const auto w = compute::widened_for_open_settings(b, 1.10, 1.50);
  CHECK(w.p10 == 0.9);  // the chosen (fastest) setting bounds the fast end
  CHECK(w.p50 == doctest::Approx(1.10));
  CHECK(w.p90 == doctest::Approx(1.80));
  CHECK(w.basis.find("slow end x1.50 for the settings the run leaves open") != std::string::npos);
  // Nothing left open (spreads 1), or no band: unchanged.
  CHECK(compute::widened_for_open_settings(b, 1, 1).p90 == 1.2);
  compute::PredictionBand unknown;
  CHECK_FALSE(compute::widened_for_open_settings(unknown, 2, 3).known);
}

TEST_CASE("band_regime: a plan Megatron-core cannot run is another framework's regime") {
  auto regime_of = [](const std::string& parallel) {
    const std::string text =
        "model: {layers: 8, hidden: 1024, heads: 8, ffn: 4096, vocab: 4096, seq_len: 2048}\n"
        "cluster: {gpu: H100, gpus: 16}\nparallel: " +
        parallel + "\nprecision: bf16\n";
    scenario::Diagnostics d;
    auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
    REQUIRE_MESSAGE(s.has_value(), d.str());
    return compute::band_regime(*s);
  };
  CHECK(regime_of("{pp: 2, dp: 8, zero: 1, schedule: interleaved, vpp: 2, global_batch: 16}").framework == "megatron");
  // ZeRO-2 (no Megatron-core plan shards gradients without the parameters), a zero-bubble pipeline.
  CHECK(regime_of("{dp: 16, zero: 2, global_batch: 16}").framework == "other");
  CHECK(regime_of("{pp: 2, dp: 8, schedule: zero-bubble, global_batch: 16}").framework == "other");
  const compute::BandRegime fsdp =
      regime_of("{dp: 16, zero: 3, fsdp: {reshard_after_forward: true}, global_batch: 16}");
  CHECK(fsdp.framework == "torchtitan");
  CHECK(compute::is_regime_key("dense.full.16bit.other"));
  // No calibrated run has such a plan: it takes the generation's novel-regime band.
  const std::vector<compute::BandQuantiles> bands = {
      q(hardware::GpuArch::Hopper, "dense.full.16bit.megatron", 12, 2, 0.92, 1.19),
      q(hardware::GpuArch::Hopper, "novel", 26, 7, 0.77, 1.27)};
  const compute::PredictionBand b =
      compute::find_band(bands, hardware::GpuArch::Hopper, regime_of("{dp: 16, zero: 2, global_batch: 16}"));
  CHECK(b.p10 == 0.77);
  CHECK(b.basis.find("a framework other than Megatron-core") != std::string::npos);
}

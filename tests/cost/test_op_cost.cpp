// Single-GPU op times (op_cost.hpp) against hand derivations from the formulas documented in
// op_cost.hpp/op_cost.cpp, with GPUs and profiles built here from datasheet figures, so the
// expected numbers do not move when data/ or the calibration changes.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <set>
#include <utility>

#include "flopcast/cost/op_cost.hpp"
#include "flopcast/units/hash.hpp"

using namespace flopcast;

namespace {

/// A GPU from its datasheet: SMs, dense tensor-core TFLOP/s per precision, HBM and its bandwidth.
hardware::GpuSpec spec(const char* name, hardware::GpuArch arch, int sms,
                       std::initializer_list<std::pair<hardware::Precision, double>> tflops, double hbm_gib,
                       double hbm_bytes_per_s) {
  hardware::GpuSpec g;
  g.name = name;
  g.arch = arch;
  g.sm_count = sms;
  for (const auto& [precision, t] : tflops) g.dense_peak[precision] = units::FlopRate::from_tflops(t);
  g.hbm = units::gib(hbm_gib);
  g.hbm_bandwidth = units::Bandwidth{hbm_bytes_per_s};
  return g;
}

/// NVIDIA A100 SXM4 80GB datasheet: 108 SMs, 312 TFLOP/s dense BF16 tensor core,
/// 2,039 GB/s HBM2e.
hardware::GpuSpec a100() {
  return spec("A100-test", hardware::GpuArch::Ampere, 108,
              {{hardware::Precision::BF16, 312}, {hardware::Precision::FP16, 312}}, 80, 2.039e12);
}

/// NVIDIA H100 SXM5 datasheet: 132 SMs, 989.4 TFLOP/s dense BF16 (1,979 with 2:4
/// sparsity / 2), 3.35 TB/s HBM3.
hardware::GpuSpec h100() {
  return spec("H100-test", hardware::GpuArch::Hopper, 132,
              {{hardware::Precision::BF16, 989.4}, {hardware::Precision::FP8, 1978.9}}, 79.65, 3.35e12);
}

/// NVIDIA B200 datasheet (HGX B200, per GPU): 148 SMs, 2.25 PFLOP/s dense BF16, 4.5 dense FP8
/// and MXFP8, 8 TB/s HBM3e.
hardware::GpuSpec b200() {
  return spec("B200-test", hardware::GpuArch::Blackwell, 148,
              {{hardware::Precision::BF16, 2250}, {hardware::Precision::FP8, 4500}, {hardware::Precision::MXFP8, 4500}},
              180, 8e12);
}

/// The profile values the expectations below are derived with.
compute::ComputeProfile profile(double overhead_us = 6.0) {
  compute::ComputeProfile p;
  p.of(hardware::GpuArch::Ampere) = compute::ArchEfficiency{0.80, 0.55, 0.75};
  p.of(hardware::GpuArch::Hopper) = compute::ArchEfficiency{0.75, 0.55, 0.75};
  p.gemm_k_half = 64;
  p.kernel_overhead_us = overhead_us;
  return p;
}

}  // namespace

TEST_CASE("square 8192^3 BF16 GEMM on A100: 19 waves of 256x128 tiles") {
  // op_cost.hpp: time = waves x 2 tm tn k / (peak/SMs x eff(k)), eff(k) = gemm k/(k + k_half),
  // plus one launch. 256x128 tiles: (8192/256) x (8192/128) = 2,048 tiles, ceil(2048/108) =
  // 19 waves (128x256 ties, 128x128 ties with 38 waves of half the time; the 64-wide tiles lose
  // to their intensity factor). The HBM roofline (3 x 8192^2 x 2 B / (2.039 TB/s x 0.75) =
  // 0.26 ms) does not bind.
  const auto gpu = a100();
  const auto prof = profile();
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const double k = 8192, per_sm = 312e12 / 108, eff = 0.80 * k / (k + 64);
  const double expected = 19 * 2 * 256 * 128 * k / (per_sm * eff) + 6e-6;  // = 4.454 ms
  const auto t = cost::gemm_time(ctx, cost::GemmShape{8192, 8192, 8192, 1});
  CHECK(t.seconds() == doctest::Approx(expected).epsilon(0.01));
  CHECK(t.seconds() == doctest::Approx(4.454e-3).epsilon(0.01));
  // Against the ideal 2 m n k / (peak x eff): the wave tail costs 19 x 108 / 2048 - 1 = 0.2%.
  const double ideal = 2 * k * k * k / (312e12 * eff);
  CHECK(t.seconds() > ideal);
  CHECK((t.seconds() - 6e-6) / ideal == doctest::Approx(19.0 * 108 / 2048).epsilon(1e-6));
}

TEST_CASE("square 8192^3 BF16 GEMM on H100: stream-K deals the k-iterations of 4,096 tiles over 132 SMs") {
  // Hopper's kernels schedule tiles persistently and split the k loop across SMs (stream-K): no
  // partial last wave (16 waves of 256x128 tiles would take 1.546 ms), the ideal 2 m n k /
  // (peak x eff(k)) = 1.4934 ms, plus one FP32 partial tile per SM written and read back: 128x128
  // tiles (the 256-wide ones double it), 132 x 128 x 128 x 8 B at 3.35 TB/s x 0.75 = 6.9 us; plus
  // one 6 us launch: 1.5063 ms.
  const auto gpu = h100();
  const auto prof = profile();
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const double k = 8192, eff = 0.75 * k / (k + 64);
  const double fixup = 132 * 128 * 128 * 8.0 / (3.35e12 * 0.75);
  const double expected = 2 * k * k * k / (989.4e12 * eff) + fixup + 6e-6;
  const auto t = cost::gemm_time(ctx, cost::GemmShape{8192, 8192, 8192, 1});
  CHECK(t.seconds() == doctest::Approx(expected).epsilon(1e-6));
  CHECK(t.seconds() == doctest::Approx(1.5063e-3).epsilon(1e-3));
  // A100 keeps its waves (4.454 ms, above): 2.96 times the H100's.
  const auto a = a100();
  const cost::OpContext actx{&a, &prof, hardware::Precision::BF16};
  CHECK(cost::gemm_time(actx, cost::GemmShape{8192, 8192, 8192, 1}).seconds() / t.seconds() ==
        doctest::Approx(2.957).epsilon(0.001));
}

TEST_CASE("an 8-bit GEMM runs at the profile's gemm_fp8 of the FP8 peak, a 16-bit one at gemm") {
  // The 8192^3 GEMM above in FP8: the same stream-K schedule at twice the per-SM peak and
  // gemm_fp8 = 0.60 instead of 0.75: 2 x 8192^3 / (1978.9e12 x 0.60 x 8192/8256) + 6.9 us of
  // partials + 6 us = 0.9461 ms.
  const auto gpu = h100();
  auto prof = profile();
  prof.of(hardware::GpuArch::Hopper).gemm_fp8 = 0.60;
  prof.of(hardware::GpuArch::Hopper).fp8_apart = true;
  const cost::OpContext fp8{&gpu, &prof, hardware::Precision::FP8};
  const double k = 8192, depth = k / (k + 64);
  const double fixed = 132 * 128 * 128 * 8.0 / (3.35e12 * 0.75) + 6e-6;
  const double expected = 2 * k * k * k / (1978.9e12 * 0.60 * depth) + fixed;
  CHECK(expected == doctest::Approx(0.9461e-3).epsilon(0.001));
  CHECK(cost::gemm_time(fp8, cost::GemmShape{8192, 8192, 8192, 1}).seconds() ==
        doctest::Approx(expected).epsilon(1e-6));
  // The BF16 GEMM keeps gemm (1.5063 ms, above), whatever gemm_fp8 is.
  const cost::OpContext bf16{&gpu, &prof, hardware::Precision::BF16};
  CHECK(cost::gemm_time(bf16, cost::GemmShape{8192, 8192, 8192, 1}).seconds() ==
        doctest::Approx(1.5063e-3).epsilon(1e-3));
  CHECK(cost::gemm_efficiency(prof.of(hardware::GpuArch::Hopper), hardware::Precision::FP8) == 0.60);
  CHECK(cost::gemm_efficiency(prof.of(hardware::GpuArch::Hopper), hardware::Precision::MXFP8) == 0.60);
  CHECK(cost::gemm_efficiency(prof.of(hardware::GpuArch::Hopper), hardware::Precision::BF16) == 0.75);
  // A 4-bit GEMM without a coefficient of its own (gemm_fp4 tied) runs at the 8-bit one's.
  CHECK(cost::gemm_efficiency(prof.of(hardware::GpuArch::Hopper), hardware::Precision::NVFP4) == 0.60);
  // Tied (a profile that does not set it apart), an 8-bit GEMM runs at gemm; the memo keys on the
  // efficiency used, so the same shape is recomputed.
  prof.of(hardware::GpuArch::Hopper).fp8_apart = false;
  CHECK(cost::gemm_efficiency(prof.of(hardware::GpuArch::Hopper), hardware::Precision::FP8) == 0.75);
  CHECK(cost::gemm_time(fp8, cost::GemmShape{8192, 8192, 8192, 1}).seconds() ==
        doctest::Approx(2 * k * k * k / (1978.9e12 * 0.75 * depth) + fixed).epsilon(1e-6));
}

TEST_CASE("wave quantization: SMs + 2 tiles take two waves on A100, their share of the work on H100") {
  // A100 (108 SMs), k = 8192, no launch overhead. 1152 x 1536 = 9 x 12 = 108 tiles of 128x128: one
  // wave. 1280 x 1408 = 10 x 11 = 110 tiles: two waves; the other tile shapes do no better
  // (256x128 and 128x256: 55 or 60 tiles of twice the time; 128x64: 220 tiles, 3 waves x 0.5 at
  // two thirds the rate = 2.25; a split of k would make 220 > 2 x 108 tiles). Both stay
  // compute-bound.
  const auto a = a100();
  const auto prof = profile(0.0);
  const cost::OpContext actx{&a, &prof, hardware::Precision::BF16};
  const auto full = cost::gemm_time(actx, cost::GemmShape{1152, 1536, 8192, 1});
  const auto tail = cost::gemm_time(actx, cost::GemmShape{1280, 1408, 8192, 1});
  // 1280 x 1408 is only 1.9% more work than 1152 x 1536, yet takes twice the time.
  CHECK(tail.seconds() / full.seconds() == doctest::Approx(2.0).epsilon(1e-4));
  // One wave of 128x128 tiles: 2 x 128 x 128 x k / (peak/108 x 0.80 x k/(k+64)).
  const double wave = 2 * 128 * 128 * 8192.0 / (312e12 / 108 * 0.80 * 8192 / (8192 + 64));
  CHECK(full.seconds() == doctest::Approx(wave).epsilon(1e-6));
  // H100 (132 SMs): 1536 x 1408 fills one wave of 132 tiles; 896 x 2432 makes 133, which stream-K
  // deals over the SMs: their work (0.8% more) plus one partial tile per SM written and read
  // (132 x 128 x 128 x 8 B at 3.35 TB/s x 0.75 = 6.9 us), not a second wave.
  const auto h = h100();
  const cost::OpContext hctx{&h, &prof, hardware::Precision::BF16};
  const auto one_wave = cost::gemm_time(hctx, cost::GemmShape{1536, 1408, 8192, 1});
  const auto spread = cost::gemm_time(hctx, cost::GemmShape{896, 2432, 8192, 1});
  const double per_tile = 2 * 128 * 128 * 8192.0 / (989.4e12 / 132 * 0.75 * 8192 / (8192 + 64));
  CHECK(one_wave.seconds() == doctest::Approx(per_tile).epsilon(1e-6));
  CHECK(spread.seconds() ==
        doctest::Approx(133.0 / 132 * per_tile + 132 * 128 * 128 * 8.0 / (3.35e12 * 0.75)).epsilon(1e-6));
  CHECK(spread.seconds() / one_wave.seconds() < 1.2);
}

TEST_CASE("a shallow GEMM is bound by HBM") {
  // m = n = 8192, k = 16: eff(16) = 0.80 x 16/80 = 0.16, 19 waves of 256x128x16 tiles = 43 us of
  // math; reading A, B and writing C, 2 B x (8192 x 16 x 2 + 8192^2) = 134.7 MB at
  // 2.039 TB/s x 0.75 = 88 us: the roofline binds.
  const auto gpu = a100();
  const auto prof = profile(0.0);
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const double bytes = 2.0 * (8192.0 * 16 + 16.0 * 8192 + 8192.0 * 8192);
  const auto t = cost::gemm_time(ctx, cost::GemmShape{8192, 8192, 16, 1});
  CHECK(t.seconds() == doctest::Approx(bytes / (2.039e12 * 0.75)).epsilon(1e-6));
  const double math = 19 * 2 * 256 * 128 * 16.0 / (312e12 / 108 * 0.16);
  CHECK(t.seconds() > 2 * math);
}

TEST_CASE("memory-bound layer norm: bytes / (HBM x eff) + launch overhead, exactly") {
  // LayerNorm forward of s = 4096, b = 1, h = 8192 in BF16 on A100-80G: read x and write y,
  // 2 x 4096 x 8192 x 2 B = 134,217,728 B; / (2.039e12 B/s x 0.75) = 87,767.03 ns -> 87,767 ns;
  // plus one 6 us launch = 93,767 ns.
  const auto gpu = a100();
  const auto prof = profile();
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  CHECK(cost::memory_bound_time(ctx, units::Bytes{134217728.0}, 1).ns == 93'767);
  // Three kernels: three launches.
  CHECK(cost::memory_bound_time(ctx, units::Bytes{134217728.0}, 3).ns == 87'767 + 3 * 6'000);
  CHECK(cost::launch_overhead(prof, 4).ns == 24'000);
  CHECK(cost::memory_bound_time(ctx, units::Bytes{0}, 1).ns == 6'000);
}

TEST_CASE("attention: causal is about half of non-causal for long sequences, backward 2.5x forward plus its edges") {
  // op_cost.hpp: forward 2 (head_dim + head_dim_v) FLOPs per attended key per query at peak x
  // flash_attention efficiency; causal attends q kv / 2 keys plus the half block of 64 keys per
  // query on the diagonal (128-wide blocks computed whole), 1/2 + 64/16384 = 129/256 of the full
  // square; backward 2.5x the forward (Dao 2023, arXiv 2307.08691).
  const auto gpu = h100();
  const auto prof = profile(0.0);
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const double heads = 32, seq = 16384, hd = 128;
  const cost::AttentionShape full_shape{heads, seq, seq, hd, hd, false, 0},
      causal_shape{heads, seq, seq, hd, hd, true, 0};
  const auto full = cost::attention_time(ctx, full_shape, false);
  const auto causal = cost::attention_time(ctx, causal_shape, false);
  const double fwd = 4 * heads * seq * seq * hd / (989.4e12 * 0.55);
  CHECK(full.seconds() == doctest::Approx(fwd).epsilon(1e-6));
  // 128 blocks: 129/256 = 0.504.
  CHECK(causal.seconds() / full.seconds() == doctest::Approx(129.0 / 256).epsilon(1e-6));
  CHECK(causal.seconds() / full.seconds() > 0.5);
  CHECK(causal.seconds() / full.seconds() < 0.51);
  // Backward: 2.5x the forward's main loop, plus the preprocess (read O and dO, clear the FP32
  // dQ accumulator) and postprocess (read it, write dQ) over 32 x 16384 query rows of 128:
  // (2 x 128 x 2 + 4 x 128 + 4 x 128 + 2 x 128) B = 1,792 B a row at 3.35 TB/s x 0.75.
  const auto bwd = cost::attention_time(ctx, causal_shape, true);
  const double edges = heads * seq * 1792.0 / (3.35e12 * 0.75);
  CHECK(bwd.seconds() == doctest::Approx(2.5 * causal.seconds() + edges).epsilon(1e-6));
  // Linear in the sequence against the main loop's square: at 16K keys 3.5% of the backward.
  CHECK(edges / bwd.seconds() == doctest::Approx(0.0354).epsilon(0.01));
  // With the default 6 us launches, long sequences still give ~half.
  const auto prof6 = profile(6.0);
  const cost::OpContext ctx6{&gpu, &prof6, hardware::Precision::BF16};
  const double r = cost::attention_time(ctx6, causal_shape, false).seconds() /
                   cost::attention_time(ctx6, full_shape, false).seconds();
  CHECK(r == doctest::Approx(0.5).epsilon(0.02));
}

TEST_CASE("degenerate shapes cost one launch, never a crash") {
  const auto gpu = a100();
  const auto prof = profile();
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  CHECK(cost::gemm_time(ctx, cost::GemmShape{0, 8192, 8192, 1}).ns == 6'000);
  CHECK(cost::attention_time(ctx, cost::AttentionShape{0, 2048, 2048, 128, 128, true, 0}, false).ns == 0);
}

TEST_CASE("the GEMM memo never answers for another GPU that reuses a spec's address") {
  // Regression: the memo was keyed by the GpuSpec's address. Scenarios are often
  // temporaries (calibrate's micro-batch alternatives, the planner's candidates); a later one
  // for another GPU of the same architecture could sit at the same address and get the first
  // GPU's time, which made `flopcast calibrate` differ from run to run. Same storage here, so
  // the address is reused for certain: an HBM-bound shape must follow each GPU's bandwidth.
  const auto prof = profile();
  const cost::GemmShape skinny{8192, 8192, 16, 1};  // bound by HBM (see "a shallow GEMM is bound by HBM")
  std::optional<hardware::GpuSpec> slot;
  slot.emplace(a100());
  const units::Time fast = cost::gemm_time(cost::OpContext{&*slot, &prof, hardware::Precision::BF16}, skinny);
  slot.reset();
  hardware::GpuSpec slower = a100();
  slower.name = "A100-40G-test";
  slower.hbm_bandwidth = units::Bandwidth{1.555e12};  // A100 40GB datasheet: 1,555 GB/s HBM2
  slot.emplace(slower);
  const units::Time slow = cost::gemm_time(cost::OpContext{&*slot, &prof, hardware::Precision::BF16}, skinny);
  // A copy at another address, computed with a cold key: what the memo must agree with.
  const hardware::GpuSpec elsewhere = slower;
  const units::Time expected = cost::gemm_time(cost::OpContext{&elsewhere, &prof, hardware::Precision::BF16}, skinny);
  CHECK(slow.ns == expected.ns);
  CHECK(slow > fast);
  // The ratio of the HBM-bound parts is the bandwidth ratio (times rounded to the ns).
  CHECK((slow.seconds() - 6e-6) / (fast.seconds() - 6e-6) == doctest::Approx(2.039 / 1.555).epsilon(1e-4));
}

TEST_CASE("mix64 spreads byte sizes a power of two apart over the memo's slots") {
  // The collective-cost memo keys on a message size in bytes (a double); sizes 2^k apart
  // differ only in exponent bits, so their low bits are all zero and, unmixed, share slot 0.
  std::set<std::uint64_t> raw, mixed;
  for (int k = 10; k <= 40; ++k) {
    const double bytes = std::ldexp(1.0, k);
    std::uint64_t bits;
    std::memcpy(&bits, &bytes, sizeof bits);
    raw.insert(bits & 1023);
    mixed.insert(units::mix64(bits) & 1023);
  }
  CHECK(raw.size() == 1);
  // 31 keys in 1,024 slots: a uniform hash collides about 0.45 times on average (birthday
  // bound); these 31 take 30 slots. Allow two collisions, never the one-slot pile-up.
  CHECK(mixed.size() >= 29);
}

TEST_CASE("split-K: a GEMM whose tiles leave SMs idle splits its depth and pays the FP32 partial tiles") {
  // m = n = 512, k = 16384 on H100 (no launch overhead, k_half 64): 16 tiles of 128x128 for 132
  // SMs. Split 8 ways: 128 work units in one wave of depth 2048 (efficiency 0.75 x 2048/2112), plus
  // 16 x 128 x 128 x 8 splits x 8 B of partial tiles through HBM: far below the one wave of full
  // depth the unsplit GEMM takes; the search may find better still.
  const auto gpu = h100();
  const auto prof = profile(0.0);
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const double per_sm = 989.4e12 / 132;
  const double unsplit = 2 * 128 * 128 * 16384.0 / (per_sm * 0.75 * 16384 / (16384 + 64));
  const double split8 =
      2 * 128 * 128 * 2048.0 / (per_sm * 0.75 * 2048 / (2048 + 64)) + 16 * 128 * 128 * 8 * 8.0 / (3.35e12 * 0.75);
  const double t = cost::gemm_time(ctx, cost::GemmShape{512, 512, 16384, 1}).seconds();
  CHECK(t < unsplit / 4);
  CHECK(t <= split8 * (1 + 1e-9));
}

TEST_CASE("a grouped GEMM runs at the generation's grouped_gemm rate, a dense one does not") {
  const auto gpu = h100();
  auto prof = profile(0.0);
  prof.of(hardware::GpuArch::Hopper).grouped_gemm = 0.5;
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const cost::GemmShape dense{8192, 8192, 8192, 4, false}, grouped{8192, 8192, 8192, 4, true};
  // Compute-bound: the grouped kernel takes twice the dense batch's time (but for the stream-K
  // partials, 7 us that move at the HBM rate whatever the GEMM rate: 0.1% of 6 ms).
  CHECK(cost::gemm_time(ctx, grouped).seconds() ==
        doctest::Approx(2 * cost::gemm_time(ctx, dense).seconds()).epsilon(2e-3));
}

TEST_CASE("attended keys: causal about half the square plus the diagonal half block, a window its width") {
  // Causal self-attention of 4096: 4096^2 / 2 + 64 x 4096. A window of 1024 (causal): each query's
  // last 1024 keys, fewer for the first 1024 queries: 4096 x 1024 - 1024^2 / 2 + 64 x 4096.
  CHECK(cost::attended_keys({1, 4096, 4096, 128, 128, true, 0}) == doctest::Approx(4096.0 * 4096 / 2 + 64 * 4096));
  CHECK(cost::attended_keys({1, 4096, 4096, 128, 128, false, 0}) == doctest::Approx(4096.0 * 4096));
  CHECK(cost::attended_keys({1, 4096, 4096, 64, 64, true, 1024}) ==
        doctest::Approx(4096.0 * 1024 - 1024.0 * 1024 / 2 + 64 * 4096));
  // A window wider than the sequence is no window.
  CHECK(cost::attended_keys({1, 4096, 4096, 64, 64, true, 8192}) ==
        cost::attended_keys({1, 4096, 4096, 64, 64, true, 0}));
}

TEST_CASE("a cast reads its 16-bit input and writes each quantised copy with its scales") {
  // 1M values of BF16 to MXFP8, row- and column-wise: 2 B + 2 x (1 + 1/32) B per value at the
  // HBM efficiency (0.75 in this profile) of H100's 3.35 TB/s.
  const auto gpu = h100();
  const auto prof = profile(0.0);
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::MXFP8};
  const double bytes = 1e6 * (2 + 2 * (1 + 1.0 / 32));
  CHECK(cost::cast_time(ctx, 1e6, 2, 2).seconds() == doctest::Approx(bytes / (3.35e12 * 0.75)).epsilon(1e-6));
  CHECK(cost::quantised_bytes_per_value(hardware::Precision::NVFP4) == doctest::Approx(0.5 + 1.0 / 16));
  CHECK(cost::quantised_bytes_per_value(hardware::Precision::FP8) == doctest::Approx(1 + 4.0 / 128));
}

TEST_CASE("an FP32-accumulating GEMM adds its output's read and write, 8 B an element, after the math") {
  // m = 7168, n = 4096, k = 4096 on H100 in BF16 (no launch overhead): compute-bound, so the plain
  // kernel's time is its waves of math; accumulating into FP32 adds 7168 x 4096 x 8 B =
  // 234,881,024 B at 3.35 TB/s x 0.75 = 93.49 us, the same with or without the memo.
  const auto gpu = h100();
  const auto prof = profile(0.0);
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const cost::GemmShape plain{7168, 4096, 4096};
  cost::GemmShape accumulate = plain;
  accumulate.accumulate_fp32 = true;
  const double extra = 7168.0 * 4096 * 8 / (3.35e12 * 0.75);
  const double base = cost::gemm_time(ctx, plain).seconds();
  CHECK(cost::gemm_time(ctx, accumulate).seconds() == doctest::Approx(base + extra).epsilon(1e-9));
  // The memo keys on the flag: the plain shape asked again is the plain time.
  CHECK(cost::gemm_time(ctx, plain).seconds() == base);
  // Batched: every output matrix is read and written.
  cost::GemmShape batched = accumulate;
  batched.batch = 3;
  const double batched_plain = cost::gemm_time(ctx, cost::GemmShape{7168, 4096, 4096, 3}).seconds();
  CHECK(cost::gemm_time(ctx, batched).seconds() == doctest::Approx(batched_plain + 3 * extra).epsilon(1e-9));
}

TEST_CASE("an 8-bit grouped GEMM runs at grouped_gemm_fp8 where the profile sets it apart, else at grouped_gemm") {
  const auto gpu = h100();
  auto prof = profile(0.0);
  auto& hopper = prof.of(hardware::GpuArch::Hopper);
  hopper.grouped_gemm = 0.5;
  const cost::GemmShape grouped{8192, 8192, 8192, 4, true};
  const cost::OpContext bf16{&gpu, &prof, hardware::Precision::BF16}, fp8{&gpu, &prof, hardware::Precision::FP8};
  // Tied (NaN): both precisions take grouped_gemm.
  CHECK(hopper.grouped_of(hardware::Precision::FP8) == 0.5);
  const double tied = cost::gemm_time(fp8, grouped).seconds();
  hopper.grouped_gemm_fp8 = 1.0;
  CHECK(hopper.grouped_of(hardware::Precision::FP8) == 1.0);
  CHECK(hopper.grouped_of(hardware::Precision::MXFP8) == 1.0);
  CHECK(hopper.grouped_of(hardware::Precision::BF16) == 0.5);
  // Compute-bound: the 8-bit kernel at twice the grouped rate takes half the time; the 16-bit one
  // keeps its own (but for the stream-K partials, which move at the HBM rate: 0.1-0.2%).
  CHECK(cost::gemm_time(fp8, grouped).seconds() == doctest::Approx(tied / 2).epsilon(3e-3));
  CHECK(
      cost::gemm_time(bf16, grouped).seconds() ==
      doctest::Approx(2 * cost::gemm_time(bf16, cost::GemmShape{8192, 8192, 8192, 4, false}).seconds()).epsilon(2e-3));
}

TEST_CASE("bitsandbytes' NF4 dequantization: codes and absmax read, 16 bits written, at its own efficiency") {
  // 8192 x 8192 NF4 weights on A100 (2.039 TB/s), one call, no double quantization: 0.5 B of codes
  // and 4/64 B of fp32 absmax read, 2 B written per weight = 2.5625 x 67,108,864 B = 171.97 MB.
  const auto gpu = a100();
  auto prof = profile(6.0);
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const double n = 8192.0 * 8192;
  const double plain = n * (2.5 + 4.0 / 64);
  // Unfitted, the kernel streams at the HBM efficiency (0.75 here), plus one launch.
  CHECK(cost::nf4_dequant_time(ctx, n, false).seconds() ==
        doctest::Approx(plain / (2.039e12 * 0.75) + 6e-6).epsilon(1e-9));
  // Its own coefficient, once a profile gives it: 0.25 of HBM, 337.3 us.
  prof.of(hardware::GpuArch::Ampere).dequant_nf4 = 0.25;
  CHECK(cost::nf4_dequant_time(ctx, n, false).seconds() ==
        doctest::Approx(plain / (2.039e12 * 0.25) + 6e-6).epsilon(1e-9));
  // Double quantization: the 8-bit absmax codes restored first (1 B read, 4 B written per block of
  // 64, one fp32 scale per 256 blocks, the same kernel family), then `absmax += offset` (8 B per
  // block): three kernels, the call's bytes at its one rate.
  const double blocks = n / 64;
  const double nested = (plain + blocks * (5 + 4.0 / 256 + 8)) / (2.039e12 * 0.25);
  CHECK(cost::nf4_dequant_time(ctx, n, true).seconds() == doctest::Approx(nested + 18e-6).epsilon(1e-9));
  // Seven matrices dequantized in seven calls: seven times the launches, the same bytes.
  CHECK(cost::nf4_dequant_time(ctx, n, true, 7).seconds() == doctest::Approx(nested + 7 * 18e-6).epsilon(1e-9));
  CHECK(cost::nf4_dequant_time(ctx, 0, true).seconds() == 0);
}

TEST_CASE("the exposed epilogue: a share of the output tiles' bytes at the HBM rate, where registers accumulate") {
  // 8192 x 4096 x 1024 BF16 on H100 (no launch overhead): every tile shape divides the output, so
  // each pads nothing and writes the same 8192 x 4096 x 2 B = 67,108,864 B; with 0.6 of it exposed
  // at 3.35 TB/s x 0.75 every candidate pays 16.03 us more and the best stays the best. The HBM
  // roofline (82 MB of operands and output: 33 us) stays below the math.
  const auto gpu = h100();
  compute::ComputeProfile prof = profile(0.0);
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const cost::GemmShape g{8192, 4096, 1024};
  const double hidden = cost::gemm_time(ctx, g).seconds();
  prof.gemm_epilogue_exposed = 0.6;
  const double extra = 0.6 * 8192.0 * 4096 * 2 / (3.35e12 * 0.75);
  CHECK(cost::gemm_time(ctx, g).seconds() == doctest::Approx(hidden + extra).epsilon(1e-9));
  // A Blackwell GPU accumulates in tensor memory and drains one accumulator while it fills the
  // other: the same share costs it nothing.
  hardware::GpuSpec b200 = gpu;
  b200.name = "B200-test";
  b200.arch = hardware::GpuArch::Blackwell;
  compute::ComputeProfile blackwell = profile(0.0);
  blackwell.of(hardware::GpuArch::Blackwell) = blackwell.of(hardware::GpuArch::Hopper);
  const cost::OpContext bctx{&b200, &blackwell, hardware::Precision::BF16};
  const double before = cost::gemm_time(bctx, g).seconds();
  blackwell.gemm_epilogue_exposed = 0.6;
  CHECK(cost::gemm_time(bctx, g).seconds() == before);
  // An output-heavy shape (shallow K, wide N) pays it in proportion: at K = 512 the share is a
  // larger part of the time than at K = 4096.
  const cost::GemmShape shallow{4096, 32768, 512}, deep{4096, 32768, 4096};
  auto ratio = [&](const cost::GemmShape& s) {
    prof.gemm_epilogue_exposed = 0;
    const double a = cost::gemm_time(ctx, s).seconds();
    prof.gemm_epilogue_exposed = 0.6;
    return cost::gemm_time(ctx, s).seconds() / a;
  };
  CHECK(ratio(shallow) > ratio(deep));
  CHECK(ratio(deep) > 1.0);
  // A GEMM that accumulates into FP32 pays its output's read and write whole already: no share on top.
  cost::GemmShape wgrad = g;
  wgrad.accumulate_fp32 = true;
  prof.gemm_epilogue_exposed = 0;
  const double whole = cost::gemm_time(ctx, wgrad).seconds();
  prof.gemm_epilogue_exposed = 0.6;
  CHECK(cost::gemm_time(ctx, wgrad).seconds() == whole);
}

TEST_CASE("block-scaled MXFP8 attention runs at attention_mxfp8 where the profile sets it apart, else at FP8's") {
  const auto gpu = b200();
  compute::ComputeProfile prof = profile(0.0);
  auto& bw = prof.of(hardware::GpuArch::Blackwell);
  bw = compute::ArchEfficiency{0.75, 0.60, 0.75};
  bw.attention_fp8 = 0.50;
  bw.attention_fp8_bwd = 0.40;
  const cost::AttentionShape a{128, 8192, 8192, 192, 128, true, 0};
  const cost::OpContext fp8{&gpu, &prof, hardware::Precision::FP8}, mx{&gpu, &prof, hardware::Precision::MXFP8};
  // Tied (NaN): MXFP8 takes the per-tensor FP8 rate, forward and backward.
  CHECK(bw.attention_of(hardware::Precision::MXFP8, false) == 0.50);
  CHECK(bw.attention_of(hardware::Precision::MXFP8, true) == 0.40);
  CHECK(cost::attention_time(mx, a, false).seconds() == cost::attention_time(fp8, a, false).seconds());
  // Apart: the forward's main loop takes 0.50 / 0.40 as long; FP8 and BF16 keep theirs.
  const double fp8_fwd = cost::attention_time(fp8, a, false).seconds();
  bw.attention_mxfp8 = 0.40;
  bw.attention_mxfp8_bwd = 0.30;
  CHECK(bw.attention_of(hardware::Precision::MXFP8, true) == 0.30);
  CHECK(bw.attention_of(hardware::Precision::FP8, true) == 0.40);
  CHECK(bw.attention_of(hardware::Precision::BF16, false) == 0.60);
  CHECK(cost::attention_time(mx, a, false).seconds() == doctest::Approx(fp8_fwd * 0.50 / 0.40).epsilon(1e-9));
  CHECK(cost::attention_time(fp8, a, false).seconds() == doctest::Approx(fp8_fwd).epsilon(1e-12));
}

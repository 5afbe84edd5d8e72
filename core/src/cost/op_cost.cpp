#include "flopcast/cost/op_cost.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "flopcast/units/hash.hpp"

namespace flopcast {
namespace {

struct Tile {
  double m, n;
};
// CTA tile shapes cuBLAS/CUTLASS kernels use for 16-bit tensor-core GEMMs on A100 and
// H100 (CUTLASS default configurations: 256x128, 128x256, 128x128, 128x64, 64x128, 64x64).
constexpr std::array<Tile, 6> kTiles{{{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 128}, {64, 64}}};

double peak_flops(const OpContext& c) {
  if (auto p = c.gpu->peak(c.precision)) return p->flops_per_s;
  // No tensor-core path for this precision (e.g. fp8 on A100): the caller rejected it at load.
  return c.gpu->peak(Precision::BF16) ? c.gpu->peak(Precision::BF16)->flops_per_s : 1e12;
}

}  // namespace

Time launch_overhead(const ComputeProfile& p, int kernels) { return Time::from_us(p.kernel_overhead_us * kernels); }

bool is_8bit_gemm(Precision p) { return p == Precision::FP8 || p == Precision::MXFP8; }

double gemm_efficiency(const ArchEfficiency& eff, Precision p) {
  return eff.fp8_apart && is_8bit_gemm(p) ? eff.gemm_fp8 : eff.gemm;
}

namespace {

/// Memo of GEMM times: the planner asks for the same shapes again and again. Keyed by the
/// values the time depends on (shape; the GPU's SM count, peak for the precision, HBM
/// bandwidth and element size; the profile's values), so a hit returns exactly what a
/// recomputation would. Not by the GpuSpec's address: a Scenario is often a temporary (the
/// planner's candidates, calibrate's micro-batch alternatives), and a later one for another
/// GPU of the same architecture can sit at the same address. Per thread, bounded.
struct GemmKey {
  double m, n, k, batch;
  double sms, peak, hbm_bw, elt;
  double gemm_eff, hbm_eff, k_half, overhead;
  bool operator==(const GemmKey&) const = default;
};
struct GemmKeyHash {
  static std::uint64_t bits(double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  }
  /// Over the fields that vary in practice (the shape, the GPU's peak and bandwidth, the
  /// GEMM efficiency a calibration moves); a slot hit still compares the whole key. Independent
  /// products, summed, so the CPU computes them side by side.
  std::size_t operator()(const GemmKey& k) const {
    const std::uint64_t h = bits(k.m) * 0x9E3779B97F4A7C15ull + bits(k.n) * 0xC2B2AE3D27D4EB4Full +
                            bits(k.k) * 0x165667B19E3779F9ull + bits(k.batch) * 0x27D4EB2F165667C5ull +
                            bits(k.peak) * 0x85EBCA77C2B2AE63ull + bits(k.hbm_bw) * 0xFF51AFD7ED558CCDull +
                            bits(k.gemm_eff) * 0xC4CEB9FE1A85EC53ull;
    // Shapes a power of two apart differ only in their exponent bits: mix them into the slot bits.
    return static_cast<std::size_t>(mix64(h));
  }
};

Time gemm_time_uncached(const OpContext& c, const GemmShape& g);

}  // namespace

Time gemm_time(const OpContext& c, const GemmShape& g) {
  if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return launch_overhead(*c.profile, 1);
  const auto& eff = c.profile->of(c.gpu->arch);
  const GemmKey key{g.m,
                    g.n,
                    g.k,
                    g.batch,
                    static_cast<double>(c.gpu->sm_count),
                    peak_flops(c),
                    c.gpu->hbm_bandwidth.bytes_per_s,
                    bytes_per_element(c.precision),
                    gemm_efficiency(eff, c.precision),
                    eff.hbm,
                    c.profile->gemm_k_half,
                    c.profile->kernel_overhead_us};
  // Direct-mapped: one slot per hash, overwritten on a miss (no allocation, no chains).
  struct Slot {
    GemmKey key{};
    Time t{};
    bool used = false;
  };
  constexpr std::size_t kSlots = 1u << 12;
  thread_local std::vector<Slot> memo(kSlots);
  Slot& slot = memo[GemmKeyHash{}(key) & (kSlots - 1)];
  if (slot.used && slot.key == key) return slot.t;
  const Time t = gemm_time_uncached(c, g);
  slot = {key, t, true};
  return t;
}

namespace {

Time gemm_time_uncached(const OpContext& c, const GemmShape& g) {
  const auto& eff = c.profile->of(c.gpu->arch);
  const double sms = std::max(1, c.gpu->sm_count);
  const double per_sm = peak_flops(c) / sms;
  const double k_eff = gemm_efficiency(eff, c.precision) * g.k / (g.k + c.profile->gemm_k_half);
  double best = INFINITY;
  for (const auto& t : kTiles) {
    const double tiles = std::ceil(g.m / t.m) * std::ceil(g.n / t.n) * g.batch;
    const double waves = std::ceil(tiles / sms);
    // Smaller tiles reuse each loaded operand less: at 64 wide the tensor cores wait on
    // shared memory; scale the achievable rate by the tile's arithmetic intensity relative
    // to a 128x128 tile, capped at 1 (harmonic mean of the two sides).
    const double intensity = (2 * t.m * t.n / (t.m + t.n)) / 128.0;
    const double tile_eff = std::min(1.0, intensity);
    const double tile_time = 2 * t.m * t.n * g.k / (per_sm * k_eff * tile_eff);
    best = std::min(best, waves * tile_time);
  }
  const double elt = bytes_per_element(c.precision);
  const double bytes = elt * g.batch * (g.m * g.k + g.k * g.n + g.m * g.n);
  const double mem = bytes / (c.gpu->hbm_bandwidth.bytes_per_s * eff.hbm);
  return Time::from_seconds(std::max(best, mem)) + launch_overhead(*c.profile, 1);
}

}  // namespace

Time attention_time(const OpContext& c, double heads, double q_len, double kv_len, double head_dim, bool causal,
                    bool backward) {
  if (heads <= 0 || q_len <= 0 || kv_len <= 0) return Time{0};
  const auto& eff = c.profile->of(c.gpu->arch);
  // Fraction of the q x kv score matrix computed: causal kernels skip blocks above the
  // diagonal; with 128-wide blocks the diagonal blocks are computed whole.
  double frac = 1.0;
  if (causal) {
    const double blocks = std::max(1.0, std::ceil(q_len / 128.0));
    frac = (blocks + 1) / (2 * blocks);  // load-balanced context parallelism keeps this ratio per rank
  }
  const double fwd = 4 * heads * q_len * kv_len * head_dim * frac;
  const double flops = backward ? 2.5 * fwd : fwd;
  // Head dims below 128 leave the tensor cores less work per loaded tile.
  const double hd_eff = std::min(1.0, head_dim / 128.0 + 0.25);
  const double t = flops / (peak_flops(c) * eff.flash_attention * std::min(1.0, hd_eff));
  return Time::from_seconds(t) + launch_overhead(*c.profile, backward ? 2 : 1);
}

Time memory_bound_time(const OpContext& c, Bytes bytes, int kernels) {
  const auto& eff = c.profile->of(c.gpu->arch);
  return Time::from_seconds(bytes.value / (c.gpu->hbm_bandwidth.bytes_per_s * eff.hbm)) +
         launch_overhead(*c.profile, kernels);
}

}  // namespace flopcast

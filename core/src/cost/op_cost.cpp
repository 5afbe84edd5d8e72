#include "flopcast/cost/op_cost.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "flopcast/units/hash.hpp"

namespace flopcast::cost {
namespace {

struct Tile {
  double m, n;
};
// CTA tile shapes cuBLAS/CUTLASS kernels use for tensor-core GEMMs on A100 and H100 (CUTLASS
// default configurations: 256x128, 128x256, 128x128, 128x64, 64x128, 64x64), and the 64x256
// tiles of Hopper's small-M kernels (DeepGEMM's BLOCK_M 64 with BLOCK_N up to 256,
// deep_gemm/jit_kernels/gemm.py).
constexpr std::array<Tile, 7> kTiles{{{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 128}, {64, 64}, {64, 256}}};
// Split-K factors tried when the tiles leave SMs idle; a split keeps at least kMinSplitDepth of
// the reduction (CUTLASS's split-K and stream-K kernels keep whole k-blocks of 64-128).
constexpr std::array<double, 4> kSplits{1, 2, 4, 8};
constexpr double kMinSplitDepth = 256;

/// The tensor-core rate a kernel of the context's precision can reach in a training step: the
/// datasheet's dense peak at the clock the GPU sustains (ArchEfficiency::sustained_clock).
double peak_flops(const OpContext& c) {
  const double clock = c.profile->of(c.profile->coefficients_of(c.gpu->arch)).sustained_clock;
  if (auto p = c.gpu->peak(c.precision)) return p->flops_per_s * clock;
  // No tensor-core path for this precision (e.g. fp8 on A100): the caller rejected it at load.
  return (c.gpu->peak(hardware::Precision::BF16) ? c.gpu->peak(hardware::Precision::BF16)->flops_per_s : 1e12) * clock;
}

}  // namespace

units::Time launch_overhead(const compute::ComputeProfile& p, int kernels) {
  return units::Time::from_us(p.kernel_overhead_us * kernels);
}

bool is_8bit_gemm(hardware::Precision p) { return p == hardware::Precision::FP8 || p == hardware::Precision::MXFP8; }

double gemm_efficiency(const compute::ArchEfficiency& eff, hardware::Precision p) { return eff.gemm_of(p); }

namespace {

/// The generation's coefficients (its stand-in's when the profile does not list it).
const compute::ArchEfficiency& arch_of(const OpContext& c) {
  return c.profile->of(c.profile->coefficients_of(c.gpu->arch));
}

/// The share of a GEMM's output write its math does not hide: none where the accumulator sits in
/// tensor memory (ComputeProfile::gemm_epilogue_exposed).
double exposed_epilogue(const OpContext& c) {
  return hardware::accumulates_in_tensor_memory(c.gpu->arch) ? 0.0 : c.profile->gemm_epilogue_exposed;
}

}  // namespace

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
  double gemm_eff, hbm_eff, k_half, epilogue, overhead;
  bool accumulate_fp32;
  bool operator==(const GemmKey&) const = default;
};
// gemm_eff is the rate a GEMM reaches: a grouped one's carries its precision's grouped factor.
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
    return static_cast<std::size_t>(units::mix64(h));
  }
};

units::Time gemm_time_uncached(const OpContext& c, const GemmShape& g);

}  // namespace

units::Time gemm_time(const OpContext& c, const GemmShape& g) {
  if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return launch_overhead(*c.profile, 1);
  const auto& eff = arch_of(c);
  const GemmKey key{g.m,
                    g.n,
                    g.k,
                    g.batch,
                    static_cast<double>(c.gpu->sm_count),
                    peak_flops(c),
                    c.gpu->hbm_bandwidth.bytes_per_s,
                    hardware::bytes_per_element(c.precision),
                    eff.gemm_of(c.precision) * (g.grouped ? eff.grouped_of(c.precision) : 1.0),
                    eff.hbm,
                    c.profile->gemm_k_half,
                    exposed_epilogue(c),
                    c.profile->kernel_overhead_us,
                    g.accumulate_fp32};
  // Direct-mapped: one slot per hash, overwritten on a miss (no allocation, no chains).
  struct Slot {
    GemmKey key{};
    units::Time t{};
    bool used = false;
  };
  constexpr std::size_t kSlots = 1u << 12;
  thread_local std::vector<Slot> memo(kSlots);
  Slot& slot = memo[GemmKeyHash{}(key) & (kSlots - 1)];
  if (slot.used && slot.key == key) return slot.t;
  const units::Time t = gemm_time_uncached(c, g);
  slot = {key, t, true};
  return t;
}

namespace {

units::Time gemm_time_uncached(const OpContext& c, const GemmShape& g) {
  const auto& eff = arch_of(c);
  const double sms = std::max(1, c.gpu->sm_count);
  const double per_sm = peak_flops(c) / sms;
  const double rate = eff.gemm_of(c.precision) * (g.grouped ? eff.grouped_of(c.precision) : 1.0);
  const double hbm = c.gpu->hbm_bandwidth.bytes_per_s * eff.hbm;
  const double elt = hardware::bytes_per_element(c.precision);
  const double out = std::max(elt, 2.0);
  // An FP32-accumulating GEMM's output traffic is charged whole below (`accumulate`).
  const double epilogue = g.accumulate_fp32 ? 0.0 : exposed_epilogue(c);
  // Hopper's and Blackwell's CUTLASS 3 kernels, which cuBLAS ships, schedule tiles persistently and
  // can split the k loop across SMs (stream-K: cutlass/gemm/kernel/sm90_tile_scheduler_stream_k.hpp).
  const bool stream_k = c.gpu->arch != hardware::GpuArch::Ampere && c.gpu->arch != hardware::GpuArch::Ada;
  double best = INFINITY;
  for (const auto& t : kTiles) {
    const double tiles = std::ceil(g.m / t.m) * std::ceil(g.n / t.n) * g.batch;
    // Smaller tiles reuse each loaded operand less: at 64 wide the tensor cores wait on
    // shared memory; scale the achievable rate by the tile's arithmetic intensity relative
    // to a 128x128 tile, capped at 1 (harmonic mean of the two sides).
    const double intensity = (2 * t.m * t.n / (t.m + t.n)) / 128.0;
    const double tile_eff = std::min(1.0, intensity);
    for (const double s : kSplits) {
      if (s > 1 && (g.k / s < kMinSplitDepth || tiles * s > 2 * sms)) continue;
      const double depth = g.k / s;
      const double k_eff = rate * depth / (depth + c.profile->gemm_k_half);
      const double waves = std::ceil(tiles * s / sms);
      double time = waves * 2 * t.m * t.n * depth / (per_sm * k_eff * tile_eff);
      if (s > 1) time += tiles * t.m * t.n * s * 8.0 / hbm;  // FP32 partial tiles written and read back
      // The exposed share of each tile's output write: every wave's tiles write together, so the
      // sum over the waves is the padded output's bytes at the HBM rate.
      time += epilogue * tiles * t.m * t.n * out / hbm;
      best = std::min(best, time);
    }
    if (stream_k) {
      // Stream-K: the tiles' k-iterations dealt evenly over the SMs, no partial last wave (each
      // SM's share of a k loop no deeper than the tile's); a tile split between SMs is summed
      // through FP32 partial tiles, one an SM whose share ends inside a tile: every SM's, written
      // and read back.
      const double depth = g.k * std::min(1.0, tiles / sms);
      const double k_eff = rate * depth / (depth + c.profile->gemm_k_half);
      double time = tiles * 2 * t.m * t.n * g.k / (sms * per_sm * k_eff * tile_eff);
      time += sms * t.m * t.n * 8.0 / hbm;
      time += epilogue * tiles * t.m * t.n * out / hbm;
      best = std::min(best, time);
    }
  }
  const double bytes = g.batch * (elt * (g.m * g.k + g.k * g.n) + out * g.m * g.n);
  // An FP32-accumulating GEMM's epilogue reads the FP32 tile it adds to and writes it back once
  // the main loop has finished it: 8 bytes per output element that the math does not hide.
  // DeepGEMM's wgrad kernels (wgrad_gemm_fp8_fp8_fp32_nt, deepseek-ai/DeepGEMM PR #95) run 20-40%
  // below its BF16-output kernels at K = 4096 and 9-25% at K = 8192: this term accounts for both.
  const double accumulate = g.accumulate_fp32 ? g.batch * g.m * g.n * 8.0 / hbm : 0.0;
  return units::Time::from_seconds(std::max(best, bytes / hbm) + accumulate) + launch_overhead(*c.profile, 1);
}

}  // namespace

double attended_keys(const AttentionShape& a) {
  const double q = a.q_len, kv = a.kv_len;
  if (q <= 0 || kv <= 0) return 0;
  // FlashAttention computes 128-key blocks whole: the block a query's mask cuts through costs on
  // average half a block more than the keys it keeps (kBlock / 2 per query).
  constexpr double kHalfBlock = 64;
  const double w = a.window > 0 ? std::min(a.window, kv) : kv;
  double keys = 0;
  if (!a.causal) {
    keys = q * w;
  } else if (w >= kv) {
    // The queries are the last q of kv positions (context parallelism balances the halves it
    // gives a rank, so a rank's queries see kv / 2 keys on average as well).
    keys = q * kv / 2 + kHalfBlock * q;
  } else {
    // Each query's last w keys, but the first w queries' fewer.
    keys = q * w - (q / kv) * w * w / 2 + kHalfBlock * q;
  }
  return std::min(keys, q * kv);
}

units::Time attention_time(const OpContext& c, const AttentionShape& a, bool backward) {
  if (a.batch_heads <= 0 || a.q_len <= 0 || a.kv_len <= 0) return units::Time{0};
  const auto& eff = arch_of(c);
  const double dv = a.head_dim_v > 0 ? a.head_dim_v : a.head_dim;
  const double keys = attended_keys(a);
  const double fwd = 2 * a.batch_heads * (a.head_dim + dv) * keys;
  const double flops = backward ? 2.5 * fwd : fwd;
  // Head dims below 128 leave the tensor cores less work per loaded tile.
  const double hd_eff = std::min(1.0, (a.head_dim + dv) / 2 / 128.0 + 0.25);
  const double mean_keys = keys / a.q_len;
  const double kv_eff = mean_keys / (mean_keys + c.profile->attention_kv_half);
  const double rate = peak_flops(c) * eff.attention_of(c.precision, backward) * hd_eff * kv_eff;
  const units::Time main = units::Time::from_seconds(flops / rate);
  if (!backward) return main + launch_overhead(*c.profile, 1);
  // The backward's two memory-bound kernels beside its main loop, per query row and head
  // (FlashAttention-3, hopper/flash_bwd_preprocess_kernel.h and flash_bwd_postprocess_kernel.h;
  // FlashAttention-2 and cuDNN's SDPA backward likewise): the preprocess reads O and dO for
  // rowsum(dO * O) and clears the FP32 dQ accumulator, the postprocess reads that accumulator
  // and writes dQ. Linear in the sequence where the main loop is quadratic: it weighs on short
  // sequences.
  const double elt = std::max(1.0, hardware::bytes_per_element(c.precision));
  const double rows = a.batch_heads * a.q_len;
  const double preprocess = 2 * dv * elt + 4 * a.head_dim;       // O and dO read, the FP32 accumulator cleared
  const double postprocess = 4 * a.head_dim + elt * a.head_dim;  // the accumulator read, dQ written
  const double bytes = rows * (preprocess + postprocess);
  return main + units::Time::from_seconds(bytes / (c.gpu->hbm_bandwidth.bytes_per_s * eff.hbm)) +
         launch_overhead(*c.profile, 3);
}

units::Time memory_bound_time(const OpContext& c, units::Bytes bytes, int kernels) {
  const auto& eff = arch_of(c);
  return units::Time::from_seconds(bytes.value / (c.gpu->hbm_bandwidth.bytes_per_s * eff.hbm)) +
         launch_overhead(*c.profile, kernels);
}

double quantised_bytes_per_value(hardware::Precision p) {
  switch (p) {
    case hardware::Precision::FP8:
      return 1.0 + 4.0 / 128;  // FP32 scale per 128 values (blockwise FP8; per-tensor: fewer)
    case hardware::Precision::MXFP8:
      return 1.0 + 1.0 / 32;  // E8M0 scale per 32 (OCP Microscaling v1.0)
    case hardware::Precision::NVFP4:
    case hardware::Precision::FP4:
      return 0.5 + 1.0 / 16;  // E4M3 scale per 16 (NVIDIA NVFP4)
    default:
      return hardware::bytes_per_element(p);
  }
}

double nf4_dequant_bytes(double elements, bool nested, double blocksize) {
  const double blocks = elements / blocksize;
  // kDequantizeBlockwise: codes and the fp32 absmax read, 16-bit values written.
  double bytes = elements * (0.5 + 2.0) + blocks * 4;
  // Double quantization: dequantize_blockwise reads the 8-bit absmax codes (one fp32 scale per 256
  // of them) and writes fp32; absmax += offset reads and writes it (a PyTorch add, 8 B a block,
  // 0.125 B a weight at blocks of 64, priced with the call's own rate).
  if (nested) bytes += blocks * (1 + 4 + 4.0 / 256 + 8);
  return bytes;
}

int nf4_dequant_kernels(bool nested) { return nested ? 3 : 1; }

units::Time nf4_dequant_time(const OpContext& c, double elements, bool nested, double calls, double blocksize) {
  if (elements <= 0) return units::Time{0};
  const double seconds =
      nf4_dequant_bytes(elements, nested, blocksize) / (c.gpu->hbm_bandwidth.bytes_per_s * arch_of(c).nf4_dequant());
  const auto launches = static_cast<int>(std::min(calls * nf4_dequant_kernels(nested), 1e6));
  return units::Time::from_seconds(seconds) + launch_overhead(*c.profile, launches);
}

units::Time cast_time(const OpContext& c, double elements, double in_bytes, int outputs) {
  if (elements <= 0) return units::Time{0};
  const double bytes = elements * (in_bytes + outputs * quantised_bytes_per_value(c.precision));
  return units::Time::from_seconds(bytes / (c.gpu->hbm_bandwidth.bytes_per_s * arch_of(c).cast_of(c.precision))) +
         launch_overhead(*c.profile, 1);
}

}  // namespace flopcast::cost

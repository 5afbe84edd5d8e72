#pragma once
/// Strong unit types used across module boundaries: Time (int64 ns), Bytes, Flops,
/// Bandwidth (bytes per second), FlopRate. Money lives in units/money.hpp.
///
/// Conventions (docs/references.md, "Conventions flopcast takes from these sources"):
/// GB = 1e9 bytes, GiB = 2^30 bytes, GB/s = 1e9 B/s, TFLOP/s = 1e12 FLOP/s.
#include <cmath>
#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>

namespace flopcast::units {

/// A duration or instant in integer nanoseconds: event order and sums are exact and
/// reproducible. Range: +-292 years.
struct Time {
  std::int64_t ns = 0;

  static constexpr Time from_ns(std::int64_t v) { return Time{v}; }
  /// Rounds to the nearest nanosecond; saturates instead of overflowing.
  static Time from_seconds(double s) {
    const double v = s * 1e9;
    if (!(v == v)) return Time{0};
    if (v >= 9.2e18) return Time{std::numeric_limits<std::int64_t>::max()};
    if (v <= -9.2e18) return Time{std::numeric_limits<std::int64_t>::min()};
    // std::round (half away from zero) without the libm call, which is hot in the planner:
    // truncation is exact in this range and v - trunc(v) is exact too.
    auto i = static_cast<std::int64_t>(v);
    const double frac = v - static_cast<double>(i);
    if (frac >= 0.5)
      ++i;
    else if (frac <= -0.5)
      --i;
    return Time{i};
  }
  static Time from_us(double us) { return from_seconds(us * 1e-6); }
  constexpr double seconds() const { return static_cast<double>(ns) * 1e-9; }
  constexpr double us() const { return static_cast<double>(ns) * 1e-3; }
  constexpr double ms() const { return static_cast<double>(ns) * 1e-6; }
  constexpr double hours() const { return seconds() / 3600.0; }
  constexpr double days() const { return seconds() / 86400.0; }

  /// Sums and differences saturate at the int64 range like from_seconds: a saturated
  /// ("never") time plus anything stays saturated instead of wrapping (signed overflow is UB).
  constexpr Time operator+(Time o) const {
    std::int64_t r = 0;
    if (__builtin_add_overflow(ns, o.ns, &r)) return saturated(o.ns > 0);
    return Time{r};
  }
  constexpr Time operator-(Time o) const {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(ns, o.ns, &r)) return saturated(o.ns < 0);
    return Time{r};
  }
  /// `k` times this duration, saturated like + and - (integers only: a fractional factor
  /// goes through from_seconds, which rounds).
  template <std::integral K>
  constexpr Time operator*(K k) const {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(ns, k, &r)) return saturated((ns > 0) == (k > 0));
    return Time{r};
  }
  constexpr Time& operator+=(Time o) { return *this = *this + o; }
  constexpr Time& operator-=(Time o) { return *this = *this - o; }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  static constexpr Time saturated(bool up) {
    return Time{up ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min()};
  }
};

/// An amount of data in bytes (double: model sizes such as 16 B x 1e13 params exceed
/// exact integer needs only in the last bits, and fractions occur in per-rank shares).
struct Bytes {
  double value = 0.0;
  constexpr double gib() const { return value / 1073741824.0; }
  constexpr double gb() const { return value / 1e9; }
  constexpr Bytes operator+(Bytes o) const { return Bytes{value + o.value}; }
  constexpr Bytes operator-(Bytes o) const { return Bytes{value - o.value}; }
  constexpr Bytes operator*(double k) const { return Bytes{value * k}; }
  constexpr Bytes operator/(double k) const { return Bytes{value / k}; }
  constexpr Bytes& operator+=(Bytes o) {
    value += o.value;
    return *this;
  }
  constexpr auto operator<=>(const Bytes&) const = default;
};
constexpr Bytes gib(double v) { return Bytes{v * 1073741824.0}; }
constexpr Bytes gb(double v) { return Bytes{v * 1e9}; }

/// A count of floating-point operations (multiply-add = 2).
struct Flops {
  double value = 0.0;
  constexpr Flops operator+(Flops o) const { return Flops{value + o.value}; }
  constexpr Flops operator*(double k) const { return Flops{value * k}; }
  constexpr Flops& operator+=(Flops o) {
    value += o.value;
    return *this;
  }
  constexpr auto operator<=>(const Flops&) const = default;
};

/// Data rate in bytes per second. Network line rates in Gb/s are converted once, in io.
struct Bandwidth {
  double bytes_per_s = 0.0;
  static constexpr Bandwidth from_gbytes_per_s(double v) { return Bandwidth{v * 1e9}; }
  static constexpr Bandwidth from_gbits_per_s(double v) { return Bandwidth{v * 1e9 / 8.0}; }
  constexpr double gbytes_per_s() const { return bytes_per_s / 1e9; }
  constexpr auto operator<=>(const Bandwidth&) const = default;
};

/// Compute rate in FLOP/s.
struct FlopRate {
  double flops_per_s = 0.0;
  static constexpr FlopRate from_tflops(double v) { return FlopRate{v * 1e12}; }
  constexpr double tflops() const { return flops_per_s / 1e12; }
  constexpr auto operator<=>(const FlopRate&) const = default;
};

/// Time to move `b` at rate `r` (infinite rate: zero).
inline Time transfer_time(Bytes b, Bandwidth r) {
  return r.bytes_per_s > 0 ? Time::from_seconds(b.value / r.bytes_per_s) : Time{0};
}
/// Time to compute `f` at rate `r`.
inline Time compute_time(Flops f, FlopRate r) {
  return r.flops_per_s > 0 ? Time::from_seconds(f.value / r.flops_per_s) : Time{0};
}

}  // namespace flopcast::units

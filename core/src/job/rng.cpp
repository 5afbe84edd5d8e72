#include "flopcast/job/rng.hpp"

#include <cmath>
#include <limits>

namespace flopcast::job {

double Rng::uniform() {
  // 2^-53: a double holds 53 significant bits, so every value is exact and < 1.
  constexpr double kTwoPowMinus53 = 1.0 / 9007199254740992.0;
  return static_cast<double>(engine_() >> 11) * kTwoPowMinus53;
}

units::Time Rng::exponential(double rate_per_s) {
  const double e = standard_exponential();
  if (!(rate_per_s > 0.0)) return units::Time{std::numeric_limits<std::int64_t>::max()};
  return units::Time::from_seconds(e / rate_per_s);
}

double Rng::standard_exponential() {
  // Inverse transform; 1 - u is in (0, 1], so the log is finite.
  return -std::log1p(-uniform());
}

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream) {
  // SplitMix64 constants (Steele, Lea, Flood 2014).
  std::uint64_t z = seed + (stream + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace flopcast::job

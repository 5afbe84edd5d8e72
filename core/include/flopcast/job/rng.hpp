#pragma once
/// The job simulation's random numbers: std::mt19937_64 (its output sequence is fixed by the
/// C++ standard) with distributions written here, because std:: distributions differ between
/// standard libraries. Same seed, same numbers, on every platform.
#include <cstdint>
#include <random>

#include "flopcast/units/units.hpp"

namespace flopcast::job {

/// A seeded random source with explicit, portable distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  /// Uniform in [0, 1): the top 53 bits of one engine output times 2^-53.
  double uniform();
  /// Exponential with `rate_per_s` events per second, as a Time: -ln(1 - U) / rate.
  /// A rate <= 0 gives the largest Time (never).
  units::Time exponential(double rate_per_s);
  /// One standard exponential draw, -ln(1 - U): exponential(r) is this over r, so a stream of
  /// these serves every rate with the same numbers.
  double standard_exponential();

 private:
  std::mt19937_64 engine_;
};

/// SplitMix64 (Steele, Lea, Flood 2014, "Fast splittable pseudorandom number generators"):
/// mixes a seed and a stream index into a well-spread 64-bit seed, so trial i gets the same
/// numbers whatever the number of trials.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace flopcast::job

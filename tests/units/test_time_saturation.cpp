// units/units.hpp at its limits: sums, differences and integer multiples of Time saturate at
// the int64 range instead of overflowing (a run of 10^16 tokens must never wrap to a negative time).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "flopcast/units/units.hpp"

using namespace flopcast;

TEST_CASE("limits: Time sums and differences saturate instead of overflowing") {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  const units::Time never = units::Time::from_ns(kMax);
  const units::Time floor = units::Time::from_ns(kMin);
  CHECK((never + units::Time::from_ns(1)).ns == kMax);
  CHECK((never + never).ns == kMax);
  CHECK((floor + units::Time::from_ns(-1)).ns == kMin);
  CHECK((floor - units::Time::from_ns(1)).ns == kMin);
  CHECK((never - units::Time::from_ns(-1)).ns == kMax);
  CHECK((units::Time::from_ns(0) - floor).ns == kMax);
  units::Time t = never;
  t += units::Time::from_seconds(1.0);
  CHECK(t.ns == kMax);
  t = floor;
  t -= units::Time::from_seconds(1.0);
  CHECK(t.ns == kMin);
  // In range the arithmetic is exact.
  CHECK((units::Time::from_ns(kMax - 5) + units::Time::from_ns(5)).ns == kMax);
  CHECK((units::Time::from_ns(7) - units::Time::from_ns(10)).ns == -3);
  t = units::Time::from_ns(3);
  t += units::Time::from_ns(4);
  t -= units::Time::from_ns(2);
  CHECK(t.ns == 5);
}

TEST_CASE("limits: Time times an integer saturates instead of overflowing") {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  CHECK((units::Time::from_ns(kMax / 2 + 1) * 2).ns == kMax);
  CHECK((units::Time::from_ns(kMax) * 3).ns == kMax);
  CHECK((units::Time::from_ns(kMax) * -3).ns == kMin);
  CHECK((units::Time::from_ns(-5) * std::int64_t{4'000'000'000'000'000'000}).ns == kMin);
  CHECK((units::Time::from_ns(kMin) * -1).ns == kMax);
  CHECK((units::Time::from_ns(7) * 6).ns == 42);
  CHECK((units::Time::from_ns(7) * 0).ns == 0);
  CHECK((units::Time::from_ns(-7) * 3).ns == -21);
}

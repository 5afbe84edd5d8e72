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
  const Time never = Time::from_ns(kMax);
  const Time floor = Time::from_ns(kMin);
  CHECK((never + Time::from_ns(1)).ns == kMax);
  CHECK((never + never).ns == kMax);
  CHECK((floor + Time::from_ns(-1)).ns == kMin);
  CHECK((floor - Time::from_ns(1)).ns == kMin);
  CHECK((never - Time::from_ns(-1)).ns == kMax);
  CHECK((Time::from_ns(0) - floor).ns == kMax);
  Time t = never;
  t += Time::from_seconds(1.0);
  CHECK(t.ns == kMax);
  t = floor;
  t -= Time::from_seconds(1.0);
  CHECK(t.ns == kMin);
  // In range the arithmetic is exact.
  CHECK((Time::from_ns(kMax - 5) + Time::from_ns(5)).ns == kMax);
  CHECK((Time::from_ns(7) - Time::from_ns(10)).ns == -3);
  t = Time::from_ns(3);
  t += Time::from_ns(4);
  t -= Time::from_ns(2);
  CHECK(t.ns == 5);
}

TEST_CASE("limits: Time times an integer saturates instead of overflowing") {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  CHECK((Time::from_ns(kMax / 2 + 1) * 2).ns == kMax);
  CHECK((Time::from_ns(kMax) * 3).ns == kMax);
  CHECK((Time::from_ns(kMax) * -3).ns == kMin);
  CHECK((Time::from_ns(-5) * std::int64_t{4'000'000'000'000'000'000}).ns == kMin);
  CHECK((Time::from_ns(kMin) * -1).ns == kMax);
  CHECK((Time::from_ns(7) * 6).ns == 42);
  CHECK((Time::from_ns(7) * 0).ns == 0);
  CHECK((Time::from_ns(-7) * 3).ns == -21);
}

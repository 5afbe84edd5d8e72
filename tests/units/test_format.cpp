// The formatters of flopcast/units/format.hpp. Expected strings are written out by hand from
// the rule each function documents; the tie cases are exact binary values (2.25 = 9/4).
#include <doctest/doctest.h>

#include "flopcast/units/format.hpp"

namespace flopcast {
namespace {

units::Time seconds(double s) { return units::Time::from_seconds(s); }

}  // namespace

TEST_SUITE("units.format") {
  TEST_CASE("fixed decimals: printf's ties to even, and Qt's ties away from zero") {
    CHECK(units::format_fixed(3.14159, 2) == "3.14");
    CHECK(units::format_fixed(2.25, 1) == "2.2");    // exact tie: to even
    CHECK(units::format_fixed(0.375, 2) == "0.38");  // exact tie: to even (8)
    CHECK(units::format_fixed_half_up(2.25, 1) == "2.3");
    CHECK(units::format_fixed_half_up(-2.25, 1) == "-2.3");
    CHECK(units::format_fixed_half_up(0.125, 2) == "0.13");
    CHECK(units::format_fixed_half_up(2.5, 0) == "3");
    CHECK(units::format_fixed_half_up(2.35, 1) == "2.4");  // 2.35 is above the tie in binary: both rules agree
    CHECK(units::format_fixed(2.35, 1) == "2.4");
    CHECK(units::format_fixed_half_up(1.04, 1) == "1.0");
  }

  TEST_CASE("decimals without trailing zeros, and thousands separators") {
    CHECK(units::format_decimal(12.5, 4) == "12.5");
    CHECK(units::format_decimal(3.0, 4) == "3");
    CHECK(units::format_decimal(0.33333, 4) == "0.3333");
    CHECK(units::format_grouped(1234567) == "1,234,567");
    CHECK(units::format_grouped(-12000) == "-12,000");
    CHECK(units::format_grouped(999) == "999");
    CHECK(units::format_grouped_half_up(36652.5, 1) == "36,652.5");
    CHECK(units::format_grouped_half_up(1234.5, 0) == "1,235");
    CHECK(units::format_grouped_half_up(-1234567.25, 1) == "-1,234,567.3");
  }

  TEST_CASE("counts") {
    CHECK(units::format_count(1.4e12) == "1.4T");
    CHECK(units::format_count(8.03e9) == "8.03B");
    CHECK(units::format_count(3e11) == "300B");
    CHECK(units::format_count(12500) == "12.5K");
    CHECK(units::format_count(950) == "950");
    CHECK(units::format_count_fixed(1.4e12) == "1.40 T");
    CHECK(units::format_count_fixed(8.03e9) == "8.03 B");
    CHECK(units::format_count_fixed(950) == "950");
  }

  TEST_CASE("sizes") {
    CHECK(units::format_gib(units::Bytes{1073741824.0 * 12.34}) == "12.3 GiB");
    CHECK(units::format_gib(units::Bytes{0}) == "0.0 GiB");
  }

  TEST_CASE("durations at each scale") {
    CHECK(units::format_time(seconds(8.6474)) == "8.647 s");
    CHECK(units::format_time(seconds(0.0456)) == "45.60 ms");
    CHECK(units::format_time(seconds(789e-6)) == "789.0 us");
    CHECK(units::format_time(seconds(2.5 * 3600)) == "2.5 h");
    CHECK(units::format_time(seconds(3 * 86400)) == "3.0 days");
    CHECK(units::format_duration(seconds(22.5)) == "22.5 s");
    CHECK(units::format_duration(seconds(600)) == "10.0 min");
    CHECK(units::format_duration(seconds(2.5 * 3600)) == "2.5 h");
    CHECK(units::format_duration(seconds(47 * 3600)) == "47.0 h");  // days from two days on
    CHECK(units::format_duration(seconds(25.3 * 86400)) == "25.3 days");
    CHECK(units::format_duration_brief(seconds(3.2 * 3600)) == "3.2 h");
    CHECK(units::format_duration_brief(seconds(4.1 * 86400)) == "4.1 d");
    CHECK(units::format_duration_with_hours(seconds(2 * 86400)) == "2.0 days (48.0 h)");
    CHECK(units::format_duration_with_hours(seconds(2.5 * 3600)) == "2.5 h");
    CHECK(units::format_duration_with_hours(seconds(42 * 60)) == "42.0 min");
    CHECK(units::format_hours_or_minutes(seconds(12.5 * 3600)) == "12.5 h");
    CHECK(units::format_hours_or_minutes(seconds(3 * 3600)) == "3 h");
    CHECK(units::format_hours_or_minutes(seconds(42.3 * 60)) == "42.3 min");
    CHECK(units::format_seconds(seconds(1798.64)) == "1798.6 s");
    CHECK(units::format_days(seconds(23.94 * 86400)) == "23.9 days");
    CHECK(units::format_days_or_hours_half_up(seconds(2.25 * 86400)) == "2.3 days");  // a tie, away from zero
    CHECK(units::format_days_or_hours_half_up(seconds(6 * 3600)) == "6.0 h");
  }

  TEST_CASE("percentages") {
    CHECK(units::format_percent(0.35, 0) == "35%");
    CHECK(units::format_percent(0.412, 1) == "41.2%");
  }
}

}  // namespace flopcast

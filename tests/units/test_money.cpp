#include <doctest/doctest.h>

#include "flopcast/units/money.hpp"

using namespace flopcast;

namespace {
const units::Currency kUsd = units::Currency::of("USD");
const units::Currency kCny = units::Currency::of("CNY");
}  // namespace

TEST_CASE("money: parsing and formatting") {
  CHECK(units::parse_minor_units("123.45") == 12345);
  CHECK(units::parse_minor_units("57,600") == 5760000);
  CHECK(units::parse_minor_units("6.8") == 680);
  CHECK_FALSE(units::parse_minor_units("4.916").has_value());  // sub-cent: use parse_micro_units
  CHECK_FALSE(units::parse_minor_units("abc").has_value());
  CHECK_FALSE(units::parse_minor_units("").has_value());
  // AWS Capacity Block H100: $4.916 per GPU-hour (AWS Capacity Blocks pricing page).
  CHECK(units::parse_micro_units("4.916") == 4916000);
  CHECK(units::parse_micro_units("0.000001") == 1);
  CHECK(units::parse_micro_units("-1.5") == -1500000);
  CHECK_FALSE(units::parse_micro_units("1.0000001").has_value());
  CHECK_FALSE(units::parse_micro_units("1e3").has_value());
  CHECK_FALSE(units::parse_micro_units("99999999999999999999").has_value());
  CHECK(units::Money{123456789, kUsd}.str() == "1,234,567.89 USD");
  CHECK(units::Money{-5, kCny}.str() == "-0.05 CNY");
  CHECK(units::PriceRate{4916000, kUsd}.str() == "4.916 USD");
  CHECK(units::PriceRate{6800000, kCny}.str() == "6.80 CNY");
  CHECK(units::PriceRate{57600000000, kCny}.str() == "57,600.00 CNY");
  CHECK(units::format_micro(7200000, 0) == "7.2");
  CHECK(units::is_currency_code("CNY"));
  CHECK_FALSE(units::is_currency_code("cny"));
  CHECK_FALSE(units::is_currency_code("US"));
}

TEST_CASE("money: rounding half away from zero, exact arithmetic") {
  // 5,000 micro = half a cent: rounds away from zero.
  CHECK(units::Money::of_micro(5000, kUsd).minor == 1);
  CHECK(units::Money::of_micro(4999, kUsd).minor == 0);
  CHECK(units::Money::of_micro(-5000, kUsd).minor == -1);
  CHECK(units::Money::of_micro(3952464000, kUsd).minor == 395246);  // 3,952.464 -> 3,952.46
  CHECK(units::mul_div_round(7, 1, 2) == 4);
  CHECK(units::mul_div_round(-7, 1, 2) == -4);
  // 128-bit intermediate: 4.916 $/h x 16,384 GPUs x 1e6 h in ns / 1 h in ns.
  CHECK(units::mul_div_round(4916000LL * 16384, 3'600'000'000'000'000'000LL / 1000, 3'600'000'000'000LL) ==
        4916000LL * 16384 * 1000);
  const units::Money a{1050, kCny}, b{250, kCny};
  CHECK((a + b).minor == 1300);
  CHECK((a - b).minor == 800);
  CHECK((a * 3).minor == 3150);
  CHECK((-a).minor == -1050);
  CHECK(a.compare(b) == std::strong_ordering::greater);
}

TEST_CASE("money: exchange at a stated rate only") {
  // 7.2 CNY per USD: the catalogs' stated assumption (not a sourced rate).
  const units::FxRate fx{kUsd, kCny, 7200000, "assumption"};
  CHECK(fx.str() == "1 USD = 7.2 CNY");
  // $1,512.00 -> 10,886.40 CNY (1,512 x 7.2).
  CHECK(fx.convert_micro(1512000000, kUsd) == 10886400000);
  // 5,440.00 CNY -> 755.555556 USD (5,440 / 7.2), which a bill rounds to 755.56.
  CHECK(fx.convert_micro(5440000000, kCny) == 755555556);
  CHECK(units::Money::of_micro(755555556, kUsd).minor == 75556);
}

#pragma once
/// Exact money: integer minor units (cents, fen) of one ISO 4217 currency, and prices with
/// sub-cent precision (integer millionths of the major unit), such as AWS's $4.916/GPU-h.
///
/// Rounding rule (used by every bill): an amount is computed exactly in micro-units
/// (1e-6 of the major unit) and rounded once, half away from zero, to the minor unit
/// (1/100 of the major unit). Every currency flopcast handles (USD, CNY, EUR) has two decimals.
#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace flopcast::units {

/// A three-letter ISO 4217 code such as "USD" or "CNY".
struct Currency {
  std::array<char, 3> code{'U', 'S', 'D'};
  static Currency of(std::string_view s) {
    Currency c;
    for (std::size_t i = 0; i < 3; ++i) c.code[i] = i < s.size() ? s[i] : ' ';
    return c;
  }
  std::string str() const { return std::string(code.data(), 3); }
  bool operator==(const Currency&) const = default;
};

/// True when `s` is three upper-case ASCII letters (the shape of an ISO 4217 code).
bool is_currency_code(std::string_view s);

/// Micro-units (1e-6 of the major unit) per minor unit (1e-2 of the major unit).
inline constexpr std::int64_t kMicroPerMinor = 10'000;
/// Micro-units per major unit.
inline constexpr std::int64_t kMicroPerMajor = 1'000'000;

/// An amount in minor units (1/100 of the major unit for USD, CNY, EUR). Arithmetic
/// between different currencies is a programming error (FLOPCAST_ASSERT), never a silent mix.
struct Money {
  std::int64_t minor = 0;
  Currency currency;

  static Money of_minor(std::int64_t v, Currency c) { return Money{v, c}; }
  /// `micro` micro-units rounded half away from zero to the minor unit.
  static Money of_micro(std::int64_t micro, Currency c);
  /// Zero in currency `c`.
  static Money zero(Currency c) { return Money{0, c}; }
  /// Formats as "1,234.56 USD".
  std::string str() const;
  /// Formats as "1,234.56" (no currency code).
  std::string amount_str() const;
  /// Major units as a double, for display and charts only (never for sums).
  double major() const { return static_cast<double>(minor) / 100.0; }
  /// The amount in micro-units (exact).
  std::int64_t micro() const { return minor * kMicroPerMinor; }

  bool operator==(const Money&) const = default;
  Money operator-() const { return Money{-minor, currency}; }
  /// Sum; both operands must have the same currency (FLOPCAST_ASSERT).
  Money operator+(Money o) const;
  /// Difference; both operands must have the same currency (FLOPCAST_ASSERT).
  Money operator-(Money o) const;
  Money& operator+=(Money o);
  Money& operator-=(Money o);
  /// Exact multiple; overflow is an internal error (FLOPCAST_ASSERT).
  Money operator*(std::int64_t k) const;
  /// Orders amounts of the same currency (FLOPCAST_ASSERT on a mix).
  std::strong_ordering compare(Money o) const;
};

/// A price per unit (per GPU-hour, per node-month, per kWh, per GB-month...) in integer
/// millionths of the major unit: $4.916 = 4,916,000 micro-USD. Exact for every price a
/// catalog states with up to six decimals.
struct PriceRate {
  std::int64_t micro = 0;
  Currency currency;

  static PriceRate of_micro(std::int64_t v, Currency c) { return PriceRate{v, c}; }
  /// Formats with as many decimals as needed (at least two): "4.916 USD", "6.80 CNY".
  std::string str() const;
  /// Like str() without the currency code.
  std::string amount_str() const;
  /// Major units as a double, for display only.
  double major() const { return static_cast<double>(micro) / 1e6; }
  bool operator==(const PriceRate&) const = default;
};

/// An exchange rate a catalog states: 1 `from` = `micro` / 1e6 `to` (7.2 CNY per USD:
/// from USD, to CNY, micro 7,200,000). Conversion uses only such stated rates.
struct FxRate {
  Currency from;
  Currency to;
  std::int64_t micro = 0;
  std::string note;  ///< where the rate comes from (or that it is an assumption)

  /// Converts micro-units of `from` into micro-units of `to` (exact, rounded half away
  /// from zero to the micro-unit). Converting from `to` back into `from` divides by the rate.
  /// FLOPCAST_ASSERT when `c` is neither side of the rate.
  std::int64_t convert_micro(std::int64_t amount_micro, Currency amount_currency) const;
  /// "1 USD = 7.2 CNY".
  std::string str() const;
};

/// Parses "123.45" (at most two decimals) into minor units; nullopt when malformed.
std::optional<std::int64_t> parse_minor_units(std::string_view s);

/// Parses a decimal such as "4.916", "57,600" or "-0.000001" (at most six decimals) into
/// micro-units; nullopt when malformed, with more than six decimals, or out of range.
std::optional<std::int64_t> parse_micro_units(std::string_view s);

/// Formats micro-units as a decimal with at least `min_decimals` and at most six decimals
/// (trailing zeros beyond `min_decimals` dropped), with thousands separators.
std::string format_micro(std::int64_t micro, int min_decimals = 2);

/// round(a * b / d), half away from zero, computed exactly in 128 bits. `d` must be
/// positive and the result must fit in int64 (FLOPCAST_ASSERT otherwise).
std::int64_t mul_div_round(std::int64_t a, std::int64_t b, std::int64_t d);

/// a * b, FLOPCAST_ASSERT on int64 overflow.
std::int64_t checked_mul(std::int64_t a, std::int64_t b);

}  // namespace flopcast::units

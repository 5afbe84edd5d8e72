#include "flopcast/units/money.hpp"

#include <cstdlib>
#include <limits>

#include "flopcast/units/assert.hpp"

namespace flopcast::units {
namespace {

// GCC and Clang provide a 128-bit integer; __extension__ keeps -Wpedantic quiet about it.
__extension__ typedef __int128 Int128;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

std::uint64_t magnitude(std::int64_t v) {
  // Unsigned negation formats INT64_MIN without overflow.
  return v < 0 ? (~static_cast<std::uint64_t>(v) + 1) : static_cast<std::uint64_t>(v);
}

std::string group_thousands(std::uint64_t whole) {
  const std::string digits = std::to_string(whole);
  std::string grouped;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    grouped += digits[i];
    const std::size_t left = n - 1 - i;
    if (left > 0 && left % 3 == 0) grouped += ',';
  }
  return grouped;
}

// Parses digits with optional ',' or '_' separators and at most `max_decimals` decimals into
// an integer scaled by 10^max_decimals.
std::optional<std::int64_t> parse_scaled(std::string_view s, int max_decimals) {
  if (s.empty()) return std::nullopt;
  std::int64_t scale = 1;
  for (int i = 0; i < max_decimals; ++i) scale *= 10;
  bool neg = false;
  std::size_t i = 0;
  if (s[0] == '-') {
    neg = true;
    i = 1;
  }
  std::int64_t whole = 0;
  int digits = 0;
  for (; i < s.size() && s[i] != '.'; ++i) {
    if (s[i] == ',' || s[i] == '_') continue;
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    if (whole > (kInt64Max / scale - 9) / 10) return std::nullopt;
    whole = whole * 10 + (s[i] - '0');
    ++digits;
  }
  std::int64_t frac = 0;
  int frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      if (frac_digits == max_decimals) return std::nullopt;
      frac = frac * 10 + (s[i] - '0');
      ++frac_digits;
    }
  }
  if (digits == 0) return std::nullopt;
  for (int k = frac_digits; k < max_decimals; ++k) frac *= 10;
  const std::int64_t v = whole * scale + frac;
  return neg ? -v : v;
}

}  // namespace

bool is_currency_code(std::string_view s) {
  if (s.size() != 3) return false;
  for (char c : s)
    if (c < 'A' || c > 'Z') return false;
  return true;
}

Money Money::of_micro(std::int64_t micro, Currency c) { return Money{mul_div_round(micro, 1, kMicroPerMinor), c}; }

std::string Money::amount_str() const {
  const std::uint64_t abs_minor = magnitude(minor);
  const auto cents = abs_minor % 100;
  std::string out = minor < 0 ? "-" : "";
  out += group_thousands(abs_minor / 100);
  out += '.';
  out += static_cast<char>('0' + cents / 10);
  out += static_cast<char>('0' + cents % 10);
  return out;
}

std::string Money::str() const { return amount_str() + ' ' + currency.str(); }

Money Money::operator+(Money o) const {
  FLOPCAST_ASSERT(currency == o.currency, "adding amounts of different currencies");
  std::int64_t r = 0;
  FLOPCAST_ASSERT(!__builtin_add_overflow(minor, o.minor, &r), "money overflow");
  return Money{r, currency};
}

Money Money::operator-(Money o) const {
  FLOPCAST_ASSERT(currency == o.currency, "subtracting amounts of different currencies");
  std::int64_t r = 0;
  FLOPCAST_ASSERT(!__builtin_sub_overflow(minor, o.minor, &r), "money overflow");
  return Money{r, currency};
}

Money& Money::operator+=(Money o) { return *this = *this + o; }
Money& Money::operator-=(Money o) { return *this = *this - o; }

Money Money::operator*(std::int64_t k) const { return Money{checked_mul(minor, k), currency}; }

std::strong_ordering Money::compare(Money o) const {
  FLOPCAST_ASSERT(currency == o.currency, "comparing amounts of different currencies");
  return minor <=> o.minor;
}

std::string PriceRate::amount_str() const { return format_micro(micro, 2); }
std::string PriceRate::str() const { return amount_str() + ' ' + currency.str(); }

std::int64_t FxRate::convert_micro(std::int64_t amount_micro, Currency amount_currency) const {
  FLOPCAST_ASSERT(micro > 0, "exchange rate must be positive");
  if (amount_currency == from) return mul_div_round(amount_micro, micro, kMicroPerMajor);
  FLOPCAST_ASSERT(amount_currency == to, "exchange rate does not cover this currency");
  return mul_div_round(amount_micro, kMicroPerMajor, micro);
}

std::string FxRate::str() const { return "1 " + from.str() + " = " + format_micro(micro, 0) + ' ' + to.str(); }

std::optional<std::int64_t> parse_minor_units(std::string_view s) { return parse_scaled(s, 2); }

std::optional<std::int64_t> parse_micro_units(std::string_view s) { return parse_scaled(s, 6); }

std::string format_micro(std::int64_t micro, int min_decimals) {
  const std::uint64_t abs_micro = magnitude(micro);
  std::string frac = std::to_string(abs_micro % 1'000'000);
  frac.insert(0, 6 - frac.size(), '0');
  while (static_cast<int>(frac.size()) > min_decimals && frac.back() == '0') frac.pop_back();
  std::string out = micro < 0 ? "-" : "";
  out += group_thousands(abs_micro / 1'000'000);
  if (!frac.empty()) {
    out += '.';
    out += frac;
  }
  return out;
}

std::int64_t mul_div_round(std::int64_t a, std::int64_t b, std::int64_t d) {
  FLOPCAST_ASSERT(d > 0, "divisor must be positive");
  const Int128 p = static_cast<Int128>(a) * static_cast<Int128>(b);
  const Int128 mag = p < 0 ? -p : p;
  Int128 q = mag / d;
  if ((mag % d) * 2 >= d) q += 1;  // half away from zero
  const Int128 r = p < 0 ? -q : q;
  FLOPCAST_ASSERT(r <= static_cast<Int128>(kInt64Max) && r >= static_cast<Int128>(kInt64Min), "money overflow");
  return static_cast<std::int64_t>(r);
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  FLOPCAST_ASSERT(!__builtin_mul_overflow(a, b, &r), "money overflow");
  return r;
}

}  // namespace flopcast::units

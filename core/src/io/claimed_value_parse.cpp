// parse_claimed_value (claims_loader.hpp): a claimed figure as a claim writes it, read once
// into base units with the unit it was written in.
#include <cctype>
#include <cmath>
#include <string>

#include "flopcast/io/claims_loader.hpp"
#include "flopcast/io/units_parse.hpp"

namespace flopcast::io {
namespace {

using claims::Bound;
using claims::ClaimedValue;
using claims::Dimension;

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

/// Splits "190 Gbps" into ("190", "Gbps"): the number is the leading run of digits, signs,
/// separators, a decimal point, an exponent and a count suffix the unit does not start with.
std::pair<std::string, std::string> split_number(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const bool exponent = (c == 'e' || c == 'E') && i > 0 && i + 1 < s.size() &&
                          (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '-' || s[i + 1] == '+');
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ',' || c == '_' || exponent ||
        ((c == '-' || c == '+') && (i == 0 || s[i - 1] == 'e' || s[i - 1] == 'E')))
      ++i;
    else
      break;
  }
  return {s.substr(0, i), trim(std::string_view(s).substr(i))};
}

std::optional<double> number(std::string n) {
  std::string clean;
  for (char c : n)
    if (c != ',') clean += c;
  return parse_count(clean);
}

/// "57,600", "1.2M", "10,900" as micro-units (exact for up to six decimals).
std::optional<std::int64_t> amount_micro(const std::string& text) {
  if (auto exact = units::parse_micro_units(text)) return exact;
  const auto v = number(text);
  if (!v || std::fabs(*v) > 9e12) return std::nullopt;
  return std::llround(*v * 1e6);
}

/// "6.8 CNY", "$1.89", "¥6.8", "1.2M CNY", "10,900 USD", "6.8 RMB": an amount and its currency
/// (io::parse_currency in upper case: a sign before the amount or a word after it; "3 GiB" is no
/// amount).
std::optional<std::pair<std::int64_t, units::Currency>> money(const std::string& s) {
  std::string t = s;
  std::optional<units::Currency> cur;
  std::size_t digits = 0;
  while (digits < t.size() && !std::isdigit(static_cast<unsigned char>(t[digits])) && t[digits] != '.' &&
         t[digits] != '-')
    ++digits;
  if (digits > 0) {
    cur = parse_currency(std::string_view(t).substr(0, digits), false);
    if (!cur) return std::nullopt;
    t = trim(std::string_view(t).substr(digits));
  }
  if (const auto space = t.rfind(' '); !cur && space != std::string::npos) {
    cur = parse_currency(std::string_view(t).substr(space + 1), false);
    if (!cur) return std::nullopt;
    t = trim(std::string_view(t).substr(0, space));
  }
  if (!cur) return std::nullopt;
  const auto micro = amount_micro(t);
  if (!micro) return std::nullopt;
  return std::pair{*micro, *cur};
}

/// "GPU-hour", "node-month", "gpu-day": the basis and unit of a price.
bool price_per(const std::string& per, claims::ClaimedPrice& p) {
  const auto dash = per.find('-');
  if (dash == std::string::npos) return false;
  const auto basis = pricing::parse_price_basis(per.substr(0, dash));
  const auto unit = pricing::parse_billing_unit(per.substr(dash + 1));
  if (!basis || !unit) return false;
  p.basis = *basis;
  p.unit = *unit;
  return true;
}

bool read_price_or_money(const std::string& s, ClaimedValue& v) {
  if (const auto slash = s.find('/'); slash != std::string::npos) {
    const auto m = money(trim(std::string_view(s).substr(0, slash)));
    claims::ClaimedPrice p;
    if (!m || !price_per(trim(std::string_view(s).substr(slash + 1)), p)) return false;
    p.rate = units::PriceRate::of_micro(m->first, m->second);
    v.dimension = Dimension::Price;
    v.price = p;
    v.value = p.rate.major();
    v.unit = m->second.str() + "/" + p.per();
    return true;
  }
  const auto m = money(s);
  if (!m) return false;
  v.dimension = Dimension::Money;
  v.money = units::Money::of_micro(m->first, m->second);
  v.value = v.money->major();
  v.unit = m->second.str();
  return true;
}

/// The plain-unit figures: percent, ratio, power, compute rate, bandwidth, size, time, count.
bool read_quantity(const std::string& s, ClaimedValue& v) {
  const auto [num, unit] = split_number(s);
  if (num.empty()) return false;
  v.unit = unit;
  if (unit == "%" || unit == "x") {
    const auto x = number(num);
    if (!x) return false;
    v.dimension = unit == "%" ? Dimension::Fraction : Dimension::Ratio;
    v.value = unit == "%" ? *x / 100.0 : *x;
    return true;
  }
  static const std::pair<const char*, double> kPower[] = {{"W", 1.0}, {"kW", 1e3}, {"MW", 1e6}};
  for (const auto& [name, scale] : kPower)
    if (unit == name) {
      const auto x = number(num);
      if (!x) return false;
      v.dimension = Dimension::Power;
      v.value = *x * scale;
      return true;
    }
  static const std::pair<const char*, double> kFlops[] = {{"TFLOPS", 1e12},  {"TFLOP/s", 1e12}, {"PFLOPS", 1e15},
                                                          {"PFLOP/s", 1e15}, {"GFLOPS", 1e9},   {"GFLOP/s", 1e9}};
  for (const auto& [name, scale] : kFlops)
    if (unit == name) {
      const auto x = number(num);
      if (!x) return false;
      v.dimension = Dimension::FlopRate;
      v.value = *x * scale;
      return true;
    }
  std::string plain;  // parse_* take no thousands separators
  for (char c : num)
    if (c != ',') plain += c;
  const std::string joined = plain + " " + unit;
  if (unit.empty()) {
    const auto x = number(num);
    if (!x) return false;
    v.dimension = Dimension::Count;
    v.value = *x;
    return true;
  }
  if (const auto b = parse_bandwidth(joined)) {
    v.dimension = Dimension::Bandwidth;
    v.value = b->bytes_per_s;
    return true;
  }
  if (const auto b = parse_bytes(joined)) {
    v.dimension = Dimension::Bytes;
    v.value = b->value;
    return true;
  }
  if (const auto t = parse_duration(joined)) {
    v.dimension = Dimension::Time;
    v.value = t->seconds();
    return true;
  }
  return false;
}

}  // namespace

std::optional<ClaimedValue> parse_claimed_value(std::string_view text) {
  ClaimedValue v;
  v.text = trim(text);
  std::string s = v.text;
  for (const auto& [prefix, bound] :
       {std::pair{"<=", Bound::AtMost}, std::pair{">=", Bound::AtLeast}, std::pair{"<", Bound::AtMost},
        std::pair{">", Bound::AtLeast}, std::pair{"~", Bound::Exact}}) {
    if (s.rfind(prefix, 0) == 0) {
      v.bound = bound;
      s = trim(std::string_view(s).substr(std::string_view(prefix).size()));
      break;
    }
  }
  if (s.empty()) return std::nullopt;
  if (read_price_or_money(s, v) || read_quantity(s, v)) return v;
  return std::nullopt;
}

}  // namespace flopcast::io

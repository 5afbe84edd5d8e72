#include "flopcast/units/format.hpp"

#include <cmath>
#include <cstdio>

#include "flopcast/units/assert.hpp"

namespace flopcast::units {
namespace {

/// printf into a std::string (every format here fits 64 characters but the widest counts).
template <class... Args>
std::string printf_string(const char* format, Args... args) {
  char buf[352];
  const int n = std::snprintf(buf, sizeof buf, format, args...);
  FLOPCAST_ASSERT(n >= 0 && static_cast<std::size_t>(n) < sizeof buf, "formatted number too long");
  return std::string(buf, static_cast<std::size_t>(n));
}

/// Thousands separators in the integer digits of `s` ("-1234567.5" -> "-1,234,567.5").
std::string group_thousands(const std::string& s) {
  const std::size_t sign = !s.empty() && s[0] == '-' ? 1 : 0;
  std::size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  std::string out = s.substr(0, sign);
  for (std::size_t i = sign; i < end; ++i) {
    out += s[i];
    const std::size_t left = end - 1 - i;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + s.substr(end);
}

}  // namespace

std::string format_fixed(double v, int decimals) {
  FLOPCAST_ASSERT(decimals >= 0 && decimals <= 17, "format_fixed: decimals out of range");
  return printf_string("%.*f", decimals, v);
}

std::string format_fixed_half_up(double v, int decimals) {
  FLOPCAST_ASSERT(decimals >= 0 && decimals <= 4, "format_fixed_half_up: decimals out of range");
  // printf rounds the exact value correctly; only an exact tie differs. v x 10^d is exact in
  // long double (64-bit significand: 53 bits of v and at most 10 of 10^4), so the tie is seen
  // exactly, and the rounded-away value (an integer below 2^64 / 10^4 for any figure shown)
  // is printed back with its decimals.
  if (!std::isfinite(v)) return format_fixed(v, decimals);
  const long double scale = std::pow(10.0L, decimals);
  const long double scaled = static_cast<long double>(v) * scale;
  const long double below = std::floor(std::fabs(scaled));
  if (std::fabs(scaled) - below != 0.5L || below > 9e15L) return format_fixed(v, decimals);
  const long double away = (below + 1) * (v < 0 ? -1 : 1);
  return printf_string("%.*Lf", decimals, away / scale);
}

std::string format_decimal(double v, int max_decimals) {
  std::string s = format_fixed(v, max_decimals);
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string format_grouped(std::int64_t v) { return group_thousands(std::to_string(v)); }

std::string format_grouped_half_up(double v, int decimals) {
  return group_thousands(format_fixed_half_up(v, decimals));
}

std::string format_count(double v) {
  const double a = std::fabs(v);
  if (a >= 1e12) return printf_string("%.3gT", v / 1e12);
  if (a >= 1e9) return printf_string("%.3gB", v / 1e9);
  if (a >= 1e6) return printf_string("%.3gM", v / 1e6);
  if (a >= 1e3) return printf_string("%.3gK", v / 1e3);
  return printf_string("%.3g", v);
}

std::string format_count_fixed(double v) {
  const double a = std::fabs(v);
  if (a >= 1e12) return format_fixed(v / 1e12, 2) + " T";
  if (a >= 1e9) return format_fixed(v / 1e9, 2) + " B";
  if (a >= 1e6) return format_fixed(v / 1e6, 2) + " M";
  if (a >= 1e3) return format_fixed(v / 1e3, 2) + " K";
  return format_fixed(v, 0);
}

std::string format_gib(Bytes b) { return format_fixed(b.gib(), 1) + " GiB"; }

std::string format_time(Time t) {
  const double s = t.seconds();
  if (std::fabs(s) >= 86400 * 2) return format_fixed(s / 86400, 1) + " days";
  if (std::fabs(s) >= 3600) return format_fixed(s / 3600, 1) + " h";
  if (std::fabs(s) >= 1) return format_fixed(s, 3) + " s";
  if (std::fabs(s) >= 1e-3) return format_fixed(s * 1e3, 2) + " ms";
  return format_fixed(s * 1e6, 1) + " us";
}

std::string format_duration(Time t) {
  const double s = t.seconds();
  if (std::fabs(s) >= 86400 * 2) return format_fixed(s / 86400, 1) + " days";
  if (std::fabs(s) >= 3600) return format_fixed(s / 3600, 1) + " h";
  if (std::fabs(s) >= 60) return format_fixed(s / 60, 1) + " min";
  return format_fixed(s, 1) + " s";
}

std::string format_duration_brief(Time t) {
  if (t.hours() < 48.0) return format_fixed(t.hours(), 1) + " h";
  return format_fixed(t.days(), 1) + " d";
}

std::string format_duration_with_hours(Time t) {
  const double h = t.hours();
  if (h >= 24.0) return format_fixed(t.days(), 1) + " days (" + format_fixed(h, 1) + " h)";
  if (h >= 1.0) return format_fixed(h, 1) + " h";
  return format_fixed(t.seconds() / 60.0, 1) + " min";
}

std::string format_hours_or_minutes(Time t) {
  if (t.hours() >= 1.0) return format_decimal(std::round(t.hours() * 10.0) / 10.0, 4) + " h";
  return format_decimal(std::round(t.seconds() / 6.0) / 10.0, 4) + " min";
}

std::string format_seconds(Time t) { return format_fixed(t.seconds(), 1) + " s"; }

std::string format_days(Time t) { return format_fixed(t.days(), 1) + " days"; }

std::string format_days_or_hours_half_up(Time t) {
  const double d = t.days();
  if (d >= 1.0) return format_fixed_half_up(d, 1) + " days";
  return format_fixed_half_up(t.hours(), 1) + " h";
}

std::string format_percent(double fraction, int decimals) { return format_fixed(fraction * 100, decimals) + "%"; }

}  // namespace flopcast::units

#include "quote_format.hpp"

#include <cmath>
#include <cstdio>

namespace flopcast::quote_detail {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string grouped(std::int64_t v) {
  const bool neg = v < 0;
  const std::uint64_t mag = neg ? (~static_cast<std::uint64_t>(v) + 1) : static_cast<std::uint64_t>(v);
  const std::string digits = std::to_string(mag);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    out += digits[i];
    const std::size_t left = digits.size() - 1 - i;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return neg ? "-" + out : out;
}

std::string count(double v) {
  const double a = std::fabs(v);
  if (a >= 1e12) return fixed(v / 1e12, 2) + " T";
  if (a >= 1e9) return fixed(v / 1e9, 2) + " B";
  if (a >= 1e6) return fixed(v / 1e6, 2) + " M";
  if (a >= 1e3) return fixed(v / 1e3, 2) + " K";
  return fixed(v, 0);
}

std::string duration(Time t) {
  const double h = t.hours();
  if (h >= 24.0) return fixed(t.days(), 1) + " days (" + fixed(h, 1) + " h)";
  if (h >= 1.0) return fixed(h, 1) + " h";
  return fixed(t.seconds() / 60.0, 1) + " min";
}

std::string percent(double fraction, int decimals) { return fixed(fraction * 100.0, decimals) + " %"; }

}  // namespace flopcast::quote_detail

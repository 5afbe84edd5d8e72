#include "quote_format.hpp"

#include <cstdio>

namespace flopcast::quote::detail {

std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string percent(double fraction, int decimals) { return units::format_fixed(fraction * 100.0, decimals) + " %"; }

}  // namespace flopcast::quote::detail

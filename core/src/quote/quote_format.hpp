#pragma once
// Internal number and time formatting shared by quote.cpp and quote_render.cpp (not installed).
#include <cstdint>
#include <string>

#include "flopcast/units/units.hpp"

namespace flopcast::quote_detail {

/// Fixed decimals: fixed(3.14159, 2) == "3.14".
std::string fixed(double v, int decimals);
/// Round-trip precision ("%.17g") for canonical strings.
std::string exact(double v);
/// Thousands-grouped integer: "1,234,567".
std::string grouped(std::int64_t v);
/// "8.03 B", "1.00 T", "405 M" for parameter and token counts.
std::string count(double v);
/// "12.4 days (297.6 h)", or "3.2 h" under a day, or "45 min" under an hour.
std::string duration(Time t);
/// "41.2 %" from a fraction.
std::string percent(double fraction, int decimals = 1);

}  // namespace flopcast::quote_detail

#pragma once
// Internal number formatting shared by quote.cpp and quote_render.cpp (not installed); durations,
// counts and grouped figures come from flopcast/units/format.hpp.
#include <cstdint>
#include <string>

#include "flopcast/units/format.hpp"

namespace flopcast::quote_detail {

/// Round-trip precision ("%.17g") for canonical strings.
std::string exact(double v);
/// "41.2 %" from a fraction.
std::string percent(double fraction, int decimals = 1);

}  // namespace flopcast::quote_detail

#pragma once
// Internal number formatting shared by quote.cpp and quote_render.cpp (not installed); durations,
// counts and grouped figures come from flopcast/units/format.hpp.
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "flopcast/quote/quote_text.hpp"
#include "flopcast/units/format.hpp"

namespace flopcast::quote::detail {

/// Round-trip precision ("%.17g") for canonical strings.
std::string exact(double v);
/// "41.2 %" from a fraction.
std::string percent(double fraction, int decimals = 1);

/// The template `key` of quote_text.hpp in `lang` with its named arguments (fmt::arg).
template <typename... Args>
std::string tr(QuoteLanguage lang, std::string_view key, Args&&... args) {
  return fmt::format(fmt::runtime(quote_text(lang, key)), std::forward<Args>(args)...);
}

}  // namespace flopcast::quote::detail

#include "spelling.hpp"

#include <algorithm>
#include <cctype>

#include "flopcast/units/text.hpp"

namespace flopcast::cli {
namespace {

/// The part of a flag after its dashes ("--json" -> "json").
std::string_view bare(std::string_view s) {
  while (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return s;
}

}  // namespace

std::optional<std::string> closest_spelling(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_d = 0;
  for (const auto& c : candidates) {
    const auto d = edit_distance(word, c);
    if (!best || d < best_d) {
      best = c;
      best_d = d;
    }
  }
  if (best && best_d <= std::max<std::size_t>(2, bare(word).size() / 3)) return best;
  if (bare(word).size() < 3) return std::nullopt;
  for (const auto& c : candidates) {
    const std::string_view w = bare(word), b = bare(c);
    if (b.size() >= 2 && (w.substr(0, b.size()) == b || b.substr(0, w.size()) == w)) return c;
  }
  return std::nullopt;
}

}  // namespace flopcast::cli

#include "spelling.hpp"

#include <algorithm>
#include <cctype>

namespace flopcast::cli {
namespace {

/// Levenshtein distance, case ignored.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0u : 1u)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

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

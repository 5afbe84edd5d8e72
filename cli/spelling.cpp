#include "spelling.hpp"

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
  if (auto near = units::nearest_spelling(word, candidates, bare(word).size())) return near;
  if (bare(word).size() < 3) return std::nullopt;
  for (const auto& c : candidates) {
    const std::string_view w = bare(word), b = bare(c);
    if (b.size() >= 2 && (w.substr(0, b.size()) == b || b.substr(0, w.size()) == w)) return c;
  }
  return std::nullopt;
}

}  // namespace flopcast::cli

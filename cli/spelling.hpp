#pragma once
/// Did-you-mean for words typed on the command line (command names, flags, catalog names).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flopcast::cli {

/// The candidate `word` was most likely meant as: the closest by edit distance (case ignored)
/// when at most max(2, a third of the word) edits away, else one that starts with `word` or
/// that `word` starts with ("--out" for "--output"), when `word` has 3 characters or more.
/// nullopt when none is close.
std::optional<std::string> closest_spelling(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace flopcast::cli

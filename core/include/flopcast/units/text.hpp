#pragma once
/// Text helpers shared by every layer: a Markdown table cell and HTML text made safe for the
/// documents flopcast writes (quotes, claims reports), and the edit distance behind every
/// did-you-mean (loaders and the command line), so that one rule holds everywhere.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flopcast::units {

/// `s` as one Markdown table cell: '|' escaped as "\|", a line break as a space.
std::string markdown_cell(const std::string& s);

/// `s` as HTML text or an attribute value: & < > " ' as character references.
std::string html_escape(const std::string& s);

/// Levenshtein distance between `a` and `b`, letter case ignored.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The did-you-mean rule of the loaders and the command line: the candidate nearest `word` by
/// edit_distance (the first of equally near ones) when it is at most max(2, `length` / 3) edits
/// away, `length` being the length of what the user typed (the command line counts a flag
/// without its dashes); nullopt otherwise, and without candidates.
std::optional<std::string> nearest_spelling(std::string_view word, const std::vector<std::string>& candidates,
                                            std::size_t length);

}  // namespace flopcast::units

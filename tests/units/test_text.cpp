// units/text.hpp: the escaping every renderer uses and the distance behind every did-you-mean.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "flopcast/units/text.hpp"

using namespace flopcast;

TEST_CASE("markdown_cell escapes the column separator and folds line breaks") {
  CHECK(units::markdown_cell("a|b\nc") == "a\\|b c");
  CHECK(units::markdown_cell("plain") == "plain");
  CHECK(units::markdown_cell("") == "");
}

TEST_CASE("html_escape writes the five special characters as references") {
  CHECK(units::html_escape("<a href=\"x\">Tom's & Jerry's</a>") ==
        "&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; Jerry&#39;s&lt;/a&gt;");
  CHECK(units::html_escape("星宇智算 680 CNY") == "星宇智算 680 CNY");  // UTF-8 bytes pass through
}

TEST_CASE("edit_distance is Levenshtein's, letter case ignored") {
  CHECK(units::edit_distance("simulat", "simulate") == 1);  // one insertion
  CHECK(units::edit_distance("kitten", "sitting") == 3);    // the textbook example
  CHECK(units::edit_distance("JSON", "json") == 0);
  CHECK(units::edit_distance("", "abc") == 3);
  CHECK(units::edit_distance("tp", "pt") == 2);  // a swap is two edits, not one
}

TEST_CASE("nearest_spelling: the nearest candidate within max(2, length / 3) edits, the first of equals") {
  const std::vector<std::string> keys = {"micro_batch", "global_batch", "schedule"};
  CHECK(units::nearest_spelling("micro_bacth", keys, 11) == std::optional<std::string>("micro_batch"));  // 2 edits
  CHECK(units::nearest_spelling("shedule", keys, 7) == std::optional<std::string>("schedule"));
  CHECK_FALSE(units::nearest_spelling("tokens", keys, 6).has_value());  // nothing near
  CHECK_FALSE(units::nearest_spelling("x", {}, 1).has_value());
  // The allowance grows with what was typed: 4 edits pass at a length of 12, not of 8.
  CHECK(units::nearest_spelling("glbl_bch", keys, 12) == std::optional<std::string>("global_batch"));
  CHECK_FALSE(units::nearest_spelling("glbl_bch", keys, 8).has_value());
  // Equally near: the first candidate.
  CHECK(units::nearest_spelling("ab", {"aa", "bb"}, 2) == std::optional<std::string>("aa"));
}

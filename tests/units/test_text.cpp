// units/text.hpp: the escaping every renderer uses and the distance behind every did-you-mean.
#include <doctest/doctest.h>

#include "flopcast/units/text.hpp"

using namespace flopcast;

TEST_CASE("markdown_cell escapes the column separator and folds line breaks") {
  CHECK(markdown_cell("a|b\nc") == "a\\|b c");
  CHECK(markdown_cell("plain") == "plain");
  CHECK(markdown_cell("") == "");
}

TEST_CASE("html_escape writes the five special characters as references") {
  CHECK(html_escape("<a href=\"x\">Tom's & Jerry's</a>") ==
        "&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; Jerry&#39;s&lt;/a&gt;");
  CHECK(html_escape("星宇智算 680 CNY") == "星宇智算 680 CNY");  // UTF-8 bytes pass through
}

TEST_CASE("edit_distance is Levenshtein's, letter case ignored") {
  CHECK(edit_distance("simulat", "simulate") == 1);  // one insertion
  CHECK(edit_distance("kitten", "sitting") == 3);    // the textbook example
  CHECK(edit_distance("JSON", "json") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("tp", "pt") == 2);  // a swap is two edits, not one
}

// Diagnostics (scenario/diagnostic.hpp): how every bad-input message is written and where it
// points. The format is the one documented in the header and the README's exit code 3:
// "file:line:col: error: key: message (hint: ...)".
#include <doctest/doctest.h>

#include "flopcast/scenario/diagnostic.hpp"

namespace flopcast {

TEST_CASE("diagnostics: a problem reads file:line:col, severity, key, message and hint, leaving out what is unknown") {
  scenario::Diagnostics d;
  d.error({"x.yaml", 7, 7}, "parallel.tp", "tp 5 does not divide heads 96", "choose tp dividing 96");
  d.warning({"x.yaml", 9, 0}, "parallel.pp", "layers 30 not divisible by pp*vpp = 4");
  d.error({"", 0, 0}, "", "empty file");
  REQUIRE(d.items().size() == 3);
  CHECK(d.items()[0].str() ==
        "x.yaml:7:7: error: parallel.tp: tp 5 does not divide heads 96 (hint: choose tp dividing 96)");
  CHECK(d.items()[1].str() == "x.yaml:9: warning: parallel.pp: layers 30 not divisible by pp*vpp = 4");
  CHECK(d.items()[2].str() == "<input>: error: empty file");
  CHECK(d.has_errors());
  CHECK(d.str() == d.items()[0].str() + "\n" + d.items()[1].str() + "\n" + d.items()[2].str() + "\n");
  scenario::Diagnostics warnings_only;
  warnings_only.warning({"x.yaml", 1, 1}, "k", "m");
  CHECK_FALSE(warnings_only.has_errors());
}

TEST_CASE("diagnostics: a key without a recorded place points at its closest recorded parent, else the file") {
  const scenario::LocationMap locs{
      {"", {"s.yaml", 0, 0}}, {"parallel", {"s.yaml", 5, 1}}, {"parallel.tp", {"s.yaml", 6, 7}}};
  CHECK(scenario::locate(locs, "parallel.tp").str() == "s.yaml:6:7");
  CHECK(scenario::locate(locs, "parallel.dp").str() == "s.yaml:5:1");      // unwritten: its block
  CHECK(scenario::locate(locs, "parallel.moe.ep").str() == "s.yaml:5:1");  // two levels up
  CHECK(scenario::locate(locs, "training.tokens").str() == "s.yaml");      // no parent recorded: the file
  CHECK(scenario::locate(scenario::LocationMap{}, "model").str() == "<input>");
  scenario::Diagnostics d;
  d.error_at(locs, "parallel.cp", "cp 3 does not divide seq_len 8192");
  CHECK(d.str() == "s.yaml:5:1: error: parallel.cp: cp 3 does not divide seq_len 8192\n");
}

}  // namespace flopcast

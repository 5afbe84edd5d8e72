// Strict YAML: a key written twice in one mapping is refused in every file flopcast reads
// (io/yaml_util.cpp load_yaml). yaml-cpp accepts duplicates and keeps both pairs, so before this
// check `precision: bf16` then `precision: fp8` loaded and a lookup took one of the two silently.
// The negative files of each kind, with their exact messages: test_negative.cpp; here the cases
// around them (depth, flow mappings in lists, several duplicates, aliases, look-alikes that are
// not duplicates) and the files read from a folder (data catalogs, a sweep's base scenario).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/shipped_catalog.hpp"
#include "../support/test_files.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/sweep_loader.hpp"

using namespace flopcast;
using namespace flopcast::io;
namespace fs = std::filesystem;

namespace {

const std::string kScenario =
    "model: llama3-8b\n"
    "cluster: {gpu: H800, gpus: 8}\n"
    "parallel: {tp: 1, pp: 1, dp: 8, micro_batch: 1, global_batch: 64}\n"
    "precision: bf16\n";

std::string errors_of(const std::string& text) {
  scenario::Diagnostics d;
  const auto s = parse_scenario(text, "t.yaml", test::shipped_catalog(), d);
  CHECK_FALSE(s.has_value());
  return d.str();
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

}  // namespace

TEST_CASE("duplicate keys: the scenario without them loads (the cases below differ by the duplicate only)") {
  scenario::Diagnostics d;
  CHECK_MESSAGE(parse_scenario(kScenario, "t.yaml", test::shipped_catalog(), d).has_value(), d.str());
}

TEST_CASE("duplicate keys: every one is reported, at every depth, block or flow") {
  const std::string e = errors_of(kScenario +
                                  "training:\n"
                                  "  tokens: 1B\n"
                                  "  tokens: 2B\n"
                                  "precision: fp8\n"
                                  "cluster: {gpu: H100, gpus: 8}\n");
  CHECK(test::contains(e, "t.yaml:7:3: error: training.tokens: duplicate key 'tokens' (first at line 6)"));
  CHECK(test::contains(e, "t.yaml:8:1: error: precision: duplicate key 'precision' (first at line 4)"));
  CHECK(test::contains(e, "t.yaml:9:1: error: cluster: duplicate key 'cluster' (first at line 2)"));
  // Nothing else: the file is refused before its values are read.
  CHECK(std::count(e.begin(), e.end(), '\n') == 3);
}

TEST_CASE("duplicate keys: a flow mapping inside a list inside a mapping") {
  scenario::Diagnostics d;
  const auto spec = parse_sweep(
      "scenario: {model: llama3-8b}\n"
      "axes:\n"
      "  - {key: parallel.tp, values: [1, 2], key: parallel.pp}\n",
      "s.sweep.yml", d);
  CHECK_FALSE(spec.has_value());
  CHECK(
      test::contains(d.str(), "s.sweep.yml:3:40: error: axes[0].key: duplicate key 'key' (first at line 3, column 6)"));
}

TEST_CASE("duplicate keys: quoting does not make another key, the same key in two mappings is no duplicate") {
  CHECK(test::contains(errors_of(kScenario + "\"precision\": fp8\n"), "duplicate key 'precision'"));
  // `key` and `values` in each of two axes (two mappings): legal, and the sweep loads.
  scenario::Diagnostics d;
  const auto spec = parse_sweep(
      "scenario: {model: llama3-8b}\naxes:\n  - {key: parallel.tp, values: [1, 2]}\n"
      "  - {key: parallel.pp, values: [1, 2]}\n",
      "s.sweep.yml", d);
  CHECK_MESSAGE(spec.has_value(), d.str());
  CHECK_FALSE(d.has_errors());
}

TEST_CASE("duplicate keys: aliases are not expanded (a nest of them is checked as written)") {
  // Nine levels of ten aliases each would be 10^9 nodes if expanded; the check reads the text once.
  std::string text = "a0: &a0 {x: 1}\n";
  for (int i = 1; i <= 9; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    text += "]\n";
  }
  text += "a9: again\n";
  const std::string e = errors_of(text);
  CHECK(test::contains(e, "t.yaml:11:1: error: a9: duplicate key 'a9' (first at line 10)"));
}

TEST_CASE("duplicate keys: the data catalogs of --data-dir are refused too") {
  test::TempDir t("dupkeys");
  fs::copy(test::data(""), t.path, fs::copy_options::recursive);
  std::string gpus = test::read_file(t.path / "gpus.yaml");
  const auto at = gpus.find("\n    tdp_w:");
  REQUIRE(at != std::string::npos);
  const auto eol = gpus.find('\n', at + 1);
  gpus.insert(eol, gpus.substr(at, eol - at));  // the first GPU's tdp_w twice
  spit(t.path / "gpus.yaml", gpus);
  scenario::Diagnostics d;
  CHECK_FALSE(load_catalog(t.path.string(), d).has_value());
  CHECK(test::contains(d.str(), "gpus.yaml:"));
  CHECK(test::contains(d.str(), "error: gpus[0].tdp_w: duplicate key 'tdp_w' (first at line "));
}

TEST_CASE("duplicate keys: a sweep's base scenario is refused at its own file:line") {
  test::TempDir t("dupkeys");
  spit(t.path / "base.yaml", kScenario + "precision: fp8\n");
  spit(t.path / "s.sweep.yml", "base: base.yaml\naxes:\n  - key: parallel.tp\n    values: [1]\n");
  scenario::Diagnostics d;
  CHECK_FALSE(load_sweep_file((t.path / "s.sweep.yml").string(), d).has_value());
  CHECK(test::contains(d.str(), "base.yaml:5:1: error: precision: duplicate key 'precision' (first at line 4)"));
}

// io::yaml_set / yaml_remove / patch_scenario_text: a value changed in place keeps every other
// byte (comments, order, alignment before a trailing comment); a missing key is added at its
// mapping's indentation; a flow mapping is rewritten as a block; a scenario edited through
// its form keeps the file's comments and still loads as the edited form says. And
// io::draft_form reads what a file with errors says.
#include <doctest/doctest.h>

#include <string>

#include "../support/shipped_catalog.hpp"
#include "flopcast/io/scenario_draft.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/scenario_writer.hpp"
#include "flopcast/io/yaml_patch.hpp"
#include "test_files.hpp"

using namespace flopcast;

namespace {

const std::string kText =
    "# header comment\n"
    "name: \"demo\"   # the name\n"
    "cluster:\n"
    "  gpu: H800\n"
    "  gpus: 64      # eight nodes\n"
    "# between blocks\n"
    "parallel:\n"
    "  tp: 2\n"
    "  pp: 1\n"
    "\n"
    "precision: bf16\n";

std::string set(std::string text, const io::YamlPath& p, const std::string& v) {
  std::string why;
  REQUIRE_MESSAGE(io::yaml_set(text, p, v, why), why);
  return text;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("yaml_set changes one value in place and keeps its trailing comment and alignment") {
  CHECK(set(kText, {"cluster", "gpus"}, "128") == replace(kText, "gpus: 64      #", "gpus: 128      #"));
  CHECK(set(kText, {"parallel", "tp"}, "4") == replace(kText, "tp: 2", "tp: 4"));
  CHECK(set(kText, {"name"}, "other") == replace(kText, "\"demo\"", "other"));
  CHECK(set(kText, {"precision"}, "fp8") == replace(kText, "precision: bf16", "precision: fp8"));
}

TEST_CASE("yaml_set adds a missing key after its mapping's last line, at its indentation") {
  CHECK(set(kText, {"parallel", "dp"}, "32") == replace(kText, "  pp: 1\n", "  pp: 1\n  dp: 32\n"));
  CHECK(set(kText, {"training", "tokens"}, "1T") == kText + "training:\n  tokens: 1T\n");
  // Four-space files get four spaces.
  const std::string four = "cluster:\n    gpu: H800\n";
  CHECK(set(four, {"cluster", "gpus"}, "8") == "cluster:\n    gpu: H800\n    gpus: 8\n");
  CHECK(set(four, {"parallel", "tp"}, "2") == four + "parallel:\n    tp: 2\n");
}

TEST_CASE("yaml_set replaces a scalar by a block and a block by a scalar") {
  const std::string t = "model: llama3-8b  # preset\nprecision: bf16\n";
  const std::string block = set(t, {"model"}, "preset: llama3-8b\nlayers: 16");
  CHECK(block == "model:  # preset\n  preset: llama3-8b\n  layers: 16\nprecision: bf16\n");
  CHECK(set(block, {"model"}, "llama3-8b") == "model: llama3-8b  # preset\nprecision: bf16\n");
}

TEST_CASE("yaml_remove drops a key and its nested lines only") {
  std::string t = kText;
  std::string why;
  REQUIRE(io::yaml_remove(t, {"cluster", "gpus"}, why));
  CHECK(t == replace(kText, "  gpus: 64      # eight nodes\n", ""));
  REQUIRE(io::yaml_remove(t, {"parallel"}, why));
  CHECK(t.find("tp: 2") == std::string::npos);
  CHECK(t.find("# between blocks") != std::string::npos);
  CHECK(t.find("precision: bf16") != std::string::npos);
  const std::string before = t;
  REQUIRE(io::yaml_remove(t, {"absent", "key"}, why));
  CHECK(t == before);
}

TEST_CASE("yaml_set refuses a path through a flow mapping, a scalar or a sequence, and says why") {
  std::string why;
  std::string flow = "cluster: {gpu: H800, gpus: 64}\n";
  CHECK_FALSE(io::yaml_set(flow, {"cluster", "gpus"}, "8", why));
  CHECK(why.find("cluster") != std::string::npos);
  CHECK(flow == "cluster: {gpu: H800, gpus: 64}\n");
  std::string seq = "pools:\n  - name: a\n";
  CHECK_FALSE(io::yaml_set(seq, {"pools", "name"}, "b", why));
  CHECK(why.find("sequence") != std::string::npos);
}

TEST_CASE("patch_scenario_text keeps the scenario's comments and key order and loads as the form") {
  const auto& catalog = test::shipped_catalog();
  const std::string path = test::scenario_file("quickstart.yaml");
  const std::string text = test::read_file(path);
  scenario::Diagnostics d;
  const auto s = io::parse_scenario(text, path, catalog, d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  const io::ScenarioForm from = io::form_from_scenario(*s, text);
  io::ScenarioForm to = from;
  to.tp = 4;
  to.dp = 16;
  std::string why;
  const auto patched = io::patch_scenario_text(text, from, to, catalog, why);
  REQUIRE_MESSAGE(patched.has_value(), why);
  CHECK(*patched == replace(replace(text, "  tp: 2\n", "  tp: 4\n"), "  dp: 32\n", "  dp: 16\n"));
  scenario::Diagnostics d2;
  const auto again = io::parse_scenario(*patched, path, catalog, d2);
  REQUIRE_MESSAGE(again.has_value(), d2.str());
  CHECK(io::form_from_scenario(*again, *patched) == to);
  // Unchanged form: unchanged text. Back to the first form: the original text.
  CHECK(io::patch_scenario_text(text, from, from, catalog, why) == text);
  CHECK(io::patch_scenario_text(*patched, to, from, catalog, why) == text);
}

TEST_CASE("patch_scenario_text turns a flow mapping it edits into a block and keeps the rest") {
  const auto& catalog = test::shipped_catalog();
  const std::string text =
      "# flow style\nmodel: llama3-8b\ncluster: {gpu: H800, gpus: 64}\nparallel: {tp: 2, global_batch: 512}\n"
      "precision: bf16  # kept\n";
  scenario::Diagnostics d;
  const auto s = io::parse_scenario(text, "flow.yaml", catalog, d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  const io::ScenarioForm from = io::form_from_scenario(*s, text);
  io::ScenarioForm to = from;
  to.gpus = 128;
  std::string why;
  const auto patched = io::patch_scenario_text(text, from, to, catalog, why);
  REQUIRE_MESSAGE(patched.has_value(), why);
  CHECK(patched->rfind("# flow style\nmodel: llama3-8b\ncluster:\n", 0) == 0);
  CHECK(patched->find("parallel: {tp: 2, global_batch: 512}\nprecision: bf16  # kept\n") != std::string::npos);
  scenario::Diagnostics d2;
  const auto again = io::parse_scenario(*patched, "flow.yaml", catalog, d2);
  REQUIRE_MESSAGE(again.has_value(), d2.str());
  CHECK(again->cluster.gpus == 128);
}

TEST_CASE("draft_form reads the form values of a file that does not load") {
  const auto& catalog = test::shipped_catalog();
  io::ScenarioForm defaults;
  defaults.gpu = "H800";
  const std::string text =
      "model: llama3-8b\ncluster:\n  gpu: H801\n  gpus: 64\nparallel:\n  tp: two\n  pp: 2\n  tpp: 4\n"
      "training:\n  tokens: 1T\n";
  const io::ScenarioForm f = io::draft_form(text, catalog, defaults);
  CHECK(f.model_preset == "llama3-8b");
  CHECK(f.layers == catalog.find_model("llama3-8b")->layers);
  CHECK(f.gpu == "H801");  // as written: the loader's error names it
  CHECK(f.gpus == 64);
  CHECK(f.tp == 1);  // not a number: the default
  CHECK(f.pp == 2);
  CHECK(f.dp_auto);
  CHECK(f.tokens == "1T");
  CHECK(io::draft_form("cluster: [unclosed\n", catalog, defaults) == defaults);
  CHECK(io::draft_form("other: 1\n", catalog, defaults) == defaults);
  CHECK(io::looks_like_fleet_file("pools:\n  - name: a\njob_classes: []\n"));
  CHECK_FALSE(io::looks_like_fleet_file(text));
}

// `simulate --trace`: the Chrome trace-event JSON checked against the format's rules (JSON
// Object Format: traceEvents; "X" complete events need name, ph, ts, dur, pid, tid with
// numeric times; "M" metadata names processes and threads) and one stream's slices never overlap.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../support/test_files.hpp"
#include "cli_context.hpp"

using namespace flopcast;
using nlohmann::json;

namespace {

int run_cli(const std::vector<std::string>& args, std::string* out = nullptr) {
  std::vector<const char*> argv{"flopcast"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream o, e;
  const int code = cli::run(static_cast<int>(argv.size()), argv.data(), o, e);
  if (out) *out = o.str();
  return code;
}

/// Checks one trace document; returns the number of "X" events.
std::size_t check_trace(const json& doc) {
  REQUIRE(doc.is_object());
  REQUIRE(doc.contains("traceEvents"));
  const auto& ev = doc["traceEvents"];
  REQUIRE(ev.is_array());
  std::map<std::pair<int, int>, bool> thread_named;
  std::map<int, bool> process_named;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  std::size_t complete = 0;
  for (const auto& e : ev) {
    REQUIRE(e.is_object());
    REQUIRE(e.contains("name"));
    REQUIRE(e["name"].is_string());
    REQUIRE(e.contains("ph"));
    REQUIRE(e["ph"].is_string());
    REQUIRE(e.contains("pid"));
    REQUIRE(e["pid"].is_number_integer());
    REQUIRE(e.contains("tid"));
    REQUIRE(e["tid"].is_number_integer());
    const std::string ph = e["ph"];
    const int pid = e["pid"], tid = e["tid"];
    if (ph == "M") {
      REQUIRE(e.contains("args"));
      const std::string n = e["name"];
      if (n == "thread_name") {
        REQUIRE(e["args"]["name"].is_string());
        thread_named[{pid, tid}] = true;
      } else if (n == "process_name") {
        REQUIRE(e["args"]["name"].is_string());
        process_named[pid] = true;
      } else {
        CHECK((n == "process_sort_index" || n == "thread_sort_index"));
      }
      continue;
    }
    REQUIRE(ph == "X");
    ++complete;
    REQUIRE(e.contains("ts"));
    REQUIRE(e["ts"].is_number());
    REQUIRE(e.contains("dur"));
    REQUIRE(e["dur"].is_number());
    const double ts = e["ts"], dur = e["dur"];
    CHECK(ts >= 0);
    CHECK(dur >= 0);
    CHECK(!e["name"].get<std::string>().empty());
    slices[{pid, tid}].push_back({ts, ts + dur});
  }
  for (auto& entry : slices) {
    const auto& key = entry.first;  // not a structured binding: CAPTURE's lambda takes it (clang 14)
    auto& v = entry.second;
    CAPTURE(key.first);
    CAPTURE(key.second);
    CHECK(thread_named.count(key) == 1);
    CHECK(process_named.count(key.first) == 1);
    std::sort(v.begin(), v.end());
    for (std::size_t i = 1; i < v.size(); ++i) CHECK(v[i].first >= v[i - 1].second - 1e-6);  // 1 ps slack for printing
  }
  return complete;
}

}  // namespace

TEST_SUITE("step") {
  TEST_CASE("simulate --trace writes a valid Chrome trace, one track per stage and stream") {
    const test::TempDir tmp("trace");
    const auto file = (tmp.path / "step.json").string();
    const std::string scen = std::string(FLOPCAST_SCENARIOS_DIR) + "/published/megatron-gpt3-175b-1024xa100.yaml";
    std::string out;
    REQUIRE(run_cli({"simulate", scen, "--trace", file}, &out) == cli::kOk);
    std::ifstream in(file);
    REQUIRE(in.good());
    const json doc = json::parse(in);
    const std::size_t complete = check_trace(doc);
    CHECK(complete > 100);
    // Names like "F mb3" and "B mb3" on the compute tracks.
    bool f = false, b = false;
    for (const auto& e : doc["traceEvents"]) {
      const std::string n = e["name"];
      if (n.rfind("F mb", 0) == 0) f = true;
      if (n.rfind("B mb", 0) == 0) b = true;
    }
    CHECK(f);
    CHECK(b);
    // No overwrite without --force; --force replaces it; --trace with --estimate is a usage error.
    CHECK(run_cli({"simulate", scen, "--trace", file}) == cli::kIoError);
    CHECK(run_cli({"simulate", scen, "--trace", file, "--force"}) == cli::kOk);
    CHECK(run_cli({"simulate", scen, "--estimate", "--trace", file, "--force"}) == cli::kUsage);
  }

  TEST_CASE("simulate reports the engine: simulation by default, the closed form with --estimate") {
    const std::string scen = std::string(FLOPCAST_SCENARIOS_DIR) + "/quickstart.yaml";
    std::string sim, est;
    REQUIRE(run_cli({"simulate", "--json", scen}, &sim) == cli::kOk);
    REQUIRE(run_cli({"simulate", "--json", "--estimate", scen}, &est) == cli::kOk);
    const auto js = json::parse(sim);
    const auto je = json::parse(est);
    CHECK(js["step"]["engine"] == "simulation");
    CHECK(je["step"]["engine"] == "estimate");
    CHECK(js["step"]["estimate_time_s"].get<double>() == doctest::Approx(je["step"]["time_s"].get<double>()));
    CHECK(js["stages"].is_array());
  }
}

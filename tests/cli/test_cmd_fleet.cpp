// Fleet planning (app/fleet_request.hpp): each job class planned as written and re-planned on other
// GPUs and counts, the shipped fleets load and plan, rented pools billed; and the flopcast fleet
// command's exit codes and byte-identical output. The loader's diagnostics: fleet/test_fleet_loader.cpp.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_context.hpp"
#include "fleet_text.hpp"
#include "flopcast/app/fleet_request.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/fleet_loader.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;
using namespace flopcast::io;
using namespace flopcast::test::fleet_text;

namespace {

const io::Catalog& catalog() { return test::shipped_catalog(); }

struct CliRun {
  int code = 0;
  std::string out, err;
};

CliRun run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "flopcast");
  args.push_back("--data-dir");
  args.push_back(FLOPCAST_DATA_DIR);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliRun r;
  r.code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace

TEST_CASE("plan_fleet plans each class's variants: as written and re-planned on another GPU") {
  Loaded l = parse(kGood);
  REQUIRE_MESSAGE(l.ff.has_value(), l.d.str());
  FleetFile& ff = *l.ff;
  Diagnostics d;
  std::vector<std::string> notes;
  REQUIRE_MESSAGE(app::plan_fleet(ff, catalog(), d, notes), d.str());
  // As written (32 x A100-80G), then re-planned on the H800 pool's GPU.
  REQUIRE(ff.fleet.classes[0].variants.size() == 2);
  CHECK(ff.fleet.classes[0].variants[0].gpu == "A100-80G");
  CHECK(ff.fleet.classes[0].variants[1].gpu == "H800");
  CHECK(ff.fleet.classes[0].variants[0].spans.size() == 200);  // the reliability trials
  // H800 has 3.2x the A100's dense BF16 peak: the re-planned run is shorter.
  CHECK(ff.fleet.classes[0].variants[1].estimate < ff.fleet.classes[0].variants[0].estimate);
  CHECK(fleet::validate_fleet(ff.fleet).empty());
}

TEST_CASE("the shipped fleets load and plan") {
  for (const char* name : {"provider-month.yaml", "company-quarter.yaml"}) {
    CAPTURE(name);
    Diagnostics d;
    auto ff = load_fleet_file(std::string(FLOPCAST_SCENARIOS_DIR) + "/fleets/" + name, catalog(), d);
    REQUIRE_MESSAGE(ff.has_value(), d.str());
    std::vector<std::string> notes;
    REQUIRE_MESSAGE(app::plan_fleet(*ff, catalog(), d, notes), d.str());
    CHECK(fleet::validate_fleet(ff->fleet).empty());
  }
}

TEST_CASE("flopcast fleet: exit codes and byte-identical output for one seed") {
  const std::string file = std::string(FLOPCAST_SCENARIOS_DIR) + "/fleets/provider-month.yaml";
  const auto a = run_cli({"fleet", file, "--seeds", "2", "--json", "--no-what-if"});
  REQUIRE_MESSAGE(a.code == 0, a.err);
  const auto b = run_cli({"fleet", file, "--seeds", "2", "--json", "--no-what-if", "-j", "2"});
  CHECK(a.out == b.out);
  CHECK(a.out.find("\"series\"") != std::string::npos);
  CHECK(run_cli({"fleet", "/nonexistent/fleet.yaml"}).code == cli::kIoError);
  CHECK(run_cli({"fleet", file, "--horizon", "soon"}).code == cli::kUsage);
  CHECK(run_cli({"fleet", file, "--size-pool", "nope", "--target-p90-wait", "1d", "--seeds", "1"}).code == cli::kUsage);
}

TEST_CASE("re-planning scales DP, a count the plan cannot take is dropped with a note") {
  // llama2-13b-64xa100: TP2 PP1, global batch 512, micro-batch 1. 128 GPUs -> DP 64 (512 / 64
  // = 8 micro-batches); 48 GPUs -> DP 24, and 512 is not divisible by 24: dropped.
  const std::string text = replace(replace(kGood, "jobs/llama2-7b-32xa100.yaml", "jobs/llama2-13b-64xa100.yaml"),
                                   "replan: {gpu_types: [H800]}", "replan: {gpu_counts: [128, 48]}");
  Loaded l = parse(replace(text, "nodes: 4", "nodes: 16"));
  REQUIRE_MESSAGE(l.ff.has_value(), l.d.str());
  Diagnostics d;
  std::vector<std::string> notes;
  REQUIRE_MESSAGE(app::plan_fleet(*l.ff, catalog(), d, notes), d.str());
  const auto& v = l.ff->fleet.classes[0].variants;
  REQUIRE(v.size() == 2);
  CHECK(v[0].gpus == 64);
  CHECK(v[1].gpus == 128);
  // Twice the GPUs, same work: the run is shorter, but not by more than 2x.
  CHECK(v[1].estimate < v[0].estimate);
  CHECK(v[1].estimate.seconds() > 0.5 * v[0].estimate.seconds());
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "re-plan small on 48 x A100-80G dropped: global batch 512 is not divisible by DP 24 x micro-batch 1");
}

TEST_CASE("flopcast fleet: the company fleet's text report is byte-identical twice") {
  const std::string file = std::string(FLOPCAST_SCENARIOS_DIR) + "/fleets/company-quarter.yaml";
  const auto a = run_cli({"fleet", file, "--seeds", "3"});
  REQUIRE_MESSAGE(a.code == 0, a.err);
  CHECK(a.out == run_cli({"fleet", file, "--seeds", "3", "-j", "3"}).out);
  CHECK(a.out.find("What if") != std::string::npos);
}

TEST_CASE("rented pools: the plan's bill for the horizon, and the same usage under the catalog's other plans") {
  // 2 A100 nodes reserved for 30 days (720 h = one month) under the seed vendor's node-month plan:
  // 2 x 57,600 = 115,200.00 CNY. The same 16 GPUs x 720 h under its hourly plan at 6.8 CNY per
  // GPU-hour: 78,336.00 CNY (data/prices/seed-vendor.yaml).
  std::string text = replace(kGood, "horizon: 10d", "horizon: 30d");
  text = replace(text, "nodes: 4\n    rented: {catalog: seed-vendor, plan: a100-80g-hourly, billing: on_demand}",
                 "nodes: 2\n    rented: {catalog: seed-vendor, plan: a100-80g-monthly-node, billing: reserved}");
  Loaded l = parse(text);
  REQUIRE_MESSAGE(l.ff.has_value(), l.d.str());
  Diagnostics d;
  std::vector<std::string> notes;
  REQUIRE(app::plan_fleet(*l.ff, catalog(), d, notes));
  const auto r = fleet::simulate_fleet(l.ff->fleet);
  REQUIRE(r.costs.size() == 2);
  const auto& c = r.costs[0];
  CHECK(c.plan == "a100-80g-monthly-node");
  CHECK(c.bill.str() == "115,200.00 CNY");
  bool hourly = false;
  for (const auto& [plan, m] : c.plan_bills)
    if (plan == "a100-80g-hourly") {
      hourly = true;
      CHECK(m.str() == "78,336.00 CNY");
    }
  CHECK(hourly);
}

// Fleet files (io/fleet_loader.hpp, docs/fleet.md): the shipped fleets load and plan; each kind
// of mistake gets one diagnostic with its file:line, key and hint (unknown keys with a
// did-you-mean); the flopcast fleet command's exit codes and byte-identical output.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "cli_context.hpp"
#include "flopcast/app/fleet_request.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/fleet_loader.hpp"

using namespace flopcast;
using namespace flopcast::io;

namespace {

const io::Catalog& catalog() { return test::shipped_catalog(); }

/// A fleet file that loads; tests replace one line to break it.
const std::string kGood = R"(name: t
horizon: 10d
seeds: 2
pools:
  - name: a100
    gpu: A100-80G
    nodes: 4
    rented: {catalog: seed-vendor, plan: a100-80g-hourly, billing: on_demand}
  - name: h800
    gpu: H800
    nodes: 8
    owned: {capex_per_node: 200000, currency: USD, amortisation_years: 4, electricity_per_kwh: 0.08}
job_classes:
  - name: small
    scenario: jobs/llama2-7b-32xa100.yaml
    tokens: 1B
    replan: {gpu_types: [H800]}
jobs:
  - {name: a, class: small, arrival: 0d, priority: 1, deadline: 3d}
  - {name: b, class: small, arrival: 1d}
what_if:
  - {add_nodes: 2, pool: h800}
)";

/// The fleet file's path: scenarios resolve against its folder.
const std::string kFile = std::string(FLOPCAST_SCENARIOS_DIR) + "/fleets/test.yaml";

struct Loaded {
  std::optional<FleetFile> ff;
  Diagnostics d;
};

Loaded parse(const std::string& text) {
  Loaded l;
  l.ff = parse_fleet(text, kFile, catalog(), l.d);
  return l;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return s.replace(at, from.size(), to);
}

/// The single error of `text`: its line, key, message and hint.
Diagnostic only_error(const std::string& text) {
  const Loaded l = parse(text);
  CHECK_FALSE(l.ff.has_value());
  std::vector<Diagnostic> errors;
  for (const auto& d : l.d.items())
    if (d.severity == Severity::Error) errors.push_back(d);
  REQUIRE_MESSAGE(errors.size() == 1, l.d.str());
  return errors.front();
}

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

TEST_CASE("a good fleet file loads, resolves names and plans each class's variants") {
  Loaded l = parse(kGood);
  REQUIRE_MESSAGE(l.ff.has_value(), l.d.str());
  FleetFile& ff = *l.ff;
  CHECK(ff.fleet.horizon == Time::from_seconds(10 * 86400.0));
  REQUIRE(ff.fleet.pools.size() == 2);
  CHECK(ff.fleet.pools[0].kind == fleet::PoolKind::Rented);
  CHECK(ff.fleet.pools[1].fabric == "hgx-h800-roce200");                  // the H800's default fabric
  CHECK(ff.fleet.pools[1].owned.node_power_kw == doctest::Approx(10.2));  // from that fabric
  CHECK(ff.fleet.pools[1].owned.capex_per_node.minor == 200000'00);
  REQUIRE(ff.fleet.jobs.size() == 2);
  CHECK(ff.fleet.jobs[0].deadline == Time::from_seconds(3 * 86400.0));
  REQUIRE(ff.fleet.what_ifs.size() == 1);
  CHECK(ff.fleet.what_ifs[0].pool == "h800");
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

TEST_CASE("fleet loader negatives: one diagnostic each, with line, key and hint") {
  SUBCASE("unknown top-level key with a did-you-mean") {
    const auto d = only_error(replace(kGood, "horizon: 10d", "horizn: 10d"));
    CHECK(d.where.line == 2);
    CHECK(d.key == "horizn");
    CHECK(d.message == "unknown key 'horizn'");
    CHECK(d.hint == "did you mean 'horizon'?");
  }
  SUBCASE("unknown key in a pool") {
    const auto d = only_error(replace(kGood, "    nodes: 4", "    nodse: 4\n    nodes: 4"));
    CHECK(d.where.line == 7);
    CHECK(d.key == "pools[0].nodse");
    CHECK(d.hint == "did you mean 'nodes'?");
  }
  SUBCASE("unknown GPU") {
    const auto d = only_error(replace(kGood, "gpu: H800", "gpu: H8000"));
    CHECK(d.where.line == 10);
    CHECK(d.key == "pools[1].gpu");
    CHECK(d.message == "unknown GPU 'H8000'");
    CHECK(d.hint.rfind("did you mean 'H800'?", 0) == 0);
  }
  SUBCASE("plan not in the catalog") {
    const auto d = only_error(replace(kGood, "plan: a100-80g-hourly", "plan: a100-80g-hourli"));
    CHECK(d.where.line == 8);
    CHECK(d.key == "pools[0].rented.plan");
    CHECK(d.message == "no plan 'a100-80g-hourli' in catalog 'seed-vendor'");
    CHECK(d.hint.rfind("did you mean 'a100-80g-hourly'?", 0) == 0);
  }
  SUBCASE("plan for another GPU") {
    const auto d = only_error(replace(kGood, "plan: a100-80g-hourly", "plan: h800-daily"));
    CHECK(d.key == "pools[0].rented.plan");
    CHECK(d.message == "plan 'h800-daily' does not rent A100-80G (it rents H800)");
  }
  SUBCASE("unknown job class") {
    const auto d = only_error(replace(kGood, "{name: b, class: small", "{name: b, class: smal"));
    CHECK(d.where.line == 20);
    CHECK(d.key == "jobs[1].class");
    CHECK(d.message == "unknown job class 'smal'");
    CHECK(d.hint == "did you mean 'small'? job classes: small");
  }
  SUBCASE("bad duration") {
    const auto d = only_error(replace(kGood, "deadline: 3d", "deadline: 3 parsecs"));
    CHECK(d.key == "jobs[0].deadline");
    CHECK(d.message == "expected a duration > 0, got '3 parsecs'");
  }
  SUBCASE("owned and rented at once") {
    const auto d = only_error(
        replace(kGood, "    nodes: 8\n", "    nodes: 8\n    rented: {catalog: seed-vendor, plan: h800-daily}\n"));
    CHECK(d.key == "pools[1]");
    CHECK(d.message == "a pool is either 'owned' or 'rented', not both");
  }
  SUBCASE("both a job list and a generator") {
    const auto d = only_error(kGood + "generator: {rate_per_day: 1, mix: [{class: small}]}\n");
    CHECK(d.key == "generator");
    CHECK(d.message == "a fleet has either 'jobs' or 'generator', not both");
  }
  SUBCASE("what-if on an unknown pool") {
    const auto d = only_error(replace(kGood, "{add_nodes: 2, pool: h800}", "{add_nodes: 2, pool: h80}"));
    CHECK(d.key == "what_if[0].pool");
    CHECK(d.message == "no pool 'h80'");
    CHECK(d.hint == "did you mean 'h800'? pools: a100, h800");
  }
  SUBCASE("what-if that empties a pool") {
    const auto d = only_error(replace(kGood, "{add_nodes: 2, pool: h800}", "{add_nodes: -8, gpu: H800}"));
    CHECK(d.key == "what_if[0].add_nodes");
    CHECK(d.message == "the pool would have 0 nodes");
  }
  SUBCASE("missing scenario file") {
    const auto d = only_error(replace(kGood, "jobs/llama2-7b-32xa100.yaml", "jobs/nope.yaml"));
    CHECK(d.where.line == 15);
    CHECK(d.key == "job_classes[0].scenario");
    CHECK(d.message.find("file not found") != std::string::npos);
  }
  SUBCASE("zero nodes") {
    const auto d = only_error(replace(kGood, "nodes: 4", "nodes: 0"));
    CHECK(d.key == "pools[0].nodes");
    CHECK(d.message == "value 0 is out of range: expected 1 to 1000000");
  }
}

TEST_CASE("missing pools key: unknown key plus the missing one, both reported") {
  const Loaded l = parse(replace(kGood, "pools:\n", "poolz:\n"));
  CHECK_FALSE(l.ff.has_value());
  const std::string s = l.d.str();
  CHECK(s.find("unknown key 'poolz'") != std::string::npos);
  CHECK(s.find("did you mean 'pools'?") != std::string::npos);
  CHECK(s.find("missing required key 'pools'") != std::string::npos);
}

TEST_CASE("malformed YAML and an empty file") {
  Loaded l = parse("pools: [\n");
  CHECK_FALSE(l.ff.has_value());
  CHECK(l.d.str().find("malformed YAML") != std::string::npos);
  l = parse("");
  CHECK(l.d.str().find("the file is empty") != std::string::npos);
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
  const auto b = run_cli({"fleet", file, "--seeds", "2", "--json", "--no-what-if", "--threads", "2"});
  CHECK(a.out == b.out);
  CHECK(a.out.find("\"series\"") != std::string::npos);
  CHECK(run_cli({"fleet", "/nonexistent/fleet.yaml"}).code == cli::kIoError);
  CHECK(run_cli({"fleet", file, "--horizon", "soon"}).code == cli::kUsage);
  CHECK(run_cli({"fleet", file, "--size-pool", "nope", "--target-p90-wait", "1d", "--seeds", "1"}).code == cli::kUsage);
}

TEST_CASE("re-planning scales DP; a count the plan cannot take is dropped with a note") {
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
  CHECK(a.out == run_cli({"fleet", file, "--seeds", "3", "--threads", "3"}).out);
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

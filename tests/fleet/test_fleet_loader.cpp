// Fleet files (io/fleet_loader.hpp, docs/fleet.md): a good file loads and resolves names; each
// kind of mistake gets one diagnostic with its file:line, key and hint (unknown keys with a
// did-you-mean). Planning the loaded classes and the flopcast fleet command: cli/test_cmd_fleet.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fleet_text.hpp"
#include "flopcast/fleet/fleet.hpp"
#include "flopcast/io/fleet_loader.hpp"

using namespace flopcast;
using namespace flopcast::io;
using namespace flopcast::test::fleet_text;

namespace {

/// The single error of `text`: its line, key, message and hint.
scenario::Diagnostic only_error(const std::string& text) {
  const Loaded l = parse(text);
  CHECK_FALSE(l.ff.has_value());
  std::vector<scenario::Diagnostic> errors;
  for (const auto& d : l.d.items())
    if (d.severity == scenario::Severity::Error) errors.push_back(d);
  REQUIRE_MESSAGE(errors.size() == 1, l.d.str());
  return errors.front();
}

}  // namespace

TEST_CASE("a good fleet file loads and resolves names") {
  Loaded l = parse(kGood);
  REQUIRE_MESSAGE(l.ff.has_value(), l.d.str());
  FleetFile& ff = *l.ff;
  CHECK(ff.fleet.horizon == units::Time::from_seconds(10 * 86400.0));
  REQUIRE(ff.fleet.pools.size() == 2);
  CHECK(ff.fleet.pools[0].kind == fleet::PoolKind::Rented);
  CHECK(ff.fleet.pools[1].fabric == "hgx-h800-roce200");                  // the H800's default fabric
  CHECK(ff.fleet.pools[1].owned.node_power_kw == doctest::Approx(10.2));  // from that fabric
  CHECK(ff.fleet.pools[1].owned.capex_per_node.minor == 200000'00);
  REQUIRE(ff.fleet.jobs.size() == 2);
  CHECK(ff.fleet.jobs[0].deadline == units::Time::from_seconds(3 * 86400.0));
  REQUIRE(ff.fleet.what_ifs.size() == 1);
  CHECK(ff.fleet.what_ifs[0].pool == "h800");
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
    // A misspelling of the same part (H800) gets a suggestion; another part number (H8000) would
    // not (io::same_family_gpu).
    const auto d = only_error(replace(kGood, "gpu: H800", "gpu: H800x"));
    CHECK(d.where.line == 10);
    CHECK(d.key == "pools[1].gpu");
    CHECK(d.message == "unknown GPU 'H800x'");
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

TEST_CASE("with revenue, a pool without a revenue plan is an error unless it is internal") {
  std::ifstream in(std::string(FLOPCAST_SCENARIOS_DIR) + "/fleets/provider-month.yaml");
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string internal =
      "    internal: true                # the provider's own 70B runs: its cost counts, it bills no customer\n";
  // As shipped: the B200 pool is internal, the file loads, the pool earns nothing.
  Loaded ok = parse(text.str());
  REQUIRE_MESSAGE(ok.ff.has_value(), ok.d.str());
  CHECK(ok.ff->fleet.pools[2].internal);
  // Without internal: the B200 pool has no revenue plan: an error at its line, naming the fix.
  const std::string broken = replace(text.str(), internal, "");
  const scenario::Diagnostic e = only_error(broken);
  CHECK(e.key == "pools[2]");
  CHECK(e.where.line ==
        1 + static_cast<int>(
                std::count(broken.begin(),
                           broken.begin() + static_cast<std::ptrdiff_t>(broken.find("  - name: b200-hourly")), '\n')));
  CHECK(e.message == "pool 'b200-hourly' (B200) has no revenue plan: its runs would earn nothing");
  CHECK(e.hint.find("add 'B200: PLAN' to revenue.plans") == 0);
  CHECK(e.hint.find("or mark the pool internal: true") != std::string::npos);
}

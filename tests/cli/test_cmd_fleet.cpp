// Fleet planning (app/fleet_request.hpp): each job class planned as written and re-planned on other
// GPUs and counts, the shipped fleets load and plan, rented pools billed; and the flopcast fleet
// command's exit codes and byte-identical output. The loader's diagnostics: fleet/test_fleet_loader.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli_context.hpp"
#include "fleet_text.hpp"
#include "flopcast/app/fleet_request.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/fleet_loader.hpp"
#include "flopcast/units/format.hpp"
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
  scenario::Diagnostics d;
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
    scenario::Diagnostics d;
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
  // A bare number has no unit: refused, never read as nanoseconds (a 0.0 h horizon before).
  const auto bare = run_cli({"fleet", file, "--horizon", "90"});
  CHECK(bare.code == cli::kUsage);
  CHECK_MESSAGE(bare.err.find("--horizon '90' has no unit (write e.g. --horizon 90d)") != std::string::npos, bare.err);
  const auto bare_wait = run_cli({"fleet", file, "--size-pool", "p", "--target-p90-wait", "12", "--seeds", "1"});
  CHECK(bare_wait.code == cli::kUsage);
  CHECK_MESSAGE(bare_wait.err.find("--target-p90-wait '12' has no unit") != std::string::npos, bare_wait.err);
  CHECK(run_cli({"fleet", file, "--size-pool", "nope", "--target-p90-wait", "1d", "--seeds", "1"}).code == cli::kUsage);
}

TEST_CASE("re-planning scales DP, a count the plan cannot take is dropped with a note") {
  // llama2-13b-64xa100: TP2 PP1, global batch 512, micro-batch 1. 128 GPUs -> DP 64 (512 / 64
  // = 8 micro-batches); 48 GPUs -> DP 24, and 512 is not divisible by 24: dropped.
  const std::string text = replace(replace(kGood, "jobs/llama2-7b-32xa100.yaml", "jobs/llama2-13b-64xa100.yaml"),
                                   "replan: {gpu_types: [H800]}", "replan: {gpu_counts: [128, 48]}");
  Loaded l = parse(replace(text, "nodes: 4", "nodes: 16"));
  REQUIRE_MESSAGE(l.ff.has_value(), l.d.str());
  scenario::Diagnostics d;
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
  scenario::Diagnostics d;
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

namespace {

const std::string kProvider = std::string(FLOPCAST_SCENARIOS_DIR) + "/fleets/provider-month.yaml";

/// The 1-based line of the first occurrence of `needle` in `text`.
int line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  REQUIRE_MESSAGE(at != std::string::npos, needle);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

/// The warnings of `d`.
std::vector<scenario::Diagnostic> warnings_of(const scenario::Diagnostics& d) {
  std::vector<scenario::Diagnostic> out;
  for (const auto& i : d.items())
    if (i.severity == scenario::Severity::Warning) out.push_back(i);
  return out;
}

}  // namespace

TEST_CASE("fleet money: one reporting currency, the rate stated, a loss said plainly") {
  // The provider's pools bill in CNY (the A100 lease) and USD (H800, B200); its revenue is in CNY.
  const auto r = run_cli({"fleet", kProvider, "--seeds", "2", "--no-what-if"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("Money over the horizon in CNY") != std::string::npos);
  CHECK(r.out.find("1 USD = 7.2 CNY (seed-vendor: ") != std::string::npos);
  // Never a mixed total: no "CNY + ... USD".
  CHECK(r.out.find(" CNY + ") == std::string::npos);
  CHECK(r.out.find(" USD + ") == std::string::npos);
  // Leasing A100 nodes at 96,000 CNY a month and reselling them at 6.8 CNY per GPU-hour loses money.
  CHECK(r.out.find("the month loses ") != std::string::npos);
  // The same fleet reported in USD: every figure converted, the loss in USD.
  const auto usd = run_cli({"fleet", kProvider, "--seeds", "2", "--no-what-if", "--currency", "USD"});
  REQUIRE_MESSAGE(usd.code == 0, usd.err);
  CHECK(usd.out.find("Money over the horizon in USD") != std::string::npos);
  const auto loss = usd.out.find("the month loses ");
  REQUIRE(loss != std::string::npos);
  CHECK(usd.out.substr(loss, usd.out.find('\n', loss) - loss).find(" CNY") == std::string::npos);
  // No rate into EUR in the catalogs: an error at the key that bills, naming the catalogs and the fix.
  const auto eur = run_cli({"fleet", kProvider, "--seeds", "2", "--no-what-if", "--currency", "EUR"});
  CHECK(eur.code != 0);
  CHECK(eur.err.find("provider-month.yaml:29:16: error: pools[0].rented.catalog: pool 'a100-monthly': the bill of "
                     "seed-vendor in CNY cannot be reported in EUR") != std::string::npos);
  CHECK(eur.err.find("none in the catalogs seed-vendor, public-cloud") != std::string::npos);
  CHECK(eur.err.find("or report in CNY (--currency CNY)") != std::string::npos);
}

TEST_CASE("fleet size sweep: today's size listed with cost, and a P90 set by another pool is said, not answered") {
  // The fleet-wide P90 of provider-month is set by the 70B jobs on the B200 pool (and the 13B
  // on A100): no size of the H800 pool brings it under 12 h.
  const auto r =
      run_cli({"fleet", kProvider, "--seeds", "2", "--size-pool", "h800-hourly", "--target-p90-wait", "12h"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("(today 12 nodes)") != std::string::npos);
  CHECK(r.out.find("      12 today ") != std::string::npos);
  CHECK(r.out.find("cost") != std::string::npos);
  CHECK(r.out.find("margin") != std::string::npos);
  CHECK(r.out.find("llama2-70b") != std::string::npos);  // the P90 wait per class
  CHECK(r.out.find("cannot be met by resizing h800-hourly") != std::string::npos);
  CHECK(r.out.find("answer:") == std::string::npos);
  // The H800 class targeted alone: an answer, larger than today, that meets the target.
  const auto c = run_cli({"fleet", kProvider, "--seeds", "2", "--size-pool", "h800-hourly", "--target-p90-wait", "12h",
                          "--class", "llama3-8b"});
  REQUIRE_MESSAGE(c.code == 0, c.err);
  CHECK(c.out.find("over the jobs of llama3-8b") != std::string::npos);
  CHECK(c.out.find("answer: ") != std::string::npos);
  CHECK(c.out.find("cannot be met") == std::string::npos);
}

TEST_CASE("a deadline shorter than the job's run is warned at load, at its line, with both durations") {
  Loaded l = parse(kGood);
  REQUIRE(l.ff.has_value());
  scenario::Diagnostics d;
  std::vector<std::string> notes;
  REQUIRE(app::plan_fleet(*l.ff, catalog(), d, notes));
  const auto& v = l.ff->fleet.classes[0].variants;
  REQUIRE(v.size() == 2);  // 32 x A100-80G as written, 32 x H800 re-planned (faster)
  std::vector<units::Time> a100 = v[0].spans, h800 = v[1].spans;
  const units::Time slow = fleet::percentiles_of(a100).p50, fast = fleet::percentiles_of(h800).p50;
  REQUIRE(fast < slow);
  const auto warned = [&](double deadline_s) {
    const std::string text =
        replace(kGood, "deadline: 3d", "deadline: " + std::to_string(static_cast<long long>(deadline_s)) + "s");
    Loaded m = parse(text);
    REQUIRE_MESSAGE(m.ff.has_value(), m.d.str());
    scenario::Diagnostics md;
    REQUIRE(app::plan_fleet(*m.ff, catalog(), md, notes));
    app::warn_short_deadlines(*m.ff, md);
    const auto w = warnings_of(md);
    if (!w.empty()) CHECK(w.front().where.line == line_of(text, "{name: a,"));
    return w;
  };
  SUBCASE("shorter than its fastest run") {
    const auto w = warned(0.5 * fast.seconds());
    REQUIRE(w.size() == 1);
    CHECK(w[0].key == "jobs[0].deadline");
    CHECK(w[0].message.find("job 'a' (small): deadline ") == 0);
    CHECK(w[0].message.find("is shorter than its run, " + units::format_duration_with_hours(fast)) !=
          std::string::npos);
  }
  SUBCASE("met on H800, not on the A100 it was written for") {
    const auto w = warned(0.5 * (fast.seconds() + slow.seconds()));
    REQUIRE(w.size() == 1);
    CHECK(w[0].message.find("is shorter than its run as 32 x A100-80G, " + units::format_duration_with_hours(slow)) !=
          std::string::npos);
    CHECK(w[0].message.find("as 32 x H800 it runs " + units::format_duration_with_hours(fast)) != std::string::npos);
  }
  SUBCASE("longer than every run: no warning") { CHECK(warned(1.5 * slow.seconds()).empty()); }
}

TEST_CASE("the shipped provider fleet: its 8B jobs' 2-day deadline is warned, their A100 re-plan runs longer") {
  const auto r = run_cli({"fleet", kProvider, "--seeds", "1", "--no-what-if"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.find("provider-month.yaml:71:") != std::string::npos);
  CHECK(r.err.find("warning: generator.mix[2].deadline: generator.mix[2] (llama3-8b): deadline 2.0 days") !=
        std::string::npos);
  CHECK(r.err.find("is shorter than its run as 64 x A100-80G") != std::string::npos);
}

TEST_CASE("the company fleet's -8 nodes what-if: the 70B jobs that never start raise the mean wait, counted") {
  // 28 H100 nodes (224 GPUs) cannot run the 256-GPU 70B jobs: 3 per seed never start. The P90
  // (the 36th of 39 waits) is set by the 8B jobs, which have the cluster to themselves; the mean
  // includes the three censored waits and is a lower bound of many days, not 0 h.
  const std::string file = std::string(FLOPCAST_SCENARIOS_DIR) + "/fleets/company-quarter.yaml";
  const auto r = run_cli({"fleet", file, "--seeds", "2"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const auto at = r.out.find("  -8 nodes h100-owned");
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  CHECK(line.find(", mean >=") != std::string::npos);
  CHECK(line.find("unstarted 3/seed (llama3-70b 3)") != std::string::npos);
  CHECK(r.out.find("job class 'llama3-70b' (256 x H100) fits no pool: its jobs never start") != std::string::npos);
}

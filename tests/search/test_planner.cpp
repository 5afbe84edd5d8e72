// The plan search (core/search): pruning counts on a hand-checkable space, every kept plan a
// valid scenario, the Pareto front's properties, deadline/budget selection against brute force,
// thread-count independence, the streaming top-K and the re-simulation hook.
#include <doctest/doctest.h>

#include <atomic>

#include <algorithm>
#include <random>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/scenario/scenario_check.hpp"
#include "flopcast/search/planner.hpp"
#include "flopcast/topology/group_shape.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;
using namespace flopcast::search;

namespace {

const io::Catalog& catalog() { return test::shipped_catalog(); }

scenario::Scenario base_scenario(std::int64_t global_batch = 12) {
  scenario::Diagnostics d;
  const std::string yaml = R"(
model: llama3-8b
cluster: {gpu: H800, gpus: 8}
parallel: {tp: 2, pp: 1, dp: 4, micro_batch: 1, global_batch: )" +
                           std::to_string(global_batch) + R"(}
precision: bf16
training: {tokens: 10B}
pricing: {catalog: seed-vendor}
)";
  auto s = io::parse_scenario(yaml, "test", catalog(), d);
  REQUIRE_MESSAGE(s, d.str());
  return *s;
}

std::shared_ptr<const pricing::PriceCatalog> seed_vendor() {
  scenario::Diagnostics d;
  auto c = io::load_price_catalog("seed-vendor", "", d);
  REQUIRE(c);
  return std::make_shared<const pricing::PriceCatalog>(*c);
}

std::int64_t pruned(const PlanResult& r, const std::string& reason_start) {
  for (const auto& p : r.pruned)
    if (p.reason.rfind(reason_start, 0) == 0) return p.count;
  return 0;
}

}  // namespace

TEST_CASE("planner: pruning counts on a hand-checkable space") {
  const scenario::Scenario s = base_scenario(12);
  PlanSpace sp;
  sp.clusters = {s.cluster};
  sp.gpu_counts = {8};
  sp.tp = {1, 2, 3};  // 3 does not divide 32 heads
  sp.pp = {1, 2};
  sp.cp = {1};
  sp.micro_batch = {1};
  sp.zero = {1};
  sp.sequence_parallel = {false};
  sp.recompute = {parallel::Recompute::Full};
  sp.schedule = {parallel::Schedule::OneFOneB};
  sp.vpp = {1};
  PlannerOptions opt;
  opt.top_k = 100;
  const auto r = search_plans(s, catalog().profile, sp, opt);
  REQUIRE(r.ok());
  // tp x pp on 8 GPUs: dp = 8 (tp1 pp1), 4 (tp2 pp1, tp1 pp2), 2 (tp2 pp2). Global batch 12 needs
  // micro_batch x dp | 12: dp 8 fails, the other three pass; tp 3 is pruned before pp.
  CHECK(pruned(r.result, "tp does not divide heads") == 1);
  CHECK(pruned(r.result, "micro_batch*dp") == 1);
  CHECK(pruned(r.result, "tp*cp*pp") == 0);
  CHECK(r.result.enumerated == 3);
  CHECK(r.result.estimated == 3);  // an 8B model with full recompute fits 80 GB in all three
  CHECK(r.result.top.size() == 3);
  // 3 GPUs: nothing divides but tp 1 pp 1 (dp 3; 12 % 3 == 0) and tp 3 is pruned on heads.
  sp.gpu_counts = {3};
  const auto r3 = search_plans(s, catalog().profile, sp, opt);
  CHECK(pruned(r3.result, "tp*cp*pp") == 3);  // tp1 pp2, tp2 pp1, tp2 pp2
  CHECK(r3.result.enumerated == 1);
}

TEST_CASE("planner: a model too big for one GPU is pruned for memory, and said so") {
  scenario::Scenario s = base_scenario(16);
  PlanSpace sp;
  sp.clusters = {s.cluster};
  sp.gpu_counts = {1};
  sp.micro_batch = {1};
  PlannerOptions opt;
  opt.catalogs = {seed_vendor()};
  const auto r = search_plans(s, catalog().profile, sp, opt);
  REQUIRE(r.ok());
  // 8B parameters x 16 B (weights, gradients, Adam) = 128 GB > 80 GB on one GPU: nothing fits.
  CHECK(r.result.estimated == 0);
  CHECK(pruned(r.result, "does not fit") == r.result.enumerated);
  CHECK(r.result.enumerated > 0);
  REQUIRE(!r.result.infeasible.empty());
  CHECK(r.result.infeasible.front().find("no plan fits in memory") != std::string::npos);
  CHECK(!r.result.best);
}

TEST_CASE("planner: every plan kept is a valid scenario and fits memory") {
  const scenario::Scenario s = base_scenario(64);
  PlanSpace sp;
  sp.clusters = {s.cluster};
  sp.gpu_counts = {8, 16};
  PlannerOptions opt;
  opt.top_k = 100000;  // keep them all
  const auto r = search_plans(s, catalog().profile, sp, opt);
  REQUIRE(r.ok());
  REQUIRE(r.result.top.size() == static_cast<std::size_t>(r.result.estimated));
  CHECK(r.result.estimated > 100);
  for (const auto& c : r.result.top) {
    scenario::Scenario x = s;
    x.cluster.gpus = c.gpus;
    x.plan = c.plan;
    scenario::Diagnostics d;
    scenario::check_scenario(x, d);
    INFO(parallel::plan_label(c.plan), " on ", c.gpus, ": ", d.str());
    CHECK(!d.has_errors());
    CHECK(c.memory.value <= c.capacity.value);
  }
  // Top list sorted by GPU-hours.
  for (std::size_t i = 1; i < r.result.top.size(); ++i)
    CHECK(r.result.top[i - 1].gpu_hours <= r.result.top[i].gpu_hours);
}

TEST_CASE("planner: Pareto front, deadline and budget selection, thread independence") {
  const scenario::Scenario s = base_scenario(64);
  PlanSpace sp;
  sp.clusters = {s.cluster};
  sp.gpu_counts = {8, 16, 32, 64};
  sp.cp = {1};
  sp.recompute = {parallel::Recompute::Selective, parallel::Recompute::Full};
  PlannerOptions opt;
  opt.catalogs = {seed_vendor()};
  // The selection at the point prediction (the check with the prediction band has its own
  // test in test_plan_choice.cpp).
  opt.bands = false;
  const auto r = search_plans(s, catalog().profile, sp, opt);
  REQUIRE(r.ok());
  const auto& all = r.result.fastest_per_count;
  REQUIRE(all.size() >= 4);
  const auto& front = r.result.pareto;
  REQUIRE(!front.empty());
  // No front point is dominated by any point; every point is dominated by or equal to a front point.
  for (const auto& f : front)
    for (const auto& p : all) {
      const bool dominates = (p.candidate.wall <= f.candidate.wall && p.cost.minor <= f.cost.minor) &&
                             (p.candidate.wall < f.candidate.wall || p.cost.minor < f.cost.minor);
      CHECK_FALSE(dominates);
    }
  for (const auto& p : all) {
    bool covered = false;
    for (const auto& f : front)
      covered = covered || (f.candidate.wall <= p.candidate.wall && f.cost.minor <= p.cost.minor);
    CHECK(covered);
  }
  for (std::size_t i = 1; i < front.size(); ++i) {
    CHECK(front[i - 1].candidate.wall < front[i].candidate.wall);
    CHECK(front[i - 1].cost.minor > front[i].cost.minor);
  }
  // No constraint: the choice is the cheapest simulated plan.
  REQUIRE(r.result.chosen);
  REQUIRE(r.result.best);
  for (const auto& x : r.result.resimulated)
    if (x.meets()) CHECK(r.result.chosen->cost.minor <= x.cost.minor);

  // A deadline between the fastest and the slowest front point: the cheapest simulated plan
  // whose P90 meets it (brute force over the simulated candidates agrees).
  const units::Time fastest = front.front().candidate.wall, slowest = front.back().candidate.wall;
  REQUIRE(fastest < slowest);
  PlannerOptions o2 = opt;
  o2.deadline = units::Time{(fastest.ns + slowest.ns) / 2};
  const auto r2 = search_plans(s, catalog().profile, sp, o2);
  REQUIRE(r2.result.chosen);
  const Resimulated* want = nullptr;
  for (const auto& x : r2.result.resimulated)
    if (x.run_ok && x.wall_p90 <= *o2.deadline && (!want || x.cost.minor < want->cost.minor)) want = &x;
  REQUIRE(want);
  CHECK(r2.result.chosen->cost.minor == want->cost.minor);
  CHECK(r2.result.chosen->wall_p90 <= *o2.deadline);
  CHECK(r2.result.best->cost.minor == r2.result.chosen->cost.minor);
  CHECK(r2.result.chosen->cost.minor >= r.result.chosen->cost.minor);  // the deadline never saves money
  if (r2.result.runner_up) {
    CHECK(r2.result.runner_up->cost.minor >= r2.result.best->cost.minor);
    CHECK(r2.result.why_runner_up_lost.find("costs") != std::string::npos);
  }
  // A budget below the deadline's cheapest simulated bill: what is chosen (if a later round
  // finds one) is within it; else the budget that would do is said.
  PlannerOptions o3 = o2;
  o3.budget = units::Money::of_minor(want->cost.minor - 1, want->cost.currency);
  const auto r3 = search_plans(s, catalog().profile, sp, o3);
  if (r3.result.chosen) {
    CHECK(r3.result.chosen->cost.minor <= o3.budget->minor);
  } else {
    bool said = false;
    for (const auto& m : r3.result.remedies) said = said || m.rfind("a budget of ", 0) == 0;
    CHECK(said);
  }
  // A deadline nothing meets.
  PlannerOptions o4 = opt;
  o4.deadline = units::Time{fastest.ns / 2};
  const auto r4 = search_plans(s, catalog().profile, sp, o4);
  CHECK(!r4.result.best);
  CHECK(!r4.result.chosen);
  REQUIRE(!r4.result.infeasible.empty());
  CHECK(r4.result.infeasible.front().find("over the deadline") != std::string::npos);

  // Threads change nothing.
  PlannerOptions o5 = o2;
  o5.threads = 3;
  const auto r5 = search_plans(s, catalog().profile, sp, o5);
  REQUIRE(r5.result.chosen);
  CHECK(r5.result.chosen->plan.candidate.index == r2.result.chosen->plan.candidate.index);
  CHECK(r5.result.chosen->cost.minor == r2.result.chosen->cost.minor);
  CHECK(r5.result.estimated == r2.result.estimated);
  REQUIRE(r5.result.top.size() == r2.result.top.size());
  for (std::size_t i = 0; i < r5.result.top.size(); ++i) CHECK(r5.result.top[i].index == r2.result.top[i].index);
  REQUIRE(r5.result.pareto.size() == r2.result.pareto.size());
}

TEST_CASE("planner: on one 8 x L40S PCIe server it keeps a model that fits a GPU off tensor parallelism") {
  // Llama 3 8B LoRA: 16 GB of frozen BF16 weights fit one 45 GiB L40S, so data parallelism (and
  // ZeRO) needs no activation all-reduce per layer. TP 8 would all-reduce over the PCIe tree at
  // about 20 GB/s (tests/comm/test_pcie_collectives.cpp): nothing makes it worth that.
  scenario::Diagnostics d;
  const auto s = io::parse_scenario(R"(
model: {preset: llama3-8b, seq_len: 4096}
cluster: {gpu: L40S, gpus: 8}
parallel: {tp: 1, pp: 1, dp: 8, micro_batch: 1, global_batch: 64}
precision: bf16
training: {tokens: 1B, method: lora, lora: {rank: 16, targets: [qkv, proj, gate, up, fc2]}}
pricing: {catalog: public-cloud}
)",
                                    "l40s.yaml", catalog(), d);
  REQUIRE_MESSAGE(s, d.str());
  PlanSpace sp;
  sp.clusters = {s->cluster};
  sp.gpu_counts = {8};
  PlannerOptions opt;
  scenario::Diagnostics cd;
  auto prices = io::load_price_catalog("public-cloud", "", cd);
  REQUIRE(prices);
  opt.catalogs = {std::make_shared<const pricing::PriceCatalog>(*prices)};
  const auto r = search_plans(*s, catalog().profile, sp, opt);
  REQUIRE(r.ok());
  REQUIRE(r.result.chosen);
  CHECK(r.result.chosen->plan.candidate.plan.tp < 8);
  REQUIRE(!r.result.top.empty());
  CHECK(r.result.top.front().plan.tp == 1);  // the fewest GPU-hours: no tensor parallelism
  // TP 8 plans were estimated (the model fits them too), and each costs more GPU-hours.
  bool tp8_seen = false;
  opt.top_k = 100000;
  const auto all = search_plans(*s, catalog().profile, sp, opt);
  for (const auto& c : all.result.top)
    if (c.plan.tp == 8) {
      tp8_seen = true;
      CHECK(c.gpu_hours > all.result.top.front().gpu_hours);
    }
  CHECK(tp8_seen);
}

TEST_CASE("planner: streaming top-K keeps the K smallest") {
  std::mt19937 rng(7);
  std::vector<std::pair<double, std::int64_t>> all;
  TopK a(5), b(5);
  for (std::int64_t i = 0; i < 200; ++i) {
    const double key = static_cast<double>(rng() % 50);  // ties on purpose
    PlanCandidate c;
    c.index = i;
    (i % 2 ? a : b).offer(c, key);
    all.emplace_back(key, i);
  }
  a.merge(b);
  std::sort(all.begin(), all.end());
  const auto got = a.sorted();
  REQUIRE(got.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) CHECK(got[i].index == all[i].second);
}

TEST_CASE("planner: the re-simulation goes through the injected step simulator") {
  const scenario::Scenario s = base_scenario(64);
  PlanSpace sp;
  sp.clusters = {s.cluster};
  sp.gpu_counts = {8, 16};
  sp.cp = {1};
  PlannerOptions opt;
  opt.catalogs = {seed_vendor()};
  int calls = 0;
  opt.simulator = [&calls](const scenario::Scenario& sc, const compute::ComputeProfile& p) {
    ++calls;
    StepSimulation r = estimate_step_simulation(sc, p);
    r.step = units::Time{r.step.ns * 2};
    r.method = "test double";
    return r;
  };
  const auto r = search_plans(s, catalog().profile, sp, opt);
  REQUIRE(r.result.best);
  REQUIRE(!r.result.resimulated.empty());
  CHECK(calls == static_cast<int>(r.result.resimulated.size()));
  const auto& x = r.result.resimulated.front();
  CHECK(x.step.method == "test double");
  CHECK(x.step.step.ns == 2 * x.plan.candidate.step.ns);
  REQUIRE(x.run_ok);
  CHECK(x.wall_p50 > x.plan.candidate.wall);  // twice the step: the run takes longer than ranked
  CHECK(x.cost_p50.minor > 0);
}

TEST_CASE("planner: a set cancel flag stops the search, a clear one changes nothing") {
  const scenario::Scenario s = base_scenario(64);
  PlanSpace sp;
  sp.clusters = {s.cluster};
  sp.gpu_counts = {8, 16};
  sp.cp = {1};
  PlannerOptions opt;
  std::atomic<bool> stop{false};
  opt.cancel = &stop;
  const auto clear = search_plans(s, catalog().profile, sp, opt);
  REQUIRE(clear.ok());
  CHECK(clear.result.estimated > 0);
  stop = true;
  const auto stopped = search_plans(s, catalog().profile, sp, opt);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.errors == std::vector<std::string>{"cancelled"});
}

TEST_CASE("max_concurrent_groups: the O(1) block count equals counting blocks one by one") {
  // The counting loop max_concurrent_groups used before (the planner made it O(1)).
  auto counted = [](const topology::GroupShape& s, int gpn, std::int64_t total) -> std::int64_t {
    const std::int64_t span = s.nodes(), stride = span > 1 ? s.node_stride : 1;
    const std::int64_t lanes = std::max<std::int64_t>(1, gpn / s.ranks_per_node);
    const std::int64_t nodes = (total + gpn - 1) / gpn;
    auto base = [&](std::int64_t b) { return (b % stride) + (b / stride) * (span * stride); };
    std::int64_t blocks = 0;
    while (base(blocks) + (span - 1) * stride < nodes) ++blocks;
    std::int64_t count = blocks * lanes;
    while (count > 0 && topology::place_group(s, count - 1, gpn, total).empty()) --count;
    return count;
  };
  int checked = 0;
  for (const int gpn : {4, 8}) {
    for (const std::int64_t total : {1, 3, 8, 12, 64, 100, 136, 1024}) {
      for (std::int64_t ranks = 1; ranks <= 64; ranks *= 2) {
        for (int rpn = 1; rpn <= gpn; rpn *= 2) {
          if (ranks % rpn != 0) continue;
          for (std::int64_t stride = 1; stride <= 9; ++stride) {
            topology::GroupShape s;
            s.ranks = ranks;
            s.ranks_per_node = rpn;
            s.node_stride = stride;
            CAPTURE(gpn);
            CAPTURE(total);
            CAPTURE(ranks);
            CAPTURE(rpn);
            CAPTURE(stride);
            CHECK(topology::max_concurrent_groups(s, gpn, total) == counted(s, gpn, total));
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked > 1000);
}

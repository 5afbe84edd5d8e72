// The planner's pruning: the shape lower bound never exceeds the closed-form step of any plan of
// the shape, and pruning against every GPU count's and type's lists (the search's second pass)
// keeps exactly what the unpruned search keeps.
#include <doctest/doctest.h>

#include <string>
#include <tuple>
#include <vector>

#include "../../core/src/search/search_detail.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/search/planner.hpp"
#include "flopcast/workload/workload.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;
using namespace flopcast::search;

namespace {

const io::Catalog& catalog() { return test::shipped_catalog(); }

scenario::Scenario make_scenario(const std::string& model, const std::string& gpu, std::int64_t gpus,
                                 std::int64_t global_batch) {
  scenario::Diagnostics d;
  const std::string yaml = "model: " + model + "\ncluster: {gpu: " + gpu + ", gpus: " + std::to_string(gpus) +
                           "}\nparallel: {tp: 1, pp: 1, dp: " + std::to_string(gpus) +
                           ", micro_batch: 1, global_batch: " + std::to_string(global_batch) +
                           "}\nprecision: bf16\ntraining: {tokens: 20B}\nreliability: {trials: 20, seed: 3}\n";
  auto s = io::parse_scenario(yaml, "test", catalog(), d);
  REQUIRE_MESSAGE(s, d.str());
  return *s;
}

scenario::ClusterSpec cluster(const std::string& gpu) {
  const hardware::GpuSpec* g = catalog().find_gpu(gpu);
  REQUIRE(g);
  const hardware::FabricSpec* f = catalog().find_fabric(g->default_fabric);
  REQUIRE(f);
  scenario::ClusterSpec c;
  c.gpu = *g;
  c.fabric = *f;
  c.gpus_per_node = f->gpus_per_node;
  return c;
}

/// scenario() on `gpus` GPUs of the GPU's default cluster (fabric and node size from the catalog).
scenario::Scenario scenario_on(const std::string& model, const std::string& gpu, std::int64_t gpus,
                               std::int64_t batch) {
  scenario::Scenario s = make_scenario(model, gpu, gpus, batch);
  s.cluster = cluster(gpu);
  s.cluster.gpus = gpus;
  return s;
}

detail::Axes axes() {
  detail::Axes a;
  a.tp = {1, 2, 4, 8};
  a.cp = {1, 2};
  a.pp = {1, 2, 4, 8};
  a.ep = {1};
  a.vpp = {1, 2, 4};
  a.vpp_interleaved = {2, 4};
  a.zero = {0, 1, 2, 3};
  a.mb = {1, 2, 4};
  a.sp = {false, true};
  a.rc = {parallel::Recompute::None, parallel::Recompute::Selective, parallel::Recompute::Full};
  a.sched = {parallel::Schedule::OneFOneB, parallel::Schedule::Interleaved, parallel::Schedule::ZeroBubble,
             parallel::Schedule::GPipe};
  a.flat_schedule = parallel::Schedule::OneFOneB;
  return a;
}

/// One point of the plan space the tests below walk (fields in the order they are given).
struct PlanPoint {
  int tp = 1, cp = 1, pp = 1;
  std::int64_t dp = 1, mb = 1, batch = 1;
  int vpp = 1;
  parallel::Schedule sched = parallel::Schedule::OneFOneB;
  bool sp = false;  ///< sequence parallelism, taken only where there is TP
  int zero = 0;
  parallel::Recompute rc = parallel::Recompute::None;
};

scenario::Scenario with_plan(const scenario::Scenario& s, const PlanPoint& p) {
  scenario::Scenario x = s;
  x.plan.tp = p.tp;
  x.plan.cp = p.cp;
  x.plan.pp = p.pp;
  x.plan.dp = p.dp;
  x.plan.micro_batch = p.mb;
  x.plan.global_batch = p.batch;
  x.plan.vpp = p.vpp;
  x.plan.schedule = p.sched;
  x.plan.sequence_parallel = p.sp && p.tp > 1;
  x.plan.zero = p.zero;
  x.plan.recompute = p.rc;
  return x;
}

}  // namespace

TEST_CASE("planner: the shape lower bound never exceeds the step of a plan of the shape") {
  const detail::Axes a = axes();
  const compute::ComputeProfile& profile = catalog().profile;
  int compared = 0, tight = 0;
  for (const auto& row : {std::tuple<const char*, const char*, std::int64_t, std::int64_t>{"llama3-8b", "H800", 16, 64},
                          {"llama3-8b", "H100", 64, 256},
                          {"llama3-70b", "H800", 64, 128},
                          {"llama3-70b", "B200", 128, 512},
                          {"llama3-70b", "A100-80G", 32, 64},
                          {"llama3-70b", "GB200", 144, 576}}) {
    // std::get, not a structured binding: CAPTURE's lambda takes these (clang 14 cannot).
    const char* model = std::get<0>(row);
    const char* gpu = std::get<1>(row);
    const std::int64_t gpus = std::get<2>(row), batch = std::get<3>(row);
    scenario::Scenario s = scenario_on(model, gpu, gpus, batch);
    for (const int tp : a.tp)
      for (const int cp : a.cp)
        for (const int pp : a.pp)
          for (const std::int64_t mb : a.mb) {
            if (gpus % (tp * cp * pp) != 0 || s.model.heads % tp != 0 || pp > s.model.layers) continue;
            const std::int64_t dp = gpus / (tp * cp * pp);
            if (batch % (mb * dp) != 0) continue;
            const detail::Shape sh{tp, cp, pp, 1, dp, mb};
            const units::Time lb = detail::shape_step_lower_bound(s, profile, a, sh);
            for (const parallel::Schedule sch : a.sched)
              for (const int vpp : sch == parallel::Schedule::Interleaved ? a.vpp_interleaved : std::vector<int>{1}) {
                if (pp == 1 && sch != parallel::Schedule::OneFOneB) continue;
                if (pp * vpp > s.model.layers) continue;
                for (const bool spar : a.sp)
                  for (const int zero : a.zero)
                    for (const parallel::Recompute rc : a.rc) {
                      const scenario::Scenario x = with_plan(s, {tp, cp, pp, dp, mb, batch, vpp, sch, spar, zero, rc});
                      const estimate::StepEstimate e = estimate::estimate_step(x, profile);
                      if (e.step.ns <= 0) continue;
                      CAPTURE(model);
                      CAPTURE(gpu);
                      CAPTURE(parallel::plan_label(x.plan));
                      CHECK(lb <= e.step);
                      ++compared;
                      if (lb.seconds() > 0.9 * e.step.seconds()) ++tight;
                    }
              }
          }
  }
  CHECK(compared > 5000);
  // Not vacuous: the bound is within 10% of the step for a good part of the plans.
  CHECK(tight > compared / 20);
}

TEST_CASE(
    "estimate: a stage's TP time without sequence parallelism, asked beside the estimate, is a second "
    "estimate's") {
  // The bound takes both TP times from one stage_costs call; they must be exactly what
  // an estimate of the plan with sequence parallelism off gives, TP overlap and recompute included.
  const compute::ComputeProfile& profile = catalog().profile;
  int compared = 0, differ = 0;
  for (const auto& row :
       {std::tuple<const char*, const char*, std::int64_t, std::int64_t>{"llama3-70b", "H800", 64, 256},
        {"llama3-70b", "GB200", 144, 288},
        {"mixtral-8x7b", "H100", 64, 256},
        {"llama3-8b", "A100-80G", 32, 256}}) {
    // std::get, not a structured binding: CAPTURE's lambda takes these (clang 14 cannot).
    const char* model = std::get<0>(row);
    const char* gpu = std::get<1>(row);
    const std::int64_t gpus = std::get<2>(row), batch = std::get<3>(row);
    scenario::Scenario s = scenario_on(model, gpu, gpus, batch);
    for (const int tp : {2, 4, 8, 16})
      for (const int pp : {1, 2, 4})
        for (const bool overlap : {false, true})
          for (const parallel::Recompute rc :
               {parallel::Recompute::None, parallel::Recompute::Selective, parallel::Recompute::Full}) {
            if (gpus % (tp * pp) != 0 || s.model.heads % tp != 0) continue;
            scenario::Scenario x =
                with_plan(s, {tp, 1, pp, gpus / (tp * pp), 1, batch, 1, parallel::Schedule::OneFOneB, true, 1, rc});
            x.plan.overlap_tp_comm = overlap;
            std::vector<units::Time> without;
            const std::vector<cost::StageTimes> with_sp = cost::stage_costs(x, profile, &without);
            x.plan.sequence_parallel = false;
            const std::vector<cost::StageTimes> second = cost::stage_costs(x, profile);
            CAPTURE(model);
            CAPTURE(parallel::plan_label(x.plan));
            REQUIRE(without.size() == second.size());
            REQUIRE(with_sp.size() == second.size());
            for (std::size_t i = 0; i < second.size(); ++i) {
              CHECK(without[i].ns == second[i].tp_comm.ns);
              if (with_sp[i].tp_comm != second[i].tp_comm) ++differ;
              ++compared;
            }
          }
  }
  CHECK(compared > 200);
  CHECK(differ > compared / 4);  // sequence parallelism does change the TP time
}

TEST_CASE("planner: pruning against every count's and type's lists keeps what the unpruned search keeps") {
  // Eight counts of two GPU types: the second pass prunes items against each other's lists.
  for (const bool deadline : {false, true}) {
    scenario::Scenario s = make_scenario("llama3-8b", "H800", 8, 64);
    PlanSpace sp;
    sp.clusters = {cluster("H800"), cluster("B200")};
    sp.gpu_counts = {8, 16, 24, 32, 40, 48, 56, 64};
    sp.recompute = {parallel::Recompute::None, parallel::Recompute::Full};
    PlannerOptions on;
    scenario::Diagnostics d;
    auto seed = io::load_price_catalog("seed-vendor", "", d);
    auto cloud = io::load_price_catalog("public-cloud", "", d);
    REQUIRE(seed);
    REQUIRE(cloud);
    on.catalogs = {std::make_shared<const pricing::PriceCatalog>(*seed),
                   std::make_shared<const pricing::PriceCatalog>(*cloud)};
    on.simulator = estimate_step_simulation;
    on.candidates_per_gpu = 6;
    on.rounds = 2;
    on.top_k = 5;
    if (deadline) on.deadline = units::Time::from_seconds(86400.0 * 3);
    PlannerOptions off = on;
    off.prune = false;
    const auto a = search_plans(s, catalog().profile, sp, on);
    const auto b = search_plans(s, catalog().profile, sp, off);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CAPTURE(deadline);
    CHECK(a.result.estimated < b.result.estimated);
    REQUIRE(a.result.top.size() == b.result.top.size());
    for (std::size_t i = 0; i < a.result.top.size(); ++i) CHECK(a.result.top[i].index == b.result.top[i].index);
    REQUIRE(a.result.fastest_per_count.size() == b.result.fastest_per_count.size());
    for (std::size_t i = 0; i < a.result.fastest_per_count.size(); ++i) {
      CHECK(a.result.fastest_per_count[i].candidate.index == b.result.fastest_per_count[i].candidate.index);
      CHECK(a.result.fastest_per_count[i].cost.minor == b.result.fastest_per_count[i].cost.minor);
    }
    REQUIRE(a.result.resimulated.size() == b.result.resimulated.size());
    for (std::size_t i = 0; i < a.result.resimulated.size(); ++i)
      CHECK(a.result.resimulated[i].plan.candidate.index == b.result.resimulated[i].plan.candidate.index);
    REQUIRE(a.result.chosen.has_value() == b.result.chosen.has_value());
    if (a.result.chosen) CHECK(a.result.chosen->plan.candidate.index == b.result.chosen->plan.candidate.index);
  }
}

TEST_CASE("planner: the memory shortcuts, first stage and ZeRO-2 with SP for ZeRO 0-2, never drop a plan that fits") {
  // The search counts a plan pruned for memory from its first stage alone when that stage does
  // not fit: memory_per_gpu must then never fit either (it is the most-loaded stage's). And it
  // counts every ZeRO 0-2 plan of a (shape, schedule, vpp, recompute) pruned when the first
  // stage of that plan at ZeRO-2 with SP does not fit: it must need no more memory.
  const detail::Axes a = axes();
  const compute::ComputeProfile& profile = catalog().profile;
  int compared = 0, shortcut = 0, later_stage = 0, probe_decided = 0;
  for (const auto& row :
       {std::tuple<const char*, const char*, std::int64_t, std::int64_t>{"llama3-70b", "H800", 64, 128},
        {"llama3-70b", "A100-80G", 32, 64},
        {"llama3-405b", "H100", 128, 256},
        {"llama3-405b", "B200", 64, 128}}) {
    // std::get, not a structured binding: CAPTURE's lambda takes these (clang 14 cannot).
    const char* model = std::get<0>(row);
    const char* gpu = std::get<1>(row);
    const std::int64_t gpus = std::get<2>(row), batch = std::get<3>(row);
    scenario::Scenario s = scenario_on(model, gpu, gpus, batch);
    for (const int tp : a.tp)
      for (const int pp : a.pp)
        for (const std::int64_t mb : a.mb) {
          if (gpus % (tp * pp) != 0 || s.model.heads % tp != 0) continue;
          const std::int64_t dp = gpus / (tp * pp);
          if (batch % (mb * dp) != 0) continue;
          for (const parallel::Schedule sch : a.sched)
            for (const int vpp : sch == parallel::Schedule::Interleaved ? a.vpp_interleaved : std::vector<int>{1})
              for (const bool spar : a.sp)
                for (const int zero : a.zero)
                  for (const parallel::Recompute rc : a.rc) {
                    if (pp * vpp > s.model.layers) continue;
                    const scenario::Scenario x = with_plan(s, {tp, 1, pp, dp, mb, batch, vpp, sch, spar, zero, rc});
                    const workload::MemoryBreakdown first = workload::memory_of_stage(x, profile, 0);
                    const workload::MemoryBreakdown worst = workload::memory_per_gpu(x, profile);
                    CAPTURE(model);
                    CAPTURE(gpu);
                    CAPTURE(parallel::plan_label(x.plan));
                    CHECK(first.total().value <= worst.total().value);
                    if (zero <= 2) {
                      // The search's probe for ZeRO 0-2: ZeRO-2 with sequence parallelism (when
                      // there is TP) needs no more memory in its first stage.
                      scenario::Scenario probe = x;
                      probe.plan.zero = 2;
                      probe.plan.sequence_parallel = tp > 1;
                      const workload::MemoryBreakdown light = workload::memory_of_stage(probe, profile, 0);
                      CHECK(light.total().value <= worst.total().value * (1 + 1e-12));
                      if (light.total().value > light.capacity.value * (1 + 1e-9)) {
                        CHECK_FALSE(worst.fits());
                        ++probe_decided;
                      }
                    }
                    if (!first.fits()) {
                      CHECK_FALSE(worst.fits());
                      ++shortcut;
                    } else if (!worst.fits()) {
                      ++later_stage;
                    }
                    ++compared;
                  }
        }
  }
  CHECK(compared > 2000);
  // Not vacuous: the shortcut decides many plans.
  CHECK(shortcut > compared / 10);
  CHECK(probe_decided > compared / 20);
  MESSAGE(compared << " plans: " << shortcut << " decided by the first stage, " << later_stage << " by a later one, "
                   << probe_decided << " by the ZeRO-2 probe");
}

// app::prepare_plan_space / prepare_plan_options: the search `flopcast plan` and the GUI's
// Planner tab run, built from one request.
#include <doctest/doctest.h>

#include <algorithm>

#include "flopcast/app/plan_request.hpp"
#include "flopcast/app/scenario_session.hpp"
#include "shipped_catalog.hpp"

namespace flopcast::app {
namespace {

Scenario quickstart() {
  SessionOutcome out =
      load_scenario_session(std::string(FLOPCAST_SCENARIOS_DIR) + "/quickstart.yaml", test::shipped_catalog());
  REQUIRE_MESSAGE(out.ok(), out.diags.str());
  return std::move(out.session->scenario);
}

}  // namespace

TEST_SUITE("app.plan_request") {
  TEST_CASE("the space: the scenario's own cluster for its GPU, the usual fabric for another") {
    const Scenario s = quickstart();
    PlanRequest req;
    req.gpu_types = {"H800", "B200"};
    req.gpus_max = 128;
    search::PlanSpace space;
    std::string why;
    REQUIRE(prepare_plan_space(test::shipped_catalog(), s, req, space, why) == PlanProblem::None);
    REQUIRE(space.clusters.size() == 2);
    CHECK(space.clusters[0].fabric.name == s.cluster.fabric.name);
    CHECK(space.clusters[1].gpu.name == "B200");
    CHECK(space.clusters[1].fabric.name == test::shipped_catalog().find_gpu("B200")->default_fabric);
    CHECK(space.gpus_max == 128);
  }

  TEST_CASE("an unknown GPU type: UnknownGpu, naming the known ones") {
    PlanRequest req;
    req.gpu_types = {"H900"};
    search::PlanSpace space;
    std::string why;
    CHECK(prepare_plan_space(test::shipped_catalog(), quickstart(), req, space, why) == PlanProblem::UnknownGpu);
    CHECK(why.rfind("unknown GPU 'H900' (known: ", 0) == 0);
    CHECK(why.find("H800") != std::string::npos);
  }

  TEST_CASE("the default catalogs: the scenario's first, then every shipped one once") {
    const std::vector<std::string> names = default_plan_catalogs(quickstart());
    REQUIRE_FALSE(names.empty());
    CHECK(names.front() == "seed-vendor");
    CHECK(std::count(names.begin(), names.end(), "seed-vendor") == 1);
    CHECK(std::find(names.begin(), names.end(), "public-cloud") != names.end());
  }

  TEST_CASE("the options: a budget in its own currency sets the search's currency") {
    PlanRequest req;
    req.budget = "2.5M USD";
    req.threads = 0;  // at least one worker
    search::PlannerOptions opt;
    std::string why;
    Diagnostics d;
    REQUIRE(prepare_plan_options(quickstart(), req, "", opt, why, d) == PlanProblem::None);
    REQUIRE(opt.budget);
    CHECK(opt.budget->minor == 250'000'000);
    CHECK(opt.currency == "USD");
    CHECK(opt.threads == 1);
    CHECK(opt.catalogs.front()->name == "seed-vendor");
  }

  TEST_CASE("a budget without a currency after its space is in the first catalog's currency") {
    PlanRequest req;
    req.budget = "800k ";  // once a crash: nothing after the space
    search::PlannerOptions opt;
    std::string why;
    Diagnostics d;
    REQUIRE(prepare_plan_options(quickstart(), req, "", opt, why, d) == PlanProblem::None);
    REQUIRE(opt.budget);
    CHECK(opt.budget->minor == 80'000'000);
    CHECK(opt.budget->currency == opt.catalogs.front()->currency);
  }

  TEST_CASE("a bad budget and an unreadable catalog are told apart") {
    PlanRequest req;
    req.budget = "lots";
    search::PlannerOptions opt;
    std::string why;
    Diagnostics d;
    CHECK(prepare_plan_options(quickstart(), req, "", opt, why, d) == PlanProblem::BadBudget);
    PlanRequest other;
    other.catalogs = {"no-such-catalog"};
    search::PlannerOptions opt2;
    CHECK(prepare_plan_options(quickstart(), other, "", opt2, why, d) == PlanProblem::CatalogUnreadable);
    CHECK(why == "no-such-catalog");
    CHECK(d.has_errors());
  }
}

}  // namespace flopcast::app

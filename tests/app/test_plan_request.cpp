// app::prepare_plan_space / prepare_plan_options: the search `flopcast plan` and the GUI's
// Planner tab run, built from one request.
#include <doctest/doctest.h>

#include <algorithm>

#include "flopcast/app/plan_request.hpp"
#include "flopcast/app/scenario_session.hpp"
#include "shipped_catalog.hpp"

namespace flopcast::app {
namespace {

scenario::Scenario quickstart() {
  SessionOutcome out =
      load_scenario_session(std::string(FLOPCAST_SCENARIOS_DIR) + "/quickstart.yaml", test::shipped_catalog());
  REQUIRE_MESSAGE(out.ok(), out.diags.str());
  return std::move(out.session->scenario);
}

}  // namespace

TEST_SUITE("app.plan_request") {
  TEST_CASE("the space: the scenario's own cluster for its GPU, the usual fabric for another") {
    const scenario::Scenario s = quickstart();
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
    CHECK(why.rfind("unknown GPU 'H900' (known GPUs: ", 0) == 0);
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
    scenario::Diagnostics d;
    REQUIRE(prepare_plan_options(quickstart(), req, "", opt, why, d) == PlanProblem::None);
    REQUIRE(opt.budget);
    CHECK(opt.budget->minor == 250'000'000);
    CHECK(opt.currency == "USD");
    CHECK(opt.threads == 1);
    CHECK(opt.catalogs.front()->name == "seed-vendor");
  }

  TEST_CASE("a budget needs its currency, a deadline its unit (the fix is in why)") {
    search::PlannerOptions opt;
    std::string why;
    scenario::Diagnostics d;
    PlanRequest req;
    req.budget = "800k ";  // once a crash: nothing after the space
    CHECK(prepare_plan_options(quickstart(), req, "", opt, why, d) == PlanProblem::BadBudget);
    CHECK(why.find("no currency") != std::string::npos);
    req.budget = "500万";  // refused before without saying why
    CHECK(prepare_plan_options(quickstart(), req, "", opt, why, d) == PlanProblem::BadBudget);
    CHECK(why.find("'500万 CNY'") != std::string::npos);
    req.budget = "500万 CNY";
    search::PlannerOptions ok;
    REQUIRE(prepare_plan_options(quickstart(), req, "", ok, why, d) == PlanProblem::None);
    CHECK(ok.budget->minor == 500'000'000);
    CHECK(ok.currency == "CNY");
    // A budget without a deadline: what it buys soonest.
    CHECK(ok.objective == search::Objective::Fastest);
    // "45" was 45 seconds: now a usage error that says to write 45d or 45h.
    PlanRequest dl;
    dl.deadline_text = "45";
    search::PlannerOptions o2;
    CHECK(prepare_plan_options(quickstart(), dl, "", o2, why, d) == PlanProblem::BadDeadline);
    CHECK(why.find("45d") != std::string::npos);
    dl.deadline_text = "45d";
    search::PlannerOptions o3;
    REQUIRE(prepare_plan_options(quickstart(), dl, "", o3, why, d) == PlanProblem::None);
    CHECK(o3.deadline->ns == 45LL * 86400 * 1'000'000'000);
    CHECK(o3.objective == search::Objective::Cheapest);
    // --tokens max asks what a budget buys: it needs one.
    PlanRequest tm;
    tm.tokens_max = true;
    search::PlannerOptions o4;
    CHECK(prepare_plan_options(quickstart(), tm, "", o4, why, d) == PlanProblem::NeedsBudget);
    tm.budget = "2e6 USD";
    search::PlannerOptions o5;
    REQUIRE(prepare_plan_options(quickstart(), tm, "", o5, why, d) == PlanProblem::None);
    CHECK(o5.objective == search::Objective::MostTokens);
  }

  TEST_CASE("a budget in another currency is converted at a catalog's stated rate") {
    PlanRequest req;
    req.budget = "1M USD";
    req.currency = "CNY";
    search::PlannerOptions opt;
    std::string why;
    scenario::Diagnostics d;
    REQUIRE(prepare_plan_options(quickstart(), req, "", opt, why, d) == PlanProblem::None);
    REQUIRE(opt.budget);
    CHECK(opt.budget->currency.str() == "CNY");
    CHECK(opt.budget->minor > 100'000'000);  // one USD buys more than one CNY at any stated rate
  }

  TEST_CASE("billed prices: offers, list and contract prices, spot only when allowed, never assumptions") {
    PlanRequest req;
    req.catalogs = {"public-cloud", "seed-vendor"};
    search::PlannerOptions opt;
    std::string why;
    scenario::Diagnostics d;
    REQUIRE(prepare_plan_options(quickstart(), req, "", opt, why, d) == PlanProblem::None);
    for (const auto& c : opt.catalogs)
      for (const auto& p : c->plans) {
        CHECK(pricing::billable_by_default(p.kind));
        CHECK(p.id != "deepseek-h800-assumption");  // once the default H800 price
      }
    req.allow_spot = true;
    search::PlannerOptions spot;
    REQUIRE(prepare_plan_options(quickstart(), req, "", spot, why, d) == PlanProblem::None);
    bool any_spot = false;
    for (const auto& c : spot.catalogs)
      for (const auto& p : c->plans) {
        any_spot = any_spot || p.kind == pricing::PriceKind::Spot;
        CHECK(p.kind != pricing::PriceKind::Assumption);
        CHECK(p.kind != pricing::PriceKind::Competitor);
      }
    CHECK(any_spot);
  }

  TEST_CASE("a bad budget and an unreadable catalog are told apart") {
    PlanRequest req;
    req.budget = "lots CNY";
    search::PlannerOptions opt;
    std::string why;
    scenario::Diagnostics d;
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

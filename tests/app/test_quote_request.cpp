// app::prepare_quote: the quote both `flopcast quote` and the GUI's export make, and the typed
// problem each front words and maps to its exit code.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "flopcast/app/quote_request.hpp"
#include "flopcast/app/scenario_session.hpp"
#include "flopcast/quote/quote_xlsx.hpp"
#include "shipped_catalog.hpp"

namespace flopcast::app {
namespace {

ScenarioSession session_of(const std::string& scenario) {
  SessionOutcome out =
      load_scenario_session(std::string(FLOPCAST_SCENARIOS_DIR) + "/" + scenario, test::shipped_catalog());
  REQUIRE_MESSAGE(out.ok(), out.diags.str());
  return std::move(*out.session);
}

}  // namespace

TEST_SUITE("app.quote_request") {
  TEST_CASE("the quickstart's quote: priced under the seed vendor's plans, dated and named") {
    const ScenarioSession s = session_of("quickstart.yaml");
    SimReport r = make_report(s.scenario, s.profile, StepEngine::Estimate);
    const QuoteOutcome q = prepare_quote(r, "", "Example Labs", "2026-01-15");
    REQUIRE(q.ok());
    CHECK(q.problem == QuoteProblem::None);
    CHECK(q.quote->id.rfind("Q-", 0) == 0);
    CHECK(q.quote->input.customer == "Example Labs");
    CHECK(q.quote->valid_until == "2026-02-14");  // 30 days from the issue date
    CHECK(r.run);                                 // prepare_quote added the whole run and the bills to the report
    CHECK(r.bills);
    // The documents a front writes: Markdown and HTML name the quote, the workbook is a zip
    // (when this build has XLSX), another format is refused with what it takes.
    std::string error;
    const auto md = quote_document(*q.quote, "md", error);
    REQUIRE(md.has_value());
    CHECK(md->find(q.quote->id) != std::string::npos);
    const auto html = quote_document(*q.quote, "html", error);
    REQUIRE(html.has_value());
    CHECK(html->find("<html") != std::string::npos);
    if (quote::quote_xlsx_supported()) {
      const auto xlsx = quote_document(*q.quote, "xlsx", error);
      REQUIRE_MESSAGE(xlsx.has_value(), error);
      CHECK(xlsx->rfind("PK", 0) == 0);
    }
    CHECK_FALSE(quote_document(*q.quote, "docx", error).has_value());
    CHECK(error == "no document format 'docx' (md, html or xlsx)");
  }

  TEST_CASE("the deadline is checked on the run at the band's P90 step factor, as the planner checks it") {
    const ScenarioSession s = session_of("quickstart.yaml");
    SimReport r = make_report(s.scenario, s.profile, StepEngine::Estimate);
    REQUIRE(r.band.known);
    REQUIRE(r.band.p90 > 1.05);
    QuoteOptions o;
    o.date = "2026-01-15";
    // A deadline just above the point prediction's P90 calendar time: met by the point run,
    // missed once the step is at the band's slow end.
    SimReport probe = r;
    scenario::Diagnostics diags;
    REQUIRE(add_whole_run(probe, "", diags));
    REQUIRE(probe.run);
    const double hours = probe.run->result.wall_p90.seconds() / 3600 * 1.01;
    o.deadline_text = fmt::format("{:.3f}h", hours);
    const QuoteOutcome q = prepare_quote(r, "", o);
    REQUIRE(q.ok());
    const quote::Quote& quote = *q.quote;
    REQUIRE(quote.input.band_check);
    CHECK(quote.input.band_check->step_factor == doctest::Approx(r.band.p90));
    CHECK(quote.input.band_check->wall_p90 > quote.input.run.wall_p90);
    CHECK(quote.input.run.wall_p90.seconds() / 3600 < hours);
    REQUIRE(quote.requirements.size() == 2);
    CHECK(quote.requirements[1].what == "Deadline");
    CHECK_FALSE(quote.requirements[1].met);
    CHECK(quote.requirements[1].plan.find(fmt::format("at P90, slow end of the model band (x{:.2f})", r.band.p90)) !=
          std::string::npos);
  }

  TEST_CASE("a plan that does not fit: DoesNotFit, worded with both sizes") {
    const ScenarioSession s = session_of("seed-claims/65b-8xa100-tp1pp8-zero3.yaml");
    SimReport r = make_report(s.scenario, s.profile, StepEngine::Estimate);
    REQUIRE_FALSE(r.fits_memory);
    const QuoteOutcome q = prepare_quote(r, "", "", "2026-01-15");
    CHECK_FALSE(q.ok());
    CHECK(q.problem == QuoteProblem::DoesNotFit);
    const std::string text = quote_problem_text(q.problem, r);
    CHECK(text.rfind("no quote for a plan that does not fit: it needs ", 0) == 0);
    CHECK(text.find(" GiB per GPU, the A100-80G has ") != std::string::npos);
  }

  TEST_CASE("a scenario without pricing: NoPricing after the run was simulated") {
    ScenarioSession s = session_of("quickstart.yaml");
    s.scenario.has_pricing = false;
    SimReport r = make_report(s.scenario, s.profile, StepEngine::Estimate);
    const QuoteOutcome q = prepare_quote(r, "", "", "2026-01-15");
    CHECK(q.problem == QuoteProblem::NoPricing);
    CHECK(r.run);
    CHECK(quote_problem_text(q.problem, r) == "the scenario has no pricing: block");
  }

  TEST_CASE("a scenario without training tokens: NoTokens") {
    ScenarioSession s = session_of("quickstart.yaml");
    s.scenario.training.tokens = 0;
    SimReport r = make_report(s.scenario, s.profile, StepEngine::Estimate);
    const QuoteOutcome q = prepare_quote(r, "", "", "2026-01-15");
    CHECK(q.problem == QuoteProblem::NoTokens);
    CHECK_FALSE(r.run);
  }

  TEST_CASE("a price catalog that cannot be loaded: CatalogUnreadable with the loader's diagnostics") {
    ScenarioSession s = session_of("quickstart.yaml");
    s.scenario.pricing.catalog = "no-such-catalog";
    SimReport r = make_report(s.scenario, s.profile, StepEngine::Estimate);
    const QuoteOutcome q = prepare_quote(r, "", "", "2026-01-15");
    CHECK(q.problem == QuoteProblem::CatalogUnreadable);
    CHECK(q.diags.has_errors());
  }
}

}  // namespace flopcast::app

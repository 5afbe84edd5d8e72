// The application layer's scenario session and evaluation (flopcast/app): what both fronts
// get for one scenario, and that the GUI's results come through the same whole-run path.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "flopcast/app/compute_result.hpp"
#include "flopcast/app/evaluation.hpp"
#include "flopcast/app/report_json.hpp"
#include "flopcast/app/report_text.hpp"
#include "flopcast/app/scenario_session.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "shipped_catalog.hpp"

namespace flopcast::app {
namespace {

const std::string kQuickstart = std::string(FLOPCAST_SCENARIOS_DIR) + "/quickstart.yaml";

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The quickstart with `line` replacing the line that starts with `prefix`.
std::string quickstart_with(const std::string& prefix, const std::string& line) {
  std::string text = read_all(kQuickstart);
  const auto at = text.find(prefix);
  REQUIRE(at != std::string::npos);
  text.replace(at, text.find('\n', at) - at, line);
  return text;
}

}  // namespace

TEST_SUITE("app.evaluation") {
  TEST_CASE("a scenario session resolves the settings its file leaves `auto`, which the loader leaves open") {
    const std::string yaml =
        quickstart_with("  micro_batch:", "  micro_batch: auto");  // quickstart states micro_batch: 1
    scenario::Diagnostics loaded;
    const auto raw = io::parse_scenario(yaml, "auto.yaml", test::shipped_catalog(), loaded);
    REQUIRE_MESSAGE(raw.has_value(), loaded.str());
    CHECK(raw->open_settings.micro_batch);
    CHECK_FALSE(raw->resolved_settings.resolved);
    const SessionOutcome out = parse_scenario_session(yaml, "auto.yaml", test::shipped_catalog());
    REQUIRE_MESSAGE(out.ok(), out.diags.str());
    const scenario::Scenario& s = out.session->scenario;
    CHECK(s.resolved_settings.resolved);
    REQUIRE(s.resolved_settings.chosen.size() == 1);
    CHECK(s.resolved_settings.chosen[0].first == "parallel.micro_batch");
    CHECK(std::any_of(s.defaults_applied.begin(), s.defaults_applied.end(), [](const std::string& x) {
      return x.rfind("parallel.micro_batch = ", 0) == 0 && x.find("(resolved: ") != std::string::npos;
    }));
  }

  TEST_CASE("a scenario session loads the file and the catalog's default profile") {
    const SessionOutcome out = load_scenario_session(kQuickstart, test::shipped_catalog());
    REQUIRE_MESSAGE(out.ok(), out.diags.str());
    CHECK(out.session->scenario.cluster.gpus == 64);
    CHECK(out.session->profile.name == test::shipped_catalog().profile.name);
    CHECK_FALSE(out.io_error);
  }

  TEST_CASE("a missing scenario file is an I/O error, a bad profile a located diagnostic") {
    const SessionOutcome missing = load_scenario_session("/nonexistent/scenario.yaml", test::shipped_catalog());
    CHECK_FALSE(missing.ok());
    CHECK(missing.io_error);
    const std::string yaml = quickstart_with("precision:", "precision: bf16\ncalibration: no-such-profile");
    const SessionOutcome bad = parse_scenario_session(yaml, "edited.yaml", test::shipped_catalog());
    CHECK_FALSE(bad.ok());
    CHECK_FALSE(bad.io_error);
    REQUIRE(bad.profile_diags.has_errors());
    // The profile loader knows no file for a name: the error points at the scenario's key.
    CHECK(bad.profile_diags.items().front().where.file == "edited.yaml");
    CHECK(bad.profile_diags.items().front().where.line > 0);
  }

  TEST_CASE("the whole run without a price catalog: a run, no bills, samples dropped") {
    const SessionOutcome out = load_scenario_session(kQuickstart, test::shipped_catalog());
    REQUIRE(out.ok());
    SimReport r = make_report(out.session->scenario, out.session->profile, StepEngine::Estimate);
    add_whole_run(r, nullptr);
    REQUIRE(r.run);
    REQUIRE(r.run->ok());
    CHECK_FALSE(r.bills);
    CHECK(r.run->result.samples.empty());
    CHECK(r.run->result.wall_p50 >= r.run->result.useful);
  }

  TEST_CASE("the prediction band scales the step, the MFU and the whole run, none without cross-validated data") {
    const SessionOutcome out = load_scenario_session(kQuickstart, test::shipped_catalog());
    REQUIRE(out.ok());
    compute::ComputeProfile profile = out.session->profile;
    const hardware::GpuArch arch = out.session->scenario.cluster.gpu.arch;
    compute::BandQuantiles q;
    q.arch = arch;
    q.runs = 20;
    q.groups = 4;
    q.p10 = 0.8;
    q.p50 = 1.0;
    q.p90 = 1.5;
    profile.bands = {q};
    profile.fitted_runs[static_cast<std::size_t>(arch)] = 20;
    SimReport r = make_report(out.session->scenario, profile, StepEngine::Estimate);
    REQUIRE(r.band.known);
    const auto [lo, hi] = step_band(r);
    CHECK(lo.seconds() == doctest::Approx(0.8 * r.est.step.seconds()));
    CHECK(hi.seconds() == doctest::Approx(1.5 * r.est.step.seconds()));
    CHECK(mfu_band(r).first == doctest::Approx(r.est.mfu / 1.5));  // the slow end
    CHECK(mfu_band(r).second == doctest::Approx(r.est.mfu / 0.8));
    CHECK(r.coefficients_basis.find("fitted on 20 measured runs") != std::string::npos);
    profile.fitted_runs[static_cast<std::size_t>(arch)] = 1;
    CHECK(make_report(out.session->scenario, profile, StepEngine::Estimate)
              .coefficients_basis.find("fitted on 1 measured run") != std::string::npos);
    CHECK(make_report(out.session->scenario, profile, StepEngine::Estimate)
              .coefficients_basis.find("fitted on 1 measured runs") == std::string::npos);
    add_whole_run(r, nullptr);
    REQUIRE(r.run);
    REQUIRE(r.run->ok());
    REQUIRE(r.run->band_p10);
    REQUIRE(r.run->band_p90);
    // Same failure draws, the step time scaled: the run's useful time scales exactly.
    CHECK(r.run->band_p10->useful.seconds() == doctest::Approx(0.8 * r.run->result.useful.seconds()).epsilon(1e-6));
    CHECK(r.run->band_p90->useful.seconds() == doctest::Approx(1.5 * r.run->result.useful.seconds()).epsilon(1e-6));
    CHECK(r.run->band_p10->wall_p50 < r.run->result.wall_p50);
    CHECK(r.run->band_p90->wall_p50 > r.run->result.wall_p50);
    CHECK(r.run->band_p10->samples.empty());
    // A profile without bands: no band, no model-uncertainty runs, and it says why.
    profile.bands.clear();
    profile.fitted_runs[static_cast<std::size_t>(arch)] = 0;
    SimReport plain = make_report(out.session->scenario, profile, StepEngine::Estimate);
    CHECK_FALSE(plain.band.known);
    CHECK(plain.band.basis.find("no band") == 0);
    CHECK(plain.coefficients_basis.find("prior only: no measured runs of this generation") != std::string::npos);
    add_whole_run(plain, nullptr);
    REQUIRE(plain.run);
    CHECK_FALSE(plain.run->band_p10);
  }

  TEST_CASE("a run too big to simulate is reported by the job-size guard, not attempted") {
    const std::string yaml = quickstart_with("  tokens:", "  tokens: 1e16");  // 2.4e9 steps of ~8.6 s: ~650 years
    const SessionOutcome out = parse_scenario_session(yaml, "long.yaml", test::shipped_catalog());
    REQUIRE_MESSAGE(out.ok(), out.diags.str());
    SimReport r = make_report(out.session->scenario, out.session->profile, StepEngine::Estimate);
    scenario::Diagnostics d;
    REQUIRE(add_whole_run(r, "", d));
    REQUIRE(r.run);
    REQUIRE_FALSE(r.run->ok());
    CHECK(r.run->errors.front().find("too long to put on a calendar (limit 100 years)") != std::string::npos);
    CHECK_FALSE(r.bills);
  }

  TEST_CASE("a run on a generation with no measured runs says so in text and JSON, with its stand-in's band widened") {
    const SessionOutcome out = load_scenario_session(kQuickstart, test::shipped_catalog());
    REQUIRE(out.ok());
    scenario::Scenario s = out.session->scenario;
    s.cluster.gpu.arch = hardware::GpuArch::Ada;  // the shipped profile lists no Ada: Ampere's coefficients and band
    const compute::ComputeProfile& profile = out.session->profile;
    SimReport r = make_report(s, profile, StepEngine::Estimate);
    CHECK(r.coefficients_basis ==
          "ada coefficients: prior only: no measured runs of this generation (ampere's coefficients)");
    REQUIRE(r.band.known);
    REQUIRE(r.band.stand_in.has_value());
    const auto ampere = compute::find_band(profile.bands, hardware::GpuArch::Ampere, false);
    CHECK(r.band.p90 == doctest::Approx(ampere.p90 * compute::kStandInBandWidening));
    std::ostringstream text;
    print_text(r, text);
    CHECK(text.str().find("prior only: no measured runs of this generation") != std::string::npos);
    const std::string json = to_json(r).dump();
    CHECK(json.find("\"coefficients\":\"ada coefficients: prior only: no measured runs of this generation") !=
          std::string::npos);
    CHECK(json.find("ada: prior only: no measured runs of this generation; ampere's band") != std::string::npos);
  }

  TEST_CASE("the GUI's results come through simulate's whole-run path: the same bills") {
    const auto gui = compute_scenario(read_all(kQuickstart), "quickstart.yaml", test::shipped_catalog());
    REQUIRE(gui);
    REQUIRE(gui->ok());
    REQUIRE(gui->job());
    REQUIRE(gui->plans());
    CHECK_FALSE(gui->job()->samples.empty());  // kept for the cost curves
    CHECK_FALSE(gui->calendar.empty());
    const SessionOutcome out = load_scenario_session(kQuickstart, test::shipped_catalog());
    REQUIRE(out.ok());
    SimReport cli = make_report(out.session->scenario, out.session->profile);
    scenario::Diagnostics d;
    REQUIRE(add_whole_run(cli, "", d));
    REQUIRE(cli.bills);
    CHECK(gui->job()->wall_p90 == cli.run->result.wall_p90);
    REQUIRE(gui->plans()->rows.size() == cli.bills->comparison.rows.size());
    for (std::size_t i = 0; i < cli.bills->comparison.rows.size(); ++i) {
      CHECK(gui->plans()->rows[i].p50.total.minor == cli.bills->comparison.rows[i].p50.total.minor);
      CHECK(gui->plans()->rows[i].p90.total.minor == cli.bills->comparison.rows[i].p90.total.minor);
    }
    // The model-uncertainty bills too (the quickstart's Hopper band is known): each plan billed
    // for the run at the band's P10 and P90 step, as `simulate` bills it.
    REQUIRE(cli.bills->model_uncertainty);
    REQUIRE(gui->report.bills->model_uncertainty);
    const pricing::PlanComparison& gui_band = *gui->report.bills->model_uncertainty;
    const pricing::PlanComparison& cli_band = *cli.bills->model_uncertainty;
    REQUIRE(gui_band.rows.size() == cli_band.rows.size());
    for (std::size_t i = 0; i < cli_band.rows.size(); ++i) {
      CHECK(gui_band.rows[i].p50.total.minor == cli_band.rows[i].p50.total.minor);
      CHECK(gui_band.rows[i].p90.total.minor == cli_band.rows[i].p90.total.minor);
    }
    REQUIRE(gui->report.run->band_p90);
    CHECK(gui->report.run->band_p90->wall_p50 == cli.run->band_p90->wall_p50);
  }

  TEST_CASE("the GUI notes an oversized run with the job-size guard's words") {
    const auto r =
        compute_scenario(quickstart_with("  tokens:", "  tokens: 1e16"), "long.yaml", test::shipped_catalog());
    REQUIRE(r);
    REQUIRE(r->ok());
    CHECK_FALSE(r->job());
    CHECK_FALSE(r->plans());
    bool noted = false;
    for (const auto& n : r->cost_notes) noted = noted || n.find("whole-run simulation: the failure-free run") == 0;
    CHECK(noted);
  }
}

}  // namespace flopcast::app

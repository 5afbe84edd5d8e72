// The `claimed:` figures of a scenario, as `flopcast simulate` and a quote check them
// (app/evaluation.cpp): judged by the claims module's compare() at its one tolerance, in its
// words, so that `simulate`, `quote`, `check` and the GUI's Claims tab say the same thing.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "flopcast/app/claims_check.hpp"
#include "flopcast/app/evaluation.hpp"
#include "flopcast/app/scenario_session.hpp"
#include "flopcast/claims/verdict.hpp"
#include "shipped_catalog.hpp"
#include "test_files.hpp"

namespace flopcast::app {
namespace {

/// The quickstart with `claimed` as its `claimed:` block, written to `dir`/`name`.
std::string quickstart_claiming(const test::TempDir& dir, const std::string& name, const std::string& claimed) {
  std::ifstream in(std::string(FLOPCAST_SCENARIOS_DIR) + "/quickstart.yaml");
  std::stringstream text;
  text << in.rdbuf() << "claimed: {" << claimed << "}\n";
  const std::string path = (dir.path / name).string();
  std::ofstream(path) << text.str();
  return path;
}

/// What `flopcast simulate` reports for the scenario (the session keeps its scenario alive).
struct Simulated {
  SessionOutcome session;
  SimReport report;
};

Simulated simulate(const std::string& path) {
  Simulated out{load_scenario_session(path, test::shipped_catalog()), {}};
  REQUIRE_MESSAGE(out.session.ok(), out.session.diags.str());
  out.report = make_report(out.session.session->scenario, out.session.session->profile);
  return out;
}

const ClaimCheck& check_of(const SimReport& r, const std::string& figure) {
  const auto it =
      std::find_if(r.claims.begin(), r.claims.end(), [&](const ClaimCheck& c) { return c.figure == figure; });
  REQUIRE_MESSAGE(it != r.claims.end(), "no check of " << figure);
  return *it;
}

}  // namespace

TEST_CASE("a claimed figure is judged by claims::compare at its 10% tolerance, in the words `check` uses") {
  const test::TempDir dir("claim-checks");
  const Simulated plain = simulate(quickstart_claiming(dir, "plain.yaml", ""));
  const double mfu = plain.report.est.mfu;
  const double step = plain.report.est.step.seconds();
  REQUIRE(mfu > 0);
  // MFU is better higher: claimed / simulated = 1.09 holds, 0.80 is pessimistic by 20%.
  // The step time is better lower: simulated / claimed = 1 / 0.89 = 1.1236 is optimistic by
  // 12%, 1 / 1.2 = 0.833 pessimistic by 17%.
  const std::string holds_file = quickstart_claiming(
      dir, "holds.yaml", fmt::format("mfu: {:.17g}, step_time_s: {:.17g}", 1.09 * mfu, 0.89 * step));
  const Simulated holds = simulate(holds_file);
  CHECK(check_of(holds.report, "mfu").text() == "holds");
  CHECK(check_of(holds.report, "step_time_s").text() == "optimistic by 12%");
  const Simulated low = simulate(
      quickstart_claiming(dir, "low.yaml", fmt::format("mfu: {:.17g}, step_time_s: {:.17g}", 0.8 * mfu, 1.2 * step)));
  CHECK(check_of(low.report, "mfu").text() == "pessimistic by 20%");
  CHECK(check_of(low.report, "step_time_s").text() == "pessimistic by 17%");
  // Each verdict is compare()'s, kind and percent.
  for (const Simulated* x : {&holds, &low})
    for (const ClaimCheck& c : x->report.claims) {
      const claims::Better better = c.figure == "mfu" ? claims::Better::Higher : claims::Better::Lower;
      const claims::Verdict v = claims::compare(c.claimed, c.simulated, better);
      CHECK(c.verdict.kind == v.kind);
      CHECK(c.verdict.percent == v.percent);
    }
  // `flopcast check` runs the scenario the same way and takes its checks over unchanged.
  const claims::ScenarioOutcome o = run_scenario_for_claims({holds_file, "holds.yaml", {}}, test::shipped_catalog());
  REQUIRE(o.checks.size() == holds.report.claims.size());
  for (const auto& c : o.checks) CHECK(c.text() == check_of(holds.report, c.figure).text());
}

TEST_CASE("a claim no run can reach is impossible with its reason, one with nothing to compare cannot be judged") {
  const test::TempDir dir("claim-checks");
  // 2,000 TFLOP/s per GPU is above the H800's dense BF16 peak of 989.4 (data/gpus.yaml); the
  // quickstart is not pipelined, so it has no bubble to compare a claimed one with.
  const Simulated r = simulate(quickstart_claiming(dir, "c.yaml", "tflops_per_gpu: 2000, bubble_fraction: 0.05"));
  CHECK(check_of(r.report, "tflops_per_gpu").text() == "impossible: above the dense peak of 989 TFLOP/s");
  CHECK(check_of(r.report, "bubble_fraction").verdict.kind == claims::VerdictKind::CannotJudge);
  CHECK(check_of(r.report, "bubble_fraction").text() ==
        "cannot be judged: the simulation gives no bubble_fraction to compare with");
}

}  // namespace flopcast::app

// `flopcast quote --plan best --allow-spot`: on a catalog with spot plans (the shipped public-cloud
// list has Spheron's B200 spot price, interrupted 0.00031 times per node-hour), the quote names
// the spot plan, its interruption rate and source, and the work the interruptions cost in the
// simulated run, and prices the same run the planner chose. Without --allow-spot no spot plan
// is priced.
#include <doctest/doctest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "cli_context.hpp"
#include "cli_runner.hpp"

using namespace flopcast;
using nlohmann::json;

namespace {

using test::contains;
using test::run_cli;
using test::scenario_file;

const std::string kPlan70b = scenario_file("plan-70b-1t.yaml");

/// The first number after `prefix` in `text` (commas dropped), or -1.
double number_after(const std::string& text, const std::string& prefix) {
  const auto at = text.find(prefix);
  if (at == std::string::npos) return -1;
  std::string digits;
  for (std::size_t i = at + prefix.size();
       i < text.size() && (std::isdigit(text[i]) || text[i] == '.' || text[i] == ','); ++i)
    if (text[i] != ',') digits += text[i];
  return digits.empty() ? -1 : std::stod(digits);
}

/// "on average N failures, L h of lost work": {N, L in hours}.
std::pair<double, double> failures_and_lost_hours(const std::string& md) {
  static const std::regex re(R"(on average ([0-9.]+) failures, ([0-9.]+) (h|min) of lost work)");
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(md, m, re), md);
  return {std::stod(m.str(1)), std::stod(m.str(2)) / (m.str(3) == "min" ? 60.0 : 1.0)};
}

}  // namespace

TEST_SUITE("cli.quote_spot") {
  TEST_CASE("quote --plan best --allow-spot: the spot plan, its interruptions (cited) and the lost work they cost") {
    const std::vector<std::string> common{"quote", kPlan70b, "--plan", "best", "--gpu", "B200", "--date", "2026-07-01"};
    std::vector<std::string> args = common;
    args.push_back("--allow-spot");
    const auto spot = run_cli(args);
    REQUIRE_MESSAGE(spot.code == cli::kOk, spot.err);
    const std::string& md = spot.out;
    // Spheron's B200 spot price (2.25 USD / GPU-hour) is the recommendation.
    CHECK(contains(md, "\nSpheron B200, spot: "));
    CHECK(contains(md, "| GPU time, Spheron B200, spot | 16 GPU x "));
    CHECK(contains(md, "2.25 USD / GPU-hour"));
    CHECK(contains(md, "**Spheron B200, spot (recommended)**"));
    // The interruption rate per node-hour, its source, and its share of the failure rate.
    CHECK(contains(md, "Spot capacity (Spheron B200, spot): interrupted 0.00031 times per node-hour of 8 GPUs"));
    CHECK(contains(md, "AWS EC2 Spot Instance Advisor"));
    CHECK(contains(md, "the failure rate above includes these 3.87e-05 per GPU-hour"));
    // 1.97e-5 failures (Llama 3) + 0.00031 / 8 interruptions per GPU-hour.
    CHECK(contains(md, "Failures: 5.84e-05 per GPU-hour"));
    CHECK(contains(md, "Each interruption costs 30.0 min to get capacity back"));

    // In Chinese the same sentence, figures kept.
    args.insert(args.end(), {"--lang", "zh-CN"});
    const auto zh = run_cli(args);
    REQUIRE_MESSAGE(zh.code == cli::kOk, zh.err);
    CHECK(contains(zh.out, "竞价（spot）资源（Spheron B200, spot）：每 8 块 GPU 的节点每小时被中断 0.00031 次"));
    CHECK(
        contains(zh.out, "上述故障率已包含折合每 GPU 小时 3.87e-05 次的中断。每次中断需等待 30.0 分钟以重新获得资源"));
    CHECK_FALSE(contains(zh.out, "Spot capacity"));

    const auto on_demand = run_cli(common);
    REQUIRE_MESSAGE(on_demand.code == cli::kOk, on_demand.err);
    // Without --allow-spot no spot plan is priced anywhere in the quote.
    CHECK_FALSE(contains(on_demand.out, "spot"));
    CHECK(contains(on_demand.out, "(recommended)**"));
    CHECK(contains(on_demand.out, "Failures: 1.97e-05 per GPU-hour"));

    // The simulated lost work: the interruptions multiply the failures by about the rates'
    // ratio, 5.845e-5 / 1.97e-5 = 2.97 (Monte Carlo over 200 runs: within 25%), and lose more work.
    // Not structured bindings: CAPTURE's lambda takes them (clang 14 cannot).
    const auto on_spot = failures_and_lost_hours(md);
    const auto od = failures_and_lost_hours(on_demand.out);
    const auto f_spot = on_spot.first, lost_spot = on_spot.second;
    const auto f_od = od.first, lost_od = od.second;
    CAPTURE(f_spot);
    CAPTURE(f_od);
    REQUIRE(f_od > 0);
    CHECK(f_spot / f_od == doctest::Approx(5.845e-5 / 1.97e-5).epsilon(0.25));
    CHECK(lost_spot > 1.3 * lost_od);
    CHECK(number_after(md, "Simulated on average ") == f_spot);  // the spot sentence names the same figure

    // The quote prices the run the planner chose: its P50 total is the planner's, converted at
    // the catalog's 1 USD = 7.2 CNY (data/prices/public-cloud.yaml fx).
    const auto plan = run_cli({"plan", kPlan70b, "--gpu", "B200", "--allow-spot", "--json"});
    REQUIRE_MESSAGE(plan.code == cli::kOk, plan.err);
    const json chosen = json::parse(plan.out).at("chosen");
    CHECK(chosen.at("spot") == true);
    CHECK(chosen.at("price_option") == "spheron-b200-spot");
    const double usd_p50 = number_after(md, "Spheron B200, spot: ");
    REQUIRE(usd_p50 > 0);
    CHECK(chosen.at("cost_p50").get<double>() == doctest::Approx(usd_p50 * 7.2).epsilon(1e-12));
  }
}

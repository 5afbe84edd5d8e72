#include <doctest/doctest.h>

#include "flopcast/pricing/plan_comparison.hpp"

using namespace flopcast;

namespace {

const units::Currency kCny = units::Currency::of("CNY");
constexpr std::int64_t kHourNs = 3'600'000'000'000;

pricing::Plan plan(std::string id, pricing::BillingUnit unit, const char* price) {
  pricing::Plan p;
  p.id = std::move(id);
  p.name = p.id;
  p.gpus = {"A100-80G"};
  p.unit = unit;
  p.price = units::PriceRate{*units::parse_micro_units(price), kCny};
  return p;
}

pricing::PriceCatalog catalog() {
  pricing::PriceCatalog c;
  c.name = "mix";
  c.currency = kCny;
  c.plans.push_back(plan("hourly", pricing::BillingUnit::Hour, "10"));
  c.plans.push_back(plan("daily", pricing::BillingUnit::Day, "220"));
  c.plans.push_back(plan("monthly", pricing::BillingUnit::Month, "4500"));
  pricing::Plan any = plan("idc", pricing::BillingUnit::Month, "96000");
  any.gpus = {"*"};
  any.basis = pricing::PriceBasis::PerNode;
  c.plans.push_back(any);
  return c;
}

pricing::BillUsage run(std::int64_t hours) {
  pricing::BillUsage u;
  u.gpu_span = units::Time{hours * kHourNs};
  u.gpus = 8;
  return u;
}

}  // namespace

TEST_CASE("pricing: plan comparison at P50 and P90 with mixes, cheapest marked") {
  const pricing::PriceCatalog c = catalog();
  // P50 800 h, P90 1,000 h on 8 GPUs. Each figure: GPUs x billed units x price.
  const pricing::PlanComparison cmp = pricing::compare_plans(c, {"a100 80g"}, run(800), run(1000));
  REQUIRE(cmp.errors.empty());
  REQUIRE(cmp.rows.size() == 7);
  struct Expect {
    const char* id;
    std::int64_t p50, p90;
  };
  const Expect expect[] = {
      // hourly: 8 x 800 x 10 = 64,000; 8 x 1,000 x 10 = 80,000.
      {"hourly", 6400000, 8000000},
      // daily: 800 h -> 34 days x 8 x 220 = 59,840; 1,000 h -> 42 days = 73,920.
      {"daily", 5984000, 7392000},
      // monthly: 800 h and 1,000 h -> 2 months x 8 x 4,500 = 72,000.
      {"monthly", 7200000, 7200000},
      // idc ("*": the source did not name the GPU): 2 node-months x 96,000 = 192,000.
      {"idc", 19200000, 19200000},
      // daily + hourly: 33 days (792 h) = 58,080 + 8 h x 8 x 10 = 640 -> 58,720 (34 days: 59,840);
      // P90: 58,080 + 208 h x 80 = 16,640 -> 74,720.
      {"daily+hourly", 5872000, 7472000},
      // monthly + hourly: 1 month = 36,000 + 80 h x 80 = 6,400 -> 42,400 (2 months: 72,000);
      // P90: 36,000 + 280 h x 80 = 22,400 -> 58,400.
      {"monthly+hourly", 4240000, 5840000},
      // monthly + daily: 36,000 + 80 h -> 4 days x 8 x 220 = 7,040 -> 43,040;
      // P90: 36,000 + 280 h -> 12 days = 21,120 -> 57,120.
      {"monthly+daily", 4304000, 5712000},
  };
  for (std::size_t i = 0; i < 7; ++i) {
    CAPTURE(i);
    CHECK(cmp.rows[i].option.id == expect[i].id);
    CHECK(cmp.rows[i].p50.total.minor == expect[i].p50);
    CHECK(cmp.rows[i].p90.total.minor == expect[i].p90);
  }
  // Cheapest at P50: monthly + hourly (42,400).
  REQUIRE(cmp.cheapest.has_value());
  CHECK(cmp.rows[*cmp.cheapest].option.id == "monthly+hourly");
  CHECK(cmp.rows[*cmp.cheapest].cheapest);
  CHECK(cmp.rows[*cmp.cheapest].option.committed_units == 1);
  CHECK(cmp.rows[*cmp.cheapest].option.label == "monthly x 1 month + hourly for the rest");
}

TEST_CASE("pricing: a mix that its committed units already cover is not listed") {
  const pricing::PriceCatalog c = catalog();
  // P50 = P90 = 100 h. Monthly + anything: 1 month covers 100 h, so the mix is the monthly plan
  // alone and is left out; daily + hourly commits 4 days (96 h; 5 days would cover the run):
  // 4 x 8 x 220 = 7,040 + 4 h x 8 x 10 = 320 -> 7,360, below hourly (8 x 100 x 10 = 8,000)
  // and daily (5 days = 8,800).
  const pricing::PlanComparison cmp = pricing::compare_plans(c, {"A100-80G"}, run(100), run(100));
  REQUIRE(cmp.rows.size() == 5);
  CHECK(cmp.rows[4].option.id == "daily+hourly");
  CHECK(cmp.rows[4].option.committed_units == 4);
  CHECK(cmp.rows[4].p50.total.minor == 736000);
  CHECK(cmp.rows[*cmp.cheapest].option.id == "daily+hourly");
}

TEST_CASE("pricing: plan selection errors") {
  const pricing::PriceCatalog c = catalog();
  pricing::CompareOptions opt;
  opt.plan_ids = {"hourly", "weekly"};
  const pricing::PlanComparison cmp = pricing::compare_plans(c, {"A100-80G"}, run(10), run(12), opt);
  REQUIRE(cmp.errors.size() == 1);
  CHECK(cmp.errors[0] == "unknown plan 'weekly' in catalog 'mix' (known: hourly, daily, monthly, idc)");
  CHECK(cmp.rows.size() == 1);
  // A plan for another GPU is refused, and a GPU without plans (only "*" plans apply) gets those.
  opt.plan_ids = {"hourly"};
  const pricing::PlanComparison h800 = pricing::compare_plans(c, {"H800"}, run(10), run(12), opt);
  REQUIRE(h800.errors.size() == 1);
  CHECK(h800.errors[0] == "plan 'hourly' is for A100-80G, not H800");
  const pricing::PlanComparison any = pricing::compare_plans(c, {"H800"}, run(10), run(12));
  REQUIRE(any.rows.size() == 1);
  CHECK(any.rows[0].option.id == "idc");
}

TEST_CASE("pricing: a competitor's price is compared but never mixed or offered") {
  pricing::PriceCatalog c;
  c.name = "vendor";
  c.currency = kCny;
  c.plans.push_back(plan("hourly", pricing::BillingUnit::Hour, "10"));
  pricing::Plan rival = plan("rival-monthly", pricing::BillingUnit::Month, "1000");
  rival.competitor = true;
  c.plans.push_back(rival);
  // 100 h on 8 GPUs: hourly 8 x 100 x 10 = 8,000; the rival's month 8 x 1,000 = 8,000 - 1 cent
  // would tie, so make it clearly cheaper: 8 x 1,000 = 8,000 vs hourly at 120 h = 9,600.
  const pricing::PlanComparison cmp = pricing::compare_plans(c, {"A100-80G"}, run(120), run(120));
  // No "rival-monthly+hourly" mix: one contract cannot span two providers.
  REQUIRE(cmp.rows.size() == 2);
  CHECK(cmp.rows[0].p50.total.minor == 960000);
  CHECK(cmp.rows[1].p50.total.minor == 800000);
  // The overall cheapest is the rival's; the provider's cheapest offer is its hourly plan.
  REQUIRE(cmp.cheapest.has_value());
  CHECK(cmp.rows[*cmp.cheapest].option.id == "rival-monthly");
  REQUIRE(cmp.cheapest_offered.has_value());
  CHECK(cmp.rows[*cmp.cheapest_offered].option.id == "hourly");
}

TEST_CASE("pricing: cost over the calendar steps by whole units and ends at the bill") {
  const pricing::PriceCatalog c = catalog();
  // 1,000 h on 8 GPUs, 10 points (every 100 h).
  const pricing::BillUsage u = run(1000);
  pricing::PlanOption hourly{"hourly", "hourly", c.find_plan("hourly")};
  pricing::PlanOption monthly{"monthly", "monthly", c.find_plan("monthly")};
  const auto h = pricing::cost_over_calendar(c, hourly, u, 10);
  const auto m = pricing::cost_over_calendar(c, monthly, u, 10);
  REQUIRE(h.size() == 11);
  REQUIRE(m.size() == 11);
  CHECK(h.front().span.ns == 0);
  CHECK(h.back().span.ns == 1000 * kHourNs);
  // At 0 h the minimum term is billed: one started hour, 8 x 10 = 80 CNY (monthly: one month).
  CHECK(h[0].total.minor == 8000);
  CHECK(m[0].total.minor == 3600000);
  // Then hourly adds 8 GPUs x 100 h x 10 CNY per step of the calendar.
  CHECK(h[1].total.minor == 800000);
  for (std::size_t i = 2; i < h.size(); ++i) CHECK(h[i].total.minor - h[i - 1].total.minor == 800000);
  // The last point is the plan's whole bill (the comparison's figure).
  CHECK(h.back().total.minor == 8000000);
  // Monthly (720 h units, 8 x 4,500): one month up to 700 h, two from 800 h on.
  CHECK(m[7].total.minor == 3600000);
  CHECK(m[8].total.minor == 7200000);
  CHECK(m.back().total.minor == 7200000);
}

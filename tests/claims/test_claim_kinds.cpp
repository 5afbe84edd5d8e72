// Each claim kind judged on inputs built here (no files), every expected figure derived by
// hand: prices through core/pricing, collectives through CommModel, hardware from the GPU spec,
// energy and checkpoints through core/job, training through a scenario runner.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "flopcast/claims/claims_evaluation.hpp"
#include "flopcast/comm/comm_model.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;
using namespace flopcast::claims;

namespace {

const units::Currency kUsd = units::Currency::of("USD");
const units::Currency kCny = units::Currency::of("CNY");

pricing::Plan plan(std::string id, pricing::BillingUnit unit, pricing::PriceBasis basis, std::int64_t micro,
                   units::Currency c) {
  pricing::Plan p;
  p.id = std::move(id);
  p.gpus = {"X100"};
  p.unit = unit;
  p.basis = basis;
  p.price = units::PriceRate::of_micro(micro, c);
  p.claim = true;
  return p;
}

/// A catalog in USD with 1 USD = 7.2 CNY: X100 at 2.00 USD/GPU-hour, at 7.20 CNY/GPU-hour
/// (= 1.00 USD, half), 10,000 USD per 8-GPU node-month, a competitor, a 10 USD credit.
std::shared_ptr<const pricing::PriceCatalog> catalog() {
  auto c = std::make_shared<pricing::PriceCatalog>();
  c->name = "test";
  c->currency = kUsd;
  c->fx.push_back(units::FxRate{kUsd, kCny, 7'200'000, "assumption"});
  c->plans.push_back(plan("x-hourly", pricing::BillingUnit::Hour, pricing::PriceBasis::PerGpu, 2'000'000, kUsd));
  c->plans.push_back(plan("x-hourly-cny", pricing::BillingUnit::Hour, pricing::PriceBasis::PerGpu, 7'200'000, kCny));
  c->plans.push_back(
      plan("x-month-node", pricing::BillingUnit::Month, pricing::PriceBasis::PerNode, 10'000'000'000, kUsd));
  pricing::Plan comp = plan("rival", pricing::BillingUnit::Hour, pricing::PriceBasis::PerGpu, 3'000'000, kUsd);
  comp.competitor = true;
  c->plans.push_back(comp);
  c->new_user_credit = pricing::Credit{units::Money::of_minor(1000, kUsd), "", ""};
  return c;
}

ClaimedValue value(Dimension d, double v, std::string unit = {}) {
  ClaimedValue c;
  c.dimension = d;
  c.value = v;
  c.unit = std::move(unit);
  c.text = std::to_string(v) + " " + c.unit;
  return c;
}

ClaimedValue money(std::int64_t minor, units::Currency cur) {
  ClaimedValue c = value(Dimension::Money, static_cast<double>(minor) / 100, cur.str());
  c.money = units::Money::of_minor(minor, cur);
  return c;
}

ClaimedValue price(std::int64_t micro, units::Currency cur, pricing::PriceBasis basis, pricing::BillingUnit unit) {
  ClaimedValue c = value(Dimension::Price, static_cast<double>(micro) / 1e6);
  c.price = ClaimedPrice{units::PriceRate::of_micro(micro, cur), basis, unit};
  return c;
}

Claim claim(std::string id, ClaimKind kind, std::string figure, std::optional<ClaimedValue> claimed, ClaimNeeds needs) {
  Claim c;
  c.id = std::move(id);
  c.kind = kind;
  c.figure = std::move(figure);
  c.claimed = std::move(claimed);
  c.source = "TEST";
  c.quote = "as quoted";
  c.needs = std::move(needs);
  return c;
}

PriceNeeds price_needs(const std::shared_ptr<const pricing::PriceCatalog>& cat, PriceFigure f, const char* plan_id,
                       PriceUse use) {
  PriceNeeds n;
  n.figure = f;
  n.catalog = cat;
  if (plan_id) n.options.push_back({cat->find_plan(plan_id), nullptr});
  n.use = use;
  return n;
}

constexpr units::Time kHour{3'600'000'000'000};

ClaimsReport judge(std::vector<Claim> claims, ScenarioRunner runner = {}) {
  ClaimsFile f;
  f.file = "test.yaml";
  f.claims = std::move(claims);
  return evaluate_claims(f, runner);
}

}  // namespace

TEST_CASE("claims: a price rate is billed through the plan, and two prices for one product contradict") {
  const auto cat = catalog();
  std::vector<Claim> cs;
  cs.push_back(claim("usd-rate", ClaimKind::Price, "rate",
                     price(2'000'000, kUsd, pricing::PriceBasis::PerGpu, pricing::BillingUnit::Hour),
                     price_needs(cat, PriceFigure::Rate, "x-hourly", {8, kHour})));
  cs.push_back(claim("cny-rate", ClaimKind::Price, "rate",
                     price(7'200'000, kCny, pricing::PriceBasis::PerGpu, pricing::BillingUnit::Hour),
                     price_needs(cat, PriceFigure::Rate, "x-hourly-cny", {1, kHour})));
  cs.push_back(claim("rival-rate", ClaimKind::Price, "rate",
                     price(3'000'000, kUsd, pricing::PriceBasis::PerGpu, pricing::BillingUnit::Hour),
                     price_needs(cat, PriceFigure::Rate, "rival", {1, kHour})));
  const auto r = judge(std::move(cs));
  // 8 GPU x 1 h x 2.00 USD = 16.00 USD over 8 GPU-hours; 7.20 CNY = 1.00 USD at the stated 7.2: half.
  const auto* usd = r.find("usd-rate");
  CHECK(usd->verdict.figure.value == doctest::Approx(2.00));
  CHECK(usd->verdict.word() == "contradicts cny-rate");
  CHECK(usd->verdict.reason.find("0.50x this price") != std::string::npos);
  CHECK(r.find("cny-rate")->verdict.word() == "contradicts usd-rate");
  // Another provider's price is billed but cannot be judged.
  CHECK(r.find("rival-rate")->verdict.kind == VerdictKind::CannotJudge);
  CHECK(r.find("rival-rate")->verdict.figure.value == doctest::Approx(3.00));
}

TEST_CASE("claims: a contradiction names the plan when no claim of the file states it") {
  const auto r = judge({claim("usd-rate", ClaimKind::Price, "rate",
                              price(2'000'000, kUsd, pricing::PriceBasis::PerGpu, pricing::BillingUnit::Hour),
                              price_needs(catalog(), PriceFigure::Rate, "x-hourly", {1, kHour}))});
  CHECK(r.results.front().verdict.word() == "contradicts x-hourly-cny");
}

TEST_CASE("claims: a saving compares the two bills for the same use") {
  const auto cat = catalog();
  auto needs = price_needs(cat, PriceFigure::Saving, "x-month-node", {8, kHour * 720});
  needs.baseline = PriceOption{cat->find_plan("x-hourly"), nullptr};
  // Hourly: 8 x 720 x 2.00 = 11,520 USD; monthly 10,000: 1 - 10,000/11,520 = 13.2% cheaper. A
  // claimed 38% means paying 62% of hourly; paying 86.8% is 0.868/0.62 - 1 = 40% more than that.
  Claim c = claim("saving", ClaimKind::Price, "saving", value(Dimension::Fraction, 0.38), needs);
  auto r = judge({c});
  CHECK(r.results.front().verdict.figure.value == doctest::Approx(100 * (1 - 10000.0 / 11520)));
  CHECK(r.results.front().verdict.word() == "optimistic by 40%");
  // Computed from other claims' figures, the same disagreement is a contradiction of them.
  c.relies_on = {"monthly-price"};
  r = judge({c});
  CHECK(r.results.front().verdict.word() == "contradicts monthly-price");
  CHECK(r.results.front().verdict.reason.find("13.2% cheaper, not") != std::string::npos);
  // Without a baseline a saving cannot be judged; the figure is what the option itself costs.
  needs.baseline.reset();
  r = judge({claim("saving", ClaimKind::Price, "saving", value(Dimension::Fraction, 0.38), needs)});
  CHECK(r.results.front().verdict.kind == VerdictKind::CannotJudge);
  CHECK(r.results.front().verdict.figure.value == doctest::Approx(10000.0));
}

TEST_CASE("claims: a total in another currency converts at the catalog's stated rate only") {
  // 8 GPU x 1 h x 2.00 USD = 16.00 USD = 115.20 CNY at 7.2.
  const auto r = judge({claim("total", ClaimKind::Price, "total", money(11520, kCny),
                              price_needs(catalog(), PriceFigure::Total, "x-hourly", {8, kHour}))});
  const auto& v = r.results.front().verdict;
  CHECK(v.kind == VerdictKind::Holds);
  CHECK(v.figure.text == "115.20 CNY");
  CHECK(v.how.find("1 USD = 7.2 CNY") != std::string::npos);
}

TEST_CASE("claims: a credit buys its amount over the plan's hourly price") {
  // 10.00 USD / (8 GPU x 2.00 USD/GPU-hour) = 0.625 h; a claimed 1 h is 1/0.625 - 1 = 60% optimistic.
  const auto r = judge({claim("credit", ClaimKind::Price, "credit_hours", value(Dimension::Time, 3600, "h"),
                              price_needs(catalog(), PriceFigure::CreditHours, "x-hourly", {8, units::Time{0}}))});
  CHECK(r.results.front().verdict.figure.value == doctest::Approx(0.625));
  CHECK(r.results.front().verdict.word() == "optimistic by 60%");
}

TEST_CASE("claims: a run cost bills the simulated run, and a run that does not fit is impossible") {
  auto needs = price_needs(catalog(), PriceFigure::RunCost, "x-hourly", {});
  needs.run = ScenarioRef{"run.yaml", "run.yaml", {}};
  int runs = 0;
  ScenarioOutcome o;
  o.status = ScenarioOutcome::Status::Simulated;
  o.gpu = "X100";
  o.gpu_names = {"X100"};
  o.gpus = 8;
  o.train_seconds = 10 * 3600;
  o.gpu_hours = 80;
  auto runner = [&](const ScenarioRef&) {
    ++runs;
    return o;
  };
  // 8 GPU x 10 h x 2.00 USD = 160.00 USD; claimed 100: 60% optimistic. Two claims, one run.
  std::vector<Claim> cs{claim("run", ClaimKind::Price, "run_cost", money(10000, kUsd), needs),
                        claim("run-again", ClaimKind::Price, "run_cost", money(16000, kUsd), needs)};
  auto r = judge(cs, runner);
  CHECK(runs == 1);
  CHECK(r.find("run")->verdict.figure.value == doctest::Approx(160.0));
  CHECK(r.find("run")->verdict.word() == "optimistic by 60%");
  CHECK(r.find("run-again")->verdict.kind == VerdictKind::Holds);
  o.fits_memory = false;
  o.memory_problem = "the plan needs 142.5 GiB per GPU but the X100 has 80.0 GiB";
  r = judge({cs.front()}, runner);
  CHECK(r.results.front().verdict.kind == VerdictKind::Impossible);
  CHECK(r.results.front().verdict.reason.rfind(o.memory_problem, 0) == 0);
}

TEST_CASE("claims: a collective claim is CommModel's cost, as flopcast collective computes it") {
  const auto& cat = test::shipped_catalog();
  CollectiveNeeds n;
  n.gpu = *cat.find_gpu("H800");
  n.fabric = *cat.find_fabric("hgx-h800-roce200");
  n.gpus = 16;
  n.group = topology::GroupShape{2, 1, 1};
  n.figure = "latency";
  ClaimedValue lat = value(Dimension::Time, 3e-6, "us");
  lat.bound = Bound::AtMost;
  const auto r = judge({claim("lat", ClaimKind::Collective, "latency", lat, n)});
  const comm::CommModel model(n.gpu, n.fabric, n.gpus, comm::CommOptions{});
  const double us = model.cost(comm::Collective::AllReduce, n.group, units::Bytes{8}).time.us();
  CHECK(r.results.front().verdict.figure.value == doctest::Approx(us));
  // NCCL's ring LL base latency 6.6 us + 2 network hops x 5.0 us (NCCL src/graph/tuning.cc).
  CHECK(us == doctest::Approx(16.6).epsilon(1e-3));
}

TEST_CASE("claims: hardware claims name the sparse and bidirectional traps, and a missing path is impossible") {
  const auto& cat = test::shipped_catalog();
  HardwareNeeds tf;
  tf.figure = "dense_tflops";
  tf.gpu = *cat.find_gpu("A100-80G");
  tf.precision = hardware::Precision::FP16;
  HardwareNeeds fp8 = tf;
  fp8.precision = hardware::Precision::FP8;
  HardwareNeeds nv;
  nv.figure = "nvlink_bandwidth";
  nv.gpu = tf.gpu;
  const auto r =
      judge({claim("sparse", ClaimKind::Hardware, "dense_tflops", value(Dimension::FlopRate, 624e12), tf),
             claim("fp8", ClaimKind::Hardware, "dense_tflops", value(Dimension::FlopRate, 624e12), fp8),
             claim("nv", ClaimKind::Hardware, "nvlink_bandwidth", value(Dimension::Bandwidth, 600e9, "GB/s"), nv)});
  // 624 = 2 x 312 dense: the 2:4 sparse figure, 100% optimistic for dense training.
  CHECK(r.find("sparse")->verdict.word() == "optimistic by 100%");
  REQUIRE(!r.find("sparse")->verdict.notes.empty());
  CHECK(r.find("sparse")->verdict.notes.front().find("2:4 structured-sparsity") != std::string::npos);
  CHECK(r.find("fp8")->verdict.kind == VerdictKind::Impossible);
  CHECK(r.find("nv")->verdict.figure.value == doctest::Approx(300.0));
  CHECK(r.find("nv")->verdict.notes.front().find("both directions") != std::string::npos);
}

TEST_CASE("claims: a catalog figure taken from the claim's own source cannot judge it") {
  HardwareNeeds n;
  n.figure = "nic_bandwidth";
  hardware::FabricSpec f;
  f.name = "vendor-roce";
  f.nic_gbps = 200;
  f.source = "SEED (CLAIM: RoCE v2 at 200 Gbps); nics_per_node ASSUMED";
  n.fabric = f;
  Claim c = claim("nic", ClaimKind::Hardware, "nic_bandwidth", value(Dimension::Bandwidth, 25e9, "Gbps"), n);
  c.source = "SEED";
  CHECK(judge({c}).results.front().verdict.kind == VerdictKind::CannotJudge);
  c.source = "SEEDS";  // another source: read against the catalog
  CHECK(judge({c}).results.front().verdict.kind == VerdictKind::Holds);
}

TEST_CASE("claims: energy is core/job's fleet power times PUE and tariff, and a saving needs a baseline") {
  FleetPower fleet;
  fleet.gpu.name = "X100";
  fleet.gpu.tdp_w = 700;
  fleet.fabric.name = "node";
  fleet.fabric.gpus_per_node = 8;
  fleet.fabric.node_power_kw = 10.2;
  fleet.gpus = 8;
  EnergyNeeds n;
  n.figure = "cost";
  n.fleet = fleet;
  n.period = kHour;
  n.pue = 1.5;
  n.tariff = units::PriceRate::of_micro(1'000'000, kUsd);
  n.tariff_from = "the test";
  // One 10.2 kW node for 1 h = 10.2 kWh x PUE 1.5 = 15.3 kWh x 1.00 USD = 15.30 USD.
  auto r = judge({claim("cost", ClaimKind::Energy, "cost", money(1530, kUsd), n)});
  CHECK(r.results.front().verdict.kind == VerdictKind::Holds);
  CHECK(r.results.front().verdict.figure.value == doctest::Approx(15.30));
  n.figure = "saving";
  r = judge({claim("saving", ClaimKind::Energy, "saving", money(1500, kUsd), n)});
  CHECK(r.results.front().verdict.kind == VerdictKind::CannotJudge);
  // Against two such nodes the saving is 30.60 - 15.30 = 15.30 USD.
  n.baseline = fleet;
  n.baseline->gpus = 16;
  r = judge({claim("saving", ClaimKind::Energy, "saving", money(1500, kUsd), n)});
  CHECK(r.results.front().verdict.kind == VerdictKind::Holds);
  CHECK(r.results.front().verdict.figure.value == doctest::Approx(15.30));
  // A baseline that draws less cannot be saved against.
  n.fleet.gpus = 16;
  n.baseline->gpus = 8;
  r = judge({claim("saving", ClaimKind::Energy, "saving", money(1500, kUsd), n)});
  CHECK(r.results.front().verdict.kind == VerdictKind::Impossible);
}

TEST_CASE("claims: checkpoints use core/job's size, write, stall and rollback") {
  CheckpointNeeds n;
  n.model = "1B";
  n.params = 1e9;
  n.gpus = 8;
  n.storage_write = units::Bandwidth::from_gbytes_per_s(1.0);
  // 1e9 parameters x 14 B = 14 GB at 1 GB/s: 14 s per write.
  n.figure = "interval";
  auto r = judge({claim("short", ClaimKind::Checkpoint, "interval", value(Dimension::Time, 10, "s"), n),
                  claim("long", ClaimKind::Checkpoint, "interval", value(Dimension::Time, 60, "s"), n)});
  CHECK(r.find("short")->verdict.kind == VerdictKind::Impossible);
  CHECK(r.find("long")->verdict.kind == VerdictKind::Holds);
  CHECK(r.find("long")->verdict.figure.value == doctest::Approx(14.0));
  // Reloading 14 GB at 1 GB/s takes 14 s; a claimed 7 s is 100% optimistic.
  n.figure = "restart_time";
  r = judge({claim("restart", ClaimKind::Checkpoint, "restart_time", value(Dimension::Time, 7, "s"), n)});
  CHECK(r.results.front().verdict.word() == "optimistic by 100%");
  // Every 60 s, async: 30 s of training lost on average plus the 14 s write window.
  n.figure = "lost_work";
  n.interval = units::Time::from_seconds(60);
  Claim lost = claim("lost", ClaimKind::Checkpoint, "lost_work", value(Dimension::Time, 0, "s"), n);
  r = judge({lost});
  CHECK(r.results.front().verdict.kind == VerdictKind::Impossible);
  CHECK(r.results.front().verdict.figure.value == doctest::Approx(44.0));
  lost.relies_on = {"every-minute"};
  CHECK(judge({lost}).results.front().verdict.word() == "contradicts every-minute");
  // 1 GB/s against 0.5 GB/s is 2x: "100% faster" holds, "40% faster" is 1 - 1.4/2 = 30% pessimistic.
  n.figure = "save_speedup";
  n.baseline_write = units::Bandwidth::from_gbytes_per_s(0.5);
  r = judge({claim("x2", ClaimKind::Checkpoint, "save_speedup", value(Dimension::Fraction, 1.0), n),
             claim("x14", ClaimKind::Checkpoint, "save_speedup", value(Dimension::Fraction, 0.4), n)});
  CHECK(r.find("x2")->verdict.kind == VerdictKind::Holds);
  CHECK(r.find("x14")->verdict.word() == "pessimistic by 30%");
}

TEST_CASE("claims: a training claim takes simulate's verdict, and a setup that does not add up is impossible") {
  ScenarioOutcome ok;
  ok.status = ScenarioOutcome::Status::Simulated;
  ok.gpus = 8;
  ok.gpu = "A100-80G";
  ok.engine = "discrete-event simulation";
  // simulate's checks (app/evaluation.cpp): compare() for lower-is-better figures, and an
  // impossible MFU for a plan that does not fit. 153.0 / 74.5 = 2.05 (optimistic by 105%),
  // 0.0535 / 0.06 = 0.89 (pessimistic by 11%), 29 / 30 = 0.97 (holds).
  Verdict no_fit;
  no_fit.kind = VerdictKind::Impossible;
  no_fit.reason = "the plan needs 142.5 GiB per GPU but the A100-80G has 80.0 GiB";
  ok.checks = {{"mfu", 0.72, 0.5965, no_fit},
               {"memory_gb", 74.5, 153.0, compare(74.5, 153.0, Better::Lower)},
               {"bubble_fraction", 0.06, 0.0535, compare(0.06, 0.0535, Better::Lower)},
               {"days", 30, 29, compare(30, 29, Better::Lower)}};
  ok.fits_memory = false;
  ok.memory_problem = "the plan needs 142.5 GiB per GPU but the A100-80G has 80.0 GiB";
  ScenarioOutcome bad;
  bad.status = ScenarioOutcome::Status::Inconsistent;
  bad.gpus = 2048;
  bad.plan_gpus = 16384;
  bad.problems = {"parallel: tp*pp*dp*cp = 8*16*128*1 = 16384 but cluster.gpus is 2048 (x.yaml:21:3)"};
  ScenarioOutcome unreadable;
  unreadable.problems = {"y.yaml:3:1: error: trainig: unknown key 'trainig'"};
  auto runner = [&](const ScenarioRef& ref) {
    return ref.path == "ok.yaml" ? ok : ref.path == "bad.yaml" ? bad : unreadable;
  };
  auto t = [](const char* id, const char* figure, const char* path) {
    return claim(id, ClaimKind::Training, figure, std::nullopt, TrainingNeeds{ScenarioRef{path, path, {}}});
  };
  const auto r =
      judge({t("mfu", "mfu", "ok.yaml"), t("mem", "memory_gb", "ok.yaml"), t("bubble", "bubble_fraction", "ok.yaml"),
             t("days", "days", "ok.yaml"), t("none", "tokens_per_day", "ok.yaml"), t("650b", "mfu", "bad.yaml"),
             t("typo", "mfu", "typo.yaml")},
            runner);
  CHECK(r.find("mfu")->verdict.kind == VerdictKind::Impossible);
  CHECK(r.find("mfu")->verdict.figure.value == doctest::Approx(59.65));
  CHECK(r.find("mfu")->claimed == "72.0%");
  CHECK(r.find("mem")->verdict.word() == "optimistic by 105%");
  CHECK(r.find("bubble")->verdict.word() == "pessimistic by 11%");
  CHECK(r.find("days")->verdict.kind == VerdictKind::Holds);
  CHECK(r.find("none")->verdict.kind == VerdictKind::CannotJudge);
  CHECK(r.find("650b")->verdict.kind == VerdictKind::Impossible);
  CHECK(r.find("650b")->verdict.figure.value == doctest::Approx(16384));
  CHECK(r.find("typo")->verdict.kind == VerdictKind::CannotJudge);
  CHECK(r.find("typo")->verdict.reason.find("unknown key 'trainig'") != std::string::npos);
}

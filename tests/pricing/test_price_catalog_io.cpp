#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/job/job_simulation.hpp"
#include "flopcast/pricing/plan_comparison.hpp"

using namespace flopcast;

namespace {

constexpr std::int64_t kHourNs = 3'600'000'000'000;

pricing::PriceCatalog shipped(const char* name) {
  scenario::Diagnostics d;
  auto c = io::load_price_catalog(name, FLOPCAST_DATA_DIR, d);
  INFO(d.str());
  REQUIRE(c.has_value());
  CHECK(d.empty());
  return *c;
}

std::string first_error(const std::string& yaml) {
  scenario::Diagnostics d;
  const auto c = io::parse_price_catalog(yaml, "bad.yaml", d);
  CHECK_FALSE(c.has_value());
  REQUIRE_FALSE(d.items().empty());
  return d.items().front().str();
}

const char* const kMinimal = R"(currency: CNY
plans:
  - id: p
    kind: offer
    gpus: [A100-80G]
    unit: hour
    price: 6.8
)";

}  // namespace

TEST_CASE("pricing: shipped catalogs load without diagnostics and keep prices as stated") {
  const pricing::PriceCatalog seed = shipped("seed-vendor");
  CHECK(seed.name == "seed-vendor");
  CHECK(seed.currency.str() == "CNY");
  CHECK(seed.plans.size() == 9);
  const pricing::Plan* hourly = seed.find_plan("a100-80g-hourly");
  REQUIRE(hourly != nullptr);
  CHECK(hourly->price.micro == 6'800'000);
  CHECK(hourly->claim);
  const pricing::Plan* usd = seed.find_plan("a100-80g-hourly-usd");
  REQUIRE(usd != nullptr);
  CHECK(usd->price == units::PriceRate{1'890'000, units::Currency::of("USD")});
  CHECK(seed.find_plan("a100-80g-monthly-node")->price.micro == 57'600'000'000);
  CHECK(seed.find_plan("idc-node-monthly")->deposit.minor == 3'000'000);
  CHECK(seed.find_plan("h100-hourly")->queue.ns == 3 * 24 * kHourNs);
  REQUIRE(seed.new_user_credit.has_value());
  CHECK(seed.new_user_credit->amount.minor == 1000);
  CHECK(seed.cpu_instances.at(0).per_hour.micro == 400'000);
  REQUIRE(seed.fx.size() == 1);
  CHECK(seed.fx[0].micro == 7'200'000);

  const pricing::PriceCatalog cloud = shipped("public-cloud");
  CHECK(cloud.currency.str() == "USD");
  CHECK(cloud.find_plan("aws-p5-capacity-block")->price.micro == 4'916'000);
  CHECK(cloud.find_plan("spheron-gb200-superchip")->gpus_per_node == 2);
  CHECK(cloud.find_plan("coreweave-h100-contract-low")->minimum_units == 8640);
  for (const pricing::Plan& p : cloud.plans) {
    CAPTURE(p.id);
    CHECK_FALSE(p.source.empty());
    CHECK_FALSE(p.date.empty());
  }
}

TEST_CASE("pricing: the seed vendor's A100 plans for 8 GPUs over 100 hours") {
  const pricing::PriceCatalog seed = shipped("seed-vendor");
  pricing::BillUsage u;
  u.gpu_span = units::Time{100 * kHourNs};
  u.gpus = 8;
  pricing::CompareOptions opt;
  opt.mixes = false;
  const pricing::PlanComparison cmp = pricing::compare_plans(seed, {"A100-80G", "A100"}, u, u, opt);
  REQUIRE(cmp.errors.empty());
  auto total = [&](const char* id) {
    for (const auto& r : cmp.rows)
      if (r.option.id == id) return r.p50.total.minor;
    FAIL("no row " << id);
    return std::int64_t{0};
  };
  // 8 x 100 x 6.80 = 5,440.00 CNY.
  CHECK(total("a100-80g-hourly") == 544000);
  // 8 x 100 x $1.89 = $1,512.00 x 7.2 = 10,886.40 CNY.
  CHECK(total("a100-80g-hourly-usd") == 1088640);
  // 1 node x 1 month x 57,600 = 57,600.00 CNY.
  CHECK(total("a100-80g-monthly-node") == 5760000);
  // 100 h -> 5 days x 8 x 1,200 = 48,000.00 CNY.
  CHECK(total("a100-80g-daily") == 4800000);
  // 8 GPU x 1 month x 12,000 = 96,000.00 CNY.
  CHECK(total("a100-80g-single-monthly") == 9600000);
  // Competitor quotes ("*"): 1 node-month: 96,000.00 and 85,000.00 CNY.
  CHECK(total("idc-node-monthly") == 9600000);
  CHECK(total("big-cloud-node-monthly") == 8500000);
  // The cheapest for this short run is the stated hourly price.
  REQUIRE(cmp.cheapest.has_value());
  CHECK(cmp.rows[*cmp.cheapest].option.id == "a100-80g-hourly");
}

TEST_CASE("pricing: a catalog's Chinese names are read where it gives them") {
  scenario::Diagnostics d;
  const auto c = io::parse_price_catalog(R"(currency: CNY
cpu_instances:
  - {id: cpu, name: CPU debug, name_zh: CPU 调试实例, price_per_hour: 0.4}
plans:
  - id: p
    name: H800 daily
    name_zh: H800 按天计费
    kind: offer
    gpus: [H800]
    unit: day
    price: 680
    add_ons:
      - {id: rdma, name: RDMA network, name_zh: RDMA 网络, kind: gpu_unit, included: true, note: included, note_zh: 已含}
  - id: q
    name: H800 hourly
    kind: offer
    gpus: [H800]
    unit: hour
    price: 28
)",
                                         "zh.yaml", d);
  INFO(d.str());
  REQUIRE(c.has_value());
  CHECK(d.empty());
  CHECK(c->plans[0].name_zh == "H800 按天计费");
  CHECK(c->plans[0].add_ons[0].name_zh == "RDMA 网络");
  CHECK(c->plans[0].add_ons[0].note_zh == "已含");
  CHECK(c->plans[1].name_zh.empty());  // none given: the quote writes the name as is
  CHECK(c->cpu_instances[0].name_zh == "CPU 调试实例");
  // The seed vendor's own offers carry their Chinese names.
  for (const pricing::Plan& p : shipped("seed-vendor").plans)
    if (p.kind == pricing::PriceKind::Offer) CHECK_MESSAGE(!p.name_zh.empty(), p.id);
}

TEST_CASE("pricing: catalog diagnostics name file:line:col, key, value and a hint") {
  scenario::Diagnostics ok;
  CHECK(io::parse_price_catalog(kMinimal, "min.yaml", ok).has_value());
  CHECK(ok.empty());

  CHECK(
      first_error(
          "currency: CNY\nplans:\n  - id: p\n    kind: offer\n    gpus: [A100-80G]\n    unit: hour\n    price: 6.8\n    prise: 7\n") ==
      "bad.yaml:8:5: error: plans[0].prise: unknown key 'prise' (hint: did you mean 'price'?)");
  CHECK(
      first_error(
          "currency: CNY\nplans:\n  - id: p\n    kind: offer\n    gpus: [A100-80G]\n    unit: hour\n    price: 6.8 CNY\n") ==
      "bad.yaml:7:12: error: plans[0].price: expected a decimal price with at most 6 decimals, got '6.8 CNY' "
      "(hint: write e.g. 4.916 or \"57,600\" (no currency sign; the currency is a separate key))");
  CHECK(
      first_error(
          "currency: CNY\nplans:\n  - id: p\n    kind: offer\n    gpus: [A100-80G]\n    unit: weekly\n    price: 6.8\n") ==
      "bad.yaml:6:11: error: plans[0].unit: unknown value 'weekly' (hint: expected one of: hour, day, month, year)");
  CHECK(
      first_error(
          "currency: CNY\nplans:\n  - id: p\n    kind: offer\n    gpus: [A100-80G]\n    unit: hour\n    price: 1.89\n    currency: USD\n") ==
      "bad.yaml:3:5: error: plans[0].currency: priced in USD but the catalog states no USD/CNY rate "
      "(hint: add it under fx: (from, to, rate, note))");
  CHECK(first_error("currency: cny\nplans: []\n") ==
        "bad.yaml:1:11: error: currency: expected an ISO 4217 currency code, got 'cny' (hint: write e.g. CNY or USD)");
  CHECK(
      first_error(
          "currency: CNY\nplans:\n  - id: p\n    kind: offer\n    gpus: [A100-80G]\n    unit: hour\n    price: 1\n  - id: p\n    kind: offer\n    gpus: [A100-80G]\n    unit: hour\n    price: 2\n") ==
      "bad.yaml:8:9: error: plans[1].id: duplicate plan id 'p' (hint: plan ids must be unique in a catalog)");
  CHECK(first_error("currency: CNY\nplans: [\n").find("bad.yaml:3:1: error: malformed YAML") == 0);
  scenario::Diagnostics d;
  CHECK_FALSE(io::load_price_catalog("seed-vendr", FLOPCAST_DATA_DIR, d).has_value());
  CHECK(d.items().at(0).message == "unknown price catalog 'seed-vendr'");
  CHECK(d.items().at(0).hint ==
        "did you mean 'seed-vendor'? (known catalogs: seed-vendor, public-cloud, china-rental-2026)");
}

TEST_CASE("pricing: scenario reliability and pricing blocks") {
  const YAML::Node rel = YAML::Load(
      "failures_per_gpu_hour: 1.97e-5\nrestart_time: 90s\ncheckpoint_interval: 30min\nasync_checkpoint: true\n"
      "storage_write: 5 GB/s\nprovisioning: 3d\ndebug_phase: 2.5 h\ntrials: 500\nseed: 7\n");
  scenario::Diagnostics d;
  scenario::LocationMap locs;
  job::ReliabilitySpec r;
  io::parse_reliability_block(rel, "s.yaml", d, r, locs);
  INFO(d.str());
  CHECK(d.empty());
  CHECK(r.restart_time.ns == 90'000'000'000);
  CHECK(r.checkpoint_interval.ns == 1800'000'000'000);
  CHECK(r.storage_write.bytes_per_s == doctest::Approx(5e9));
  CHECK(r.provisioning.ns == 3 * 24 * kHourNs);
  CHECK(r.debug_phase.ns == 9000'000'000'000);
  CHECK(r.trials == 500);
  CHECK(r.seed == 7);
  CHECK(locs.count("reliability.restart_time") == 1);

  scenario::Diagnostics bad;
  io::parse_reliability_block(YAML::Load("restart_tme: 90s\nrestart_time: soon\n"), "s.yaml", bad, r, locs);
  REQUIRE(bad.items().size() == 2);
  CHECK(bad.items()[0].str() ==
        "s.yaml:1:1: error: reliability.restart_tme: unknown key 'restart_tme' (hint: did you mean 'restart_time'?)");
  CHECK(bad.items()[1].str() ==
        "s.yaml:2:15: error: reliability.restart_time: expected a duration >= 0, got 'soon' "
        "(hint: write e.g. \"90s\", \"10min\", \"2.5 h\" or \"3d\")");

  pricing::PricingSpec p;
  scenario::Diagnostics pd;
  io::parse_pricing_block(YAML::Load("catalog: seed-vendor\nplans: [a100-80g-hourly]\ncurrency: USD\nnew_user: true\n"
                                     "electricity_per_kwh: 0.6 CNY\npue: 1.25\n"),
                          "s.yaml", pd, p, locs);
  INFO(pd.str());
  CHECK(pd.empty());
  CHECK(p.catalog == "seed-vendor");
  CHECK(p.plans == std::vector<std::string>{"a100-80g-hourly"});
  CHECK(p.currency == "USD");
  CHECK(p.new_user);
  CHECK(p.electricity_per_kwh == units::PriceRate{600'000, units::Currency::of("CNY")});
  CHECK(p.pue == 1.25);
  scenario::Diagnostics pbad;
  io::parse_pricing_block(YAML::Load("catalog: x\nelectricity_per_kwh: 0.6\n"), "s.yaml", pbad, p, locs);
  REQUIRE(pbad.items().size() == 1);
  CHECK(pbad.items()[0].str() ==
        "s.yaml:2:22: error: pricing.electricity_per_kwh: expected a price per kWh with its currency, got '0.6' "
        "(hint: write e.g. \"0.6 CNY\" or \"0.08 USD\")");
  // The currency words users write: RMB is CNY (ISO 4217), as everywhere an amount is read.
  pricing::PricingSpec rmb;
  scenario::Diagnostics rd;
  io::parse_pricing_block(YAML::Load("catalog: seed-vendor\ncurrency: RMB\nelectricity_per_kwh: 0.6 RMB\n"), "s.yaml",
                          rd, rmb, locs);
  INFO(rd.str());
  CHECK(rd.empty());
  CHECK(rmb.currency == "CNY");
  CHECK(rmb.electricity_per_kwh == units::PriceRate{600'000, units::Currency::of("CNY")});
  pricing::PricingSpec bare;
  scenario::Diagnostics bd;
  io::parse_pricing_block(YAML::Load("public-cloud"), "s.yaml", bd, bare, locs);
  CHECK(bare.catalog == "public-cloud");
}

TEST_CASE("pricing: energy assumptions from the catalog and the scenario") {
  const pricing::PriceCatalog seed = shipped("seed-vendor");
  pricing::PricingSpec spec;
  // Seed catalog: 0.65 CNY/kWh (assumption, no source), PUE 1.58.
  job::EnergySpec e = pricing::energy_spec(seed, spec);
  CHECK(e.price_per_kwh == units::PriceRate{650'000, units::Currency::of("CNY")});
  CHECK(e.pue == 1.58);
  spec.pue = 1.25;
  spec.electricity_per_kwh = units::PriceRate{500'000, units::Currency::of("CNY")};
  e = pricing::energy_spec(seed, spec);
  CHECK(e.pue == 1.25);
  CHECK(e.price_per_kwh.micro == 500'000);
}

TEST_CASE("pricing: a scenario's reliability and pricing blocks through the scenario loader, billed") {
  scenario::Diagnostics cd;
  const auto cat = io::load_catalog(FLOPCAST_DATA_DIR, cd);
  REQUIRE_MESSAGE(cat.has_value(), cd.str());
  scenario::Diagnostics d;
  const auto s = io::parse_scenario(R"(name: e2e
model: llama3-8b
cluster: {gpu: H800, gpus: 64, gpus_per_node: 8, fabric: hgx-h800-roce200}
parallel: {tp: 2, pp: 1, dp: 32, zero: 1, micro_batch: 1, global_batch: 512, recompute: selective}
precision: bf16
training: {tokens: 1T}
reliability:
  restart_time: 90s
  checkpoint_interval: 30min
  storage_write: 5 GB/s
  debug_phase: 2.5 h
  trials: 50
pricing:
  catalog: seed-vendor
  plans: [h800-daily]
)",
                                    "e2e.yaml", *cat, d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  CHECK(s->has_reliability);
  CHECK(s->has_pricing);
  CHECK(s->reliability.restart_time.ns == 90'000'000'000);

  scenario::Diagnostics pd;
  const auto prices = io::load_price_catalog(s->pricing.catalog, FLOPCAST_DATA_DIR, pd);
  REQUIRE(prices.has_value());
  job::JobInput in;
  in.step_time = units::Time::from_seconds(10);  // stands in for the simulated step
  in.steps = 100'000;                            // 1,000,000 s = 277.8 h without failures
  in.gpus = s->cluster.gpus;
  in.params = 8.03e9;
  in.gpu_tdp_w = 700;
  in.reliability = s->reliability;
  in.energy = pricing::energy_spec(*prices, s->pricing);
  const job::JobOutcome o = job::simulate_job(in);
  REQUIRE(o.ok());
  pricing::CompareOptions opt;
  opt.plan_ids = s->pricing.plans;
  const pricing::BillUsage p50 = pricing::usage_of_trial(o.result, o.result.p50_trial, s->pricing.checkpoints_kept);
  const pricing::PlanComparison cmp = pricing::compare_plans(*prices, {"H800"}, p50, p50, opt);
  REQUIRE(cmp.errors.empty());
  REQUIRE(cmp.rows.size() == 1);
  // GPU time: started days x 64 GPUs x 680 CNY; debug: 3 started hours x 0.40 CNY.
  const std::int64_t days = (o.result.gpu_span_p50.ns + 24 * kHourNs - 1) / (24 * kHourNs);
  CHECK(days >= 12);  // 277.8 h of work alone is 11.6 days
  CHECK(cmp.rows[0].p50.total.minor == days * 64 * 68000 + 120);
  CHECK(o.result.energy.cost.currency.str() == "CNY");
}

TEST_CASE("pricing: every plan states its price kind, spot plans their interruptions") {
  // A missing or unknown kind is refused with file:line:col and the fix.
  const std::string no_kind =
      "currency: CNY\nplans:\n  - id: p\n    gpus: [A100-80G]\n    unit: hour\n    price: 6.8\n";
  const std::string e1 = first_error(no_kind);
  CHECK(e1.find("bad.yaml:3:5: error: plans[0].kind: missing 'kind'") == 0);
  CHECK(e1.find("offer") != std::string::npos);
  const std::string e2 = first_error(
      "currency: CNY\nplans:\n  - id: p\n    kind: ofer\n    gpus: [A100-80G]\n    unit: hour\n    price: 6.8\n");
  CHECK(e2.find("bad.yaml:4:11: error: plans[0].kind: unknown value 'ofer'") == 0);
  CHECK(e2.find("did you mean 'offer'?") != std::string::npos);
  const std::string e3 = first_error(
      "currency: CNY\nplans:\n  - id: p\n    kind: spot\n    gpus: [A100-80G]\n    unit: hour\n    price: 6.8\n");
  CHECK(e3.find("plans[0].spot: a spot plan needs its interruptions") != std::string::npos);
  const std::string e4 = first_error(
      "currency: CNY\nplans:\n  - id: p\n    kind: offer\n    spot: {interruptions_per_hour: 0.001, source: x}\n"
      "    gpus: [A100-80G]\n    unit: hour\n    price: 6.8\n");
  CHECK(e4.find("only a spot plan has 'spot:'") != std::string::npos);

  scenario::Diagnostics d;
  const auto c = io::parse_price_catalog(
      "currency: CNY\nplans:\n  - id: p\n    kind: spot\n    spot: {interruptions_per_hour: 0.0003, restart: 30min, "
      "source: \"a cited rate\"}\n    gpus: [A100-80G]\n    unit: hour\n    price: 6.8\n",
      "ok.yaml", d);
  REQUIRE_MESSAGE(c, d.str());
  REQUIRE(c->plans.size() == 1);
  CHECK(c->plans[0].kind == pricing::PriceKind::Spot);
  CHECK(c->plans[0].interruptions_per_hour == doctest::Approx(0.0003));
  CHECK(c->plans[0].interruption_restart.ns == 1800LL * 1'000'000'000);
  CHECK(c->plans[0].interruption_source == "a cited rate");
}

TEST_CASE("pricing: the shipped catalogs say what each price is") {
  // The DeepSeek H800 figure is an assumption in a paper, not an offer; spot prices are spot.
  const pricing::PriceCatalog pub = shipped("public-cloud");
  for (const auto& p : pub.plans) {
    if (p.id == "deepseek-h800-assumption") CHECK(p.kind == pricing::PriceKind::Assumption);
    if (p.id.find("spot") != std::string::npos) {
      CHECK(p.kind == pricing::PriceKind::Spot);
      CHECK(p.interruptions_per_hour > 0);
      CHECK_FALSE(p.interruption_source.empty());
    }
    CHECK(pricing::billable_by_default(p.kind) ==
          (p.kind != pricing::PriceKind::Assumption && p.kind != pricing::PriceKind::Spot &&
           p.kind != pricing::PriceKind::Competitor));
  }
  const pricing::PriceCatalog seed = shipped("seed-vendor");
  for (const auto& p : seed.plans) CHECK((p.kind == pricing::PriceKind::Competitor) == p.competitor);
  CHECK(seed.provider.find("seed vendor") == std::string::npos);  // customer-facing words only
}

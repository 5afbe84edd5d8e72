#include <doctest/doctest.h>

#include "flopcast/pricing/bill.hpp"

using namespace flopcast;

namespace {

const units::Currency kCny = units::Currency::of("CNY");
const units::Currency kUsd = units::Currency::of("USD");
constexpr std::int64_t kHourNs = 3'600'000'000'000;

units::PriceRate cny(const char* s) { return units::PriceRate{*units::parse_micro_units(s), kCny}; }
units::Money cny_money(const char* s) { return units::Money{*units::parse_minor_units(s), kCny}; }

pricing::Plan plan(std::string id, pricing::BillingUnit unit, pricing::PriceBasis basis, units::PriceRate price) {
  pricing::Plan p;
  p.id = std::move(id);
  p.name = p.id;
  p.gpus = {"A100-80G"};
  p.unit = unit;
  p.basis = basis;
  p.price = price;
  return p;
}

/// The seed vendor's A100 prices as stated (SEED), plus the competitor's IDC quote.
pricing::PriceCatalog seed_like() {
  pricing::PriceCatalog c;
  c.name = "test";
  c.currency = kCny;
  c.fx.push_back(units::FxRate{kUsd, kCny, 7200000, "assumption, not sourced"});
  c.plans.push_back(plan("hourly", pricing::BillingUnit::Hour, pricing::PriceBasis::PerGpu, cny("6.8")));
  c.plans.push_back(plan("daily", pricing::BillingUnit::Day, pricing::PriceBasis::PerGpu, cny("1200")));
  c.plans.push_back(plan("monthly", pricing::BillingUnit::Month, pricing::PriceBasis::PerNode, cny("57600")));
  pricing::Plan idc = plan("idc", pricing::BillingUnit::Month, pricing::PriceBasis::PerNode, cny("96000"));
  idc.deposit = cny_money("30000");
  c.plans.push_back(idc);
  pricing::Plan usd =
      plan("usd-hourly", pricing::BillingUnit::Hour, pricing::PriceBasis::PerGpu, units::PriceRate{1890000, kUsd});
  c.plans.push_back(usd);
  c.cpu_instances.push_back(pricing::CpuInstance{"cpu", "CPU debug instance", cny("0.4"), 1, "", "", ""});
  c.new_user_credit = pricing::Credit{cny_money("10"), "SEED", ""};
  return c;
}

pricing::BillUsage run(std::int64_t span_ns, std::int64_t gpus = 8) {
  pricing::BillUsage u;
  u.gpu_span = units::Time{span_ns};
  u.gpus = gpus;
  return u;
}

const pricing::LineItem* find(const pricing::Bill& b, pricing::LineKind k) {
  for (const auto& i : b.items)
    if (i.kind == k) return &i;
  return nullptr;
}

}  // namespace

TEST_CASE("pricing: a 100-hour run on 8 GPUs under hourly, daily and monthly rounding") {
  const pricing::PriceCatalog c = seed_like();
  const pricing::BillUsage u = run(100 * kHourNs);

  // Hourly: 8 GPU x 100 h x 6.80 CNY = 5,440.00 CNY; nothing rounded up.
  const pricing::Bill h = pricing::bill_plan(c, *c.find_plan("hourly"), u);
  REQUIRE(h.ok());
  CHECK(h.total.minor == 544000);
  CHECK(h.items[0].quantity == "8 GPU x 100 hour");
  CHECK(h.items[0].unit_price == "6.80 CNY / GPU-hour");
  CHECK(h.billed_gpu_time.ns == 100 * kHourNs);
  CHECK(h.items.size() == 1);

  // Daily: 100 h = 4.17 days -> 5 started days: 8 x 5 x 1,200 = 48,000.00 CNY. Of it, 20 h
  // are billed but unused: 48,000 x 20 / 120 = 8,000.00 (informational).
  const pricing::Bill d = pricing::bill_plan(c, *c.find_plan("daily"), u);
  CHECK(d.total.minor == 4800000);
  CHECK(d.items[0].quantity == "8 GPU x 5 day");
  REQUIRE(d.items.size() == 2);
  CHECK(d.items[1].kind == pricing::LineKind::Info);
  CHECK_FALSE(d.items[1].in_total);
  CHECK(d.items[1].amount.minor == 800000);

  // Monthly per node: 1 node x 1 month (720 h) x 57,600 = 57,600.00 CNY; 620 h unused:
  // 57,600 x 620 / 720 = 49,600.00.
  const pricing::Bill m = pricing::bill_plan(c, *c.find_plan("monthly"), u);
  CHECK(m.total.minor == 5760000);
  CHECK(m.items[0].quantity == "1 node x 1 month");
  CHECK(m.items[1].amount.minor == 4960000);

  // One second more starts a new hour: 101 h x 8 x 6.80 = 5,494.40 CNY.
  CHECK(pricing::bill_plan(c, *c.find_plan("hourly"), run(100 * kHourNs + 1'000'000'000)).total.minor == 549440);
}

TEST_CASE("pricing: prorated billing with a sub-cent rate rounds once") {
  pricing::PriceCatalog c;
  c.name = "aws";
  c.currency = kUsd;
  // AWS Capacity Blocks p5: $4.916 per GPU-hour (AWS Capacity Blocks pricing page), billed here
  // prorated for the test.
  pricing::Plan p =
      plan("cb", pricing::BillingUnit::Hour, pricing::PriceBasis::PerGpu, units::PriceRate{4916000, kUsd});
  p.rounding = pricing::Rounding::Prorated;
  c.plans.push_back(p);
  // 100.5 h x 8 x 4.916 = 3,952.464 -> 3,952.46 USD.
  const pricing::Bill b = pricing::bill_plan(c, c.plans[0], run(100 * kHourNs + kHourNs / 2));
  CHECK(b.total.minor == 395246);
  CHECK(b.items[0].quantity == "8 GPU x 100.5 hour");
  // Started-hour rounding instead: 101 h x 8 x 4.916 = 3,972.128 -> 3,972.13 USD.
  c.plans[0].rounding = pricing::Rounding::StartedUnit;
  CHECK(pricing::bill_plan(c, c.plans[0], run(100 * kHourNs + kHourNs / 2)).total.minor == 397213);
}

TEST_CASE("pricing: deposit, credit, debug phase and restart idle time") {
  const pricing::PriceCatalog c = seed_like();
  pricing::BillUsage u = run(100 * kHourNs);
  u.restart_idle = units::Time{2 * kHourNs};
  u.debug_phase = units::Time{2 * kHourNs + kHourNs / 2};

  // IDC: 96,000.00 for one node-month; the 30,000.00 deposit is refundable and apart.
  const pricing::Bill idc = pricing::bill_plan(c, *c.find_plan("idc"), run(100 * kHourNs));
  CHECK(idc.total.minor == 9600000);
  CHECK(idc.deposit.minor == 3000000);

  // Hourly for a new user: GPU 5,440.00 + debug 3 started hours x 0.40 = 1.20 - credit 10.00
  // = 5,431.20 CNY. Idle restarts: 2 h of 100 h of the GPU time = 5,440 x 2/100 = 108.80
  // (informational, inside the GPU time).
  pricing::BillOptions opt;
  opt.new_user = true;
  const pricing::Bill h = pricing::bill_plan(c, *c.find_plan("hourly"), u, opt);
  REQUIRE(h.ok());
  CHECK(h.total.minor == 543120);
  CHECK(h.deposit.minor == 0);
  const pricing::LineItem* debug = find(h, pricing::LineKind::DebugPhase);
  REQUIRE(debug != nullptr);
  CHECK(debug->quantity == "3 hour");
  CHECK(debug->amount.minor == 120);
  const pricing::LineItem* credit = find(h, pricing::LineKind::Credit);
  REQUIRE(credit != nullptr);
  CHECK(credit->amount.minor == -1000);
  const pricing::LineItem* idle = find(h, pricing::LineKind::Info);
  REQUIRE(idle != nullptr);
  CHECK(idle->label == "of which idle during restarts");
  CHECK(idle->amount.minor == 10880);
  // Without the new-user flag no credit is taken: 5,441.20.
  CHECK(pricing::bill_plan(c, *c.find_plan("hourly"), u).total.minor == 544120);

  // The credit never makes a bill negative: 1 GPU for 1 h = 6.80, credit capped at 6.80.
  const pricing::Bill tiny = pricing::bill_plan(c, *c.find_plan("hourly"), run(kHourNs, 1), opt);
  CHECK(tiny.total.minor == 0);
  CHECK(find(tiny, pricing::LineKind::Credit)->amount.minor == -680);
  // A 10-minute debug phase pays the 1 h minimum: 0.40.
  pricing::BillUsage short_debug = run(kHourNs, 1);
  short_debug.debug_phase = units::Time{kHourNs / 6};
  CHECK(find(pricing::bill_plan(c, *c.find_plan("hourly"), short_debug), pricing::LineKind::DebugPhase)->amount.minor ==
        40);
}

TEST_CASE("pricing: one currency per bill, converted at the catalog's stated rate") {
  const pricing::PriceCatalog c = seed_like();
  // $1.89 x 8 GPU x 100 h = $1,512.00 -> x 7.2 = 10,886.40 CNY.
  const pricing::Bill b = pricing::bill_plan(c, *c.find_plan("usd-hourly"), run(100 * kHourNs));
  REQUIRE(b.ok());
  CHECK(b.currency == kCny);
  CHECK(b.total.minor == 1088640);
  CHECK(b.items[0].note == "1,512.00 USD converted at 1 USD = 7.2 CNY");
  // The CNY hourly plan billed in USD: 5,440.00 / 7.2 = 755.5556 -> 755.56 USD.
  pricing::BillOptions usd;
  usd.currency = kUsd;
  CHECK(pricing::bill_plan(c, *c.find_plan("hourly"), run(100 * kHourNs), usd).total.minor == 75556);
  // No stated rate to EUR: an error, not a guess.
  pricing::BillOptions eur;
  eur.currency = units::Currency::of("EUR");
  const pricing::Bill e = pricing::bill_plan(c, *c.find_plan("hourly"), run(100 * kHourNs), eur);
  CHECK_FALSE(e.ok());
  CHECK(e.errors[0] == "no exchange rate between CNY and EUR in catalog 'test'");
}

TEST_CASE("pricing: minimum term, discount, add-ons, storage, partial nodes") {
  pricing::PriceCatalog c = seed_like();
  // Monthly 4,500 CNY per GPU-month, 10 % off from 3 months.
  pricing::Plan m = plan("m", pricing::BillingUnit::Month, pricing::PriceBasis::PerGpu, cny("4500"));
  m.discount_bp = 1000;
  m.discount_min_units = 3;
  // 2,000 h -> 3 started months (2,160 h): 8 x 3 x 4,500 = 108,000 - 10 % = 97,200.00.
  const pricing::Bill b = pricing::bill_plan(c, m, run(2000 * kHourNs));
  CHECK(b.total.minor == 9720000);
  CHECK(find(b, pricing::LineKind::Discount)->amount.minor == -1080000);
  // 1,000 h -> 2 months: no discount: 72,000.00.
  CHECK(pricing::bill_plan(c, m, run(1000 * kHourNs)).total.minor == 7200000);
  // Minimum term 3 days on a daily plan: a 100 h run (5 days) pays 5; a 10 h run pays 3:
  // 8 x 3 x 1,200 = 28,800.00.
  pricing::Plan d = *c.find_plan("daily");
  d.minimum_units = 3;
  const pricing::Bill short_run = pricing::bill_plan(c, d, run(10 * kHourNs));
  CHECK(short_run.total.minor == 2880000);
  CHECK(short_run.items[0].note == "minimum term 3 day");

  // H800 daily 680 CNY per GPU-day "including 200G RDMA" (SEED): the RDMA line is
  // zero. 100 h -> 5 days x 8 x 680 = 27,200.00.
  pricing::Plan h800 = plan("h800", pricing::BillingUnit::Day, pricing::PriceBasis::PerGpu, cny("680"));
  h800.add_ons.push_back(
      pricing::AddOn{"rdma", "200G RDMA", pricing::AddOnKind::PerGpuUnit, cny("0"), true, false, "", "", ""});
  // Storage at 0.30 CNY per GB-month (test figure): 2 checkpoints of 14 GB = 28 GB for 100 h:
  // 28 x 0.30 x 100 / 720 = 1.1667 -> 1.17.
  h800.add_ons.push_back(pricing::AddOn{"disk", "Checkpoint storage", pricing::AddOnKind::StorageGbMonth, cny("0.3"),
                                        false, false, "", "", ""});
  // A per-node RDMA option at 50 CNY per node-day, billed only when chosen: 1 node x 5 x 50.
  h800.add_ons.push_back(
      pricing::AddOn{"rdma400", "400G RDMA", pricing::AddOnKind::PerNodeUnit, cny("50"), false, true, "", "", ""});
  pricing::BillUsage u = run(100 * kHourNs);
  u.storage = units::Bytes{28e9};
  const pricing::Bill hb = pricing::bill_plan(c, h800, u);
  CHECK(hb.total.minor == 2720000 + 117);
  CHECK(find(hb, pricing::LineKind::AddOn)->quantity == "included");
  CHECK(find(hb, pricing::LineKind::Storage)->amount.minor == 117);
  pricing::BillOptions with_rdma;
  with_rdma.add_ons = {"rdma400"};
  CHECK(pricing::bill_plan(c, h800, u, with_rdma).total.minor == 2720000 + 117 + 25000);

  // 12 GPUs on per-node (8) pricing take 2 nodes: 2 x 57,600 = 115,200.00, with a note.
  const pricing::Bill nodes = pricing::bill_plan(c, *c.find_plan("monthly"), run(100 * kHourNs, 12));
  CHECK(nodes.total.minor == 11520000);
  REQUIRE(nodes.notes.size() == 1);
  CHECK(nodes.notes[0] == "12 GPUs take 2 nodes of 8 in plan 'monthly': the last node is partly idle but billed whole");
}

TEST_CASE("pricing: a mix of monthly units and hourly overrun") {
  pricing::PriceCatalog c = seed_like();
  const pricing::Plan m = plan("m", pricing::BillingUnit::Month, pricing::PriceBasis::PerGpu, cny("4500"));
  const pricing::Plan h = plan("h", pricing::BillingUnit::Hour, pricing::PriceBasis::PerGpu, cny("10"));
  // 1 committed month (720 h) + 80 h overflow for an 800 h run on 8 GPUs:
  // 8 x 4,500 = 36,000.00 + 8 x 80 x 10.00 = 6,400.00 -> 42,400.00.
  const pricing::Bill b = pricing::bill_mix(c, m, 1, h, run(800 * kHourNs));
  REQUIRE(b.ok());
  CHECK(b.total.minor == 4240000);
  CHECK(b.items[0].label == "GPU time, m (committed)");
  CHECK(b.items[1].label == "GPU time, h (overflow)");
  CHECK(b.items[1].quantity == "8 GPU x 80 hour");
  CHECK(b.option_id == "m+h");
  CHECK(b.billed_gpu_time.ns == 800 * kHourNs);
  // A run that ends inside the committed month still pays it: 36,000.00.
  CHECK(pricing::bill_mix(c, m, 1, h, run(500 * kHourNs)).total.minor == 3600000);
  // 1,000 h (a P90 overrun): 36,000 + 8 x 280 x 10 = 22,400 -> 58,400.00.
  CHECK(pricing::bill_mix(c, m, 1, h, run(1000 * kHourNs)).total.minor == 5840000);
}

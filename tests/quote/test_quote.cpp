#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <string>

#include "flopcast/job/job_simulation.hpp"
#include "flopcast/quote/quote.hpp"
#include "flopcast/quote/quote_render.hpp"
#include "flopcast/quote/quote_text.hpp"
#include "flopcast/units/format.hpp"

using namespace flopcast;

namespace {

const units::Currency kCny = units::Currency::of("CNY");
const units::Currency kUsd = units::Currency::of("USD");

pricing::PriceCatalog catalog() {
  pricing::PriceCatalog c;
  c.name = "test-vendor";
  c.provider = "Test Vendor";
  c.currency = kCny;
  c.date = "2026";
  c.source = "SEED";
  c.fx.push_back(units::FxRate{kUsd, kCny, 7'200'000, "assumption"});
  pricing::Plan h;
  h.id = "a100-hourly";
  h.name = "A100 hourly";
  h.gpus = {"A100-80G"};
  h.unit = pricing::BillingUnit::Hour;
  h.price = units::PriceRate{6'800'000, kCny};
  c.plans.push_back(h);
  pricing::Plan m;
  m.id = "a100-monthly";
  m.name = "A100 node monthly";
  m.gpus = {"A100-80G"};
  m.unit = pricing::BillingUnit::Month;
  m.basis = pricing::PriceBasis::PerNode;
  m.price = units::PriceRate{57'600'000'000, kCny};
  m.deposit = units::Money{3'000'000, kCny};
  c.plans.push_back(m);
  return c;
}

/// 8 A100 training a 7B model for 1,000 steps of 360 s (100 h), Llama 3 failure rate, 3 trials.
job::JobInput llama2_7b_job() {
  job::JobInput j;
  j.step_time = units::Time::from_seconds(360);
  j.steps = 1000;
  j.gpus = 8;
  j.params = 7e9;
  j.gpu_tdp_w = 400;
  j.node_power_w = 6500;
  j.reliability.trials = 3;
  return j;
}

/// A quote of llama2_7b_job().
quote::QuoteInput input(const pricing::PriceCatalog& c) {
  const job::JobInput j = llama2_7b_job();
  const job::JobOutcome o = job::simulate_job(j);
  REQUIRE(o.ok());
  quote::QuoteInput in;
  in.customer = "A & B <Lab> | Ltd";
  in.issue_date = "2026-07-01";
  in.job.model_name = "Llama 2 7B";
  in.job.params = 7e9;
  in.job.tokens = 2e11;
  in.job.gpu_name = "A100-80G";
  in.job.gpus = 8;
  in.job.step_time = j.step_time;
  in.job.mfu = 0.412;
  in.run = o.result;
  in.catalog = quote::QuoteCatalog::of(c);
  const pricing::BillUsage p50 = pricing::usage_of_trial(o.result, o.result.p50_trial, 2);
  const pricing::BillUsage p90 = pricing::usage_of_trial(o.result, o.result.p90_trial, 2);
  in.plans = pricing::compare_plans(c, {"A100-80G"}, p50, p90);
  return in;
}

}  // namespace

TEST_CASE("quote: FNV-1a 64 reference vectors and dates") {
  // Test vectors of the FNV reference code (isthe.com/chongo/tech/comp/fnv, test_fnv.c).
  CHECK(quote::fnv1a64("") == 0xcbf29ce484222325ULL);
  CHECK(quote::fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(quote::fnv1a64("foobar") == 0x85944171f73967e8ULL);
  // Calendar arithmetic: 2026 is not a leap year, 2028 is.
  CHECK(quote::add_days("2026-01-31", 30) == "2026-03-02");
  CHECK(quote::add_days("2028-02-28", 1) == "2028-02-29");
  CHECK(quote::add_days("2026-12-15", 30) == "2027-01-14");
  CHECK_FALSE(quote::add_days("2026-02-30", 1).has_value());
  CHECK_FALSE(quote::add_days("1 July 2026", 1).has_value());
}

TEST_CASE("quote: same inputs give the same quote, any change gives a new id") {
  const pricing::PriceCatalog c = catalog();
  const quote::Quote a = quote::make_quote(input(c));
  const quote::Quote b = quote::make_quote(input(c));
  REQUIRE(a.ok());
  CHECK(a.id.size() == 18);
  CHECK(a.id.rfind("Q-", 0) == 0);
  CHECK(a.id == b.id);
  CHECK(quote::render_quote_markdown(a) == quote::render_quote_markdown(b));
  CHECK(quote::render_quote_html(a) == quote::render_quote_html(b));
  quote::QuoteInput other = input(c);
  other.customer = "Someone else";
  CHECK(quote::make_quote(other).id != a.id);
  quote::QuoteInput later = input(c);
  later.issue_date = "2026-07-02";
  CHECK(quote::make_quote(later).id != a.id);
  CHECK(a.valid_until == "2026-07-31");
  quote::QuoteInput bad = input(c);
  bad.issue_date = "2026-13-01";
  CHECK_FALSE(quote::make_quote(bad).ok());
}

TEST_CASE("quote: content of the Markdown and HTML renderings") {
  const pricing::PriceCatalog c = catalog();
  const quote::Quote q = quote::make_quote(input(c));
  REQUIRE(q.recommended.has_value());
  const pricing::ComparisonRow& best = q.input.plans.rows[*q.recommended];
  // 8 GPUs for ~100 h: hourly 8 x 101+ h x 6.80 ~ 5,500 CNY beats one node-month (57,600).
  CHECK(best.option.id == "a100-hourly");
  CHECK(q.input.issuer == "Test Vendor");
  const std::string md = quote::render_quote_markdown(q);
  CHECK(md.find("# Training quote " + q.id) == 0);
  CHECK(md.find("| Valid until | 2026-07-31 |") != std::string::npos);
  CHECK(md.find("| Customer | A & B <Lab> \\| Ltd |") != std::string::npos);  // pipe escaped
  CHECK(md.find("| Item | Quantity | Unit price | Amount (CNY) | Note |") != std::string::npos);
  CHECK(md.find("| **Total before tax (P50)** |  |  | **" + best.p50.total.amount_str() + "** |  |") !=
        std::string::npos);
  CHECK(md.find("| A100 node monthly | 57,600.00 | 57,600.00 | 30,000.00 |") != std::string::npos);
  CHECK(md.find("| **A100 hourly (recommended)** | **" + best.p50.total.amount_str()) != std::string::npos);
  // Every MFU names how it counts FLOPs (flopcast's: attention over every key).
  CHECK(md.find("MFU 41.2 % (simulated; model FLOPs, full attention)") != std::string::npos);
  CHECK(md.find("MFU counts model FLOPs with attention over every key (not halved for the causal mask)") !=
        std::string::npos);
  CHECK(md.find("Failures: 1.97e-05 per GPU-hour (Llama 3 405B") != std::string::npos);
  // Customer-facing words: no catalog key, no source shorthand, no plan id.
  CHECK(md.find("test-vendor") == std::string::npos);
  CHECK(md.find("SEED") == std::string::npos);
  CHECK(md.find("a100-hourly") == std::string::npos);
  CHECK(md.find("Prices: the price list of Test Vendor, dated 2026") != std::string::npos);
  CHECK(md.find("7 B parameters") == std::string::npos);  // counts print as "7.00 B"
  CHECK(md.find("Llama 2 7B (7.00 B parameters)") != std::string::npos);

  const std::string html = quote::render_quote_html(q);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<td>A &amp; B &lt;Lab&gt; | Ltd</td>") != std::string::npos);
  CHECK(html.find("@page { size: A4;") != std::string::npos);
  CHECK(html.find("http") == std::string::npos);  // self-contained: no external resources
  CHECK(html.find("<tr class=\"strong\">") != std::string::npos);
  CHECK(html.substr(html.size() - 8) == "</html>\n");
}

TEST_CASE("quote: the issuer never recommends a competitor's cheaper price") {
  pricing::PriceCatalog c = catalog();
  pricing::Plan rival;
  rival.id = "rival-hourly";
  rival.name = "Rival cloud hourly";
  rival.gpus = {"A100-80G"};
  rival.unit = pricing::BillingUnit::Hour;
  rival.price = units::PriceRate{1'000'000, kCny};  // 1 CNY/GPU-h: far below the issuer's 6.80
  rival.competitor = true;
  c.plans.push_back(rival);
  const quote::Quote q = quote::make_quote(input(c));
  REQUIRE(q.input.plans.cheapest.has_value());
  CHECK(q.input.plans.rows[*q.input.plans.cheapest].option.id == "rival-hourly");
  REQUIRE(q.recommended.has_value());
  CHECK(q.input.plans.rows[*q.recommended].option.id == "a100-hourly");
  // Competitors' lower totals are not beside the recommendation unless asked (--compare).
  const std::string md = quote::render_quote_markdown(q);
  CHECK(md.find("Rival cloud hourly") == std::string::npos);
  CHECK(md.find("**A100 hourly (recommended)**") != std::string::npos);
  quote::QuoteInput cmp = input(c);
  cmp.compare = true;
  const std::string with = quote::render_quote_markdown(quote::make_quote(cmp));
  CHECK(with.find("Rival cloud hourly [another provider, for comparison]") != std::string::npos);
  CHECK(with.find("for comparison] (recommended)") == std::string::npos);
}

TEST_CASE("quote: assumptions and spot prices are never recommended as offers") {
  pricing::PriceCatalog c = catalog();
  pricing::Plan guess;
  guess.id = "paper-assumption";
  guess.name = "A paper's rental assumption";
  guess.gpus = {"A100-80G"};
  guess.unit = pricing::BillingUnit::Hour;
  guess.price = units::PriceRate{1'000'000, kCny};
  guess.kind = pricing::PriceKind::Assumption;
  c.plans.push_back(guess);
  pricing::Plan spot = guess;
  spot.id = "spot";
  spot.name = "Spot A100";
  spot.kind = pricing::PriceKind::Spot;
  c.plans.push_back(spot);
  const quote::Quote q = quote::make_quote(input(c));
  REQUIRE(q.recommended.has_value());
  CHECK(q.input.plans.rows[*q.recommended].option.id == "a100-hourly");
  const std::string md = quote::render_quote_markdown(q);
  CHECK(md.find("A paper's rental assumption") == std::string::npos);
  CHECK(md.find("Spot A100") == std::string::npos);
}

TEST_CASE("quote: requirements, tax, terms and a signature block, a miss said on the first page") {
  const pricing::PriceCatalog c = catalog();
  quote::QuoteInput in = input(c);
  in.tax = pricing::Tax{"VAT", 600, "on the total before tax", "Caishui [2016] No. 36"};
  in.requirements.deadline = units::Time::from_seconds(30 * 86400.0);
  in.requirements.budget = units::Money::of_minor(100'000'000, kCny);  // 1M CNY
  const quote::Quote q = quote::make_quote(in);
  REQUIRE(q.recommended);
  CHECK(q.meets());
  const pricing::ComparisonRow& best = q.input.plans.rows[*q.recommended];
  CHECK(q.tax_p50 == quote::tax_on(best.p50.total, 600));
  CHECK(quote::tax_on(units::Money::of_minor(1'000'00, kCny), 600).minor == 6'000);  // 6% of 1,000.00 = 60.00
  CHECK(quote::tax_on(units::Money::of_minor(25, kCny), 600).minor == 2);  // 1.5 minor units round away from zero
  const std::string md = quote::render_quote_markdown(q);
  CHECK(md.find("## Your requirements") != std::string::npos);
  CHECK(md.find("| Deadline | 30.0 days |") != std::string::npos);
  CHECK(md.find("| yes |") != std::string::npos);
  CHECK(md.find("| VAT 6% |") != std::string::npos);
  CHECK(md.find("Total including VAT (P50)") != std::string::npos);
  CHECK(md.find((best.p50.total + q.tax_p50).amount_str()) != std::string::npos);
  CHECK(md.find("Tax: VAT at 6%") != std::string::npos);
  CHECK(md.find("Payment: to be agreed in the contract.") != std::string::npos);
  CHECK(md.find("## Acceptance") != std::string::npos);
  CHECK(md.find("| Signature |  |  |") != std::string::npos);
  CHECK(md.find("does not meet") == std::string::npos);
  // Table headers are <thead>: Qt repeats them on every PDF page.
  const std::string html = quote::render_quote_html(q);
  CHECK(html.find("<thead><tr><th") != std::string::npos);

  // A deadline of one day and a budget of 100 CNY: both missed, and said before anything else.
  quote::QuoteInput tight = in;
  tight.requirements.deadline = units::Time::from_seconds(86400.0);
  tight.requirements.budget = units::Money::of_minor(10'000, kCny);
  const quote::Quote m = quote::make_quote(tight);
  CHECK_FALSE(m.meets());
  const std::string mm = quote::render_quote_markdown(m);
  const auto miss = mm.find("This plan does not meet every requirement. Deadline: asked 1.0 days");
  REQUIRE(miss != std::string::npos);
  CHECK(miss < mm.find("## Your requirements"));
  CHECK(mm.find("Budget (before tax): asked 100.00 CNY") != std::string::npos);
  CHECK(mm.find("| **NO** |") != std::string::npos);
  CHECK(m.id != q.id);
}

TEST_CASE("quote: with the model's band known, requirements are checked on the banded run, not the point one") {
  const pricing::PriceCatalog c = catalog();
  quote::QuoteInput in = input(c);
  const quote::Quote point = quote::make_quote(in);
  REQUIRE(point.recommended);
  const pricing::ComparisonRow& best = point.input.plans.rows[*point.recommended];
  // The point run meets a deadline of exactly its P90 time and a budget of exactly its P90 bill.
  in.requirements.deadline = in.run.wall_p90;
  in.requirements.budget = best.p90.total;
  REQUIRE(quote::make_quote(in).meets());

  // The band's run: the step 1.25x slower, one more day at P90 and every bill 10% higher.
  quote::QuoteBandCheck band;
  band.step_factor = 1.25;
  band.basis = "test band";
  band.wall_p50 = in.run.wall_p50 + units::Time::from_seconds(86400.0);
  band.wall_p90 = in.run.wall_p90 + units::Time::from_seconds(86400.0);
  band.plans = in.plans;
  for (pricing::ComparisonRow& row : band.plans.rows)
    for (pricing::Bill* b : {&row.p50, &row.p90})
      b->total = units::Money::of_minor(b->total.minor * 11 / 10, b->total.currency);
  in.band_check = band;
  const quote::Quote q = quote::make_quote(in);
  REQUIRE(q.requirements.size() == 3);
  CHECK(q.requirements[1].what == "Deadline");
  CHECK_FALSE(q.requirements[1].met);
  CHECK(q.requirements[1].plan ==
        units::format_days_or_hours_half_up(band.wall_p90) + " at P90, slow end of the model band (x1.25)");
  CHECK(q.requirements[2].what == "Budget (before tax)");
  CHECK_FALSE(q.requirements[2].met);
  const units::Money banded = units::Money::of_minor(best.p90.total.minor * 11 / 10, best.p90.total.currency);
  CHECK(q.requirements[2].plan == banded.str() + " at P90, slow end of the model band (x1.25)");
  CHECK_FALSE(q.meets());
  // The bill shown stays the point prediction's; the band moves the check and the id.
  CHECK(q.recommended == point.recommended);
  CHECK(q.id != quote::make_quote(input(c)).id);
  const std::string md = quote::render_quote_markdown(q);
  CHECK(md.find("Requirements are checked at P90 with the step time at x1.25 of the prediction (the slow end of the "
                "model band, its 80% interval): " +
                units::format_days_or_hours_half_up(band.wall_p90) + " of calendar time.") != std::string::npos);

  // At P50 the band's P50 run is the one compared.
  in.requirements.p50 = true;
  in.requirements.deadline = band.wall_p50;
  in.requirements.budget.reset();
  const quote::Quote m = quote::make_quote(in);
  CHECK(m.requirements[1].met);
  CHECK(m.requirements[1].plan ==
        units::format_days_or_hours_half_up(band.wall_p50) + " at P50, median of the model band (x1.25)");
}

TEST_CASE("quote: P50 and P90 of failures and the model band named apart, the band's two ends in the tables") {
  const pricing::PriceCatalog c = catalog();
  quote::QuoteInput in = input(c);
  in.tax = pricing::Tax{"VAT", 600, "", ""};
  // The band: the step at x0.80 (fast end) and x1.25 (slow end) of the prediction; each end's run
  // a day shorter or longer, its bills 10% lower or higher (made up: only the layout is tested).
  auto end = [&](double factor, double days, std::int64_t percent) {
    quote::QuoteBandRun e;
    e.step_factor = factor;
    e.wall_p50 = in.run.wall_p50 + units::Time::from_seconds(86400.0 * days);
    e.wall_p90 = in.run.wall_p90 + units::Time::from_seconds(86400.0 * days);
    e.span_p50 = in.run.gpu_span_p50 + units::Time::from_seconds(86400.0 * days);
    e.span_p90 = in.run.gpu_span_p90 + units::Time::from_seconds(86400.0 * days);
    e.gpu_hours_p50 = in.run.gpu_hours_p50 + 8 * 24 * days;
    e.gpu_hours_p90 = in.run.gpu_hours_p90 + 8 * 24 * days;
    e.plans = in.plans;
    for (pricing::ComparisonRow& row : e.plans.rows)
      for (pricing::Bill* b : {&row.p50, &row.p90})
        b->total = units::Money::of_minor(b->total.minor * percent / 100, b->total.currency);
    return e;
  };
  quote::QuoteBandCheck band;
  band.step_factor = 1.25;
  band.low = end(0.80, -1, 90);
  band.high = end(1.25, 1, 110);
  band.wall_p50 = band.high->wall_p50;
  band.wall_p90 = band.high->wall_p90;
  band.plans = band.high->plans;
  in.band_check = band;
  in.requirements.deadline = units::Time::from_seconds(86400.0 * 365);
  const quote::Quote q = quote::make_quote(in);
  REQUIRE(q.recommended);
  const pricing::ComparisonRow& best = q.input.plans.rows[*q.recommended];
  const pricing::ComparisonRow& lo = band.low->plans.rows[*q.recommended];
  const pricing::ComparisonRow& hi = band.high->plans.rows[*q.recommended];
  const std::string md = quote::render_quote_markdown(q);
  INFO(md);
  // The requirement's figure is the band's slow end at P90, named so, and the duration table's
  // band column ends with it; the fast end is shown too.
  const std::string slow = units::format_days_or_hours_half_up(band.high->wall_p90);
  CHECK(q.requirements[1].plan == slow + " at P90, slow end of the model band (x1.25)");
  CHECK(md.find("|  | P50 | P90 | Model band at P90 |") != std::string::npos);
  CHECK(md.find(" | " + units::format_days_or_hours_half_up(band.low->wall_p90) + " to " + slow + " |") !=
        std::string::npos);
  CHECK(md.find("P50 and P90 spread the run over simulated failures. The model band is the P90 run again with the "
                "step time at the fast and slow ends of the model's 80% interval (x0.80 and x1.25).") !=
        std::string::npos);
  // The bill: P50 and P90 as before, the band's two ends apart, before and after tax.
  CHECK(md.find("|  | P50 (CNY) | P90 (CNY) | Model band at P90 (CNY) |") != std::string::npos);
  CHECK(md.find("| Total before tax | " + best.p50.total.amount_str() + " | " + best.p90.total.amount_str() + " | " +
                lo.p90.total.amount_str() + " to " + hi.p90.total.amount_str() + " |") != std::string::npos);
  const units::Money tax_hi = quote::tax_on(hi.p90.total, 600);
  CHECK(md.find(" to " + (hi.p90.total + tax_hi).amount_str() + "** |") != std::string::npos);
  CHECK(md.find(" Over the model band at P90: " + lo.p90.total.str() + " to " + hi.p90.total.str() + ".") !=
        std::string::npos);
  CHECK(md.find("model uncertainty included") == std::string::npos);
  // The band's ends are inputs of the quote: they change its id.
  quote::QuoteInput other = in;
  other.band_check->low->wall_p90 = other.band_check->low->wall_p90 + units::Time::from_seconds(3600.0);
  CHECK(quote::make_quote(other).id != q.id);
  // In Chinese: the same columns, the band named as such.
  in.language = quote::QuoteLanguage::ZhCn;
  const std::string zh = quote::render_quote_markdown(quote::make_quote(in));
  CHECK(zh.find("|  | P50 | P90 | 模型区间（P90） |") != std::string::npos);
  CHECK(zh.find("（P90，模型区间慢端 ×1.25）") != std::string::npos);
  CHECK(zh.find(" 至 ") != std::string::npos);
}

TEST_CASE("quote language: en and zh-CN (zh_CN read as zh-CN), anything else refused with the accepted values") {
  std::string error;
  CHECK(quote::parse_quote_language("en", error) == quote::QuoteLanguage::En);
  CHECK(quote::parse_quote_language("zh-CN", error) == quote::QuoteLanguage::ZhCn);
  CHECK(quote::parse_quote_language("zh_CN", error) == quote::QuoteLanguage::ZhCn);
  CHECK(error.empty());
  CHECK_FALSE(quote::parse_quote_language("fr", error));
  CHECK(error == "'fr' is not a quote language: use en or zh-CN (did you mean en?)");
  CHECK_FALSE(quote::parse_quote_language("zh", error));
  CHECK(error == "'zh' is not a quote language: use en or zh-CN (did you mean zh-CN?)");
  CHECK_FALSE(quote::parse_quote_language("klingon", error));
  CHECK(error == "'klingon' is not a quote language: use en or zh-CN");
  CHECK(to_string(quote::QuoteLanguage::ZhCn) == "zh-CN");
}

TEST_CASE("quote language: Chinese money with the yen mark and grouping, Chinese dates, units") {
  using L = quote::QuoteLanguage;
  CHECK(quote::quote_money(L::ZhCn, units::Money::of_minor(1'812'345'678, kCny)) == "¥18,123,456.78");
  CHECK(quote::quote_money(L::ZhCn, units::Money::of_minor(-500, kCny)) == "-¥5.00");
  CHECK(quote::quote_money(L::ZhCn, units::Money::of_minor(123'450, kUsd)) ==
        "1,234.50 USD");  // other currencies keep the code
  CHECK(quote::quote_money(L::En, units::Money::of_minor(1'812'345'678, kCny)) == "18,123,456.78 CNY");
  CHECK(quote::quote_amount(L::En, units::Money::of_minor(1'812'345'678, kCny)) == "18,123,456.78");
  CHECK(quote::quote_date(L::ZhCn, "2026-12-01") == "2026年12月1日");
  CHECK(quote::quote_date(L::ZhCn, "2026") == "2026年");
  CHECK(quote::quote_date(L::En, "2026-12-01") == "2026-12-01");
  CHECK(quote::quote_units(L::ZhCn, "71.5 days (1715.1 h)") == "71.5 天（1715.1 小时）");
  CHECK(quote::quote_units(L::ZhCn, "4.1 min") == "4.1 分钟");
  CHECK(quote::quote_units(L::ZhCn, "12.911 s") == "12.911 秒");
  CHECK(quote::quote_phrase(L::ZhCn, "512 GPU x 72 day") == "512 GPU × 72 天");
  CHECK(quote::quote_phrase(L::ZhCn, "680.00 CNY / GPU-day") == "¥680.00 / GPU·天");
  CHECK(quote::quote_phrase(L::ZhCn, "recompute full, dualpipe, MoE dispatch in fp8 (combine bf16)") ==
        "完全重计算, dualpipe, MoE 分发 fp8（合并 bf16）");
  CHECK(quote::quote_phrase(L::ZhCn, "some words of the price list") ==
        "some words of the price list");  // kept as given
  CHECK(quote::quote_provider(L::ZhCn, "Starverse (星宇智算), Xiamen") == "星宇智算");
  CHECK(quote::quote_provider(L::ZhCn, "Public GPU clouds (AWS, Azure)") == "Public GPU clouds (AWS, Azure)");
  CHECK(quote::quote_provider(L::En, "Starverse (星宇智算), Xiamen") == "Starverse (星宇智算), Xiamen");
  CHECK(quote::quote_phrase(L::ZhCn, "Caishui [2016] No. 36 (财税〔2016〕36号), Annex 1, Article 15(1)") ==
        "财税〔2016〕36号 附件1 第15条第(1)项");
  // The fine-tuning assumption in every base-weight format, with and without adapter dropout.
  const std::string tail =
      "; only the adapters have gradients, optimizer state and checkpoints. MFU counts as model FLOPs: x";
  for (const char* w : {"bf16", "fp8", "nf4", "nvfp4"}) {
    const std::string plain =
        "Fine-tuning: LoRA rank 16 on qkv, proj (44.6M adapter parameters), frozen " + std::string(w) + " base weights";
    const std::string zh = quote::quote_phrase(L::ZhCn, plain + tail);
    CHECK(zh.rfind("微调：LoRA，秩 16，", 0) == 0);
    CHECK(zh.find("基座权重冻结（" + std::string(w) + "）；只有适配器") != std::string::npos);
    const std::string dropped = quote::quote_phrase(L::ZhCn, plain + ", dropout 0.05 on the adapters' inputs" + tail);
    CHECK(dropped.rfind("微调：LoRA，秩 16，", 0) == 0);
    CHECK(dropped.find("基座权重冻结（" + std::string(w) + "），适配器输入的 dropout 为 0.05；") != std::string::npos);
  }
}

namespace {

/// The ASCII words of `text` outside `allowed`, the quote id taken out first.
std::set<std::string> english_words(std::string text, const std::set<std::string>& allowed) {
  text = std::regex_replace(text, std::regex("Q-[0-9A-F]{16}"), " ");
  std::set<std::string> out;
  const std::regex word("[A-Za-z][A-Za-z0-9-]*");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator(); ++it)
    if (!allowed.count(it->str())) out.insert(it->str());
  return out;
}

}  // namespace

TEST_CASE("quote in Chinese: every word Chinese but names and units, exact money, dates, tax and the miss") {
  pricing::PriceCatalog c = catalog();
  c.provider = "Test Vendor (测试智算), Xiamen";
  c.plans[0].name = "A100 按小时";
  c.plans[1].name = "A100 整机包月";
  quote::QuoteInput in = input(c);
  in.tax = pricing::Tax{"VAT", 600, "on the total before tax",
                        "Caishui [2016] No. 36 (财税〔2016〕36号), Annex 1, Article 15(1)"};
  in.requirements.deadline = units::Time::from_seconds(86400.0);
  in.requirements.budget = units::Money::of_minor(10'000, kCny);  // 100 CNY: missed
  in.extra_assumptions = {"Step time from flopcast's step model, calibrated on published training runs."};
  const quote::Quote en = quote::make_quote(in);
  in.language = quote::QuoteLanguage::ZhCn;
  const quote::Quote q = quote::make_quote(in);
  CHECK(q.id == en.id);  // the same offer in either language
  REQUIRE(q.recommended);
  const pricing::ComparisonRow& best = q.input.plans.rows[*q.recommended];
  const std::string md = quote::render_quote_markdown(q);
  CHECK(md == quote::render_quote_markdown(quote::make_quote(in)));  // same inputs, same bytes
  CHECK(md.rfind("# 训练报价单 " + q.id + "\n", 0) == 0);
  CHECK(md.find("| 服务商 | 测试智算 |") != std::string::npos);
  CHECK(md.find("| 日期 | 2026年7月1日 |") != std::string::npos);
  CHECK(md.find("| 有效期至 | 2026年7月31日 |") != std::string::npos);
  const std::string total = quote::quote_money(quote::QuoteLanguage::ZhCn, best.p50.total);
  REQUIRE(total.rfind("¥", 0) == 0);
  CHECK(md.find("| 增值税 6% |  |  | " + quote::quote_money(quote::QuoteLanguage::ZhCn, q.tax_p50) +
                " | 按税前合计计征 |") != std::string::npos);
  CHECK(md.find("| **含增值税合计（P50）** |  |  | **" +
                quote::quote_money(quote::QuoteLanguage::ZhCn, best.p50.total + q.tax_p50) + "** |  |") !=
        std::string::npos);
  CHECK(md.find("- 税费：增值税，税率 6%，以税前合计为计税依据，另行加收（财税〔2016〕36号 附件1 第15条第(1)项）。") !=
        std::string::npos);
  CHECK(md.find("- 付款方式：在合同中约定。") != std::string::npos);
  CHECK(md.find("- 有效期：本报价有效期至 2026年7月31日；") != std::string::npos);
  // The miss, on the first page, before the requirements table.
  const std::string miss =
      "本方案未满足全部要求。截止日期：要求 1.0 天，本方案为 " +
      quote::quote_units(quote::QuoteLanguage::ZhCn, units::format_days_or_hours_half_up(q.input.run.wall_p90)) +
      "（P90）；预算（税前）：要求 ¥100.00，本方案为 " +
      quote::quote_money(quote::QuoteLanguage::ZhCn, best.p90.total) + "（P90）。";
  const auto at = md.find(miss);
  REQUIRE_MESSAGE(at != std::string::npos, md);
  CHECK(at < md.find("## 贵方要求"));
  CHECK(md.find("| **截止日期** | **1.0 天** |") != std::string::npos);
  CHECK(md.find("| **未满足** |") != std::string::npos);
  // The signature block: both parties, signature, date and seal.
  CHECK(md.find("|  | 乙方（服务商）：测试智算 | 甲方（客户）：A & B <Lab> \\| Ltd |") != std::string::npos);
  for (const char* row : {"| 签字 |  |  |", "| 日期 |  |  |", "| 盖章 |  |  |"})
    CHECK(md.find(row) != std::string::npos);
  // No English left but proper names, units and the customer's own words.
  const std::set<std::string> allowed{"A",     "B",        "Lab",      "Ltd",  // the customer's name
                                      "Llama", "A100",     "A100-80G", "GPU",  // model and GPU names
                                      "T",     "GB",       "USD",      "MWh",   "PUE",
                                      "MFU",   "P50",      "P90",      "FLOPs",  // units and figures' names
                                      "e-05",  "flopcast", "arXiv",    "Young", "Daly",
                                      "Adam",  "m",        "v",        "bf16",  "fp32"};  // names in the assumptions
  std::string left;
  for (const auto& w : english_words(md, allowed)) left += w + ' ';
  CHECK_MESSAGE(left.empty(), "English words in the Chinese quote: ", left);
  const std::string html = quote::render_quote_html(q);
  CHECK(html.find("<html lang=\"zh-CN\">") != std::string::npos);
  CHECK(html.find("font-family: 'WenQuanYi Micro Hei', 'Noto Sans CJK SC'") != std::string::npos);
  CHECK(html.find("<thead><tr><th") != std::string::npos);
  CHECK(html == quote::render_quote_html(quote::make_quote(in)));
  CHECK(quote::quote_title(q) == "训练报价单 " + q.id);
}

TEST_CASE("pdf_with_creation_date: Qt's creation time replaced by the issue date, the length kept") {
  const std::string pdf = "%PDF-1.4\n1 0 obj\n<<\n/CreationDate (D:20261201161730Z)\n>>\nendobj\n";
  const std::string fixed = quote::pdf_with_creation_date(pdf, "2026-07-01");
  CHECK(fixed == "%PDF-1.4\n1 0 obj\n<<\n/CreationDate (D:20260701000000Z)\n>>\nendobj\n");
  CHECK(fixed.size() == pdf.size());
  CHECK(quote::pdf_with_creation_date(pdf, "not a date") == pdf);
  CHECK(quote::pdf_with_creation_date("%PDF-1.4\n", "2026-07-01") == "%PDF-1.4\n");
}

TEST_CASE("quote in Chinese: the catalog's own Chinese names for its plans and add-ons") {
  pricing::PriceCatalog c = catalog();
  c.plans[0].name_zh = "A100 按小时计费";
  pricing::AddOn rdma;
  rdma.id = "rdma";
  rdma.name = "200 Gb/s RDMA network";
  rdma.name_zh = "200 Gb/s RDMA 网络";
  rdma.included = true;
  rdma.note = "included in the GPU-hour price as stated";
  rdma.note_zh = "已含在 GPU·小时单价中";
  c.plans[0].add_ons.push_back(rdma);
  const quote::QuoteCatalog qc = quote::QuoteCatalog::of(c);
  REQUIRE(qc.zh.size() == 3);
  CHECK(qc.zh.front().first == "included in the GPU-hour price as stated");  // the longest first
  quote::QuoteInput in = input(c);
  const quote::Quote en = quote::make_quote(in);
  in.language = quote::QuoteLanguage::ZhCn;
  const quote::Quote zh = quote::make_quote(in);
  CHECK(zh.id == en.id);
  const std::string en_md = quote::render_quote_markdown(en);
  const std::string zh_md = quote::render_quote_markdown(zh);
  // English keeps the catalog's names; Chinese has the catalog's Chinese for every one of them,
  // inside longer labels too ("GPU time, <plan name>").
  CHECK(en_md.find("GPU time, A100 hourly") != std::string::npos);
  CHECK(en_md.find("| 200 Gb/s RDMA network |") != std::string::npos);
  CHECK(en_md.find("按小时计费") == std::string::npos);
  CHECK(zh_md.find("GPU 时间，A100 按小时计费") != std::string::npos);
  CHECK(zh_md.find("| 200 Gb/s RDMA 网络 |") != std::string::npos);
  CHECK(zh_md.find("已含在 GPU·小时单价中") != std::string::npos);
  for (const char* english : {"A100 hourly", "RDMA network", "as stated"})
    CHECK_MESSAGE(zh_md.find(english) == std::string::npos, english);
  // A plan without a Chinese name keeps its own.
  CHECK(zh_md.find("A100 node monthly") != std::string::npos);
}

TEST_CASE("quote: an interval the asynchronous write sets is not called Young/Daly's") {
  // 10 s steps, a 98 GB checkpoint written in 19.6 s at 5 GB/s behind a 1 ms snapshot stall, a
  // job MTBF of 12.5 h: Daly's interval is 9.5 s, shorter than the write, so the suggestion is
  // the write rounded up to whole steps, 20 s (0.3 min as a quote writes it), and the quote says so.
  job::JobInput j = llama2_7b_job();
  j.step_time = units::Time::from_seconds(10);
  j.reliability.failures_per_gpu_hour = 1e-2;
  j.reliability.async_checkpoint = true;
  j.reliability.async_stall = units::Time::from_seconds(1e-3);
  const job::JobOutcome o = job::simulate_job(j);
  REQUIRE(o.ok());
  REQUIRE(o.result.advice.write_bound);
  const pricing::PriceCatalog c = catalog();  // the plans' rows point into it
  quote::QuoteInput in = input(c);
  in.run = o.result;
  in.job.step_time = j.step_time;
  const std::string en = quote::render_quote_markdown(quote::make_quote(in));
  CHECK(en.find("Young/Daly suggests") == std::string::npos);
  const std::string daly = units::format_duration_with_hours(o.result.advice.daly);
  REQUIRE(o.result.advice.suggested.ns == 20'000'000'000);
  const std::string every = units::format_duration_with_hours(o.result.advice.suggested);
  CHECK_MESSAGE(
      en.find("Suggested: every " + every + ", the time a write takes (Young/Daly gives " + daly +
              ", but an asynchronous checkpoint protects nothing until its write ends).") != std::string::npos,
      en);
  in.language = quote::QuoteLanguage::ZhCn;
  const std::string zh = quote::render_quote_markdown(quote::make_quote(in));
  CHECK(zh.find("即写入一次所需的时间（Young/Daly 公式给出 " + quote::quote_units(quote::QuoteLanguage::ZhCn, daly)) !=
        std::string::npos);
  CHECK(zh.find("按 Young/Daly 公式建议") == std::string::npos);
}

TEST_CASE("quote: naming the modelled frameworks none of which runs the plan keeps the quote's id") {
  const pricing::PriceCatalog c = catalog();
  quote::QuoteInput before = input(c);
  before.frameworks = "none";  // what such a quote said until the frameworks were named
  quote::QuoteInput now = input(c);
  now.frameworks_modelled = "Megatron-core, DeepSpeed, torchtitan (FSDP2)";
  const quote::Quote a = quote::make_quote(before);
  const quote::Quote b = quote::make_quote(now);
  CHECK(a.id == b.id);
  const std::string md = quote::render_quote_markdown(b);
  CHECK(md.find("- Runs on: none of Megatron-core, DeepSpeed, torchtitan (FSDP2) runs this parallel plan as stated") !=
        std::string::npos);
  // A plan that runs somewhere names where, and has an id of its own.
  quote::QuoteInput runs = input(c);
  runs.frameworks = "Megatron-core";
  const quote::Quote r = quote::make_quote(runs);
  CHECK(r.id != a.id);
  CHECK(quote::render_quote_markdown(r).find("- Runs on: Megatron-core\n") != std::string::npos);
}

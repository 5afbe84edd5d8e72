// The claims loader (flopcast/io/claims_loader.hpp): claimed figures read into base units with
// the unit they were written in, the seed file loads whole, and file-level problems.
#include <doctest/doctest.h>

#include <string>

#include "flopcast/io/claims_loader.hpp"
#include "shipped_catalog.hpp"
#include "test_files.hpp"

using namespace flopcast;
using namespace flopcast::claims;
using flopcast::io::parse_claimed_value;

TEST_CASE("claims loader: claimed figures in base units, with their units and bounds") {
  auto v = parse_claimed_value("< 3 us");
  REQUIRE(v);
  CHECK(v->dimension == Dimension::Time);
  CHECK(v->bound == Bound::AtMost);
  CHECK(v->value == doctest::Approx(3e-6));
  CHECK(v->unit == "us");
  v = parse_claimed_value("190 Gbps");  // bits: 190e9 / 8 B/s
  REQUIRE(v);
  CHECK(v->dimension == Dimension::Bandwidth);
  CHECK(v->value == doctest::Approx(23.75e9));
  CHECK(v->unit == "Gbps");
  v = parse_claimed_value("24 GB/s");
  REQUIRE(v);
  CHECK(v->value == doctest::Approx(24e9));
  v = parse_claimed_value("1,075 TFLOPS");
  REQUIRE(v);
  CHECK(v->dimension == Dimension::FlopRate);
  CHECK(v->value == doctest::Approx(1.075e15));
  v = parse_claimed_value("330 W");
  REQUIRE(v);
  CHECK(v->dimension == Dimension::Power);
  CHECK(v->value == doctest::Approx(330));
  v = parse_claimed_value("80 GB");
  REQUIRE(v);
  CHECK(v->dimension == Dimension::Bytes);
  CHECK(v->value == doctest::Approx(80e9));
  v = parse_claimed_value("-8%");
  REQUIRE(v);
  CHECK(v->dimension == Dimension::Fraction);
  CHECK(v->value == doctest::Approx(-0.08));
  v = parse_claimed_value("1.5 h");
  REQUIRE(v);
  CHECK(v->value == doctest::Approx(5400));
}

TEST_CASE("claims loader: money and prices are exact") {
  auto v = parse_claimed_value("10,900 USD");
  REQUIRE(v);
  CHECK(v->dimension == Dimension::Money);
  CHECK(v->money->minor == 1'090'000);
  v = parse_claimed_value("1.2M CNY");
  REQUIRE(v);
  CHECK(v->money->minor == 120'000'000);
  CHECK(v->money->currency.str() == "CNY");
  v = parse_claimed_value("~$40,000");
  REQUIRE(v);
  CHECK(v->bound == Bound::Exact);
  CHECK(v->money->currency.str() == "USD");
  v = parse_claimed_value("57,600 CNY/node-month");
  REQUIRE(v);
  CHECK(v->dimension == Dimension::Price);
  CHECK(v->price->rate.micro == 57'600'000'000);
  CHECK(v->price->basis == pricing::PriceBasis::PerNode);
  CHECK(v->price->unit == pricing::BillingUnit::Month);
  v = parse_claimed_value("$1.89/GPU-hour");
  REQUIRE(v);
  CHECK(v->price->rate.micro == 1'890'000);
  CHECK(v->price->per() == "GPU-hour");
  // The currency words sales teams write: RMB, 元 and ¥ are CNY (ISO 4217).
  for (const char* text : {"6.8 RMB/GPU-hour", "¥6.8/GPU-hour", "6.8 元/GPU-hour"}) {
    CAPTURE(text);
    v = parse_claimed_value(text);
    REQUIRE(v);
    CHECK(v->price->rate == units::PriceRate::of_micro(6'800'000, units::Currency::of("CNY")));
  }
  // A unit of three letters is no currency.
  v = parse_claimed_value("3 GiB");
  REQUIRE(v);
  CHECK(v->dimension == Dimension::Bytes);
}

TEST_CASE("claims loader: text that is no figure is refused") {
  CHECK_FALSE(parse_claimed_value(""));
  CHECK_FALSE(parse_claimed_value("fast"));
  CHECK_FALSE(parse_claimed_value("6.8 CNY/GPU-fortnight"));
  CHECK_FALSE(parse_claimed_value("3 parsecs"));
}

TEST_CASE("claims loader: the seed file loads every claim") {
  scenario::Diagnostics d;
  const auto f = io::load_claims_file(test::scenario_file("seed-claims/claims.yaml"), test::shipped_catalog(), "", d);
  REQUIRE_MESSAGE(f.has_value(), d.str());
  CHECK(d.empty());
  CHECK(f->rejected.empty());
  CHECK(f->claims.size() == 44);
  CHECK(f->title == "The seed vendor's articles (SEED)");
  for (const auto& c : f->claims) {
    CAPTURE(c.id);
    CHECK(c.source == "SEED");
    CHECK_FALSE(c.quote.empty());
    CHECK(c.where.line > 0);
  }
}

TEST_CASE("claims loader: problems of the file as a whole stop it, with file:line and a hint") {
  const auto& cat = test::shipped_catalog();
  scenario::Diagnostics d;
  CHECK_FALSE(io::parse_claims_file("- a\n- b\n", "list.yaml", cat, "", d));
  CHECK(d.str() ==
        "list.yaml:1:1: error: a claims file must be a YAML mapping (hint: see docs/claims.md and "
        "scenarios/seed-claims/claims.yaml for the format)\n");
  scenario::Diagnostics e;
  CHECK_FALSE(io::parse_claims_file("title: x\n", "none.yaml", cat, "", e));
  CHECK(e.items().front().message == "missing required key 'claims'");
  // An unknown top-level key is named with a did-you-mean; the claims still load.
  scenario::Diagnostics u;
  const auto f = io::parse_claims_file(
      "titel: x\nclaims:\n  - {id: a, kind: hardware, figure: power, quote: q, source: S, claimed: 400 W, needs: "
      "{gpu: A100-80G}}\n",
      "typo.yaml", cat, "", u);
  REQUIRE(f);
  CHECK(f->claims.size() == 1);
  CHECK(u.items().front().str() == "typo.yaml:1:1: error: titel: unknown key 'titel' (hint: did you mean 'title'?)");
}

TEST_CASE("claims loader: duplicate ids and a training claim with its own claimed figure are refused") {
  const auto& cat = test::shipped_catalog();
  scenario::Diagnostics d;
  const auto f = io::parse_claims_file(
      "claims:\n"
      "  - {id: a, kind: hardware, figure: power, quote: q, source: S, claimed: 400 W, needs: {gpu: A100-80G}}\n"
      "  - {id: a, kind: hardware, figure: power, quote: q, source: S, claimed: 700 W, needs: {gpu: H800}}\n"
      "  - {id: t, kind: training, figure: mfu, quote: q, source: S, claimed: 72%, needs: {scenario: x.yaml}}\n",
      "dup.yaml", cat, "", d);
  REQUIRE(f);
  CHECK(f->claims.size() == 1);
  CHECK(f->rejected.size() == 2);
  CHECK(d.items().front().message == "duplicate claim id 'a'");
  CHECK(d.str().find("a training claim takes its claimed figure from the scenario") != std::string::npos);
}

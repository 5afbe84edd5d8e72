// Unit strings as users write them (units_parse.hpp): each accepted form, the multiplier it
// stands for, and the malformed strings that must come back as nullopt.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "flopcast/io/units_parse.hpp"

using namespace flopcast;
using namespace flopcast::io;

namespace {
constexpr double kGiB = 1073741824.0;  // 2^30
constexpr double kMiB = 1048576.0;     // 2^20
}  // namespace

TEST_CASE("parse_count: plain numbers and SI count suffixes") {
  // Multipliers from units_parse.hpp: K=1e3, M=1e6, B=G=1e9, T=1e12, P=1e15.
  CHECK(parse_count("8") == std::optional<double>(8.0));
  CHECK(parse_count("0.45") == std::optional<double>(0.45));
  CHECK(parse_count("1e12") == std::optional<double>(1e12));
  CHECK(parse_count("1.4e12") == std::optional<double>(1.4e12));
  CHECK(parse_count("2K") == std::optional<double>(2e3));
  CHECK(parse_count("2k") == std::optional<double>(2e3));
  CHECK(parse_count("16M") == std::optional<double>(16e6));
  CHECK(parse_count("300B") == std::optional<double>(300e9));
  CHECK(parse_count("300G") == std::optional<double>(300e9));
  CHECK(*parse_count("1.4T") == doctest::Approx(1.4e12).epsilon(1e-15));
  CHECK(parse_count("2P") == std::optional<double>(2e15));
  // Digit groupings and surrounding blanks.
  CHECK(parse_count("2_048") == std::optional<double>(2048.0));
  CHECK(parse_count("1,000") == std::optional<double>(1000.0));
  CHECK(parse_count("  64 ") == std::optional<double>(64.0));
  CHECK(parse_count("1.4 T") == std::optional<double>(1.4e12));
  CHECK(parse_count("+5") == std::optional<double>(5.0));
  // Signs are kept: range checks are the caller's (the loader rejects -4 for layers).
  CHECK(parse_count("-4") == std::optional<double>(-4.0));
}

TEST_CASE("parse_count: malformed strings") {
  CHECK_FALSE(parse_count(""));
  CHECK_FALSE(parse_count("   "));
  CHECK_FALSE(parse_count("lots"));
  CHECK_FALSE(parse_count("eight"));
  CHECK_FALSE(parse_count("T"));
  CHECK_FALSE(parse_count("1.4X"));
  CHECK_FALSE(parse_count("1.4 TB"));  // a byte size is not a count
  CHECK_FALSE(parse_count("1..2"));
  CHECK_FALSE(parse_count("1-2"));
  CHECK_FALSE(parse_count("1e"));
  CHECK_FALSE(parse_count("nan"));
  CHECK_FALSE(parse_count("inf"));
  CHECK_FALSE(parse_count("1e400"));   // overflows a double
  CHECK_FALSE(parse_count("1e300P"));  // finite number, infinite product
}

TEST_CASE("parse_count: commas group thousands only, and a decimal comma is refused, never read ten times larger") {
  CHECK(parse_count("1,000") == std::optional<double>(1000.0));
  CHECK(parse_count("12,345.67") == std::optional<double>(12345.67));
  CHECK(parse_count("2,500,000") == std::optional<double>(2.5e6));
  CHECK(parse_count("10,00,000") == std::optional<double>(1e6));  // India's lakh grouping
  CHECK(parse_count("1,000M") == std::optional<double>(1e9));
  CHECK(parse_count("-1,000") == std::optional<double>(-1000.0));
  // Each of these read 25e6, 15, 150, 1,000, 1,000 and 2,500 before: the commas were dropped.
  for (const char* text :
       {"2,5M", "1,5", "1,50", "1,0000", "1000,000", "2,5e3", ",500", "1,,000", "1,000,5", "1e3,5", "1.000,5"}) {
    CAPTURE(text);
    CHECK_FALSE(parse_count(text));
  }
}

TEST_CASE("parse_bytes: binary and decimal units") {
  // GiB/MiB/KiB/TiB are powers of 2, GB/MB/KB/TB powers of 10 (units.hpp conventions).
  CHECK(parse_bytes("80 GiB")->value == 80 * kGiB);
  CHECK(parse_bytes("80GiB")->value == 80 * kGiB);
  CHECK(parse_bytes("80GB")->value == 80e9);
  CHECK(parse_bytes("512 MiB")->value == 512 * kMiB);
  CHECK(parse_bytes("4 KiB")->value == 4096.0);
  CHECK(parse_bytes("4 KB")->value == 4000.0);
  CHECK(parse_bytes("16 MB")->value == 16e6);
  CHECK(parse_bytes("1.5 TB")->value == 1.5e12);
  CHECK(parse_bytes("1 TiB")->value == 1024 * kGiB);
  CHECK(parse_bytes("1024")->value == 1024.0);
  CHECK(parse_bytes("1024 B")->value == 1024.0);
  // nccl-tests style sizes (-e 8G) are binary.
  CHECK(parse_bytes("8G")->value == 8 * kGiB);
  CHECK(parse_bytes("128M")->value == 128 * kMiB);
  CHECK(parse_bytes("64K")->value == 64 * 1024.0);
  CHECK(parse_bytes("2_048 MiB")->value == 2048 * kMiB);

  CHECK_FALSE(parse_bytes(""));
  CHECK_FALSE(parse_bytes("GiB"));
  CHECK_FALSE(parse_bytes("80 gigs"));
  CHECK_FALSE(parse_bytes("80 Gbps"));  // a rate is not a size
  CHECK_FALSE(parse_bytes("lots"));
}

TEST_CASE("parse_bandwidth: bits and bytes per second") {
  // Line rates in bits: 400 Gb/s = 400e9 / 8 = 50e9 B/s.
  CHECK(parse_bandwidth("400 Gbps")->bytes_per_s == 50e9);
  CHECK(parse_bandwidth("400 Gb/s")->bytes_per_s == 50e9);
  CHECK(parse_bandwidth("400Gbps")->bytes_per_s == 50e9);
  CHECK(parse_bandwidth("100 Mbps")->bytes_per_s == 12.5e6);
  CHECK(parse_bandwidth("1.6 Tbps")->bytes_per_s == doctest::Approx(200e9).epsilon(1e-15));
  // Rates in bytes.
  CHECK(parse_bandwidth("50 GB/s")->bytes_per_s == 50e9);
  CHECK(parse_bandwidth("50 GBps")->bytes_per_s == 50e9);
  CHECK(parse_bandwidth("2 TB/s")->bytes_per_s == 2e12);
  CHECK(parse_bandwidth("3.35 TBps")->bytes_per_s == doctest::Approx(3.35e12).epsilon(1e-15));
  CHECK(parse_bandwidth("800 MB/s")->bytes_per_s == 800e6);

  CHECK_FALSE(parse_bandwidth("400"));  // no unit: bits or bytes is ambiguous
  CHECK_FALSE(parse_bandwidth("fast"));
  CHECK_FALSE(parse_bandwidth("400 GiB"));  // a size is not a rate
  CHECK_FALSE(parse_bandwidth("400 Gbit"));
  CHECK_FALSE(parse_bandwidth(""));
}

TEST_CASE("parse_bytes and parse_bandwidth: a finite number whose scaled value is not finite is rejected") {
  // 1e308 is a finite double; times 2^40 (TiB) or 1e12 (TB/s) it is +inf (no
  // infinity reaches a report). The largest in-range values still parse.
  CHECK_FALSE(parse_bytes("1e308 TiB"));
  CHECK_FALSE(parse_bytes("1e308 TB"));
  CHECK_FALSE(parse_bytes("-1e308 GiB"));
  CHECK_FALSE(parse_bandwidth("1e308 TB/s"));
  CHECK_FALSE(parse_bandwidth("1e308 Tbps"));
  CHECK_FALSE(parse_bandwidth("-1e308 TBps"));
  CHECK(parse_bytes("1e308 B")->value == 1e308);
  CHECK(parse_bandwidth("1e290 TB/s")->bytes_per_s == 1e290 * 1e12);
}

TEST_CASE("parse_duration: seconds to weeks") {
  CHECK(parse_duration("30d")->ns == 30LL * 86400 * 1'000'000'000);
  CHECK(parse_duration("30 days")->ns == 30LL * 86400 * 1'000'000'000);
  CHECK(parse_duration("1 day")->ns == 86400LL * 1'000'000'000);
  CHECK(parse_duration("2.5 h")->ns == 9000LL * 1'000'000'000);
  CHECK(parse_duration("2.5 hours")->ns == 9000LL * 1'000'000'000);
  CHECK(parse_duration("10min")->ns == 600LL * 1'000'000'000);
  CHECK(parse_duration("10 m")->ns == 600LL * 1'000'000'000);
  CHECK(parse_duration("90s")->ns == 90LL * 1'000'000'000);
  CHECK(parse_duration("90 sec")->ns == 90LL * 1'000'000'000);
  CHECK(parse_duration("250 ms")->ns == 250'000'000);
  CHECK(parse_duration("2.5 us")->ns == 2500);
  CHECK(parse_duration("100 ns")->ns == 100);
  CHECK(parse_duration("1w")->ns == 604800LL * 1'000'000'000);
  CHECK(parse_duration("2 weeks")->ns == 2 * 604800LL * 1'000'000'000);
  CHECK(parse_duration("42")->ns == 42LL * 1'000'000'000);       // a bare number is seconds
  CHECK(parse_duration("1.5 H")->ns == 5400LL * 1'000'000'000);  // unit names ignore case
  // Signs are kept; callers reject negative durations (price_catalog_io.cpp "a duration >= 0").
  CHECK(parse_duration("-5s")->ns == -5LL * 1'000'000'000);

  CHECK_FALSE(parse_duration(""));
  CHECK_FALSE(parse_duration("soon"));
  CHECK_FALSE(parse_duration("3 fortnights"));
  CHECK_FALSE(parse_duration("30 GiB"));
  // Beyond ~285 years (9.0e9 s) the int64-nanosecond Time would be near its limit: rejected.
  CHECK_FALSE(parse_duration("1000000 weeks"));
  CHECK_FALSE(parse_duration("1e10"));
  CHECK(parse_duration("9e9")->ns == 9'000'000'000LL * 1'000'000'000);
}

TEST_CASE("parse_duration: the words people write, months of 30 days, and M refused as minutes or months") {
  constexpr std::int64_t kDay = 86400LL * 1'000'000'000;
  CHECK(parse_duration("6 wks")->ns == 42 * kDay);
  CHECK(parse_duration("1 week")->ns == 7 * kDay);
  CHECK(parse_duration("1080 hrs")->ns == 45 * kDay);
  CHECK(parse_duration("90 mins")->ns == 5400LL * 1'000'000'000);
  CHECK(parse_duration("2 minutes")->ns == 120LL * 1'000'000'000);
  CHECK(parse_duration("30 seconds")->ns == 30LL * 1'000'000'000);
  // A month is the bills' 720 hours.
  CHECK(parse_duration("2mo")->ns == 60 * kDay);
  CHECK(parse_duration("1 month")->ns == 30 * kDay);
  CHECK(parse_duration("1.5 months")->ns == 45 * kDay);
  CHECK(parse_duration("90m")->ns == 5400LL * 1'000'000'000);  // lower-case m: minutes, as before
  CHECK_FALSE(parse_duration("2M"));
  CHECK_FALSE(parse_duration("2 M"));
  UnitProblem p = UnitProblem::None;
  CHECK_FALSE(parse_duration_with_unit("2M", &p));
  CHECK(p == UnitProblem::AmbiguousUnit);
  CHECK_FALSE(parse_duration_with_unit("45,5d", &p));
  CHECK(p == UnitProblem::DecimalComma);
  CHECK_FALSE(parse_duration_with_unit("1.5 fortnights", &p));
  CHECK(p == UnitProblem::Malformed);
}

TEST_CASE("parse_duration_with_unit: a deadline must state its unit") {
  UnitProblem p = UnitProblem::None;
  CHECK(parse_duration_with_unit("45d", &p)->ns == 45LL * 86400 * 1'000'000'000);
  CHECK(p == UnitProblem::None);
  CHECK(parse_duration_with_unit("1080h")->ns == 1080LL * 3600 * 1'000'000'000);
  CHECK(parse_duration_with_unit("6 weeks")->ns == 42LL * 86400 * 1'000'000'000);
  // "45" was read as 45 seconds by parse_duration: here it is refused, and why is told.
  CHECK_FALSE(parse_duration_with_unit("45", &p));
  CHECK(p == UnitProblem::MissingUnit);
  CHECK_FALSE(parse_duration_with_unit("soon", &p));
  CHECK(p == UnitProblem::Malformed);
  CHECK_FALSE(parse_duration_with_unit("-3d", &p));
  CHECK(p == UnitProblem::Negative);
  CHECK_FALSE(parse_duration_with_unit("0h", &p));
  CHECK(p == UnitProblem::Negative);
}

TEST_CASE("parse_money: an amount with its currency, SI and Chinese multipliers") {
  UnitProblem p = UnitProblem::None;
  const auto five_m = parse_money("5M CNY", &p);
  REQUIRE(five_m);
  CHECK(p == UnitProblem::None);
  CHECK(five_m->minor == 500'000'000);
  CHECK(five_m->currency.str() == "CNY");
  // 500万 = 500 x 10^4 = 5,000,000; 1.2亿 = 1.2 x 10^8.
  CHECK(parse_money("500万 CNY")->minor == 500'000'000);
  CHECK(parse_money("500 万 CNY")->minor == 500'000'000);
  CHECK(parse_money("1.2亿 CNY")->minor == 12'000'000'000);
  CHECK(parse_money("2e6 USD")->minor == 200'000'000);
  CHECK(parse_money("1,500,000 usd")->currency.str() == "USD");
  CHECK(parse_money("800k EUR")->minor == 80'000'000);
  CHECK(parse_money("12.345 USD")->minor == 1235);  // rounded half away from zero to the cent
  // The currency is required: "500万" alone was refused without saying why; now it says so.
  CHECK_FALSE(parse_money("500万", &p));
  CHECK(p == UnitProblem::MissingCurrency);
  CHECK_FALSE(parse_money("5M", &p));
  CHECK(p == UnitProblem::MissingCurrency);
  CHECK_FALSE(parse_money("lots CNY", &p));
  CHECK(p == UnitProblem::Malformed);
  CHECK_FALSE(parse_money("-5 CNY", &p));
  CHECK(p == UnitProblem::Negative);
  CHECK_FALSE(parse_money("1e17 CNY", &p));
  // A decimal comma is refused with its own problem, not read as 25M.
  CHECK_FALSE(parse_money("2,5M USD", &p));
  CHECK(p == UnitProblem::DecimalComma);
  CHECK_FALSE(parse_money("2,5 万元", &p));
  CHECK(p == UnitProblem::DecimalComma);
  CHECK(parse_money("2,500,000 USD")->minor == 250'000'000);
}

TEST_CASE("parse_money: the currency words users write (RMB, 元, ¥ as CNY, $ as USD), before or after the amount") {
  UnitProblem p = UnitProblem::None;
  // Each reads as its ISO code: 5M = 5 x 10^6 = 500,000,000 fen; 500万 = 5 x 10^6.
  for (const char* text : {"5M RMB", "5M rmb", "500万元", "500万 元", "5M 元", "¥5M", "￥5M", "5M ¥", "RMB 5M",
                           "5,000,000 人民币", "CN¥5M", "5M yuan"}) {
    CAPTURE(text);
    const auto m = parse_money(text, &p);
    REQUIRE(m);
    CHECK(p == UnitProblem::None);
    CHECK(m->currency.str() == "CNY");
    CHECK(m->minor == 500'000'000);
  }
  for (const char* text : {"$2e6", "$ 2M", "US$2M", "2M $", "2M USD"}) {
    CAPTURE(text);
    const auto m = parse_money(text, &p);
    REQUIRE(m);
    CHECK(m->currency.str() == "USD");
    CHECK(m->minor == 200'000'000);  // 2 x 10^6 dollars in cents
  }
  CHECK(parse_money("€800k")->currency.str() == "EUR");
  // A word that names no currency is refused as such, never read as a code of its own.
  for (const char* text : {"5M dollars", "5M RMBX", "5MUSD", "5M #"}) {
    CAPTURE(text);
    CHECK_FALSE(parse_money(text, &p));
    CHECK(p == UnitProblem::UnknownCurrency);
  }
  // Two currencies that disagree are not an amount.
  CHECK_FALSE(parse_money("$5M CNY", &p));
  CHECK(p == UnitProblem::Malformed);
}

TEST_CASE("parse_currency: ISO codes in any case and the words and signs that name one") {
  CHECK(parse_currency("CNY")->str() == "CNY");
  CHECK(parse_currency("usd")->str() == "USD");
  CHECK(parse_currency("RMB")->str() == "CNY");
  CHECK(parse_currency("元")->str() == "CNY");
  CHECK(parse_currency("¥")->str() == "CNY");
  CHECK(parse_currency("$")->str() == "USD");
  CHECK(parse_currency("€")->str() == "EUR");
  CHECK_FALSE(parse_currency("dollars"));
  CHECK_FALSE(parse_currency("US"));
  CHECK_FALSE(parse_currency(""));
}

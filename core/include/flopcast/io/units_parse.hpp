#pragma once
/// Unit strings as users write them, parsed once, in io: "1.4T" tokens, "80 GiB",
/// "400 Gbps", "50 GB/s", "30d", "10min", "2.5 us". Each returns nullopt when malformed;
/// the caller reports a Diagnostic naming the key and the accepted forms.
#include <optional>
#include <string>
#include <string_view>

#include "flopcast/units/money.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::io {

/// Plain numbers with an optional SI count suffix: "1e12", "1.4T", "300B", "16M", "2K", "2_048".
/// K=1e3, M=1e6, B=G=1e9, T=1e12, P=1e15. Non-finite values are rejected.
std::optional<double> parse_count(std::string_view s);
/// "80 GiB", "80GB", "512 MiB", "1.5 TB", "1024" (bytes). GiB/MiB/KiB are binary, GB/MB/KB/TB decimal.
/// A value that is not finite once scaled by its unit ("1e308 TiB") is rejected.
std::optional<units::Bytes> parse_bytes(std::string_view s);
/// "400 Gbps", "400 Gb/s" (bits), "50 GB/s", "50 GBps" (bytes), "2 TB/s". Non-finite results
/// ("1e308 TB/s") are rejected.
std::optional<units::Bandwidth> parse_bandwidth(std::string_view s);
/// "30d", "2.5 h", "10min", "90s", "250 ms", "2.5 us", "100 ns", "1w", "2 months" (30 days each,
/// the month the bills count). A bare number is seconds; "2M" (minutes or months?) is refused.
std::optional<units::Time> parse_duration(std::string_view s);
/// An amount of money: "2.5M USD", "1500000", "800k CNY": a count (parse_count) of major
/// units, then optionally a space and a three-letter currency (else `currency`, else
/// `fallback`). At most 9e15 major units; nullopt when not an amount.
std::optional<units::Money> parse_budget(const std::string& text, const std::string& currency,
                                         const std::string& fallback);

/// Why a duration or an amount that must carry its unit was refused.
enum class UnitProblem {
  None,
  Malformed,        ///< not a number with a unit at all
  MissingUnit,      ///< a bare number ("45"): the unit (days, hours) must be written
  MissingCurrency,  ///< an amount without its currency ("5M", "500万")
  UnknownCurrency,  ///< a word where the currency goes that names none ("5M dollars", "5M RMBX")
  Negative,         ///< zero or less
  DecimalComma,     ///< a comma that does not group thousands ("2,5M"): a decimal comma, not read
  AmbiguousUnit,    ///< a duration in "M": minutes or months
};

/// A duration that must state its unit: "45d", "1080h", "6 weeks", "90 min". A bare number is
/// MissingUnit (never read as seconds).
std::optional<units::Time> parse_duration_with_unit(std::string_view s, UnitProblem* problem = nullptr);

/// A currency as users write it: an ISO 4217 code in any case ("CNY", "usd"), or a word or sign
/// that names one: RMB, yuan, 元, 人民币, ¥, ￥, CN¥ are CNY; $, US$, 美元 are USD; €, 欧元 are EUR.
/// nullopt for anything else ("dollars", "RMBX"). With `any_case` false the letters must be upper
/// case as written above (where "kWh" or "GiB" is a unit, not a currency). Whether a code is one
/// the price catalogs bill in is the caller's question.
std::optional<units::Currency> parse_currency(std::string_view word, bool any_case = true);

/// An amount of money with its currency (parse_currency), after the number or before it:
/// "5M CNY", "5M RMB", "2e6 USD", "$2M", "¥5M", "1,500,000 USD", "500万 CNY" (万 = 10^4),
/// "500万元", "1.2亿 CNY" (亿 = 10^8), "800k EUR". At most 9e15 major units, rounded to the minor
/// unit. MissingCurrency when none is written, UnknownCurrency for a word that names none,
/// Malformed for two that disagree ("$5M CNY").
std::optional<units::Money> parse_money(std::string_view s, UnitProblem* problem = nullptr);

}  // namespace flopcast::io

#pragma once
/// The words of a quote in each language it is written in: one table of phrases and
/// whole-sentence templates (fmt named arguments, "{tokens}"), looked up by key, and the
/// language-dependent ways of writing money, dates and durations. English is the default and
/// reads exactly as the quote always did; Simplified Chinese (zh-CN) writes every heading,
/// label and sentence in Chinese and keeps proper names (GPUs, models, frameworks), units
/// (GiB, TFLOP/s) and the customer's own words as given.
#include <optional>
#include <string>
#include <string_view>

#include "flopcast/units/money.hpp"

namespace flopcast::quote {

/// The language a quote is written in.
enum class QuoteLanguage { En, ZhCn };

/// The `--lang` spelling of `lang`: "en", "zh-CN".
std::string_view to_string(QuoteLanguage lang);

/// Reads a language name: "en" or "zh-CN" (BCP 47); "zh_CN", the POSIX locale spelling, is read
/// as zh-CN too. Anything else is nullopt with `error` saying what was given, what is accepted
/// and, when one is close, which was meant: "'fr' is not a quote language: use en or zh-CN".
std::optional<QuoteLanguage> parse_quote_language(std::string_view value, std::string& error);

/// The phrase or template `key` in `lang`. Every key has both languages; an unknown key is a
/// programming error (asserted).
std::string_view quote_text(QuoteLanguage lang, std::string_view key);

/// Money as `lang` writes it: English "1,234.50 CNY"; Chinese "¥1,234.50" for CNY (the sign
/// before the yen mark: "-¥5.00"), other currencies as in English ("1,234.50 USD").
std::string quote_money(QuoteLanguage lang, const units::Money& m);

/// An amount in a table column whose header names the currency: English "1,234.50"; Chinese
/// as quote_money (the column header then names no currency).
std::string quote_amount(QuoteLanguage lang, const units::Money& m);

/// A "YYYY-MM-DD" (or "YYYY") date as `lang` writes it: English as given; Chinese
/// "2026年12月1日" ("2026年"). Anything else is returned as given.
std::string quote_date(QuoteLanguage lang, const std::string& date);

/// A duration or size written by units/format.hpp ("71.5 days (1715.1 h)", "4.1 min",
/// "12.911 s") in `lang`: Chinese "71.5 天（1715.1 小时）", "4.1 分钟", "12.911 秒".
std::string quote_units(QuoteLanguage lang, const std::string& text);

/// A phrase the price list's bill or the application layer wrote in English (line labels,
/// quantities, unit prices, bill notes, the parallel plan, the generated assumptions) in
/// `lang`. Known forms are rewritten whole in Chinese with their figures kept; anything else
/// (the price list's own plan names and notes, the customer's words) is returned as given.
std::string quote_phrase(QuoteLanguage lang, const std::string& text);

/// The provider's name in `lang`: in Chinese, the Chinese name the price list gives in
/// parentheses ("Starverse (星宇智算), Xiamen" -> "星宇智算"), else the name as given.
std::string quote_provider(QuoteLanguage lang, const std::string& provider);

}  // namespace flopcast::quote

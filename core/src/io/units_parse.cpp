#include "flopcast/io/units_parse.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <string>

#include "flopcast/pricing/price_catalog.hpp"

namespace flopcast::io {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// Whether a number's commas fail to group thousands. In its integer part, after a first group
/// of 1-3 digits, groups of 2 or 3 (1,000,000, or India's 10,00,000) and a last group of 3 before
/// the decimal point, the exponent or the end; after the point or in the exponent, none. "2,5",
/// "1,50" and "1e3,5" would be read ten or more times too large if the commas were dropped: they
/// are decimal commas, not numbers here. A leading sign is skipped.
bool has_decimal_comma(std::string_view s) {
  s = trim(s);
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  std::size_t group = 0, groups = 0;
  bool last_was_comma = false, integer_part = true;
  const auto last_group_ok = [&] { return groups == 0 || group == 3; };
  for (const char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      ++group;
      last_was_comma = false;
    } else if (c == ',') {
      if (!integer_part || last_was_comma || group == 0 || group > 3 || (groups > 0 && group < 2)) return true;
      ++groups;
      group = 0;
      last_was_comma = true;
    } else if (integer_part && (c == '.' || c == 'e' || c == 'E')) {
      if (!last_group_ok()) return true;
      integer_part = false;
    } else if (c != '_' && (integer_part || (c != '-' && c != '+'))) {
      break;
    }
  }
  return integer_part && !last_group_ok();
}

/// Splits "12.5 GiB" into 12.5 and "GiB". The number must be finite, and its commas group
/// thousands (has_decimal_comma).
bool split_number(std::string_view s, double& value, std::string_view& suffix) {
  s = trim(s);
  if (has_decimal_comma(s)) return false;
  std::string digits;
  std::size_t i = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_' || c == ',') continue;  // 2_048 and 1,000 are accepted digit groupings
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+') {
      digits += c;
      continue;
    }
    if ((c == 'e' || c == 'E') && i + 1 < s.size() &&
        (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '-' || s[i + 1] == '+')) {
      digits += c;
      continue;
    }
    break;
  }
  if (digits.empty()) return false;
  const char* first = digits.data();
  const char* last = digits.data() + digits.size();
  if (*first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last || !std::isfinite(value)) return false;
  suffix = trim(s.substr(i));
  return true;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

}  // namespace

std::optional<double> parse_count(std::string_view s) {
  double v = 0;
  std::string_view suf;
  if (!split_number(s, v, suf)) return std::nullopt;
  double k = 1;
  if (suf.empty())
    k = 1;
  else if (suf == "K" || suf == "k")
    k = 1e3;
  else if (suf == "M")
    k = 1e6;
  else if (suf == "B" || suf == "G")
    k = 1e9;
  else if (suf == "T")
    k = 1e12;
  else if (suf == "P")
    k = 1e15;
  else
    return std::nullopt;
  const double r = v * k;
  if (!std::isfinite(r)) return std::nullopt;
  return r;
}

std::optional<units::Bytes> parse_bytes(std::string_view s) {
  double v = 0;
  std::string_view suf;
  if (!split_number(s, v, suf)) return std::nullopt;
  struct U {
    std::string_view name;
    double k;
  };
  static constexpr U units[] = {{"", 1},
                                {"B", 1},
                                {"KiB", 1024.0},
                                {"MiB", 1048576.0},
                                {"GiB", 1073741824.0},
                                {"TiB", 1099511627776.0},
                                {"KB", 1e3},
                                {"MB", 1e6},
                                {"GB", 1e9},
                                {"TB", 1e12},
                                {"K", 1024.0},
                                {"M", 1048576.0},
                                {"G", 1073741824.0}};  // nccl-tests style "8G" = 8 GiB
  for (const auto& u : units) {
    if (suf == u.name) {
      const double b = v * u.k;  // "1e308 TiB" is a finite number times a unit, but not a finite size
      if (!std::isfinite(b)) return std::nullopt;
      return units::Bytes{b};
    }
  }
  return std::nullopt;
}

std::optional<units::Bandwidth> parse_bandwidth(std::string_view s) {
  double v = 0;
  std::string_view suf;
  if (!split_number(s, v, suf)) return std::nullopt;
  struct U {
    std::string_view name;
    double bytes_per_s;
  };
  static constexpr U units[] = {{"Gbps", 1e9 / 8},  {"Gb/s", 1e9 / 8},  {"Mbps", 1e6 / 8}, {"Mb/s", 1e6 / 8},
                                {"Tbps", 1e12 / 8}, {"Tb/s", 1e12 / 8}, {"GB/s", 1e9},     {"GBps", 1e9},
                                {"MB/s", 1e6},      {"TB/s", 1e12},     {"TBps", 1e12}};
  for (const auto& u : units) {
    if (suf == u.name) {
      const double r = v * u.bytes_per_s;
      if (!std::isfinite(r)) return std::nullopt;
      return units::Bandwidth{r};
    }
  }
  return std::nullopt;
}

std::optional<units::Time> parse_duration(std::string_view s) {
  double v = 0;
  std::string_view suf;
  if (!split_number(s, v, suf)) return std::nullopt;
  struct U {
    std::string_view name;
    double seconds;
  };
  // "M" alone is refused: it could be minutes or months.
  static constexpr U units[] = {{"", 1},          {"s", 1},         {"sec", 1},      {"secs", 1},     {"second", 1},
                                {"seconds", 1},   {"ns", 1e-9},     {"us", 1e-6},    {"ms", 1e-3},    {"min", 60},
                                {"mins", 60},     {"minute", 60},   {"minutes", 60}, {"m", 60},       {"h", 3600},
                                {"hr", 3600},     {"hrs", 3600},    {"hour", 3600},  {"hours", 3600}, {"d", 86400},
                                {"day", 86400},   {"days", 86400},  {"w", 604800},   {"wk", 604800},  {"wks", 604800},
                                {"week", 604800}, {"weeks", 604800}};
  if (suf == "M") return std::nullopt;
  double unit = 0;
  if (iequals(suf, "mo") || iequals(suf, "month") || iequals(suf, "months")) {
    // A month is the one the bills count in (pricing::billing_unit_length: 720 hours, 30 days).
    unit = pricing::billing_unit_length(pricing::BillingUnit::Month).seconds();
  } else {
    const auto it = std::find_if(std::begin(units), std::end(units), [&](const U& u) { return iequals(suf, u.name); });
    if (it == std::end(units)) return std::nullopt;
    unit = it->seconds;
  }
  const double sec = v * unit;
  if (!std::isfinite(sec) || std::fabs(sec) > 9.0e9) return std::nullopt;  // ~285 years
  return units::Time::from_seconds(sec);
}

std::optional<units::Money> parse_budget(const std::string& text, const std::string& currency,
                                         const std::string& fallback) {
  std::string num = text, cur;
  const auto sp = text.find(' ');
  if (sp != std::string::npos) {
    num = text.substr(0, sp);
    const auto code = text.find_first_not_of(' ', sp);
    if (code != std::string::npos) cur = text.substr(code);  // "2.5M " has no currency after the space
  }
  const auto v = parse_count(num);
  if (!v || !std::isfinite(*v) || *v < 0 || *v > 9e15) return std::nullopt;
  if (cur.empty()) cur = !currency.empty() ? currency : fallback;
  if (cur.size() != 3) return std::nullopt;
  return units::Money::of_minor(static_cast<std::int64_t>(std::llround(*v * 100.0)), units::Currency::of(cur));
}

namespace {
void set(UnitProblem* p, UnitProblem v) {
  if (p) *p = v;
}
}  // namespace

std::optional<units::Time> parse_duration_with_unit(std::string_view s, UnitProblem* problem) {
  set(problem, UnitProblem::None);
  double v = 0;
  std::string_view suf;
  if (!split_number(s, v, suf)) {
    set(problem, has_decimal_comma(s) ? UnitProblem::DecimalComma : UnitProblem::Malformed);
    return std::nullopt;
  }
  if (suf.empty()) {
    set(problem, UnitProblem::MissingUnit);
    return std::nullopt;
  }
  const auto t = parse_duration(s);
  if (!t) {
    set(problem, suf == "M" ? UnitProblem::AmbiguousUnit : UnitProblem::Malformed);
    return std::nullopt;
  }
  if (t->ns <= 0) {
    set(problem, UnitProblem::Negative);
    return std::nullopt;
  }
  return t;
}

namespace {

/// The words and signs that name a currency, as sales teams write them, and their ISO 4217 code
/// (ISO 4217: CNY is the renminbi, whose unit is the yuan, 元, written ¥; USD the US dollar, $).
/// UTF-8 spelled out: 元 E5 85 83, 人民币 E4 BA BA E6 B0 91 E5 B8 81, ¥ C2 A5, ￥ (full width)
/// EF BF A5, $ 24, € E2 82 AC, 美元 E7 BE 8E E5 85 83, 欧元 E6 AC A7 E5 85 83.
struct CurrencyWord {
  std::string_view word;
  std::string_view code;
};
constexpr CurrencyWord kCurrencyWords[] = {
    {"RMB", "CNY"},          {"yuan", "CNY"},
    {"\xE5\x85\x83", "CNY"}, {"\xE4\xBA\xBA\xE6\xB0\x91\xE5\xB8\x81", "CNY"},
    {"\xC2\xA5", "CNY"},     {"\xEF\xBF\xA5", "CNY"},
    {"CN\xC2\xA5", "CNY"},   {"$", "USD"},
    {"US$", "USD"},          {"\xE7\xBE\x8E\xE5\x85\x83", "USD"},
    {"\xE2\x82\xAC", "EUR"}, {"\xE6\xAC\xA7\xE5\x85\x83", "EUR"},
};

bool is_number_char(std::string_view s, std::size_t i) {
  const char c = s[i];
  if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ',' || c == '_') return true;
  if ((c == '-' || c == '+') && (i == 0 || s[i - 1] == 'e' || s[i - 1] == 'E')) return true;
  return (c == 'e' || c == 'E') && i > 0 && i + 1 < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '-' || s[i + 1] == '+');
}

bool ascii_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

/// "5M RMB" -> prefix "", number "5M", scale 1, suffix "RMB"; "¥500万" -> "¥", "500", 10^4, "".
/// False when no number is found.
bool split_amount(std::string_view s, std::string_view& prefix, std::string& number, double& scale,
                  std::string_view& suffix) {
  std::size_t i = 0;
  while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i])) && s[i] != '.' && s[i] != '-' && s[i] != '+')
    ++i;
  prefix = trim(s.substr(0, i));
  const std::size_t begin = i;
  while (i < s.size() && is_number_char(s.substr(begin), i - begin)) ++i;
  if (i == begin) return false;
  number = std::string(s.substr(begin, i - begin));
  std::string_view tail = trim(s.substr(i));
  // An SI multiplier (parse_count's) is one letter not followed by another ("5M RMB", not "5MUSD").
  static constexpr std::string_view kSi = "KkMBGTP";
  if (!tail.empty() && kSi.find(tail.front()) != std::string_view::npos &&
      (tail.size() == 1 || !ascii_letter(tail[1]))) {
    number += tail.front();
    tail = trim(tail.substr(1));
  }
  // Chinese myriad multipliers (UTF-8): 万 = 10^4, 亿 = 10^8.
  scale = 1;
  const std::string_view wan = "\xE4\xB8\x87", yi = "\xE4\xBA\xBF";
  if (tail.substr(0, 3) == wan || tail.substr(0, 3) == yi) {
    scale = tail.substr(0, 3) == wan ? 1e4 : 1e8;
    tail = trim(tail.substr(3));
  }
  suffix = tail;
  return true;
}

}  // namespace

std::optional<units::Currency> parse_currency(std::string_view word, bool any_case) {
  word = trim(word);
  for (const auto& w : kCurrencyWords)
    if (word == w.word || (any_case && iequals(word, w.word))) return units::Currency::of(w.code);
  if (word.size() != 3 || !ascii_letter(word[0]) || !ascii_letter(word[1]) || !ascii_letter(word[2]))
    return std::nullopt;
  if (!any_case && !units::is_currency_code(word)) return std::nullopt;
  std::string code;
  for (const char c : word) code += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return units::Currency::of(code);
}

std::optional<units::Money> parse_money(std::string_view text, UnitProblem* problem) {
  set(problem, UnitProblem::None);
  std::string_view prefix, suffix;
  std::string number;
  double scale = 1;
  if (!split_amount(trim(text), prefix, number, scale, suffix)) {
    set(problem, UnitProblem::Malformed);
    return std::nullopt;
  }
  const auto v = parse_count(number);
  if (!v || suffix.find(' ') != std::string_view::npos) {
    set(problem, has_decimal_comma(number) ? UnitProblem::DecimalComma : UnitProblem::Malformed);
    return std::nullopt;
  }
  // The currency: a word or sign before the amount ("$2M", "RMB 5M") or after it ("5M CNY", "500万元").
  const auto before = prefix.empty() ? std::nullopt : parse_currency(prefix);
  const auto after = suffix.empty() ? std::nullopt : parse_currency(suffix);
  if ((!prefix.empty() && !before) || (!suffix.empty() && !after)) {
    set(problem, UnitProblem::UnknownCurrency);
    return std::nullopt;
  }
  if (before && after && !(*before == *after)) {
    set(problem, UnitProblem::Malformed);
    return std::nullopt;
  }
  if (!before && !after) {
    set(problem, UnitProblem::MissingCurrency);
    return std::nullopt;
  }
  const double major = *v * scale;
  if (!std::isfinite(major) || major <= 0 || major > 9e15) {
    set(problem, major <= 0 ? UnitProblem::Negative : UnitProblem::Malformed);
    return std::nullopt;
  }
  return units::Money::of_minor(static_cast<std::int64_t>(std::llround(major * 100.0)), before ? *before : *after);
}

}  // namespace flopcast::io

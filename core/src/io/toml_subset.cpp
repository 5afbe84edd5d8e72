// The part of TOML (toml.io, v1.0.0) that training job configs use: [table] and [a.b] headers,
// `key = value` with a basic "string" or literal 'string', an integer or float (underscores
// allowed), true/false, or an array on one or more lines; # comments. Inline tables and
// multi-line strings are refused at their line, so that nothing is read wrongly.
#include <string>

#include "training_log_detail.hpp"

namespace flopcast::io::detail {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

/// Calls `at(c)` for each character of `s` outside a quoted string (TOML's "..." with \ escapes
/// and '...' literals) until it returns false; returns where it stopped (s.size() if it did not).
template <class At>
std::size_t scan_unquoted(const std::string& s, At at) {
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == '\\' && quote == '"')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (!at(c)) {
      return i;
    }
  }
  return s.size();
}

/// `s` without a trailing # comment (a '#' inside a string stays).
std::string without_comment(const std::string& s) {
  return s.substr(0, scan_unquoted(s, [](char c) { return c != '#'; }));
}

/// Bracket depth of `s` outside strings.
int depth(const std::string& s) {
  int d = 0;
  scan_unquoted(s, [&](char c) {
    d += c == '[' ? 1 : c == ']' ? -1 : 0;
    return true;
  });
  return d;
}

/// The value as Settings keep it: a string without quotes (escapes \" and \\ undone), others as written.
std::optional<std::string> scalar(const std::string& v) {
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') return v.substr(1, v.size() - 2);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    std::string out;
    for (std::size_t i = 1; i + 1 < v.size(); ++i) {
      if (v[i] == '\\' && i + 2 < v.size()) ++i;
      out += v[i];
    }
    return out;
  }
  if (v == "true" || v == "false") return v;
  if (!v.empty() && v.front() == '[') return v;
  std::string digits;
  for (char c : v)
    if (c != '_') digits += c;
  std::size_t used = 0;
  if (leading_number(digits, false, &used) && used == digits.size()) return digits;
  return std::nullopt;
}

}  // namespace

bool read_toml_subset(const std::string& text, const std::string& file, Settings& out, scenario::Diagnostics& diags) {
  std::string table, pending_key, pending_value;
  int line_no = 0, pending_line = 0;
  std::size_t at = 0;
  bool ok = true;
  while (at <= text.size()) {
    const auto nl = text.find('\n', at);
    const std::string raw = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    at = nl == std::string::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    const std::string line = trim(without_comment(raw));
    if (!pending_key.empty()) {  // an array over several lines
      pending_value += " " + line;
      if (depth(pending_value) <= 0) {
        out.put(pending_key, pending_value, pending_line);
        pending_key.clear();
      }
      continue;
    }
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.size() < 3 || line.back() != ']' || line[1] == '[') {
        diags.error({file, line_no, 1}, "", "not a TOML table header the job config reader knows: '" + line + "'",
                    "write tables as [name] or [a.b]; arrays of tables ([[...]]) are not read");
        ok = false;
        continue;
      }
      table = trim(line.substr(1, line.size() - 2));
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      diags.error({file, line_no, 1}, "", "expected key = value, got '" + line + "'",
                  "see the job config's TOML syntax");
      ok = false;
      continue;
    }
    const std::string key = (table.empty() ? "" : table + ".") + trim(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 1));
    if (!value.empty() && value.front() == '[' && depth(value) > 0) {
      pending_key = key;
      pending_value = value;
      pending_line = line_no;
      continue;
    }
    if (const auto v = scalar(value)) {
      out.put(key, *v, line_no);
    } else {
      diags.error(
          {file, line_no, static_cast<int>(raw.find(value)) + 1}, key,
          "a value the job config reader does not read: '" + value + "'",
          "write a string, a number, true/false or an array (inline tables and multi-line strings are not read)");
      ok = false;
    }
  }
  if (!pending_key.empty()) {
    diags.error({file, pending_line, 1}, pending_key, "the array is not closed", "close it with ']'");
    ok = false;
  }
  return ok;
}

}  // namespace flopcast::io::detail

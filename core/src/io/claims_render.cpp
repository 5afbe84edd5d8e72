#include "flopcast/io/claims_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "flopcast/units/text.hpp"

namespace flopcast::io {
namespace {

using claims::ClaimResult;
using claims::ClaimsReport;
using claims::VerdictKind;

constexpr VerdictKind kAllKinds[] = {VerdictKind::Holds,       VerdictKind::Optimistic, VerdictKind::Pessimistic,
                                     VerdictKind::Contradicts, VerdictKind::Impossible, VerdictKind::CannotJudge};

/// "43 claims judged: 6 hold, 12 optimistic, ..."
std::string summary_line(const ClaimsReport& r) {
  std::string s = fmt::format("{} claim{} judged", r.results.size(), r.results.size() == 1 ? "" : "s");
  // Singular and plural of each verdict's label.
  static const std::pair<const char*, const char*> kLabels[] = {
      {"holds", "hold"},
      {"optimistic", "optimistic"},
      {"pessimistic", "pessimistic"},
      {"contradicts another claim", "contradict another claim"},
      {"impossible", "impossible"},
      {"cannot be judged", "cannot be judged"}};
  const char* sep = ": ";
  for (std::size_t i = 0; i < std::size(kAllKinds); ++i) {
    const std::size_t n = r.count(kAllKinds[i]);
    if (n == 0) continue;
    s += fmt::format("{}{} {}", sep, n, n == 1 ? kLabels[i].first : kLabels[i].second);
    sep = ", ";
  }
  if (!r.errors.empty())
    s += fmt::format("; {} problem{} in claims not judged (bad input)", r.errors.size(),
                     r.errors.size() == 1 ? "" : "s");
  return s;
}

std::string figure_or_dash(const ClaimResult& c) { return c.verdict.figure.known ? c.verdict.figure.text : "-"; }

std::string pad(const std::string& s, std::size_t width) {
  // Pads by code points so UTF-8 text (a vendor's name) lines up.
  std::size_t cps = 0;
  for (unsigned char ch : s) cps += (ch & 0xC0) != 0x80 ? 1 : 0;
  return cps >= width ? s : s + std::string(width - cps, ' ');
}

std::size_t width_of(const std::string& s) {
  std::size_t cps = 0;
  for (unsigned char ch : s) cps += (ch & 0xC0) != 0x80 ? 1 : 0;
  return cps;
}

}  // namespace

std::string claims_text(const ClaimsReport& r) {
  std::string out = "Claims check: " + (r.title.empty() ? r.file : r.title + " (" + r.file + ")") + "\n";
  out += summary_line(r) + fmt::format(" (tolerance {:.0f}%)\n\n", claims::kTolerance * 100);
  const std::vector<std::string> head{"claim", "kind", "claimed", "verdict", "flopcast's figure", "how"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : r.results)
    rows.push_back({c.id, to_string(c.kind), c.claimed.empty() ? "-" : c.claimed, c.verdict.word(), figure_or_dash(c),
                    c.verdict.how});
  std::vector<std::size_t> w(head.size(), 0);
  for (std::size_t i = 0; i < head.size(); ++i) w[i] = width_of(head[i]);
  for (const auto& row : rows)
    for (std::size_t i = 0; i + 1 < row.size(); ++i) w[i] = std::max(w[i], width_of(row[i]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i) l += i + 1 < cells.size() ? pad(cells[i], w[i] + 2) : cells[i];
    while (!l.empty() && l.back() == ' ') l.pop_back();
    return l + "\n";
  };
  out += line(head);
  for (const auto& row : rows) out += line(row);
  out += "\nReasons and notes\n";
  for (const auto& c : r.results) {
    out += fmt::format("  {} ({}, {}): \"{}\"\n", c.id, to_string(c.kind), c.source, c.quote);
    if (!c.reading.empty()) out += "    reading  " + c.reading + "\n";
    out += "    verdict  " + c.verdict.line() + "\n";
    for (const auto& n : c.verdict.notes) out += "    note     " + n + "\n";
  }
  if (!r.errors.empty()) {
    out += "\nNot judged (bad input)\n";
    for (const auto& e : r.errors) out += "  " + e.str() + "\n";
  }
  return out;
}

std::string claims_json(const ClaimsReport& r) {
  using nlohmann::ordered_json;
  ordered_json doc;
  doc["file"] = r.file;
  doc["title"] = r.title;
  doc["tolerance"] = claims::kTolerance;
  ordered_json summary;
  summary["claims"] = r.results.size();
  for (VerdictKind k : kAllKinds) {
    std::string name = to_string(k);
    std::replace(name.begin(), name.end(), ' ', '_');
    summary[name] = r.count(k);
  }
  summary["errors"] = r.errors.size();
  doc["summary"] = summary;
  ordered_json list = ordered_json::array();
  for (const auto& c : r.results) {
    ordered_json j;
    j["id"] = c.id;
    j["kind"] = to_string(c.kind);
    j["figure"] = c.figure;
    j["quote"] = c.quote;
    j["source"] = c.source;
    j["claimed"] = c.claimed;
    j["reading"] = c.reading;
    j["location"] = c.where.str();
    ordered_json v;
    v["kind"] = to_string(c.verdict.kind);
    v["word"] = c.verdict.word();
    if (c.verdict.kind == VerdictKind::Optimistic || c.verdict.kind == VerdictKind::Pessimistic)
      v["percent"] = c.verdict.percent;
    else
      v["percent"] = nullptr;
    v["others"] = c.verdict.others;
    v["reason"] = c.verdict.reason;
    j["verdict"] = v;
    ordered_json f;
    f["known"] = c.verdict.figure.known;
    if (c.verdict.figure.known)
      f["value"] = c.verdict.figure.value;
    else
      f["value"] = nullptr;
    f["unit"] = c.verdict.figure.unit;
    f["text"] = c.verdict.figure.text;
    j["computed"] = f;
    j["how"] = c.verdict.how;
    j["notes"] = c.verdict.notes;
    list.push_back(std::move(j));
  }
  doc["claims"] = std::move(list);
  ordered_json errors = ordered_json::array();
  for (const auto& e : r.errors) {
    ordered_json j;
    j["location"] = e.where.str();
    j["key"] = e.key;
    j["message"] = e.message;
    j["hint"] = e.hint;
    j["text"] = e.str();
    errors.push_back(std::move(j));
  }
  doc["errors"] = std::move(errors);
  return doc.dump(2) + "\n";
}

namespace {

const char* css_class(VerdictKind k) {
  switch (k) {
    case VerdictKind::Holds:
      return "holds";
    case VerdictKind::Optimistic:
    case VerdictKind::Pessimistic:
      return "off";
    case VerdictKind::Contradicts:
      return "contradicts";
    case VerdictKind::Impossible:
      return "impossible";
    case VerdictKind::CannotJudge:
      return "unknown";
  }
  return "unknown";
}

}  // namespace

std::string claims_markdown(const ClaimsReport& r) {
  std::string out = "# Claims check: " + units::markdown_cell(r.title.empty() ? r.file : r.title) + "\n\n";
  out += "`" + r.file + "`: " + summary_line(r) + fmt::format(" (tolerance {:.0f}%).\n\n", claims::kTolerance * 100);
  out += "| claim | kind | claimed | verdict | flopcast's figure | how |\n|---|---|---|---|---|---|\n";
  for (const auto& c : r.results)
    out +=
        fmt::format("| {} | {} | {} | {} | {} | {} |\n", units::markdown_cell(c.id), to_string(c.kind),
                    units::markdown_cell(c.claimed.empty() ? "-" : c.claimed), units::markdown_cell(c.verdict.word()),
                    units::markdown_cell(figure_or_dash(c)), units::markdown_cell(c.verdict.how));
  out += "\n## Reasons and notes\n\n";
  for (const auto& c : r.results) {
    out += fmt::format("- **{}** ({}, {}): \"{}\"  \n  {}{}\n", units::markdown_cell(c.id), to_string(c.kind),
                       units::markdown_cell(c.source), units::markdown_cell(c.quote),
                       c.reading.empty() ? "" : "reading: " + units::markdown_cell(c.reading) + "  \n  ",
                       units::markdown_cell(c.verdict.line()));
    for (const auto& n : c.verdict.notes) out += "  - " + units::markdown_cell(n) + "\n";
  }
  if (!r.errors.empty()) {
    out += "\n## Not judged (bad input)\n\n";
    for (const auto& e : r.errors) out += "- `" + units::markdown_cell(e.str()) + "`\n";
  }
  return out;
}

std::string claims_html(const ClaimsReport& r) {
  const std::string title = "Claims check: " + (r.title.empty() ? r.file : r.title);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    units::html_escape(title) + "</title>\n";
  out +=
      "<style>\nbody{font-family:sans-serif;margin:2em;color:#222}\ntable{border-collapse:collapse;font-size:90%}\n"
      "th,td{border:1px solid #ccc;padding:4px 6px;vertical-align:top;text-align:left}\nth{background:#eee}\n"
      ".holds{background:#e3f4e1}\n.off{background:#fdf2d0}\n.contradicts{background:#f9dcc4}\n"
      ".impossible{background:#f6c9c9}\n.unknown{background:#e8e8e8}\nli{margin-bottom:.4em}\n</style>\n";
  out += "</head>\n<body>\n<h1>" + units::html_escape(title) + "</h1>\n<p><code>" + units::html_escape(r.file) +
         "</code>: " + units::html_escape(summary_line(r)) +
         fmt::format(" (tolerance {:.0f}%).</p>\n", claims::kTolerance * 100);
  out +=
      "<table>\n<tr><th>claim</th><th>kind</th><th>claimed</th><th>verdict</th><th>flopcast's figure</th><th>how</th></tr>\n";
  for (const auto& c : r.results)
    out += fmt::format("<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       css_class(c.verdict.kind), units::html_escape(c.id), to_string(c.kind),
                       units::html_escape(c.claimed.empty() ? "-" : c.claimed), units::html_escape(c.verdict.word()),
                       units::html_escape(figure_or_dash(c)), units::html_escape(c.verdict.how));
  out += "</table>\n<h2>Reasons and notes</h2>\n<ul>\n";
  for (const auto& c : r.results) {
    out += fmt::format("<li><b>{}</b> ({}, {}): &ldquo;{}&rdquo;<br>{}{}", units::html_escape(c.id), to_string(c.kind),
                       units::html_escape(c.source), units::html_escape(c.quote),
                       c.reading.empty() ? "" : "reading: " + units::html_escape(c.reading) + "<br>",
                       units::html_escape(c.verdict.line()));
    if (!c.verdict.notes.empty()) {
      out += "<ul>";
      for (const auto& n : c.verdict.notes) out += "<li>" + units::html_escape(n) + "</li>";
      out += "</ul>";
    }
    out += "</li>\n";
  }
  out += "</ul>\n";
  if (!r.errors.empty()) {
    out += "<h2>Not judged (bad input)</h2>\n<ul>\n";
    for (const auto& e : r.errors) out += "<li><code>" + units::html_escape(e.str()) + "</code></li>\n";
    out += "</ul>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace flopcast::io

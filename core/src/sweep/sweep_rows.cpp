#include "sweep_rows.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace flopcast::sweep::detail {
namespace {

std::string csv_cell(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (const char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_string(const std::string& v) {
  std::string out = "\"";
  for (const unsigned char c : v) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20)
          out += fmt::format("\\u{:04x}", c);
        else
          out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

/// A cell as a JSON value of its column's type: null when empty; a number or boolean when the
/// text is one (a figure that is not, e.g. a hand-edited cell, stays a string rather than
/// becoming invalid JSON).
std::string json_cell(CellType t, const std::string& v) {
  if (v.empty()) return "null";
  const bool boolean = v == "true" || v == "false";
  switch (t) {
    case CellType::Integer:
    case CellType::Number:
      return is_json_number(v) ? v : json_string(v);
    case CellType::Boolean:
      return boolean ? v : json_string(v);
    case CellType::Value:
      return is_json_number(v) || boolean ? v : json_string(v);
    case CellType::Text:
      break;
  }
  return json_string(v);
}

/// Splits one CSV record (our own writer's quoting).
std::vector<std::string> split_csv(std::string_view line) {
  std::vector<std::string> cells;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        cur += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  cells.push_back(std::move(cur));
  return cells;
}

/// The '\n' that ends the record starting at `pos`, npos when there is none (a torn last
/// record). In CSV a line break inside a quoted field is part of the field (RFC 4180).
std::size_t record_end(Format f, const std::string& text, std::size_t pos) {
  if (f == Format::Jsonl) return text.find('\n', pos);
  bool quoted = false;
  for (std::size_t i = pos; i < text.size(); ++i) {
    if (text[i] == '"')
      quoted = !quoted;  // "" inside a quoted field toggles twice
    else if (text[i] == '\n' && !quoted)
      return i;
  }
  return std::string::npos;
}

std::string json_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

std::string header_text(Format f, const std::vector<Column>& cols) {
  if (f == Format::Jsonl) return "";
  std::string h = "point";
  for (const auto& c : cols) h += "," + csv_cell(c.name);
  return h + "\n";
}

int header_lines(Format f) { return f == Format::Csv ? 1 : 0; }

std::string row_line(Format f, std::int64_t point, const std::vector<Column>& cols,
                     const std::vector<std::string>& cells) {
  std::string line;
  if (f == Format::Csv) {
    line = std::to_string(point);
    for (std::size_t i = 0; i < cols.size(); ++i) line += "," + csv_cell(i < cells.size() ? cells[i] : "");
  } else {
    line = "{\"point\":" + std::to_string(point);
    for (std::size_t i = 0; i < cols.size(); ++i)
      line += "," + json_string(cols[i].name) + ":" + json_cell(cols[i].type, i < cells.size() ? cells[i] : "");
    line += "}";
  }
  return line + "\n";
}

std::int64_t shard_size(std::int64_t points, int k, int n) {
  const std::int64_t first = k - 1;
  return first < points ? (points - 1 - first) / n + 1 : 0;
}

bool is_json_number(std::string_view v) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
    return i > start;
  };
  if (i < v.size() && v[i] == '-') ++i;
  if (i < v.size() && v[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < v.size() && v[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == v.size();
}

std::int64_t row_point(Format f, std::string_view line) {
  std::size_t i = 0;
  if (f == Format::Jsonl) {
    constexpr std::string_view pre = "{\"point\":";
    if (line.substr(0, pre.size()) != pre) return -1;
    i = pre.size();
  }
  std::int64_t v = 0;
  const std::size_t start = i;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && i - start < 18) v = v * 10 + (line[i++] - '0');
  if (i == start || i >= line.size()) return -1;
  if (f == Format::Csv ? line[i] != ',' : (line[i] != ',' && line[i] != '}')) return -1;
  return v;
}

RowsFile read_rows(const std::string& path) {
  RowsFile rf;
  rf.format = format_of_path(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    rf.error = path + ": cannot read (" + std::strerror(errno) + ")";
    return rf;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  // A UTF-8 byte order mark (spreadsheets write one) is not part of the first field.
  std::size_t pos = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  rf.complete_bytes = pos;
  while (pos < text.size()) {
    const std::size_t end = record_end(rf.format, text, pos);
    if (end == std::string::npos) {
      rf.torn = true;
      break;
    }
    // RFC 4180 ends records in CRLF (Python's csv module writes it); flopcast writes LF.
    const std::size_t len = end > pos && text[end - 1] == '\r' ? end - 1 - pos : end - pos;
    rf.rows.emplace_back(text, pos, len);
    pos = end + 1;
    rf.complete_bytes = pos;
  }
  if (rf.format == Format::Jsonl) return rf;
  if (rf.rows.empty()) {
    rf.error = path + ": no complete header row (the file is empty or was cut before its header)";
    return rf;
  }
  if (rf.rows.front().rfind("# flopcast-sweep", 0) == 0) {
    rf.error = path +
               ":1: written by an older flopcast (the sweep's identity in a comment line; now in a sidecar "
               "FILE.meta.json and the CSV starts with its header row): run the sweep again to rewrite it";
    return rf;
  }
  auto names = split_csv(rf.rows.front());
  if (names.empty() || names.front() != "point") {
    rf.error = path + ":1: not a flopcast sweep file (its header row must start with 'point')";
    return rf;
  }
  rf.header.assign(names.begin() + 1, names.end());
  rf.rows.erase(rf.rows.begin());
  return rf;
}

bool row_cells(Format f, const std::string& row, const std::vector<std::string>& columns,
               std::vector<std::string>& out) {
  out.clear();
  if (f == Format::Csv) {
    auto cells = split_csv(row);
    if (cells.size() != columns.size() + 1) return false;
    out.assign(std::make_move_iterator(cells.begin() + 1), std::make_move_iterator(cells.end()));
    return true;
  }
  const auto j = nlohmann::json::parse(row, nullptr, false);
  if (!j.is_object()) return false;
  for (const auto& name : columns) {
    const auto it = j.find(name);
    out.push_back(it == j.end() ? std::string() : json_text(*it));
  }
  return true;
}

}  // namespace flopcast::sweep::detail

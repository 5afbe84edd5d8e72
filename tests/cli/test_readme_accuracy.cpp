// The README's accuracy table ("How close it is to measured runs") recomputed: a figure that
// drifts more than half a percentage point from what `flopcast validate` gives today fails.
//
// The contract with README.md, kept by whoever edits it:
// - The table sits between the lines <!-- accuracy-table:begin --> and <!-- accuracy-table:end -->;
//   it is a Markdown table: a header row, a |---| separator row, then one row per figure.
// - Columns are found by their header (any order, any case): "file", "figure", "count",
//   "simulation", "closed form". Other columns are allowed and ignored.
// - file: the first `name.yaml` in backquotes is a measured-run or collective benchmark file in
//   data/calibration/; the rest of the cell is free text.
// - figure: a figure of validate's summary (iteration_time_s, mfu, busbw_gbytes_s, ...).
// - count: the summary's count for that figure, exactly.
// - simulation: "M% / P%", the median and 90th-percentile absolute error of
//   `flopcast validate --json FILE` (the discrete-event step simulation).
// - closed form: "M% / P%" of `flopcast validate --json --estimate FILE`, or "(same model)" where
//   both paths share one model (collective benchmarks): then --estimate must give the
//   simulation column's figures.
// Each M and P must be within 0.5 points of the recomputed value (the table prints one decimal).
// Each case takes about 1 s (vtrain-a100-single.yaml's 1,440 runs dominate: 0.6 s per path).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_context.hpp"
#include "cli_runner.hpp"

using namespace flopcast;
using nlohmann::json;

namespace {

/// Largest drift, in percentage points, between the README and the recomputed figures.
constexpr double kTolerancePoints = 0.5;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// The cells of one Markdown table row "| a | b |" (a '|' inside backquotes does not split).
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  bool code = false;
  const std::string row = trim(line);
  for (std::size_t i = 1; i < row.size(); ++i) {  // skip the leading '|'
    const char c = row[i];
    if (c == '`') code = !code;
    if (c == '|' && !code) {
      out.push_back(trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  return out;
}

struct Row {
  int line = 0;  ///< in README.md
  std::string file, figure, simulation, closed_form;
  long count = -1;
};

/// The rows of the table between the markers; fails the test when the markers, a column or a
/// cell are not as the contract above says.
std::vector<Row> readme_table() {
  const std::string readme = test::read_file(std::string(FLOPCAST_SOURCE_DIR) + "/README.md");
  REQUIRE_MESSAGE(!readme.empty(), "README.md not found");
  const std::string begin = "<!-- accuracy-table:begin -->", end = "<!-- accuracy-table:end -->";
  const auto b = readme.find(begin), e = readme.find(end);
  REQUIRE_MESSAGE(b != std::string::npos, "README.md has no " << begin);
  REQUIRE_MESSAGE(e != std::string::npos, "README.md has no " << end);
  REQUIRE_MESSAGE(b < e, end << " comes before " << begin);
  int line_no = static_cast<int>(std::count(readme.begin(), readme.begin() + static_cast<long>(b), '\n')) + 1;
  std::istringstream lines(readme.substr(b, e - b));
  std::string line;
  std::map<std::string, std::size_t> column;
  bool separator = false;
  std::vector<Row> rows;
  while (std::getline(lines, line)) {
    const std::string t = trim(line);
    const int at = line_no++;
    if (t.empty() || t[0] != '|') continue;
    const auto c = cells(t);
    if (column.empty()) {
      for (std::size_t i = 0; i < c.size(); ++i) column[lower(c[i])] = i;
      for (const char* name : {"file", "figure", "count", "simulation", "closed form"})
        REQUIRE_MESSAGE(column.count(name) == 1, "README.md:" << at << ": the table has no column '" << name << "'");
      continue;
    }
    if (!separator) {
      REQUIRE_MESSAGE(t.find("---") != std::string::npos, "README.md:" << at << ": expected the |---| row");
      separator = true;
      continue;
    }
    REQUIRE_MESSAGE(c.size() >= column.size(), "README.md:" << at << ": " << c.size() << " cells");
    Row r;
    r.line = at;
    static const std::regex file_re("`([^`]+\\.yaml)`");
    std::smatch m;
    const std::string file_cell = c[column["file"]];
    REQUIRE_MESSAGE(std::regex_search(file_cell, m, file_re),
                    "README.md:" << at << ": no `file.yaml` in the file cell");
    r.file = m[1];
    r.figure = c[column["figure"]];
    r.simulation = c[column["simulation"]];
    r.closed_form = c[column["closed form"]];
    const std::string count = c[column["count"]];
    REQUIRE_MESSAGE(!count.empty(), "README.md:" << at << ": empty count");
    REQUIRE_MESSAGE(std::all_of(count.begin(), count.end(), [](unsigned char ch) { return std::isdigit(ch); }),
                    "README.md:" << at << ": count '" << count << "' is not a whole number");
    r.count = std::stol(count);
    rows.push_back(r);
  }
  REQUIRE_MESSAGE(!rows.empty(), "README.md: the accuracy table has no rows");
  return rows;
}

/// "3.0% / 19.5%" as (3.0, 19.5); nothing when the cell is not of that form.
std::optional<std::pair<double, double>> median_p90(const std::string& cell) {
  static const std::regex re("^\\s*([0-9]+(?:\\.[0-9]+)?)%\\s*/\\s*([0-9]+(?:\\.[0-9]+)?)%\\s*$");
  std::smatch m;
  if (!std::regex_match(cell, m, re)) return std::nullopt;
  return std::make_pair(std::stod(m[1]), std::stod(m[2]));
}

/// validate's summary of data/calibration/FILE (--estimate: the closed form), computed once per
/// file and path.
const json& summary(const std::string& file, bool estimate) {
  static std::map<std::pair<std::string, bool>, json> cache;
  const auto key = std::make_pair(file, estimate);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::vector<std::string> args{"validate", "--json"};
  if (estimate) args.emplace_back("--estimate");
  args.push_back(test::data("calibration/" + file));
  const auto r = test::run_cli(args);
  REQUIRE_MESSAGE(r.code == cli::kOk, "validate " << file << ": exit " << r.code << "\n" << r.err);
  const auto j = json::parse(r.out);
  REQUIRE(j.contains("summary"));
  return cache[key] = j["summary"];
}

/// One column of one row against the recomputed summary.
void check_cell(const Row& r, const std::string& cell, bool estimate) {
  const auto& s = summary(r.file, estimate);
  REQUIRE_MESSAGE(s.contains(r.figure), "validate " << r.file << " gives no figure '" << r.figure << "'");
  const auto& f = s[r.figure];
  CHECK(f["count"].get<long>() == r.count);
  const auto printed = median_p90(cell);
  REQUIRE_MESSAGE(printed.has_value(), "README.md:" << r.line << ": expected 'M% / P%', got '" << cell << "'");
  const double median = f["median_abs_error_pct"].get<double>(), p90 = f["p90_abs_error_pct"].get<double>();
  CHECK_MESSAGE(std::abs(printed->first - median) <= kTolerancePoints,
                "README.md:" << r.line << ": median " << printed->first << "% in the README, " << median << "% now");
  CHECK_MESSAGE(std::abs(printed->second - p90) <= kTolerancePoints,
                "README.md:" << r.line << ": p90 " << printed->second << "% in the README, " << p90 << "% now");
}

}  // namespace

TEST_CASE("README accuracy table: the simulation column matches flopcast validate within 0.5 points") {
  for (const auto& r : readme_table()) {
    CAPTURE(r.line);
    CAPTURE(r.file);
    CAPTURE(r.figure);
    check_cell(r, r.simulation, false);
  }
}

TEST_CASE("README accuracy table: the closed-form column matches flopcast validate --estimate within 0.5 points") {
  for (const auto& r : readme_table()) {
    CAPTURE(r.line);
    CAPTURE(r.file);
    CAPTURE(r.figure);
    // "(same model)": the closed form shares the simulation's model, so it prints the same figures.
    check_cell(r, r.closed_form == "(same model)" ? r.simulation : r.closed_form, true);
  }
}

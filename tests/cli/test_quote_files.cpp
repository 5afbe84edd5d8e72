// The quote's files. `flopcast quote --format xlsx`: the workbook read back cell by cell
// (tests/cli/xlsx_cells.py unzips it with Python's zipfile), its numbers compared with the quote's
// exact Money values and its formulas recomputed from the cells; the same inputs give the same
// bytes; -o is never overwritten without --force; a build without XLSX support says so.
// `--format pdf`: the same inputs and --date give the same bytes, run in separate processes.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_context.hpp"
#include "cli_runner.hpp"
#include "flopcast/app/quote_request.hpp"
#include "flopcast/app/scenario_session.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;

namespace {

using test::contains;
using test::read_file;
using test::run_cli;
using test::scenario_file;

const std::string kQuickstart = scenario_file("quickstart.yaml");
const std::string kDate = "2026-07-01";

#if FLOPCAST_TEST_HAS_XLSX
/// One cell as xlsx_cells.py prints it.
struct CellText {
  std::string formula;  ///< without '='; "" for none
  std::string value;
};
/// "Sheet!A1" -> cell.
using Cells = std::map<std::string, CellText>;

Cells read_cells(const std::filesystem::path& file) {
  const std::string cmd =
      "python3 '" + std::string(FLOPCAST_TESTS_DIR) + "/cli/xlsx_cells.py' '" + file.string() + "' 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  REQUIRE_MESSAGE(pclose(pipe) == 0, out);
  Cells cells;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::size_t at = 0;
    for (std::size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1)
      f.push_back(line.substr(at, tab - at));
    f.push_back(line.substr(at));
    REQUIRE_MESSAGE(f.size() == 4, line);
    cells[f[0] + "!" + f[1]] = {f[2], f[3]};
  }
  return cells;
}

/// The member `name` of the zip `file`, read with Python's zipfile.
std::string zip_member(const std::filesystem::path& file, const std::string& name) {
  const std::string cmd =
      "python3 -c \"import sys,zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))\" '" +
      file.string() + "' '" + name + "'";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  REQUIRE(pclose(pipe) == 0);
  return out;
}

/// The cell's number in micro-units (1e-6): the written decimal, as the double it denotes,
/// rounded to the micro-unit (every amount and price of a quote is a whole number of them).
std::int64_t micro_of(const Cells& cells, const std::string& ref) {
  const auto it = cells.find(ref);
  REQUIRE_MESSAGE(it != cells.end(), "no cell " << ref);
  return std::llround(std::stod(it->second.value) * 1e6);
}

__extension__ typedef __int128 i128;  // products of two micro-unit figures exceed 64 bits

/// `v` / `div` rounded half away from zero (Excel's ROUND and flopcast's money rounding).
std::int64_t div_round(i128 v, i128 div) {
  const i128 q = (v < 0 ? v - div / 2 : v + div / 2) / div;
  return static_cast<std::int64_t>(q);
}

/// Recomputes `ref`'s formula from the cells it names, in micro-units, exactly. The workbook's
/// formulas take four forms: ROUND(X*Y,2), SUM(X:Y) over one column, X+Y and 'Sheet'!X.
std::int64_t eval(const Cells& cells, const std::string& sheet, const std::string& ref);

std::int64_t value_of(const Cells& cells, const std::string& sheet, const std::string& ref) {
  const auto it = cells.find(sheet + "!" + ref);
  REQUIRE_MESSAGE(it != cells.end(), "no cell " << sheet << "!" << ref);
  return it->second.formula.empty() ? micro_of(cells, sheet + "!" + ref) : eval(cells, sheet, ref);
}

std::int64_t eval(const Cells& cells, const std::string& sheet, const std::string& ref) {
  const std::string f = cells.at(sheet + "!" + ref).formula;
  static const std::regex round_mul(R"(ROUND\(\$?([A-Z])\$?(\d+)\*\$?([A-Z])\$?(\d+),2\))");
  static const std::regex sum(R"(SUM\(([A-Z])(\d+):([A-Z])(\d+)\))");
  static const std::regex add(R"(([A-Z]\d+)\+([A-Z]\d+))");
  static const std::regex other(R"('([^']+)'!([A-Z]\d+))");
  std::smatch m;
  if (std::regex_match(f, m, round_mul)) {
    const i128 x = value_of(cells, sheet, m.str(1) + m.str(2));
    const i128 y = value_of(cells, sheet, m.str(3) + m.str(4));
    return div_round(x * y, 10'000'000'000) * 10'000;  // micro x micro -> cents -> micro
  }
  if (std::regex_match(f, m, sum)) {
    REQUIRE(m.str(1) == m.str(3));
    std::int64_t total = 0;
    for (int r = std::stoi(m.str(2)); r <= std::stoi(m.str(4)); ++r) {
      const std::string cell = m.str(1) + std::to_string(r);
      if (cells.count(sheet + "!" + cell)) total += value_of(cells, sheet, cell);
    }
    return total;
  }
  if (std::regex_match(f, m, add)) return value_of(cells, sheet, m.str(1)) + value_of(cells, sheet, m.str(2));
  if (std::regex_match(f, m, other)) return value_of(cells, m.str(1), m.str(2));
  FAIL("a formula this test does not know: " << f);
  return 0;
}

/// The rows of column A of `sheet` whose text is `label`, in order.
std::vector<int> rows_labelled(const Cells& cells, const std::string& sheet, const std::string& label) {
  std::vector<int> rows;
  for (int r = 1; r < 200; ++r) {
    const auto it = cells.find(sheet + "!A" + std::to_string(r));
    if (it != cells.end() && it->second.value == label) rows.push_back(r);
  }
  return rows;
}

/// The quickstart's quote as `flopcast quote` makes it, in-process.
quote::Quote quickstart_quote() {
  app::SessionOutcome s = app::load_scenario_session(kQuickstart, test::shipped_catalog());
  REQUIRE_MESSAGE(s.ok(), s.diags.str());
  app::SimReport r = app::make_report(s.session->scenario, s.session->profile);
  app::QuoteOptions o;
  o.customer = "Example Labs";
  o.date = kDate;
  app::QuoteOutcome q = app::prepare_quote(r, "", o);
  REQUIRE(q.ok());
  return std::move(*q.quote);
}

/// Checks one bill block (P50 or P90) of sheet Bill from its subtotal row: each line's number is
/// the Money amount exactly, each formula recomputes to it, and subtotal, tax and total recompute
/// to the quote's.
void check_block(const Cells& cells, int subtotal_row, const pricing::Bill& bill, const units::Money& tax) {
  std::vector<const pricing::LineItem*> lines;
  for (const pricing::LineItem& i : bill.items)
    if (i.in_total) lines.push_back(&i);
  REQUIRE(lines.size() >= 1);
  const int first = subtotal_row - static_cast<int>(lines.size());
  int products = 0;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string e = "E" + std::to_string(first + static_cast<int>(k));
    CAPTURE(e);
    CHECK(cells.at("Bill!A" + std::to_string(first + static_cast<int>(k))).value == lines[k]->label);
    CHECK(micro_of(cells, "Bill!" + e) == lines[k]->amount.micro());  // the written number
    CHECK(value_of(cells, "Bill", e) == lines[k]->amount.micro());    // its formula, recomputed
    if (!cells.at("Bill!" + e).formula.empty()) ++products;
  }
  CHECK(products >= 1);  // the GPU time is quantity x unit price, a formula
  const std::string sub = "E" + std::to_string(subtotal_row);
  CHECK(cells.at("Bill!" + sub).formula.rfind("SUM(", 0) == 0);
  CHECK(value_of(cells, "Bill", sub) == bill.total.micro());
  const std::string tax_cell = "E" + std::to_string(subtotal_row + 1);
  CHECK(contains(cells.at("Bill!" + tax_cell).formula, "$B$3"));  // from the rate cell
  CHECK(value_of(cells, "Bill", tax_cell) == tax.micro());
  const std::string total = "E" + std::to_string(subtotal_row + 2);
  CHECK(value_of(cells, "Bill", total) == (bill.total + tax).micro());
  CHECK(micro_of(cells, "Bill!" + total) == (bill.total + tax).micro());
}
#endif

}  // namespace

TEST_SUITE("cli.quote_xlsx") {
#if FLOPCAST_TEST_HAS_PDF
  TEST_CASE("quote --format pdf: two processes with the same inputs and --date write the same bytes") {
    test::TempDir tmp("quote-pdf-det");
    std::vector<std::string> pdfs;
    for (const char* name : {"a.pdf", "b.pdf", "c.pdf"}) {
      const auto file = tmp.path / name;
      // Separate processes: each has its own random hash seed and clock, as two runs would.
      const std::string date = std::string(name) == "c.pdf" ? "2026-07-02" : kDate;
      const std::string cmd = "QT_QPA_PLATFORM=offscreen '" + std::string(FLOPCAST_CLI_PATH) + "' quote '" +
                              kQuickstart + "' --date " + date + " --format pdf -o '" + file.string() +
                              "' > /dev/null 2>&1";
      REQUIRE(std::system(cmd.c_str()) == 0);
      pdfs.push_back(read_file(file));
      if (pdfs.size() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // another second
    }
    REQUIRE(pdfs[0].rfind("%PDF", 0) == 0);
    CHECK(pdfs[0] == pdfs[1]);
    CHECK(contains(pdfs[0], "/CreationDate (D:20260701000000"));  // the issue date, not the clock
    CHECK(contains(pdfs[2], "/CreationDate (D:20260702000000"));
    CHECK(pdfs[2] != pdfs[0]);
  }
#endif

#if FLOPCAST_TEST_HAS_XLSX
  TEST_CASE("quote --format xlsx: bill lines as numbers, amounts and totals as formulas equal to the quote's money") {
    test::TempDir tmp("quote-xlsx");
    const auto file = tmp.path / "quote.xlsx";
    const auto r = run_cli(
        {"quote", kQuickstart, "--customer", "Example Labs", "--date", kDate, "--format", "xlsx", "-o", file.string()});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    const quote::Quote q = quickstart_quote();
    REQUIRE(q.recommended);
    REQUIRE(q.input.tax);
    const pricing::ComparisonRow& best = q.input.plans.rows[*q.recommended];
    const Cells cells = read_cells(file);

    // Sheet Quote: the header and the requirements.
    CHECK(cells.at("Quote!B2").value == q.id);
    CHECK(cells.at("Quote!B3").value == "Example Labs");
    CHECK(cells.at("Quote!B4").value == q.input.issuer);
    CHECK(cells.at("Quote!B5").value == kDate);
    CHECK(cells.at("Quote!B6").value == q.valid_until);
    const auto met = rows_labelled(cells, "Quote", "Training tokens");
    REQUIRE(met.size() == 1);
    CHECK(cells.at("Quote!D" + std::to_string(met[0])).value == (q.requirements.front().met ? "yes" : "NO"));

    // Sheet Bill: the tax rate cell, then a P50 and a P90 block.
    CHECK(std::llround(std::stod(cells.at("Bill!B3").value) * 10'000) == q.input.tax->rate_bp);
    const auto subtotals = rows_labelled(cells, "Bill", "Subtotal before tax");
    REQUIRE(subtotals.size() == 2);
    {
      INFO("P50 block");
      check_block(cells, subtotals[0], best.p50, q.tax_p50);
    }
    {
      INFO("P90 block");
      check_block(cells, subtotals[1], best.p90, q.tax_p90);
    }
    // Sheet Quote's totals refer to the Bill's cells.
    const auto before_tax = rows_labelled(cells, "Quote", "Total before tax");
    REQUIRE(before_tax.size() == 1);
    const std::string row = std::to_string(before_tax[0]);
    CHECK(cells.at("Quote!B" + row).formula == "'Bill'!E" + std::to_string(subtotals[0]));
    CHECK(value_of(cells, "Quote", "B" + row) == best.p50.total.micro());
    CHECK(value_of(cells, "Quote", "C" + row) == best.p90.total.micro());

    // Sheet Assumptions: one sentence a row.
    REQUIRE(!q.assumptions.empty());
    for (std::size_t k = 0; k < q.assumptions.size(); ++k)
      CHECK(cells.at("Assumptions!A" + std::to_string(k + 2)).value == q.assumptions[k]);

    // Money in the currency's format (CNY: the yuan sign, grouped, two decimals).
    CHECK(contains(zip_member(file, "xl/styles.xml"), "formatCode=\"\xC2\xA5#,##0.00\""));
  }

  TEST_CASE("quote --format xlsx --lang zh-CN: Chinese sheets and labels, the same formulas and money") {
    test::TempDir tmp("quote-xlsx-zh");
    const auto file = tmp.path / "quote.xlsx";
    const auto r = run_cli({"quote", kQuickstart, "--customer", "Example Labs", "--date", kDate, "--lang", "zh-CN",
                            "--format", "xlsx", "-o", file.string()});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    const quote::Quote q = quickstart_quote();
    REQUIRE(q.recommended);
    const pricing::ComparisonRow& best = q.input.plans.rows[*q.recommended];
    const Cells cells = read_cells(file);
    CHECK(cells.at("报价单!A2").value == "报价单编号");
    CHECK(cells.at("报价单!B2").value == q.id);  // the id does not depend on the language
    CHECK(cells.at("报价单!A5").value == "日期");
    CHECK(cells.at("报价单!B5").value == "2026年7月1日");
    CHECK(cells.count("Quote!A1") == 0);  // no English sheet
    const auto met = rows_labelled(cells, "报价单", "训练词元数");
    REQUIRE(met.size() == 1);
    CHECK(cells.at("报价单!D" + std::to_string(met[0])).value == (q.requirements.front().met ? "满足" : "未满足"));
    const auto subtotals = rows_labelled(cells, "账单", "税前小计");
    REQUIRE(subtotals.size() == 2);
    const auto before_tax = rows_labelled(cells, "报价单", "税前合计");
    REQUIRE(before_tax.size() == 1);
    const std::string row = std::to_string(before_tax[0]);
    CHECK(cells.at("报价单!B" + row).formula == "'账单'!E" + std::to_string(subtotals[0]));
    CHECK(value_of(cells, "报价单", "B" + row) == best.p50.total.micro());
    CHECK(value_of(cells, "账单", "E" + std::to_string(subtotals[1])) == best.p90.total.micro());
  }

  TEST_CASE("quote --format xlsx --lang zh-CN: numbers as exact decimals, the tax note and units in Chinese") {
    // Once the workbook held 70502.39999999999 and 604.4400000000001 (libxlsxwriter prints a double
    // with 16 digits) and an English tax note in the Chinese workbook.
    test::TempDir tmp("quote-xlsx-exact");
    const auto file = tmp.path / "quote.xlsx";
    const auto r =
        run_cli({"quote", kQuickstart, "--date", kDate, "--lang", "zh-CN", "--format", "xlsx", "-o", file.string()});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    const Cells cells = read_cells(file);
    // Every number is a decimal of at most six places (money has two, unit prices up to six):
    // the amount's integer minor units (or micro-units) written out, not a binary double's digits.
    static const std::regex number(R"(-?[0-9]+(\.[0-9]+)?)"), exact(R"(-?[0-9]+(\.[0-9]{1,6})?)");
    int numbers = 0;
    for (const auto& cell : cells) {
      const auto& ref = cell.first;  // not a structured binding: CAPTURE's lambda takes it (clang 14)
      const auto& c = cell.second;
      if (!std::regex_match(c.value, number)) continue;
      ++numbers;
      CAPTURE(ref);
      CHECK_MESSAGE(std::regex_match(c.value, exact), c.value);
    }
    CHECK(numbers > 10);
    // The tax rate's note: Chinese, as the quote's terms say it.
    const auto rate = rows_labelled(cells, "账单", "税率 (增值税)");
    REQUIRE(rate.size() == 1);
    const std::string note = cells.at("账单!F" + std::to_string(rate[0])).value;
    CHECK(note.find("增值税") != std::string::npos);
    CHECK(note.find("Value-added tax") == std::string::npos);
    // The model band's ends have columns of their own beside P50 and P90 (named apart).
    bool band = false;
    for (const auto& [ref, c] : cells) band = band || c.value.rfind("模型区间（P90）快端 ×", 0) == 0;
    CHECK(band);
    // The units of the bill lines in Chinese ("GPU-day" -> "GPU·天").
    for (const auto& cell : cells)  // not a structured binding: CHECK_MESSAGE's lambda takes it (clang 14)
      if (cell.first.rfind("账单!C", 0) == 0)
        CHECK_MESSAGE(cell.second.value.find("-day") == std::string::npos, cell.first);
  }

  TEST_CASE("quote --format xlsx: the same inputs and --date give the same bytes, and -o is kept without --force") {
    test::TempDir tmp("quote-xlsx-det");
    const auto a = tmp.path / "a.xlsx";
    const auto b = tmp.path / "b.xlsx";
    for (const auto& f : {a, b})
      REQUIRE(run_cli({"quote", kQuickstart, "--date", kDate, "--format", "xlsx", "-o", f.string()}).code == cli::kOk);
    const std::string bytes = read_file(a);
    CHECK(bytes.rfind("PK", 0) == 0);  // a zip
    CHECK(bytes == read_file(b));
    // The creation time is the issue date (docProps/core.xml), not the clock.
    CHECK(contains(zip_member(a, "docProps/core.xml"),
                   "<dcterms:created xsi:type=\"dcterms:W3CDTF\">2026-07-01T00:00:00Z</dcterms:created>"));
    const auto later = tmp.path / "later.xlsx";
    REQUIRE(run_cli({"quote", kQuickstart, "--date", "2026-07-02", "--format", "xlsx", "-o", later.string()}).code ==
            cli::kOk);
    CHECK(read_file(later) != bytes);

    const auto again = run_cli({"quote", kQuickstart, "--date", "2026-07-02", "--format", "xlsx", "-o", a.string()});
    CHECK(again.code != cli::kOk);
    CHECK(contains(again.err, "--force"));
    CHECK(read_file(a) == bytes);
    const auto forced =
        run_cli({"quote", kQuickstart, "--date", "2026-07-02", "--format", "xlsx", "-o", a.string(), "--force"});
    CHECK(forced.code == cli::kOk);
    CHECK(read_file(a) == read_file(later));

    const auto terminal = run_cli({"quote", kQuickstart, "--date", kDate, "--format", "xlsx"});
    CHECK(terminal.code == cli::kUsage);
    CHECK(terminal.out.empty());
    CHECK(contains(terminal.err, "--format xlsx needs -o FILE"));
  }
#else
  TEST_CASE("quote --format xlsx in a build without XLSX support: a clear error, no file") {
    test::TempDir tmp("quote-xlsx");
    const auto file = tmp.path / "quote.xlsx";
    const auto r = run_cli({"quote", kQuickstart, "--date", kDate, "--format", "xlsx", "-o", file.string()});
    CHECK(r.code == cli::kUsage);
    CHECK(contains(r.err, "this build has no XLSX support"));
    CHECK_FALSE(std::filesystem::exists(file));
  }
#endif
}

// The quote as an .xlsx workbook (quote_xlsx.hpp), written with libxlsxwriter. Compiled only
// when FLOPCAST_XLSX is ON (quote_xlsx_none.cpp otherwise).
#include "flopcast/quote/quote_xlsx.hpp"

#include <minizip/unzip.h>
#include <minizip/zip.h>
#include <xlsxwriter.h>

#include <unistd.h>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "flopcast/quote/quote_render.hpp"
#include "flopcast/quote/quote_text.hpp"
#include "flopcast/units/format.hpp"
#include "quote_format.hpp"

namespace flopcast::quote {
namespace {

/// Every label the workbook shows. Those the other formats show too come from the quote's string
/// table (quote_text.hpp: one wording per language); the workbook's own are below.
struct XlsxText {
  const char* sheet_quote;
  const char* sheet_bill;
  const char* sheet_assumptions;
  const char* quote;
  const char* customer;
  const char* issuer;
  const char* date;
  const char* valid_until;
  const char* plan;
  const char* cluster;
  const char* parallel_plan;
  const char* currency;
  const char* total_before_tax;
  const char* total_with_tax;
  const char* requirement;
  const char* asked;
  const char* this_plan;
  const char* met;
  const char* yes;
  const char* no;
  const char* tax_rate;
  const char* no_tax;
  const char* payment;
  const char* payment_default;
  const char* description;
  const char* quantity;
  const char* unit;
  const char* unit_price;
  const char* amount;
  const char* note;
  const char* p50_block;
  const char* p90_block;
  const char* subtotal;
  const char* total;
  const char* not_added;
  const char* deposit;
  const char* no_plan;
};

/// The labels in `l`. The table's entries are string literals, so their views end in a NUL.
XlsxText text_for(QuoteLanguage l) {
  const bool zh = l == QuoteLanguage::ZhCn;
  auto shared = [l](std::string_view key) { return quote_text(l, key).data(); };
  auto own = [zh](const char* en, const char* zh_text) { return zh ? zh_text : en; };
  return XlsxText{
      .sheet_quote = own("Quote", "报价单"),
      .sheet_bill = own("Bill", "账单"),
      .sheet_assumptions = own("Assumptions", "假设条件"),
      .quote = shared("head.quote"),
      .customer = shared("head.customer"),
      .issuer = shared("head.issuer"),
      .date = shared("head.date"),
      .valid_until = shared("head.valid_until"),
      .plan = shared("heading.recommended"),
      .cluster = own("Cluster", "集群"),
      .parallel_plan = own("Parallel plan", "并行方案"),
      .currency = own("Currency", "币种"),
      .total_before_tax = shared("bill.total"),
      .total_with_tax = own("Total including tax", "含税合计"),
      .requirement = shared("req.col.what"),
      .asked = shared("req.col.asked"),
      .this_plan = shared("req.col.plan"),
      .met = shared("req.col.met"),
      .yes = shared("req.met"),
      .no = shared("req.not_met"),
      .tax_rate = own("Tax rate", "税率"),
      .no_tax = own("Prices exclude taxes", "价格不含税"),
      .payment = own("Payment", "付款方式"),
      .payment_default = shared("terms.payment.default"),
      .description = own("Description", "项目"),
      .quantity = shared("bill.col.quantity"),
      .unit = own("Unit", "单位"),
      .unit_price = shared("bill.col.unit_price"),
      .amount = own("Amount", "金额"),
      .note = shared("bill.col.note"),
      .p50_block = own("Expected run (P50)", "预期运行（P50）"),
      .p90_block = own("If the run takes the P90 time", "若按 P90 时间运行"),
      .subtotal = own("Subtotal before tax", "税前小计"),
      .total = own("Total", "合计"),
      .not_added = own("not added: part of the lines above", "不另计：已含在上述项目中"),
      .deposit = shared("bill.deposit"),
      .no_plan = shared("no_plan"),
  };
}

/// The labels of the quote's language, made once per language.
const XlsxText& text_of(const Quote& q) {
  static const XlsxText en = text_for(QuoteLanguage::En);
  static const XlsxText zh = text_for(QuoteLanguage::ZhCn);
  return q.input.language == QuoteLanguage::ZhCn ? zh : en;
}

/// "E7" for row `r`, column `c` (both from 0).
std::string cell(int r, int c) { return std::string(1, static_cast<char>('A' + c)) + std::to_string(r + 1); }

/// Seconds since 1970-01-01 00:00 UTC of a "YYYY-MM-DD" date; 0 when it is not a calendar date.
std::time_t epoch_of(const std::string& date) {
  unsigned y = 0, m = 0, d = 0;
  if (std::sscanf(date.c_str(), "%4u-%2u-%2u", &y, &m, &d) != 3) return 0;
  const std::chrono::year_month_day ymd{std::chrono::year{static_cast<int>(y)}, std::chrono::month{m},
                                        std::chrono::day{d}};
  if (!ymd.ok()) return 0;
  return static_cast<std::time_t>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::sys_days{ymd}.time_since_epoch()).count());
}

/// Number formats: money in the bill's currency ("¥#,##0.00", "$#,##0.00", else the code).
struct Formats {
  lxw_format* bold = nullptr;
  lxw_format* money = nullptr;
  lxw_format* money_bold = nullptr;
  lxw_format* price = nullptr;  ///< unit prices: up to six decimals
  lxw_format* percent = nullptr;
  lxw_format* wrap = nullptr;

  Formats(lxw_workbook* wb, const units::Currency& c) {
    const std::string code = c.str();
    const std::string prefix = code == "CNY" ? "\xC2\xA5" : code == "USD" ? "$" : code == "EUR" ? "\xE2\x82\xAC" : "";
    const std::string suffix = prefix.empty() ? " \"" + code + "\"" : "";
    const std::string money_fmt = prefix + "#,##0.00" + suffix;
    const std::string price_fmt = prefix + "#,##0.00####" + suffix;
    bold = workbook_add_format(wb);
    format_set_bold(bold);
    money = workbook_add_format(wb);
    format_set_num_format(money, money_fmt.c_str());
    money_bold = workbook_add_format(wb);
    format_set_num_format(money_bold, money_fmt.c_str());
    format_set_bold(money_bold);
    price = workbook_add_format(wb);
    format_set_num_format(price, price_fmt.c_str());
    percent = workbook_add_format(wb);
    format_set_num_format(percent, "0.00%");
    wrap = workbook_add_format(wb);
    format_set_text_wrap(wrap);
  }
};

/// Where the Bill sheet put a block's totals (rows from 0), for the Quote sheet's references.
struct BlockRows {
  int subtotal = -1, tax = -1, total = -1;
};

struct BillWriter {
  lxw_worksheet* ws;
  const Formats& f;
  const Quote& q;
  int row = 0;
  int rate_row = -1;  ///< the row of the tax rate cell (column B)

  void text(int r, int c, const std::string& s, lxw_format* fmt = nullptr) {
    worksheet_write_string(ws, static_cast<lxw_row_t>(r), static_cast<lxw_col_t>(c), s.c_str(), fmt);
  }
  void number(int r, int c, double v, lxw_format* fmt) {
    worksheet_write_number(ws, static_cast<lxw_row_t>(r), static_cast<lxw_col_t>(c), v, fmt);
  }
  void formula(int r, int c, const std::string& fml, lxw_format* fmt, double value) {
    worksheet_write_formula_num(ws, static_cast<lxw_row_t>(r), static_cast<lxw_col_t>(c), fml.c_str(), fmt, value);
  }

  /// One line: amount = ROUND(quantity x unit price, 2) when the line is such a product.
  void line(const pricing::LineItem& i) {
    const std::string label = quote_phrase(q.input.language, i.label);
    text(row, 0, i.in_total ? label : "  " + label);
    if (!i.unit.empty()) {
      number(row, 1, i.quantity_value, nullptr);
      text(row, 2, quote_phrase(q.input.language, i.unit));
      number(row, 3, static_cast<double>(i.unit_price_micro) / 1e6, f.price);
      formula(row, 4, "=ROUND(" + cell(row, 1) + "*" + cell(row, 3) + ",2)", f.money, i.amount.major());
    } else {
      text(row, 1, quote_phrase(q.input.language, i.quantity));
      if (!i.unit_price.empty()) text(row, 3, quote_phrase(q.input.language, i.unit_price));
      number(row, 4, i.amount.major(), f.money);
    }
    std::string note = quote_phrase(q.input.language, i.note);
    if (!i.in_total) note = std::string(text_of(q).not_added) + (note.empty() ? "" : "; " + note);
    if (!note.empty()) text(row, 5, note);
    ++row;
  }

  BlockRows block(const char* title, const pricing::Bill& bill, const units::Money& tax) {
    text(row++, 0, title, f.bold);
    const int first = row;
    for (const pricing::LineItem& i : bill.items)
      if (i.in_total) line(i);
    const int last = row - 1;
    BlockRows out;
    out.subtotal = row;
    text(row, 0, text_of(q).subtotal, f.bold);
    if (last >= first)
      formula(row, 4, "=SUM(" + cell(first, 4) + ":" + cell(last, 4) + ")", f.money_bold, bill.total.major());
    else
      number(row, 4, bill.total.major(), f.money_bold);
    ++row;
    if (rate_row >= 0) {
      out.tax = row;
      text(row, 0, quote_phrase(q.input.language, q.input.tax->name));
      formula(row, 4, "=ROUND(" + cell(out.subtotal, 4) + "*$B$" + std::to_string(rate_row + 1) + ",2)", f.money,
              tax.major());
      ++row;
      out.total = row;
      text(row, 0, std::string(text_of(q).total_with_tax), f.bold);
      formula(row, 4, "=" + cell(out.subtotal, 4) + "+" + cell(out.tax, 4), f.money_bold, (bill.total + tax).major());
      ++row;
    }
    for (const pricing::LineItem& i : bill.items)
      if (!i.in_total) line(i);
    if (bill.deposit.minor != 0) {
      text(row, 0, text_of(q).deposit);
      number(row, 4, bill.deposit.major(), f.money);
      ++row;
    }
    ++row;
    return out;
  }
};

std::pair<BlockRows, BlockRows> write_bill(lxw_worksheet* ws, const Formats& f, const Quote& q,
                                           const pricing::ComparisonRow& best) {
  BillWriter w{ws, f, q};
  worksheet_set_column(ws, 0, 0, 46, nullptr);
  worksheet_set_column(ws, 1, 1, 12, nullptr);
  worksheet_set_column(ws, 2, 2, 12, nullptr);
  worksheet_set_column(ws, 3, 4, 16, nullptr);
  worksheet_set_column(ws, 5, 5, 48, nullptr);
  w.text(w.row, 0, text_of(q).plan, f.bold);
  w.text(w.row++, 1, best.option.label);
  w.text(w.row, 0, text_of(q).currency);
  w.text(w.row++, 1, best.p50.currency.str());
  const auto& tax = q.input.tax;
  if (tax) {
    w.rate_row = w.row;
    w.text(w.row, 0, text_of(q).tax_rate + std::string(" (") + quote_phrase(q.input.language, tax->name) + ")");
    w.number(w.row, 1, static_cast<double>(tax->rate_bp) / 10'000.0, f.percent);
    // The note in the quote's language: the basis as the catalog writes it (English), or in
    // Chinese the quote's own tax sentence (which words the basis and translates the source).
    if (q.input.language == QuoteLanguage::ZhCn)
      w.text(w.row, 5,
             detail::tr(q.input.language, "terms.tax", fmt::arg("tax", quote_phrase(q.input.language, tax->name)),
                        fmt::arg("rate", units::format_fixed(static_cast<double>(tax->rate_bp) / 100, 0)),
                        fmt::arg("basis", ""), fmt::arg("source", quote_phrase(q.input.language, tax->source))));
    else if (!tax->basis.empty())
      w.text(w.row, 5, tax->basis);
    ++w.row;
  } else {
    w.text(w.row++, 0, text_of(q).no_tax);
  }
  ++w.row;
  const char* head[] = {text_of(q).description, text_of(q).quantity, text_of(q).unit,
                        text_of(q).unit_price,  text_of(q).amount,   text_of(q).note};
  for (int c = 0; c < 6; ++c) w.text(w.row, c, head[c], f.bold);
  ++w.row;
  const BlockRows p50 = w.block(text_of(q).p50_block, best.p50, q.tax_p50);
  const BlockRows p90 = w.block(text_of(q).p90_block, best.p90, q.tax_p90);
  return {p50, p90};
}

/// The recommended plan's totals before tax at the model band's fast and slow ends, at the
/// requirements' percentile, with their column labels; nullopt without the band's ends.
struct BandTotals {
  units::Money fast, slow;
  std::string fast_label, slow_label;
};
std::optional<BandTotals> band_totals(const Quote& q, const pricing::ComparisonRow& best) {
  const QuoteInput& in = q.input;
  if (!in.band_check || !in.band_check->low || !in.band_check->high) return std::nullopt;
  const bool p50 = in.requirements.p50;
  auto total = [&](const QuoteBandRun& r) -> std::optional<units::Money> {
    for (const pricing::ComparisonRow& row : r.plans.rows)
      if (row.option.id == best.option.id && row.p50.ok() && row.p90.ok()) return p50 ? row.p50.total : row.p90.total;
    return std::nullopt;
  };
  const auto fast = total(*in.band_check->low), slow = total(*in.band_check->high);
  if (!fast || !slow) return std::nullopt;
  const bool zh = in.language == QuoteLanguage::ZhCn;
  const char* pct = p50 ? "P50" : "P90";
  auto label = [&](const char* en_end, const char* zh_end, double factor) {
    return zh ? fmt::format("模型区间（{}）{} ×{:.2f}", pct, zh_end, factor)
              : fmt::format("Model band at {}, {} (x{:.2f})", pct, en_end, factor);
  };
  return BandTotals{*fast, *slow, label("fast end", "快端", in.band_check->low->step_factor),
                    label("slow end", "慢端", in.band_check->high->step_factor)};
}

void write_quote_sheet(lxw_worksheet* ws, const Formats& f, const Quote& q, const pricing::ComparisonRow* best,
                       std::pair<BlockRows, BlockRows> bill_rows) {
  const QuoteInput& in = q.input;
  BillWriter w{ws, f, q};
  worksheet_set_column(ws, 0, 0, 26, nullptr);
  worksheet_set_column(ws, 1, 4, 30, nullptr);
  auto pair = [&](const char* label, const std::string& value) {
    w.text(w.row, 0, label, f.bold);
    w.text(w.row++, 1, value.empty() ? "-" : value);
  };
  w.text(w.row++, 0, quote_title(q), f.bold);
  pair(text_of(q).quote, q.id);
  pair(text_of(q).customer, in.customer);
  pair(text_of(q).issuer, quote_provider(in.language, in.issuer));
  pair(text_of(q).date, quote_date(in.language, in.issue_date));
  pair(text_of(q).valid_until, quote_date(in.language, q.valid_until));
  ++w.row;
  if (best) {
    pair(text_of(q).plan, best->option.label);
    pair(text_of(q).cluster, units::format_grouped(in.job.gpus) + " x " + in.job.gpu_name);
    if (!in.job.parallel_plan.empty()) pair(text_of(q).parallel_plan, quote_phrase(in.language, in.job.parallel_plan));
    pair(text_of(q).currency, best->p50.currency.str());
    w.text(w.row, 1, "P50", f.bold);
    w.text(w.row, 2, "P90", f.bold);
    // The model band's two ends at the requirements' percentile, named apart from P50 and P90
    // (which spread the run over failures only), as the other formats show them.
    const auto band = band_totals(q, *best);
    if (band) {
      w.text(w.row, 3, band->fast_label, f.bold);
      w.text(w.row, 4, band->slow_label, f.bold);
    }
    ++w.row;
    const std::string bill = std::string("'") + text_of(q).sheet_bill + "'!";
    auto totals = [&](const char* label, int r50, int r90, const units::Money& v50, const units::Money& v90,
                      bool with_tax) {
      w.text(w.row, 0, label, f.bold);
      w.formula(w.row, 1, "=" + bill + cell(r50, 4), f.money, v50.major());
      w.formula(w.row, 2, "=" + bill + cell(r90, 4), f.money, v90.major());
      if (band) {
        const std::int64_t bp = with_tax ? in.tax->rate_bp : 0;
        w.number(w.row, 3, (band->fast + tax_on(band->fast, bp)).major(), f.money);
        w.number(w.row, 4, (band->slow + tax_on(band->slow, bp)).major(), f.money);
      }
      ++w.row;
    };
    totals(text_of(q).total_before_tax, bill_rows.first.subtotal, bill_rows.second.subtotal, best->p50.total,
           best->p90.total, false);
    if (in.tax)
      totals(text_of(q).total_with_tax, bill_rows.first.total, bill_rows.second.total, best->p50.total + q.tax_p50,
             best->p90.total + q.tax_p90, true);
  } else {
    w.text(w.row++, 0, text_of(q).no_plan);
  }
  pair(text_of(q).payment, in.payment_terms.empty() ? text_of(q).payment_default : in.payment_terms);
  ++w.row;
  const char* head[] = {text_of(q).requirement, text_of(q).asked, text_of(q).this_plan, text_of(q).met};
  for (int c = 0; c < 4; ++c) w.text(w.row, c, head[c], f.bold);
  ++w.row;
  for (const RequirementCheck& r : q.requirements) {
    w.text(w.row, 0, quote_phrase(in.language, r.what));
    w.text(w.row, 1, quote_phrase(in.language, r.asked));
    w.text(w.row, 2, quote_phrase(in.language, r.plan));
    w.text(w.row++, 3, r.met ? text_of(q).yes : text_of(q).no, r.met ? nullptr : f.bold);
  }
}

/// One member of a zip archive: its name, its dates and attributes, its bytes.
struct ZipMember {
  std::string name;
  zip_fileinfo info{};
  std::string bytes;
};

/// Every member of the zip archive `path`, or an error message in `error`.
std::vector<ZipMember> read_zip(const std::string& path, std::string& error) {
  std::vector<ZipMember> members;
  unzFile z = unzOpen64(path.c_str());
  if (z == nullptr) {
    error = "cannot reopen the workbook " + path;
    return members;
  }
  for (int rc = unzGoToFirstFile(z); rc == UNZ_OK && error.empty(); rc = unzGoToNextFile(z)) {
    unz_file_info64 fi{};
    char name[1024];
    if (unzGetCurrentFileInfo64(z, &fi, name, sizeof name, nullptr, 0, nullptr, 0) != UNZ_OK ||
        unzOpenCurrentFile(z) != UNZ_OK) {
      error = "cannot read the workbook's members";
      break;
    }
    ZipMember m;
    m.name = name;
    m.info.dosDate = fi.dosDate;
    m.info.internal_fa = fi.internal_fa;
    m.info.external_fa = fi.external_fa;
    m.info.tmz_date = {fi.tmu_date.tm_sec,  fi.tmu_date.tm_min, fi.tmu_date.tm_hour,
                       fi.tmu_date.tm_mday, fi.tmu_date.tm_mon, fi.tmu_date.tm_year};
    char buf[65536];
    for (int n; (n = unzReadCurrentFile(z, buf, sizeof buf)) != 0;) {
      if (n < 0) {
        error = "cannot inflate the workbook member " + m.name;
        break;
      }
      m.bytes.append(buf, static_cast<std::size_t>(n));
    }
    unzCloseCurrentFile(z);
    members.push_back(std::move(m));
  }
  unzClose(z);
  return members;
}

/// Writes `members` as the zip archive `path` (deflated, their dates kept: the same members
/// give the same bytes); false when it cannot.
bool write_zip(const std::string& path, const std::vector<ZipMember>& members) {
  zipFile z = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  if (z == nullptr) return false;
  bool ok = true;
  for (const ZipMember& m : members) {
    ok = ok &&
         zipOpenNewFileInZip64(z, m.name.c_str(), &m.info, nullptr, 0, nullptr, 0, nullptr, Z_DEFLATED,
                               Z_DEFAULT_COMPRESSION, 0) == ZIP_OK &&
         zipWriteInFileInZip(z, m.bytes.data(), static_cast<unsigned>(m.bytes.size())) == ZIP_OK &&
         zipCloseFileInZip(z) == ZIP_OK;
  }
  return zipClose(z, nullptr) == ZIP_OK && ok;
}

/// `xml` with each cell value (<v>...</v>) that is a number written with 15 significant digits.
/// libxlsxwriter prints a double with 16 ("%.16G", lxw_sprintf_dbl in its utility.h), so 755.56
/// -- an amount of integer cents over 100, the double nearest 755.56 -- reads 755.5599999999999.
/// Every amount and price of a quote is an exact decimal of at most 15 significant digits
/// (integer cents or micro-units, below 10^13 major units), which 15 digits write back exactly
/// (IEEE 754 binary64 holds 15 decimal digits, DBL_DIG); a shared string's index is an integer
/// and stays as it is.
std::string exact_numbers(const std::string& xml) {
  std::string out;
  out.reserve(xml.size());
  std::size_t at = 0;
  for (std::size_t open; (open = xml.find("<v>", at)) != std::string::npos;) {
    const std::size_t from = open + 3, close = xml.find("</v>", from);
    if (close == std::string::npos) break;
    out.append(xml, at, from - at);
    double v = 0;
    const char* first = xml.data() + from;
    const char* last = xml.data() + close;
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec == std::errc() && ptr == last && std::isfinite(v))
      out += fmt::format("{:.15g}", v);
    else
      out.append(first, last);
    at = close;
  }
  out.append(xml, at, std::string::npos);
  return out;
}

/// Rewrites the workbook at `path` with exact_numbers applied to its worksheets; an error
/// message, or "".
std::string write_exact_numbers(const std::string& path) {
  std::string error;
  std::vector<ZipMember> members = read_zip(path, error);
  if (!error.empty()) return error;
  for (ZipMember& m : members)
    if (m.name.rfind("xl/worksheets/", 0) == 0 && m.name.size() > 4 && m.name.substr(m.name.size() - 4) == ".xml")
      m.bytes = exact_numbers(m.bytes);
  return write_zip(path, members) ? std::string() : "cannot rewrite the workbook " + path;
}

/// Writes the workbook to `path`; an error message, or "" when it was written.
std::string write_workbook(const Quote& q, const std::string& path) {
  lxw_workbook* wb = workbook_new(path.c_str());
  if (wb == nullptr) return "libxlsxwriter cannot create a workbook";
  std::string title = quote_title(q);
  std::string company = q.input.issuer;
  lxw_doc_properties props{};
  props.title = title.data();
  props.company = company.data();
  props.created = epoch_of(q.input.issue_date);
  workbook_set_properties(wb, &props);
  const pricing::ComparisonRow* best =
      q.recommended && *q.recommended < q.input.plans.rows.size() ? &q.input.plans.rows[*q.recommended] : nullptr;
  const Formats f(wb, best ? best->p50.currency : q.input.plans.currency);
  lxw_worksheet* quote_ws = workbook_add_worksheet(wb, text_of(q).sheet_quote);
  lxw_worksheet* bill_ws = workbook_add_worksheet(wb, text_of(q).sheet_bill);
  lxw_worksheet* notes_ws = workbook_add_worksheet(wb, text_of(q).sheet_assumptions);
  std::pair<BlockRows, BlockRows> rows;
  if (best) rows = write_bill(bill_ws, f, q, *best);
  write_quote_sheet(quote_ws, f, q, best, rows);
  worksheet_set_column(notes_ws, 0, 0, 120, f.wrap);
  worksheet_write_string(notes_ws, 0, 0, text_of(q).sheet_assumptions, f.bold);
  lxw_row_t r = 1;
  for (const std::string& a : q.assumptions) worksheet_write_string(notes_ws, r++, 0, a.c_str(), nullptr);
  const lxw_error err = workbook_close(wb);
  if (err != LXW_NO_ERROR) return std::string("libxlsxwriter: ") + lxw_strerror(err);
  return write_exact_numbers(path);
}

}  // namespace

bool quote_xlsx_supported() { return true; }

std::optional<std::string> render_quote_xlsx(const Quote& quote, std::string& error) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) {
    error = "no temporary folder for the workbook: " + ec.message();
    return std::nullopt;
  }
  // libxlsxwriter 1.1.4 (Debian 12) writes only to a file: a private one, named by mkstemp
  // (the trailing XXXXXX is its template, replaced by a unique suffix).
  std::string path = (dir / "flopcast-quote-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    error = "cannot create a temporary file in " + dir.string() + " for the workbook";
    return std::nullopt;
  }
  close(fd);
  error = write_workbook(quote, path);
  std::optional<std::string> bytes;
  if (error.empty()) {
    std::ifstream in(path, std::ios::binary);
    bytes.emplace(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      error = "cannot read back the workbook written to " + path;
      bytes.reset();
    }
  }
  std::filesystem::remove(path, ec);
  return bytes;
}

}  // namespace flopcast::quote

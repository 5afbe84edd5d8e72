#include "flopcast/quote/quote_render.hpp"

#include "quote_format.hpp"

namespace flopcast {
namespace {

using namespace quote_detail;

/// A format-neutral document: the quote is laid out once and written as Markdown or HTML.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> strong;    ///< per row: emphasised (totals, the recommended plan)
  std::vector<bool> right;     ///< per column: right-aligned (amounts)
  std::vector<int> width_pct;  ///< per column: share of the page width in HTML (empty = auto)
};

struct Block {
  enum class Kind { Heading, Paragraph, List, Table } kind = Kind::Paragraph;
  std::string text;
  std::vector<std::string> items;
  Table table;
};

using Doc = std::vector<Block>;

void heading(Doc& d, std::string text) { d.push_back({Block::Kind::Heading, std::move(text), {}, {}}); }
void para(Doc& d, std::string text) { d.push_back({Block::Kind::Paragraph, std::move(text), {}, {}}); }
void list(Doc& d, std::vector<std::string> items) {
  if (!items.empty()) d.push_back({Block::Kind::List, {}, std::move(items), {}});
}
void table(Doc& d, Table t) {
  if (t.strong.size() < t.rows.size()) t.strong.resize(t.rows.size(), false);
  if (t.right.size() < t.header.size()) t.right.resize(t.header.size(), false);
  d.push_back({Block::Kind::Table, {}, {}, std::move(t)});
}

std::string gpu_hours(double h) { return format_grouped(static_cast<std::int64_t>(h + 0.5)) + " GPU-h"; }

Doc layout(const Quote& q) {
  const QuoteInput& in = q.input;
  const QuoteJob& j = in.job;
  const JobResult& r = in.run;
  Doc d;

  Table head{{"", ""}, {}, {}, {}, {}};
  head.rows.push_back({"Quote", q.id});
  head.rows.push_back({"Customer", in.customer.empty() ? "-" : in.customer});
  head.rows.push_back({"Issued by", in.issuer.empty() ? "-" : in.issuer});
  head.rows.push_back({"Date", in.issue_date});
  head.rows.push_back({"Valid until", q.valid_until.empty() ? "-" : q.valid_until});
  table(d, head);

  heading(d, "Your training job");
  std::vector<std::string> job;
  job.push_back("Model: " + (j.model_name.empty() ? std::string("-") : j.model_name) +
                (j.params > 0 ? " (" + format_count_fixed(j.params) + " parameters)" : ""));
  if (j.tokens > 0) job.push_back("Training tokens: " + format_count_fixed(j.tokens));
  const std::int64_t gpn = j.gpus_per_node > 0 ? j.gpus_per_node : 1;
  const std::int64_t nodes = (j.gpus + gpn - 1) / gpn;
  job.push_back("Cluster: " + format_grouped(j.gpus) + " x " + j.gpu_name + " (" + format_grouped(nodes) +
                (nodes == 1 ? " node of " : " nodes of ") + std::to_string(gpn) + " GPUs)");
  if (!j.parallel_plan.empty()) job.push_back("Parallel plan: " + j.parallel_plan);
  job.push_back("Step time " + format_fixed(j.step_time.seconds(), 3) + " s x " + format_grouped(r.steps) +
                " steps; MFU " + percent(j.mfu) + " (simulated)");
  list(d, job);

  heading(d, "Expected duration");
  Table dur{{"", "P50", "P90"}, {}, {}, {false, true, true}, {}};
  dur.rows.push_back({"Calendar time", format_duration_with_hours(r.wall_p50), format_duration_with_hours(r.wall_p90)});
  dur.rows.push_back(
      {"Paid GPU time", format_duration_with_hours(r.gpu_span_p50), format_duration_with_hours(r.gpu_span_p90)});
  dur.rows.push_back({"GPU-hours", gpu_hours(r.gpu_hours_p50), gpu_hours(r.gpu_hours_p90)});
  table(d, dur);
  para(d, "Pure training time " + format_duration_with_hours(r.useful) + "; goodput " + percent(r.goodput_mean) +
              " (useful / paid time); on average " + format_fixed(r.failures_mean, 1) + " failures, " +
              format_duration_with_hours(r.lost_work_mean) + " of lost work and " +
              format_duration_with_hours(r.restart_mean) + " of restarts.");

  const auto& rows = in.plans.rows;
  heading(d, "Recommended plan");
  if (q.recommended && *q.recommended < rows.size()) {
    const ComparisonRow& best = rows[*q.recommended];
    std::string text = best.option.label + ": " + best.p50.total.str() + " for the expected (P50) run, " +
                       best.p90.total.str() + " if it takes the P90 time.";
    if (best.p50.deposit.minor != 0) text += " Refundable deposit due upfront: " + best.p50.deposit.str() + ".";
    para(d, text);
    // One currency per bill: amounts carry it in the header; unit prices keep their own.
    const std::string cur = best.p50.currency.str();
    Table items{{"Item", "Quantity", "Unit price", "Amount (" + cur + ")", "Note"},
                {},
                {},
                {false, false, true, true, false},
                {28, 16, 20, 16, 20}};
    for (const LineItem& i : best.p50.items) {
      items.rows.push_back({i.in_total ? i.label : "  " + i.label, i.quantity, i.unit_price,
                            i.in_total ? i.amount.amount_str() : "(" + i.amount.amount_str() + ")", i.note});
      items.strong.push_back(false);
    }
    items.rows.push_back({"Total (P50)", "", "", best.p50.total.amount_str(), ""});
    items.strong.push_back(true);
    if (best.p50.deposit.minor != 0) {
      items.rows.push_back({"Deposit (refundable, not in the total)", "", "", best.p50.deposit.amount_str(), ""});
      items.strong.push_back(false);
    }
    table(d, items);
    list(d, best.p50.notes);
  } else {
    para(d, "No plan of the catalog can be billed for this job.");
  }

  heading(d, "Plan comparison");
  const std::string cur = in.plans.currency.str();
  Table cmp{{"Plan", "Total at P50 (" + cur + ")", "Total at P90 (" + cur + ")", "Deposit (" + cur + ")"},
            {},
            {},
            {false, true, true, true},
            {46, 19, 19, 16}};
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const ComparisonRow& row = rows[ri];
    const bool recommended = q.recommended && *q.recommended == ri;
    const bool competitor = row.option.plan && row.option.plan->competitor;
    const std::string label =
        row.option.label + (competitor ? " [competitor, for reference]" : "") + (recommended ? " (recommended)" : "");
    if (!row.p50.ok() || !row.p90.ok()) {
      const std::string why = row.p50.errors.empty() ? row.p90.errors.front() : row.p50.errors.front();
      cmp.rows.push_back({label + ": " + why, "n/a", "n/a", ""});
    } else {
      cmp.rows.push_back({label, row.p50.total.amount_str(), row.p90.total.amount_str(),
                          row.p50.deposit.minor != 0 ? row.p50.deposit.amount_str() : "-"});
    }
    cmp.strong.push_back(recommended);
  }
  table(d, cmp);
  list(d, in.plans.notes);

  if (!in.claims.empty()) {
    heading(d, "Claimed vs simulated");
    list(d, in.claims);
  }
  heading(d, "Assumptions");
  list(d, q.assumptions);
  para(d, "Quote " + q.id +
              " is derived from its inputs: the same job, prices and date give the same quote. "
              "Prepared with flopcast.");
  return d;
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string render_quote_markdown(const Quote& q) {
  std::string out = "# Training quote " + q.id + "\n";
  for (const Block& b : layout(q)) {
    out += '\n';
    switch (b.kind) {
      case Block::Kind::Heading:
        out += "## " + b.text + "\n";
        break;
      case Block::Kind::Paragraph:
        out += b.text + "\n";
        break;
      case Block::Kind::List:
        for (const auto& i : b.items) out += "- " + md_cell(i) + "\n";
        break;
      case Block::Kind::Table: {
        const Table& t = b.table;
        out += '|';
        for (const auto& h : t.header) out += ' ' + md_cell(h) + " |";
        out += "\n|";
        for (std::size_t c = 0; c < t.header.size(); ++c) out += t.right[c] ? "---:|" : "---|";
        out += '\n';
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          out += '|';
          for (const auto& cell : t.rows[r]) {
            const std::string v = md_cell(cell);
            out += ' ' + (t.strong[r] && !v.empty() ? "**" + v + "**" : v) + " |";
          }
          out += '\n';
        }
        break;
      }
    }
  }
  return out;
}

std::string render_quote_html(const Quote& q) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Training quote " +
      html_escape(q.id) +
      "</title>\n<style>\n"
      "@page { size: A4; margin: 18mm; }\n"
      "body { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 10pt; color: #111; max-width: 180mm; margin: auto; }\n"
      "h1 { font-size: 16pt; margin: 0 0 8pt 0; }\n"
      "h2 { font-size: 12pt; margin: 14pt 0 4pt 0; border-bottom: 1px solid #888; }\n"
      "table { border-collapse: collapse; margin: 4pt 0; }\n"
      "th, td { border: 1px solid #999; padding: 3pt 6pt; vertical-align: top; font-size: 9pt; }\n"
      "th { background-color: #e8e8e8; text-align: left; }\n"
      "td.num { text-align: right; }\n"
      "tr.strong td { font-weight: bold; background-color: #f3f7ff; }\n"
      "ul { margin: 2pt 0; }\n"
      "p.foot { color: #555; font-size: 8pt; margin-top: 14pt; }\n"
      "tr, li { page-break-inside: avoid; }\n"
      "</style>\n</head>\n<body>\n<h1>Training quote " +
      html_escape(q.id) + "</h1>\n";
  const Doc doc = layout(q);
  for (std::size_t k = 0; k < doc.size(); ++k) {
    const Block& b = doc[k];
    switch (b.kind) {
      case Block::Kind::Heading:
        out += "<h2>" + html_escape(b.text) + "</h2>\n";
        break;
      case Block::Kind::Paragraph:
        out += (k + 1 == doc.size() ? "<p class=\"foot\">" : "<p>") + html_escape(b.text) + "</p>\n";
        break;
      case Block::Kind::List:
        out += "<ul>\n";
        for (const auto& i : b.items) out += "<li>" + html_escape(i) + "</li>\n";
        out += "</ul>\n";
        break;
      case Block::Kind::Table: {
        const Table& t = b.table;
        // border/cellpadding attributes: QTextDocument (the PDF path) ignores most table CSS.
        // Wide tables take the page width so the text columns can wrap less.
        out += std::string("<table border=\"1\" cellspacing=\"0\" cellpadding=\"4\"") +
               (t.header.size() >= 4 ? " width=\"100%\"" : "") + ">\n";
        bool has_header = false;
        for (const auto& h : t.header) has_header = has_header || !h.empty();
        if (has_header) {
          out += "<tr>";
          for (std::size_t c = 0; c < t.header.size(); ++c) {
            out += "<th";
            if (c < t.width_pct.size()) out += " width=\"" + std::to_string(t.width_pct[c]) + "%\"";
            if (t.right[c]) out += " align=\"right\"";
            out += ">" + html_escape(t.header[c]) + "</th>";
          }
          out += "</tr>\n";
        }
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          out += t.strong[r] ? "<tr class=\"strong\">" : "<tr>";
          for (std::size_t c = 0; c < t.rows[r].size(); ++c) {
            const bool right = c < t.right.size() && t.right[c];
            std::string cell = html_escape(t.rows[r][c]);
            if (t.strong[r] && !cell.empty()) cell = "<b>" + cell + "</b>";
            out += std::string(right ? "<td class=\"num\" align=\"right\">" : "<td>") + cell + "</td>";
          }
          out += "</tr>\n";
        }
        out += "</table>\n";
        break;
      }
    }
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace flopcast

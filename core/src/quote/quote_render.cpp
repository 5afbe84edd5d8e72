#include "flopcast/quote/quote_render.hpp"

#include "flopcast/units/text.hpp"
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

/// A bill note in the customer's words: the plan's catalog id becomes "this plan".
std::string customer_note(std::string note, const std::string& plan_id) {
  for (const std::string& key : {"plan '" + plan_id + "'", "'" + plan_id + "'"}) {
    for (auto at = note.find(key); at != std::string::npos; at = note.find(key))
      note.replace(at, key.size(), "this plan");
  }
  return note;
}

void layout_header(const Quote& q, Doc& d) {
  const QuoteInput& in = q.input;
  Table head{{"", ""}, {}, {}, {}, {}};
  head.rows.push_back({"Quote", q.id});
  head.rows.push_back({"Customer", in.customer.empty() ? "-" : in.customer});
  head.rows.push_back({"Issued by", in.issuer.empty() ? "-" : in.issuer});
  head.rows.push_back({"Date", in.issue_date});
  head.rows.push_back({"Valid until", q.valid_until.empty() ? "-" : q.valid_until});
  table(d, head);
  if (!q.meets()) {
    std::string missed;
    for (const auto& r : q.requirements)
      if (!r.met) missed += (missed.empty() ? "" : "; ") + r.what + ": asked " + r.asked + ", the plan gives " + r.plan;
    para(d, "This plan does not meet every requirement. " + missed + ".");
  }
  heading(d, "Your requirements");
  Table req{{"Requirement", "Asked", "This plan", "Met"}, {}, {}, {}, {28, 24, 36, 12}};
  for (const auto& r : q.requirements) {
    req.rows.push_back({r.what, r.asked, r.plan, r.met ? "yes" : "NO"});
    req.strong.push_back(!r.met);
  }
  table(d, req);
}

void layout_job(const Quote& q, Doc& d) {
  const QuoteInput& in = q.input;
  const QuoteJob& j = in.job;
  const JobResult& r = in.run;
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
  if (!in.frameworks.empty()) job.push_back("Runs on: " + in.frameworks);
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
}

void layout_bill(const Quote& q, const ComparisonRow& best, Doc& d) {
  const QuoteInput& in = q.input;
  const std::string tax =
      in.tax ? in.tax->name + " " + format_fixed(static_cast<double>(in.tax->rate_bp) / 100, 0) + "%" : std::string();
  std::string text = best.option.label + ": " + best.p50.total.str() + " before tax for the expected (P50) run, " +
                     best.p90.total.str() + " if it takes the P90 time.";
  if (best.p50.deposit.minor != 0) text += " Refundable deposit due upfront: " + best.p50.deposit.str() + ".";
  para(d, text);
  const std::string cur = best.p50.currency.str();
  Table items{{"Item", "Quantity", "Unit price", "Amount (" + cur + ")", "Note"},
              {},
              {},
              {false, false, true, true, false},
              {28, 16, 20, 16, 20}};
  const std::string id = best.option.plan ? best.option.plan->id : best.option.id;
  for (const LineItem& i : best.p50.items) {
    items.rows.push_back({i.in_total ? i.label : "  " + i.label, i.quantity, i.unit_price,
                          i.in_total ? i.amount.amount_str() : "(" + i.amount.amount_str() + ")",
                          customer_note(i.note, id)});
    items.strong.push_back(false);
  }
  items.rows.push_back({"Total before tax (P50)", "", "", best.p50.total.amount_str(), ""});
  items.strong.push_back(!in.tax);
  if (in.tax) {
    items.rows.push_back({tax, "", "", q.tax_p50.amount_str(), "on the total before tax"});
    items.strong.push_back(false);
    items.rows.push_back(
        {"Total including " + in.tax->name + " (P50)", "", "", (best.p50.total + q.tax_p50).amount_str(), ""});
    items.strong.push_back(true);
  }
  if (best.p50.deposit.minor != 0) {
    items.rows.push_back({"Deposit (refundable, not in the total)", "", "", best.p50.deposit.amount_str(), ""});
    items.strong.push_back(false);
  }
  table(d, items);
  std::vector<std::string> notes;
  for (const auto& n : best.p50.notes) notes.push_back(customer_note(n, id));
  list(d, notes);
  Table tot{{"", "P50 (" + cur + ")", "P90 (" + cur + ")"}, {}, {}, {false, true, true}, {}};
  tot.rows.push_back({"Total before tax", best.p50.total.amount_str(), best.p90.total.amount_str()});
  if (in.tax) {
    tot.rows.push_back({tax, q.tax_p50.amount_str(), q.tax_p90.amount_str()});
    tot.rows.push_back({"Total including " + in.tax->name, (best.p50.total + q.tax_p50).amount_str(),
                        (best.p90.total + q.tax_p90).amount_str()});
  }
  tot.strong.assign(tot.rows.size(), false);
  tot.strong.back() = true;
  table(d, tot);
}

void layout_comparison(const Quote& q, Doc& d) {
  const QuoteInput& in = q.input;
  const auto& rows = in.plans.rows;
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
    if (competitor ? !in.compare : !(row.option.plan && quoted_kind(in, row.option.plan->kind))) continue;
    const std::string label = row.option.label + (competitor ? " [another provider, for comparison]" : "") +
                              (recommended ? " (recommended)" : "");
    if (!row.p50.ok() || !row.p90.ok()) continue;
    cmp.rows.push_back({label, row.p50.total.amount_str(), row.p90.total.amount_str(),
                        row.p50.deposit.minor != 0 ? row.p50.deposit.amount_str() : "-"});
    cmp.strong.push_back(recommended);
  }
  if (cmp.rows.size() < 2) return;
  heading(d, in.compare ? "Plan comparison, with other providers' prices" : "Other plans");
  table(d, cmp);
  para(d,
       "Totals before tax. The recommended plan is the lowest total at the expected (P50) run among "
       "the plans offered in this quote; deposits are refundable and not counted.");
}

void layout_terms(const Quote& q, Doc& d) {
  const QuoteInput& in = q.input;
  heading(d, "Terms");
  std::vector<std::string> t;
  if (in.tax)
    t.push_back("Tax: " + in.tax->name + " at " + format_fixed(static_cast<double>(in.tax->rate_bp) / 100, 0) + "%" +
                (in.tax->basis.empty() ? "" : ". " + in.tax->basis) + " (" + in.tax->source + ").");
  else
    t.push_back("Tax: the prices exclude taxes, which are added as the law of the place of supply requires.");
  t.push_back(
      "Payment: " + (in.payment_terms.empty() ? std::string("to be agreed in the contract") : in.payment_terms) + ".");
  t.push_back("Validity: this quote is valid until " + (q.valid_until.empty() ? std::string("-") : q.valid_until) +
              "; prices and availability are confirmed on signature.");
  t.push_back(
      "The amounts are simulated estimates for the job described: the bill follows actual use at the "
      "prices above.");
  list(d, t);
  heading(d, "Acceptance");
  Table sig{{"", "For " + (in.issuer.empty() ? std::string("the provider") : in.issuer),
             "For " + (in.customer.empty() ? std::string("the customer") : in.customer)},
            {},
            {},
            {},
            {20, 40, 40}};
  for (const char* row : {"Name", "Title", "Signature", "Date"}) sig.rows.push_back({row, "", ""});
  table(d, sig);
}

Doc layout(const Quote& q) {
  const QuoteInput& in = q.input;
  Doc d;
  layout_header(q, d);
  layout_job(q, d);
  heading(d, "Recommended plan");
  if (q.recommended && *q.recommended < in.plans.rows.size())
    layout_bill(q, in.plans.rows[*q.recommended], d);
  else
    para(d, "No plan of this price list can be billed for this job.");
  layout_comparison(q, d);
  if (!in.claims.empty()) {
    heading(d, "Claimed vs simulated");
    list(d, in.claims);
  }
  heading(d, "Assumptions");
  list(d, q.assumptions);
  layout_terms(q, d);
  para(d, "Quote " + q.id + " is derived from its inputs: the same job, prices and date give the same quote.");
  return d;
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
        for (const auto& i : b.items) out += "- " + markdown_cell(i) + "\n";
        break;
      case Block::Kind::Table: {
        const Table& t = b.table;
        out += '|';
        for (const auto& h : t.header) out += ' ' + markdown_cell(h) + " |";
        out += "\n|";
        for (std::size_t c = 0; c < t.header.size(); ++c) out += t.right[c] ? "---:|" : "---|";
        out += '\n';
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          out += '|';
          for (const auto& cell : t.rows[r]) {
            const std::string v = markdown_cell(cell);
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
          // <thead>: Qt's HTML import makes it the table's header rows, repeated on each PDF page.
          out += "<thead><tr>";
          for (std::size_t c = 0; c < t.header.size(); ++c) {
            out += "<th";
            if (c < t.width_pct.size()) out += " width=\"" + std::to_string(t.width_pct[c]) + "%\"";
            if (t.right[c]) out += " align=\"right\"";
            out += ">" + html_escape(t.header[c]) + "</th>";
          }
          out += "</tr></thead>\n";
        }
        out += "<tbody>\n";
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
        out += "</tbody></table>\n";
        break;
      }
    }
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace flopcast

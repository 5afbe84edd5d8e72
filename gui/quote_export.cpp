#include "quote_export.hpp"

#include "flopcast/io/atomic_file.hpp"
#include "flopcast/quote/quote.hpp"
#include "flopcast/quote/quote_render.hpp"
#include "report.hpp"

#include "quote_pdf.hpp"

namespace flopcast::gui {

QuoteDocument make_quote_document(const ComputeResult& r, const io::Catalog& catalog, const std::string& date,
                                  const std::string& customer) {
  QuoteDocument doc;
  if (!r.ok()) {
    doc.errors.push_back("the scenario has errors: fix them in the editor first");
    return doc;
  }
  // The checks and their messages follow `flopcast quote` (cli/cmd_quote.cpp).
  cli::SimReport report = r.report;
  report.scenario = r.scenario.get();
  const Scenario& s = *r.scenario;
  if (!report.fits_memory) {
    doc.errors.push_back("no quote for a plan that does not fit: it needs " + format_gib(report.est.memory.total()) +
                         " per GPU, the " + s.cluster.gpu.name + " has " + format_gib(report.est.memory.capacity));
    return doc;
  }
  Diagnostics diags;
  const bool priced = cli::add_whole_run(report, catalog.data_dir, diags);
  for (const auto& d : diags.items()) doc.errors.push_back(d.str());
  if (!priced) return doc;
  doc.errors.clear();
  if (!report.run) {
    doc.errors.push_back("the scenario gives no training.tokens; a quote needs the length of the run");
    return doc;
  }
  if (!report.run->ok()) {
    for (const auto& e : report.run->errors) doc.errors.push_back("the whole run cannot be simulated: " + e);
    return doc;
  }
  if (!report.bills) {
    doc.errors.push_back("the scenario has no pricing: block; choose a price catalog in the editor");
    return doc;
  }
  QuoteInput in = cli::quote_input_of(report);
  in.customer = customer;
  in.issue_date = date;
  const Quote q = make_quote(std::move(in));
  if (!q.ok()) {
    doc.errors = q.errors;
    doc.errors.insert(doc.errors.end(), q.input.plans.errors.begin(), q.input.plans.errors.end());
    return doc;
  }
  doc.id = q.id;
  doc.title = "Training quote " + q.id;
  doc.html = render_quote_html(q);
  doc.markdown = render_quote_markdown(q);
  doc.summary = q.id + ", valid until " + q.valid_until;
  if (q.recommended) {
    const ComparisonRow& best = q.input.plans.rows[*q.recommended];
    doc.summary += ", " + best.option.label + " " + best.p50.total.str() + " (P50)";
  }
  return doc;
}

bool quote_pdf_bytes(const QuoteDocument& q, std::string& pdf, QString* error) {
  if (!q.ok()) {
    if (error) *error = QStringLiteral("there is no quote to print");
    return false;
  }
  std::string why;
  if (!quote_pdf::html_to_pdf(q.html, q.title, pdf, why)) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  return true;
}

bool write_quote_pdf(const QuoteDocument& q, const QString& path, QString* error) {
  std::string pdf;
  if (!quote_pdf_bytes(q, pdf, error)) return false;
  std::string why;
  if (!io::write_file_atomically(path.toStdString(), pdf, true, why)) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  return true;
}

}  // namespace flopcast::gui

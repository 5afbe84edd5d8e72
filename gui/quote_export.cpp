#include "quote_export.hpp"

#include "flopcast/app/quote_request.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/quote/quote.hpp"
#include "flopcast/quote/quote_render.hpp"

#include "quote_pdf.hpp"

namespace flopcast::gui {

QuoteDocument make_quote_document(const app::ComputeResult& r, const io::Catalog& catalog, const std::string& date,
                                  const std::string& customer, quote::QuoteLanguage language) {
  QuoteDocument doc;
  if (!r.ok()) {
    doc.errors.push_back("the scenario has errors: fix them in the editor first");
    return doc;
  }
  // The same run, bills and checks as `flopcast quote` (app/quote_request.hpp).
  app::SimReport report = r.report;
  report.scenario = r.scenario.get();
  app::QuoteOptions options;
  options.customer = customer;
  options.date = date;
  options.language = language;
  const app::QuoteOutcome prepared = app::prepare_quote(report, catalog.data_dir, options);
  if (!prepared.ok()) {
    const std::string text = app::quote_problem_text(prepared.problem, report);
    switch (prepared.problem) {
      case app::QuoteProblem::CatalogUnreadable:
        for (const auto& d : prepared.diags.items()) doc.errors.push_back(d.str());
        break;
      case app::QuoteProblem::RunNotSimulated:
        for (const auto& e : prepared.details) doc.errors.push_back(text + e);
        break;
      case app::QuoteProblem::NoPricing:
        doc.errors.push_back(text + "; choose a price catalog in the editor");
        break;
      case app::QuoteProblem::QuoteInvalid:
      case app::QuoteProblem::BadDeadline:  // the GUI's quote states no requirements yet
      case app::QuoteProblem::BadBudget:
        doc.errors = prepared.details;
        break;
      case app::QuoteProblem::DoesNotFit:
      case app::QuoteProblem::NoTokens:
      case app::QuoteProblem::None:
        doc.errors.push_back(text);
        break;
    }
    return doc;
  }
  const quote::Quote& q = *prepared.quote;
  doc.id = q.id;
  doc.title = quote::quote_title(q);
  doc.html = quote::render_quote_html(q);
  doc.markdown = quote::render_quote_markdown(q);
  doc.summary = q.id + ", valid until " + q.valid_until;
  if (q.recommended) {
    const pricing::ComparisonRow& best = q.input.plans.rows[*q.recommended];
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

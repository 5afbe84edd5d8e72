#pragma once
/// The quote of the editor's scenario, as `flopcast quote` writes it: the same report, run,
/// bills and checks (app::prepare_quote), the same HTML (render_quote_html) and, for PDF, the
/// same printer (quote_pdf/).
#include <QString>

#include <string>
#include <vector>

#include "flopcast/app/compute_result.hpp"
#include "flopcast/quote/quote_text.hpp"

namespace flopcast::gui {

/// A quote ready to write, or the reasons there is none (the CLI's messages).
struct QuoteDocument {
  std::string id;        ///< "Q-..." (empty when there is no quote)
  std::string title;     ///< "Training quote Q-..." (in the quote's language)
  std::string html;      ///< render_quote_html
  std::string markdown;  ///< render_quote_markdown
  std::string summary;   ///< "Q-..., valid until ..., <plan> <total> (P50)"
  std::vector<std::string> errors;
  bool ok() const { return errors.empty() && !html.empty(); }
};

/// Builds the quote of `r`'s scenario issued on `date` ("YYYY-MM-DD") for `customer`, written
/// in `language` (`flopcast quote --lang`). Runs the whole-run Monte Carlo again, as the CLI
/// does: call it off the UI thread. Thread-safe for a shared const catalog.
QuoteDocument make_quote_document(const app::ComputeResult& r, const io::Catalog& catalog, const std::string& date,
                                  const std::string& customer,
                                  quote::QuoteLanguage language = quote::QuoteLanguage::En);

/// Prints the quote's HTML to PDF bytes (on the UI thread: QTextDocument needs the GUI).
bool quote_pdf_bytes(const QuoteDocument& q, std::string& pdf, QString* error);

/// quote_pdf_bytes, then an atomic write to `path` (replacing it: the dialog asked).
bool write_quote_pdf(const QuoteDocument& q, const QString& path, QString* error);

}  // namespace flopcast::gui

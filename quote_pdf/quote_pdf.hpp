#pragma once
/// Printing a quote to PDF: the quote's HTML (core/quote's render_quote_html, written for
/// QTextDocument's HTML subset) laid out on A4 pages by QTextDocument and written by
/// QPdfWriter. The only Qt code the CLI links; its interface has no Qt types.
#include <string>

namespace flopcast::quote_pdf {

/// A4 page margins, mm: the 18 mm of the HTML's `@page` rule (QTextDocument ignores @page).
inline constexpr double kMarginMm = 18.0;

/// Prints the HTML document `html` (UTF-8) to an A4 PDF and returns its bytes in `pdf`.
/// `title` becomes the PDF's document title. Works without a display: when the process has
/// no QGuiApplication, one is created for the call on Qt's "offscreen" platform and destroyed
/// after it. Returns false with a message in `error` when no PDF could be made (e.g. a
/// non-GUI QCoreApplication is running, or Qt produced no output). Writes no file.
/// Deterministic: Qt's hash seed is fixed for the call (the order the font subsets are written
/// in follows a QHash), and with `creation_date` ("YYYY-MM-DD") the PDF's /CreationDate is that
/// date at 00:00 UTC instead of the clock, so the same HTML and date give the same bytes.
bool html_to_pdf(const std::string& html, const std::string& title, std::string& pdf, std::string& error,
                 const std::string& creation_date = {});

/// Rewrites the first "/CreationDate (D:YYYYMMDDHHmmSS" in `pdf` to `date` ("YYYY-MM-DD") at
/// 00:00:00, in place and at the same length (the cross-reference offsets stay right). False
/// when `date` is not of that form or the PDF has no such entry.
bool set_pdf_creation_date(std::string& pdf, const std::string& date);

}  // namespace flopcast::quote_pdf

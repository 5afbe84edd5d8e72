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
bool html_to_pdf(const std::string& html, const std::string& title, std::string& pdf, std::string& error);

}  // namespace flopcast::quote_pdf

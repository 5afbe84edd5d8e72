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
/// non-GUI QCoreApplication is running, Qt produced no output, or a Chinese quote
/// (`<html lang="zh-CN">`) finds no CJK font: the message names the Debian package to install).
/// The same HTML gives the same bytes but for the creation date Qt writes (the caller fixes it:
/// core/quote's pdf_with_creation_date). Writes no file.
bool html_to_pdf(const std::string& html, const std::string& title, std::string& pdf, std::string& error);

/// The body rows of `html`'s tables that its A4 layout -- the one html_to_pdf prints -- leaves
/// broken: split across two pages (a row taller than a page aside), or after an empty page. 0
/// when every row is whole on one page; -1 with `error` as html_to_pdf's when no layout can be made.
int broken_table_rows(const std::string& html, std::string& error);

}  // namespace flopcast::quote_pdf

#pragma once
/// Renders a Quote as Markdown or as one self-contained, printable HTML page (inline CSS, no
/// external resources, A4 page rules; table attributes that QTextDocument also honours, so
/// the Qt layer can print it to PDF unchanged). Same quote, same bytes.
#include <string>

#include "flopcast/quote/quote.hpp"

namespace flopcast::quote {

/// The quote as GitHub-flavoured Markdown.
std::string render_quote_markdown(const Quote& quote);

/// The quote as a complete HTML document (UTF-8), in the quote's language: `<html lang>` names
/// it, and a Chinese quote asks for a CJK font family (WenQuanYi Micro Hei, Noto Sans CJK SC).
std::string render_quote_html(const Quote& quote);

/// The quote's title in its language: "Training quote Q-...", "训练报价单 Q-...".
std::string quote_title(const Quote& quote);

/// `pdf` with its "/CreationDate (D:YYYYMMDDHHMMSSZ)" set to `date` ("YYYY-MM-DD") at 00:00:00Z.
/// The replacement has the same length, so the PDF's cross-reference offsets stay valid.
/// A PDF without that entry, or a malformed date, is returned unchanged.
std::string pdf_with_creation_date(std::string pdf, const std::string& date);

}  // namespace flopcast::quote

#pragma once
/// Renders a Quote as Markdown or as one self-contained, printable HTML page (inline CSS, no
/// external resources, A4 page rules; table attributes that QTextDocument also honours, so
/// the Qt layer can print it to PDF unchanged). Same quote, same bytes.
#include <string>

#include "flopcast/quote/quote.hpp"

namespace flopcast {

/// The quote as GitHub-flavoured Markdown.
std::string render_quote_markdown(const Quote& quote);

/// The quote as a complete HTML document (UTF-8).
std::string render_quote_html(const Quote& quote);

}  // namespace flopcast

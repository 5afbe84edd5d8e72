// The PDF module's entry point (quote_pdf_module.hpp): quote_pdf::html_to_pdf, exported under
// a C name so that dlsym finds it.
#include "quote_pdf_module.hpp"
#include "quote_pdf.hpp"

#include <type_traits>

extern "C" __attribute__((visibility("default"))) bool flopcast_quote_pdf_html_to_pdf_v1(const std::string& html,
                                                                                         const std::string& title,
                                                                                         std::string& pdf,
                                                                                         std::string& error) {
  return flopcast::quote_pdf::html_to_pdf(html, title, pdf, error);
}

// The declaration above must match the type the CLI casts the symbol to.
static_assert(std::is_same_v<decltype(&flopcast_quote_pdf_html_to_pdf_v1), flopcast::quote_pdf::HtmlToPdfFn>);

#pragma once
/// The interface between the PDF module (flopcast-quote-pdf.so, built from quote_pdf.cpp) and
/// the CLI, which loads it with dlopen only when it prints a PDF: the CLI then starts without
/// Qt. One entry point, looked up by name; both sides are built together by this project, so
/// it passes std::string (the same compiler and standard library on both sides).
#include <string>

namespace flopcast::quote_pdf {

/// quote_pdf::html_to_pdf (quote_pdf.hpp), as the module exports it.
using HtmlToPdfFn = bool (*)(const std::string& html, const std::string& title, std::string& pdf, std::string& error);

/// The exported name of the module's HtmlToPdfFn. The suffix is the interface version: a
/// changed signature takes a new name, so a stale module is reported missing, not called.
inline constexpr const char* kHtmlToPdfSymbol = "flopcast_quote_pdf_html_to_pdf_v1";

}  // namespace flopcast::quote_pdf

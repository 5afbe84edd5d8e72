#pragma once
/// Finding and loading the PDF module (quote_pdf/quote_pdf_module.hpp) for
/// `flopcast quote --format pdf`: only that command loads Qt.
#include <string>
#include <vector>

#include "quote_pdf_module.hpp"

namespace flopcast::cli {

/// Whether this build has PDF support (FLOPCAST_PDF=ON: quote_pdf/ built the module). When it
/// has none, the functions below find nothing and say so.
bool quote_pdf_built();

/// Environment variable naming the PDF module file to load instead of the usual places.
inline constexpr const char* kQuotePdfModuleEnv = "FLOPCAST_QUOTE_PDF_MODULE";

/// Where the module is looked for, in order: $FLOPCAST_QUOTE_PDF_MODULE alone when it is set
/// and not empty; else PREFIX/lib/flopcast/ beside the PREFIX/bin/ of the running executable
/// (an installed flopcast, install_layout.hpp), then the file this build tree produced.
std::vector<std::string> quote_pdf_module_candidates();

/// The module's HTML-to-PDF printer, loaded from the first candidate that loads (and stays
/// loaded for the life of the process: Qt does not support being unloaded). Null when none
/// loads, with `error` naming the files tried and why each failed ("" on success).
quote_pdf::HtmlToPdfFn load_quote_pdf_module(std::string& error);

}  // namespace flopcast::cli

// The PDF loader of a build configured with FLOPCAST_PDF=OFF: there is no module to load.
#include "quote_pdf_loader.hpp"

namespace flopcast::cli {

bool quote_pdf_built() { return false; }

std::vector<std::string> quote_pdf_module_candidates() { return {}; }

quote_pdf::HtmlToPdfFn load_quote_pdf_module(std::string& error) {
  error = "this build has no PDF support (it was configured with FLOPCAST_PDF=OFF)";
  return nullptr;
}

}  // namespace flopcast::cli

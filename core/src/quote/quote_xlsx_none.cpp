// XLSX quotes in a build configured with FLOPCAST_XLSX=OFF: none, said plainly.
#include "flopcast/quote/quote_xlsx.hpp"

namespace flopcast::quote {

bool quote_xlsx_supported() { return false; }

std::optional<std::string> render_quote_xlsx(const Quote&, std::string& error) {
  error = "this build has no XLSX support (it was configured with FLOPCAST_XLSX=OFF); use --format html, md or pdf";
  return std::nullopt;
}

}  // namespace flopcast::quote

#pragma once
/// A quote as an Excel workbook (.xlsx, written with libxlsxwriter) for the finance reader who
/// audits it: sheet "Quote" (the header, the recommended plan and its totals, the requirements),
/// sheet "Bill" (one row per bill line with its quantity and unit price as numbers and the
/// amount as a formula, then subtotal, tax and total as formulas, for the P50 and the P90 run)
/// and sheet "Assumptions". Money cells hold the exact minor units / 100 in the currency's
/// number format. The workbook's creation time is the quote's issue date (00:00 UTC), so the
/// same quote gives the same bytes. Built with FLOPCAST_XLSX (the default); without it the
/// functions below report that the build has no XLSX support.
#include <optional>
#include <string>

#include "flopcast/quote/quote.hpp"

namespace flopcast::quote {

/// Whether this build writes XLSX (configured with FLOPCAST_XLSX=ON).
bool quote_xlsx_supported();

/// The quote as the bytes of an .xlsx file; nullopt with `error` set when no workbook could be
/// written (no XLSX support in the build, no temporary file, a libxlsxwriter error). The
/// library writes through a temporary file that is removed before returning.
std::optional<std::string> render_quote_xlsx(const Quote& quote, std::string& error);

}  // namespace flopcast::quote

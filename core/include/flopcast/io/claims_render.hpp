#pragma once
/// The claims report (`flopcast check`) as text (a table, then the reasons and notes), one
/// JSON document (stable keys, typed numbers), Markdown and a self-contained HTML page. Each is
/// deterministic: the same report gives byte-identical output.
#include <string>

#include "flopcast/claims/claim_results.hpp"

namespace flopcast::io {

/// A table (claim, kind, claimed, verdict, flopcast's figure, how), then why each verdict is
/// what it is (the arithmetic, the cause, what is missing) and the notes.
std::string claims_text(const claims::ClaimsReport& r);
/// One JSON document (two-space indentation, keys in a fixed order), ending in a newline.
std::string claims_json(const claims::ClaimsReport& r);
/// A Markdown page: summary, the table, the reasons and notes.
std::string claims_markdown(const claims::ClaimsReport& r);
/// A self-contained HTML page (inline CSS, no external assets, no script).
std::string claims_html(const claims::ClaimsReport& r);

}  // namespace flopcast::io

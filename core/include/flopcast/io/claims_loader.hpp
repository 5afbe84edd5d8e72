#pragma once
/// Claims files (`flopcast check CLAIMS.yaml`, docs/claims.md): a list of claims, each with its
/// kind, its quote, its source, the claimed figure and what judging it needs. Loading is strict:
/// every problem names file:line:col, the key and the fix (unknown keys get a did-you-mean),
/// and one bad claim does not stop the others: it is left out of the file's claims, its id
/// listed in `rejected`, its problems in the diagnostics.
#include <optional>
#include <string>
#include <string_view>

#include "flopcast/claims/claim.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/diagnostic.hpp"

namespace flopcast::io {

/// Reads a claimed figure: "< 3 us", "190 Gbps", "24 GB/s", "1,075 TFLOPS", "330 W", "80 GB",
/// "38%", "-8%", "3.2x", "1.5 h", "10,900 USD", "$1.89", "1.2M CNY", "6.8 CNY/GPU-hour",
/// "57,600 CNY/node-month". A leading "<", "<=", ">" or ">=" makes it a bound; a leading "~"
/// ("about") is read as the figure itself. nullopt when it is none of these.
std::optional<claims::ClaimedValue> parse_claimed_value(std::string_view text);

/// Parses a claims document. `file` names it in diagnostics and anchors the scenario paths it
/// names; price catalogs are loaded from `data_dir` ("" = the embedded copies). nullopt only
/// when the file as a whole cannot be read (malformed YAML, not a mapping, no claims list).
std::optional<claims::ClaimsFile> parse_claims_file(const std::string& text, const std::string& file,
                                                    const Catalog& catalog, const std::string& data_dir,
                                                    scenario::Diagnostics& diags);

/// Reads and parses a claims file.
std::optional<claims::ClaimsFile> load_claims_file(const std::string& path, const Catalog& catalog,
                                                   const std::string& data_dir, scenario::Diagnostics& diags);

}  // namespace flopcast::io

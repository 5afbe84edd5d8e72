#pragma once
/// `flopcast check`'s work outside the flags: load a claims file, judge it with core/claims,
/// and simulate the scenarios that training claims and run costs point at exactly as
/// `flopcast simulate` does (its make_report and claim check). `flopcast check` and the GUI's
/// Claims tab use it.
#include <optional>
#include <string>

#include "flopcast/claims/claim_results.hpp"
#include "flopcast/claims/scenario_runner.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/diagnostic.hpp"

namespace flopcast::app {

/// Runs a scenario for a claim: loads it with the claim's overrides, tells a file with errors
/// (BadInput) from one whose figures describe no possible run (Inconsistent: check_scenario's
/// errors), and otherwise simulates the step and checks the `claimed:` block (make_report).
claims::ScenarioOutcome run_scenario_for_claims(const claims::ScenarioRef& ref, const io::Catalog& catalog);

/// Loads and judges `path`. nullopt when the file as a whole cannot be read (diagnostics in
/// `diags`); otherwise the report, whose `errors` list the problems of the claims left out.
std::optional<claims::ClaimsReport> check_claims_file(const std::string& path, const io::Catalog& catalog,
                                                      const std::string& data_dir, scenario::Diagnostics& diags);

}  // namespace flopcast::app

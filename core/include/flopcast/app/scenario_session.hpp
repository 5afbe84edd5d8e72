#pragma once
/// A scenario as a command or the editor works on it: the scenario file (or text) loaded with
/// its calibration profile, every diagnostic kept, and the scenario's price catalog loaded
/// once, so that evaluation never reaches back into io.
#include <memory>
#include <optional>
#include <string>

#include "flopcast/io/catalog.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::app {

/// A loaded scenario and the profile it asks for.
struct ScenarioSession {
  scenario::Scenario scenario;
  compute::ComputeProfile profile;
};

/// What loading a scenario gave: the session, or why there is none.
struct SessionOutcome {
  std::optional<ScenarioSession> session;
  /// The scenario loader's diagnostics, warnings included (also when it loaded).
  scenario::Diagnostics diags;
  /// The profile loader's diagnostics, located at the scenario's `calibration` key when they
  /// have no place of their own. Errors here mean the profile could not be loaded.
  scenario::Diagnostics profile_diags;
  /// The profile asked for: the override, else the scenario's `calibration`; "" = the
  /// catalog's default.
  std::string profile_name;
  /// The scenario file itself could not be read (missing, unreadable): an I/O error rather
  /// than bad input.
  bool io_error = false;
  bool ok() const { return session.has_value(); }
};

/// Loads the scenario file `path` and its calibration profile (`profile_override`, a file or
/// a name, instead of the scenario's `calibration` when not empty; else the catalog's default).
SessionOutcome load_scenario_session(const std::string& path, const io::Catalog& catalog,
                                     const std::string& profile_override = {});

/// As load_scenario_session for scenario text `yaml` (named `file` in diagnostics), as the
/// editor holds it; the profile is the scenario's own.
SessionOutcome parse_scenario_session(const std::string& yaml, const std::string& file, const io::Catalog& catalog);

/// The scenario's price catalog (`pricing.catalog`) from `data_dir` ("" = the embedded copy):
/// null when the scenario has no `pricing:` block; nullopt when it cannot be loaded, with
/// diagnostics in `diags` (those without a line of their own, "not found", are located at the
/// scenario's `pricing.catalog` key).
std::optional<std::shared_ptr<const pricing::PriceCatalog>> load_scenario_prices(const scenario::Scenario& s,
                                                                                 const std::string& data_dir,
                                                                                 scenario::Diagnostics& diags);

}  // namespace flopcast::app

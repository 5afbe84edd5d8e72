#pragma once
/// Fleet files (docs/fleet.md): pools of nodes, job classes (scenarios), a job list or a
/// seeded generator, horizon, seeds, policy, revenue catalog and what-ifs. Read with the
/// same diagnostics as scenarios: file:line:col, key path, bad value, expectation and hint;
/// unknown keys are errors with a did-you-mean.
///
/// The loader resolves names (GPUs, fabrics, price catalogs and plans, job classes) and loads
/// each class's scenario. It does not simulate: the whole-run profiles of each (scenario,
/// GPU type, GPU count) are filled by the caller (app/fleet_request), which needs the step model.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/fleet/fleet.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::io {

/// A job class as the fleet file writes it.
struct FleetClassInput {
  std::string name;
  std::string scenario_path;    ///< as written
  std::string scenario_file;    ///< resolved against the fleet file's folder
  scenario::Scenario scenario;  ///< loaded; `tokens:` and `gpus:` overrides not yet applied
  double tokens = 0.0;          ///< tokens of the run (the class's, else the scenario's)
  std::int64_t gpus = 0;        ///< GPUs asked (the class's, else the scenario's)
  /// Re-planning allowed: other GPU types (catalog names) and other GPU counts (data-parallel
  /// width scaled), each tried in the order written after the scenario as asked.
  std::vector<std::string> replan_gpus;
  std::vector<std::int64_t> replan_counts;
  std::string key;  ///< "job_classes[i]" for diagnostics
};

/// A loaded fleet file.
struct FleetFile {
  std::string file;
  /// Everything resolved except classes[i].variants (empty: filled by the caller).
  fleet::Fleet fleet;
  std::vector<FleetClassInput> classes;  ///< same order as fleet.classes
  scenario::LocationMap locations;       ///< key path -> where it is written
  /// The file's `currency:` (the reporting currency it asks for). fleet.currency and fleet.fx
  /// are resolved (resolve_fleet_currency) when the file is parsed.
  std::optional<units::Currency> currency;
  /// The price catalogs the fleet uses, where exchange rates are looked up: the revenue
  /// catalog first, then the rented pools' catalogs in pool order (each once).
  std::vector<std::shared_ptr<const pricing::PriceCatalog>> catalogs;
};

/// How a fleet file is read.
struct FleetLoadOptions {
  /// The reporting currency asked for (the command's --currency), over the file's `currency:`.
  std::optional<units::Currency> currency;
};

/// Sets ff.fleet.currency and ff.fleet.fx: the reporting currency is `asked`, else the file's
/// `currency:`, else the revenue's currency, else the one currency every pool bills in. Each
/// other currency a pool or the revenue bills in is converted with the first rate stated by
/// ff.catalogs (revenue catalog first); a catalog that states another rate for the same pair is
/// warned about. false, with an error at the key that bills in it (naming the catalogs searched
/// and the fix), where a rate is missing, or when the pools bill in several currencies and none is named.
bool resolve_fleet_currency(FleetFile& ff, std::optional<units::Currency> asked, scenario::Diagnostics& diags);

/// Parses a fleet document. Scenario paths are resolved against `file`'s folder; price
/// catalogs by name from catalog.data_dir (or the embedded copy) or by path; the reporting
/// currency and its rates by resolve_fleet_currency. Every problem goes to `diags`; nullopt
/// when any is an error.
std::optional<FleetFile> parse_fleet(const std::string& text, const std::string& file, const Catalog& catalog,
                                     scenario::Diagnostics& diags, const FleetLoadOptions& options = {});

/// Reads and parses a fleet file.
std::optional<FleetFile> load_fleet_file(const std::string& path, const Catalog& catalog, scenario::Diagnostics& diags,
                                         const FleetLoadOptions& options = {});

}  // namespace flopcast::io

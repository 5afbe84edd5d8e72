#pragma once
/// Price catalogs (data/prices/*.yaml) and the scenario's `reliability:` and `pricing:`
/// blocks, read with full diagnostics: file:line:col, key path, bad value, what was expected
/// and a hint; unknown keys are errors. The catalog schema is documented at the top of
/// data/prices/seed-vendor.yaml.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/job/reliability_spec.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/pricing/pricing_spec.hpp"
#include "flopcast/scenario/diagnostic.hpp"

namespace YAML {
class Node;
}

namespace flopcast::io {

/// Parses a price catalog from YAML text. `file` names it in diagnostics; the catalog's
/// name defaults to the file's stem. nullopt when any error was found (all are reported).
std::optional<pricing::PriceCatalog> parse_price_catalog(const std::string& text, const std::string& file,
                                                         scenario::Diagnostics& diags);

/// Loads a catalog by name ("seed-vendor" -> prices/seed-vendor.yaml from `data_dir`, or the
/// copy embedded in the binary when `data_dir` is empty) or by path (contains '/' or ends
/// in ".yaml"). nullopt with a diagnostic naming the known catalogs when not found.
std::optional<pricing::PriceCatalog> load_price_catalog(const std::string& name_or_path, const std::string& data_dir,
                                                        scenario::Diagnostics& diags);

/// Names of the catalogs shipped in data/prices/ (embedded in the binary).
std::vector<std::string> price_catalog_names();

/// Reads the scenario's `reliability:` mapping into `out` (keys: failures_per_gpu_hour,
/// restart_time, checkpoint_interval ("auto" = Young/Daly), async_checkpoint, storage_write,
/// checkpoint_bytes_per_param, async_stall, provisioning, debug_phase, trials, seed) and
/// records "reliability.<key>" locations in `locs`. Durations: "10min", "90s", "2.5 h", "3d";
/// bandwidth: "5 GB/s", "200 Gbps".
void parse_reliability_block(const YAML::Node& node, const std::string& file, scenario::Diagnostics& diags,
                             job::ReliabilitySpec& out, scenario::LocationMap& locs);

/// Reads the scenario's `pricing:` mapping into `out` (keys: catalog, plans, currency,
/// new_user, mixes, add_ons, checkpoints_kept, pue, electricity_per_kwh ("0.6 CNY")) and
/// records "pricing.<key>" locations. A bare string is taken as the catalog name.
void parse_pricing_block(const YAML::Node& node, const std::string& file, scenario::Diagnostics& diags,
                         pricing::PricingSpec& out, scenario::LocationMap& locs);

}  // namespace flopcast::io

#include "flopcast/app/scenario_session.hpp"

#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/scenario_loader.hpp"

namespace flopcast::app {
namespace {

/// The scenario file could not be read at all: nothing was parsed, or the loader said so.
bool file_unreadable(const scenario::Diagnostics& diags) {
  return diags.items().empty() || io::any_unreadable_file(diags);
}

/// Adds the profile (`name`, or the catalog's default when empty) to a loaded scenario.
void add_profile(SessionOutcome& out, scenario::Scenario&& s, const io::Catalog& catalog, const std::string& name) {
  ScenarioSession session{std::move(s), catalog.profile};
  if (!name.empty()) {
    scenario::Diagnostics pd;
    auto p = io::load_profile(name, catalog, pd);
    for (auto d : pd.items()) {
      if (d.where.file.empty()) d.where = scenario::locate(session.scenario.locations, "calibration");
      out.profile_diags.add(d);
    }
    if (!p) return;
    session.profile = *p;
  }
  // Settings left `auto` are resolved with the profile the session predicts with (the loader
  // resolved them with the scenario's own, which a --profile override replaces).
  estimate::resolve_open_settings(session.scenario, session.profile);
  out.session = std::move(session);
}

}  // namespace

SessionOutcome load_scenario_session(const std::string& path, const io::Catalog& catalog,
                                     const std::string& profile_override) {
  SessionOutcome out;
  auto s = io::load_scenario_file(path, catalog, out.diags);
  if (!s) {
    out.io_error = file_unreadable(out.diags);
    return out;
  }
  out.profile_name = !profile_override.empty() ? profile_override : s->calibration;
  add_profile(out, std::move(*s), catalog, out.profile_name);
  return out;
}

SessionOutcome parse_scenario_session(const std::string& yaml, const std::string& file, const io::Catalog& catalog) {
  SessionOutcome out;
  auto s = io::parse_scenario(yaml, file, catalog, out.diags);
  if (!s) return out;
  out.profile_name = s->calibration;
  add_profile(out, std::move(*s), catalog, out.profile_name);
  return out;
}

std::optional<std::shared_ptr<const pricing::PriceCatalog>> load_scenario_prices(const scenario::Scenario& s,
                                                                                 const std::string& data_dir,
                                                                                 scenario::Diagnostics& diags) {
  if (!s.has_pricing) return std::shared_ptr<const pricing::PriceCatalog>();
  scenario::Diagnostics pd;
  auto loaded = io::load_price_catalog(s.pricing.catalog, data_dir, pd);
  for (auto d : pd.items()) {
    // "not found" has no line in the catalog: point at the scenario key that names it.
    if (d.where.line == 0) d.where = scenario::locate(s.locations, "pricing.catalog");
    diags.add(d);
  }
  if (!loaded) return std::nullopt;
  return std::make_shared<const pricing::PriceCatalog>(std::move(*loaded));
}

}  // namespace flopcast::app

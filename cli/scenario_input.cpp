#include "scenario_input.hpp"

#include <ostream>

#include "flopcast/estimate/setting_resolution.hpp"

namespace flopcast::cli {

std::optional<LoadedScenario> load_scenario_for_command(CliContext& ctx, const std::string& path,
                                                        const std::string& profile_override) {
  const auto* cat = ctx.catalog();
  if (!cat) return std::nullopt;
  Diagnostics diags;
  auto s = io::load_scenario_file(path, *cat, diags);
  if (!diags.empty()) ctx.err << diags.str();
  if (!s) {
    ctx.exit_code = diags.items().empty() ? kIoError : kBadInput;
    for (const auto& d : diags.items())
      if (d.key.empty() && (d.message == "file not found" || d.message == "cannot read file")) ctx.exit_code = kIoError;
    return std::nullopt;
  }
  LoadedScenario out{std::move(*s), cat->profile};
  const std::string prof = !profile_override.empty() ? profile_override : out.scenario.calibration;
  if (!prof.empty()) {
    Diagnostics pd;
    auto p = io::load_profile(prof, *cat, pd);
    if (!p) {
      for (auto d : pd.items()) {
        if (d.where.file.empty()) d.where = locate(out.scenario.locations, "calibration");
        ctx.err << d.str() << "\n";
      }
      ctx.exit_code = kBadInput;
      return std::nullopt;
    }
    out.profile = *p;
  }
  // Settings left `auto` were resolved by the loader with the scenario's own profile; a
  // --profile override resolves them again with the one the command predicts with.
  if (!profile_override.empty()) resolve_open_settings(out.scenario, out.profile);
  return out;
}

}  // namespace flopcast::cli

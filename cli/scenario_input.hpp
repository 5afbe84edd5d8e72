#pragma once
/// Loading a scenario and its calibration profile for a command, printing diagnostics.
#include <optional>
#include <string>

#include "cli_context.hpp"
#include "flopcast/io/scenario_loader.hpp"

namespace flopcast::cli {

/// A loaded scenario and the profile it asks for.
struct LoadedScenario {
  Scenario scenario;
  ComputeProfile profile;
};

/// Loads `path`; prints every diagnostic (warnings too) to ctx.err. Sets ctx.exit_code and
/// returns nullopt on errors.
std::optional<LoadedScenario> load_scenario_for_command(CliContext& ctx, const std::string& path,
                                                        const std::string& profile_override = {});

}  // namespace flopcast::cli

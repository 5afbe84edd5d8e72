#include <ostream>

#include "cli_context.hpp"
#include "report.hpp"
#include "scenario_input.hpp"

namespace flopcast::cli {

void register_simulate(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::string scenario;
    std::string profile;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("simulate", "Simulate one training step and the whole run of a scenario");
  cmd->add_option("scenario", opts->scenario, "Scenario YAML file")->required();
  cmd->add_flag("--json", opts->json, "Print the report as one JSON document");
  cmd->add_option("--profile", opts->profile, "Calibration profile (file or name) instead of the scenario's");
  cmd->callback([&ctx, opts] {
    auto loaded = load_scenario_for_command(ctx, opts->scenario, opts->profile);
    if (!loaded) return;
    auto report = make_report(loaded->scenario, loaded->profile);
    Diagnostics diags;
    const bool priced = add_whole_run(report, ctx.data_dir, diags);
    if (!diags.empty()) ctx.err << diags.str();
    if (!priced) {
      ctx.exit_code = kBadInput;
      return;
    }
    if (opts->json) ctx.out << to_json(report).dump(2) << "\n";
    else print_text(report, ctx.out);
    if (!report.fits_memory) ctx.exit_code = kInfeasible;
  });
}

}  // namespace flopcast::cli

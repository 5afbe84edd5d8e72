#include <ostream>
#include <sstream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/evaluation.hpp"
#include "flopcast/app/report_json.hpp"
#include "flopcast/app/report_text.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/chrome_trace.hpp"

namespace flopcast::cli {

void register_simulate(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::string scenario;
    std::string profile;
    std::string trace;
    bool json = false;
    bool estimate = false;
    OutputFile out;
  };
  auto opts = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("simulate", "Simulate one training step and the whole run of a scenario");
  cmd->add_option("scenario", opts->scenario, "Scenario YAML file")->required();
  cmd->add_flag("--json", opts->json, "Print the report as one JSON document");
  cmd->add_option("--profile", opts->profile, "Calibration profile (file or name) instead of the scenario's");
  cmd->add_flag("--estimate", opts->estimate,
                "Use the closed-form step estimate instead of the discrete-event simulation");
  cmd->add_option(
         "--trace", opts->trace,
         "Write the simulated step's timeline as Chrome trace-event JSON (opens in Perfetto / chrome://tracing)")
      ->type_name("FILE");
  add_out_flag(*cmd, opts->out, "Write the report to FILE instead of standard output");
  add_force_flag(*cmd, opts->out.force, "Overwrite the -o and --trace files if they exist");
  cmd->callback([&ctx, opts] {
    if (opts->estimate && !opts->trace.empty())
      return ctx.fail(kUsage, "--trace needs the simulation; drop --estimate");
    auto loaded = load_scenario_for_command(ctx, opts->scenario, opts->profile);
    if (!loaded) return;
    if (loaded->scenario.training.tokens <= 0)
      ctx.warn("no whole-run figures (days, GPU-hours, bills): set training.tokens, e.g. training: {tokens: 1T}");
    auto report = app::make_report(loaded->scenario, loaded->profile,
                                   opts->estimate ? app::StepEngine::Estimate : app::StepEngine::Simulation);
    scenario::Diagnostics diags;
    const bool priced = app::add_whole_run(report, ctx.data_dir, diags);
    if (!diags.empty()) ctx.err << diags.str();
    if (!priced) {
      ctx.exit_code = kBadInput;
      return;
    }
    if (!opts->trace.empty() && report.sim) {
      const std::string title = loaded->scenario.name.empty() ? opts->scenario : loaded->scenario.name;
      std::string error;
      if (!io::write_file_atomically(opts->trace, io::chrome_trace_json(*report.sim, title), opts->out.force, error))
        return ctx.fail(kIoError, error);
    }
    std::ostringstream text;
    if (opts->json)
      text << app::to_json(report).dump(2) << "\n";
    else
      app::print_text(report, text);
    if (!write_output(ctx, opts->out, text.str())) return;
    if (!report.fits_memory) ctx.exit_code = kInfeasible;
  });
}

}  // namespace flopcast::cli

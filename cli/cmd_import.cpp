// `flopcast import LOG...`: training logs (Megatron-LM, torchtitan) made into a measured-run file
// that validate and calibrate read (app/log_import.hpp does the work).
#include <ostream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/log_import.hpp"

namespace flopcast::cli {
namespace {

struct ImportOpts {
  app::ImportRequest request;
  OutputFile out;
};

void run_import(CliContext& ctx, const ImportOpts& o) {
  const io::Catalog* cat = ctx.catalog();
  if (!cat) return;
  const auto result = app::import_logs(o.request, *cat);
  switch (result.problem) {
    case app::ImportProblem::None:
      break;
    case app::ImportProblem::UnknownGpu:
    case app::ImportProblem::UnknownFabric:
    case app::ImportProblem::NoGpu:
      if (!result.diags.empty()) ctx.err << result.diags.str();
      return ctx.fail(kUsage, result.message);
    case app::ImportProblem::Unreadable:
    case app::ImportProblem::BadLog:
      ctx.report(result.diags);
      ctx.err << ctx.who() << ": nothing written: fix the logs above or leave them out\n";
      return;
  }
  if (!result.diags.empty()) ctx.err << result.diags.str();  // warnings
  if (!write_output(ctx, o.out, result.yaml)) return;
  if (o.out.path.empty()) return;
  ctx.out << "wrote " << o.out.path << ": " << result.runs.size() << (result.runs.size() == 1 ? " run" : " runs")
          << "\n";
  for (const auto& run : result.runs) ctx.out << "  " << app::import_summary(run) << "\n";
  ctx.out << "next: flopcast validate " << o.out.path << "\n";
}

}  // namespace

void register_import(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<ImportOpts>();
  auto* cmd = app.add_subcommand(
      "import", "Read training logs (Megatron-LM, torchtitan) into a measured-run file for validate and calibrate");
  cmd->add_option("logs", o->request.logs, "Training logs (the jobs' standard output), one run each")
      ->required()
      ->type_name("LOG");
  cmd->add_option("--gpu", o->request.gpu, "GPU type of the runs (flopcast catalog gpus); default: as the log names it")
      ->type_name("NAME");
  cmd->add_option("--fabric", o->request.fabric,
                  "Node and fabric type of the runs (flopcast catalog fabrics); default: the GPU's usual node")
      ->type_name("NAME");
  cmd->add_option("--gpus-per-node", o->request.gpus_per_node, "GPUs per node; default: the fabric's node")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--config", o->request.torchtitan_config,
                  "The torchtitan job config (TOML) the torchtitan logs ran with; default: what the log prints")
      ->type_name("TOML");
  add_out_flag(*cmd, o->out, "Write the runs to FILE instead of standard output");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE if it exists");
  cmd->callback([&ctx, o] { run_import(ctx, *o); });
}

}  // namespace flopcast::cli

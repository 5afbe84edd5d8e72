// `flopcast fleet`: many training jobs on a finite cluster (core/fleet). Loads the fleet file
// (io/fleet_loader), plans each job class's whole run on the GPUs it may get (app/fleet_request),
// simulates the seeds and prints the waits, utilisation, costs, revenue and what-ifs.
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/fleet_report.hpp"
#include "flopcast/app/fleet_request.hpp"
#include "flopcast/io/units_parse.hpp"

namespace flopcast::cli {
namespace {

struct FleetOpts {
  std::string file;
  std::string horizon;
  int seeds = 0;
  int threads = 1;
  bool json = false;
  bool csv = false;
  OutputFile out;
  bool no_what_if = false;
  std::string size_pool;
  std::string target_wait;
  std::int64_t max_nodes = 0;
};

void run_fleet(CliContext& ctx, const FleetOpts& o) {
  std::optional<Time> horizon;
  if (!o.horizon.empty()) {
    horizon = io::parse_duration(o.horizon);
    if (!horizon || horizon->ns <= 0 || horizon->days() > 3650)
      return ctx.fail(kUsage,
                      "--horizon '" + o.horizon + "' is not a duration between 0 and 10 years (write e.g. 90d or 12w)");
  }
  std::optional<Time> target;
  if (!o.size_pool.empty() || !o.target_wait.empty()) {
    if (o.size_pool.empty() || o.target_wait.empty())
      return ctx.fail(kUsage, "--size-pool and --target-p90-wait go together");
    target = io::parse_duration(o.target_wait);
    if (!target || target->ns < 0)
      return ctx.fail(kUsage, "--target-p90-wait '" + o.target_wait + "' is not a duration (write e.g. 12h or 2d)");
  }
  const auto* cat = ctx.catalog();
  if (!cat) return;
  Diagnostics diags;
  bool io_error = false;
  auto prepared = app::prepare_fleet_file(o.file, *cat, horizon, o.seeds, diags, &io_error);
  if (!diags.empty()) ctx.err << diags.str();  // errors, or warnings only
  if (!prepared) {
    ctx.exit_code = io_error ? kIoError : kBadInput;
    return;
  }
  const fleet::Fleet& f = prepared->fleet;
  if (target) {
    bool found = false;
    for (const auto& p : f.pools) found = found || p.name == o.size_pool;
    if (!found) return ctx.fail(kUsage, "--size-pool '" + o.size_pool + "': the fleet has no such pool");
  }
  app::FleetReport report;
  report.file = o.file;
  report.notes = prepared->notes;
  report.class_variants = prepared->class_variants;
  fleet::FleetOptions opt;
  opt.threads = o.threads;
  opt.what_ifs = !o.no_what_if;
  report.result = fleet::simulate_fleet(f, opt);
  if (target) {
    fleet::SizeSweepSpec spec;
    spec.pool = o.size_pool;
    spec.target_p90_wait = *target;
    spec.max_nodes = o.max_nodes;
    report.sweep = fleet::sweep_pool_size(f, spec, opt);
  }
  std::ostringstream text;
  if (o.csv)
    text << app::fleet_series_csv(report.result);
  else if (o.json)
    text << app::fleet_to_json(report).dump(2) << "\n";
  else
    app::print_fleet_text(report, text);
  write_output(ctx, o.out, text.str());
}

}  // namespace

void register_fleet(CLI::App& app, CliContext& ctx) {
  auto opts = std::make_shared<FleetOpts>();
  auto* cmd = app.add_subcommand(
      "fleet", "Simulate a fleet of GPU pools running a stream of training jobs (waits, utilisation, costs)");
  cmd->add_option("fleet", opts->file, "Fleet YAML file (docs/fleet.md)")->required();
  cmd->add_option("--horizon", opts->horizon, "Planning horizon instead of the file's, e.g. 90d");
  cmd->add_option("--seeds", opts->seeds, "Seeds to simulate instead of the file's")->check(CLI::Range(1, 10000));
  add_jobs_flag(*cmd, opts->threads, "Seeds simulated in parallel (results do not depend on it)", 1);
  add_deprecated_spelling(*cmd, ctx, "--threads", opts->threads, "-j, --jobs");
  auto* json =
      cmd->add_flag("--json", opts->json, "Print the whole result, time series included, as one JSON document");
  cmd->add_flag("--csv", opts->csv, "Print the utilisation and queue time series as CSV instead of the report")
      ->excludes(json);
  add_out_flag(*cmd, opts->out, "Write the report (or the --json, --csv output) to FILE instead of standard output");
  add_force_flag(*cmd, opts->out.force, "Overwrite FILE if it exists");
  cmd->add_flag("--no-what-if", opts->no_what_if, "Skip the file's what-ifs");
  cmd->add_option("--size-pool", opts->size_pool,
                  "Find the smallest size of this pool that keeps the P90 wait under --target-p90-wait");
  cmd->add_option("--target-p90-wait", opts->target_wait, "Target P90 wait for --size-pool, e.g. 12h");
  cmd->add_option("--max-nodes", opts->max_nodes, "Largest pool size the sweep tries (default 4 x the pool's nodes)")
      ->check(CLI::Range(1, 1000000));
  cmd->callback([&ctx, opts] { run_fleet(ctx, *opts); });
}

}  // namespace flopcast::cli

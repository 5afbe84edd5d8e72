// `flopcast fleet`: many training jobs on a finite cluster (core/fleet). Loads the fleet file
// (io/fleet_loader), plans each job class's whole run on the GPUs it may get (app/fleet_request),
// simulates the seeds and prints the waits, utilisation, costs, revenue and what-ifs.
#include <cctype>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/fleet_report.hpp"
#include "flopcast/app/fleet_request.hpp"
#include "flopcast/io/units_parse.hpp"
#include "flopcast/units/money.hpp"

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
  std::string job_class;
  std::int64_t max_nodes = 0;
  std::string currency;
};

std::string names_of(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
  return s;
}

/// The --size-pool and --class indices in the fleet; nullopt with the usage error printed.
std::optional<fleet::SizeSweepSpec> sweep_spec(CliContext& ctx, const FleetOpts& o, const fleet::Fleet& f,
                                               units::Time target) {
  const std::string me = "flopcast fleet: error: ";
  fleet::SizeSweepSpec spec;
  spec.pool = o.size_pool;
  spec.target_p90_wait = target;
  spec.max_nodes = o.max_nodes;
  std::vector<std::string> pools, classes;
  std::optional<std::size_t> pool;
  for (std::size_t i = 0; i < f.pools.size(); ++i) {
    pools.push_back(f.pools[i].name);
    if (f.pools[i].name == o.size_pool) pool = i;
  }
  if (!pool) {
    ctx.err << me << "--size-pool '" << o.size_pool << "': the fleet has no such pool (pools: " << names_of(pools)
            << ")\n";
    ctx.exit_code = kUsage;
    return std::nullopt;
  }
  if (o.job_class.empty()) return spec;
  for (std::size_t c = 0; c < f.classes.size(); ++c) {
    classes.push_back(f.classes[c].name);
    if (f.classes[c].name == o.job_class) spec.job_class = c;
  }
  if (!spec.job_class) {
    ctx.err << me << "--class '" << o.job_class << "': the fleet has no such job class (classes: " << names_of(classes)
            << ")\n";
    ctx.exit_code = kUsage;
    return std::nullopt;
  }
  fleet::Fleet largest = f;
  largest.pools[*pool].nodes = o.max_nodes > 0 ? o.max_nodes : 4 * f.pools[*pool].nodes;
  if (!fleet::class_runs_on_pool(largest, *spec.job_class, *pool)) {
    std::vector<std::string> runs_on;
    for (std::size_t p = 0; p < f.pools.size(); ++p)
      if (fleet::class_runs_on_pool(f, *spec.job_class, p)) runs_on.push_back(f.pools[p].name);
    ctx.err << me << "--class '" << o.job_class << "' never runs on pool '" << o.size_pool
            << "': resizing it cannot change that class's waits ("
            << (runs_on.empty() ? std::string("it fits no pool") : "it runs on " + names_of(runs_on))
            << "; size one of those)\n";
    ctx.exit_code = kUsage;
    return std::nullopt;
  }
  return spec;
}

/// A duration flag's value must carry its unit: "90" alone would be read as 90 ns.
bool ends_in_unit(const std::string& v) {
  const auto last = v.find_last_not_of(" \t");
  return last != std::string::npos && std::isalpha(static_cast<unsigned char>(v[last]));
}

void run_fleet(CliContext& ctx, const FleetOpts& o) {
  const std::string me = "flopcast fleet: error: ";
  std::optional<units::Time> horizon;
  if (!o.horizon.empty()) {
    if (!ends_in_unit(o.horizon)) {
      ctx.err << me << "--horizon '" << o.horizon << "' has no unit (write e.g. --horizon " << o.horizon << "d)\n";
      ctx.exit_code = kUsage;
      return;
    }
    horizon = io::parse_duration(o.horizon);
    if (!horizon || horizon->ns <= 0 || horizon->days() > 3650) {
      ctx.err << me << "--horizon '" << o.horizon
              << "' is not a duration between 0 and 10 years (write e.g. 90d or 12w)\n";
      ctx.exit_code = kUsage;
      return;
    }
  }
  std::optional<units::Currency> currency;
  if (!o.currency.empty()) {
    if (!units::is_currency_code(o.currency)) {
      ctx.err << me << "--currency '" << o.currency << "' is not a currency code (write e.g. --currency CNY or USD)\n";
      ctx.exit_code = kUsage;
      return;
    }
    currency = units::Currency::of(o.currency);
  }
  if (!o.job_class.empty() && o.size_pool.empty()) {
    ctx.err << me
            << "--class targets a class's P90 wait in the size sweep: give --size-pool and --target-p90-wait too\n";
    ctx.exit_code = kUsage;
    return;
  }
  std::optional<units::Time> target;
  if (!o.size_pool.empty() || !o.target_wait.empty()) {
    if (o.size_pool.empty() || o.target_wait.empty()) {
      ctx.err << me << "--size-pool and --target-p90-wait go together\n";
      ctx.exit_code = kUsage;
      return;
    }
    if (!ends_in_unit(o.target_wait)) {
      ctx.err << me << "--target-p90-wait '" << o.target_wait << "' has no unit (write e.g. --target-p90-wait "
              << o.target_wait << "h)\n";
      ctx.exit_code = kUsage;
      return;
    }
    target = io::parse_duration(o.target_wait);
    if (!target || target->ns < 0) {
      ctx.err << me << "--target-p90-wait '" << o.target_wait << "' is not a duration (write e.g. 12h or 2d)\n";
      ctx.exit_code = kUsage;
      return;
    }
  }
  const auto* cat = ctx.catalog();
  if (!cat) return;
  scenario::Diagnostics diags;
  bool io_error = false;
  app::FleetOverrides overrides;
  overrides.horizon = horizon;
  overrides.seeds = o.seeds;
  overrides.currency = currency;
  auto prepared = app::prepare_fleet_file(o.file, *cat, overrides, diags, &io_error);
  if (!diags.empty()) ctx.err << diags.str();  // errors, or warnings only
  if (!prepared) {
    ctx.exit_code = io_error ? kIoError : kBadInput;
    return;
  }
  const fleet::Fleet& f = prepared->fleet;
  std::optional<fleet::SizeSweepSpec> spec;
  if (target) {
    spec = sweep_spec(ctx, o, f, *target);
    if (!spec) return;
  }
  app::FleetReport report;
  report.file = o.file;
  report.notes = prepared->notes;
  report.class_variants = prepared->class_variants;
  fleet::FleetOptions opt;
  opt.threads = o.threads;
  opt.what_ifs = !o.no_what_if;
  report.result = fleet::simulate_fleet(f, opt);
  if (spec) report.sweep = fleet::sweep_pool_size(f, *spec, opt);
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
  cmd->add_option("--currency", opts->currency,
                  "Reporting currency of every cost, revenue and margin (default: the file's currency:, else the "
                  "revenue's); rates from the catalogs' fx lists");
  cmd->add_option("--size-pool", opts->size_pool,
                  "Find the smallest size of this pool that keeps the P90 wait under --target-p90-wait");
  cmd->add_option("--target-p90-wait", opts->target_wait, "Target P90 wait for --size-pool, e.g. 12h");
  cmd->add_option("--class", opts->job_class,
                  "Target the P90 wait of this job class in the size sweep (default: every job's)");
  cmd->add_option("--max-nodes", opts->max_nodes, "Largest pool size the sweep tries (default 4 x the pool's nodes)")
      ->check(CLI::Range(1, 1000000));
  cmd->callback([&ctx, opts] { run_fleet(ctx, *opts); });
}

}  // namespace flopcast::cli

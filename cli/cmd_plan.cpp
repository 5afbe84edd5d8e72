// flopcast plan: search every plan of a job for the cheapest one meeting a deadline and budget.
// The request and the renderers are app/plan_request.hpp and app/plan_report.hpp.
#include <algorithm>
#include <ostream>
#include <sstream>
#include <thread>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/plan_report.hpp"
#include "flopcast/app/plan_request.hpp"
#include "flopcast/io/units_parse.hpp"

namespace flopcast::cli {
namespace {

struct PlanOpts {
  std::string scenario, profile, deadline, budget, gpus, catalogs, currency;
  std::int64_t gpus_max = 0, gpus_min = 1;
  int top = 10;
  int threads = 0;
  bool json = false, csv = false;
  OutputFile out;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

/// The request the flags make; `--deadline` is parsed by run_plan (a usage error).
app::PlanRequest request_of(const PlanOpts& o) {
  app::PlanRequest req;
  req.gpu_types = split_list(o.gpus);
  req.gpus_max = o.gpus_max;
  req.gpus_min = o.gpus_min;
  req.catalogs = split_list(o.catalogs);
  req.currency = o.currency;
  req.budget = o.budget;
  req.top_k = o.top;
  req.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return req;
}

/// Builds the search from the flags (printing the problem and setting the exit code when it
/// cannot be built): --gpu and --deadline are usage errors, a catalog that cannot be read is
/// bad input, --budget a usage error.
bool prepare(CliContext& ctx, const PlanOpts& o, const Scenario& s, app::PlanRequest& req, search::PlanSpace& space,
             search::PlannerOptions& opt) {
  const io::Catalog* cat = ctx.catalog();
  if (!cat) return false;
  std::string why;
  if (app::prepare_plan_space(*cat, s, req, space, why) != app::PlanProblem::None) {
    ctx.fail(kUsage, "--gpu: " + why);
    return false;
  }
  if (!o.deadline.empty()) {
    const auto d = io::parse_duration(o.deadline);
    if (!d || d->ns <= 0) {
      ctx.fail(kUsage, "--deadline '" + o.deadline + "' is not a duration (e.g. 30d, 720h)");
      return false;
    }
    req.deadline = *d;
  }
  Diagnostics diags;
  switch (app::prepare_plan_options(s, req, ctx.data_dir, opt, why, diags)) {
    case app::PlanProblem::None:
      return true;
    case app::PlanProblem::CatalogUnreadable:
      ctx.err << diags.str();
      ctx.exit_code = kBadInput;
      return false;
    case app::PlanProblem::BadBudget:
    case app::PlanProblem::UnknownGpu:
      break;
  }
  ctx.fail(kUsage, "--budget '" + o.budget + "' is not an amount (e.g. '2.5M USD', 1500000)");
  return false;
}

void run_plan(CliContext& ctx, const PlanOpts& o) {
  auto loaded = load_scenario_for_command(ctx, o.scenario, o.profile);
  if (!loaded) return;
  const Scenario& s = loaded->scenario;
  app::PlanRequest req = request_of(o);
  search::PlanSpace space;
  search::PlannerOptions opt;
  if (!prepare(ctx, o, s, req, space, opt)) return;
  const auto search = search::search_plans(s, loaded->profile, space, opt);
  if (!search.ok()) {
    for (const auto& e : search.errors) ctx.fail(kBadInput, e);
    return;
  }
  const search::PlanResult& r = search.result;
  const app::PlanReport report{&s, &space, &opt, &r};
  std::ostringstream text;
  if (o.csv)
    text << app::plan_csv(r);
  else if (o.json)
    text << app::plan_to_json(report).dump(2) << "\n";
  else
    app::print_plan_text(report, text);
  if (!write_output(ctx, o.out, text.str())) return;
  if (!r.best) ctx.exit_code = kInfeasible;
}

}  // namespace

void register_plan(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<PlanOpts>();
  auto* cmd = app.add_subcommand("plan",
                                 "Search every plan of a job: the time/cost Pareto front and the cheapest plan "
                                 "meeting a deadline and budget");
  cmd->add_option("scenario", o->scenario, "Scenario YAML (model, global batch, training tokens, reliability, pricing)")
      ->required();
  cmd->add_option("--deadline", o->deadline, "Longest wall time of the whole run, e.g. 30d");
  cmd->add_option("--budget", o->budget, "Largest bill, e.g. '2.5M USD' or 1500000 (in --currency)");
  cmd->add_option("--gpus-max", o->gpus_max, "Most GPUs (default: the scenario's cluster.gpus)");
  cmd->add_option("--gpus-min", o->gpus_min, "Fewest GPUs (default 1)");
  cmd->add_option("--gpu", o->gpus, "GPU types to compare, e.g. A100-80G,H800,B200 (default: the scenario's)");
  cmd->add_option("--catalog", o->catalogs,
                  "Price catalogs, comma-separated (default: the scenario's pricing.catalog and every shipped one)");
  cmd->add_option("--currency", o->currency, "Currency of every cost (default: the first catalog's)");
  cmd->add_option("--top", o->top, "Plans in the top list (default 10)")->check(CLI::Range(0, 1000));
  add_jobs_flag(*cmd, o->threads, "Worker threads (default: all cores; results do not depend on it)", 0);
  add_deprecated_spelling(*cmd, ctx, "--threads", o->threads, "-j, --jobs");
  auto* json = cmd->add_flag("--json", o->json, "Print the result as one JSON document");
  cmd->add_flag("--csv", o->csv, "Print each GPU count's fastest plan, priced, as CSV instead of the report")
      ->excludes(json);
  add_out_flag(*cmd, o->out, "Write the report (or the --json, --csv output) to FILE instead of standard output");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE if it exists");
  cmd->add_option("--profile", o->profile, "Calibration profile (file or name) instead of the scenario's");
  cmd->callback([&ctx, o] { run_plan(ctx, *o); });
}

}  // namespace flopcast::cli

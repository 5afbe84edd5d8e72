// flopcast plan: search every plan of a job for the cheapest one whose simulated run meets a
// deadline and budget. The request, the choice and the renderers are app/plan_request.hpp,
// core/search and app/plan_report.hpp; this file parses flags and maps problems to exit codes.
#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>
#include <thread>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/plan_report.hpp"
#include "flopcast/app/plan_request.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/scenario_loader.hpp"

namespace flopcast::cli {
namespace {

struct PlanOpts {
  std::string scenario, profile, deadline, budget, gpus, catalogs, currency, confidence = "p90", tokens, precisions,
                                                                             emit;
  std::int64_t gpus_max = 0, gpus_min = 1;
  int top = 10;
  int threads = 0;
  bool json = false, csv = false, allow_spot = false;
  OutputFile out;
};

/// The request the flags make.
app::PlanRequest request_of(const PlanOpts& o) {
  app::PlanRequest req;
  req.gpu_types = app::split_list(o.gpus);
  req.gpus_max = o.gpus_max;
  req.gpus_min = o.gpus_min;
  req.catalogs = app::split_list(o.catalogs);
  req.currency = o.currency;
  req.deadline_text = o.deadline;
  req.budget = o.budget;
  req.confidence = o.confidence == "p50" ? search::Confidence::P50 : search::Confidence::P90;
  req.tokens_max = o.tokens == "max";
  req.precisions = app::split_list(o.precisions);
  req.allow_spot = o.allow_spot;
  req.top_k = o.top;
  req.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return req;
}

/// Builds the search from the flags (printing the problem and setting the exit code when it
/// cannot be built): a flag that cannot be read is a usage error naming it, a catalog that
/// cannot be read is bad input.
bool prepare(CliContext& ctx, const scenario::Scenario& s, const app::PlanRequest& req, search::PlanSpace& space,
             search::PlannerOptions& opt) {
  const io::Catalog* cat = ctx.catalog();
  if (!cat) return false;
  std::string why;
  switch (app::prepare_plan_space(*cat, s, req, space, why)) {
    case app::PlanProblem::None:
      break;
    case app::PlanProblem::BadPrecision:
      ctx.fail(kUsage, "--precision: " + why);
      return false;
    default:
      ctx.fail(kUsage, "--gpu: " + why);
      return false;
  }
  scenario::Diagnostics diags;
  const app::PlanProblem problem = app::prepare_plan_options(s, req, ctx.data_dir, opt, why, diags);
  const char* flag = nullptr;
  switch (problem) {
    case app::PlanProblem::None:
      return true;
    case app::PlanProblem::CatalogUnreadable:
      ctx.err << diags.str();
      ctx.exit_code = kBadInput;
      return false;
    case app::PlanProblem::BadDeadline:
      flag = "--deadline";
      break;
    case app::PlanProblem::NeedsBudget:
      flag = "--tokens";
      break;
    case app::PlanProblem::BadCurrency:
      flag = "--currency";
      break;
    default:
      flag = "--budget";
      break;
  }
  ctx.fail(kUsage, std::string(flag) + ": " + why);
  return false;
}

/// Writes the recommended plan as a scenario (never over a file without --force).
bool emit_scenario(CliContext& ctx, const PlanOpts& o, const scenario::Scenario& s, const search::PlanSpace& space,
                   const search::PlanResult& r) {
  if (!r.chosen) {
    ctx.fail(kInfeasible, "--emit-scenario: no plan meets the constraints; nothing written");
    return false;
  }
  std::ifstream in(o.scenario, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string yaml = app::plan_scenario_yaml(text.str(), s, space, *r.chosen, *ctx.catalog());
  std::string err;
  if (!io::write_file_atomically(o.emit, yaml, o.out.force, err)) {
    ctx.fail(kIoError, err);
    return false;
  }
  ctx.out << "wrote " << o.emit << ": the recommended plan as a scenario\n";
  return true;
}

void run_plan(CliContext& ctx, const PlanOpts& o) {
  auto loaded = load_scenario_for_command(ctx, o.scenario, o.profile);
  if (!loaded) return;
  const scenario::Scenario& s = loaded->scenario;
  const app::PlanRequest req = request_of(o);
  search::PlanSpace space;
  search::PlannerOptions opt;
  if (!prepare(ctx, s, req, space, opt)) return;
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
  if (!o.emit.empty() && !emit_scenario(ctx, o, s, space, r)) return;
  if (!r.chosen) ctx.exit_code = kInfeasible;
}

}  // namespace

void register_plan(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<PlanOpts>();
  auto* cmd = app.add_subcommand("plan",
                                 "Search every plan of a job: the time/cost Pareto front and the cheapest plan whose "
                                 "simulated run meets a deadline and budget");
  cmd->add_option("scenario", o->scenario, "Scenario YAML (model, global batch, training tokens, reliability, pricing)")
      ->required();
  cmd->add_option("--deadline", o->deadline, "Longest wall time of the whole run, with its unit: 45d, 1080h, 6w");
  cmd->add_option("--budget", o->budget,
                  "Largest bill with its currency: '5M CNY', '5M RMB', '500万元', '2e6 USD', '$2M'");
  cmd->add_option("--confidence", o->confidence,
                  "Simulated percentile that must meet the deadline and budget: p90 (default) or p50")
      ->check(CLI::IsMember({"p50", "p90"}));
  cmd->add_option("--tokens", o->tokens, "max: the most training tokens the budget buys (needs --budget)")
      ->check(CLI::Validator(
          [](const std::string& t) -> std::string {
            return t == "max" ? std::string()
                              : "takes max (the most training tokens the budget buys), not '" + t +
                                    "': a run's token count is its scenario's training.tokens";
          },
          "max"));
  add_count_flag(*cmd, "--gpus-max", o->gpus_max, "Most GPUs (default: the scenario's cluster.gpus)", "GPUs", 1,
                 io::kMaxGpus);
  add_count_flag(*cmd, "--gpus-min", o->gpus_min, "Fewest GPUs (default 1)", "GPUs", 1, io::kMaxGpus);
  cmd->add_option("--gpu", o->gpus, "GPU types to compare, e.g. A100-80G,H800,B200 (default: the scenario's)")
      ->type_name("GPUS");
  cmd->add_option("--precision", o->precisions,
                  "Numeric formats to compare, e.g. bf16,fp8,nvfp4 (default: the scenario's; nvfp4 on Blackwell)");
  cmd->add_option("--catalog", o->catalogs,
                  "Price catalogs, comma-separated (default: the scenario's pricing.catalog and every shipped one)");
  cmd->add_flag("--allow-spot", o->allow_spot,
                "Also price spot plans (their interruptions are simulated); by default offer, list and contract "
                "prices only");
  cmd->add_option("--currency", o->currency,
                  "Currency of every cost (default: the budget's, else the first catalog's)");
  cmd->add_option("--top", o->top, "Plans in the top list (default 10)")->check(CLI::Range(0, 1000));
  add_jobs_flag(*cmd, o->threads, "Worker threads (default: all cores; results do not depend on it)", 0);
  add_deprecated_spelling(*cmd, ctx, "--threads", o->threads, "-j, --jobs");
  auto* json = cmd->add_flag("--json", o->json, "Print the result as one JSON document");
  cmd->add_flag("--csv", o->csv, "Print each GPU count's fastest plan, priced, as CSV instead of the report")
      ->excludes(json);
  add_out_flag(*cmd, o->out, "Write the report (or the --json, --csv output) to FILE instead of standard output");
  cmd->add_option("--emit-scenario", o->emit, "Also write the recommended plan as a scenario file");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE and the --emit-scenario file if they exist");
  cmd->add_option("--profile", o->profile, "Calibration profile (file or name) instead of the scenario's");
  cmd->callback([&ctx, o] { run_plan(ctx, *o); });
}

}  // namespace flopcast::cli

// `flopcast quote`: a customer quote for a scenario's training run, as Markdown, HTML, PDF or XLSX, in
// English or Simplified Chinese (--lang). The run and the bills are the ones `simulate` prints
// (app/quote_request.hpp); core/quote lays them out; PDF comes from the HTML through the Qt module
// quote_pdf/ builds (FLOPCAST_PDF), loaded only here (quote_pdf_loader.hpp).
#include <ctime>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/plan_request.hpp"
#include "flopcast/app/quote_request.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/quote/quote.hpp"
#include "flopcast/quote/quote_render.hpp"
#include "flopcast/quote/quote_text.hpp"
#include "flopcast/quote/quote_xlsx.hpp"
#include "quote_pdf_loader.hpp"

namespace flopcast::cli {
namespace {

/// Today's date in local time, "YYYY-MM-DD". Only the CLI reads the clock (core never does).
std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  return fmt::format("{:04d}-{:02d}-{:02d}", local.tm_year + 1900, local.tm_mon + 1, local.tm_mday);
}

struct QuoteOpts {
  std::string scenario;
  std::string profile;
  std::string customer;
  std::string issuer;
  std::string format = "md";
  std::string lang = "en";
  OutputFile out;
  std::string date;
  std::string deadline, budget, confidence = "p90", plan, gpus, catalogs, precisions;
  std::int64_t gpus_max = 0;
  int threads = 0;
  bool compare = false, allow_miss = false, allow_spot = false;
};

/// `--plan best`: the search's recommended plan for the quote's requirements, as a scenario
/// (the frameworks that run it, its spot plan's id when it is priced at a spot price and the
/// other GPU types searched go to `qo`); with --allow-miss and none meeting, the closest plan;
/// nullopt with the exit code set when there is none.
std::optional<scenario::Scenario> best_plan(CliContext& ctx, const QuoteOpts& o, const scenario::Scenario& s,
                                            const compute::ComputeProfile& prof, app::QuoteOptions& qo) {
  app::PlanRequest req;
  req.gpu_types = app::split_list(o.gpus);
  req.gpus_max = o.gpus_max;
  req.catalogs = app::split_list(o.catalogs);
  req.deadline_text = o.deadline;
  req.budget = o.budget;
  req.confidence = o.confidence == "p50" ? search::Confidence::P50 : search::Confidence::P90;
  req.precisions = app::split_list(o.precisions);
  req.allow_spot = o.allow_spot;
  req.threads = o.threads > 0 ? o.threads : 2;
  search::PlanSpace space;
  search::PlannerOptions opt;
  std::string why;
  scenario::Diagnostics diags;
  const io::Catalog* cat = ctx.catalog();
  if (!cat) return std::nullopt;
  if (app::prepare_plan_space(*cat, s, req, space, why) != app::PlanProblem::None ||
      app::prepare_plan_options(s, req, ctx.data_dir, opt, why, diags) != app::PlanProblem::None) {
    ctx.err << diags.str();
    ctx.fail(kUsage, "--plan best: " + why);
    return std::nullopt;
  }
  const auto found = search::search_plans(s, prof, space, opt);
  if (!found.ok()) {
    for (const auto& e : found.errors) ctx.fail(kBadInput, e);
    return std::nullopt;
  }
  const app::QuotePlanChoice choice = app::quote_plan_choice(found.result, space, o.allow_miss);
  if (!choice.plan)
    ctx.fail(kInfeasible,
             "no plan meets the deadline and budget in simulation; nothing quoted (--allow-miss quotes the closest)");
  else if (!choice.recommended)
    ctx.warn("no plan meets the deadline and budget in simulation; quoting the closest, which says what it misses");
  if (!choice.recommended)
    for (const auto& m : found.result.remedies) ctx.err << "  what would make one work: " << m << "\n";
  if (!choice.plan) return std::nullopt;
  qo.frameworks = choice.plan->plan.candidate.frameworks.str();
  if (choice.plan->spot) qo.spot_plan = choice.plan->plan.price_option;
  qo.alternatives = choice.alternatives;
  return app::plan_scenario(s, space, *choice.plan);
}

/// Prints why there is no quote and sets the exit code: infeasible (5) when the plan does not
/// fit or the run cannot be simulated, bad input (3) otherwise.
void report_problem(CliContext& ctx, const QuoteOpts& o, const app::QuoteOutcome& prepared,
                    const app::SimReport& report) {
  const std::string text = app::quote_problem_text(prepared.problem, report);
  switch (prepared.problem) {
    case app::QuoteProblem::DoesNotFit:
      return ctx.fail(kInfeasible, text + " (run 'flopcast simulate' for the breakdown)");
    case app::QuoteProblem::NoTokens:
      return ctx.fail(kBadInput, o.scenario + ": " + text);
    case app::QuoteProblem::RunNotSimulated:
      for (const auto& e : prepared.details) ctx.fail(kInfeasible, text + e);
      return;
    case app::QuoteProblem::NoPricing:
      ctx.fail(kBadInput, o.scenario + ": " + text + "; add one naming a price catalog, e.g.");
      ctx.err << "  pricing:\n    catalog: seed-vendor\n";
      return;
    case app::QuoteProblem::QuoteInvalid:
      for (const auto& e : prepared.details) ctx.fail(kBadInput, e);
      return;
    case app::QuoteProblem::BadDeadline:
    case app::QuoteProblem::BadBudget:
      for (const auto& e : prepared.details) ctx.fail(kUsage, e);
      return;
    case app::QuoteProblem::CatalogUnreadable:  // its diagnostics are printed
    case app::QuoteProblem::None:
      break;
  }
  ctx.exit_code = kBadInput;
}

void run_quote(CliContext& ctx, const QuoteOpts& o) {
  if (o.format == "pdf" && !quote_pdf_built())
    return ctx.fail(kUsage,
                    "this build has no PDF support (it was configured with FLOPCAST_PDF=OFF); use --format html or md");
  if (o.format == "pdf" && o.out.path.empty())
    return ctx.fail(kUsage, "--format pdf needs -o FILE (PDF is not written to the terminal)");
  if (o.format == "xlsx" && !quote::quote_xlsx_supported())
    return ctx.fail(
        kUsage, "this build has no XLSX support (it was configured with FLOPCAST_XLSX=OFF); use --format html or md");
  if (o.format == "xlsx" && o.out.path.empty())
    return ctx.fail(kUsage, "--format xlsx needs -o FILE (a workbook is not written to the terminal)");
  std::string lang_error;
  const auto lang = quote::parse_quote_language(o.lang, lang_error);
  if (!lang) return ctx.fail(kUsage, "--lang: " + lang_error);
  const std::string date = o.date.empty() ? today() : o.date;
  if (!quote::add_days(date, 0))
    return ctx.fail(kUsage, "--date '" + date + "' is not a calendar date in the form YYYY-MM-DD");

  auto loaded = load_scenario_for_command(ctx, o.scenario, o.profile);
  if (!loaded) return;
  app::QuoteOptions qo;
  qo.customer = o.customer;
  qo.issuer = o.issuer;
  qo.date = date;
  qo.deadline_text = o.deadline;
  qo.budget_text = o.budget;
  qo.p50 = o.confidence == "p50";
  qo.compare = o.compare;
  qo.language = *lang;
  scenario::Scenario chosen = loaded->scenario;
  if (o.plan == "best") {
    auto best = best_plan(ctx, o, loaded->scenario, loaded->profile, qo);
    if (!best) return;
    chosen = std::move(*best);
  }
  app::SimReport report = app::make_report(chosen, loaded->profile);
  app::QuoteOutcome prepared = app::prepare_quote(report, ctx.data_dir, qo);
  if (!prepared.diags.empty()) ctx.err << prepared.diags.str();
  if (!prepared.ok()) {
    report_problem(ctx, o, prepared, report);
    return;
  }
  const quote::Quote& q = *prepared.quote;

  std::string content, error;
  if (o.format != "pdf") {
    auto document = app::quote_document(q, o.format, error);
    if (!document) return ctx.fail(kIoError, "cannot make the workbook: " + error);
    content = std::move(*document);
  } else {
    const quote_pdf::HtmlToPdfFn html_to_pdf = load_quote_pdf_module(error);
    if (!html_to_pdf)
      return ctx.fail(kIoError, "PDF support is not installed (the module flopcast-quote-pdf.so could not be loaded: " +
                                    error + "); use --format html or md");
    if (!html_to_pdf(quote::render_quote_html(q), quote::quote_title(q), content, error))
      return ctx.fail(kInternalError, "cannot make the PDF: " + error);
    // Qt stamps the PDF with the time it was written: the issue date instead, so that the same
    // inputs and --date give the same bytes.
    content = quote::pdf_with_creation_date(std::move(content), q.input.issue_date);
  }
  // A quote that misses a requirement says so on its first page; unless asked, it exits 5.
  const bool miss = !q.meets() && !o.allow_miss;
  if (miss)
    for (const auto& r : q.requirements)
      if (!r.met)
        ctx.warn("the plan misses the " + r.what + " requirement: asked " + r.asked + ", the plan gives " + r.plan +
                 " (--allow-miss to quote it anyway with exit 0)");
  if (!write_output(ctx, o.out, content)) return;
  if (miss) ctx.exit_code = kInfeasible;
  if (o.out.path.empty()) return;
  const pricing::ComparisonRow* best = q.recommended ? &q.input.plans.rows[*q.recommended] : nullptr;
  ctx.out << "wrote " << o.out.path << ": quote " << q.id << ", valid until " << q.valid_until;
  if (best) ctx.out << ", " << best->option.label << " " << best->p50.total.str() << " (P50)";
  ctx.out << "\n";
}

}  // namespace

void register_quote(CLI::App& app, CliContext& ctx) {
  auto opts = std::make_shared<QuoteOpts>();
  auto* cmd =
      app.add_subcommand("quote", "Write a customer quote for a scenario's training run (Markdown, HTML, PDF or XLSX)");
  cmd->add_option("scenario", opts->scenario, "Scenario YAML file (needs training.tokens and a pricing: block)")
      ->required();
  cmd->add_option("--customer", opts->customer, "Customer named on the quote");
  cmd->add_option("--issuer", opts->issuer,
                  "Who issues the quote (default: the price catalog's provider, when it issues quotes)");
  cmd->add_option("--format", opts->format, "Output format: md (default), html, pdf or xlsx")
      ->check(CLI::IsMember({"md", "html", "pdf", "xlsx"}));
  add_out_flag(*cmd, opts->out, "Write to FILE instead of standard output (required for pdf and xlsx)");
  add_deprecated_spelling(*cmd, ctx, "--output", opts->out.path, "-o, --out");
  add_force_flag(*cmd, opts->out.force, "Overwrite FILE when it exists");
  cmd->add_option("--lang", opts->lang,
                  "Language of the quote: en (default) or zh-CN (Simplified Chinese; zh_CN is read as zh-CN)")
      ->type_name("LANG:{en,zh-CN}");  // the choices the completions offer; parse_quote_language reads them
  cmd->add_option("--date", opts->date, "Issue date YYYY-MM-DD (default: today); the quote is valid 30 days from it");
  cmd->add_option("--profile", opts->profile, "Calibration profile (file or name) instead of the scenario's");
  cmd->add_option("--deadline", opts->deadline, "The customer's deadline for the whole run, with its unit: 45d, 1080h");
  cmd->add_option("--budget", opts->budget,
                  "The customer's budget before tax, with its currency: '5M CNY', '500万 CNY'");
  cmd->add_option("--confidence", opts->confidence, "Percentile the requirements are checked at: p90 (default) or p50")
      ->check(CLI::IsMember({"p50", "p90"}));
  cmd->add_flag("--compare", opts->compare, "Show other providers' prices beside the plans offered");
  cmd->add_flag("--allow-miss", opts->allow_miss,
                "Exit 0 for a quote whose plan misses a requirement (it still says so)");
  cmd->add_option("--plan", opts->plan,
                  "best: search the plans (as `flopcast plan` does) and quote the recommended one")
      ->check(CLI::IsMember({"best"}));
  cmd->add_option("--gpu", opts->gpus, "With --plan best: GPU types to compare (default: the scenario's)")
      ->type_name("GPUS");
  add_count_flag(*cmd, "--gpus-max", opts->gpus_max, "With --plan best: most GPUs (default: the scenario's)", "GPUs", 1,
                 io::kMaxGpus);
  cmd->add_option("--catalog", opts->catalogs,
                  "With --plan best: price catalogs searched (default: the scenario's and the shipped ones)");
  cmd->add_option("--precision", opts->precisions, "With --plan best: numeric formats, e.g. bf16,fp8");
  cmd->add_flag("--allow-spot", opts->allow_spot,
                "With --plan best: also search spot prices (interruptions simulated)");
  add_jobs_flag(*cmd, opts->threads, "With --plan best: worker threads (default 2)", 0);
  cmd->callback([&ctx, opts] { run_quote(ctx, *opts); });
}

}  // namespace flopcast::cli

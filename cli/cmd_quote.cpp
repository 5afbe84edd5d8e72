// `flopcast quote`: a customer quote for a scenario's training run, as Markdown, HTML or PDF.
// The run and the bills are the ones `simulate` prints (report.hpp: add_whole_run); core/quote
// lays them out; PDF comes from the HTML through the Qt module quote_pdf/ builds (FLOPCAST_PDF),
// loaded only here (quote_pdf_loader.hpp).
#include <ctime>
#include <memory>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "cli_context.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/quote/quote.hpp"
#include "flopcast/quote/quote_render.hpp"
#include "quote_pdf_loader.hpp"
#include "report.hpp"
#include "scenario_input.hpp"

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
  std::string format = "md";
  std::string output;
  std::string date;
  bool force = false;
};

void run_quote(CliContext& ctx, const QuoteOpts& o) {
  const std::string me = "flopcast quote: ";
  if (o.format == "pdf" && !quote_pdf_built()) {
    ctx.err << me
            << "this build has no PDF support (it was configured with FLOPCAST_PDF=OFF); "
               "use --format html or md\n";
    ctx.exit_code = kUsage;
    return;
  }
  if (o.format == "pdf" && o.output.empty()) {
    ctx.err << me << "--format pdf needs -o FILE (PDF is not written to the terminal)\n";
    ctx.exit_code = kUsage;
    return;
  }
  const std::string date = o.date.empty() ? today() : o.date;
  if (!add_days(date, 0)) {
    ctx.err << me << "--date '" << date << "' is not a calendar date in the form YYYY-MM-DD\n";
    ctx.exit_code = kUsage;
    return;
  }

  auto loaded = load_scenario_for_command(ctx, o.scenario, o.profile);
  if (!loaded) return;
  SimReport report = make_report(loaded->scenario, loaded->profile);
  Diagnostics diags;
  const bool priced = add_whole_run(report, ctx.data_dir, diags);
  if (!diags.empty()) ctx.err << diags.str();
  if (!priced) {
    ctx.exit_code = kBadInput;
    return;
  }
  const Scenario& s = loaded->scenario;
  if (!report.fits_memory) {
    ctx.err << me << "no quote for a plan that does not fit: it needs " << format_gib(report.est.memory.total())
            << " per GPU, the " << s.cluster.gpu.name << " has " << format_gib(report.est.memory.capacity)
            << " (run 'flopcast simulate' for the breakdown)\n";
    ctx.exit_code = kInfeasible;
    return;
  }
  if (!report.run) {
    ctx.err << me << o.scenario << ": the scenario gives no training.tokens; a quote needs the length of the run\n";
    ctx.exit_code = kBadInput;
    return;
  }
  if (!report.run->ok()) {
    for (const auto& e : report.run->errors) ctx.err << me << "the whole run cannot be simulated: " << e << "\n";
    ctx.exit_code = kInfeasible;
    return;
  }
  if (!report.bills) {
    ctx.err << me << o.scenario << ": the scenario has no pricing: block; add one naming a price catalog, e.g.\n"
            << "  pricing:\n    catalog: seed-vendor\n";
    ctx.exit_code = kBadInput;
    return;
  }

  QuoteInput in = quote_input_of(report);
  in.customer = o.customer;
  in.issue_date = date;
  const Quote q = make_quote(std::move(in));
  if (!q.ok()) {
    for (const auto& e : q.errors) ctx.err << me << e << "\n";
    for (const auto& e : q.input.plans.errors) ctx.err << me << e << "\n";
    ctx.exit_code = kBadInput;
    return;
  }

  std::string content;
  if (o.format == "md") {
    content = render_quote_markdown(q);
  } else if (o.format == "html") {
    content = render_quote_html(q);
  } else {
    std::string error;
    const quote_pdf::HtmlToPdfFn html_to_pdf = load_quote_pdf_module(error);
    if (!html_to_pdf) {
      ctx.err << me << "PDF support is not installed (the module flopcast-quote-pdf.so could not be loaded: " << error
              << "); use --format html or md\n";
      ctx.exit_code = kIoError;
      return;
    }
    if (!html_to_pdf(render_quote_html(q), "Training quote " + q.id, content, error)) {
      ctx.err << me << "cannot make the PDF: " << error << "\n";
      ctx.exit_code = kInternalError;
      return;
    }
  }
  if (o.output.empty()) {
    ctx.out << content;
    return;
  }
  std::string error;
  if (!io::write_file_atomically(o.output, content, o.force, error)) {
    ctx.err << me << error << "\n";
    ctx.exit_code = kIoError;
    return;
  }
  const ComparisonRow* best = q.recommended ? &q.input.plans.rows[*q.recommended] : nullptr;
  ctx.out << "wrote " << o.output << ": quote " << q.id << ", valid until " << q.valid_until;
  if (best) ctx.out << ", " << best->option.label << " " << best->p50.total.str() << " (P50)";
  ctx.out << "\n";
}

}  // namespace

void register_quote(CLI::App& app, CliContext& ctx) {
  auto opts = std::make_shared<QuoteOpts>();
  auto* cmd =
      app.add_subcommand("quote", "Write a customer quote for a scenario's training run (Markdown, HTML or PDF)");
  cmd->add_option("scenario", opts->scenario, "Scenario YAML file (needs training.tokens and a pricing: block)")
      ->required();
  cmd->add_option("--customer", opts->customer, "Customer named on the quote");
  cmd->add_option("--format", opts->format, "Output format: md (default), html or pdf")
      ->check(CLI::IsMember({"md", "html", "pdf"}));
  cmd->add_option("-o,--output", opts->output, "Write to FILE instead of standard output (required for pdf)");
  cmd->add_flag("--force", opts->force, "Overwrite FILE when it exists");
  cmd->add_option("--date", opts->date, "Issue date YYYY-MM-DD (default: today); the quote is valid 30 days from it");
  cmd->add_option("--profile", opts->profile, "Calibration profile (file or name) instead of the scenario's");
  cmd->callback([&ctx, opts] { run_quote(ctx, *opts); });
}

}  // namespace flopcast::cli

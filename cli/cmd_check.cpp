// `flopcast check CLAIMS.yaml`: judge every claim of a claims file (docs/claims.md) and print
// the verdicts as text, JSON, Markdown or HTML. Exit 0 when every claim was judged, whatever
// the verdicts (judging is the command's success: an "impossible" verdict is a finding, not a
// failure); 3 when some claims are bad input (the others are still judged and printed); 4 when
// the file cannot be read or -o names an existing file without --force.
#include <ostream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/claims_check.hpp"
#include "flopcast/io/claims_render.hpp"
#include "flopcast/io/scenario_loader.hpp"

namespace flopcast::cli {

void register_check(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::string file;
    std::string format = "text";
    OutputFile out;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("check",
                                 "Judge the claims of a claims file: prices, collectives, hardware, energy, "
                                 "checkpoints and training figures");
  cmd->add_option("claims", o->file, "Claims YAML file (docs/claims.md)")->required();
  cmd->add_flag("--json", o->json, "Print the report as one JSON document (same as --format json)");
  cmd->add_option("--format", o->format, "text | json | md | html")
      ->check(CLI::IsMember({"text", "json", "md", "html"}))
      ->capture_default_str();
  add_out_flag(*cmd, o->out, "Write the report to FILE instead of standard output");
  add_deprecated_spelling(*cmd, ctx, "--output", o->out.path, "-o, --out");
  add_force_flag(*cmd, o->out.force, "Overwrite the -o file if it exists");
  cmd->callback([&ctx, o] {
    if (o->json && o->format != "text" && o->format != "json")
      return ctx.fail(kUsage, "--json and --format " + o->format + " disagree; give one");
    const std::string format = o->json ? "json" : o->format;
    const auto* cat = ctx.catalog();
    if (cat == nullptr) return;
    scenario::Diagnostics diags;
    auto report = app::check_claims_file(o->file, *cat, ctx.data_dir, diags);
    if (!diags.empty()) ctx.err << diags.str();
    if (!report) {
      ctx.exit_code = io::any_unreadable_file(diags) ? kIoError : kBadInput;
      return;
    }
    const std::string content = format == "json"   ? io::claims_json(*report)
                                : format == "md"   ? io::claims_markdown(*report)
                                : format == "html" ? io::claims_html(*report)
                                                   : io::claims_text(*report);
    if (!write_output(ctx, o->out, content)) return;
    if (!o->out.path.empty())
      ctx.out << "wrote " << o->out.path << ": " << report->results.size() << " claims judged\n";
    if (!report->errors.empty()) ctx.exit_code = kBadInput;
  });
}

}  // namespace flopcast::cli

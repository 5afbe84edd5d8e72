// `flopcast check CLAIMS.yaml`: judge every claim of a claims file (docs/claims.md) and print
// the verdicts as text, JSON, Markdown or HTML. Exit 0 when every claim was judged, whatever
// the verdicts (judging is the command's success: an "impossible" verdict is a finding, not a
// failure); 3 when some claims are bad input (the others are still judged and printed); 4 when
// the file cannot be read or -o names an existing file without --force.
#include <ostream>

#include "cli_context.hpp"
#include "flopcast/app/claims_check.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/claims_render.hpp"

namespace flopcast::cli {

void register_check(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::string file;
    std::string format = "text";
    std::string output;
    bool json = false;
    bool force = false;
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
  cmd->add_option("-o,--output", o->output, "Write the report to FILE instead of standard output");
  cmd->add_flag("--force", o->force, "Overwrite the -o file if it exists");
  cmd->callback([&ctx, o] {
    if (o->json && o->format != "text" && o->format != "json") {
      ctx.err << "flopcast check: --json and --format " << o->format << " disagree; give one\n";
      ctx.exit_code = kUsage;
      return;
    }
    const std::string format = o->json ? "json" : o->format;
    const auto* cat = ctx.catalog();
    if (cat == nullptr) return;
    Diagnostics diags;
    auto report = app::check_claims_file(o->file, *cat, ctx.data_dir, diags);
    if (!diags.empty()) ctx.err << diags.str();
    if (!report) {
      bool unreadable = false;
      for (const auto& d : diags.items())
        unreadable |= d.key.empty() && (d.message == "file not found" || d.message == "cannot read file" ||
                                        d.message == "is a directory, not a file");
      ctx.exit_code = unreadable ? kIoError : kBadInput;
      return;
    }
    const std::string content = format == "json"   ? io::claims_json(*report)
                                : format == "md"   ? io::claims_markdown(*report)
                                : format == "html" ? io::claims_html(*report)
                                                   : io::claims_text(*report);
    if (o->output.empty()) {
      ctx.out << content;
    } else {
      std::string error;
      if (!io::write_file_atomically(o->output, content, o->force, error)) {
        ctx.err << "flopcast check: " << error << "\n";
        ctx.exit_code = kIoError;
        return;
      }
      ctx.out << "wrote " << o->output << ": " << report->results.size() << " claims judged\n";
    }
    if (!report->errors.empty()) ctx.exit_code = kBadInput;
  });
}

}  // namespace flopcast::cli

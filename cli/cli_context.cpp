#include "cli_context.hpp"

#include <exception>
#include <iostream>

namespace flopcast::cli {

const io::Catalog* CliContext::catalog() {
  if (catalog_) return &*catalog_;
  if (catalog_failed_) return nullptr;
  Diagnostics diags;
  catalog_ = io::load_catalog(data_dir, diags);
  if (!catalog_) {
    catalog_failed_ = true;
    err << diags.str();
    exit_code = kBadInput;
    return nullptr;
  }
  return &*catalog_;
}

std::optional<app::ScenarioSession> load_scenario_for_command(CliContext& ctx, const std::string& path,
                                                              const std::string& profile_override) {
  const auto* cat = ctx.catalog();
  if (!cat) return std::nullopt;
  app::SessionOutcome loaded = app::load_scenario_session(path, *cat, profile_override);
  if (!loaded.diags.empty()) ctx.err << loaded.diags.str();
  if (!loaded.ok()) {
    ctx.err << loaded.profile_diags.str();  // why the profile could not be loaded (empty when it was not tried)
    ctx.exit_code = loaded.io_error ? kIoError : kBadInput;
    return std::nullopt;
  }
  return std::move(loaded.session);
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CliContext ctx(out, err);
  CLI::App app{"flopcast: cost and capacity planner for LLM training on GPU clusters"};
  app.name("flopcast");
  app.set_version_flag("--version", "flopcast 0.1.0");
  app.add_option("--data-dir", ctx.data_dir, "Read catalogs from DIR instead of the built-in copy")
      ->check(CLI::ExistingDirectory);
  app.require_subcommand(1);
  app.fallthrough();
#define FLOPCAST_COMMAND(name) register_##name(app, ctx);
#include "commands.def"
#undef FLOPCAST_COMMAND
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return kOk;
  } catch (const CLI::CallForAllHelp& e) {
    out << app.help("", CLI::AppFormatMode::All);
    return kOk;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return kOk;
  } catch (const CLI::ParseError& e) {
    // Subcommand help also arrives here as CallForHelp from the subcommand.
    if (e.get_exit_code() == 0) {
      out << (app.get_subcommands().empty() ? app.help() : app.get_subcommands().front()->help());
      return kOk;
    }
    err << "flopcast: " << e.what() << "\n";
    err << "run 'flopcast --help' (or 'flopcast COMMAND --help') for usage\n";
    return kUsage;
  } catch (const std::exception& e) {
    err << "flopcast: internal error: " << e.what() << "\n";
    return kInternalError;
  }
  return ctx.exit_code;
}

}  // namespace flopcast::cli

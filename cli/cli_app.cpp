// The command line as one CLI11 App (make_cli_app) and its entry point (run): the commands of
// commands.def, the global flags, help, and usage errors in one form ("flopcast CMD: error:
// ...", a did-you-mean for a mistyped command or flag, exit 2).
#include <algorithm>
#include <exception>
#include <ostream>

#include "cli_context.hpp"
#include "install_layout.hpp"
#include "spelling.hpp"

namespace flopcast::cli {
namespace {

/// The commands a user can type (hidden ones, in group "", are left out).
std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    names.push_back(sub->get_name());
  return names;
}

/// Every flag spelling of `cmd` and of the program ("--json", "-j", "--data-dir").
std::vector<std::string> flag_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::App* a = &cmd; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* opt : a->get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
      if (opt->get_group().empty()) continue;  // a deprecated spelling is not suggested
      for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
      for (const auto& s : opt->get_snames()) names.push_back("-" + s);
    }
  }
  return names;
}

/// "unknown command 'simulat' (did you mean 'simulate'?)", naming the commands when none is close.
std::string unknown_command(const CLI::App& app, const std::string& word) {
  const auto names = command_names(app);
  if (const auto m = closest_spelling(word, names))
    return "unknown command '" + word + "' (did you mean '" + *m + "'?)";
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  return "unknown command '" + word + "' (the commands: " + all + ")";
}

/// Prints a usage error in the one form every command uses and returns kUsage.
int usage_error(CliContext& ctx, const std::string& message) {
  ctx.fail(kUsage, message);
  ctx.err << "run 'flopcast help" << (ctx.command.empty() ? "" : " " + ctx.command) << "' for usage\n";
  return kUsage;
}

/// The argument of `args` before `word` ("" when none).
std::string before(const std::vector<std::string>& args, const std::string& word) {
  for (std::size_t i = 1; i < args.size(); ++i)
    if (args[i] == word) return args[i - 1];
  return {};
}

/// The usage error for what CLI11 refused: a mistyped command or flag gets a did-you-mean.
/// `args`: the command line after the program name.
int parse_error(CliContext& ctx, const CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  const auto chosen = app.get_subcommands();
  const CLI::App& cmd = chosen.empty() ? app : *chosen.front();
  ctx.command = chosen.empty() ? "" : chosen.front()->get_name();
  const auto extras = app.remaining(true);
  if (chosen.empty()) {
    for (const auto& word : extras)
      if (!word.empty() && word.front() != '-') return usage_error(ctx, unknown_command(app, word));
    if (extras.empty() && dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
      ctx.err << "flopcast: error: no command given\n"
              << app.get_formatter()->make_help(&app, "flopcast", CLI::AppFormatMode::Normal);
      return kUsage;
    }
  }
  if (!extras.empty() && (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr || chosen.empty())) {
    for (const auto& word : extras) {
      if (word.size() < 2 || word.front() != '-') continue;
      const std::string flag = word.substr(0, word.find('='));
      if (const auto m = closest_spelling(flag, flag_names(cmd)))
        return usage_error(ctx, "unknown flag '" + flag + "' (did you mean '" + *m + "'?)");
      return usage_error(ctx, "unknown flag '" + flag + "'");
    }
    if (before(args, extras.front()) == "--csv")  // the spelling before --csv became a format switch
      return usage_error(ctx, "'--csv " + extras.front() + "': --csv now picks the format; write '--csv -o " +
                                  extras.front() + "' to write the CSV to that file");
    std::string words;
    for (const auto& w : extras) words += (words.empty() ? "'" : " '") + w + "'";
    return usage_error(ctx, "unexpected argument" + std::string(extras.size() > 1 ? "s " : " ") + words);
  }
  return usage_error(ctx, e.what());
}

}  // namespace

std::unique_ptr<CLI::App> make_cli_app(CliContext& ctx) {
  auto app = std::make_unique<CLI::App>("flopcast: cost and capacity planner for LLM training on GPU clusters");
  app->name("flopcast");
  app->set_version_flag("--version", "flopcast " FLOPCAST_VERSION);
  app->add_option("--data-dir", ctx.data_dir,
                  "Read the catalogs from DIR (default: share/flopcast/data beside an installed flopcast, else the "
                  "built-in copy)")
      ->check(CLI::ExistingDirectory)
      ->type_name("DIR");
  app->require_subcommand(1);
  app->fallthrough();
  app->get_formatter()->label("SUBCOMMAND", "COMMAND");
  app->get_formatter()->label("SUBCOMMANDS", "COMMANDS");
  app->get_formatter()->label("TEXT", "VALUE");
  app->footer(
      "Run 'flopcast help COMMAND' (or 'flopcast COMMAND --help') for a command's flags.\n"
      "Exit codes: 0 ok, 1 internal error, 2 usage, 3 bad input, 4 file not readable or writable, 5 infeasible, "
      "6 check failed, 130 interrupted (Ctrl-C).");
#define FLOPCAST_COMMAND(name) register_##name(*app, ctx);
#include "commands.def"
#undef FLOPCAST_COMMAND
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) {
    // Every message a command prints names it ("flopcast plan: error: ...").
    sub->preparse_callback([&ctx, name = sub->get_name()](std::size_t) { ctx.command = name; });
    if (!sub->get_group().empty()) sub->group("Commands");
  }
  return app;
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CliContext ctx(out, err);
  ctx.data_dir = installed_data_dir();
  std::unique_ptr<CLI::App> app;
  try {
    app = make_cli_app(ctx);
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    const auto chosen = app->get_subcommands();
    out << (chosen.empty() ? app->help() : chosen.front()->help());
    return kOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app->help("", CLI::AppFormatMode::All);
    return kOk;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return kOk;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // help asked of a subcommand arrives here too
      const auto chosen = app->get_subcommands();
      out << (chosen.empty() ? app->help() : chosen.front()->help());
      return kOk;
    }
    return parse_error(ctx, *app, e, std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
  } catch (const std::exception& e) {
    err << ctx.who() << ": internal error: " << e.what() << " (please report it)\n";
    return kInternalError;
  }
  return ctx.exit_code;
}

}  // namespace flopcast::cli

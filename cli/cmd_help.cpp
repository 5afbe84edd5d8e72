// `flopcast help [COMMAND]`: the program's help, or one command's (the same text as
// `flopcast COMMAND --help`).
#include <ostream>

#include "cli_context.hpp"
#include "spelling.hpp"

namespace flopcast::cli {

void register_help(CLI::App& app, CliContext& ctx) {
  auto name = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("help", "Show the commands, or one command's flags");
  cmd->add_option("command", *name, "The command to explain")->type_name("COMMAND");
  cmd->callback([&app, &ctx, name] {
    if (name->empty()) {  // (app.help() would show the chosen command's help: this one's)
      ctx.out << app.get_formatter()->make_help(&app, "flopcast", CLI::AppFormatMode::Normal);
      return;
    }
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
      if (sub->get_name() == *name) {
        ctx.out << sub->help();
        return;
      }
      names.push_back(sub->get_name());
    }
    const auto m = closest_spelling(*name, names);
    ctx.fail(kUsage, "unknown command '" + *name + "'" + (m ? " (did you mean '" + *m + "'?)" : ""));
    ctx.err << "run 'flopcast help' for the commands\n";
  });
}

}  // namespace flopcast::cli

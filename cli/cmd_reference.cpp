// `flopcast reference man|bash|zsh` (hidden): prints the man page or a shell completion script
// generated from this command line (cli_reference.hpp). The build runs it to make the files it
// installs.
#include <ostream>

#include "cli_context.hpp"
#include "cli_reference.hpp"
#include "command_flags.hpp"

namespace flopcast::cli {

void register_reference(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::string what;
    OutputFile out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("reference", "Print the man page or a shell completion script")->group("");
  cmd->add_option("what", o->what, "man | bash | zsh")->required()->check(CLI::IsMember({"man", "bash", "zsh"}));
  add_out_flag(*cmd, o->out, "Write to FILE instead of standard output");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE if it exists");
  cmd->callback([&app, &ctx, o] {
    // The catalog's names for --gpu and --model (the built-in catalog, or --data-dir's).
    CompletionNames names;
    if (const io::Catalog* cat = ctx.catalog()) {
      names.gpus = cat->gpu_names();
      names.models = cat->model_names();
    } else {
      return;
    }
    const std::string text = o->what == "man"    ? man_page(app)
                             : o->what == "bash" ? bash_completion(app, names)
                                                 : zsh_completion(app, names);
    write_output(ctx, o->out, text);
  });
}

}  // namespace flopcast::cli

#pragma once
/// The man page and the shell completions, generated from the command line itself (the CLI11
/// App make_cli_app builds): every command, flag, value and choice they list is one the program
/// accepts, so they cannot drift from it. The build writes them with the hidden command
/// `flopcast reference man|bash|zsh` (cli/CMakeLists.txt) and installs them.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace flopcast::cli {

/// One flag or positional argument of a command, as the generators need it.
struct ArgumentInfo {
  std::vector<std::string> spellings;  ///< "-o", "--out"; empty for a positional
  std::string name;                    ///< a positional's name ("scenario"); "" for a flag
  std::string value;                   ///< what the value is ("FILE", "N"); "" for a flag that takes none
  std::vector<std::string> choices;    ///< the values it accepts, when it names them (IsMember)
  std::string help;
  bool required = false;
  bool repeats = false;  ///< may be given several times / takes several values
  /// Completed with file names (FILE, DIR, or a positional that is not a choice).
  bool takes_path() const;
};

/// The visible commands of `app` (hidden ones, in group "", left out), in help order.
std::vector<const CLI::App*> visible_commands(const CLI::App& app);
/// The arguments of `cmd` (flags first, then positionals), without hidden ones.
std::vector<ArgumentInfo> arguments_of(const CLI::App& cmd);

/// The man page, in roff (man(7)): NAME, SYNOPSIS, DESCRIPTION, OPTIONS, COMMANDS (each with its
/// usage, description and arguments), EXIT STATUS, FILES, ENVIRONMENT, SEE ALSO.
std::string man_page(const CLI::App& app);
/// The catalog's names a completion offers for a value that names one: GPU (one name), GPUS (a
/// comma-separated list), MODEL.
struct CompletionNames {
  std::vector<std::string> gpus;
  std::vector<std::string> models;
};

/// A bash completion script (complete -F): commands, each command's flags, the choices of a flag
/// or argument that names them (the catalog's GPU and model names from `names`), file names where
/// a path is expected and nowhere else (no fallback to file names).
std::string bash_completion(const CLI::App& app, const CompletionNames& names = {});
/// A zsh completion function (#compdef flopcast, _arguments): the same, with descriptions.
std::string zsh_completion(const CLI::App& app, const CompletionNames& names = {});

}  // namespace flopcast::cli

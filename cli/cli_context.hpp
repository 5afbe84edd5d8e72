#pragma once
/// The CLI's shared state and entry point. Commands write to ctx.out / ctx.err (never
/// std::cout directly) so tests can run them in-process.
#include <CLI/CLI.hpp>

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "flopcast/app/scenario_session.hpp"
#include "flopcast/io/catalog.hpp"

namespace flopcast::cli {

/// Documented exit codes (README "Exit codes", docs/cli.md): one code per cause, whatever the
/// command.
enum ExitCode : int {
  kOk = 0,
  kInternalError = 1,  ///< a bug: please report
  kUsage = 2,          ///< bad flags or arguments
  kBadInput = 3,       ///< an input file has errors (diagnostics printed)
  kIoError = 4,      ///< a file could not be read (missing, a folder, unreadable) or written, or exists without --force
  kInfeasible = 5,   ///< the plan does not fit memory / cannot run
  kCheckFailed = 6,  ///< a --check against a baseline or tolerance failed
  kInterrupted = 130,  ///< ended by Ctrl-C (128 + SIGINT; 143 for SIGTERM): the process ends by the signal
};

/// What each exit code means, for the help, the man page and docs/cli.md.
struct ExitCodeMeaning {
  int code;
  const char* meaning;
};
inline constexpr ExitCodeMeaning kExitCodeMeanings[] = {
    {kOk, "success"},
    {kInternalError, "internal error (a bug: please report it)"},
    {kUsage, "usage error: an unknown command or flag, a missing or malformed argument"},
    {kBadInput, "bad input: an input file has errors, each printed as file:line:col: error: key: message"},
    {kIoError,
     "a file could not be read (missing, a folder, unreadable) or written, or an output exists and --force "
     "was not given"},
    {kInfeasible, "the plan is infeasible (it does not fit the GPU's memory or cannot run); the report says why"},
    {kCheckFailed, "a check against a baseline found a regression"},
    {kInterrupted,
     "interrupted by Ctrl-C (SIGINT; 143 for SIGTERM); a sweep first says what it wrote and that --resume "
     "continues it"},
};

/// State shared by all subcommands of one invocation.
struct CliContext {
  CliContext(std::ostream& o, std::ostream& e) : out(o), err(e) {}
  std::ostream& out;
  std::ostream& err;
  std::string data_dir;  ///< --data-dir, else the installed data folder, else "" (the built-in catalogs)
  std::string command;   ///< the command running ("simulate"); "" before one is chosen
  int exit_code = kOk;

  /// Loads the catalogs once (printing diagnostics on failure).
  const io::Catalog* catalog();

  /// "flopcast simulate" (or "flopcast" before a command is chosen): the start of every message.
  std::string who() const;
  /// Prints "flopcast CMD: error: MESSAGE" to err and sets exit_code to `code`.
  void fail(int code, const std::string& message);
  /// Prints "flopcast CMD: warning: MESSAGE" to err.
  void warn(const std::string& message);
  /// Prints every diagnostic of `diags` (each as file:line:col: error|warning: key: message).
  /// When one is an error, sets exit_code: kIoError when a file could not be read at all
  /// (io::is_unreadable_file), else kBadInput; returns whether there were errors.
  bool report(const scenario::Diagnostics& diags);

 private:
  std::optional<io::Catalog> catalog_;
  bool catalog_failed_ = false;
};

/// Loads the scenario file `path` and its profile (app::load_scenario_session); prints every
/// diagnostic (warnings too) to ctx.err. Sets ctx.exit_code (kIoError when the file cannot be
/// read, else kBadInput) and returns nullopt on errors.
std::optional<app::ScenarioSession> load_scenario_for_command(CliContext& ctx, const std::string& path,
                                                              const std::string& profile_override = {});

#define FLOPCAST_COMMAND(name) void register_##name(CLI::App& app, CliContext& ctx);
#include "commands.def"
#undef FLOPCAST_COMMAND

/// The whole command line: every command registered on one CLI11 App whose callbacks work on
/// `ctx` (which must outlive it). run() parses argv with it; the man page and the shell
/// completions are generated from it (cli_reference.hpp), so they list what the program accepts.
std::unique_ptr<CLI::App> make_cli_app(CliContext& ctx);

/// Runs the CLI on argv; returns the exit code. Never throws.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace flopcast::cli

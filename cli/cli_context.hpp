#pragma once
/// The CLI's shared state and entry point. Commands write to ctx.out / ctx.err (never
/// std::cout directly) so tests can run them in-process.
#include <CLI/CLI.hpp>

#include <iosfwd>
#include <optional>
#include <string>

#include "flopcast/app/scenario_session.hpp"
#include "flopcast/io/catalog.hpp"

namespace flopcast::cli {

/// Documented exit codes (README "Exit codes").
enum ExitCode : int {
  kOk = 0,
  kInternalError = 1,  ///< a bug: please report
  kUsage = 2,          ///< bad flags or arguments
  kBadInput = 3,       ///< an input file has errors (diagnostics printed)
  kIoError = 4,        ///< a file could not be read or written, or exists without --force
  kInfeasible = 5,     ///< the plan does not fit memory / cannot run
  kCheckFailed = 6,    ///< a --check against a baseline or tolerance failed
};

/// State shared by all subcommands of one invocation.
struct CliContext {
  CliContext(std::ostream& o, std::ostream& e) : out(o), err(e) {}
  std::ostream& out;
  std::ostream& err;
  std::string data_dir;  ///< --data-dir ("" = embedded catalogs)
  int exit_code = kOk;

  /// Loads the catalogs once (printing diagnostics on failure).
  const io::Catalog* catalog();

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

/// Runs the CLI on argv; returns the exit code. Never throws.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace flopcast::cli

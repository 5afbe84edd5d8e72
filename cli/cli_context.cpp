#include "cli_context.hpp"

#include <ostream>

#include "flopcast/io/scenario_loader.hpp"

namespace flopcast::cli {

const io::Catalog* CliContext::catalog() {
  if (catalog_) return &*catalog_;
  if (catalog_failed_) return nullptr;
  scenario::Diagnostics diags;
  catalog_ = io::load_catalog(data_dir, diags);
  if (!catalog_) {
    catalog_failed_ = true;
    err << diags.str();
    exit_code = kBadInput;
    return nullptr;
  }
  return &*catalog_;
}

std::string CliContext::who() const { return command.empty() ? "flopcast" : "flopcast " + command; }

void CliContext::fail(int code, const std::string& message) {
  err << who() << ": error: " << message << "\n";
  exit_code = code;
}

void CliContext::warn(const std::string& message) { err << who() << ": warning: " << message << "\n"; }

bool CliContext::report(const scenario::Diagnostics& diags) {
  if (!diags.empty()) err << diags.str();
  if (!diags.has_errors()) return false;
  exit_code = io::any_unreadable_file(diags) ? kIoError : kBadInput;
  return true;
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

}  // namespace flopcast::cli

#pragma once
/// Loading scenario files and measured-run files (docs/run-schema.md).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace YAML {
class Node;
}

namespace flopcast::io {

/// The most GPUs a scenario (cluster.gpus, each parallel degree) or a plan search may name: 10^6,
/// flopcast's planning limit (docs/reliability.md, "Limits").
inline constexpr std::int64_t kMaxGpus = 1'000'000;

/// Reads a whole file; nullopt (with a diagnostic) when missing, a folder, unreadable or over 64 MiB.
std::optional<std::string> read_text_file(const std::string& path, scenario::Diagnostics& diags);

/// Whether `d` is one of read_text_file's refusals: the file could not be read at all (missing,
/// a folder, unreadable, over 64 MiB). The commands report these as I/O errors (exit 4), never
/// as bad content (exit 3).
bool is_unreadable_file(const scenario::Diagnostic& d);
/// Whether any diagnostic of `diags` is_unreadable_file.
bool any_unreadable_file(const scenario::Diagnostics& diags);

/// Parses one scenario document. Every problem goes to `diags` (file:line:col, key, value,
/// expectation, hint); nullopt when any is an error. Settings written `auto` (and, in a measured
/// run, settings left unstated) stay open (Scenario::open_settings, each holding a valid default
/// until then): whoever evaluates the scenario resolves them with the profile it predicts with
/// (resolve_open_settings; app::ScenarioSession does it for the fronts).
std::optional<scenario::Scenario> parse_scenario(const std::string& text, const std::string& file,
                                                 const Catalog& catalog, scenario::Diagnostics& diags);
/// Reads and parses a scenario file.
std::optional<scenario::Scenario> load_scenario_file(const std::string& path, const Catalog& catalog,
                                                     scenario::Diagnostics& diags);

/// Parses a scenario from an already-parsed YAML node (sweeps edit nodes, then parse).
std::optional<scenario::Scenario> scenario_from_node(const YAML::Node& node, const std::string& file,
                                                     const Catalog& catalog, scenario::Diagnostics& diags);

/// Reads a scenario file with the dotted keys of `set` overridden (as a sweep point sets them)
/// and stops before the semantic checks (check_scenario), which the caller runs itself: the
/// claims check tells a file with errors a user must fix (nullopt, diagnostics) from one that
/// reads but whose figures describe no possible run (check_scenario's errors: an impossible claim).
std::optional<scenario::Scenario> load_scenario_unchecked(const std::string& path,
                                                          const std::vector<std::pair<std::string, std::string>>& set,
                                                          const Catalog& catalog, scenario::Diagnostics& diags);

/// One entry of a measured-run file.
struct RunEntry {
  std::string id;                              ///< the entry's id ("" when missing)
  scenario::SourceLocation where;              ///< where the entry starts
  std::optional<scenario::Scenario> scenario;  ///< nullopt when the entry is bad input
  scenario::Diagnostics diags;                 ///< this entry's problems
};

/// Loads a measured-run file: a YAML list of scenarios with id, source and measured.
/// A bad entry is reported in its RunEntry and the others still load. File-level problems
/// (unreadable, malformed YAML, not a list) go to `diags` and yield an empty list.
std::vector<RunEntry> load_run_file(const std::string& path, const Catalog& catalog, scenario::Diagnostics& diags);
/// The same from text.
std::vector<RunEntry> parse_run_file(const std::string& text, const std::string& file, const Catalog& catalog,
                                     scenario::Diagnostics& diags);

}  // namespace flopcast::io

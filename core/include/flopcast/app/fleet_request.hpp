#pragma once
/// Turns a loaded fleet file into a simulatable fleet: the whole-run profile of each job class
/// on each (GPU type, GPU count) it may run as, from the step estimate and the whole-run
/// Monte Carlo of its scenario, re-planned when the GPU type or count differs.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/fleet/fleet.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/fleet_loader.hpp"

namespace flopcast::app {

/// Fills ff.fleet.classes[i].variants. Variants that cannot run (plan does not divide the
/// count, does not fit memory, precision unsupported, run too long to simulate) are dropped
/// with a line in `notes`. Returns false, with diagnostics in `diags` at the class's key,
/// when a class's scenario cannot be planned even as written on any pool's GPU.
bool plan_fleet(io::FleetFile& ff, const io::Catalog& catalog, scenario::Diagnostics& diags,
                std::vector<std::string>& notes);

/// The scenario of a job class re-planned to `gpus` GPUs of `gpu` on `fabric` with
/// `gpus_per_node` per node: the data-parallel width scaled, the model-parallel layout and
/// the global batch kept. Empty `why` when it worked.
scenario::Scenario replan_scenario(const io::FleetClassInput& c, const hardware::GpuSpec& gpu,
                                   const hardware::FabricSpec& fabric, int gpus_per_node, std::int64_t gpus,
                                   std::string& why);

/// Warns (at the deadline's file:line) about each job or mix entry whose deadline is shorter
/// than its class's run: the median whole-run span of the fastest variant a pool can run, or,
/// when that one makes it, of the slowest (a job the scheduler starts on it misses the deadline).
/// Call after plan_fleet.
void warn_short_deadlines(const io::FleetFile& ff, scenario::Diagnostics& diags);

/// What a command changes in the file before it is planned.
struct FleetOverrides {
  std::optional<units::Time> horizon;       ///< nullopt = the file's
  int seeds = 0;                            ///< 0 = the file's
  std::optional<units::Currency> currency;  ///< reporting currency; nullopt = the file's or the default
};

/// A fleet file loaded, planned and validated: ready for fleet::simulate_fleet.
struct PreparedFleet {
  fleet::Fleet fleet;
  std::vector<std::string> notes;           ///< planning notes (dropped re-plans)
  std::vector<std::string> class_variants;  ///< per class: "32 x A100-80G, 32 x H800"
};

/// What `flopcast fleet FILE` (and the GUI) run before simulating: loads `path` (in the reporting
/// currency asked for, if any), applies the other overrides, plans every class, warns about deadlines shorter
/// than a run and validates the result. nullopt on bad input, with diagnostics (file:line, key,
/// hint) in `diags`; `*io_error` is set when the file itself could not be read. Warnings also go
/// to `diags`.
std::optional<PreparedFleet> prepare_fleet_file(const std::string& path, const io::Catalog& catalog,
                                                const FleetOverrides& overrides, scenario::Diagnostics& diags,
                                                bool* io_error = nullptr);

}  // namespace flopcast::app

#pragma once
/// Turns a loaded fleet file into a simulatable fleet: the whole-run profile of each job class
/// on each (GPU type, GPU count) it may run as, from the step estimate and the whole-run
/// Monte Carlo of its scenario, re-planned when the GPU type or count differs.
#include <string>
#include <vector>

#include "flopcast/fleet/fleet.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/fleet_loader.hpp"

namespace flopcast::cli {

/// Fills ff.fleet.classes[i].variants. Variants that cannot run (plan does not divide the
/// count, does not fit memory, precision unsupported, run too long to simulate) are dropped
/// with a line in `notes`. Returns false, with diagnostics in `diags` at the class's key,
/// when a class's scenario cannot be planned even as written on any pool's GPU.
bool plan_fleet(io::FleetFile& ff, const io::Catalog& catalog, Diagnostics& diags, std::vector<std::string>& notes);

/// The scenario of a job class re-planned to `gpus` GPUs of `gpu` on `fabric` with
/// `gpus_per_node` per node: the data-parallel width scaled, the model-parallel layout and
/// the global batch kept. Empty `why` when it worked.
Scenario replan_scenario(const io::FleetClassInput& c, const GpuSpec& gpu, const FabricSpec& fabric, int gpus_per_node,
                         std::int64_t gpus, std::string& why);

}  // namespace flopcast::cli

#pragma once
/// The whole-run input of a scenario: its cluster, model size, GPU power and reliability
/// block with a given step time and step count. One place for `simulate`, the planner and
/// the fleet, so they bill and simulate the same run.
#include <cstdint>

#include "flopcast/job/job_input.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::job {

/// JobInput of `s` at `step` per step for `steps` steps: GPUs and node size, parameters (for
/// the checkpoint size), the GPU's TDP and the fabric's node power, `energy`, and the
/// scenario's reliability block (ReliabilitySpec's cited defaults when it has none).
JobInput job_input_for(const scenario::Scenario& s, units::Time step, std::int64_t steps, const EnergySpec& energy);

}  // namespace flopcast::job

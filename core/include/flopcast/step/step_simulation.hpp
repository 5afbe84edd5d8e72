#pragma once
/// Simulates one training step event by event (core/des) from the plan: per stage and
/// micro-batch forward, backward (input and weight gradient separately for ZB-H1),
/// recompute, the exposed in-layer collectives (TP/SP, CP, EP), pipeline send/recv, the
/// data-parallel gradient sync in buckets, ZeRO-3 gathers and the optimizer, under the
/// plan's schedule (GPipe, 1F1B, interleaved 1F1B, ZB-H1).
///
/// Op and collective costs come from the cost layer (core/cost: stage_costs, dp_sync_time,
/// optimizer_time, collective_time), as the closed-form estimate's do: the simulation decides
/// only what overlaps and what waits, so the two agree where the closed form is exact.
#include <optional>
#include <vector>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "flopcast/step/step_result.hpp"

namespace flopcast::step {

struct StepSimOptions {
  /// Record the timeline (slices); the step time and breakdown do not need it.
  bool timeline = true;
  /// Replaces the per-stage costs (one entry per pipeline stage): for tests and what-if studies
  /// of uneven stages. Empty = stage_costs'.
  std::vector<cost::StageTimes> stages;
  /// Replaces each stage's DP gradient sync (before bucketing). Unset = dp_sync_time.
  std::optional<units::Time> dp_sync;
};

/// Simulates one step. The scenario must have passed check_scenario.
StepResult simulate_step(const scenario::Scenario& s, const compute::ComputeProfile& profile,
                         const StepSimOptions& options = {});

}  // namespace flopcast::step

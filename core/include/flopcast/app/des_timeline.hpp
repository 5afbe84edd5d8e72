#pragma once
/// The Timeline tab's view of a step simulated event by event (core/step's StepResult): one
/// row per track (a stage's compute, TP, PP or DP stream), slices coloured by what they are
/// (forward, backward, recompute, in-layer collectives, pipeline send/recv, DP sync,
/// optimizer, host overhead), as the same Timeline the closed-form layout produces.
#include "flopcast/app/step_timeline.hpp"
#include "flopcast/step/step_result.hpp"

namespace flopcast::app {

/// The kind a simulated slice is drawn as: by category, and for compute by its name
/// ("F mb3" forward; "B mb3", "W mb3" backward).
SliceKind kind_of(const ::flopcast::step::TimelineSlice& s);

/// The simulated step as a Timeline (simulated = true; estimate_step = the closed form's).
Timeline timeline_from_step(const step::StepResult& r, const parallel::ParallelPlan& plan);

}  // namespace flopcast::app

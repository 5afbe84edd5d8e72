#pragma once
/// One training step laid out per pipeline stage from the estimate's per-micro-batch stage
/// times: the schedule's order of forward and backward passes (GPipe or 1F1B), each pass
/// split into compute, recompute and exposed collectives, the send/recv between stages, and
/// the data-parallel sync and optimizer step at the end. Plain C++: the GUI draws it, tests
/// check it.
#include <cstdint>
#include <string>
#include <vector>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/parallel/parallel_plan.hpp"

namespace flopcast::app {

/// What a slice of the timeline is.
enum class SliceKind {
  Forward,    ///< forward compute of one micro-batch
  Backward,   ///< backward compute (input + weight gradients)
  Recompute,  ///< recomputed forward before the backward
  Comm,       ///< exposed TP/CP/EP collectives of a pass, together (the closed-form timeline)
  P2P,        ///< activation or gradient send/recv to the neighbouring stage
  DpSync,     ///< exposed data-parallel gradient sync
  Optimizer,  ///< optimizer step
  Overhead,   ///< per-iteration host overhead
  TpComm,     ///< exposed tensor-parallel collectives (the simulated timeline)
  CpComm,     ///< exposed context-parallel K/V exchanges (the simulated timeline)
  EpComm,     ///< exposed expert-parallel all-to-all (the simulated timeline)
};

/// The number of SliceKind values (for tables indexed by kind).
inline constexpr int kSliceKinds = static_cast<int>(SliceKind::EpComm) + 1;

/// Short label of a kind: "F", "B", "R", "TP/CP/EP comm", "P2P", "DP sync", "optimizer", "overhead",
/// "TP comm", "CP comm", "EP comm".
const char* slice_label(SliceKind k);

/// One coloured bar: [start, end) on one row.
struct TimelineSlice {
  SliceKind kind = SliceKind::Forward;
  int stage = 0;
  int microbatch = -1;  ///< -1 for per-step slices (DP sync, optimizer)
  int to_stage = -1;    ///< P2P: the receiving stage
  units::Time start;
  units::Time end;
  std::string name;  ///< the simulator's own name ("send F mb3", "AR dp b2"); "" = from kind
  units::Time duration() const { return end - start; }
};

/// One row: a stage's compute stream (F, B, R, optimizer) or its communication stream
/// (exposed collectives, sends, DP sync). Slices are sorted by start and do not overlap.
struct TimelineRow {
  std::string label;
  int stage = 0;
  bool comm = false;
  std::vector<TimelineSlice> slices;
};

/// The laid-out step.
struct Timeline {
  std::vector<TimelineRow> rows;
  units::Time end;                      ///< last slice's end
  units::Time estimate_step;            ///< the closed-form estimate's step time, for comparison
  std::int64_t microbatches = 0;        ///< micro-batches per step of the plan
  std::int64_t microbatches_drawn = 0;  ///< fewer when capped (see note)
  std::string schedule;                 ///< schedule drawn ("1f1b", "gpipe")
  std::vector<std::string> notes;       ///< approximations made, e.g. interleaved drawn as 1F1B
  bool simulated = false;               ///< from the discrete-event simulation (core/step), not laid out
  bool empty() const { return rows.empty(); }
};

/// The most pass slices a timeline draws; beyond it only the first micro-batches are laid out.
inline constexpr std::int64_t kMaxTimelinePasses = 200'000;

/// Lays out one step of `plan` with the estimate's stage times.
Timeline build_timeline(const estimate::StepEstimate& est, const parallel::ParallelPlan& plan);

}  // namespace flopcast::app

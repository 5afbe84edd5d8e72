#pragma once
/// The result of simulating one training step event by event (core/step): the step time,
/// where the time goes on the critical stage, per-stage utilisation and the timeline.
///
/// Symmetry: ranks that do identical work (DP replicas, TP and CP peers) are simulated once,
/// so the timeline has one row of tracks per pipeline stage (per model chunk's GPU), each
/// standing for every GPU of that stage; collectives are costed for their whole group.
#include <cstdint>
#include <string>
#include <vector>

#include "flopcast/estimate/step_estimate.hpp"

namespace flopcast::step {

/// What a timeline slice (and a breakdown entry) is.
enum class SliceCategory : std::uint8_t {
  Compute,    ///< forward / backward (input or weight gradient) GEMMs, attention, elementwise
  Recompute,  ///< recomputed forward before backward
  TpComm,     ///< tensor/sequence-parallel collectives
  CpComm,     ///< context-parallel K/V exchanges
  EpComm,     ///< expert-parallel all-to-all
  PpComm,     ///< pipeline send/recv of activations and their gradients
  DpComm,     ///< data-parallel gradient sync, ZeRO parameter gathers
  Optimizer,  ///< optimizer step over the local shard
  Overhead,   ///< per-iteration host overhead
};
const char* to_string(SliceCategory c);

/// The streams a simulated GPU has (one track each per stage in the timeline).
enum class StreamKind : std::uint8_t {
  Compute,  ///< the compute stream: kernels run one at a time, in the schedule's order
  Tp,       ///< in-layer collectives (TP/SP, CP, EP)
  Pp,       ///< pipeline send/recv
  Dp,       ///< data-parallel gradient buckets and ZeRO gathers
};
const char* to_string(StreamKind k);

/// One track of the timeline: a stream of the GPUs of one pipeline stage.
struct TimelineTrack {
  int stage = 0;
  StreamKind stream = StreamKind::Compute;
  std::string name;  ///< "stage 3 compute", "stage 3 dp"
};

/// One task as it ran. Slices of one track never overlap.
struct TimelineSlice {
  int track = 0;     ///< index into StepResult::tracks
  std::string name;  ///< "F mb3", "B mb3", "W mb3", "R mb3", "TP mb3", "send F mb3", "AR dp b2", "optimizer"
  units::Time start;
  units::Time end;
  SliceCategory category = SliceCategory::Compute;
  int microbatch = -1;  ///< 0-based, -1 when not per micro-batch
  int chunk = 0;        ///< model chunk (interleaved schedule), 0 otherwise
};

/// Per pipeline stage (every GPU of the stage does the same).
struct StageUtilisation {
  int stage = 0;
  units::Time compute_busy;        ///< time its compute stream ran kernels (compute + recompute + optimizer)
  units::Time comm_busy;           ///< time any of its communication streams was busy
  double compute_utilisation = 0;  ///< compute_busy / step
  units::Time end;                 ///< when its last task finished
};

/// One simulated step.
struct StepResult {
  units::Time step;  ///< start of the first task to the end of the optimizer, plus host overhead
  /// Where the critical stage's time goes: its compute stream busy (compute, recompute,
  /// optimizer), idle while waiting on its own communication (exposed comm by kind), idle
  /// waiting on other stages (bubble), plus host overhead. Sums to `step`.
  estimate::StepBreakdown breakdown;
  int critical_stage = 0;  ///< the stage the breakdown describes (most compute)
  std::vector<StageUtilisation> stages;
  std::vector<TimelineTrack> tracks;
  std::vector<TimelineSlice> timeline;  ///< sorted by (track, start)
  double mfu = 0;
  double hfu = 0;
  double tokens_per_s = 0;   ///< whole job
  std::uint64_t events = 0;  ///< events the engine processed
  /// The closed-form estimate whose op and collective costs the simulation used (memory,
  /// FLOPs and per-stage costs come from it; its step time is the closed form's).
  estimate::StepEstimate estimate;

  /// The closed-form estimate with step time, breakdown, MFU/HFU and throughput replaced by
  /// the simulation's: what reports and validation consume.
  estimate::StepEstimate as_estimate() const;
};

}  // namespace flopcast::step

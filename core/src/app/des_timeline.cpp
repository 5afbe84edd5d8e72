#include "flopcast/app/des_timeline.hpp"

#include <algorithm>

namespace flopcast::app {

SliceKind kind_of(const ::flopcast::step::TimelineSlice& s) {
  switch (s.category) {
    case step::SliceCategory::Compute:
      return !s.name.empty() && (s.name[0] == 'B' || s.name[0] == 'W') ? SliceKind::Backward : SliceKind::Forward;
    case step::SliceCategory::Recompute:
      return SliceKind::Recompute;
    case step::SliceCategory::TpComm:
      return SliceKind::TpComm;
    case step::SliceCategory::CpComm:
      return SliceKind::CpComm;
    case step::SliceCategory::EpComm:
      return SliceKind::EpComm;
    case step::SliceCategory::PpComm:
      return SliceKind::P2P;
    case step::SliceCategory::DpComm:
      return SliceKind::DpSync;
    case step::SliceCategory::Optimizer:
      return SliceKind::Optimizer;
    case step::SliceCategory::Overhead:
      return SliceKind::Overhead;
  }
  return SliceKind::Forward;
}

Timeline timeline_from_step(const step::StepResult& r, const parallel::ParallelPlan& plan) {
  Timeline t;
  t.simulated = true;
  t.schedule = to_string(plan.schedule);
  t.microbatches = plan.microbatches();
  t.microbatches_drawn = t.microbatches;
  t.estimate_step = r.estimate.step;
  t.rows.reserve(r.tracks.size());
  for (const auto& track : r.tracks) {
    TimelineRow row;
    row.label = track.name;
    row.stage = track.stage;
    row.comm = track.stream != step::StreamKind::Compute;
    t.rows.push_back(std::move(row));
  }
  for (const auto& s : r.timeline) {
    if (s.track < 0 || static_cast<std::size_t>(s.track) >= t.rows.size()) continue;
    TimelineRow& row = t.rows[static_cast<std::size_t>(s.track)];
    TimelineSlice x;
    x.kind = kind_of(s);
    x.stage = row.stage;
    x.microbatch = s.microbatch;
    x.start = s.start;
    x.end = s.end;
    x.name = s.name;
    row.slices.push_back(std::move(x));
    t.end = std::max(t.end, s.end);
  }
  for (auto& row : t.rows)
    std::stable_sort(row.slices.begin(), row.slices.end(),
                     [](const TimelineSlice& a, const TimelineSlice& b) { return a.start < b.start; });
  // Tracks that never ran anything (e.g. a DP stream without DP) are left out.
  std::erase_if(t.rows, [](const TimelineRow& row) { return row.slices.empty(); });
  if (r.step > t.end) t.end = r.step;
  return t;
}

}  // namespace flopcast::app

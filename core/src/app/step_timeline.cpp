#include "flopcast/app/step_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace flopcast::app {

const char* slice_label(SliceKind k) {
  switch (k) {
    case SliceKind::Forward:
      return "F";
    case SliceKind::Backward:
      return "B";
    case SliceKind::Recompute:
      return "R";
    case SliceKind::Comm:
      return "TP/CP/EP comm";
    case SliceKind::P2P:
      return "P2P";
    case SliceKind::DpSync:
      return "DP sync";
    case SliceKind::Optimizer:
      return "optimizer";
    case SliceKind::Overhead:
      return "overhead";
    case SliceKind::TpComm:
      return "TP comm";
    case SliceKind::CpComm:
      return "CP comm";
    case SliceKind::EpComm:
      return "EP comm";
  }
  return "?";
}

namespace {

/// `total` x `part` / `whole`, in double to avoid int64 overflow of the product.
units::Time share(units::Time total, units::Time part, units::Time whole) {
  if (whole.ns <= 0) return units::Time{0};
  return units::Time::from_ns(
      std::llround(static_cast<double>(total.ns) * static_cast<double>(part.ns) / static_cast<double>(whole.ns)));
}

struct Pass {
  bool forward = true;
  int microbatch = 0;
};

/// The order in which one stage runs its passes.
std::vector<Pass> stage_order(parallel::Schedule schedule, int stage, int stages, int microbatches) {
  std::vector<Pass> order;
  order.reserve(static_cast<std::size_t>(2 * microbatches));
  if (schedule == parallel::Schedule::GPipe) {
    for (int m = 0; m < microbatches; ++m) order.push_back({true, m});
    for (int m = 0; m < microbatches; ++m) order.push_back({false, m});
    return order;
  }
  // 1F1B (PipeDream-Flush, Narayanan et al. 2021 §2.2): stage s runs p-s-1 warm-up forwards,
  // then alternates one forward and one backward, then drains the remaining backwards.
  const int warmup = std::min(stages - stage - 1, microbatches);
  for (int m = 0; m < warmup; ++m) order.push_back({true, m});
  for (int i = 0; i < microbatches - warmup; ++i) {
    order.push_back({true, warmup + i});
    order.push_back({false, i});
  }
  for (int m = microbatches - warmup; m < microbatches; ++m) order.push_back({false, m});
  return order;
}

void add(TimelineRow& row, SliceKind kind, int stage, int mb, units::Time& cursor, units::Time duration,
         int to_stage = -1) {
  if (duration.ns <= 0) return;
  row.slices.push_back({kind, stage, mb, to_stage, cursor, cursor + duration, {}});
  cursor += duration;
}

}  // namespace

Timeline build_timeline(const estimate::StepEstimate& est, const parallel::ParallelPlan& plan) {
  Timeline t;
  t.estimate_step = est.step;
  const int stages = static_cast<int>(est.stages.size());
  if (stages == 0) return t;
  t.microbatches = std::max<std::int64_t>(1, plan.microbatches());
  const std::int64_t cap = std::max<std::int64_t>(1, kMaxTimelinePasses / (2 * stages));
  const int mbs = static_cast<int>(std::min(t.microbatches, cap));
  t.microbatches_drawn = mbs;
  if (mbs < t.microbatches)
    t.notes.push_back("showing the first " + std::to_string(mbs) + " of " + std::to_string(t.microbatches) +
                      " micro-batches");
  const parallel::Schedule drawn =
      plan.schedule == parallel::Schedule::GPipe ? parallel::Schedule::GPipe : parallel::Schedule::OneFOneB;
  t.schedule = to_string(drawn);
  if (plan.schedule == parallel::Schedule::Interleaved && stages > 1)
    t.notes.push_back("interleaved schedule (vpp " + std::to_string(plan.vpp) +
                      ") drawn as 1F1B over whole stages: its bubble is larger than the estimate's");
  if (plan.schedule == parallel::Schedule::ZeroBubble && stages > 1)
    t.notes.push_back("zero-bubble schedule drawn as 1F1B: its bubble is larger than the estimate's");

  // Rows: each stage's compute stream, then its communication stream (dropped when empty).
  std::vector<std::size_t> compute_row(static_cast<std::size_t>(stages)), comm_row(static_cast<std::size_t>(stages));
  for (int s = 0; s < stages; ++s) {
    compute_row[static_cast<std::size_t>(s)] = t.rows.size();
    t.rows.push_back({"stage " + std::to_string(s), s, false, {}});
    comm_row[static_cast<std::size_t>(s)] = t.rows.size();
    t.rows.push_back({"stage " + std::to_string(s) + " comm", s, true, {}});
  }

  const auto n = static_cast<std::size_t>(mbs);
  // End of each pass including its send, when the neighbour may start: [stage][microbatch].
  std::vector<std::vector<std::optional<units::Time>>> f_ready(static_cast<std::size_t>(stages),
                                                               std::vector<std::optional<units::Time>>(n));
  std::vector<std::vector<std::optional<units::Time>>> b_ready = f_ready;
  std::vector<std::vector<Pass>> orders;
  for (int s = 0; s < stages; ++s) orders.push_back(stage_order(drawn, s, stages, mbs));
  std::vector<std::size_t> next(static_cast<std::size_t>(stages), 0);
  std::vector<units::Time> free_at(static_cast<std::size_t>(stages), units::Time{0});

  // List scheduling: each stage runs its passes in order as soon as their inputs arrive.
  // Sends block the sender, as in the estimate, which counts 2 p2p per micro-batch on the
  // critical path (step_estimate.cpp).
  bool progress = true;
  while (progress) {
    progress = false;
    for (int s = 0; s < stages; ++s) {
      const auto si = static_cast<std::size_t>(s);
      const cost::StageTimes& st = est.stages[si];
      const units::Time comm = st.tp_comm + st.cp_comm + st.ep_comm;
      const units::Time work = st.forward + st.backward + st.recompute;
      while (next[si] < orders[si].size()) {
        const Pass pass = orders[si][next[si]];
        const auto mi = static_cast<std::size_t>(pass.microbatch);
        std::optional<units::Time> ready;
        if (pass.forward)
          ready = s == 0 ? std::optional<units::Time>(units::Time{0}) : f_ready[si - 1][mi];
        else
          ready = s == stages - 1 ? f_ready[si][mi] : b_ready[si + 1][mi];
        if (!ready) break;
        units::Time cursor = std::max(free_at[si], *ready);
        TimelineRow& row = t.rows[compute_row[si]];
        TimelineRow& crow = t.rows[comm_row[si]];
        if (pass.forward) {
          add(row, SliceKind::Forward, s, pass.microbatch, cursor, st.forward);
          add(crow, SliceKind::Comm, s, pass.microbatch, cursor, share(comm, st.forward, work));
        } else {
          add(row, SliceKind::Recompute, s, pass.microbatch, cursor, st.recompute);
          add(crow, SliceKind::Comm, s, pass.microbatch, cursor, share(comm, st.recompute, work));
          add(row, SliceKind::Backward, s, pass.microbatch, cursor, st.backward);
          add(crow, SliceKind::Comm, s, pass.microbatch, cursor, share(comm, st.backward, work));
        }
        // Forward sends go to s+1 (the boundary's p2p is stage s's); backward sends to s-1.
        const int to = pass.forward ? s + 1 : s - 1;
        if (to >= 0 && to < stages) {
          const units::Time p2p = est.stages[static_cast<std::size_t>(std::min(s, to))].p2p;
          add(crow, SliceKind::P2P, s, pass.microbatch, cursor, p2p, to);
        }
        if (pass.forward)
          f_ready[si][mi] = cursor;
        else
          b_ready[si][mi] = cursor;
        free_at[si] = cursor;
        ++next[si];
        progress = true;
      }
    }
  }

  // After the last backward: exposed DP gradient sync, optimizer, host overhead.
  const estimate::StepBreakdown& br = est.breakdown;
  for (int s = 0; s < stages; ++s) {
    const auto si = static_cast<std::size_t>(s);
    units::Time cursor = free_at[si];
    TimelineRow& row = t.rows[compute_row[si]];
    add(t.rows[comm_row[si]], SliceKind::DpSync, s, -1, cursor, br.dp_comm);
    add(row, SliceKind::Optimizer, s, -1, cursor, br.optimizer);
    add(row, SliceKind::Overhead, s, -1, cursor, br.overhead);
  }
  for (const auto& row : t.rows)
    if (!row.slices.empty()) t.end = std::max(t.end, row.slices.back().end);
  std::erase_if(t.rows, [](const TimelineRow& r) { return r.comm && r.slices.empty(); });
  return t;
}

}  // namespace flopcast::app

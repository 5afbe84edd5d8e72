#include "flopcast/step/step_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <limits>
#include <string>

#include "flopcast/cost/stage_cost.hpp"
#include "flopcast/des/engine.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/units/assert.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::step {

const char* to_string(SliceCategory c) {
  switch (c) {
    case SliceCategory::Compute:
      return "compute";
    case SliceCategory::Recompute:
      return "recompute";
    case SliceCategory::TpComm:
      return "tp_comm";
    case SliceCategory::CpComm:
      return "cp_comm";
    case SliceCategory::EpComm:
      return "ep_comm";
    case SliceCategory::PpComm:
      return "pp_comm";
    case SliceCategory::DpComm:
      return "dp_comm";
    case SliceCategory::Optimizer:
      return "optimizer";
    case SliceCategory::Overhead:
      return "overhead";
  }
  return "?";
}

const char* to_string(StreamKind k) {
  switch (k) {
    case StreamKind::Compute:
      return "compute";
    case StreamKind::Tp:
      return "tp/cp/ep";
    case StreamKind::Pp:
      return "pp";
    case StreamKind::Dp:
      return "dp";
  }
  return "?";
}

estimate::StepEstimate StepResult::as_estimate() const {
  estimate::StepEstimate e = estimate;
  e.step = step;
  e.breakdown = breakdown;
  e.mfu = mfu;
  e.hfu = hfu;
  e.tokens_per_s = tokens_per_s;
  return e;
}

namespace {

enum class OpKind : std::uint8_t { F, B, W };
struct Op {
  OpKind kind;
  int mb;
  int chunk;
  bool split = false;    ///< a B computing the input gradient only, its W later (zero-bubble)
  bool overlap = false;  ///< one of a DualPipe forward-backward pair: its collectives hide under the other's compute
};

/// The shape of the simulated pipeline.
struct SimShape {
  int p = 1;  ///< pipeline stages (ranks)
  int m = 1;  ///< micro-batches per pipeline
  int v = 1;  ///< model chunks per stage
  int V = 1;  ///< virtual stages a micro-batch crosses: p * v; DualPipe p (per direction); DualPipeV 2p
  parallel::Schedule sched = parallel::Schedule::OneFOneB;
  /// The share of a rank's per-micro-batch stage cost one pass carries: 1 / v for chunks, 1 under
  /// DualPipe (a rank's stage times are one stage's, the mean of its two: stage_cost.cpp).
  double chunk_share = 1;
  /// The rank that runs virtual stage `vs` of micro-batch `mb`: Megatron's loop (vs % p), the V of
  /// DualPipeV (down ranks 0 .. p-1, back up p-1 .. 0), DualPipe's two directions (the first half of
  /// the micro-batches from rank 0, the second from rank p-1).
  int rank_of(int vs, int mb) const {
    if (sched == parallel::Schedule::DualPipeV) return vs < p ? vs : V - 1 - vs;
    if (sched == parallel::Schedule::DualPipe) return mb < m / 2 ? vs : p - 1 - vs;
    return vs % p;
  }
  /// The virtual stage rank `r` runs for `op`.
  int vs_of(const Op& op, int r) const {
    if (sched == parallel::Schedule::DualPipeV) return op.chunk == 0 ? r : V - 1 - r;
    if (sched == parallel::Schedule::DualPipe) return op.mb < m / 2 ? r : p - 1 - r;
    return op.chunk * p + r;
  }
};

/// One DualPipe or DualPipeV rank's order, step for step as deepseek-ai/DualPipe runs it
/// (dualpipe/dualpipe.py and dualpipev.py, step(): 1 nF0, 2 nF0F1, 3 nB1W1F1 with zero bubble,
/// 4 the main nF0B1F1B0 of overlapped forward-backward pairs, 5 nB1F1B0, 6 nB1B0 with zero bubble
/// for the second half, 7 nWB0, 8 nW). DualPipe runs it on half-rank min(r, p-1-r) of p/2 with half
/// the micro-batches per direction, phase 0 being a first-half rank's own direction; DualPipeV on
/// rank r of p with phase 0 the V's way down. Approximation: the pair's overlap is its collectives
/// (all of them, TP too) not holding the compute stream; the chunk-level interleaving of DeepSeek's
/// kernels is not simulated.
std::vector<Op> dual_schedule_ops(const SimShape& sh, int r) {
  const bool v_shape = sh.sched == parallel::Schedule::DualPipeV;
  const int P = v_shape ? sh.p : sh.p / 2;
  const bool second = !v_shape && r >= P;
  const int h = second ? sh.p - 1 - r : r;
  const int N = v_shape ? sh.m : sh.m / 2;
  const bool turn = h == P - 1;  // dualpipev's is_last_rank, dualpipe's is_middle_rank
  int fc[2] = {0, 0}, bc[2] = {0, 0};
  std::deque<std::pair<int, int>> weights;  // deferred weight gradients (mb, chunk), first in first out
  std::vector<Op> ops;
  auto mb_of = [&](int phase, int k) { return v_shape ? k : (phase ^ (second ? 1 : 0)) * N + k; };
  auto F = [&](int phase, bool overlap) {
    ops.push_back({OpKind::F, mb_of(phase, fc[phase]++), phase, false, overlap});
  };
  auto B = [&](int phase, bool zb, bool overlap) {
    const int mb = mb_of(phase, bc[phase]++);
    ops.push_back({OpKind::B, mb, phase, zb, overlap});
    if (zb) weights.emplace_back(mb, phase);
  };
  auto W = [&] {
    if (weights.empty()) return;
    ops.push_back({OpKind::W, weights.front().first, weights.front().second});
    weights.pop_front();
  };
  auto FB = [&](int f, int b) {
    F(f, true);
    B(b, false, true);
  };
  for (int i = 0; i < (P - h - 1) * 2; ++i) F(0, false);
  for (int i = 0; i < h + 1; ++i) F(0, false), F(1, false);
  for (int i = 0; i < P - h - 1; ++i) B(1, true, false), W(), F(1, false);
  for (int i = 0; i < N - 2 * P + h + 1; ++i) {
    if (i == 0 && turn)  // "We don't overlap these two chunks to further reduce bubble size."
      F(0, false), B(1, false, false);
    else
      FB(0, 1);
    FB(1, 0);
  }
  for (int i = 0; i < P - h - 1; ++i) B(1, false, false), FB(1, 0);
  bool zb = false;
  for (int i = 0, n = h + 1; i < n; ++i) {
    if (i == n / 2 && h % 2 == 1) zb = true;
    B(1, zb, false);
    if (i == n / 2 && h % 2 == 0) zb = true;
    B(0, zb, false);
  }
  for (int i = 0; i < P - h - 1; ++i) W(), B(0, true, false);
  while (!weights.empty()) W();
  return ops;
}

/// The order one pipeline rank runs its forward/backward passes in.
std::vector<Op> schedule_ops(parallel::Schedule sched, int p, int r, int m, int v) {
  std::vector<Op> ops;
  if (sched == parallel::Schedule::GPipe) {
    for (int j = 0; j < m; ++j) ops.push_back({OpKind::F, j, 0});
    for (int j = 0; j < m; ++j) ops.push_back({OpKind::B, j, 0});
    return ops;
  }
  if (sched == parallel::Schedule::Interleaved && v > 1) {
    // Megatron-LM's interleaved 1F1B (megatron/core/pipeline_parallel/schedules.py,
    // forward_backward_pipelining_with_interleaving): virtual micro-batch k runs chunk
    // (k / p) % v forward and v-1-(k / p) % v backward, on micro-batch (k / (p v)) p + k % p;
    // (p - r - 1) * 2 + (v - 1) * p warm-up forwards. Needs m % p == 0 (the caller checks).
    const int total = m * v;
    const int warm = std::min(total, (p - r - 1) * 2 + (v - 1) * p);
    auto mb_of = [&](int k) { return (k / (p * v)) * p + k % p; };
    auto fwd = [&](int k) { return Op{OpKind::F, mb_of(k), (k / p) % v}; };
    auto bwd = [&](int k) { return Op{OpKind::B, mb_of(k), v - 1 - (k / p) % v}; };
    for (int k = 0; k < warm; ++k) ops.push_back(fwd(k));
    for (int i = 0; i < total - warm; ++i) {
      ops.push_back(fwd(warm + i));
      ops.push_back(bwd(i));
    }
    for (int k = total - warm; k < total; ++k) ops.push_back(bwd(k));
    return ops;
  }
  // 1F1B (PipeDream-Flush; Narayanan et al. 2021 §2.2): p - r - 1 warm-up forwards, then one
  // forward and one backward in turn, then the remaining backwards.
  const int warm = std::min(p - r - 1, m);
  const bool zb = sched == parallel::Schedule::ZeroBubble;
  // ZB-H1 (Qi et al. 2024, arXiv 2401.10241 §3): backward splits into B (input gradient,
  // sent upstream at once) and W (weight gradient, deferrable). Later stages, which 1F1B
  // leaves idle in the drain and whose activation memory has room (1F1B keeps p - r
  // micro-batches on stage r), hold back up to r W passes and run them in the drain, so the
  // B passes travel upstream without waiting: the bubble drops from (p-1)(F+B+W) to
  // (p-1)(F+B-2W) for equal passes.
  const std::size_t hold = static_cast<std::size_t>(r);
  std::deque<int> pending;
  auto emit_w = [&] {
    while (pending.size() > hold) {
      ops.push_back({OpKind::W, pending.front(), 0});
      pending.pop_front();
    }
  };
  for (int j = 0; j < warm; ++j) ops.push_back({OpKind::F, j, 0});
  for (int i = 0; i < m - warm; ++i) {
    ops.push_back({OpKind::F, warm + i, 0});
    ops.push_back({OpKind::B, i, 0, zb});
    if (zb) {
      pending.push_back(i);
      emit_w();
    }
  }
  for (int j = m - warm; j < m; ++j) {
    ops.push_back({OpKind::B, j, 0, zb});
    if (zb) {
      pending.push_back(j);
      emit_w();
    }
  }
  for (const int j : pending) ops.push_back({OpKind::W, j, 0});
  return ops;
}

struct TaskInfo {
  int rank = 0;
  StreamKind stream = StreamKind::Compute;
  SliceCategory category = SliceCategory::Compute;
  const char* label = "";  ///< "F", "B", "TP F", ...
  int mb = -1;
  int chunk = 0;
  int bucket = -1;
};

units::Time scale(units::Time t, double f) {
  return units::Time{static_cast<std::int64_t>(std::llround(static_cast<double>(t.ns) * f))};
}

}  // namespace

namespace {

units::Time sat_add(units::Time a, units::Time b) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  return b.ns > 0 && a.ns > kMax - b.ns ? units::Time{kMax} : a + b;
}

SimShape sim_shape(const parallel::ParallelPlan& plan, int p, std::int64_t micro) {
  SimShape sh;
  sh.p = p;
  sh.m = static_cast<int>(std::max<std::int64_t>(1, micro));
  sh.v = plan.schedule == parallel::Schedule::Interleaved ? std::max(1, plan.vpp) : 1;
  // Megatron's interleaved schedule needs the micro-batches to be a multiple of the stages;
  // otherwise the ranks run their v chunks as one (1F1B).
  if (sh.v > 1 && (sh.p == 1 || sh.m % sh.p != 0)) sh.v = 1;
  sh.V = sh.p * sh.v;
  sh.sched = sh.v > 1
                 ? parallel::Schedule::Interleaved
                 : (plan.schedule == parallel::Schedule::Interleaved ? parallel::Schedule::OneFOneB : plan.schedule);
  sh.chunk_share = 1.0 / sh.v;
  if (parallel::is_dual_pipe(sh.sched)) {
    // DualPipe needs an even pipeline and an even number of at least 2p micro-batches, DualPipeV
    // at least 2p (dualpipe.py, dualpipev.py asserts); otherwise 1F1B over the same stage costs.
    const bool dual = sh.sched == parallel::Schedule::DualPipe;
    if (sh.p < 2 || sh.m < 2 * sh.p || (dual && (sh.p % 2 != 0 || sh.m % 2 != 0))) {
      sh.sched = parallel::Schedule::OneFOneB;
    } else {
      sh.V = dual ? sh.p : 2 * sh.p;
      sh.chunk_share = dual ? 1.0 : 0.5;
    }
  }
  return sh;
}

/// Which links a stage's collectives use (Megatron order tp-cp-dp-pp).
struct Placement {
  std::int64_t gpn = 1;        ///< GPUs per node
  std::int64_t per_stage = 1;  ///< GPUs per pipeline stage, tp * cp * dp
  bool tp_cross = false, cp_cross = false, ep_cross = false, dp_cross = false;
  std::int64_t node_of(int r) const { return per_stage >= gpn ? r : r * per_stage / gpn; }
};

Placement placement(const scenario::Scenario& s) {
  const auto& plan = s.plan;
  Placement pl;
  pl.gpn = std::max(1, s.cluster.gpus_per_node);
  const std::int64_t tp = plan.tp, cp = plan.cp, ep = plan.ep, dp = plan.dp, etp = plan.expert_tp();
  pl.per_stage = tp * cp * dp;
  pl.tp_cross = tp > pl.gpn;
  pl.cp_cross = tp * cp > pl.gpn;
  pl.ep_cross = etp * ep > pl.gpn;  // EP members are etp ranks apart (MoE parallel folding)
  pl.dp_cross = pl.per_stage > pl.gpn;
  return pl;
}

/// The task graph of one step: the engine, what each task is, and each stage's streams and links.
struct StepGraph {
  des::Engine eng;
  std::vector<TaskInfo> info;
  // Links: each stage's GPUs have their share of the node's NICs and their own NVLink ports
  // (NVSwitch is non-blocking, so other stages' GPUs do not compete for them). Collective
  // costs already assume every group of a kind communicates at once (collective_time), so
  // what a link adds is contention between different kinds of traffic of the same GPUs
  // (DP buckets, PP sends, TP/EP collectives) while they overlap.
  std::vector<int> nic, nvl;
  /// Streams per stage: compute, in-layer comm, pipeline p2p, data-parallel.
  struct RankStreams {
    int compute, tp, pp, dp;
  };
  std::vector<RankStreams> rs;

  explicit StepGraph(int p)
      : nic(static_cast<std::size_t>(p)), nvl(static_cast<std::size_t>(p)), rs(static_cast<std::size_t>(p)) {
    for (int i = 0; i < p; ++i) {
      nic[static_cast<std::size_t>(i)] = eng.add_link();
      nvl[static_cast<std::size_t>(i)] = eng.add_link();
    }
    for (auto& x : rs) x = {eng.add_stream(), eng.add_stream(), eng.add_stream(), eng.add_stream()};
  }
  int link_for(int r, bool crosses) const {
    return crosses ? nic[static_cast<std::size_t>(r)] : nvl[static_cast<std::size_t>(r)];
  }
  des::TaskId add(int r, StreamKind k, units::Time dur, SliceCategory cat, const char* label, int mb, int chunk,
                  int link = -1) {
    const auto& st = rs[static_cast<std::size_t>(r)];
    const int stream = k == StreamKind::Compute ? st.compute
                       : k == StreamKind::Tp    ? st.tp
                       : k == StreamKind::Pp    ? st.pp
                                                : st.dp;
    const des::TaskId id = eng.add_task(stream, dur, link);
    info.push_back({r, k, cat, label, mb, chunk, -1});
    return id;
  }
};

/// Task ids per (virtual stage, micro-batch): the first task of its forward and backward, and
/// the send of each toward the neighbour.
struct PipelineCells {
  int m = 1;
  std::vector<des::TaskId> f_first, b_first, f_send, b_send;
  PipelineCells(int V, int micro)
      : m(micro),
        f_first(static_cast<std::size_t>(V) * static_cast<std::size_t>(micro), des::kNoTask),
        b_first(f_first),
        f_send(f_first),
        b_send(f_first) {}
  std::size_t cell(int vs, int mb) const {
    return static_cast<std::size_t>(vs) * static_cast<std::size_t>(m) + static_cast<std::size_t>(mb);
  }
};

/// One pass's share of a stage's per-micro-batch costs (1/v of them per model chunk).
struct PassTimes {
  units::Time f, b, bi, w, r;    ///< forward, backward, its input-gradient part (a split B), weight gradient, recompute
  units::Time tp_f, tp_r, tp_b;  ///< TP collectives of forward, recompute, backward
  units::Time cp_f, cp_b, ep_f, ep_b;  ///< CP and EP exchanges
  units::Time z3;                      ///< one ZeRO-3 gather
};

PassTimes pass_times(const scenario::Scenario& s, const compute::ComputeProfile& prof, const cost::StageTimes& st,
                     const cost::StageParameters& P, double cf) {
  const auto& plan = s.plan;
  const double tp_count = cost::tp_collectives_per_layer(plan.recompute);
  // cf: each chunk holds 1/v of the stage's layers (SimShape::chunk_share)
  PassTimes t;
  t.f = scale(st.forward, cf);
  t.b = scale(st.backward, cf);
  t.bi = scale(st.backward_input, cf);
  t.w = scale(st.backward - st.backward_input, cf);
  t.r = scale(st.recompute, cf);
  t.tp_f = scale(st.tp_comm, cf * 2 / tp_count);
  t.tp_r = plan.recompute == parallel::Recompute::Full ? t.tp_f : units::Time{0};
  t.tp_b = scale(st.tp_comm, cf) - t.tp_f - t.tp_r;
  t.cp_f = scale(st.cp_comm, cf / 3);
  t.cp_b = scale(st.cp_comm, cf) - t.cp_f;
  t.ep_f = scale(st.ep_comm, cf / 2);
  t.ep_b = scale(st.ep_comm, cf) - t.ep_f;
  t.z3 = scale(cost::zero3_gather_time(s, prof, P), cf);
  return t;
}

/// Emits one pipeline rank's passes, sends and data-parallel buckets into the graph.
class RankBuilder {
 public:
  RankBuilder(StepGraph& g, PipelineCells& cells, const SimShape& sh, const Placement& pl, const scenario::Scenario& s,
              const compute::ComputeProfile& prof, const StepSimOptions& options, int r, const cost::StageTimes& st,
              const cost::StageParameters& P)
      : g_(g), cells_(cells), sh_(sh), pl_(pl), s_(s), prof_(prof), options_(options), r_(r), st_(st), P_(P) {
    dual_ = parallel::is_dual_pipe(sh.sched);
    t_ = pass_times(s, prof, st, P, sh.chunk_share);
    dp_sync_ = options.dp_sync ? *options.dp_sync : cost::dp_sync_time(s, prof, P);
    ops_ = dual_ ? dual_schedule_ops(sh, r) : schedule_ops(sh.sched, sh.p, r, sh.m, sh.v);
    // The last op that finishes this rank's weight gradients: where DP buckets start.
    for (std::size_t i = 0; i < ops_.size(); ++i)
      if (ops_[i].kind == OpKind::W || (ops_[i].kind == OpKind::B && !ops_[i].split)) last_grad_ = i;
    // Megatron DDP buckets: max(40M, 1M x DP) parameters each
    // (megatron/core/distributed/distributed_data_parallel.py, bucket_size default).
    const double dp_group = static_cast<double>(s.plan.dp * s.plan.cp);
    const double bucket_params = std::max(4.0e7, 1.0e6 * dp_group);
    buckets_ = s.plan.overlap_dp_comm && dp_sync_.ns > 0
                   ? std::clamp(static_cast<int>(std::ceil((P.dense + P.expert) / bucket_params)), 1, 32)
                   : 1;
  }

  void build() {
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      const Op& op = ops_[i];
      emit_pass(op, i);
      // In-layer collectives hold the compute stream, except a DualPipe pair's, which the other
      // pass's compute hides.
      if (last_ != first_ && !op.overlap) block_ = last_;
      emit_send(op);
      rank_last = last_;
      if (i == last_grad_) emit_dp_sync();
    }
  }

  des::TaskId rank_last = des::kNoTask;  ///< the rank's last task of its passes
  des::TaskId dp_last = des::kNoTask;    ///< its last data-parallel bucket

 private:
  des::TaskId compute(const Op& op, units::Time t, SliceCategory cat, const char* label) {
    const des::TaskId c = g_.add(r_, StreamKind::Compute, t, cat, label, op.mb, op.chunk);
    g_.eng.add_dependency(c, block_);
    g_.eng.add_dependency(c, gather_);
    if (first_ == des::kNoTask) first_ = c;
    last_ = c;
    block_ = des::kNoTask;
    return c;
  }
  des::TaskId comm_after(const Op& op, des::TaskId after, units::Time t, SliceCategory cat, const char* label,
                         bool cross) {
    if (t.ns <= 0) return after;
    const des::TaskId c = g_.add(r_, StreamKind::Tp, t, cat, label, op.mb, op.chunk, g_.link_for(r_, cross));
    g_.eng.add_dependency(c, after);
    return c;
  }
  /// The pass's compute (in `buckets_` pieces when it finishes the rank's gradients) and the
  /// in-layer collectives after it.
  void emit_pass(const Op& op, std::size_t i) {
    gather_ = des::kNoTask;
    if (t_.z3.ns > 0 && op.kind != OpKind::W)
      gather_ = g_.add(r_, StreamKind::Dp, t_.z3, SliceCategory::DpComm, "AG z3", op.mb, op.chunk,
                       g_.link_for(r_, pl_.dp_cross));
    first_ = last_ = des::kNoTask;
    const char* name = op.kind == OpKind::F ? "F" : op.kind == OpKind::B ? "B" : "W";
    auto pieces = [&](units::Time t) {
      for (int k = 0; k < buckets_; ++k)
        grad_pieces_.push_back(compute(op, scale(t, 1.0 / buckets_), SliceCategory::Compute, name));
    };
    if (op.kind == OpKind::F) {
      compute(op, t_.f, SliceCategory::Compute, name);
      last_ = comm_after(op, last_, t_.tp_f, SliceCategory::TpComm, "TP F", pl_.tp_cross);
      last_ = comm_after(op, last_, t_.cp_f, SliceCategory::CpComm, "CP F", pl_.cp_cross);
      last_ = comm_after(op, last_, t_.ep_f, SliceCategory::EpComm, "A2A F", pl_.ep_cross);
    } else if (op.kind == OpKind::B) {
      if (t_.r.ns > 0) {
        compute(op, t_.r, SliceCategory::Recompute, "R");
        block_ = comm_after(op, last_, t_.tp_r, SliceCategory::TpComm, "TP R", pl_.tp_cross);
        if (block_ == last_) block_ = des::kNoTask;
      }
      const units::Time b = op.split ? t_.bi : t_.b;
      if (i == last_grad_ && buckets_ > 1 && !op.split)
        pieces(b);
      else
        compute(op, b, SliceCategory::Compute, name);
      last_ = comm_after(op, last_, t_.tp_b, SliceCategory::TpComm, "TP B", pl_.tp_cross);
      last_ = comm_after(op, last_, t_.cp_b, SliceCategory::CpComm, "CP B", pl_.cp_cross);
      last_ = comm_after(op, last_, t_.ep_b, SliceCategory::EpComm, "A2A B", pl_.ep_cross);
    } else if (i == last_grad_ && buckets_ > 1) {
      pieces(t_.w);
    } else {
      compute(op, t_.w, SliceCategory::Compute, name);
    }
  }
  /// The activations (forward) or their gradient (backward) to the neighbouring virtual stage.
  void emit_send(const Op& op) {
    const int vs = sh_.vs_of(op, r_);
    const std::size_t c = cells_.cell(vs, op.mb);
    auto send = [&](int to_vs, const char* label) {
      const int to = sh_.rank_of(to_vs, op.mb);
      if (to == r_) return last_;  // DualPipeV's turn: the next virtual stage is this rank's
      const des::TaskId snd = g_.add(r_, StreamKind::Pp, st_.p2p, SliceCategory::PpComm, label, op.mb, op.chunk,
                                     g_.link_for(r_, pl_.node_of(r_) != pl_.node_of(to)));
      g_.eng.add_dependency(snd, last_);
      // DualPipe hides its sends under the overlapped pairs' compute (DeepSeek-V3 §3.2.1).
      if (!s_.plan.overlap_pp_comm && !dual_) block_ = snd;
      return snd;
    };
    if (op.kind == OpKind::F) {
      cells_.f_first[c] = first_;
      if (vs + 1 < sh_.V) cells_.f_send[c] = send(vs + 1, "send F");
    } else if (op.kind == OpKind::B) {
      cells_.b_first[c] = first_;
      if (vs > 0) cells_.b_send[c] = send(vs - 1, "send B");
    }
  }
  /// Data-parallel gradient sync: bucket k after the k-th piece of the last backward
  /// (overlapped), or the whole sync after it.
  void emit_dp_sync() {
    if (dp_sync_.ns <= 0) return;
    const char* label = s_.plan.zero == 0 ? "AR dp" : "RS+AG dp";
    if (grad_pieces_.empty()) grad_pieces_.push_back(last_);
    const int nb = static_cast<int>(grad_pieces_.size());
    for (int k = 0; k < nb; ++k) {
      units::Time t = dp_sync_;
      if (nb > 1) {
        if (options_.dp_sync) {
          t = scale(dp_sync_, 1.0 / nb);
        } else {
          cost::StageParameters share = P_;
          share.dense /= nb;
          share.expert /= nb;
          share.gemm /= nb;
          t = cost::dp_sync_time(s_, prof_, share);
        }
      }
      const des::TaskId b =
          g_.add(r_, StreamKind::Dp, t, SliceCategory::DpComm, label, -1, 0, g_.link_for(r_, pl_.dp_cross));
      g_.info.back().bucket = k;
      // The bucket's gradients are final when its piece of the backward (and, for the
      // last piece, the backward's in-layer collectives) is done.
      g_.eng.add_dependency(b, k + 1 == nb ? last_ : grad_pieces_[static_cast<std::size_t>(k)]);
      dp_last = b;
    }
  }

  StepGraph& g_;
  PipelineCells& cells_;
  const SimShape& sh_;
  const Placement& pl_;
  const scenario::Scenario& s_;
  const compute::ComputeProfile& prof_;
  const StepSimOptions& options_;
  int r_;
  const cost::StageTimes& st_;
  const cost::StageParameters& P_;
  bool dual_ = false;
  PassTimes t_;
  units::Time dp_sync_;
  std::vector<Op> ops_;
  std::size_t last_grad_ = 0;
  int buckets_ = 1;
  des::TaskId block_ = des::kNoTask;  // the compute stream's next task waits for it
  des::TaskId gather_ = des::kNoTask;
  des::TaskId first_ = des::kNoTask, last_ = des::kNoTask;
  std::vector<des::TaskId> grad_pieces_;
};

/// Cross-stage dependencies, then the optimizer after every stage's gradients are synchronised.
void link_stages_and_optimizer(StepGraph& g, const PipelineCells& cells, const SimShape& sh,
                               const scenario::Scenario& s, const compute::ComputeProfile& prof,
                               const std::vector<des::TaskId>& rank_last, const std::vector<des::TaskId>& dp_last,
                               const std::vector<cost::StageParameters>& params) {
  // Forward of virtual stage vs after the previous one's send, backward after the next one's
  // backward send (the last virtual stage after its forward, which its compute stream orders
  // already).
  for (int vs = 0; vs < sh.V; ++vs)
    for (int j = 0; j < sh.m; ++j) {
      const std::size_t c = cells.cell(vs, j);
      if (vs > 0) g.eng.add_dependency(cells.f_first[c], cells.f_send[cells.cell(vs - 1, j)]);
      if (vs + 1 < sh.V)
        g.eng.add_dependency(cells.b_first[c], cells.b_send[cells.cell(vs + 1, j)]);
      else
        g.eng.add_dependency(cells.b_first[c], cells.f_first[c]);
    }
  // The optimizer: Megatron clips by the global gradient norm, an all-reduce over every
  // stage (megatron/core/optimizer/clip_grads.py), so each stage steps after all stages'
  // gradients are synchronised.
  const des::TaskId barrier = g.eng.add_task(-1, units::Time{0});
  g.info.push_back({0, StreamKind::Compute, SliceCategory::Optimizer, "", -1, 0, -1});
  for (int r = 0; r < sh.p; ++r) {
    g.eng.add_dependency(barrier, rank_last[static_cast<std::size_t>(r)]);
    g.eng.add_dependency(barrier, dp_last[static_cast<std::size_t>(r)]);
  }
  for (int r = 0; r < sh.p; ++r) {
    const des::TaskId opt =
        g.add(r, StreamKind::Compute, cost::optimizer_time(s, prof, params[static_cast<std::size_t>(r)]),
              SliceCategory::Optimizer, "optimizer", -1, 0);
    g.eng.add_dependency(opt, barrier);
  }
}

/// Per-stage busy times and utilisation; returns the critical stage (most compute).
int stage_utilisation(StepResult& res, const StepGraph& g, int p) {
  const auto& eng = g.eng;
  const std::size_t n = eng.tasks();
  res.stages.resize(static_cast<std::size_t>(p));
  // Each stage's communication intervals, one list per stream (TP, PP, DP). A stream runs its
  // tasks one after another in the order they were added (task id order), so each list comes
  // out sorted by start and by end, and a stage's three lists merge in linear time into the
  // order a sort would give.
  constexpr std::size_t kCommStreams = 3;
  using Interval = std::pair<units::Time, units::Time>;
  thread_local std::vector<std::vector<Interval>> comm_iv;
  thread_local std::vector<Interval> merged, both;
  comm_iv.resize(static_cast<std::size_t>(p) * kCommStreams);
  for (auto& v : comm_iv) v.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const auto id = static_cast<des::TaskId>(i);
    if (eng.stream_of(id) < 0) continue;
    const TaskInfo& ti = g.info[i];
    auto& su = res.stages[static_cast<std::size_t>(ti.rank)];
    const units::Time d = eng.end(id) - eng.start(id);
    su.end = std::max(su.end, eng.end(id));
    if (ti.stream == StreamKind::Compute)
      su.compute_busy += d;
    else if (d.ns > 0)
      comm_iv[static_cast<std::size_t>(ti.rank) * kCommStreams + static_cast<std::size_t>(ti.stream) - 1].push_back(
          {eng.start(id), eng.end(id)});
  }
  int crit = 0;
  for (int r = 0; r < p; ++r) {
    auto& su = res.stages[static_cast<std::size_t>(r)];
    su.stage = r;
    su.compute_utilisation =
        res.step.ns > 0 ? static_cast<double>(su.compute_busy.ns) / static_cast<double>(res.step.ns) : 0;
    const auto* lists = &comm_iv[static_cast<std::size_t>(r) * kCommStreams];
    both.clear();
    std::merge(lists[0].begin(), lists[0].end(), lists[1].begin(), lists[1].end(), std::back_inserter(both));
    merged.clear();
    std::merge(both.begin(), both.end(), lists[2].begin(), lists[2].end(), std::back_inserter(merged));
    units::Time cur_s{-1}, cur_e{-1};
    for (const auto& [a, b] : merged) {
      if (a > cur_e) {
        if (cur_e > cur_s) su.comm_busy += cur_e - cur_s;
        cur_s = a;
        cur_e = b;
      } else {
        cur_e = std::max(cur_e, b);
      }
    }
    if (cur_e > cur_s) su.comm_busy += cur_e - cur_s;
    if (su.compute_busy > res.stages[static_cast<std::size_t>(crit)].compute_busy) crit = r;
  }
  return crit;
}

void charge(estimate::StepBreakdown& br, SliceCategory c, units::Time t) {
  switch (c) {
    case SliceCategory::Compute:
      br.compute += t;
      break;
    case SliceCategory::Recompute:
      br.recompute += t;
      break;
    case SliceCategory::TpComm:
      br.tp_comm += t;
      break;
    case SliceCategory::CpComm:
      br.cp_comm += t;
      break;
    case SliceCategory::EpComm:
      br.ep_comm += t;
      break;
    case SliceCategory::PpComm:
      br.pp_comm += t;
      break;
    case SliceCategory::DpComm:
      br.dp_comm += t;
      break;
    case SliceCategory::Optimizer:
      br.optimizer += t;
      break;
    case SliceCategory::Overhead:
      br.overhead += t;
      break;
  }
}

/// Breakdown on the critical stage: its compute stream's busy time by category; each idle gap
/// before a task is charged to the communication the task waited on (the part of that
/// transfer inside the gap), the rest of the gap to the bubble.
estimate::StepBreakdown critical_breakdown(const StepGraph& g, int crit, units::Time end, units::Time overhead) {
  const auto& eng = g.eng;
  const auto& info = g.info;
  const std::size_t n = eng.tasks();
  estimate::StepBreakdown br;
  units::Time cursor{0};
  for (std::size_t i = 0; i < n; ++i) {
    const auto id = static_cast<des::TaskId>(i);
    if (info[i].rank != crit || info[i].stream != StreamKind::Compute || eng.stream_of(id) < 0) continue;
    const units::Time st = eng.start(id);
    if (st > cursor) {
      units::Time gap = st - cursor;
      // Follow the chain of waits back while it stays in this gap.
      des::TaskId w = eng.binding(id);
      while (w != des::kNoTask && gap.ns > 0) {
        const auto wi = static_cast<std::size_t>(w);
        if (eng.end(w) <= cursor) break;
        if (eng.stream_of(w) >= 0 && info[wi].stream != StreamKind::Compute) {
          const units::Time a = std::max(eng.start(w), cursor);
          const units::Time part = std::min(gap, eng.end(w) - a);
          charge(br, info[wi].category, part);
          gap -= part;
          if (eng.start(w) <= cursor) break;
          w = eng.binding(w);
          continue;
        }
        if (eng.stream_of(w) < 0) {
          w = eng.binding(w);
          continue;
        }
        break;  // a compute task (another stage's): the rest is the bubble
      }
      br.bubble += gap;
    }
    charge(br, info[i].category, eng.end(id) - st);
    cursor = std::max(cursor, eng.end(id));
  }
  if (end > cursor) br.bubble += end - cursor;
  br.overhead += overhead;
  return br;
}

/// Tracks (the streams that have slices, by stage then stream) and their slices.
void record_timeline(StepResult& res, const StepGraph& g, int p, int v) {
  const auto& eng = g.eng;
  const std::size_t n = eng.tasks();
  std::vector<int> track_of(static_cast<std::size_t>(p) * 4, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const auto id = static_cast<des::TaskId>(i);
    if (eng.stream_of(id) < 0 || eng.end(id) <= eng.start(id)) continue;
    track_of[static_cast<std::size_t>(g.info[i].rank) * 4 + static_cast<std::size_t>(g.info[i].stream)] = 0;
  }
  for (int r = 0; r < p; ++r)
    for (int k = 0; k < 4; ++k) {
      int& t = track_of[static_cast<std::size_t>(r) * 4 + static_cast<std::size_t>(k)];
      if (t < 0) continue;
      t = static_cast<int>(res.tracks.size());
      const auto sk = static_cast<StreamKind>(k);
      res.tracks.push_back({r, sk, "stage " + std::to_string(r) + " " + to_string(sk)});
    }
  for (std::size_t i = 0; i < n; ++i) {
    const auto id = static_cast<des::TaskId>(i);
    if (eng.stream_of(id) < 0 || eng.end(id) <= eng.start(id)) continue;
    const TaskInfo& ti = g.info[i];
    TimelineSlice sl;
    sl.track = track_of[static_cast<std::size_t>(ti.rank) * 4 + static_cast<std::size_t>(ti.stream)];
    sl.name = ti.label;
    if (ti.mb >= 0) sl.name += " mb" + std::to_string(ti.mb);
    if (v > 1 && ti.mb >= 0) sl.name += " c" + std::to_string(ti.chunk);
    if (ti.bucket >= 0) sl.name += " b" + std::to_string(ti.bucket);
    sl.start = eng.start(id);
    sl.end = eng.end(id);
    sl.category = ti.category;
    sl.microbatch = ti.mb;
    sl.chunk = ti.chunk;
    res.timeline.push_back(std::move(sl));
  }
  std::stable_sort(res.timeline.begin(), res.timeline.end(), [](const TimelineSlice& a, const TimelineSlice& b) {
    return a.track != b.track ? a.track < b.track : a.start < b.start;
  });
}

/// MFU, HFU and throughput from the simulated step time.
void set_throughput(StepResult& res, const scenario::Scenario& s) {
  const auto& gpu = s.cluster.gpu;
  const double peak = gpu.peak(s.precision) ? gpu.peak(s.precision)->flops_per_s : 0;
  const double denom = res.step.seconds() * static_cast<double>(s.cluster.gpus) * peak;
  res.mfu = denom > 0 ? res.estimate.model_flops.value / denom : 0;
  res.hfu = denom > 0 ? res.estimate.hardware_flops.value / denom : 0;
  res.tokens_per_s = res.step.ns > 0 ? static_cast<double>(s.plan.global_batch) * static_cast<double>(s.model.seq_len) /
                                           res.step.seconds()
                                     : 0;
}

/// Simulates the step with `micro` micro-batches per pipeline over the stage costs `priced`
/// (stage_costs; options.stages replaces them in the simulation, not in the closed form beside it).
StepResult simulate(const scenario::Scenario& s, const compute::ComputeProfile& prof, const StepSimOptions& options,
                    std::int64_t micro, const std::vector<cost::StageTimes>& priced) {
  StepResult res;
  res.estimate = estimate::estimate_over(s, prof, priced);
  std::vector<cost::StageTimes> stages = options.stages.empty() ? priced : options.stages;
  const int p = std::max(1, static_cast<int>(stages.size()));
  stages.resize(static_cast<std::size_t>(p));
  const SimShape sh = sim_shape(s.plan, p, micro);
  const Placement pl = placement(s);
  StepGraph g(p);
  PipelineCells cells(sh.V, sh.m);
  std::vector<des::TaskId> dp_last(static_cast<std::size_t>(p), des::kNoTask);
  std::vector<des::TaskId> rank_last(static_cast<std::size_t>(p), des::kNoTask);
  std::vector<cost::StageParameters> params(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    const auto ri = static_cast<std::size_t>(r);
    params[ri] = cost::stage_parameters(s, ri);
    RankBuilder rank(g, cells, sh, pl, s, prof, options, r, stages[ri], params[ri]);
    rank.build();
    rank_last[ri] = rank.rank_last;
    dp_last[ri] = rank.dp_last;
  }
  link_stages_and_optimizer(g, cells, sh, s, prof, rank_last, dp_last, params);
  const bool ran = g.eng.run();
  FLOPCAST_ASSERT(ran, "the step's task graph has a cycle");
  res.events = g.eng.events();

  const units::Time end = g.eng.makespan();
  const units::Time overhead = units::Time::from_seconds(prof.iteration_overhead_ms * 1e-3);
  res.step = sat_add(end, overhead);
  res.critical_stage = stage_utilisation(res, g, p);
  res.breakdown = critical_breakdown(g, res.critical_stage, end, overhead);
  set_throughput(res, s);
  if (options.timeline) record_timeline(res, g, p, parallel::is_dual_pipe(sh.sched) ? 2 : sh.v);
  return res;
}

}  // namespace

StepResult simulate_step(const scenario::Scenario& s, const compute::ComputeProfile& prof,
                         const StepSimOptions& options) {
  const std::int64_t m = std::max<std::int64_t>(1, s.plan.microbatches());
  const std::int64_t p =
      std::max<std::int64_t>(1, options.stages.empty() ? s.plan.pp : static_cast<std::int64_t>(options.stages.size()));
  const std::int64_t V = p * (s.plan.schedule == parallel::Schedule::Interleaved ? std::max(1, s.plan.vpp) : 1);
  // Past ~65k passes per pipeline the steady state has long repeated: simulate two shorter
  // steps (multiples of p, at least 2 V micro-batches) and extend the step and breakdown
  // linearly in the micro-batches (the timeline is the longer simulated one's).
  constexpr std::int64_t kMaxPasses = 65536;
  std::int64_t cap = std::max<std::int64_t>(2 * V, kMaxPasses / V);
  cap = (cap + p - 1) / p * p;
  const std::vector<cost::StageTimes> priced = cost::stage_costs(s, prof);
  if (m <= cap) return simulate(s, prof, options, m, priced);
  const std::int64_t half = std::max<std::int64_t>(V, cap / 2 / p * p);
  StepResult a = simulate(s, prof, options, half, priced);
  StepResult b = simulate(s, prof, options, cap, priced);
  const double k = static_cast<double>(m - cap) / static_cast<double>(cap - half);
  auto extend = [k](units::Time& tb, units::Time ta) {
    const double v = static_cast<double>(tb.ns) + k * static_cast<double>(tb.ns - ta.ns);
    tb = v >= 9.2e18 ? units::Time{std::numeric_limits<std::int64_t>::max()}
                     : units::Time{static_cast<std::int64_t>(std::llround(v))};
  };
  auto& x = b.breakdown;
  const auto& y = a.breakdown;
  for (auto [tb, ta] : {std::pair<units::Time*, units::Time>{&x.compute, y.compute},
                        {&x.recompute, y.recompute},
                        {&x.tp_comm, y.tp_comm},
                        {&x.cp_comm, y.cp_comm},
                        {&x.ep_comm, y.ep_comm},
                        {&x.pp_comm, y.pp_comm},
                        {&x.dp_comm, y.dp_comm},
                        {&x.bubble, y.bubble}})
    extend(*tb, ta);
  b.step = x.total();
  for (std::size_t i = 0; i < b.stages.size(); ++i) {
    auto& u = b.stages[i];
    extend(u.compute_busy, a.stages[i].compute_busy);
    extend(u.comm_busy, a.stages[i].comm_busy);
    extend(u.end, a.stages[i].end);
    u.compute_utilisation = b.step.ns > 0 ? static_cast<double>(u.compute_busy.ns) / static_cast<double>(b.step.ns) : 0;
  }
  set_throughput(b, s);
  b.events += a.events;
  return b;
}

}  // namespace flopcast::step

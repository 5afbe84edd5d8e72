#include "flopcast/job/job_simulation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "flopcast/exec/thread_pool.hpp"
#include "flopcast/job/rng.hpp"
#include "flopcast/job/young_daly.hpp"
#include "flopcast/units/assert.hpp"
#include "flopcast/units/format.hpp"

namespace flopcast::job {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
constexpr double kJoulesPerKwh = 3.6e6;

units::Time sat_add(units::Time a, units::Time b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a.ns, b.ns, &r)) return units::Time{kNever};
  return units::Time{r};
}

units::Time times(units::Time t, std::int64_t k) {
  std::int64_t r = 0;
  FLOPCAST_ASSERT(!__builtin_mul_overflow(t.ns, k, &r), "time overflow");
  return units::Time{r};
}

/// Power draw of the job's nodes, W.
struct PowerModel {
  double training_w = 0.0;  ///< GPUs at `gpu_utilisation` + node overhead
  double idle_w = 0.0;      ///< GPUs idle (restarts, checkpoint stalls) + node overhead

  explicit PowerModel(const JobInput& in) {
    const double gpus = static_cast<double>(in.gpus);
    const std::int64_t gpn = in.gpus_per_node > 0 ? in.gpus_per_node : 1;
    const double nodes = static_cast<double>((in.gpus + gpn - 1) / gpn);
    const double gpu_sum_per_node = static_cast<double>(gpn) * in.gpu_tdp_w;
    const double overhead_w = in.node_power_w > 0.0 ? std::max(0.0, in.node_power_w - gpu_sum_per_node)
                                                    : kNodeOverheadFraction * gpu_sum_per_node;
    const double idle = in.energy.gpu_idle_fraction;
    const double util = std::clamp(in.gpu_utilisation, 0.0, 1.0);
    training_w = gpus * in.gpu_tdp_w * (idle + (1.0 - idle) * util) + nodes * overhead_w;
    idle_w = gpus * in.gpu_tdp_w * idle + nodes * overhead_w;
  }
};

enum class EventKind { StepsDone, StallEnd, CheckpointDurable, RestartDone, Failure };
enum class Phase { Training, Stall, Restarting, Done };

/// An event; the queue orders by (time, priority, sequence) so ties are deterministic.
struct Event {
  units::Time at;
  int priority = 0;
  std::uint64_t seq = 0;
  EventKind kind = EventKind::StepsDone;
  std::uint64_t epoch = 0;  ///< events of an older epoch were cancelled by a failure
};

struct EventLater {
  bool operator()(const Event& a, const Event& b) const {
    return std::tie(a.at, a.priority, a.seq) > std::tie(b.at, b.priority, b.seq);
  }
};

/// The pending events of one trial, taken earliest first by (time, priority, sequence). A
/// trial has a handful at a time: exactly one failure (the next one: a failure schedules the
/// one after it, nothing cancels one) and at most two events of the current epoch (a macro-step
/// or a stall, and one checkpoint write). The failure is kept apart and the others in a small
/// fixed array, scanned linearly. Events of a cancelled epoch are dropped when the epoch ends
/// (forget_cancelled) rather than popped and skipped later: skipping one has no effect, so the
/// trial is the same event for event.
class EventList {
 public:
  bool empty() const { return n_ == 0 && !has_failure_; }
  void push(const Event& e) {
    if (e.kind == EventKind::Failure) {
      FLOPCAST_ASSERT(!has_failure_, "a trial has one pending failure");
      failure_ = e;
      has_failure_ = true;
      return;
    }
    FLOPCAST_ASSERT(n_ < kMax, "more pending events than a trial can have");
    events_[n_++] = e;
  }
  /// Removes and returns the earliest event. Precondition: !empty().
  Event pop_earliest() {
    std::size_t best = n_;  // n_: the failure
    for (std::size_t i = 0; i < n_; ++i)
      if (best == n_ ? !has_failure_ || EventLater{}(failure_, events_[i]) : EventLater{}(events_[best], events_[i]))
        best = i;
    if (best == n_) {
      has_failure_ = false;
      return failure_;
    }
    const Event e = events_[best];
    events_[best] = events_[--n_];
    return e;
  }
  /// Drops the events that `epoch` cancelled (every non-failure event of an older epoch).
  void forget_cancelled(std::uint64_t epoch) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n_; ++i)
      if (events_[i].epoch == epoch) events_[kept++] = events_[i];
    n_ = kept;
  }

 private:
  static constexpr std::size_t kMax = 4;
  std::array<Event, kMax> events_{};
  std::size_t n_ = 0;
  Event failure_;
  bool has_failure_ = false;
};

/// Priority at equal times: a finished write counts first, then completions, then failures
/// (a failure at the very instant a step ends strikes after it).
int priority_of(EventKind k) {
  switch (k) {
    case EventKind::CheckpointDurable:
      return 0;
    case EventKind::StepsDone:
    case EventKind::StallEnd:
    case EventKind::RestartDone:
      return 1;
    case EventKind::Failure:
      return 2;
  }
  return 2;
}

/// The failure draws of one trial seed: the standard exponentials -ln(1 - U) of Rng(seed), in
/// order, computed once and kept (the first kMaxKept of them). Failures are a Poisson process in
/// absolute time: each gap is drawn when the previous failure strikes, whatever the trial's
/// state, so every trial with this seed (the point and the checked run of a candidate, every
/// candidate of a search, at any step time, checkpoint interval or failure rate) reads the same
/// numbers, and gap i at rate r is draw i / r exactly as Rng::exponential computes it.
class FailureDraws {
 public:
  /// Draws kept per seed; a trial that needs more continues on its own copy of the engine.
  static constexpr std::size_t kMaxKept = 4096;

  explicit FailureDraws(std::uint64_t seed) : rng_(seed) {}
  /// Draw i. Precondition: i < kMaxKept.
  double draw(std::size_t i) {
    FLOPCAST_ASSERT(i < kMaxKept, "failure draw beyond the kept ones");
    while (draws_.size() <= i) draws_.push_back(rng_.standard_exponential());
    return draws_[i];
  }
  /// Gap i at `rate_per_s`: draw i / rate as a Time, as Rng::exponential gives it (a rate <= 0:
  /// the largest Time). The gaps of the last rate asked are kept too (a candidate's point and
  /// checked runs, and candidates of the same GPU count, share the rate). Precondition:
  /// i < kMaxKept.
  units::Time gap(std::size_t i, double rate_per_s) {
    if (rate_per_s != gap_rate_) {
      gap_rate_ = rate_per_s;
      gaps_.clear();
    }
    while (gaps_.size() <= i) {
      const double e = draw(gaps_.size());
      gaps_.push_back(rate_per_s > 0.0 ? units::Time::from_seconds(e / rate_per_s) : units::Time{kNever});
    }
    return gaps_[i];
  }
  /// The engine positioned after the kept draws (draw kMaxKept comes next).
  Rng after_kept() {
    if (draws_.size() < kMaxKept) draw(kMaxKept - 1);
    return rng_;
  }

 private:
  Rng rng_;
  std::vector<double> draws_;
  double gap_rate_ = -1.0;  ///< the rate of gaps_
  std::vector<units::Time> gaps_;
};

/// This thread's draws for `seed`. The kept seeds are forgotten when there are many (a search
/// uses one scenario seed, so a few hundred trial seeds); the reference stays valid until the
/// next call on this thread.
FailureDraws& failure_draws(std::uint64_t seed) {
  constexpr std::size_t kMaxSeeds = 1024;
  thread_local std::unordered_map<std::uint64_t, FailureDraws> cache;
  auto it = cache.find(seed);
  if (it != cache.end()) return it->second;
  if (cache.size() >= kMaxSeeds) cache.clear();
  return cache.emplace(seed, FailureDraws(seed)).first->second;
}

/// One trial. State is explicit; each handler moves it by one event.
class TrialSim {
 public:
  TrialSim(const JobInput& in, std::int64_t k, std::uint64_t seed, bool batch)
      : in_(in),
        k_(std::max<std::int64_t>(1, k)),
        write_(checkpoint_write_time(in)),
        stall_(checkpoint_stall_time(in)),
        rate_per_s_(job_failure_rate_per_s(in)),
        batch_(batch),
        draws_(failure_draws(seed)) {}

  JobTrial run() {
    next_failure_ = next_gap();
    schedule(next_failure_, EventKind::Failure);
    start_macro();
    while (phase_ != Phase::Done) {
      FLOPCAST_ASSERT(!queue_.empty(), "job simulation ran out of events");
      const Event ev = queue_.pop_earliest();
      // forget_cancelled() dropped every event an epoch change cancelled.
      FLOPCAST_ASSERT(ev.kind == EventKind::Failure || ev.epoch == epoch_, "a cancelled event was left pending");
      now_ = ev.at;
      switch (ev.kind) {
        case EventKind::StepsDone:
          on_steps_done();
          break;
        case EventKind::StallEnd:
          on_stall_end();
          break;
        case EventKind::CheckpointDurable:
          on_durable();
          break;
        case EventKind::RestartDone:
          on_restart_done();
          break;
        case EventKind::Failure:
          on_failure();
          break;
      }
    }
    return finish();
  }

 private:
  /// The gap to the next failure: the trial's next draw over the failure rate, as
  /// Rng::exponential would give it from Rng(seed); a rate <= 0 gives the largest Time (never).
  units::Time next_gap() {
    const std::size_t i = draws_used_++;
    if (i < FailureDraws::kMaxKept) return draws_.gap(i, rate_per_s_);
    if (!own_) own_.emplace(draws_.after_kept());
    const double e = own_->standard_exponential();
    if (!(rate_per_s_ > 0.0)) return units::Time{kNever};
    return units::Time::from_seconds(e / rate_per_s_);
  }

  void schedule(units::Time at, EventKind kind) { queue_.push(Event{at, priority_of(kind), seq_++, kind, epoch_}); }

  /// Leaves the current phase (adding its time to its account) and enters `p`.
  void enter(Phase p) {
    const units::Time spent = now_ - phase_start_;
    switch (phase_) {
      case Phase::Training:
        training_ += spent;
        break;
      case Phase::Stall:
        stall_time_ += spent;
        break;
      case Phase::Restarting:
        restart_time_ += spent;
        break;
      case Phase::Done:
        break;
    }
    phase_ = p;
    phase_start_ = now_;
  }

  /// Starts the next macro-step (up to k steps), after jumping over whole failure-free
  /// segments when that is exact.
  void start_macro() {
    if (batch_) jump_segments();
    macro_steps_ = std::min(k_, in_.steps - progress_);
    schedule(now_ + times(in_.step_time, macro_steps_), EventKind::StepsDone);
  }

  /// Jumps over n segments of (k steps + checkpoint) that all end before the next failure.
  /// Sync: each ends with a durable checkpoint. Async: valid when a write fits in k steps, so
  /// no checkpoint is skipped; the last write is still in flight after the jump.
  void jump_segments() {
    const units::Time work = times(in_.step_time, k_);
    const bool async = in_.reliability.async_checkpoint;
    if (async && write_ > work) return;
    const units::Time segment = work + stall_;
    if (segment.ns <= 0) return;
    const std::int64_t with_checkpoint = (in_.steps - progress_ - 1) / k_;
    if (with_checkpoint <= 0) return;
    const units::Time gap = next_failure_ - now_;
    if (gap.ns <= 0) return;
    const std::int64_t n = std::min(with_checkpoint, (gap.ns - 1) / segment.ns);
    if (n <= 0) return;
    enter(Phase::Training);  // flush the time trained so far
    training_ += times(work, n);
    stall_time_ += times(stall_, n);
    progress_ += n * k_;
    now_ += times(segment, n);
    phase_start_ = now_;
    if (!async) {
      durable_ = progress_;
      checkpoints_ += n;
      return;
    }
    // The write in flight before the jump and the writes of segments 1..n-1 have finished;
    // segment n's write is in flight. Cancel the queued completion of the earlier write.
    checkpoints_ += (write_in_flight_ ? 1 : 0) + (n - 1);
    ++epoch_;
    queue_.forget_cancelled(epoch_);
    durable_ = progress_ - k_;
    pending_ = progress_;
    write_in_flight_ = true;
    schedule(now_ + write_, EventKind::CheckpointDurable);
  }

  void on_steps_done() {
    progress_ += macro_steps_;
    if (progress_ >= in_.steps) {
      enter(Phase::Done);
      return;
    }
    if (!in_.reliability.async_checkpoint) {
      enter(Phase::Stall);
      schedule(now_ + write_, EventKind::StallEnd);
      return;
    }
    if (write_in_flight_) {
      ++skipped_;
      start_macro();
      return;
    }
    write_in_flight_ = true;
    pending_ = progress_;
    schedule(now_ + stall_ + write_, EventKind::CheckpointDurable);
    if (stall_.ns > 0) {
      enter(Phase::Stall);
      schedule(now_ + stall_, EventKind::StallEnd);
    } else {
      start_macro();
    }
  }

  void on_stall_end() {
    if (!in_.reliability.async_checkpoint) {
      durable_ = progress_;
      ++checkpoints_;
    }
    enter(Phase::Training);
    start_macro();
  }

  void on_durable() {
    durable_ = pending_;
    write_in_flight_ = false;
    ++checkpoints_;
  }

  void on_failure() {
    ++failures_;
    enter(Phase::Restarting);
    progress_ = durable_;
    write_in_flight_ = false;
    ++epoch_;  // cancels the running macro-step, stall, write, or restart
    queue_.forget_cancelled(epoch_);
    const Event restart{now_ + in_.reliability.restart_time, priority_of(EventKind::RestartDone), seq_++,
                        EventKind::RestartDone, epoch_};
    next_failure_ = sat_add(now_, next_gap());
    schedule(next_failure_, EventKind::Failure);
    // Only the restart and the next failure are pending now. When the restart comes first (at a
    // tie its priority is lower), batching takes it at once: the same handler at the same time,
    // with the same sequence numbers after it, so the same trial without a queue round trip.
    if (batch_ && restart.at <= next_failure_) {
      now_ = restart.at;
      on_restart_done();
      return;
    }
    queue_.push(restart);
  }

  void on_restart_done() {
    enter(Phase::Training);
    start_macro();
  }

  JobTrial finish() const {
    JobTrial t;
    t.gpu_span = now_;
    t.wall = in_.reliability.provisioning + in_.reliability.debug_phase + now_;
    t.training = training_;
    t.lost_work = training_ - times(in_.step_time, in_.steps);
    t.checkpoint_stall = stall_time_;
    t.restart = restart_time_;
    t.failures = failures_;
    t.checkpoints = checkpoints_;
    t.checkpoints_skipped = skipped_;
    const PowerModel power(in_);
    const double joules =
        training_.seconds() * power.training_w + (stall_time_.seconds() + restart_time_.seconds()) * power.idle_w;
    t.it_energy_kwh = joules / kJoulesPerKwh;
    return t;
  }

  const JobInput& in_;
  const std::int64_t k_;
  const units::Time write_;
  const units::Time stall_;
  const double rate_per_s_;
  const bool batch_;
  FailureDraws& draws_;
  std::size_t draws_used_ = 0;  ///< failure gaps drawn so far
  std::optional<Rng> own_;      ///< the draws after the kept ones
  EventList queue_;
  std::uint64_t seq_ = 0;
  std::uint64_t epoch_ = 0;
  units::Time now_;
  Phase phase_ = Phase::Training;
  units::Time phase_start_;
  units::Time next_failure_;
  std::int64_t progress_ = 0;     ///< steps done since the start (rolled back on failure)
  std::int64_t durable_ = 0;      ///< steps protected by the last durable checkpoint
  std::int64_t pending_ = 0;      ///< steps the async write in flight will protect
  std::int64_t macro_steps_ = 0;  ///< steps of the running macro-step
  bool write_in_flight_ = false;
  units::Time training_, stall_time_, restart_time_;
  std::int64_t failures_ = 0, checkpoints_ = 0, skipped_ = 0;
};

/// Index of the nearest-rank p-quantile (p = num/den) of `order` (indices sorted by span).
std::size_t rank_index(std::size_t n, std::size_t num, std::size_t den) {
  const std::size_t rank = (num * n + den - 1) / den;  // ceil(p n), 1-based
  return rank == 0 ? 0 : rank - 1;
}

struct Summary {
  std::vector<JobTrial> samples;
  std::vector<std::size_t> order;  ///< sample indices by gpu_span, ties by index
  double span_mean_s = 0.0;
};

Summary run_trials(const JobInput& in, std::int64_t k, const JobSimOptions& options) {
  Summary s;
  const int trials = std::max(1, in.reliability.trials);
  s.samples.resize(static_cast<std::size_t>(trials));
  // Trials are independent (own seed, own slot): spread them over threads when there are
  // enough to pay for starting them.
  int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::clamp(std::min(threads, trials / 32), 1, 8);
  exec::parallel_for(static_cast<std::size_t>(trials), threads, [&](std::size_t i, int) {
    const std::uint64_t seed = mix_seed(in.reliability.seed, static_cast<std::uint64_t>(i));
    s.samples[i] = TrialSim(in, k, seed, options.batch_segments).run();
  });
  s.order.resize(s.samples.size());
  std::iota(s.order.begin(), s.order.end(), std::size_t{0});
  std::stable_sort(s.order.begin(), s.order.end(),
                   [&](std::size_t a, std::size_t b) { return s.samples[a].gpu_span < s.samples[b].gpu_span; });
  double sum = 0.0;
  for (const auto& t : s.samples) sum += t.gpu_span.seconds();
  s.span_mean_s = sum / static_cast<double>(s.samples.size());
  return s;
}

/// Empty when a run with k steps per checkpoint is simulable, else why not: its closed-form
/// expected span exceeds a century, or its trials would need more than 1e8 failure events.
std::string practically_endless(const JobInput& in, std::int64_t k) {
  const double rate = job_failure_rate_per_s(in);
  const units::Time c = checkpoint_stall_time(in);
  const std::int64_t segments = (in.steps + k - 1) / k;
  const double seg_s = static_cast<double>(std::min(k, in.steps)) * in.step_time.seconds() + c.seconds();
  const double span_s =
      static_cast<double>(segments) * expected_segment_seconds(seg_s, in.reliability.restart_time.seconds(), rate);
  constexpr double kCenturyS = 100.0 * 365.0 * 86400.0;
  const double events = rate * span_s * static_cast<double>(std::max(1, in.reliability.trials));
  if (std::isfinite(span_s) && span_s < kCenturyS && events < 1e8) return {};
  return "checkpoint interval of " + std::to_string(k) + " steps (" +
         units::format_seconds(times(in.step_time, std::min(k, in.steps))) +
         ") is far above the job's mean time between failures: the run would practically never "
         "finish (expected span > 100 years or > 1e8 simulated failures); shorten the interval";
}

}  // namespace

std::vector<std::string> validate_job_input(const JobInput& in) {
  std::vector<std::string> errors;
  auto need = [&](bool ok, const std::string& msg) {
    if (!ok) errors.push_back(msg);
  };
  need(in.step_time.ns > 0, "step_time must be > 0 (got " + std::to_string(in.step_time.ns) + " ns)");
  need(in.steps > 0, "steps must be > 0 (got " + std::to_string(in.steps) + ")");
  need(in.gpus > 0, "gpus must be > 0 (got " + std::to_string(in.gpus) + ")");
  need(in.gpus_per_node > 0, "gpus_per_node must be > 0 (got " + std::to_string(in.gpus_per_node) + ")");
  need(in.params >= 0.0, "params must be >= 0");
  need(in.gpu_tdp_w >= 0.0 && in.node_power_w >= 0.0, "power figures must be >= 0");
  need(in.gpu_utilisation >= 0.0 && in.gpu_utilisation <= 1.0, "gpu_utilisation must be in [0, 1]");
  need(in.energy.pue >= 1.0, "pue must be >= 1");
  need(in.energy.gpu_idle_fraction >= 0.0 && in.energy.gpu_idle_fraction <= 1.0, "gpu_idle_fraction must be in [0, 1]");
  const ReliabilitySpec& r = in.reliability;
  need(r.failures_per_gpu_hour >= 0.0 && std::isfinite(r.failures_per_gpu_hour), "failures_per_gpu_hour must be >= 0");
  need(r.restart_time.ns >= 0, "restart_time must be >= 0");
  need(r.checkpoint_interval.ns >= 0, "checkpoint_interval must be >= 0");
  need(r.storage_write.bytes_per_s >= 0.0, "storage_write must be >= 0");
  need(r.checkpoint_bytes_per_param >= 0.0, "checkpoint_bytes_per_param must be >= 0");
  need(r.async_stall.value_or(units::Time{0}).ns >= 0 && r.provisioning.ns >= 0 && r.debug_phase.ns >= 0,
       "async_stall, provisioning and debug_phase must be >= 0");
  need(in.host_link.bytes_per_s >= 0.0, "host_link must be >= 0");
  need(r.trials >= 1, "trials must be >= 1 (got " + std::to_string(r.trials) + ")");
  // A restart that failures interrupt faster than it completes never ends.
  if (errors.empty()) {
    const double exponent = job_failure_rate_per_s(in) * r.restart_time.seconds();
    need(exponent < 20.0, "failure rate x restart time is too high for a restart ever to finish");
  }
  return errors;
}

units::Bytes checkpoint_size(const JobInput& in) {
  return units::Bytes{in.params * in.reliability.checkpoint_bytes_per_param};
}

units::Time checkpoint_write_time(const JobInput& in) {
  return units::transfer_time(checkpoint_size(in), in.reliability.storage_write);
}

units::Time async_stall_time(const JobInput& in) {
  if (in.reliability.async_stall) return *in.reliability.async_stall;
  if (in.gpus <= 0) return units::Time{0};
  return units::transfer_time(checkpoint_size(in) / static_cast<double>(in.gpus), in.host_link);
}

units::Time checkpoint_stall_time(const JobInput& in) {
  return in.reliability.async_checkpoint ? async_stall_time(in) : checkpoint_write_time(in);
}

double job_failure_rate_per_s(const JobInput& in) {
  return in.reliability.failures_per_gpu_hour * static_cast<double>(in.gpus) / 3600.0;
}

std::int64_t steps_per_checkpoint(units::Time interval, units::Time step_time) {
  if (step_time.ns <= 0) return 1;
  const double k = std::round(static_cast<double>(interval.ns) / static_cast<double>(step_time.ns));
  if (!(k >= 1.0)) return 1;
  if (k > 9.0e18) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(k);
}

namespace {

/// The suggested steps per checkpoint, and whether an async write, longer than Daly's interval,
/// set them.
struct SuggestedInterval {
  std::int64_t steps = 1;
  bool write_bound = false;
};

SuggestedInterval suggest_interval(const JobInput& in) {
  const double rate = job_failure_rate_per_s(in);
  // No failures: checkpoint once, at the end of the run (nothing to protect against).
  if (rate <= 0.0) return {steps_per_checkpoint(times(in.step_time, in.steps), in.step_time), false};
  SuggestedInterval s;
  s.steps = steps_per_checkpoint(daly_interval(checkpoint_stall_time(in), 1.0 / rate), in.step_time);
  if (in.reliability.async_checkpoint && in.step_time.ns > 0) {
    // An async checkpoint protects nothing before its write ends: no point checkpointing
    // faster. Whole steps, rounded up: an interval a fraction of a step shorter than the write
    // skips every other checkpoint (on_steps_done), doubling the work a failure loses.
    const units::Time write = checkpoint_write_time(in);
    const std::int64_t write_steps = write.ns / in.step_time.ns + (write.ns % in.step_time.ns != 0 ? 1 : 0);
    s.write_bound = write_steps > s.steps;
    s.steps = std::max(s.steps, write_steps);
  }
  return s;
}

}  // namespace

std::int64_t suggested_steps_per_checkpoint(const JobInput& in) { return suggest_interval(in).steps; }

JobTrial simulate_trial(const JobInput& in, std::int64_t steps_per_ckpt, std::uint64_t trial_seed,
                        const JobSimOptions& options) {
  return TrialSim(in, steps_per_ckpt, trial_seed, options.batch_segments).run();
}

JobOutcome simulate_job(const JobInput& in, const JobSimOptions& options) {
  JobOutcome out;
  out.errors = validate_job_input(in);
  if (!out.ok()) return out;
  JobResult& res = out.result;
  const ReliabilitySpec& rel = in.reliability;

  res.seed = rel.seed;
  res.step_time = in.step_time;
  res.steps = in.steps;
  res.gpus = in.gpus;
  res.failures_per_gpu_hour = rel.failures_per_gpu_hour;
  res.restart_time = rel.restart_time;
  res.async_checkpoint = rel.async_checkpoint;
  res.provisioning = rel.provisioning;
  res.debug_phase = rel.debug_phase;
  res.checkpoint_size = checkpoint_size(in);
  res.checkpoint_write = checkpoint_write_time(in);
  res.checkpoint_stall = checkpoint_stall_time(in);
  res.useful = times(in.step_time, in.steps);

  // Young/Daly: C is what a checkpoint costs the training (sync write, or the async stall).
  const double rate = job_failure_rate_per_s(in);
  const double mtbf_s = rate > 0.0 ? 1.0 / rate : 0.0;
  CheckpointAdvice& adv = res.advice;
  adv.job_mtbf_hours = mtbf_s / 3600.0;
  adv.checkpoint_cost = res.checkpoint_stall;
  adv.young = young_interval(adv.checkpoint_cost, mtbf_s);
  adv.daly = daly_interval(adv.checkpoint_cost, mtbf_s);
  const SuggestedInterval suggestion = suggest_interval(in);
  const std::int64_t k_suggested = suggestion.steps;
  const std::int64_t k_scenario =
      rel.checkpoint_interval.ns > 0 ? steps_per_checkpoint(rel.checkpoint_interval, in.step_time) : k_suggested;
  adv.suggested = times(in.step_time, std::min(k_suggested, in.steps));
  adv.write_bound = suggestion.write_bound && k_suggested < in.steps;
  adv.scenario = times(in.step_time, std::min(k_scenario, in.steps));
  // Waste: what a checkpoint stalls training (sync write, async snapshot) plus, for async,
  // the write window during which a failure still rolls back to the previous checkpoint.
  const units::Time window = rel.async_checkpoint ? res.checkpoint_write : units::Time{0};
  adv.waste_scenario = waste_fraction(adv.scenario, res.checkpoint_stall, window, rel.restart_time, mtbf_s);
  adv.waste_suggested = waste_fraction(adv.suggested, res.checkpoint_stall, window, rel.restart_time, mtbf_s);

  res.steps_per_checkpoint = k_scenario;
  res.checkpoint_interval = adv.scenario;
  if (rel.async_checkpoint && res.checkpoint_write > times(in.step_time, k_scenario) && k_scenario < in.steps) {
    res.warnings.push_back("checkpoint write (" + units::format_seconds(res.checkpoint_write) +
                           ") is longer than the checkpoint interval (" +
                           units::format_seconds(res.checkpoint_interval) +
                           "): checkpoints are skipped while a write is running");
  }

  // Guard against runs that practically never finish (an interval far above the MTBF makes
  // each segment succeed with probability e^{-lambda L}): refuse instead of spinning.
  for (const std::int64_t k : {k_scenario, k_suggested}) {
    const std::string why = practically_endless(in, k);
    if (!why.empty()) {
      out.errors.push_back(why);
      return out;
    }
  }

  Summary s = run_trials(in, k_scenario, options);
  const std::size_t n = s.samples.size();
  res.trials = static_cast<int>(n);
  res.p50_trial = s.order[rank_index(n, 50, 100)];
  res.p90_trial = s.order[rank_index(n, 90, 100)];
  const JobTrial& p50 = s.samples[res.p50_trial];
  const JobTrial& p90 = s.samples[res.p90_trial];
  res.gpu_span_p50 = p50.gpu_span;
  res.gpu_span_p90 = p90.gpu_span;
  res.wall_p50 = p50.wall;
  res.wall_p90 = p90.wall;

  double wall = 0, goodput = 0, failures = 0, lost = 0, restart = 0, stall = 0, kwh = 0;
  for (const JobTrial& t : s.samples) {
    wall += t.wall.seconds();
    goodput += t.gpu_span.ns > 0 ? res.useful.seconds() / t.gpu_span.seconds() : 1.0;
    failures += static_cast<double>(t.failures);
    lost += t.lost_work.seconds();
    restart += t.restart.seconds();
    stall += t.checkpoint_stall.seconds();
    kwh += t.it_energy_kwh;
  }
  const double dn = static_cast<double>(n);
  const double gpus = static_cast<double>(in.gpus);
  res.gpu_span_mean = units::Time::from_seconds(s.span_mean_s);
  res.wall_mean = units::Time::from_seconds(wall / dn);
  res.gpu_hours_mean = gpus * s.span_mean_s / 3600.0;
  res.gpu_hours_p50 = gpus * res.gpu_span_p50.hours();
  res.gpu_hours_p90 = gpus * res.gpu_span_p90.hours();
  res.goodput_mean = goodput / dn;
  res.failures_mean = failures / dn;
  res.lost_work_mean = units::Time::from_seconds(lost / dn);
  res.restart_mean = units::Time::from_seconds(restart / dn);
  res.checkpoint_stall_mean = units::Time::from_seconds(stall / dn);
  res.gpu_span_expected_closed_form =
      expected_gpu_span_sync(in.step_time, in.steps, k_scenario, res.checkpoint_stall, rel.restart_time, rate);

  EnergyResult& e = res.energy;
  e.pue = in.energy.pue;
  e.it_kwh = kwh / dn;
  e.facility_kwh = e.it_kwh * in.energy.pue;
  e.avg_it_power_kw = s.span_mean_s > 0.0 ? e.it_kwh / (s.span_mean_s / 3600.0) : 0.0;
  // kWh is a physical estimate (a double); the cost is rounded once to the minor unit.
  const double cost_micro = std::round(e.facility_kwh * static_cast<double>(in.energy.price_per_kwh.micro));
  e.cost = units::Money::of_micro(cost_micro < 9.0e18 ? static_cast<std::int64_t>(cost_micro) : 0,
                                  in.energy.price_per_kwh.currency);

  if (k_suggested != k_scenario && options.simulate_advice) {
    const Summary alt = run_trials(in, k_suggested, options);
    adv.simulated = true;
    adv.gpu_span_mean_suggested = units::Time::from_seconds(alt.span_mean_s);
    adv.span_saved = units::Time::from_seconds(s.span_mean_s - alt.span_mean_s);
    adv.gpu_hours_saved = gpus * (s.span_mean_s - alt.span_mean_s) / 3600.0;
  } else if (k_suggested == k_scenario) {
    adv.gpu_span_mean_suggested = res.gpu_span_mean;
  }
  res.samples = std::move(s.samples);
  return out;
}

}  // namespace flopcast::job

#include "fleet_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "flopcast/des/event_queue.hpp"
#include "flopcast/job/rng.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/units/assert.hpp"

namespace flopcast::fleet::detail {

Bins bins_of(const Fleet& fleet) {
  // 360 bins: a 90-day horizon in 6-hour bins, a 30-day one in 2-hour bins (enough points for
  // a plot, few enough for a JSON file).
  constexpr std::int64_t kDefaultBins = 360;
  Bins b;
  b.interval = fleet.sample_interval.ns > 0 ? fleet.sample_interval
                                            : units::Time{std::max<std::int64_t>(1, fleet.horizon.ns / kDefaultBins)};
  b.count = static_cast<std::size_t>((fleet.horizon.ns + b.interval.ns - 1) / b.interval.ns);
  return b;
}

namespace {

constexpr units::Time kNever{std::numeric_limits<std::int64_t>::max()};

/// Uniform in [0, 1) from a 64-bit hash (top 53 bits, as Rng::uniform).
double to_uniform(std::uint64_t x) {
  constexpr double kTwoPowMinus53 = 1.0 / 9007199254740992.0;
  return static_cast<double>(x >> 11) * kTwoPowMinus53;
}

/// Where a job class may run: a variant in a pool.
struct Candidate {
  std::size_t variant = 0;
  std::size_t pool = 0;
  std::int64_t gpus = 0;
};

/// A variant's trials sorted by span, so that one uniform draw per job picks the same
/// quantile on every variant (a re-planned job is as lucky on H800 as on A100), and what-ifs
/// see the same draws as the base case (common random numbers).
struct SortedTrials {
  std::vector<units::Time> spans;
  std::vector<std::int64_t> failures;
};

struct JobState {
  std::size_t cls = 0;
  int priority = 0;
  units::Time arrival;
  std::optional<units::Time> deadline;  // absolute
  double u = 0.0;                       // quantile of the whole-run trial
  double remaining = 1.0;               // fraction of the drawn run still to do
  bool resumed = false;                 // preempted at least once: the next attempt restarts first
  bool running = false;
  bool done = false;
  bool started = false;
  bool unrunnable = false;
  units::Time first_start, finish;
  std::size_t variant = 0, pool = 0;
  std::int64_t gpus = 0;
  units::Time attempt_start, est_end;
  std::uint32_t epoch = 0;
  std::int64_t preemptions = 0;
  std::int64_t failures = 0;
  std::size_t index = 0;
  std::string name;
};

/// Queue order: (key, arrival, job index); key = 0 (FIFO) or -priority.
struct QueueKey {
  std::int64_t key = 0;
  units::Time arrival;
  std::size_t job = 0;
  auto operator<=>(const QueueKey&) const = default;
};

struct Event {
  std::size_t job = 0;
  std::uint32_t epoch = 0;
};
// Completions before arrivals at one instant, so freed GPUs are seen by the arrival's pass.
constexpr std::int32_t kFinishPriority = 0;
constexpr std::int32_t kArrivalPriority = 1;

class Engine {
 public:
  Engine(const Fleet& fleet, std::uint64_t seed_index, const FleetOptions& options)
      : fleet_(fleet), options_(options), bins_(bins_of(fleet)) {
    key_ = job::mix_seed(fleet.seed, seed_index);
    prepare();
  }

  SeedRun run() {
    make_jobs();
    const std::size_t np = fleet_.pools.size();
    out_.busy_gpu_ns.assign(np, std::vector<double>(bins_.count, 0.0));
    out_.queue_ns.assign(bins_.count, 0.0);
    out_.running_ns.assign(bins_.count, 0.0);
    out_.pool_busy_gpu_ns.assign(np, 0.0);
    free_.resize(np);
    running_.resize(np);
    for (std::size_t p = 0; p < np; ++p) free_[p] = fleet_.pools[p].gpus();
    for (std::size_t j = 0; j < jobs_.size(); ++j) queue_events_.push(jobs_[j].arrival, Event{j, 0}, kArrivalPriority);

    const units::Time stop = units::Time{
        fleet_.horizon.ns + static_cast<std::int64_t>(static_cast<double>(fleet_.horizon.ns) * options_.drain_factor)};
    units::Time now{0};
    bool cut = false;
    while (!queue_events_.empty()) {
      now = queue_events_.top().key.at;
      if (now > stop) {
        cut = true;
        break;
      }
      advance(now);
      while (!queue_events_.empty() && queue_events_.top().key.at == now) {
        const auto ev = queue_events_.pop();
        JobState& j = jobs_[ev.payload.job];
        if (ev.key.priority == kFinishPriority) {
          if (!j.running || j.epoch != ev.payload.epoch) continue;  // preempted since
          finish(ev.payload.job, now);
        } else {
          arrive(ev.payload.job);
        }
      }
      schedule(now);
    }
    const units::Time end = cut ? stop : now;
    advance(std::max(end, fleet_.horizon));
    out_.drain_end = end;
    out_.events = queue_events_.popped();
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      JobState& j = jobs_[i];
      if (j.running) out_.attempts.push_back(Attempt{i, j.pool, j.variant, j.gpus, j.attempt_start, end});
      out_.jobs.push_back(record_of(j, stop));
    }
    return std::move(out_);
  }

 private:
  void prepare() {
    const auto& f = fleet_;
    candidates_.resize(f.classes.size());
    trials_.resize(f.classes.size());
    for (std::size_t c = 0; c < f.classes.size(); ++c) {
      const JobClass& jc = f.classes[c];
      for (std::size_t v = 0; v < jc.variants.size(); ++v) {
        const RunProfile& rp = jc.variants[v];
        std::vector<std::size_t> idx(rp.spans.size());
        for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::stable_sort(idx.begin(), idx.end(),
                         [&](std::size_t a, std::size_t b) { return rp.spans[a] < rp.spans[b]; });
        SortedTrials st;
        for (std::size_t i : idx) {
          st.spans.push_back(rp.spans[i]);
          st.failures.push_back(i < rp.failures.size() ? rp.failures[i] : 0);
        }
        trials_[c].push_back(std::move(st));
        if (f.policy.gang && rp.gpus < jc.gpus) continue;  // gang: never fewer GPUs than asked
        const std::string g = pricing::normalize_gpu_name(rp.gpu);
        for (std::size_t p = 0; p < f.pools.size(); ++p) {
          if (pricing::normalize_gpu_name(f.pools[p].gpu) != g || rp.gpus > f.pools[p].gpus()) continue;
          candidates_[c].push_back(Candidate{v, p, rp.gpus});
          min_request_ = std::min(min_request_, rp.gpus);
        }
      }
    }
  }

  void make_jobs() {
    const auto& f = fleet_;
    if (!f.generator) {
      std::vector<std::size_t> order(f.jobs.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return f.jobs[a].arrival < f.jobs[b].arrival; });
      for (std::size_t i : order) {
        const JobSpec& s = f.jobs[i];
        JobState j;
        j.index = i;
        j.name = s.name;
        j.cls = s.job_class;
        j.priority = s.priority;
        j.arrival = s.arrival;
        if (s.deadline) j.deadline = s.arrival + *s.deadline;
        // Draws keyed by the job's list index: reordering the list does not change them.
        j.u = to_uniform(job::mix_seed(key_, 1 + i));
        jobs_.push_back(std::move(j));
      }
      return;
    }
    const StreamGenerator& g = *f.generator;
    job::Rng rng(job::mix_seed(key_, 0));
    double total_weight = 0;
    for (const auto& m : g.mix) total_weight += m.weight;
    const units::Time end = g.end.value_or(f.horizon);
    const double mean_gap_s = 86400.0 / g.rate_per_day;
    std::vector<std::int64_t> per_class(f.classes.size(), 0);
    units::Time t = g.start;
    for (std::int64_t n = 0; g.max_jobs == 0 || n < g.max_jobs; ++n) {
      if (g.process == ArrivalProcess::Poisson)
        t += rng.exponential(1.0 / mean_gap_s);
      else if (n > 0)
        t = g.start + units::Time::from_seconds(mean_gap_s * static_cast<double>(n));
      if (t > end) break;
      double pick = rng.uniform() * total_weight;
      std::size_t m = 0;
      while (m + 1 < g.mix.size() && pick >= g.mix[m].weight) {
        pick -= g.mix[m].weight;
        ++m;
      }
      const MixEntry& me = g.mix[m];
      JobState j;
      j.index = static_cast<std::size_t>(n);
      j.cls = me.job_class;
      j.name = f.classes[me.job_class].name + "#" + std::to_string(++per_class[me.job_class]);
      j.priority = me.priority;
      j.arrival = t;
      if (me.deadline) j.deadline = t + *me.deadline;
      j.u = rng.uniform();
      jobs_.push_back(std::move(j));
    }
  }

  /// Integrates the piecewise-constant state from the last change up to `now` (clipped to the horizon).
  void advance(units::Time now) {
    const units::Time t1 = std::min(now, fleet_.horizon);
    units::Time t0 = last_;
    if (now > last_) last_ = now;
    if (t1 <= t0) return;
    const std::int64_t w = bins_.interval.ns;
    const double q = static_cast<double>(queue_.size());
    const double r = static_cast<double>(running_count_);
    for (std::size_t b = static_cast<std::size_t>(t0.ns / w); b < bins_.count && t0 < t1; ++b) {
      const units::Time bin_end{std::min<std::int64_t>((static_cast<std::int64_t>(b) + 1) * w, t1.ns)};
      const double seg = static_cast<double>((bin_end - t0).ns);
      out_.queue_ns[b] += q * seg;
      out_.running_ns[b] += r * seg;
      for (std::size_t p = 0; p < free_.size(); ++p) {
        const double busy = static_cast<double>(fleet_.pools[p].gpus() - free_[p]) * seg;
        out_.busy_gpu_ns[p][b] += busy;
        out_.pool_busy_gpu_ns[p] += busy;
      }
      t0 = bin_end;
    }
  }

  QueueKey queue_key(std::size_t j) const {
    const JobState& s = jobs_[j];
    return QueueKey{fleet_.policy.order == QueueOrder::Priority ? -static_cast<std::int64_t>(s.priority) : 0, s.arrival,
                    j};
  }

  void arrive(std::size_t j) {
    if (candidates_[jobs_[j].cls].empty()) {
      jobs_[j].unrunnable = true;  // no pool can run it: reported unfinished, never blocks the queue
      return;
    }
    queue_.insert(queue_key(j));
  }

  const SortedTrials& trials(const JobState& j, std::size_t v) const { return trials_[j.cls][v]; }
  std::size_t trial_index(const JobState& j, std::size_t v) const {
    const std::size_t n = trials(j, v).spans.size();
    return std::min(n - 1, static_cast<std::size_t>(j.u * static_cast<double>(n)));
  }
  units::Time scaled(units::Time full, double fraction) const {
    return units::Time::from_seconds(full.seconds() * fraction);
  }
  /// The scheduler's estimate of the job's next attempt on variant v.
  units::Time estimate(const JobState& j, std::size_t v) const {
    const RunProfile& rp = fleet_.classes[j.cls].variants[v];
    return scaled(rp.estimate, j.remaining) + (j.resumed ? rp.restart : units::Time{0});
  }

  void start(std::size_t ji, const Candidate& c, units::Time now) {
    JobState& j = jobs_[ji];
    const RunProfile& rp = fleet_.classes[j.cls].variants[c.variant];
    queue_.erase(queue_key(ji));
    free_[c.pool] -= c.gpus;
    ++running_count_;
    const std::size_t ti = trial_index(j, c.variant);
    const units::Time duration =
        scaled(trials(j, c.variant).spans[ti], j.remaining) + (j.resumed ? rp.restart : units::Time{0});
    j.running = true;
    if (!j.started) {
      j.started = true;
      j.first_start = now;
    }
    j.variant = c.variant;
    j.pool = c.pool;
    j.gpus = c.gpus;
    j.failures = trials(j, c.variant).failures[ti];
    j.attempt_start = now;
    j.est_end = now + estimate(j, c.variant);
    ++j.epoch;
    running_[c.pool].insert({j.est_end, ji});
    queue_events_.push(now + std::max(duration, units::Time{1}), Event{ji, j.epoch}, kFinishPriority);
  }

  void stop_running(std::size_t ji, units::Time now) {
    JobState& j = jobs_[ji];
    running_[j.pool].erase({j.est_end, ji});
    free_[j.pool] += j.gpus;
    --running_count_;
    j.running = false;
    out_.attempts.push_back(Attempt{ji, j.pool, j.variant, j.gpus, j.attempt_start, now});
  }

  void finish(std::size_t ji, units::Time now) {
    stop_running(ji, now);
    jobs_[ji].done = true;
    jobs_[ji].finish = now;
  }

  /// Preempts a running job: it keeps the work of its whole checkpoint intervals and waits again.
  void preempt(std::size_t ji, units::Time now) {
    JobState& j = jobs_[ji];
    const RunProfile& rp = fleet_.classes[j.cls].variants[j.variant];
    const units::Time work = now - j.attempt_start - (j.resumed ? rp.restart : units::Time{0});
    const units::Time span = trials(j, j.variant).spans[trial_index(j, j.variant)];
    if (work.ns > 0 && rp.checkpoint_interval.ns > 0 && span.ns > 0) {
      const units::Time kept{work.ns / rp.checkpoint_interval.ns * rp.checkpoint_interval.ns};
      j.remaining = std::max(0.0, j.remaining - kept.seconds() / span.seconds());
    }
    stop_running(ji, now);
    ++j.epoch;  // the pending finish event is stale
    ++j.preemptions;
    j.resumed = true;
    queue_.insert(queue_key(ji));
  }

  bool try_start(std::size_t ji, units::Time now) {
    for (const Candidate& c : candidates_[jobs_[ji].cls]) {
      if (free_[c.pool] >= c.gpus) {
        start(ji, c, now);
        return true;
      }
    }
    return false;
  }

  /// Frees GPUs for `ji` by preempting strictly lower priority jobs in one pool (lowest
  /// priority first, then the most recently started: they lose the least work).
  bool try_preempt(std::size_t ji, units::Time now) {
    const JobState& head = jobs_[ji];
    for (const Candidate& c : candidates_[head.cls]) {
      std::vector<std::size_t> victims;
      for (const auto& [end, r] : running_[c.pool])
        if (jobs_[r].priority < head.priority) victims.push_back(r);
      std::sort(victims.begin(), victims.end(), [&](std::size_t a, std::size_t b) {
        const JobState& x = jobs_[a];
        const JobState& y = jobs_[b];
        if (x.priority != y.priority) return x.priority < y.priority;
        if (x.attempt_start != y.attempt_start) return x.attempt_start > y.attempt_start;
        return a > b;
      });
      std::int64_t freed = free_[c.pool];
      std::size_t k = 0;
      while (k < victims.size() && freed < c.gpus) freed += jobs_[victims[k++]].gpus;
      if (freed < c.gpus) continue;
      for (std::size_t i = 0; i < k; ++i) preempt(victims[i], now);
      start(ji, c, now);
      return true;
    }
    return false;
  }

  std::int64_t free_total() const {
    std::int64_t s = 0;
    for (auto f : free_) s += f;
    return s;
  }

  void schedule(units::Time now) {
    while (!queue_.empty()) {
      const std::size_t head = queue_.begin()->job;
      if (try_start(head, now)) continue;
      if (fleet_.policy.preemption && try_preempt(head, now)) continue;
      break;
    }
    if (queue_.empty() || fleet_.policy.backfill == Backfill::None) return;
    if (free_total() < min_request_) return;
    // EASY: the head's reservation is the earliest estimated time one of its candidates fits.
    const std::size_t head = queue_.begin()->job;
    units::Time shadow = kNever;
    std::size_t res_pool = 0;
    std::int64_t extra = 0;
    for (const Candidate& c : candidates_[jobs_[head].cls]) {
      std::int64_t fr = free_[c.pool];
      for (const auto& [end, r] : running_[c.pool]) {
        fr += jobs_[r].gpus;
        if (fr >= c.gpus) {
          const units::Time s = std::max(end, now);
          if (s < shadow) {
            shadow = s;
            res_pool = c.pool;
            extra = fr - c.gpus;
          }
          break;
        }
      }
    }
    std::int64_t total_free = free_total();
    for (auto it = std::next(queue_.begin()); it != queue_.end() && total_free >= min_request_;) {
      const std::size_t ji = it->job;
      ++it;  // start() erases ji from the queue
      for (const Candidate& c : candidates_[jobs_[ji].cls]) {
        if (free_[c.pool] < c.gpus) continue;
        bool ok = c.pool != res_pool || shadow == kNever || now + estimate(jobs_[ji], c.variant) <= shadow;
        if (!ok && c.gpus <= extra) {
          extra -= c.gpus;
          ok = true;
        }
        if (ok) {
          start(ji, c, now);
          total_free -= c.gpus;
          break;
        }
      }
    }
  }

  JobRecord record_of(const JobState& j, units::Time end) const {
    JobRecord r;
    r.name = j.name;
    r.index = j.index;
    r.job_class = j.cls;
    r.priority = j.priority;
    r.arrival = j.arrival;
    r.deadline = j.deadline;
    r.started = j.started;
    r.finished = j.done;
    r.started_in_horizon = j.started && j.first_start <= fleet_.horizon;
    r.start = j.first_start;
    r.finish = j.finish;
    // Never started: it waited at least until the simulation stopped (censored).
    r.wait = j.started ? j.first_start - j.arrival : std::max(end, j.arrival) - j.arrival;
    r.censored = !j.started;
    r.run = j.done ? j.finish - j.first_start : units::Time{0};
    r.gpus = j.gpus;
    r.variant = j.variant;
    r.pool = j.started ? fleet_.pools[j.pool].name : std::string{};
    r.preemptions = j.preemptions;
    r.failures = j.failures;
    r.missed_deadline = j.deadline && (!j.done || j.finish > *j.deadline);
    return r;
  }

  const Fleet& fleet_;
  const FleetOptions& options_;
  Bins bins_;
  std::uint64_t key_ = 0;
  std::vector<std::vector<Candidate>> candidates_;
  std::vector<std::vector<SortedTrials>> trials_;
  std::int64_t min_request_ = std::numeric_limits<std::int64_t>::max();
  std::vector<JobState> jobs_;
  std::vector<std::int64_t> free_;
  /// Per pool: running jobs by (estimated end, job).
  std::vector<std::set<std::pair<units::Time, std::size_t>>> running_;
  std::set<QueueKey> queue_;
  std::int64_t running_count_ = 0;
  des::EventQueue<Event> queue_events_;
  units::Time last_{0};
  SeedRun out_;
};

}  // namespace

SeedRun run_seed(const Fleet& fleet, std::uint64_t seed_index, const FleetOptions& options) {
  Engine e(fleet, seed_index, options);
  return e.run();
}

}  // namespace flopcast::fleet::detail

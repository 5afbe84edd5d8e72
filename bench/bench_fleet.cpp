// Prints how fast the fleet engine (core/fleet) simulates: a 90-day horizon with 10,000 jobs on
// 20,000 GPUs (target < 5 s for one seed), with priority order, EASY backfill and gang
// scheduling, then the same for 20 seeds on all cores. Run profiles are synthetic (200 trials
// spread like a whole-run simulation's spans), so the figure is the engine's alone.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

#include "flopcast/fleet/fleet.hpp"

namespace {

using namespace flopcast;
using namespace flopcast::fleet;

/// 200 trials with mean `mean_h` hours: the exponential quantiles folded to +-30% (a whole run's
/// spans vary by failures and restarts, not by orders of magnitude).
RunProfile profile(const std::string& gpu, std::int64_t gpus, double mean_h) {
  RunProfile p;
  p.gpu = gpu;
  p.gpus = gpus;
  const int n = 200;
  for (int i = 0; i < n; ++i) {
    const double q = (i + 0.5) / n;
    p.spans.push_back(units::Time::from_seconds(mean_h * 3600.0 * (0.7 + 0.6 * q)));
    p.failures.push_back(i % 3);
  }
  p.estimate = units::Time::from_seconds(mean_h * 3600.0 * 1.24);  // the P90 span
  p.checkpoint_interval = units::Time::from_seconds(1800);
  p.restart = units::Time::from_seconds(600);
  return p;
}

Pool pool(const std::string& name, const std::string& gpu, std::int64_t nodes) {
  Pool p;
  p.name = name;
  p.gpu = gpu;
  p.nodes = nodes;
  p.kind = PoolKind::Owned;
  p.owned.capex_per_node = units::Money::of_minor(300'000'00, units::Currency::of("USD"));
  p.owned.amortisation = units::Time::from_seconds(4 * 365 * 86400.0);
  p.owned.node_power_kw = 10.2;
  p.owned.price_per_kwh = units::PriceRate::of_micro(80'000, units::Currency::of("USD"));
  return p;
}

/// `overloaded`: the 1,024-GPU H100 jobs run 24 h instead of 10 h, so the H100 pool is asked
/// for ~150% of its capacity and its queue grows to hundreds of jobs (the scheduler's worst case).
Fleet bench_fleet(int seeds, bool overloaded = false) {
  Fleet f;
  f.name = "bench";
  // 2,500 nodes x 8 = 20,000 GPUs.
  f.pools = {pool("a100", "A100-80G", 1000), pool("h100", "H100", 1000), pool("b200", "B200", 500)};
  // Sizes 8..1,024 GPUs, 6-30 h runs: about 65% of the fleet busy over 90 days (A100 59%, H100
  // 69%, B200 67%), with queues behind the 1,024- and 512-GPU jobs.
  struct Tmpl {
    const char* gpu;
    std::int64_t gpus;
    double hours;
    double weight;
    int priority;
  };
  const Tmpl tmpl[] = {{"A100-80G", 8, 12, 2, 0},   {"A100-80G", 64, 20, 2, 0},
                       {"A100-80G", 256, 30, 1, 1}, {"H100", 8, 6, 2, 0},
                       {"H100", 64, 16, 1, 1},      {"H100", 1024, overloaded ? 24.0 : 10.0, 1, 2},
                       {"B200", 64, 10, 0.5, 0},    {"B200", 512, 20, 0.5, 2}};
  StreamGenerator g;
  for (std::size_t i = 0; i < std::size(tmpl); ++i) {
    const Tmpl& t = tmpl[i];
    JobClass c;
    c.name = std::string(t.gpu) + "x" + std::to_string(t.gpus);
    c.gpu = t.gpu;
    c.gpus = t.gpus;
    c.variants.push_back(profile(t.gpu, t.gpus, t.hours));
    f.classes.push_back(c);
    MixEntry m;
    m.job_class = i;
    m.weight = t.weight;
    m.priority = t.priority;
    m.deadline = units::Time::from_seconds(t.hours * 3600.0 * 4);
    g.mix.push_back(m);
  }
  g.rate_per_day = 10000.0 / 90.0;
  g.max_jobs = 10000;
  f.generator = g;
  f.horizon = units::Time::from_seconds(90 * 86400.0);
  f.seeds = seeds;
  f.policy.order = QueueOrder::Priority;
  f.policy.backfill = Backfill::Easy;
  f.policy.gang = true;
  return f;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main() {
  {
    const Fleet f = bench_fleet(1);
    FleetOptions o;
    o.what_ifs = false;
    const auto t0 = std::chrono::steady_clock::now();
    const FleetResult r = simulate_fleet(f, o);
    const double s = seconds_since(t0);
    std::printf(
        "fleet: 90-day horizon, %llu jobs on 20,000 GPUs (priority + EASY backfill + gang), 1 seed: %.3f s "
        "(target < 5 s), %.0f jobs/s, %.0f events/s\n",
        static_cast<unsigned long long>(r.simulated_jobs), s, static_cast<double>(r.simulated_jobs) / s,
        static_cast<double>(r.events) / s);
    std::printf("  utilisation %.1f%%, wait P50 %.2f h P90 %.2f h, unfinished %.0f\n", r.summary.utilisation * 100,
                r.summary.wait.p50.hours(), r.summary.wait.p90.hours(), r.summary.unfinished);
  }
  {
    const Fleet f = bench_fleet(1, true);
    FleetOptions o;
    o.what_ifs = false;
    const auto t0 = std::chrono::steady_clock::now();
    const FleetResult r = simulate_fleet(f, o);
    const double s = seconds_since(t0);
    std::printf(
        "fleet: same with the H100 pool overloaded (long queue), 1 seed: %.3f s, %.0f jobs/s, utilisation %.1f%%, "
        "wait P90 %.0f h\n",
        s, static_cast<double>(r.simulated_jobs) / s, r.summary.utilisation * 100, r.summary.wait.p90.hours());
  }
  {
    Fleet f = bench_fleet(1);
    f.policy.preemption = true;
    FleetOptions o;
    o.what_ifs = false;
    const auto t0 = std::chrono::steady_clock::now();
    const FleetResult r = simulate_fleet(f, o);
    const double s = seconds_since(t0);
    std::printf("fleet: same with preemption, 1 seed: %.3f s, %.0f jobs/s, %.1f preemptions\n", s,
                static_cast<double>(r.simulated_jobs) / s, r.summary.preemptions);
  }
  {
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const Fleet f = bench_fleet(20);
    FleetOptions o;
    o.what_ifs = false;
    o.threads = threads;
    const auto t0 = std::chrono::steady_clock::now();
    const FleetResult r = simulate_fleet(f, o);
    const double s = seconds_since(t0);
    std::printf("fleet: same, 20 seeds on %d threads: %.3f s, %.0f jobs/s\n", threads, s,
                static_cast<double>(r.simulated_jobs) / s);
  }
  return 0;
}

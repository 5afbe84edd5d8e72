// Prints: the discrete-event engine's events per second on one core (target >= 5e6),
// and the wall time of one simulated step of Llama 3 405B on 16,384 H100 (TP8 PP16 DP128,
// 1F1B, 16 micro-batches per DP rank): simulate_step alone, and the whole `flopcast simulate`
// (load, simulation, whole run, report) run in-process (target <= 100 ms).
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli_context.hpp"
#include "flopcast/des/engine.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/step/step_simulation.hpp"

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// A pipeline-like graph: `streams` in-order streams, each task depending on a task of the
/// neighbouring stream, a third of them sharing one of 8 links.
void engine_bench() {
  using namespace flopcast;
  const int streams = 64, per_stream = 20000;
  std::uint64_t events = 0;
  double run_s = 0, total_s = 0;
  double sink = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = now_s();
    des::Engine e;
    e.reserve(static_cast<std::size_t>(streams) * per_stream, static_cast<std::size_t>(streams) * per_stream);
    std::vector<int> st, links;
    for (int i = 0; i < streams; ++i) st.push_back(e.add_stream());
    for (int i = 0; i < 8; ++i) links.push_back(e.add_link());
    std::vector<des::TaskId> prev(static_cast<std::size_t>(streams), des::kNoTask);
    for (int j = 0; j < per_stream; ++j)
      for (int i = 0; i < streams; ++i) {
        const int link = (i + j) % 3 == 0 ? links[static_cast<std::size_t>(i % 8)] : -1;
        const auto t =
            e.add_task(st[static_cast<std::size_t>(i)], units::Time{1000 + (i * 7919 + j * 104729) % 5000}, link);
        e.add_dependency(t, prev[static_cast<std::size_t>((i + streams - 1) % streams)]);
        prev[static_cast<std::size_t>(i)] = t;
      }
    const double t1 = now_s();
    if (!e.run()) std::fprintf(stderr, "bench_des: graph did not run\n");
    const double t2 = now_s();
    events += e.events();
    run_s += t2 - t1;
    total_s += t2 - t0;
    sink += e.makespan().seconds();
  }
  std::printf(
      "bench_des engine: %llu events in %.3f s of run() = %.2f million events/s on one core "
      "(%.2f million/s including graph construction; makespan checksum %.6f)\n",
      static_cast<unsigned long long>(events), run_s, static_cast<double>(events) / run_s / 1e6,
      static_cast<double>(events) / total_s / 1e6, sink);
}

void step_bench() {
  using namespace flopcast;
  const std::string path = std::string(FLOPCAST_SCENARIOS_DIR) + "/published/llama3-405b-16384xh100.yaml";
  scenario::Diagnostics d;
  const auto cat = io::load_catalog("", d);
  auto s = cat ? io::load_scenario_file(path, *cat, d) : std::nullopt;
  if (!s) {
    std::fprintf(stderr, "%s", d.str().c_str());
    return;
  }
  double t0 = now_s();
  auto r = step::simulate_step(*s, cat->profile);
  const double first = now_s() - t0;
  const int n = 20;
  t0 = now_s();
  for (int i = 0; i < n; ++i) r = step::simulate_step(*s, cat->profile);
  const double warm = (now_s() - t0) / n;
  std::printf(
      "bench_des step: Llama 3 405B, 16384 H100, tp8 pp16 dp128, 1F1B, %lld micro-batches: step %.3f s "
      "(closed form %.3f s), %llu events, %zu slices; simulate_step %.2f ms first call (builds the cluster's "
      "NCCL model), %.3f ms warm\n",
      static_cast<long long>(s->plan.microbatches()), r.step.seconds(), r.estimate.step.seconds(),
      static_cast<unsigned long long>(r.events), r.timeline.size(), first * 1e3, warm * 1e3);

  // The whole command, in-process, as a fresh invocation would run it (catalog load included).
  std::vector<const char*> argv{"flopcast", "simulate", path.c_str()};
  double best = 1e9, sum = 0;
  const int runs = 5;
  for (int i = 0; i < runs; ++i) {
    std::ostringstream out, err;
    t0 = now_s();
    const int code = flopcast::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    const double dt = now_s() - t0;
    if (code != 0 && code != 5) std::fprintf(stderr, "bench_des: simulate exited %d: %s\n", code, err.str().c_str());
    best = std::min(best, dt);
    sum += dt;
  }
  std::printf(
      "bench_des simulate: `flopcast simulate %s` in-process: %.1f ms best, %.1f ms mean of %d "
      "(load + simulation + whole run + report)\n",
      "scenarios/published/llama3-405b-16384xh100.yaml", best * 1e3, sum / runs * 1e3, runs);
}

}  // namespace

int main() {
  engine_bench();
  step_bench();
  return 0;
}

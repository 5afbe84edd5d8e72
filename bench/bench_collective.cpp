// Collective-cost queries per second (target: >= 1,000,000 per core with caching).
// Prints figures only; CI runs it without asserting on time.
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "../tests/support/fixtures.hpp"
#include "flopcast/comm/comm_model.hpp"

using namespace flopcast;

namespace {

// H100 SXM (GK-H100, NCCL topo.h) on DGX H100 nodes with 8 x NDR 400G (NV-BASEPOD), 2:1 spine.
hardware::GpuSpec h100() { return fixtures::h100_nvlink(); }
hardware::FabricSpec dgx_h100() { return fixtures::node8(400.0, 8, 2.0); }

struct Query {
  comm::Collective op;
  topology::GroupShape group;
  std::int64_t concurrent;
};

// The mix a planner asks for on a 1,024-GPU cluster: TP, CP, EP, DP and PP communicators.
std::vector<Query> planner_mix() {
  return {
      {comm::Collective::AllReduce, {8, 8, 1}, 128},  // TP 8
      {comm::Collective::AllGather, {4, 4, 1}, 256},  // TP 4 (sequence parallel)
      {comm::Collective::ReduceScatter, {4, 4, 1}, 256}, {comm::Collective::AllToAll, {16, 8, 1}, 64},  // EP 16
      {comm::Collective::AllReduce, {64, 1, 1}, 16},  // DP 64 under TP 8 x PP 2
      {comm::Collective::ReduceScatter, {128, 1, 1}, 8}, {comm::Collective::AllGather, {32, 1, 2}, 32},  // DP with CP 2
      {comm::Collective::SendRecv, {2, 1, 8}, 512},  // PP neighbours
  };
}

double run(const comm::CommModel& m, const std::vector<Query>& qs, long iterations, double& sink) {
  const auto t0 = std::chrono::steady_clock::now();
  double bytes = 4096.0;
  for (long i = 0; i < iterations; ++i) {
    const Query& q = qs[static_cast<std::size_t>(i) % qs.size()];
    bytes = bytes > 4e9 ? 4096.0 : bytes * 1.37;  // sweep sizes 4 KiB .. 4 GB
    sink += m.cost(q.op, q.group, units::Bytes{bytes}, q.concurrent).time.us();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(iterations) / s;
}

}  // namespace

int main() {
  const auto qs = planner_mix();
  const auto build0 = std::chrono::steady_clock::now();
  const comm::CommModel m(h100(), dgx_h100(), 1024);
  const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - build0).count();

  // First touch of each (collective, shape, concurrency): routes and fair shares computed.
  double sink = 0.0;
  const auto warm0 = std::chrono::steady_clock::now();
  for (const Query& q : qs) sink += m.cost(q.op, q.group, units::Bytes{1e6}, q.concurrent).time.us();
  const double warm_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warm0).count();

  const long iterations = 4'000'000;
  const double one_core = run(m, qs, iterations, sink);

  const unsigned threads = std::max(2u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<double> rates(threads, 0.0);
  std::vector<double> sinks(threads, 0.0);
  std::vector<std::thread> pool;
  const auto p0 = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&, t] { rates[t] = run(m, qs, iterations / 4, sinks[t]); });
  for (auto& th : pool) th.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
  const double total = static_cast<double>(threads) * static_cast<double>(iterations / 4) / wall;

  std::printf("bench_collective (%s)\n", comm::nccl::kVersion);
  std::printf("  cluster: 1024 x H100, 8 x NDR per node, 2:1 spine; %zu query shapes\n", qs.size());
  std::printf("  graph build:                 %10.2f ms\n", build_ms);
  std::printf("  first query of each shape:   %10.2f ms total (%zu cache entries)\n", warm_ms, m.cache_size());
  std::printf("  cached queries, 1 thread:    %10.3g per second\n", one_core);
  std::printf("  cached queries, %u threads:   %10.3g per second (%.3g per thread)\n", threads, total, total / threads);
  std::printf("  (checksum %.6g)\n", sink + sinks[0]);
  return 0;
}

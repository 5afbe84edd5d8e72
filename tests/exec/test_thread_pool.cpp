// flopcast/exec/thread_pool.hpp: the one way flopcast spreads work over threads.
#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "flopcast/exec/thread_pool.hpp"

using namespace flopcast;

TEST_CASE("parallel_for calls every index exactly once, whatever the worker count") {
  for (const int workers : {0, 1, 3, 8}) {
    std::vector<std::atomic<int>> calls(1000);
    exec::parallel_for(calls.size(), workers, [&](std::size_t i, int) { ++calls[i]; });
    int wrong = 0;
    for (const auto& c : calls) wrong += c.load() != 1;
    CHECK_MESSAGE(wrong == 0, workers << " workers");
  }
}

TEST_CASE("parallel_for names each call's worker, 0 .. workers-1, worker 0 on the calling thread") {
  std::mutex mu;
  std::set<int> seen;
  std::set<std::thread::id> on_zero;
  exec::parallel_for(64, 4, [&](std::size_t, int w) {
    std::lock_guard lk(mu);
    seen.insert(w);
    if (w == 0) on_zero.insert(std::this_thread::get_id());
  });
  CHECK(*seen.begin() >= 0);
  CHECK(*seen.rbegin() <= 3);
  if (!on_zero.empty()) CHECK(*on_zero.begin() == std::this_thread::get_id());
}

TEST_CASE("a set cancel flag stops parallel_for from claiming more indices") {
  std::atomic<bool> cancel{false};
  std::atomic<int> calls{0};
  exec::parallel_for(
      10'000, 1,
      [&](std::size_t i, int) {
        ++calls;
        if (i == 9) cancel = true;
      },
      &cancel);
  CHECK(calls.load() == 10);  // one worker: indices 0..9, then it sees the flag
}

TEST_CASE("run_workers runs each worker once, and WorkerThreads joins before it is gone") {
  std::vector<std::atomic<int>> ran(5);
  exec::run_workers(5, [&](int w) { ++ran[static_cast<std::size_t>(w)]; });
  for (const auto& r : ran) CHECK(r.load() == 1);
  std::atomic<int> done{0};
  {
    exec::WorkerThreads threads(3, [&](int) { ++done; });
  }
  CHECK(done.load() == 3);
}

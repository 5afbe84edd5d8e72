#pragma once
/// The one way flopcast runs work on several threads: the plan search, the whole-run Monte
/// Carlo, the fleet's seeds and the sweep's points. Work is claimed in increasing index order
/// and every result goes to its own slot, so results never depend on the thread count.
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace flopcast::exec {

/// Runs body(worker) for worker 0 .. workers-1, worker 0 on the calling thread and the others
/// on threads of their own; returns when every one has returned. workers <= 1 runs body(0)
/// alone, on the calling thread.
void run_workers(int workers, const std::function<void(int worker)>& body);

/// Calls body(i, worker) once for every i in [0, count) on up to `workers` threads
/// (run_workers), each worker claiming the next unclaimed index. When `cancel` is set (by
/// another thread) the workers claim no more indices and parallel_for returns once the
/// indices already claimed are done.
void parallel_for(std::size_t count, int workers, const std::function<void(std::size_t i, int worker)>& body,
                  const std::atomic<bool>* cancel = nullptr);

/// Threads started at construction, each running body(worker) for worker 0 .. n-1, for a
/// caller that does its own work meanwhile (the sweep's writer); joined by join() or the
/// destructor. Not copyable.
class WorkerThreads {
 public:
  WorkerThreads(int n, const std::function<void(int worker)>& body);
  ~WorkerThreads();
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  /// Waits for every thread to return (once; later calls return at once).
  void join();

 private:
  std::vector<std::thread> threads_;
};

}  // namespace flopcast::exec

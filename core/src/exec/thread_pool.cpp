#include "flopcast/exec/thread_pool.hpp"

namespace flopcast::exec {

WorkerThreads::WorkerThreads(int n, const std::function<void(int worker)>& body) {
  threads_.reserve(static_cast<std::size_t>(n > 0 ? n : 0));
  for (int w = 0; w < n; ++w) threads_.emplace_back(body, w);
}

WorkerThreads::~WorkerThreads() { join(); }

void WorkerThreads::join() {
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void run_workers(int workers, const std::function<void(int worker)>& body) {
  if (workers <= 1) {
    body(0);
    return;
  }
  // Workers 1 .. n-1 on their own threads, worker 0 here; the others are joined on the way out.
  WorkerThreads others(workers - 1, [&body](int w) { body(w + 1); });
  body(0);
  others.join();
}

void parallel_for(std::size_t count, int workers, const std::function<void(std::size_t i, int worker)>& body,
                  const std::atomic<bool>* cancel) {
  std::atomic<std::size_t> next{0};
  run_workers(workers, [&](int worker) {
    for (;;) {
      if (cancel && cancel->load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= count) return;
      body(i, worker);
    }
  });
}

}  // namespace flopcast::exec

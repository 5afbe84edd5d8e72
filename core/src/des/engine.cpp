#include "flopcast/des/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "flopcast/units/assert.hpp"

namespace flopcast::des {
namespace {

/// now + d, saturating at the largest time (absurd inputs must not wrap into the past).
units::Time later(units::Time now, double d_ns) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  const double v = static_cast<double>(now.ns) + std::ceil(d_ns);
  return v >= 9.2e18 ? units::Time{kMax} : units::Time{static_cast<std::int64_t>(v)};
}

template <class T>
void take(std::vector<T>& into, std::vector<T>& from) {
  into.swap(from);
  into.clear();
}

template <class T>
void give(std::vector<T>& from, std::vector<T>& into) {
  if (from.capacity() > into.capacity()) into.swap(from);
}

}  // namespace

/// The working arrays an engine leaves to the next one on its thread (their capacity; the
/// contents are cleared before use).
struct Engine::Spare {
  std::vector<Task> tasks;
  std::vector<std::pair<TaskId, TaskId>> edges;
  std::vector<std::int32_t> succ_begin, succ;
  std::vector<TaskId> unstreamed;
  std::vector<EventQueue<Event>::Event> heap;

  static Spare& of_this_thread() {
    thread_local Spare s;
    return s;
  }
};

Engine::Engine() {
  Spare& s = Spare::of_this_thread();
  take(tasks_, s.tasks);
  take(edges_, s.edges);
  take(succ_begin_, s.succ_begin);
  take(succ_, s.succ);
  take(unstreamed_, s.unstreamed);
  queue_.swap_storage(s.heap);
}

Engine::~Engine() {
  Spare& s = Spare::of_this_thread();
  give(tasks_, s.tasks);
  give(edges_, s.edges);
  give(succ_begin_, s.succ_begin);
  give(succ_, s.succ);
  give(unstreamed_, s.unstreamed);
  if (queue_.capacity() > s.heap.capacity()) queue_.swap_storage(s.heap);
}

int Engine::add_stream() {
  streams_.emplace_back();
  return static_cast<int>(streams_.size()) - 1;
}

int Engine::add_link() {
  links_.emplace_back();
  return static_cast<int>(links_.size()) - 1;
}

TaskId Engine::add_task(int stream, units::Time duration, int link) {
  Task t;
  t.duration = duration.ns > 0 ? duration : units::Time{0};
  t.stream = stream;
  t.link = link;
  tasks_.push_back(t);
  const auto id = static_cast<TaskId>(tasks_.size() - 1);
  if (stream < 0) unstreamed_.push_back(id);
  if (stream >= 0) {
    Stream& s = streams_[static_cast<std::size_t>(stream)];
    if (s.tail == kNoTask)
      s.head = id;
    else
      tasks_[static_cast<std::size_t>(s.tail)].next = id;
    s.tail = id;
  }
  return id;
}

void Engine::add_dependency(TaskId task, TaskId before) {
  if (task < 0 || before < 0 || task == before) return;
  FLOPCAST_ASSERT(static_cast<std::size_t>(std::max(task, before)) < tasks_.size(),
                  "a dependency names a task not added yet");
  edges_.emplace_back(before, task);
  // Counted here, while the task (usually the one just added) is in the cache: counting in
  // run() visits a step's megabytes of tasks once more, out of order.
  ++tasks_[static_cast<std::size_t>(task)].pending;
}

void Engine::reserve(std::size_t tasks, std::size_t edges) {
  tasks_.reserve(tasks);
  edges_.reserve(edges);
}

void Engine::link_advance(Link& l, units::Time now) {
  if (!l.active.empty()) l.v += static_cast<double>(now.ns - l.t_last.ns) / static_cast<double>(l.active.size());
  l.t_last = now;
}

void Engine::link_schedule(int link, units::Time now) {
  Link& l = links_[static_cast<std::size_t>(link)];
  ++l.gen;
  if (l.active.empty()) return;
  double vmin = l.active.front().v_finish;
  for (const auto& a : l.active) vmin = std::min(vmin, a.v_finish);
  const double wait = std::max(0.0, (vmin - l.v) * static_cast<double>(l.active.size()));
  queue_.push(later(now, wait - 1e-6), Event{~link, l.gen});
}

void Engine::begin(TaskId id, units::Time now) {
  Task& t = tasks_[static_cast<std::size_t>(id)];
  t.start = now;
  // What finish() will read of other tasks (the stream's next task, the successors): fetched
  // into the cache while this one runs (a step's tasks are megabytes, visited out of order).
  if (t.next != kNoTask) __builtin_prefetch(&tasks_[static_cast<std::size_t>(t.next)]);
  const auto first = static_cast<std::size_t>(succ_begin_[static_cast<std::size_t>(id)]);
  const auto last = std::min(first + 4, static_cast<std::size_t>(succ_begin_[static_cast<std::size_t>(id) + 1]));
  for (std::size_t k = first; k < last; ++k) __builtin_prefetch(&tasks_[static_cast<std::size_t>(succ_[k])]);
  // The binding predecessor: the later of the last dependency and the stream predecessor.
  t.binding = t.ready_by;
  if (t.stream >= 0) {
    Stream& s = streams_[static_cast<std::size_t>(t.stream)];
    s.busy = true;
    if (s.last != kNoTask && (t.ready_by == kNoTask || tasks_[static_cast<std::size_t>(s.last)].end > t.ready))
      t.binding = s.last;
  }
  if (t.link >= 0 && t.duration.ns > 0) {
    Link& l = links_[static_cast<std::size_t>(t.link)];
    link_advance(l, now);
    l.active.push_back({id, l.v + static_cast<double>(t.duration.ns)});
    link_schedule(t.link, now);
  } else {
    queue_.push(later(now, static_cast<double>(t.duration.ns)), Event{id, 0});
  }
}

void Engine::try_start(int stream, units::Time now) {
  Stream& s = streams_[static_cast<std::size_t>(stream)];
  if (s.busy || s.head == kNoTask) return;
  const TaskId head = s.head;
  const Task& t = tasks_[static_cast<std::size_t>(head)];
  if (t.pending > 0) return;
  s.head = t.next;
  begin(head, now);
}

void Engine::finish(TaskId id, units::Time now) {
  Task& t = tasks_[static_cast<std::size_t>(id)];
  t.end = now;
  ++finished_;
  makespan_ = std::max(makespan_, now);
  for (auto k = succ_begin_[static_cast<std::size_t>(id)]; k < succ_begin_[static_cast<std::size_t>(id) + 1]; ++k) {
    const TaskId n = succ_[static_cast<std::size_t>(k)];
    Task& nt = tasks_[static_cast<std::size_t>(n)];
    nt.ready = now;
    nt.ready_by = id;
    if (--nt.pending == 0) {
      if (nt.stream >= 0)
        try_start(nt.stream, now);
      else
        begin(n, now);
    }
  }
  if (t.stream >= 0) {
    Stream& s = streams_[static_cast<std::size_t>(t.stream)];
    s.busy = false;
    s.last = id;
    try_start(t.stream, now);
  }
}

bool Engine::run() {
  const std::size_t n = tasks_.size();
  succ_begin_.assign(n + 1, 0);
  for (const auto& [b, a] : edges_) ++succ_begin_[static_cast<std::size_t>(b) + 1];
  for (std::size_t i = 0; i < n; ++i) succ_begin_[i + 1] += succ_begin_[i];
  succ_.assign(edges_.size(), kNoTask);
  {
    // Fill cursors: succ_begin_[b] counts up while b's successors are written, then is shifted
    // back (succ_begin_[b] = the end of b - 1's = the old start of b).
    for (const auto& [b, a] : edges_) succ_[static_cast<std::size_t>(succ_begin_[static_cast<std::size_t>(b)]++)] = a;
    for (std::size_t i = n; i > 0; --i) succ_begin_[i] = succ_begin_[i - 1];
    succ_begin_[0] = 0;
  }
  events_ = 0;
  finished_ = 0;
  makespan_ = units::Time{0};
  const units::Time zero{0};
  for (const TaskId t : unstreamed_)
    if (tasks_[static_cast<std::size_t>(t)].pending == 0) begin(t, zero);
  for (std::size_t s = 0; s < streams_.size(); ++s) try_start(static_cast<int>(s), zero);
  std::vector<TaskId> done;
  while (!queue_.empty()) {
    const auto popped = queue_.pop();
    const Event e = popped.payload;
    ++events_;
    const units::Time now = popped.key.at;
    if (e.id >= 0) {
      finish(e.id, now);
      continue;
    }
    const int link = ~e.id;
    Link& l = links_[static_cast<std::size_t>(link)];
    if (e.gen != l.gen) continue;  // superseded by a later join or leave
    link_advance(l, now);
    done.clear();
    // Within half a nanosecond of done counts as done (the event time was rounded up).
    const double eps = 0.5 / std::max<double>(1.0, static_cast<double>(l.active.size()));
    for (const auto& a : l.active)
      if (a.v_finish <= l.v + eps) done.push_back(a.task);
    std::erase_if(l.active, [&](const Active& a) { return a.v_finish <= l.v + eps; });
    link_schedule(link, now);
    for (const TaskId t : done) finish(t, now);
  }
  // Every task finishes once; one left unfinished was blocked (a cycle or a contradicting stream order).
  return finished_ == n;
}

}  // namespace flopcast::des

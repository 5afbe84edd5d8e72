#pragma once
/// A small discrete-event engine for task graphs: tasks with durations run on in-order
/// streams (a GPU's compute stream, its communication streams), after their dependencies,
/// and optionally on a shared link whose concurrent transfers share it fairly.
///
/// Streams behave like CUDA streams: their tasks start strictly in the order they were added
/// to the stream, each when the previous one on the stream has finished and its own
/// dependencies have. A task on a link progresses at 1/k of its standalone speed while k
/// tasks are active on that link (processor sharing: equal shares of a saturated NIC or
/// NVLink), so a transfer alone takes its standalone duration and two overlapping ones take
/// twice as long each while they overlap.
///
/// Deterministic: the event queue breaks ties by priority and insertion order, and nothing
/// depends on addresses or threads.
#include <cstdint>
#include <vector>

#include "flopcast/des/event_queue.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::des {

using TaskId = std::int32_t;
constexpr TaskId kNoTask = -1;

class Engine {
 public:
  /// An empty engine. Its working arrays come from the ones the last engine on this thread
  /// left (a step simulation builds one engine of 10^4..10^5 tasks after another: fresh arrays
  /// of that size cost more in page faults and regrowth than the run).
  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// A new in-order stream; returns its id.
  int add_stream();
  /// A new fairly shared link; returns its id.
  int add_link();
  /// A task of `duration` (standalone) appended to `stream` (-1: no stream, starts when its
  /// dependencies are done), sharing `link` (-1: none) while it runs.
  TaskId add_task(int stream, units::Time duration, int link = -1);
  /// `task` starts only after `before` has finished. Both are tasks already added (a negative
  /// id, or the same task twice, adds nothing).
  void add_dependency(TaskId task, TaskId before);
  /// Reserves room for `tasks` tasks and `edges` dependencies (optional).
  void reserve(std::size_t tasks, std::size_t edges);

  /// Runs every task, once per engine. Returns false when some task could not run (a dependency
  /// cycle or a stream order that contradicts the dependencies); those tasks keep start = end = -1.
  bool run();

  std::size_t tasks() const { return tasks_.size(); }
  units::Time start(TaskId t) const { return tasks_[static_cast<std::size_t>(t)].start; }
  units::Time end(TaskId t) const { return tasks_[static_cast<std::size_t>(t)].end; }
  int stream_of(TaskId t) const { return tasks_[static_cast<std::size_t>(t)].stream; }
  /// The task whose finish let `t` start (its latest dependency or its stream predecessor,
  /// whichever finished later); kNoTask for tasks that started at time 0 unconstrained.
  TaskId binding(TaskId t) const { return tasks_[static_cast<std::size_t>(t)].binding; }
  /// The end of the last task.
  units::Time makespan() const { return makespan_; }
  /// Events processed by the last run.
  std::uint64_t events() const { return events_; }

 private:
  struct Task {
    units::Time duration;
    units::Time start{-1};
    units::Time end{-1};
    units::Time ready{0};  ///< when its last dependency finished
    int stream = -1;
    int link = -1;
    std::int32_t pending = 0;  ///< unfinished dependencies
    TaskId binding = kNoTask;
    TaskId ready_by = kNoTask;  ///< the dependency that finished last
    TaskId next = kNoTask;      ///< the task after it on its stream
  };
  /// A stream's tasks are a list through Task::next, in the order they were added.
  struct Stream {
    TaskId head = kNoTask;  ///< the next task to start
    TaskId tail = kNoTask;  ///< the last task added
    bool busy = false;
    TaskId last = kNoTask;
  };
  struct Active {
    TaskId task;
    double v_finish;  ///< link virtual time at which it is done
  };
  struct Link {
    std::vector<Active> active;
    double v = 0;  ///< work (standalone ns) each active task has received so far
    units::Time t_last{0};
    std::uint32_t gen = 0;
  };
  /// A pending event's payload: a task's finish (id >= 0) or a check of link ~id (id < 0).
  struct Event {
    std::int32_t id;
    std::uint32_t gen;
  };

  struct Spare;  // the arrays engines leave to the next one on their thread (engine.cpp)

  void try_start(int stream, units::Time now);
  void begin(TaskId t, units::Time now);
  void finish(TaskId t, units::Time now);
  void link_advance(Link& l, units::Time now);
  void link_schedule(int link, units::Time now);

  std::vector<Task> tasks_;
  std::vector<Stream> streams_;
  std::vector<Link> links_;
  std::vector<std::pair<TaskId, TaskId>> edges_;  ///< (before, after)
  std::vector<std::int32_t> succ_begin_;
  std::vector<TaskId> succ_;
  std::vector<TaskId> unstreamed_;  ///< the tasks on no stream, in id order
  EventQueue<Event> queue_;
  units::Time makespan_{0};
  std::uint64_t events_ = 0;
  std::size_t finished_ = 0;  ///< tasks finished by run()
};

}  // namespace flopcast::des

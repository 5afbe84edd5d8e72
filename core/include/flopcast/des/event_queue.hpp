#pragma once
/// The discrete-event core shared by the step simulation (core/step) and the fleet
/// simulation (core/fleet): a queue of events keyed by (time, priority, sequence).
///
/// Time is int64 nanoseconds (units/units.hpp), so event order never depends on floating
/// point rounding. Ties at one instant are broken by `priority` (lower first) and then by
/// insertion sequence, so two runs of one simulation pop events in the same order on every
/// machine and thread count. Insertion and removal are O(log n) (a binary heap).
#include <cstdint>
#include <queue>
#include <vector>

#include "flopcast/units/units.hpp"

namespace flopcast::des {

/// Orders events: time, then priority, then sequence (FIFO among equals).
struct EventKey {
  Time at;
  std::int32_t priority = 0;
  std::uint64_t seq = 0;
  constexpr auto operator<=>(const EventKey&) const = default;
};

/// A min-queue of payloads of type T keyed by EventKey. T is a small value (an index or a
/// tagged struct); the simulation owns whatever it refers to.
template <class T>
class EventQueue {
 public:
  struct Event {
    EventKey key;
    T payload;
  };

  /// Schedules `payload` at `at`. Events in the past of the last popped event are refused
  /// by the caller's contract (simulations never schedule backwards); this is checked in
  /// debug builds by the owner, not here, to keep push branch-free.
  void push(Time at, T payload, std::int32_t priority = 0) {
    heap_.push(Event{EventKey{at, priority, next_seq_++}, std::move(payload)});
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.top(); }
  /// Removes and returns the earliest event.
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    ++popped_;
    return e;
  }
  /// Events popped so far (for the engine's events-per-second benchmark).
  std::uint64_t popped() const { return popped_; }
  /// Events pushed so far.
  std::uint64_t pushed() const { return next_seq_; }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return b.key < a.key; }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_seq_ = 0;
  std::uint64_t popped_ = 0;
};

}  // namespace flopcast::des

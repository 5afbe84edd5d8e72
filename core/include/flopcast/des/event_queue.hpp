#pragma once
/// The discrete-event core shared by the step simulation (core/step) and the fleet
/// simulation (core/fleet): a queue of events keyed by (time, priority, sequence).
///
/// Time is int64 nanoseconds (units/units.hpp), so event order never depends on floating
/// point rounding. Ties at one instant are broken by `priority` (lower first) and then by
/// insertion sequence, so two runs of one simulation pop events in the same order on every
/// machine and thread count. Insertion and removal are O(log n) (a binary heap).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "flopcast/units/units.hpp"

namespace flopcast::des {

/// Orders events: time, then priority, then sequence (FIFO among equals).
struct EventKey {
  units::Time at;
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
  void push(units::Time at, T payload, std::int32_t priority = 0) {
    heap_.push_back(Event{EventKey{at, priority, next_seq_++}, std::move(payload)});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  /// Removes and returns the earliest event.
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Event e = std::move(heap_.back());
    heap_.pop_back();
    ++popped_;
    return e;
  }
  /// The events the heap's storage can hold without growing.
  std::size_t capacity() const { return heap_.capacity(); }
  /// Exchanges the heap's storage with `spare` and empties it, for a simulation that hands its
  /// grown storage to the next one instead of growing a fresh heap (des::Engine). The queue's
  /// events are dropped; its sequence and pop counts go on.
  void swap_storage(std::vector<Event>& spare) {
    heap_.swap(spare);
    heap_.clear();
  }
  /// Events popped so far (for the engine's events-per-second benchmark).
  std::uint64_t popped() const { return popped_; }
  /// Events pushed so far.
  std::uint64_t pushed() const { return next_seq_; }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return b.key < a.key; }
  };
  std::vector<Event> heap_;  ///< a binary heap (std::push_heap / pop_heap) by Later
  std::uint64_t next_seq_ = 0;
  std::uint64_t popped_ = 0;
};

}  // namespace flopcast::des

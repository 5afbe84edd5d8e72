#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "flopcast/des/event_queue.hpp"

using flopcast::des::EventQueue;
using flopcast::units::Time;

TEST_CASE("event queue pops by time, then priority, then insertion order") {
  EventQueue<std::string> q;
  q.push(Time::from_ns(20), "t20");
  q.push(Time::from_ns(10), "t10-p1-a", 1);
  q.push(Time::from_ns(10), "t10-p0", 0);
  q.push(Time::from_ns(10), "t10-p1-b", 1);
  q.push(Time::from_ns(5), "t5");
  std::vector<std::string> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  CHECK(order == std::vector<std::string>{"t5", "t10-p0", "t10-p1-a", "t10-p1-b", "t20"});
  CHECK(q.popped() == 5);
  CHECK(q.pushed() == 5);
}

#include <doctest/doctest.h>

#include "flopcast/des/engine.hpp"

using flopcast::des::Engine;
using flopcast::units::Time;

TEST_SUITE("des") {
  TEST_CASE("engine: a stream runs its tasks in order, after their dependencies") {
    Engine e;
    const int s0 = e.add_stream(), s1 = e.add_stream();
    const auto a = e.add_task(s0, Time{100});
    const auto b = e.add_task(s0, Time{50});
    const auto c = e.add_task(s1, Time{10});
    const auto d = e.add_task(s1, Time{5});
    e.add_dependency(c, b);  // c waits for b although s1 is free
    REQUIRE(e.run());
    CHECK(e.start(a).ns == 0);
    CHECK(e.end(a).ns == 100);
    CHECK(e.start(b).ns == 100);
    CHECK(e.end(b).ns == 150);
    CHECK(e.start(c).ns == 150);
    CHECK(e.start(d).ns == 160);  // in-order: d behind c on s1
    CHECK(e.makespan().ns == 165);
    CHECK(e.binding(c) == b);
    CHECK(e.binding(d) == c);
    CHECK(e.binding(a) == flopcast::des::kNoTask);
  }

  TEST_CASE("engine: overlapping transfers share a link fairly") {
    Engine e;
    const int s0 = e.add_stream(), s1 = e.add_stream(), s2 = e.add_stream();
    const int link = e.add_link();
    const auto x = e.add_task(s0, Time{1000}, link);
    const auto y = e.add_task(s1, Time{500}, link);
    const auto z = e.add_task(s2, Time{1000});  // no link: unaffected
    REQUIRE(e.run());
    // Both at half speed until y is done at 1000 (500 of work each), then x alone: 500 more.
    CHECK(e.end(y).ns == 1000);
    CHECK(e.end(x).ns == 1500);
    CHECK(e.end(z).ns == 1000);
  }

  TEST_CASE("engine: a transfer joining later slows only the overlap") {
    Engine e;
    const int s0 = e.add_stream(), s1 = e.add_stream();
    const int link = e.add_link();
    const auto a = e.add_task(s0, Time{1000}, link);
    const auto pre = e.add_task(s1, Time{400});
    const auto b = e.add_task(s1, Time{200}, link);
    REQUIRE(e.run());
    CHECK(e.end(pre).ns == 400);
    // a alone to 400 (400 done), then both at half: b needs 200 of work -> 400 ns, to 800;
    // a has 400 + 200 = 600 done at 800, 400 left alone: ends at 1200.
    CHECK(e.end(b).ns == 800);
    CHECK(e.end(a).ns == 1200);
  }

  TEST_CASE("engine: a dependency cycle is reported, not run") {
    Engine e;
    const int s = e.add_stream();
    const auto a = e.add_task(s, Time{1});
    const auto b = e.add_task(-1, Time{1});
    e.add_dependency(a, b);
    e.add_dependency(b, a);
    CHECK_FALSE(e.run());
    CHECK(e.end(a).ns == -1);
  }

  TEST_CASE("engine: same graph, same event order and times") {
    auto build = [] {
      Engine e;
      const int l = e.add_link();
      std::vector<int> st;
      for (int i = 0; i < 4; ++i) st.push_back(e.add_stream());
      flopcast::des::TaskId prev = flopcast::des::kNoTask;
      for (int i = 0; i < 200; ++i) {
        const auto t = e.add_task(st[static_cast<std::size_t>(i % 4)], Time{(i * 37) % 101 + 1}, i % 3 == 0 ? l : -1);
        if (i % 5 == 0) e.add_dependency(t, prev);
        prev = t;
      }
      REQUIRE(e.run());
      std::vector<std::int64_t> ends;
      for (std::size_t i = 0; i < e.tasks(); ++i) ends.push_back(e.end(static_cast<flopcast::des::TaskId>(i)).ns);
      ends.push_back(static_cast<std::int64_t>(e.events()));
      return ends;
    };
    CHECK(build() == build());
  }
}

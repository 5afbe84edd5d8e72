#include <doctest/doctest.h>

#include "flopcast/topology/fair_share.hpp"

using namespace flopcast;

TEST_CASE("topology: max-min fair share of one link splits it evenly") {
  // Two flows on one 100 B/s link: 50 each.
  const std::vector<Bandwidth> cap{Bandwidth{100.0}};
  const std::vector<NetworkFlow> flows{{{{0, 1.0}}}, {{{0, 1.0}}}};
  const FairShare fs = max_min_fair_share(flows, cap);
  CHECK(fs.rate[0].bytes_per_s == doctest::Approx(50.0));
  CHECK(fs.rate[1].bytes_per_s == doctest::Approx(50.0));
  CHECK(fs.link_load[0].bytes_per_s == doctest::Approx(100.0));
}

TEST_CASE("topology: max-min fair share gives a bottlenecked flow's leftover to the others") {
  // Link A 10, link B 4. f0 on A, f1 on A and B, f2 on B. B is the tighter link: f1 = f2 = 2;
  // then A has 10 - 2 = 8 left for f0 (Bertsekas & Gallager's progressive filling).
  const std::vector<Bandwidth> cap{Bandwidth{10.0}, Bandwidth{4.0}};
  const std::vector<NetworkFlow> flows{{{{0, 1.0}}}, {{{0, 1.0}, {1, 1.0}}}, {{{1, 1.0}}}};
  const FairShare fs = max_min_fair_share(flows, cap);
  CHECK(fs.rate[0].bytes_per_s == doctest::Approx(8.0));
  CHECK(fs.rate[1].bytes_per_s == doctest::Approx(2.0));
  CHECK(fs.rate[2].bytes_per_s == doctest::Approx(2.0));
  CHECK(fs.link_load[0].bytes_per_s == doctest::Approx(10.0));
  CHECK(fs.link_load[1].bytes_per_s == doctest::Approx(4.0));
}

TEST_CASE("topology: a flow that crosses a link twice gets half of it") {
  // A ring of two ranks over one shared link direction (weight 2): 10 / 2 = 5. Repeated uses
  // of the same link are summed.
  const std::vector<Bandwidth> cap{Bandwidth{10.0}, Bandwidth{100.0}};
  const std::vector<NetworkFlow> flows{{{{0, 1.0}, {1, 1.0}, {0, 1.0}}}};
  const FairShare fs = max_min_fair_share(flows, cap);
  CHECK(fs.rate[0].bytes_per_s == doctest::Approx(5.0));
  CHECK(fs.link_load[1].bytes_per_s == doctest::Approx(5.0));
}

TEST_CASE("topology: fractional weights (all-to-all spreading) load links proportionally") {
  // f0 puts 1/2 of its bytes on link 0 (cap 10) and all of them on link 1 (cap 30); f1 only
  // uses link 1. Growing both at rate x: link 0 binds at 0.5x = 10 (x = 20), link 1 at
  // 2x = 30 (x = 15). Link 1 binds first: both flows get 15.
  const std::vector<Bandwidth> cap{Bandwidth{10.0}, Bandwidth{30.0}};
  const std::vector<NetworkFlow> flows{{{{0, 0.5}, {1, 1.0}}}, {{{1, 1.0}}}};
  const FairShare fs = max_min_fair_share(flows, cap);
  CHECK(fs.rate[0].bytes_per_s == doctest::Approx(15.0));
  CHECK(fs.rate[1].bytes_per_s == doctest::Approx(15.0));
}

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "flopcast/topology/fair_share.hpp"

using namespace flopcast;

TEST_CASE("topology: max-min fair share of one link splits it evenly") {
  // Two flows on one 100 B/s link: 50 each.
  const std::vector<units::Bandwidth> cap{units::Bandwidth{100.0}};
  const std::vector<topology::NetworkFlow> flows{{{{0, 1.0}}}, {{{0, 1.0}}}};
  const topology::FairShare fs = topology::max_min_fair_share(flows, cap);
  CHECK(fs.rate[0].bytes_per_s == doctest::Approx(50.0));
  CHECK(fs.rate[1].bytes_per_s == doctest::Approx(50.0));
  CHECK(fs.link_load[0].bytes_per_s == doctest::Approx(100.0));
}

TEST_CASE("topology: max-min fair share gives a bottlenecked flow's leftover to the others") {
  // Link A 10, link B 4. f0 on A, f1 on A and B, f2 on B. B is the tighter link: f1 = f2 = 2;
  // then A has 10 - 2 = 8 left for f0 (Bertsekas & Gallager's progressive filling).
  const std::vector<units::Bandwidth> cap{units::Bandwidth{10.0}, units::Bandwidth{4.0}};
  const std::vector<topology::NetworkFlow> flows{{{{0, 1.0}}}, {{{0, 1.0}, {1, 1.0}}}, {{{1, 1.0}}}};
  const topology::FairShare fs = topology::max_min_fair_share(flows, cap);
  CHECK(fs.rate[0].bytes_per_s == doctest::Approx(8.0));
  CHECK(fs.rate[1].bytes_per_s == doctest::Approx(2.0));
  CHECK(fs.rate[2].bytes_per_s == doctest::Approx(2.0));
  CHECK(fs.link_load[0].bytes_per_s == doctest::Approx(10.0));
  CHECK(fs.link_load[1].bytes_per_s == doctest::Approx(4.0));
}

TEST_CASE("topology: a flow that crosses a link twice gets half of it") {
  // A ring of two ranks over one shared link direction (weight 2): 10 / 2 = 5. Repeated uses
  // of the same link are summed.
  const std::vector<units::Bandwidth> cap{units::Bandwidth{10.0}, units::Bandwidth{100.0}};
  const std::vector<topology::NetworkFlow> flows{{{{0, 1.0}, {1, 1.0}, {0, 1.0}}}};
  const topology::FairShare fs = topology::max_min_fair_share(flows, cap);
  CHECK(fs.rate[0].bytes_per_s == doctest::Approx(5.0));
  CHECK(fs.link_load[1].bytes_per_s == doctest::Approx(5.0));
}

TEST_CASE("topology: fractional weights (all-to-all spreading) load links proportionally") {
  // f0 puts 1/2 of its bytes on link 0 (cap 10) and all of them on link 1 (cap 30); f1 only
  // uses link 1. Growing both at rate x: link 0 binds at 0.5x = 10 (x = 20), link 1 at
  // 2x = 30 (x = 15). Link 1 binds first: both flows get 15.
  const std::vector<units::Bandwidth> cap{units::Bandwidth{10.0}, units::Bandwidth{30.0}};
  const std::vector<topology::NetworkFlow> flows{{{{0, 0.5}, {1, 1.0}}}, {{{1, 1.0}}}};
  const topology::FairShare fs = topology::max_min_fair_share(flows, cap);
  CHECK(fs.rate[0].bytes_per_s == doctest::Approx(15.0));
  CHECK(fs.rate[1].bytes_per_s == doctest::Approx(15.0));
}

namespace {

// The straightforward progressive filling (one std::vector per flow and per link, every link
// visited every round): the form max_min_fair_share had before its flat-array bookkeeping,
// kept here as the reference it must match bit for bit.
topology::FairShare reference_fair_share(const std::vector<topology::NetworkFlow>& flows,
                                         const std::vector<units::Bandwidth>& capacity) {
  const std::size_t n_links = capacity.size();
  topology::FairShare out;
  out.rate.assign(flows.size(), units::Bandwidth{0.0});
  out.link_load.assign(n_links, units::Bandwidth{0.0});
  if (flows.empty()) return out;
  std::vector<std::int32_t> local_of(n_links, -1);
  std::vector<std::int32_t> used_links;
  std::vector<std::vector<std::pair<std::int32_t, double>>> flow_uses(flows.size());
  for (std::size_t f = 0; f < flows.size(); ++f) {
    for (const topology::LinkUse& u : flows[f].uses) {
      std::int32_t& l = local_of[static_cast<std::size_t>(u.link)];
      if (l < 0) {
        l = static_cast<std::int32_t>(used_links.size());
        used_links.push_back(u.link);
      }
      auto it = std::find_if(flow_uses[f].begin(), flow_uses[f].end(), [&](const auto& p) { return p.first == l; });
      if (it == flow_uses[f].end())
        flow_uses[f].emplace_back(l, u.weight);
      else
        it->second += u.weight;
    }
  }
  const std::size_t m = used_links.size();
  std::vector<double> remaining(m), active_weight(m, 0.0);
  std::vector<std::int32_t> active_count(m, 0);
  std::vector<std::vector<std::int32_t>> flows_on(m);
  for (std::size_t l = 0; l < m; ++l) remaining[l] = capacity[static_cast<std::size_t>(used_links[l])].bytes_per_s;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    for (const auto& [l, w] : flow_uses[f]) {
      active_weight[static_cast<std::size_t>(l)] += w;
      ++active_count[static_cast<std::size_t>(l)];
      flows_on[static_cast<std::size_t>(l)].push_back(static_cast<std::int32_t>(f));
    }
  }
  std::vector<double> rate(flows.size(), 0.0);
  std::vector<char> frozen(flows.size(), 0);
  std::size_t unfrozen = flows.size();
  while (unfrozen > 0) {
    double step = std::numeric_limits<double>::infinity();
    for (std::size_t l = 0; l < m; ++l)
      if (active_weight[l] > 0.0) step = std::min(step, std::max(remaining[l], 0.0) / active_weight[l]);
    REQUIRE(step < std::numeric_limits<double>::infinity());
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f]) rate[f] += step;
    for (std::size_t l = 0; l < m; ++l) remaining[l] -= step * active_weight[l];
    for (std::size_t l = 0; l < m; ++l) {
      const double cap = capacity[static_cast<std::size_t>(used_links[l])].bytes_per_s;
      if (active_weight[l] <= 0.0 || remaining[l] > 1e-12 * cap) continue;
      for (std::int32_t f : flows_on[l]) {
        const auto fi = static_cast<std::size_t>(f);
        if (frozen[fi]) continue;
        frozen[fi] = 1;
        --unfrozen;
        for (const auto& [l2, w] : flow_uses[fi]) {
          active_weight[static_cast<std::size_t>(l2)] -= w;
          if (--active_count[static_cast<std::size_t>(l2)] == 0) active_weight[static_cast<std::size_t>(l2)] = 0.0;
        }
      }
    }
  }
  for (std::size_t f = 0; f < flows.size(); ++f) {
    out.rate[f] = units::Bandwidth{rate[f]};
    for (const auto& [l, w] : flow_uses[f])
      out.link_load[static_cast<std::size_t>(used_links[static_cast<std::size_t>(l)])].bytes_per_s += w * rate[f];
  }
  return out;
}

// Bit-for-bit equality (doubles compared as their bytes: -0.0 != 0.0 here).
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void check_identical(const topology::FairShare& got, const topology::FairShare& want) {
  REQUIRE(got.rate.size() == want.rate.size());
  REQUIRE(got.link_load.size() == want.link_load.size());
  for (std::size_t f = 0; f < got.rate.size(); ++f) CHECK(same_bits(got.rate[f].bytes_per_s, want.rate[f].bytes_per_s));
  for (std::size_t l = 0; l < got.link_load.size(); ++l)
    CHECK(same_bits(got.link_load[l].bytes_per_s, want.link_load[l].bytes_per_s));
}

// FairRates against the full answer: the same rates and the highest of its link loads.
void check_identical(const topology::FairRates& got, const topology::FairShare& want) {
  REQUIRE(got.rate.size() == want.rate.size());
  for (std::size_t f = 0; f < got.rate.size(); ++f) CHECK(same_bits(got.rate[f].bytes_per_s, want.rate[f].bytes_per_s));
  units::Bandwidth worst;
  for (const units::Bandwidth& b : want.link_load) worst = std::max(worst, b);
  CHECK(same_bits(got.worst_link_load.bytes_per_s, worst.bytes_per_s));
}

}  // namespace

TEST_CASE("topology: the flat fair share equals the straightforward progressive filling bit for bit") {
  // Random problems with the features network_share produces: shared and private links,
  // links repeated within a flow, fractional weights (all-to-all), capacities that tie and
  // ones that differ by orders of magnitude. Fixed seed: the same cases on every run.
  std::mt19937_64 rng(20260701);
  auto pick = [&](std::uint64_t n) { return static_cast<std::size_t>(rng() % n); };
  const double caps[] = {1.0, 2.5, 10.0, 10.0, 12.5e9, 25e9, 48e9, 3.0 / 7.0};
  const double weights[] = {1.0, 1.0, 1.0, 0.5, 2.0, 1.0 / 3.0, 1.0 / 127.0};
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n_links = 1 + pick(60);
    std::vector<units::Bandwidth> cap(n_links);
    for (auto& c : cap) c = units::Bandwidth{caps[pick(std::size(caps))] * static_cast<double>(1 + pick(4))};
    const std::size_t n_flows = 1 + pick(40);
    std::vector<topology::NetworkFlow> flows(n_flows);
    topology::FlowTable table;
    for (auto& f : flows) {
      const std::size_t n_uses = 1 + pick(12);
      for (std::size_t k = 0; k < n_uses; ++k)
        f.uses.push_back(
            topology::LinkUse{static_cast<std::int32_t>(pick(n_links)), weights[pick(std::size(weights))]});
      table.uses.insert(table.uses.end(), f.uses.begin(), f.uses.end());
      table.end_flow();
    }
    CAPTURE(trial);
    const topology::FairShare want = reference_fair_share(flows, cap);
    check_identical(topology::max_min_fair_share(flows, cap), want);
    check_identical(topology::max_min_fair_share(table, cap), want);
    // A range of the table is the problem of those flows alone.
    const std::size_t first = pick(n_flows), last = first + pick(n_flows - first + 1);
    const std::vector<topology::NetworkFlow> part(flows.begin() + static_cast<std::ptrdiff_t>(first),
                                                  flows.begin() + static_cast<std::ptrdiff_t>(last));
    const topology::FairShare want_part = reference_fair_share(part, cap);
    check_identical(topology::max_min_fair_share(table, first, last, cap), want_part);
    check_identical(topology::max_min_fair_rates(table, first, last, cap), want_part);
    // Several problems in one call (shared scratch): each as if asked alone.
    const topology::FlowRange problems[] = {{0, n_flows}, {first, last}, {0, n_flows}};
    const auto several = topology::max_min_fair_rates(table, problems, cap);
    REQUIRE(several.size() == 3);
    check_identical(several[0], want);
    check_identical(several[1], want_part);
    check_identical(several[2], want);
  }
  CHECK(topology::FlowTable{}.empty());
  CHECK(topology::max_min_fair_share(topology::FlowTable{}, std::vector<units::Bandwidth>{units::Bandwidth{1.0}})
            .rate.empty());
}

TEST_CASE("topology: a fair share of many copies of one component equals the straightforward filling bit for bit") {
  // What network_share asks: the same group's flows once per rail, leaf or group, each copy on
  // links of its own. The solver fills one copy per class and hands its rates to the others;
  // the answer must not change by a bit. Near-copies (one capacity or weight different, a flow
  // on one link more) must be solved as themselves.
  std::mt19937_64 rng(20261202);
  auto pick = [&](std::uint64_t n) { return static_cast<std::size_t>(rng() % n); };
  const double caps[] = {10.0, 10.0, 25e9, 48e9, 3.0 / 7.0, 12.5e9};
  const double weights[] = {1.0, 1.0, 0.5, 2.0, 1.0 / 3.0};
  int near_copies = 0;
  for (int trial = 0; trial < 200; ++trial) {
    CAPTURE(trial);
    // One component: flows over `n_links` links (flow 0 chains them all, so they connect).
    const std::size_t n_links = 2 + pick(12);
    std::vector<double> cap(n_links);
    for (auto& c : cap) c = caps[pick(std::size(caps))];
    std::vector<std::vector<topology::LinkUse>> base(1 + pick(6));
    for (std::size_t l = 0; l < n_links; ++l) base[0].push_back(topology::LinkUse{static_cast<std::int32_t>(l), 1.0});
    for (std::size_t f = 1; f < base.size(); ++f)
      for (std::size_t k = 0, n = 1 + pick(5); k < n; ++k)
        base[f].push_back(
            topology::LinkUse{static_cast<std::int32_t>(pick(n_links)), weights[pick(std::size(weights))]});
    // Copies on disjoint links, numbered in a shuffled order across the whole cluster; their flows
    // interleaved (flow f of every copy, then flow f + 1) or one copy after another.
    const std::size_t copies = 2 + pick(7);
    std::vector<std::int32_t> slot(copies * n_links);
    for (std::size_t i = 0; i < slot.size(); ++i) slot[i] = static_cast<std::int32_t>(i);
    std::shuffle(slot.begin(), slot.end(), rng);
    std::vector<units::Bandwidth> capacity(slot.size());
    for (std::size_t c = 0; c < copies; ++c)
      for (std::size_t l = 0; l < n_links; ++l)
        capacity[static_cast<std::size_t>(slot[c * n_links + l])] = units::Bandwidth{cap[l]};
    // Sometimes one copy differs a little.
    const std::size_t odd = pick(copies);
    const int change = static_cast<int>(pick(4));  // 0: none, 1: a capacity, 2: a weight, 3: one more use
    auto copy_flow = [&](std::size_t c, std::size_t f) {
      topology::NetworkFlow out;
      for (const topology::LinkUse& u : base[f])
        out.uses.push_back(topology::LinkUse{slot[c * n_links + static_cast<std::size_t>(u.link)], u.weight});
      if (c == odd && f == 0 && change == 2) out.uses.back().weight *= 1.5;
      if (c == odd && f == base.size() - 1 && change == 3) out.uses.push_back(out.uses.front());
      return out;
    };
    if (change == 1) capacity[static_cast<std::size_t>(slot[odd * n_links + pick(n_links)])].bytes_per_s *= 0.75;
    near_copies += change != 0 ? 1 : 0;
    std::vector<topology::NetworkFlow> flows;
    if (pick(2) == 0) {
      for (std::size_t f = 0; f < base.size(); ++f)
        for (std::size_t c = 0; c < copies; ++c) flows.push_back(copy_flow(c, f));
    } else {
      for (std::size_t c = 0; c < copies; ++c)
        for (std::size_t f = 0; f < base.size(); ++f) flows.push_back(copy_flow(c, f));
    }
    // And a component of another shape sharing nothing with them, sometimes.
    if (pick(2) == 0) {
      capacity.push_back(units::Bandwidth{caps[pick(std::size(caps))]});
      flows.push_back(topology::NetworkFlow{{topology::LinkUse{static_cast<std::int32_t>(capacity.size() - 1), 1.0}}});
    }
    topology::FlowTable table;
    for (const auto& f : flows) {
      table.uses.insert(table.uses.end(), f.uses.begin(), f.uses.end());
      table.end_flow();
    }
    const topology::FairShare want = reference_fair_share(flows, capacity);
    check_identical(topology::max_min_fair_share(flows, capacity), want);
    check_identical(topology::max_min_fair_share(table, capacity), want);
    check_identical(topology::max_min_fair_rates(table, 0, table.size(), capacity), want);
  }
  CHECK(near_copies > 100);
}

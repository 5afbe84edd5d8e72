#pragma once
/// Max-min fair sharing of link bandwidth among flows that run at once.
///
/// A flow is a stream of data that crosses a set of links, each `weight` times per byte it
/// delivers (a ring channel crosses each of its hops once; an all-to-all source spreads its
/// bytes over many routes with fractional weights). Rates are found by progressive filling
/// (Bertsekas & Gallager, "Data Networks", 2nd ed., sec. 6.5.2): every unfrozen flow grows at
/// the same pace until some link is full; the flows crossing it freeze; repeat. The result is
/// the unique max-min fair allocation: no flow can go faster without slowing a flow that is
/// already no faster than it. Components of the problem that are exact copies of each other
/// (a cluster's concurrent groups, rail by rail, leaf by leaf) are filled once: the answer is
/// bit for bit that of filling them all.
#include <cstdint>
#include <span>
#include <vector>

#include "flopcast/units/units.hpp"

namespace flopcast::topology {

/// One link a flow crosses and how many bytes it puts on that link per byte it delivers.
struct LinkUse {
  std::int32_t link = 0;  ///< index into the capacity array (ClusterTopology::links())
  double weight = 1.0;    ///< > 0
};

/// A flow: the links it loads. Invariant: at least one use (a flow with no link is unbounded).
struct NetworkFlow {
  std::vector<LinkUse> uses;
};

/// Many flows in compressed rows: flow f crosses uses[start[f]] .. uses[start[f + 1] - 1].
/// The same problem as a list of NetworkFlow without a heap block per flow (network_share()
/// routes thousands of flows per call). Invariant: start is non-decreasing, start[0] == 0,
/// start.back() == uses.size().
struct FlowTable {
  std::vector<std::size_t> start{0};
  std::vector<LinkUse> uses;

  /// Flows in the table.
  std::size_t size() const { return start.size() - 1; }
  bool empty() const { return start.size() == 1; }
  /// Closes the flow made of the uses added since the previous end_flow().
  void end_flow() { start.push_back(uses.size()); }
};

/// The max-min fair allocation.
struct FairShare {
  std::vector<units::Bandwidth> rate;       ///< per flow, in the order given
  std::vector<units::Bandwidth> link_load;  ///< per link: sum of weight x rate over the flows crossing it
};

/// Max-min fair rates of `flows` over links of the given one-way `capacity`.
/// Flows that repeat a link have their weights summed. Deterministic: same input, same output.
FairShare max_min_fair_share(std::span<const NetworkFlow> flows, std::span<const units::Bandwidth> capacity);
/// The same for the flows `first` .. `last - 1` of `flows` alone (rate[i] is flow first + i):
/// bit-for-bit what the NetworkFlow overload returns for those flows.
FairShare max_min_fair_share(const FlowTable& flows, std::size_t first, std::size_t last,
                             std::span<const units::Bandwidth> capacity);
/// The same for every flow of `flows`.
FairShare max_min_fair_share(const FlowTable& flows, std::span<const units::Bandwidth> capacity);

/// The rates of a fair share and its highest link load, without the per-link array (a
/// 16,384-GPU cluster has 10^5 links; network_share() needs only the maximum).
struct FairRates {
  std::vector<units::Bandwidth> rate;  ///< per flow, from the first one asked for
  units::Bandwidth worst_link_load;    ///< highest link load (0 when no flow)
};

/// max_min_fair_share(flows, first, last, capacity) reduced to FairRates: the same rates, and
/// the maximum of its link_load.
FairRates max_min_fair_rates(const FlowTable& flows, std::size_t first, std::size_t last,
                             std::span<const units::Bandwidth> capacity);

/// The flows first .. last - 1 of a FlowTable.
struct FlowRange {
  std::size_t first = 0;
  std::size_t last = 0;
};
/// max_min_fair_rates for each range of `problems`, each solved alone, in order. Cheaper than
/// one call per range: they share the per-link scratch (one int32 per link of the cluster).
std::vector<FairRates> max_min_fair_rates(const FlowTable& flows, std::span<const FlowRange> problems,
                                          std::span<const units::Bandwidth> capacity);

}  // namespace flopcast::topology

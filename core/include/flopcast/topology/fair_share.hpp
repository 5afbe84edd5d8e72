#pragma once
/// Max-min fair sharing of link bandwidth among flows that run at once.
///
/// A flow is a stream of data that crosses a set of links, each `weight` times per byte it
/// delivers (a ring channel crosses each of its hops once; an all-to-all source spreads its
/// bytes over many routes with fractional weights). Rates are found by progressive filling
/// (Bertsekas & Gallager, "Data Networks", 2nd ed., sec. 6.5.2): every unfrozen flow grows at
/// the same pace until some link is full; the flows crossing it freeze; repeat. The result is
/// the unique max-min fair allocation: no flow can go faster without slowing a flow that is
/// already no faster than it.
#include <cstdint>
#include <span>
#include <vector>

#include "flopcast/units/units.hpp"

namespace flopcast {

/// One link a flow crosses and how many bytes it puts on that link per byte it delivers.
struct LinkUse {
  std::int32_t link = 0;  ///< index into the capacity array (ClusterTopology::links())
  double weight = 1.0;    ///< > 0
};

/// A flow: the links it loads. Invariant: at least one use (a flow with no link is unbounded).
struct NetworkFlow {
  std::vector<LinkUse> uses;
};

/// The max-min fair allocation.
struct FairShare {
  std::vector<Bandwidth> rate;        ///< per flow, in the order given
  std::vector<Bandwidth> link_load;   ///< per link: sum of weight x rate over the flows crossing it
};

/// Max-min fair rates of `flows` over links of the given one-way `capacity`.
/// Flows that repeat a link have their weights summed. Deterministic: same input, same output.
FairShare max_min_fair_share(std::span<const NetworkFlow> flows, std::span<const Bandwidth> capacity);

}  // namespace flopcast

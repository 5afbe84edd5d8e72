#pragma once
/// The network traffic of collectives: which links the flows of a group cross, and what
/// bandwidth each group gets when several groups share the network (max-min fair).
///
/// Only traffic that leaves an NVLink domain is modelled as flows: inside a domain every GPU
/// has its own NVLink (or PCIe) port to the switch, which concurrent groups do not share.
#include <cstdint>
#include <span>
#include <vector>

#include "flopcast/topology/cluster_topology.hpp"
#include "flopcast/topology/fair_share.hpp"
#include "flopcast/topology/group_shape.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::topology {

/// How a collective moves data between NVLink domains.
enum class TrafficPattern {
  /// NCCL rings: one channel per NIC the group's GPUs own in each domain (the ring leaves and
  /// enters every domain on the same rail, as NCCL's rail-aligned ring search does); each
  /// channel crosses every domain boundary once. Trees use the same links.
  Ring,
  /// All-to-all: every GPU sends 1/(n-1) of its data to each other member; PXN keeps each
  /// flow on one rail (NCCL "alltoall cannot aggregate the bandwidth of multiple NICs",
  /// ISS nccl-tests#267: each GPU's share goes through its own NIC(s)).
  AllToAll,
  /// One direction from the first member to the second (pipeline send/recv).
  OneWay,
};
/// "ring", "all-to-all", "one-way".
const char* to_string(TrafficPattern p);

/// What a group's traffic gets from the network.
struct GroupNetworkShare {
  std::int64_t groups = 0;   ///< groups placed at once (requested, clamped to what fits)
  std::int64_t domains = 0;  ///< NVLink domains one group spans (NCCL nNodes)
  int channels = 0;          ///< network channels of one group per domain (NICs used)
  /// Ring: the sum of the ring channels' rates = the inter-domain bus bandwidth of the ring.
  /// AllToAll: the rate at which one domain's members send off-domain, together.
  /// OneWay: the pair's rate. Slowest group when several run at once. Zero inside a domain.
  units::Bandwidth per_group;
  units::Bandwidth alone;            ///< per_group with the group alone on the cluster
  units::Bandwidth worst_link_load;  ///< highest load on any network link (for reports)
  /// Groups routed and solved; the others are translations of routed ones (network_share()).
  std::int64_t routed = 0;
};

/// How network_share() finds the groups' rates.
enum class ShareSolve {
  /// Groups that fill stretches of the cluster that are translations of one another, network
  /// included, are routed and solved in the first stretch only: the others get the same rates,
  /// bit for bit.
  ByTranslation,
  /// Every group routed and solved (the reference ByTranslation must equal).
  EveryGroup,
};

/// Places `concurrent` groups of `shape` (place_group()) on `topo`, routes their flows and
/// shares the links max-min fairly. Precondition: check_group_shape() is "".
GroupNetworkShare network_share(const ClusterTopology& topo, const GroupShape& shape, std::int64_t concurrent,
                                TrafficPattern pattern, ShareSolve how = ShareSolve::ByTranslation);

/// network_share() memoised for the whole process (thread-safe): the same answer, computed once
/// per question. The key is what network_share() reads of the topology (GPU count, node size,
/// NICs per node and their wiring, NVLink domain size, nodes per leaf, rail cabling, the PCIe,
/// NIC and leaf-uplink rates and the oversubscription), the group shape, the groups and the
/// pattern: clusters of different GPU types with the same network share their answers (the
/// planner asks the same questions for every GPU type, precision and thread).
GroupNetworkShare network_share_cached(const ClusterTopology& topo, const GroupShape& shape, std::int64_t concurrent,
                                       TrafficPattern pattern);

/// Answers network_share_cached() holds (for tests and benchmarks).
std::size_t network_share_cache_size();

}  // namespace flopcast::topology

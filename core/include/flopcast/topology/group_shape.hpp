#pragma once
/// The shape of a communicator (how many ranks, how they sit on nodes) and where groups of
/// that shape land when several run at once.
#include <cstdint>
#include <string>
#include <vector>

namespace flopcast::topology {

/// A communicator's shape. Examples on 8-GPU nodes with Megatron's rank order: a TP=8 group
/// {8, 8, 1}; the DP group of a TP=8 PP=1 plan {dp, 1, 1}; with TP=8 CP=2, {dp, 1, 2}
/// (consecutive DP ranks are two nodes apart).
struct GroupShape {
  std::int64_t ranks = 1;        ///< GPUs in the group (NCCL nRanks)
  int ranks_per_node = 1;        ///< group members on each node it spans; divides `ranks`
  std::int64_t node_stride = 1;  ///< nodes from one node of the group to the next (>= 1)

  /// Nodes the group spans.
  std::int64_t nodes() const { return ranks_per_node > 0 ? (ranks + ranks_per_node - 1) / ranks_per_node : 0; }
  bool operator==(const GroupShape&) const = default;
};

/// Why `shape` cannot exist on nodes of `gpus_per_node` GPUs in a cluster of `total_gpus`,
/// or "" when it can.
std::string check_group_shape(const GroupShape& shape, int gpus_per_node, std::int64_t total_gpus);

/// GPU ids of group `index` when groups of `shape` are laid out like Megatron's ranks:
/// groups first share nodes (lane i of a node takes GPUs i*ppn .. i*ppn+ppn-1), then fill the
/// gaps a stride leaves, then move on to fresh nodes. Members are in ring order. Empty when
/// the group does not fit the cluster. Precondition: check_group_shape() is "".
std::vector<std::int64_t> place_group(const GroupShape& shape, std::int64_t index, int gpus_per_node,
                                      std::int64_t total_gpus);
/// place_group() into `out` (its storage reused; left empty when the group does not fit);
/// returns whether it fits.
bool place_group_into(const GroupShape& shape, std::int64_t index, int gpus_per_node, std::int64_t total_gpus,
                      std::vector<std::int64_t>& out);

/// How place_group()'s layout repeats: group `index + groups` is group `index` moved `nodes`
/// nodes on (every member `nodes x gpus_per_node` GPUs on), for any index.
struct GroupPeriod {
  std::int64_t groups = 1;
  std::int64_t nodes = 1;
};
GroupPeriod group_period(const GroupShape& shape, int gpus_per_node);

/// How many groups of `shape` fit the cluster at once under place_group()'s layout.
std::int64_t max_concurrent_groups(const GroupShape& shape, int gpus_per_node, std::int64_t total_gpus);

/// The shape of an explicit group of GPU ids on nodes of `gpus_per_node` GPUs: ranks per node
/// is the count on the first node, the stride the distance between its first two nodes.
GroupShape shape_of(const std::vector<std::int64_t>& gpus, int gpus_per_node);

}  // namespace flopcast::topology

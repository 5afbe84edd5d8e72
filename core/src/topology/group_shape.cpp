#include "flopcast/topology/group_shape.hpp"

#include <algorithm>

namespace flopcast::topology {

std::string check_group_shape(const GroupShape& s, int gpus_per_node, std::int64_t total_gpus) {
  if (s.ranks < 1) return "a group needs at least one rank (ranks = " + std::to_string(s.ranks) + ")";
  if (s.ranks_per_node < 1) return "ranks_per_node must be >= 1 (got " + std::to_string(s.ranks_per_node) + ")";
  if (s.ranks_per_node > gpus_per_node)
    return "ranks_per_node " + std::to_string(s.ranks_per_node) + " exceeds the node's " +
           std::to_string(gpus_per_node) + " GPUs";
  if (s.ranks_per_node > s.ranks)
    return "ranks_per_node " + std::to_string(s.ranks_per_node) + " exceeds the group's " + std::to_string(s.ranks) +
           " ranks";
  if (s.ranks % s.ranks_per_node != 0)
    return "ranks_per_node " + std::to_string(s.ranks_per_node) + " does not divide ranks " + std::to_string(s.ranks);
  if (s.node_stride < 1) return "node_stride must be >= 1 (got " + std::to_string(s.node_stride) + ")";
  if (s.ranks > total_gpus)
    return "the group's " + std::to_string(s.ranks) + " ranks exceed the cluster's " + std::to_string(total_gpus) +
           " GPUs";
  if (max_concurrent_groups(s, gpus_per_node, total_gpus) < 1)
    return "a group of " + std::to_string(s.ranks) + " ranks, " + std::to_string(s.ranks_per_node) +
           " per node, node stride " + std::to_string(s.node_stride) + " does not fit " + std::to_string(total_gpus) +
           " GPUs";
  return {};
}

namespace {

struct Layout {
  std::int64_t span_nodes;  // nodes the group touches
  std::int64_t stride;
  std::int64_t lanes;  // groups that share the same nodes
};

Layout layout_of(const GroupShape& s, int gpus_per_node) {
  Layout l;
  l.span_nodes = s.nodes();
  l.stride = l.span_nodes > 1 ? s.node_stride : 1;
  l.lanes = std::max<std::int64_t>(1, gpus_per_node / s.ranks_per_node);
  return l;
}

// First node of block `blk`: blocks 0..stride-1 interleave in the gaps of one another, then
// the next `span x stride` nodes hold the next `stride` blocks.
std::int64_t block_base(const Layout& l, std::int64_t blk) {
  return (blk % l.stride) + (blk / l.stride) * (l.span_nodes * l.stride);
}

}  // namespace

bool place_group_into(const GroupShape& s, std::int64_t index, int gpus_per_node, std::int64_t total_gpus,
                      std::vector<std::int64_t>& out) {
  const Layout l = layout_of(s, gpus_per_node);
  const std::int64_t lane = index % l.lanes;
  const std::int64_t base = block_base(l, index / l.lanes);
  out.clear();
  out.reserve(static_cast<std::size_t>(s.ranks));
  for (std::int64_t j = 0; j < s.ranks; ++j) {
    const std::int64_t node = base + (j / s.ranks_per_node) * l.stride;
    const std::int64_t local = lane * s.ranks_per_node + j % s.ranks_per_node;
    const std::int64_t gpu = node * gpus_per_node + local;
    if (local >= gpus_per_node || gpu >= total_gpus) {
      out.clear();
      return false;
    }
    out.push_back(gpu);
  }
  return true;
}

GroupPeriod group_period(const GroupShape& s, int gpus_per_node) {
  // Blocks stride .. 2 x stride - 1 start span x stride nodes after blocks 0 .. stride - 1
  // (block_base), each block holding `lanes` groups.
  const Layout l = layout_of(s, gpus_per_node);
  return GroupPeriod{l.stride * l.lanes, l.span_nodes * l.stride};
}

std::vector<std::int64_t> place_group(const GroupShape& s, std::int64_t index, int gpus_per_node,
                                      std::int64_t total_gpus) {
  std::vector<std::int64_t> out;
  place_group_into(s, index, gpus_per_node, total_gpus, out);
  return out;
}

std::int64_t max_concurrent_groups(const GroupShape& s, int gpus_per_node, std::int64_t total_gpus) {
  if (s.ranks < 1 || s.ranks_per_node < 1 || gpus_per_node < 1) return 0;
  const Layout l = layout_of(s, gpus_per_node);
  const std::int64_t nodes = (total_gpus + gpus_per_node - 1) / gpus_per_node;
  // Blocks are placed in increasing order of their first (and last) node: count those whose
  // last node block_base(b) + (span - 1) * stride is inside the cluster, i.e. block_base(b) <= m.
  // block_base(q * stride + r) = r + q * span * stride is increasing in b, so the count is
  // q * stride + min(stride, m - q * span * stride + 1) with q = m / (span * stride)
  // (closed form of counting b upwards; O(1) instead of O(nodes): the planner asks millions of times).
  const std::int64_t m = nodes - 1 - (l.span_nodes - 1) * l.stride;
  if (m < 0) return 0;
  const std::int64_t period = l.span_nodes * l.stride;
  const std::int64_t q = m / period;
  const std::int64_t blocks = q * l.stride + std::min(l.stride, m - q * period + 1);
  // Whole blocks, minus lanes of the last node that a partial node cannot hold.
  std::int64_t count = blocks * l.lanes;
  while (count > 0 && place_group(s, count - 1, gpus_per_node, total_gpus).empty()) --count;
  return count;
}

GroupShape shape_of(const std::vector<std::int64_t>& gpus, int gpus_per_node) {
  GroupShape s;
  s.ranks = static_cast<std::int64_t>(gpus.size());
  if (gpus.empty() || gpus_per_node < 1) return s;
  const std::int64_t first = gpus.front() / gpus_per_node;
  int on_first = 0;
  std::int64_t second = -1;
  for (std::int64_t g : gpus) {
    const std::int64_t n = g / gpus_per_node;
    if (n == first)
      ++on_first;
    else if (second < 0)
      second = n;
  }
  s.ranks_per_node = std::max(1, on_first);
  s.node_stride = second >= 0 ? std::max<std::int64_t>(1, second > first ? second - first : first - second) : 1;
  return s;
}

}  // namespace flopcast::topology

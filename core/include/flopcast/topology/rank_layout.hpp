#pragma once
/// Rank placement: which ranks form the TP, CP, EP, DP and PP groups of a parallel plan, and
/// so where each group sits on the cluster (rank r runs on GPU r: node r / gpus_per_node).
///
/// The order string lists the dimensions innermost first, as Megatron-LM's RankGenerator does
/// (megatron/core/parallel_state.py, default order "tp-cp-ep-dp-pp"): TP ranks are adjacent,
/// then CP, then DP, then PP. EP is not a dimension of its own: expert-parallel groups are
/// carved out of the data-parallel ranks (with CP folded in when "cp" sits just inside them),
/// EP consecutive members inside the DP group when "ep" comes before "dp", strided when after.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/parallel/parallel_plan.hpp"
#include "flopcast/topology/group_shape.hpp"

namespace flopcast::topology {

/// A parallelism dimension.
enum class ParallelDim { TP, CP, EP, DP, PP };
/// "tp", "cp", "ep", "dp", "pp".
const char* to_string(ParallelDim d);
/// Parses the lower-case names of to_string(); nullopt when unknown.
std::optional<ParallelDim> parse_parallel_dim(std::string_view s);

/// Megatron-LM's default rank order, innermost first.
inline constexpr std::string_view kMegatronRankOrder = "tp-cp-ep-dp-pp";

/// The rank layout of one plan.
class RankLayout {
 public:
  /// Builds the layout of `plan` for `order` (a permutation of tp, cp, dp, pp, with "ep"
  /// optional next to "dp"). nullopt and a message in `error` when the order is malformed or
  /// EP does not divide the data-parallel ranks.
  static std::optional<RankLayout> create(const parallel::ParallelPlan& plan,
                                          std::string_view order = kMegatronRankOrder, std::string* error = nullptr);

  /// Ranks in the layout: tp x cp x dp x pp.
  std::int64_t world_size() const { return world_; }
  /// Ranks in one group of dimension `d`.
  std::int64_t size(ParallelDim d) const;
  /// Groups of dimension `d` (world_size / size).
  std::int64_t group_count(ParallelDim d) const { return world_ / size(d); }
  /// Coordinate of `rank` along `d` (0 .. size(d)-1).
  std::int64_t coordinate(ParallelDim d, std::int64_t rank) const;
  /// The ranks of `rank`'s group along `d`, in ring order (increasing coordinate).
  std::vector<std::int64_t> group(ParallelDim d, std::int64_t rank) const;
  /// The shape of rank 0's group along `d` on nodes of `gpus_per_node` GPUs.
  GroupShape shape(ParallelDim d, int gpus_per_node) const;
  /// The order the layout was built with, normalised ("tp-cp-ep-dp-pp").
  const std::string& order() const { return order_; }

 private:
  // Index 0..3 = tp, cp, dp, pp (the four dimensions that tile the ranks).
  std::array<std::int64_t, 4> size_{1, 1, 1, 1};
  std::array<std::int64_t, 4> stride_{1, 1, 1, 1};
  std::int64_t ep_ = 1;
  bool ep_inner_ = true;      // EP members consecutive in the data-parallel index
  bool ep_folds_cp_ = false;  // the data-parallel index for EP is (cp, dp) flattened
  std::int64_t world_ = 1;
  std::string order_;

  std::int64_t rank_of(const std::array<std::int64_t, 4>& coord) const;
  std::array<std::int64_t, 4> coords_of(std::int64_t rank) const;
};

}  // namespace flopcast::topology

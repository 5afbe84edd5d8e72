#pragma once
/// What one collective of a training step costs on its cluster: the topology-based NCCL model
/// (core/comm) built once per cluster and profile and cached per thread, with an alpha-beta
/// fallback (the same NCCL constants) where the graph is too large or a group shape cannot be
/// placed. Ranks are placed in Megatron order (TP innermost, then CP, DP, PP).
#include <cstdint>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast {

class CommModel;

/// Collective kinds the step needs.
enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };

/// Time of one collective over `ranks` ranks whose consecutive members are `rank_stride`
/// global ranks apart (Megatron order: TP 1, CP tp, DP tp*cp, PP tp*cp*dp), moving `bytes`
/// (nccl-tests' size S), while every group of that kind runs at once. Costed by the
/// topology-based NCCL model (core/comm), built once per cluster and cached per thread.
Time collective_time(const Scenario& s, const ComputeProfile& profile, CollectiveKind op, std::int64_t ranks,
                     std::int64_t rank_stride, Bytes bytes);

/// collective_time for one scenario with its cluster model looked up once: a step's cost asks
/// for hundreds of collectives of the same cluster, and the planner for millions. Valid while no
/// collective of another cluster is costed on this thread (the per-thread cache may then evict
/// the model); a value to keep for one estimate, not to store.
class ClusterCollectives {
 public:
  ClusterCollectives(const Scenario& s, const ComputeProfile& profile);
  /// The same as collective_time(s, profile, op, ranks, rank_stride, bytes).
  Time operator()(CollectiveKind op, std::int64_t ranks, std::int64_t rank_stride, Bytes bytes) const;

 private:
  const Scenario& s_;
  const ComputeProfile& profile_;
  const CommModel* model_;  ///< null above the graph's size limit (alpha-beta model)
};

/// Share of the MoE dispatch (or combine) bytes that crosses the NIC under node-deduplicated
/// dispatch, relative to one copy per (token, routed expert): DeepEP's internode kernels send
/// a token once to each remote node holding any of its experts (over RDMA, to the GPU of the
/// same local index) and forward it inside that node over NVLink (DeepEP README, "normal
/// kernels"; DeepSeek-V3, arXiv 2412.19437 §3.2.2), as Megatron-core's flex dispatcher does
/// with --moe-enable-deepep (megatron/core/transformer/moe/token_dispatcher.py,
/// MoEFlexTokenDispatcher; fused_a2a.py). With experts spread evenly over `nodes` nodes and
/// balanced routing (the calibration runs force-balance), a token's top_k experts miss a given
/// node with probability (1 - 1/n)^k, so it reaches (n - 1)(1 - (1 - 1/n)^k) remote nodes
/// against k (n - 1)/n remote copies per expert: factor n (1 - (1 - 1/n)^k) / k (1 for one
/// node or top-1).
double moe_dispatch_internode_factor(int top_k, std::int64_t nodes);

}  // namespace flopcast

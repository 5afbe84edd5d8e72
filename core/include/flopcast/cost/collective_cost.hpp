#pragma once
/// What one collective of a training step costs on its cluster: the topology-based NCCL model
/// (core/comm) built once per cluster and profile and cached per thread, with an alpha-beta
/// fallback (the same NCCL constants) where the graph is too large or a group shape cannot be
/// placed. Ranks are placed in Megatron order (TP innermost, then CP, DP, PP).
#include <cstdint>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::comm {
class CommModel;  // core/comm
}  // namespace flopcast::comm

namespace flopcast::cost {

/// Collective kinds the step needs.
enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };

/// Time of one collective over `ranks` ranks whose consecutive members are `rank_stride`
/// global ranks apart (Megatron order: TP 1, CP tp, DP tp*cp, PP tp*cp*dp), moving `bytes`
/// (nccl-tests' size S), while every group of that kind runs at once. Costed by the
/// topology-based NCCL model (core/comm), built once per cluster and cached per thread.
units::Time collective_time(const scenario::Scenario& s, const compute::ComputeProfile& profile, CollectiveKind op,
                            std::int64_t ranks, std::int64_t rank_stride, units::Bytes bytes);

/// collective_time for one scenario with its cluster model looked up once: a step's cost asks
/// for hundreds of collectives of the same cluster, and the planner for millions. Valid while no
/// collective of another cluster is costed on this thread (the per-thread cache may then evict
/// the model); a value to keep for one estimate, not to store.
class ClusterCollectives {
 public:
  ClusterCollectives(const scenario::Scenario& s, const compute::ComputeProfile& profile);
  /// The same as collective_time(s, profile, op, ranks, rank_stride, bytes).
  units::Time operator()(CollectiveKind op, std::int64_t ranks, std::int64_t rank_stride, units::Bytes bytes) const;

 private:
  const scenario::Scenario& s_;
  const compute::ComputeProfile& profile_;
  const comm::CommModel* model_;  ///< null above the graph's size limit (alpha-beta model)
};

/// One MoE token dispatch (or its combine) over an expert-parallel group, as DeepEP's kernels do
/// it (deepseek-ai/DeepEP README, "normal kernels" and "low-latency kernels"; Megatron-core's
/// flex dispatcher runs them): each rank sends every token to the ranks holding its top-k
/// experts. Inside one NVLink domain a token goes once to each rank that holds any of its experts;
/// across nodes it goes once over RDMA to each node (to the GPU of the same local index), which
/// forwards it over NVLink. The low-latency kernels send one copy per (token, expert) straight
/// to the expert's rank, over RDMA (or NVLink inside the node).
struct MoeDispatch {
  std::int64_t ranks = 1;           ///< the EP group
  std::int64_t ranks_per_node = 1;  ///< of them in one node (one NVLink domain)
  double tokens = 0;                ///< tokens each rank sends
  double hidden = 0;                ///< values per token
  int top_k = 1;
  double experts = 0;             ///< routed experts over the group (0: 32 per rank)
  double bytes_per_value = 2;     ///< 2 (BF16), or an FP8 value with its scales
  int node_limit = 0;             ///< a token's experts on at most this many nodes (0: any)
  bool low_latency = false;       ///< DeepEP's low-latency kernels (no per-node deduplication)
  bool rdma_inside_node = false;  ///< low-latency kernels over RDMA also between GPUs of one node
  int sms = 0;                    ///< SMs the kernels run on (0: not a limit)
  bool warp_copies = false;       ///< a warp copies each token (DeepEP's normal kernels), not TMA
  double nic_gbps = 0;            ///< RDMA line rate per GPU, Gb/s (0: the fabric's share)
};

/// What one dispatch costs and moves, per rank.
struct MoeDispatchCost {
  units::Time time;
  double nvlink_bytes = 0;    ///< sent over NVLink
  double rdma_bytes = 0;      ///< sent over the scale-out NICs
  double received_bytes = 0;  ///< received in all, its own tokens included (DeepEP's "NVL" figure)
};

/// Expected number of distinct holders (ranks or nodes) a token's top_k experts fall on, when
/// `experts` experts are spread evenly over `holders` holders and the router picks top_k distinct
/// experts uniformly (balanced routing): holders x (1 - C(E - E/h, k) / C(E, k)).
double expected_holders(double experts, double holders, int top_k);

/// The time of one dispatch: the slower of its NVLink and RDMA traffic at the profile's
/// dispatch efficiency of each link (and, when `sms` is given, the SMs' copy rate, plus each
/// token copy's own cost under `warp_copies`).
MoeDispatchCost moe_dispatch_cost(const hardware::GpuSpec& gpu, const hardware::FabricSpec& fabric,
                                  std::int64_t gpus_per_node, const compute::ComputeProfile& profile,
                                  const MoeDispatch& d);

}  // namespace flopcast::cost

#pragma once
/// Collective operations, NCCL's algorithms and protocols, the cost of one collective, and
/// nccl-tests' algorithm/bus bandwidth definitions (NT: NVIDIA/nccl-tests doc/PERFORMANCE.md,
/// the tests' GetBw functions), so results compare directly with users' nccl-tests logs.
#include <cstdint>
#include <optional>
#include <string_view>

#include "flopcast/units/units.hpp"

namespace flopcast::comm {

/// A communication operation of a group.
///
/// Message size convention (nccl-tests' S, the bytes algbw divides by):
///   AllReduce, Broadcast: the buffer on each rank;
///   AllGather: the gathered output (n x each rank's input);
///   ReduceScatter: each rank's input (n x its output);
///   AllToAll: each rank's send buffer (n x the piece for each peer);
///   SendRecv: the bytes one rank sends to its peer.
enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, SendRecv };
/// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv".
const char* to_string(Collective c);
/// Accepts "all_reduce", "allreduce", "all-reduce" (any case) and the same for the others.
std::optional<Collective> parse_collective(std::string_view s);

/// How data moves (NCCL_ALGO). CollNet (IB SHARP) is not modelled.
enum class CommAlgorithm {
  Ring,      ///< rings through every rank
  Tree,      ///< chain inside a node, double binary tree across nodes (all-reduce only)
  Nvls,      ///< NVLink SHARP: reduction and multicast in the NVSwitch (one NVLink domain)
  NvlsTree,  ///< NVLS inside each domain, tree across domains (all-reduce only)
  Pat,       ///< parallel aggregated trees (all-gather/reduce-scatter, one GPU per node)
  P2p,       ///< point-to-point sends (all-to-all, send/recv): not in NCCL's tuning model
  None,      ///< a group of one rank: nothing to send
};
/// NCCL's spelling: "Ring", "Tree", "NVLS", "NVLSTree", "PAT"; "P2P", "none".
const char* to_string(CommAlgorithm a);
/// Case-insensitive, '_' and '-' ignored ("nvls_tree"); nullopt when unknown.
std::optional<CommAlgorithm> parse_comm_algorithm(std::string_view s);

/// How each step is synchronised (NCCL_PROTO).
enum class CommProtocol {
  LL,      ///< 8-byte stores carrying 4 bytes of data and a flag: lowest latency, half bandwidth
  LL128,   ///< 128-byte lines with 120 bytes of data (NVLink-class paths)
  Simple,  ///< bulk copies and fences: full bandwidth, highest latency
};
/// NCCL's spelling: "LL", "LL128", "Simple".
const char* to_string(CommProtocol p);
/// Case-insensitive; nullopt when unknown.
std::optional<CommProtocol> parse_comm_protocol(std::string_view s);

/// nccl-tests' bus bandwidth factor for `op` over `ranks` ranks: busbw = algbw x factor.
/// AllReduce 2(n-1)/n; AllGather, ReduceScatter, AllToAll (n-1)/n; Broadcast, SendRecv 1.
double bus_bandwidth_factor(Collective op, std::int64_t ranks);

/// The cost of one collective.
struct CollectiveCost {
  units::Time time;        ///< predicted duration
  units::Time latency;     ///< the fixed part of `time` (zero-byte limit)
  units::Bandwidth algbw;  ///< message bytes / time (nccl-tests algbw)
  units::Bandwidth busbw;  ///< algbw x bus_bandwidth_factor (nccl-tests busbw)
  CommAlgorithm algorithm = CommAlgorithm::None;
  CommProtocol protocol = CommProtocol::Simple;
  int channels = 0;                    ///< NCCL channels of the chosen algorithm (0 for p2p)
  std::int64_t nodes = 0;              ///< NVLink domains the group spans (NCCL nNodes)
  std::int64_t concurrent_groups = 1;  ///< groups sharing the network in this estimate
};

}  // namespace flopcast::comm

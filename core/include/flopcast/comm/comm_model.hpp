#pragma once
/// The cost of collectives on a cluster: what the step model asks for every TP, CP, EP, DP and
/// PP communication.
///
/// Two models work together, both after NCCL (nccl_tuning.hpp, pinned version nccl::kVersion):
///  1. Choice. NCCL's own tuning model (its latencies, its topology search's channel graph, its
///     bandwidth refinements) picks the algorithm and protocol, as ncclTopoGetAlgoInfo does:
///     minimum modelled time. NCCL does not see other jobs' traffic, so neither does the choice.
///  2. Time. The chosen algorithm and protocol are then costed with the same latency constants
///     and refinements, but with the bandwidth the group really gets: the NCCL-effective NVLink
///     of its GPUs, the NICs its rings cross (GPUDirect path: min of NIC x achievable fraction
///     and PCIe), and the max-min fair share of every network link when `concurrent_groups`
///     groups of the same shape communicate at once (group_traffic.hpp). NVLS (NVLink SHARP)
///     is costed from its traffic: an all-reduce moves S(1 + 1/n) bytes each way per GPU.
///
/// Queries are cached per (collective, group shape, concurrent groups); a cached query costs a
/// handful of arithmetic operations. Thread-safe.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/comm/collective.hpp"
#include "flopcast/comm/nccl_tuning.hpp"
#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/topology/cluster_topology.hpp"
#include "flopcast/topology/group_shape.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::comm {

/// Efficiency knobs that a calibration profile may override. Zero means "the sourced default".
struct CommEfficiency {
  /// Multiplier on NCCL's effective NVLink bandwidth (topo.h per-link constants, which already
  /// discount ~20% protocol overhead; 1 = NCCL's figure).
  double nvlink_fraction = 1.0;
  /// Achievable fraction of NIC line rate; 0 = nic_achievable_fraction() (0.96 for HDR etc.).
  double nic_fraction = 0.0;
  /// NVLS efficiency; 0 = NCCL's nvlsEfficiency for the arch (Hopper 0.85, Blackwell 0.74).
  double nvls_efficiency = 0.0;
  /// Added to every collective's latency, us (launch and synchronisation costs that NCCL's
  /// model leaves out; measured systems differ, so the default adds nothing).
  double extra_latency_us = 0.0;
};

/// Options of a CommModel.
struct CommOptions {
  topology::TopologyOptions topology;  ///< scalable-unit size and cabling (its fractions are set from `efficiency`)
  CommEfficiency efficiency;
  /// Host CPU family (NCCL's multi-node LL caps and network overhead depend on it);
  /// nullopt = default_host_cpu().
  std::optional<nccl::CpuVendor> host_cpu;
};

/// The host CPU of the reference node designs: AMD for Ampere (DGX A100: 2 x EPYC 7742,
/// NV-DGXA100), Other (Arm Grace) for GB200 NVL72 domains (NV-GB200TBL), Intel otherwise
/// (as the worked H100 latency examples of tests/comm/test_nccl_tuning.cpp assume).
nccl::CpuVendor default_host_cpu(const hardware::GpuSpec& gpu, const hardware::FabricSpec& fabric);

/// NCCL_ALGO / NCCL_PROTO: restrict the choice; an unavailable restriction is ignored.
struct CommOverride {
  std::optional<CommAlgorithm> algorithm;
  std::optional<CommProtocol> protocol;
};

/// One algorithm/protocol pair considered for a query.
struct CandidateCost {
  CommAlgorithm algorithm = CommAlgorithm::Ring;
  CommProtocol protocol = CommProtocol::Simple;
  units::Time nccl_time;  ///< NCCL's modelled time (what the choice minimises)
  CollectiveCost cost;    ///< flopcast's predicted cost if this pair runs
};

/// Collective costs on one cluster.
class CommModel {
 public:
  /// Builds the cluster graph once. `total_gpus` GPUs of `gpu` on `fabric` nodes.
  CommModel(const hardware::GpuSpec& gpu, const hardware::FabricSpec& fabric, std::int64_t total_gpus,
            CommOptions options = {});
  /// Movable, not copyable (owns the cluster graph and the cache).
  ~CommModel();
  CommModel(CommModel&&) noexcept;
  CommModel& operator=(CommModel&&) noexcept;
  CommModel(const CommModel&) = delete;
  CommModel& operator=(const CommModel&) = delete;

  /// Why `op` over `group` cannot be costed on this cluster, or "" when it can
  /// (send_recv needs exactly 2 ranks; the shape must fit the cluster).
  std::string check(Collective op, const topology::GroupShape& group) const;

  /// The cost of `op` moving `message` bytes (nccl-tests' S, see Collective) in `group`, while
  /// `concurrent_groups` groups of the same shape (placed as place_group() lays them out) do
  /// the same at once. More groups than fit the cluster are clamped. Precondition: check() is "".
  CollectiveCost cost(Collective op, const topology::GroupShape& group, units::Bytes message,
                      std::int64_t concurrent_groups = 1, const CommOverride& force = {}) const;

  /// Every algorithm/protocol pair NCCL would consider for the query, in NCCL's order
  /// (Tree, Ring, NVLS, NVLSTree, PAT x LL, LL128, Simple), with both models' times.
  std::vector<CandidateCost> candidates(Collective op, const topology::GroupShape& group, units::Bytes message,
                                        std::int64_t concurrent_groups = 1) const;

  /// The cluster graph the model routes on.
  const topology::ClusterTopology& topology() const;
  /// The host CPU family NCCL's constants are read for.
  nccl::CpuVendor host_cpu() const;
  /// The options the model was built with.
  const CommOptions& options() const;
  /// Cached (collective, shape, concurrency) entries (for tests and the benchmark).
  std::size_t cache_size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flopcast::comm

#pragma once
/// `flopcast collective`: an nccl-tests-style table of predicted collective costs (size, count,
/// type, time, algbw, busbw, algorithm/protocol) for one group shape on a cluster, from the
/// same comm model the step uses. The front resolves the cluster and the group from its flags or
/// a scenario; the table's own flags are checked here and the table rendered as text or JSON.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "flopcast/comm/comm_model.hpp"
#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/parallel/parallel_plan.hpp"

namespace flopcast::app {

/// The table's flags as given (nccl-tests' names and defaults).
struct CollectiveTableFlags {
  std::string op = "all_reduce";
  std::string min_size = "8";
  std::string max_size = "8G";
  double step_factor = 2.0;
  std::string dtype = "float";
  std::string algo;   ///< "" = NCCL's choice
  std::string proto;  ///< "" = NCCL's choice
};

/// The table's flags, checked: the collective, the element type, the sizes and any forced
/// algorithm or protocol.
struct CollectiveTableRequest {
  comm::Collective op = comm::Collective::AllReduce;
  std::string dtype = "float";
  double type_bytes = 4.0;
  double min_bytes = 8.0, max_bytes = 8.0;
  double step_factor = 2.0;
  comm::CommOverride force;
};

/// Checks `flags`; nullopt with `error` naming the flag and what it takes when one is wrong.
std::optional<CollectiveTableRequest> collective_table_request(const CollectiveTableFlags& flags, std::string& error);

/// nccl-tests' data types and their sizes in bytes; nullopt for another name.
std::optional<double> nccl_dtype_bytes(const std::string& type);
/// nccl-tests' -b/-e sizes: a number with an optional K, M, G or T suffix (powers of 1024), or any
/// byte string io::parse_bytes accepts ("512 MiB", "1GB"); nullopt when neither.
std::optional<double> nccl_size_bytes(const std::string& size);

/// The cluster a table is for.
struct CollectiveCluster {
  hardware::GpuSpec gpu;
  hardware::FabricSpec fabric;
  std::int64_t gpus = 0;
  std::optional<parallel::ParallelPlan> plan;  ///< from a scenario: defines its groups
};

/// The table's rows, as text lines and as JSON objects.
struct CollectiveTable {
  std::string rows_text;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::int64_t groups_used = 1;      ///< groups of the shape communicating at once, as the model counts them
  std::int64_t domains_spanned = 1;  ///< NVLink domains one group spans
};

/// One row per size from the request's smallest to its largest, `concurrent` groups of `shape`
/// at once.
CollectiveTable collective_table(const CollectiveTableRequest& request, const comm::CommModel& model,
                                 const topology::GroupShape& shape, std::int64_t concurrent);

/// The table as nccl-tests prints it, under a header naming the cluster, the group and the model.
std::string collective_table_text(const CollectiveTableRequest& request, const CollectiveCluster& cluster,
                                  const comm::CommModel& model, const topology::GroupShape& shape,
                                  const CollectiveTable& table);
/// The table as one JSON document.
std::string collective_table_json(const CollectiveTableRequest& request, const CollectiveCluster& cluster,
                                  const comm::CommModel& model, const topology::GroupShape& shape,
                                  const CollectiveTable& table);

}  // namespace flopcast::app

#pragma once
/// Measured collective benchmarks (data/calibration/collectives*.yaml): nccl-tests figures
/// for a GPU count and a message size, which `validate` compares with core/comm.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/comm/collective.hpp"
#include "flopcast/io/catalog.hpp"

namespace flopcast::io {

/// One measured collective point.
struct CollectiveRun {
  std::string id;
  std::string source;
  SourceLocation where;
  GpuSpec gpu;
  std::int64_t gpus = 0;
  int gpus_per_node = 8;
  FabricSpec fabric;
  Collective op = Collective::AllReduce;
  std::optional<double> message_bytes;  ///< nullopt = the large-message plateau
  bool force_ring = false;              ///< measured with NCCL_ALGO=RING (stated in notes)
  std::map<std::string, double> measured;  ///< busbw_gbytes_s, algbw_gbytes_s, time_us
};

/// True when the YAML list's entries are collective benchmarks (they carry `collective:`).
bool is_collective_run_file(const std::string& text);

/// Parses a collective benchmark file; bad entries are reported and skipped.
std::vector<CollectiveRun> parse_collective_runs(const std::string& text, const std::string& file,
                                                 const Catalog& catalog, Diagnostics& diags);

}  // namespace flopcast::io

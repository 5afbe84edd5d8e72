#pragma once
/// Measured collective benchmarks (data/calibration/collectives*.yaml): nccl-tests figures
/// for a GPU count and a message size, which `validate` compares with core/comm.
#include <string>
#include <vector>

#include "flopcast/calibrate/validation.hpp"
#include "flopcast/io/catalog.hpp"

namespace flopcast::io {

/// One measured collective point (the struct lives in core, which predicts it).
using CollectiveRun = calibrate::MeasuredCollective;

/// True when the YAML list's entries are collective benchmarks (they carry `collective:`).
bool is_collective_run_file(const std::string& text);

/// Parses a collective benchmark file; bad entries are reported and skipped.
std::vector<CollectiveRun> parse_collective_runs(const std::string& text, const std::string& file,
                                                 const Catalog& catalog, scenario::Diagnostics& diags);

}  // namespace flopcast::io

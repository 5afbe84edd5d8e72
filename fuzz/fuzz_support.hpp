#pragma once
/// Shared by the libFuzzer targets: the embedded catalog (loaded once per process) and a
/// check that runs the step estimate on every scenario that loads, so the model's
/// arithmetic is fuzzed along with the loaders.
#include <cstdint>
#include <string>

#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::fuzz {

/// The catalogs compiled into the binary (data/), loaded on first use. Aborts when they do
/// not load: a fuzz run against no catalog would find nothing.
const io::Catalog& embedded_catalog();

/// GPUs whose step estimates one fuzz input may run. The topology-based NCCL model costs time
/// in proportion to the cluster (16,384 GPUs take 20 s under ASan + coverage, past the 10 s
/// timeout), so a fuzz input estimates small clusters only; the 10^6-GPU limit is tested in
/// tests/cli/test_limits.cpp.
inline constexpr std::int64_t kEstimateGpuBudget = 2048;

/// Micro-batches x pipeline chunks (pp x vpp) one fuzz input may simulate event by event: tens
/// of thousands of events, under a second with ASan + coverage (a 5-minute run of both targets,
/// measured: slowest input under 1 s against the 10 s timeout).
inline constexpr std::int64_t kSimulateSlotBudget = 4096;

/// Runs estimate_step on `s` with the catalog's default profile when its cluster fits in
/// `gpu_budget` (which it then reduces), then simulate_step when its pipeline fits in
/// kSimulateSlotBudget, and aborts (a fuzz finding) when a figure is NaN or infinite or the
/// simulated breakdown does not sum to the simulated step.
void estimate_checked(const scenario::Scenario& s, std::int64_t& gpu_budget);

/// The fuzz input as text. YAML needs no terminating NUL, but yaml-cpp reads std::string.
std::string input_text(const unsigned char* data, std::size_t size);

}  // namespace flopcast::fuzz

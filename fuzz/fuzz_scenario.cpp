// libFuzzer target: a scenario file through io::parse_scenario (YAML, catalog lookups,
// reliability: and pricing: blocks, check_scenario), then the step estimate and the discrete-event step.
#include <cstddef>
#include <cstdint>

#include "flopcast/io/scenario_loader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flopcast;
  scenario::Diagnostics diags;
  const auto s = io::parse_scenario(fuzz::input_text(data, size), "fuzz.yaml", fuzz::embedded_catalog(), diags);
  std::int64_t budget = fuzz::kEstimateGpuBudget;
  if (s) fuzz::estimate_checked(*s, budget);
  (void)diags.str();  // renders every diagnostic, as the CLI does
  return 0;
}

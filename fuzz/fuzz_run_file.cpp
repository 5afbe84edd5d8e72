// libFuzzer target: a measured-run file (data/calibration/*.yaml) through io::parse_run_file,
// then the step estimate of every entry that loads.
#include <cstddef>
#include <cstdint>

#include "flopcast/io/scenario_loader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flopcast;
  scenario::Diagnostics diags;
  const auto entries = io::parse_run_file(fuzz::input_text(data, size), "fuzz.yaml", fuzz::embedded_catalog(), diags);
  std::int64_t budget = fuzz::kEstimateGpuBudget;
  for (const auto& e : entries) {
    if (e.scenario) fuzz::estimate_checked(*e.scenario, budget);
    (void)e.diags.str();
  }
  (void)diags.str();
  return 0;
}

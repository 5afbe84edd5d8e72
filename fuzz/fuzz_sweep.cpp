// libFuzzer target: a sweep file through io::parse_sweep (YAML, axes, zipped keys, ranges,
// the point limit), then the scenarios of its first and last points through
// io::sweep_point_scenario (each point's values set into the base, dp: auto resolved,
// parse_scenario and check_scenario), the step estimate and the discrete-event step.
//
// The sweep file is named as if it lay in scenarios/sweeps/, so a seed's `base: ../quickstart.yaml`
// reads the real scenario. A `base:` that resolves outside scenarios/ is skipped: the fuzzer
// would otherwise read /dev/zero or /proc files, which says nothing about the loader.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "flopcast/io/sweep_loader.hpp"
#include "fuzz_support.hpp"

namespace {

const std::filesystem::path kScenarios = std::filesystem::path(FLOPCAST_FUZZ_SCENARIOS_DIR).lexically_normal();
const std::string kSweepFile = (kScenarios / "sweeps" / "fuzz.sweep.yml").string();

/// Whether the input's `base:` (when it has one) names a regular file under scenarios/, resolved
/// as parse_sweep resolves it (relative to the sweep file's folder).
bool base_inside_scenarios(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
    if (!root.IsMap()) return true;
    const auto b = root["base"];
    if (!b || !b.IsScalar()) return true;
    std::filesystem::path p(b.Scalar());
    if (p.is_relative()) p = std::filesystem::path(kSweepFile).parent_path() / p;
    p = p.lexically_normal();
    const auto rel = p.lexically_relative(kScenarios);
    if (rel.empty() || *rel.begin() == "..") return false;
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec);
  } catch (const YAML::Exception&) {
    return true;  // parse_sweep reports malformed YAML itself
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flopcast;
  const std::string text = fuzz::input_text(data, size);
  if (!base_inside_scenarios(text)) return 0;
  scenario::Diagnostics diags;
  const auto spec = io::parse_sweep(text, kSweepFile, diags);
  if (spec) {
    const std::int64_t n = spec->points();
    if (n < 1 || n > io::kMaxSweepPoints) {  // parse_sweep refuses empty axes and too many points
      std::fprintf(stderr, "flopcast fuzz finding: a loaded sweep has %lld points\n", static_cast<long long>(n));
      std::abort();
    }
    (void)spec->keys();
    (void)io::check_sweep_keys(*spec, fuzz::embedded_catalog(), diags);  // point 0 read for its keys
    std::int64_t budget = fuzz::kEstimateGpuBudget;
    for (const std::int64_t i : {std::int64_t{0}, n - 1}) {
      (void)spec->point_values(i);
      scenario::Diagnostics point_diags;
      if (const auto s = io::sweep_point_scenario(*spec, i, fuzz::embedded_catalog(), point_diags))
        fuzz::estimate_checked(*s, budget);
      (void)point_diags.str();
    }
  }
  (void)diags.str();  // renders every diagnostic, as the CLI does
  return 0;
}

#include "fuzz_support.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/step/step_simulation.hpp"

namespace flopcast::fuzz {
namespace {

[[noreturn]] void finding(const char* what, double value) {
  std::fprintf(stderr, "flopcast fuzz finding: %s = %g\n", what, value);
  std::abort();
}

void require_finite(const char* what, double value) {
  if (!std::isfinite(value)) finding(what, value);
}

}  // namespace

const io::Catalog& embedded_catalog() {
  static const io::Catalog catalog = [] {
    scenario::Diagnostics diags;
    auto c = io::load_catalog("", diags);
    if (!c) {
      std::fprintf(stderr, "the embedded catalog does not load:\n%s\n", diags.str().c_str());
      std::abort();
    }
    return std::move(*c);
  }();
  return catalog;
}

void estimate_checked(const scenario::Scenario& s, std::int64_t& gpu_budget) {
  if (s.cluster.gpus > gpu_budget) return;
  gpu_budget -= s.cluster.gpus;
  const estimate::StepEstimate e = estimate::estimate_step(s, embedded_catalog().profile);
  // Time is integer nanoseconds and saturates; the double figures must stay finite
  // (no NaN or infinity reaches an output).
  require_finite("model_flops", e.model_flops.value);
  require_finite("hardware_flops", e.hardware_flops.value);
  require_finite("mfu", e.mfu);
  require_finite("hfu", e.hfu);
  require_finite("tokens_per_s", e.tokens_per_s);
  require_finite("memory", e.memory.total().value);

  // The discrete-event step over the same costs, when the pipeline is small enough to simulate
  // well inside the timeout. Its breakdown sums to the step by construction (step_result.hpp).
  const parallel::ParallelPlan& p = s.plan;
  if (p.microbatches() > kSimulateSlotBudget / (static_cast<std::int64_t>(p.pp) * p.vpp)) return;
  step::StepSimOptions options;
  options.timeline = false;
  const step::StepResult r = step::simulate_step(s, embedded_catalog().profile, options);
  if (r.step.ns < 0) finding("simulated step (ns)", static_cast<double>(r.step.ns));
  if (r.breakdown.total() != r.step)
    finding("simulated step minus its breakdown (ns)", static_cast<double>(r.step.ns - r.breakdown.total().ns));
  require_finite("simulated mfu", r.mfu);
  require_finite("simulated hfu", r.hfu);
  require_finite("simulated tokens_per_s", r.tokens_per_s);
}

std::string input_text(const unsigned char* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace flopcast::fuzz

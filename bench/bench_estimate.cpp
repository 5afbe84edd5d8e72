// Prints how many closed-form step estimates per second one core computes for GPT-3 175B on
// 1,024 A100 (TP8 PP16 DP8), the case the planner ranks plans with (target >= 1e6/s).
#include <chrono>
#include <cstdio>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"

int main() {
  using namespace flopcast;
  scenario::Diagnostics diags;
  const auto cat = io::load_catalog("", diags);
  if (!cat) {
    std::fprintf(stderr, "%s", diags.str().c_str());
    return 1;
  }
  const char* yaml = R"(
model: gpt3-175b
cluster: {gpu: A100-80G, gpus: 1024}
parallel: {tp: 8, pp: 16, dp: 8, micro_batch: 1, global_batch: 1536, recompute: full, sequence_parallel: true, zero: 1}
precision: bf16
)";
  auto s = io::parse_scenario(yaml, "bench", *cat, diags);
  if (!s) {
    std::fprintf(stderr, "%s", diags.str().c_str());
    return 1;
  }
  double sink = 0;
  const int warm = 200;
  for (int i = 0; i < warm; ++i) sink += estimate::estimate_step(*s, cat->profile).step.seconds();
  int n = 0;
  const auto t0 = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    for (int i = 0; i < 1000; ++i) {
      s->plan.micro_batch = 1 + (i & 1);  // vary the plan so nothing is hoisted out of the loop
      sink += estimate::estimate_step(*s, cat->profile).step.seconds();
    }
    n += 1000;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (elapsed < 2.0);
  std::printf(
      "bench_estimate: GPT-3 175B on 1024 A100 (tp8 pp16 dp8): %d estimates in %.2f s = %.0f estimates/s on one core "
      "(%.2f us each; checksum %.3f)\n",
      n, elapsed, n / elapsed, elapsed / n * 1e6, sink);
  return 0;
}

#pragma once
/// Resolving plan settings a scenario leaves open (run-schema.md, "Settings a source often
/// leaves out"): in a measured run those the entry does not state, in a scenario those written
/// `auto`. The run did fit in memory, so among the choices that fit the GPU's memory the one
/// the closed-form estimate predicts fastest is taken: one rule for simulate, validate,
/// calibrate and the planner.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::estimate {

/// The choices resolution considers for one open setting; a stated setting has one, its value.
/// - micro_batch: the divisors of global_batch / dp, ascending (up to kMaxResolvedMicroBatch);
/// - vpp: 1 (schedule 1f1b) and every v > 1 with layers divisible by pp * v (interleaved), unless
///   the scenario names its schedule (interleaved: v > 1 only; any other: 1 only);
/// - zero: 0 and 1 with pipeline parallelism (Megatron's distributed optimizer; ZeRO-2/3 are
///   not combined with pipelines), 0-3 without; 0 only when nothing is data-parallel;
/// - sequence_parallel: false, and true when tp > 1;
/// - recompute: none, selective, full;
/// - grad_reduce: the precision's default first (Megatron-LM: fp32 for bf16 and FP8, fp16 for
///   fp16), then the other of fp32 and the parameters' 16-bit dtype;
/// - fp8_params (FP8 precisions): false (16-bit weights beside their FP8 copies) and true;
/// - overlap_tp_comm (tp > 1): false and true, true only with sequence parallelism (Megatron-LM
///   --tp-comm-overlap, Transformer Engine's comm-GEMM overlap; its userbuffers are not counted
///   in memory);
/// - overlap_ep_comm (ep > 1): false and true, true only where Megatron-core allows it (no full
///   recompute, vpp > 1 when pp > 1, not the allgather dispatcher, not DualPipe, which overlaps
///   its own pairs).
/// Schedules that need extra framework support (zero-bubble, GPipe) are never chosen.
struct SettingChoices {
  std::vector<std::int64_t> micro_batch;
  std::vector<int> vpp;
  std::vector<int> zero;
  std::vector<bool> sequence_parallel;
  std::vector<parallel::Recompute> recompute;
  std::vector<scenario::GradReduce> grad_reduce;
  std::vector<bool> fp8_params;
  std::vector<bool> overlap_tp_comm;
  std::vector<bool> overlap_ep_comm;
  std::vector<std::optional<parallel::MoeDispatcher>> moe_dispatcher;
};
SettingChoices setting_choices(const scenario::Scenario& s);

/// The gradient dtype as the `grad_reduce` key writes it: "fp32", "bf16" or "fp16".
std::string grad_reduce_text(hardware::Precision p, scenario::GradReduce g);

/// The largest micro-batch resolution considers, sequences. A bound on the search, not a
/// setting: past it a larger micro-batch no longer shortens any calibration run's predicted
/// step by a measurable amount (kernels are long enough that their launch costs are hidden).
inline constexpr std::int64_t kMaxResolvedMicroBatch = 512;

/// Resolves `s`'s open settings in place: of every combination of setting_choices() (in the
/// order listed, micro-batch outermost) that fits the GPU's memory, the one with the shortest
/// closed-form step time; ties go to the earlier. When none fits, the combination needing the
/// least memory is taken and `fits` is false (for a measured run: a failure of the memory model).
/// Records the outcome in s.resolved_settings and lists each chosen value in s.defaults_applied
/// ("parallel.zero = 1 (resolved: ...)"), replacing an earlier resolution's entries; a scenario
/// without open settings is left as it is. Either way, a measured run's mfu and tflops_per_gpu are
/// then converted from its flops_convention to flopcast's count (convert_measured_flops), as the
/// plan is final. Deterministic.
const parallel::ResolvedSettings& resolve_open_settings(scenario::Scenario& s, const compute::ComputeProfile& profile);

}  // namespace flopcast::estimate

#pragma once
/// Plan settings a source often leaves out (micro-batch, ZeRO stage, recompute, sequence
/// parallelism, interleaving): which of them a scenario leaves open, and what resolving them
/// chose (run-schema.md, "Settings a source often leaves out").
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace flopcast::parallel {

/// The settings to resolve: in a measured-run file those the entry does not state, in a
/// scenario those given as `auto`. Resolved (core/estimate/setting_resolution.hpp) as the
/// fastest choice that fits the GPU's memory.
struct OpenSettings {
  bool micro_batch = false;
  bool zero = false;
  bool recompute = false;
  bool sequence_parallel = false;
  bool vpp = false;              ///< with it the schedule, unless `schedule` was stated
  bool schedule_stated = true;   ///< the scenario names its schedule (an open vpp then keeps it)
  bool grad_reduce = false;      ///< the gradients' dtype (fp32 main_grad or the 16-bit one)
  bool fp8_params = false;       ///< FP8 precisions: weights in FP8 only, or also in 16 bits
  bool overlap_tp_comm = false;  ///< tp > 1: TP collectives overlapped with GEMMs (needs sequence parallelism)
  bool overlap_ep_comm = false;  ///< ep > 1: MoE all-to-all hidden under another micro-batch's compute
  bool moe_dispatcher = false;   ///< ep > 1: the token dispatcher (alltoall, DeepEP, Hybrid-EP)
  bool any() const {
    return micro_batch || zero || recompute || sequence_parallel || vpp || grad_reduce || fp8_params ||
           overlap_tp_comm || overlap_ep_comm || moe_dispatcher;
  }
};

/// What resolving the open settings chose.
struct ResolvedSettings {
  bool resolved = false;  ///< resolution ran (the scenario had open settings)
  /// The chosen value of each open setting, e.g. {"parallel.micro_batch", "2"}, in the order
  /// micro_batch, vpp, schedule, zero, sequence_parallel, recompute, grad_reduce, fp8_params,
  /// overlap_tp_comm, overlap_ep_comm, moe_dispatcher.
  std::vector<std::pair<std::string, std::string>> chosen;
  bool fits = true;            ///< some choice fits the GPU's memory (false: the leanest was taken)
  std::size_t candidates = 0;  ///< choices considered
  double memory_gib = 0;       ///< memory per GPU of the chosen plan, GiB
  double capacity_gib = 0;     ///< the GPU's HBM, GiB
  /// Median and 90th percentile, over every choice that fits, of its closed-form step time over
  /// the chosen (fastest) one's: how much slower the run could have been had it chosen otherwise
  /// (1 when only one fits). The prediction band's median and slow end grow by them
  /// (widened_for_open_settings).
  double spread_p50 = 1, spread_p90 = 1;
};

}  // namespace flopcast::parallel

#include "flopcast/search/framework_rules.hpp"

namespace flopcast::search {
namespace {

// Each rule names the framework file that decides it. They were read in the frameworks'
// public sources: Megatron-LM (megatron/core), DeepSpeed (deepspeed/runtime), torchtitan and
// PyTorch's torch.distributed.pipelining.
//
// Megatron-core
// - Data parallelism: DDP or the distributed optimizer (megatron/core/optimizer/distrib_optimizer.py,
//   "Optimizer that shards state across data-parallel ranks"): optimizer state and fp32 main
//   parameters are sharded, the bf16 parameters and the gradient buffer are not: ZeRO-1. ZeRO-2
//   and ZeRO-3 are not plans of its distributed optimizer.
// - Pipeline schedules: megatron/core/pipeline_parallel/schedules.py get_forward_backward_func
//   returns forward_backward_no_pipelining, forward_backward_pipelining_without_interleaving
//   (1F1B) or forward_backward_pipelining_with_interleaving (virtual stages): no GPipe, no
//   zero-bubble.
// - TP, SP, CP and EP: megatron/core/parallel_state.py initialize_model_parallel (tensor,
//   pipeline, context and expert model-parallel sizes).
// DeepSpeed
// - deepspeed/runtime/pipe/engine.py PipelineEngine.__init__ asserts zero_optimization_stage() < 2
//   ("ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism").
// - deepspeed/runtime/pipe/schedule.py TrainSchedule is its one training schedule (1F1B order,
//   one model chunk per stage): no interleaving, zero-bubble or GPipe.
// - Its sequence parallelism (deepspeed/sequence/layer.py DistributedAttention, Ulysses) is an
//   all-to-all over attention heads, not the ring exchange of K/V flopcast's cp models.
// - Tensor parallelism through Megatron-DeepSpeed's Megatron layers (with or without sequence
//   parallelism); experts through deepspeed/moe/layer.py (ep_size).
// torchtitan (FSDP2)
// - Data parallelism: FSDP2 fully_shard (ZeRO-3; reshard_after_forward=False keeps the
//   gathered parameters: ZeRO-2) or DDP replicas (torchtitan's parallelize_llama.py apply_fsdp,
//   apply_ddp): no optimizer-only sharding (ZeRO-1).
// - Tensor parallelism always shards the norms along the sequence (apply_tp's SequenceParallel
//   plans for the norm layers): TP without sequence parallelism is not one of its plans.
// - Pipeline schedules: torch/distributed/pipelining/schedules.py ScheduleGPipe, Schedule1F1B,
//   ScheduleInterleaved1F1B, ScheduleInterleavedZeroBubble / ScheduleZBVZeroBubble, all with FSDP.
// - Context parallelism: torch.distributed.tensor.experimental.context_parallel (ring attention).

bool megatron_runs(const ParallelPlan& p) {
  if (p.zero > 1) return false;
  return p.pp == 1 || p.schedule == Schedule::OneFOneB || p.schedule == Schedule::Interleaved;
}

bool deepspeed_runs(const ParallelPlan& p) {
  if (p.cp > 1) return false;
  if (p.pp > 1 && (p.zero >= 2 || p.schedule != Schedule::OneFOneB || p.vpp > 1)) return false;
  return true;
}

bool torchtitan_runs(const ParallelPlan& p) {
  if (p.zero == 1) return false;
  if (p.tp > 1 && !p.sequence_parallel) return false;
  return true;
}

}  // namespace

const char* to_string(Framework f) {
  switch (f) {
    case Framework::MegatronCore:
      return "Megatron-core";
    case Framework::DeepSpeed:
      return "DeepSpeed";
    case Framework::TorchTitan:
      return "torchtitan (FSDP2)";
  }
  return "?";
}

std::string FrameworkSet::str() const {
  std::string s;
  for (const Framework f : {Framework::MegatronCore, Framework::DeepSpeed, Framework::TorchTitan})
    if (has(f)) s += (s.empty() ? "" : ", ") + std::string(to_string(f));
  return s.empty() ? "none" : s;
}

FrameworkSet frameworks_for(const ParallelPlan& plan, const ModelSpec& /*model*/) {
  FrameworkSet s;
  if (megatron_runs(plan)) s.bits |= static_cast<std::uint8_t>(Framework::MegatronCore);
  if (deepspeed_runs(plan)) s.bits |= static_cast<std::uint8_t>(Framework::DeepSpeed);
  if (torchtitan_runs(plan)) s.bits |= static_cast<std::uint8_t>(Framework::TorchTitan);
  return s;
}

std::vector<std::string> framework_exclusions(const ParallelPlan& p, const ModelSpec& /*model*/) {
  std::vector<std::string> why;
  if (p.zero > 1)
    why.push_back(
        "Megatron-core: its distributed optimizer shards optimizer state only (ZeRO-1; "
        "megatron/core/optimizer/distrib_optimizer.py), not ZeRO-" +
        std::to_string(p.zero));
  else if (p.pp > 1 && p.schedule != Schedule::OneFOneB && p.schedule != Schedule::Interleaved)
    why.push_back(std::string("Megatron-core: no ") + to_string(p.schedule) +
                  " schedule (megatron/core/pipeline_parallel/schedules.py has 1F1B and interleaved)");
  if (p.cp > 1)
    why.push_back(
        "DeepSpeed: its sequence parallelism is Ulysses' all-to-all over heads "
        "(deepspeed/sequence/layer.py), not context parallelism");
  else if (p.pp > 1 && p.zero >= 2)
    why.push_back(
        "DeepSpeed: ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism "
        "(deepspeed/runtime/pipe/engine.py)");
  else if (p.pp > 1 && (p.schedule != Schedule::OneFOneB || p.vpp > 1))
    why.push_back(std::string("DeepSpeed: no ") + to_string(p.schedule) +
                  " schedule (deepspeed/runtime/pipe/schedule.py TrainSchedule is 1F1B)");
  if (p.zero == 1)
    why.push_back(
        "torchtitan (FSDP2): FSDP2 shards parameters, gradients and optimizer state together "
        "(ZeRO-3, or ZeRO-2 without resharding after forward); no ZeRO-1");
  else if (p.tp > 1 && !p.sequence_parallel)
    why.push_back(
        "torchtitan (FSDP2): its tensor parallelism always shards the norms along the sequence "
        "(sequence parallelism on)");
  return why;
}

}  // namespace flopcast::search

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

// Fine-tuning with adapters (LoRA, QLoRA): each family's fine-tuning route, read in its source.
// NeMo (Megatron-core)
// - LoRA adapters on Megatron-core's parallel linear layers (nemo/collections/llm/peft/lora.py,
//   ParallelLinearAdapter): every parallelism of full training; MLPerf Training v4.0's Llama 2
//   70B LoRA runs on it with TP 4 + SP and CP 2 (MLPERF-T40 in docs/references.md).
// - QLoRA: NF4LinearWrapper replaces Transformer Engine's parallel linear layers and "Tensor
//   Parallel is not supported" (nemo/collections/nlp/modules/common/megatron/adapters/qlora.py).
// DeepSpeed (Hugging Face PEFT)
// - LoRA and QLoRA on a Transformers model under the DeepSpeed engine through Accelerate, ZeRO-1
//   to 3 (peft docs/source/accelerate/deepspeed.md): data parallelism only; a Transformers model
//   is no Megatron tensor-parallel or pipeline module, and has no context or expert parallelism.
// torchtune (FSDP2)
// - recipes/lora_finetune_distributed.py (LoRA and QLoRA): fully_shard on every layer (ZeRO-3,
//   or ZeRO-2 with fsdp_reshard_after_forward false; "DDP is currently not supported"), context
//   parallelism (context_parallel_dim), "Tensor parallelism is not supported in this recipe"; no
//   pipeline, dense models ("for dense transformer-based LLMs"). One GPU is its single-device
//   recipe. torchtitan itself has no adapters.

bool nemo_peft_runs(const parallel::ParallelPlan& p, workload::TrainingMethod m) {
  return (m != workload::TrainingMethod::QLora || p.tp == 1) && (p.zero <= 1) &&
         (p.pp == 1 || p.schedule == parallel::Schedule::OneFOneB || p.schedule == parallel::Schedule::Interleaved);
}

bool hf_peft_deepspeed_runs(const parallel::ParallelPlan& p) {
  return p.tp == 1 && p.pp == 1 && p.cp == 1 && p.ep == 1;
}

bool torchtune_runs(const parallel::ParallelPlan& p) {
  return p.tp == 1 && p.pp == 1 && p.ep == 1 && (p.zero >= 2 || p.dp * p.cp == 1);
}

bool megatron_runs(const parallel::ParallelPlan& p) {
  if (p.zero > 1) return false;
  return p.pp == 1 || p.schedule == parallel::Schedule::OneFOneB || p.schedule == parallel::Schedule::Interleaved;
}

bool deepspeed_runs(const parallel::ParallelPlan& p) {
  if (p.cp > 1) return false;
  if (p.pp > 1 && (p.zero >= 2 || p.schedule != parallel::Schedule::OneFOneB || p.vpp > 1)) return false;
  return true;
}

bool torchtitan_runs(const parallel::ParallelPlan& p) {
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
  for (const Framework f : {Framework::MegatronCore, Framework::DeepSpeed, Framework::TorchTitan}) {
    if (!has(f)) continue;
    const char* name = !adapters                      ? to_string(f)
                       : f == Framework::MegatronCore ? "NeMo (Megatron-core)"
                       : f == Framework::DeepSpeed    ? "DeepSpeed (Hugging Face PEFT)"
                                                      : "torchtune (FSDP2)";
    s += (s.empty() ? "" : ", ") + std::string(name);
  }
  return s.empty() ? "none" : s;
}

FrameworkSet frameworks_for(const parallel::ParallelPlan& plan, const workload::ModelSpec& /*model*/,
                            workload::TrainingMethod method) {
  FrameworkSet s;
  s.adapters = method != workload::TrainingMethod::Full;
  const bool megatron = s.adapters ? nemo_peft_runs(plan, method) : megatron_runs(plan);
  const bool deepspeed = s.adapters ? hf_peft_deepspeed_runs(plan) : deepspeed_runs(plan);
  const bool fsdp2 = s.adapters ? torchtune_runs(plan) : torchtitan_runs(plan);
  if (megatron) s.bits |= static_cast<std::uint8_t>(Framework::MegatronCore);
  if (deepspeed) s.bits |= static_cast<std::uint8_t>(Framework::DeepSpeed);
  if (fsdp2) s.bits |= static_cast<std::uint8_t>(Framework::TorchTitan);
  return s;
}

namespace {

/// Why each fine-tuning route does not run `p` (framework_exclusions for LoRA and QLoRA).
std::vector<std::string> adapter_exclusions(const parallel::ParallelPlan& p, workload::TrainingMethod method) {
  std::vector<std::string> why;
  if (method == workload::TrainingMethod::QLora && p.tp > 1)
    why.push_back(
        "NeMo (Megatron-core): its QLoRA NF4 layers have no tensor parallelism "
        "(nemo/collections/nlp/modules/common/megatron/adapters/qlora.py)");
  else if (!nemo_peft_runs(p, method))
    why.push_back("NeMo (Megatron-core): its LoRA runs Megatron-core's plans (ZeRO-1 at most, 1F1B or interleaved)");
  if (!hf_peft_deepspeed_runs(p))
    why.push_back(
        "DeepSpeed (Hugging Face PEFT): a Transformers model under ZeRO has data parallelism only, no tensor, "
        "pipeline, context or expert parallelism (peft docs/source/accelerate/deepspeed.md)");
  if (p.tp > 1)
    why.push_back(
        "torchtune (FSDP2): \"Tensor parallelism is not supported in this recipe\" "
        "(recipes/lora_finetune_distributed.py)");
  else if (!torchtune_runs(p))
    why.push_back(
        "torchtune (FSDP2): FSDP2 data parallelism (ZeRO-2 or 3) with context parallelism, no pipeline or experts "
        "(recipes/lora_finetune_distributed.py)");
  return why;
}

}  // namespace

std::vector<std::string> framework_exclusions(const parallel::ParallelPlan& p, const workload::ModelSpec& /*model*/,
                                              workload::TrainingMethod method) {
  if (method != workload::TrainingMethod::Full) return adapter_exclusions(p, method);
  std::vector<std::string> why;
  if (p.zero > 1)
    why.push_back(
        "Megatron-core: its distributed optimizer shards optimizer state only (ZeRO-1; "
        "megatron/core/optimizer/distrib_optimizer.py), not ZeRO-" +
        std::to_string(p.zero));
  else if (p.pp > 1 && p.schedule != parallel::Schedule::OneFOneB && p.schedule != parallel::Schedule::Interleaved)
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
  else if (p.pp > 1 && (p.schedule != parallel::Schedule::OneFOneB || p.vpp > 1))
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

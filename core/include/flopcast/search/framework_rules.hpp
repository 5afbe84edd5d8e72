#pragma once
/// Which training frameworks run a parallel plan: Megatron-core (Megatron-LM), DeepSpeed
/// (with Megatron-DeepSpeed for tensor parallelism) and FSDP2 / torchtitan. Fine-tuning with
/// adapters (LoRA, QLoRA) takes each family's fine-tuning route instead: NeMo on Megatron-core,
/// Hugging Face PEFT under DeepSpeed, torchtune on FSDP2 (torchtitan has no adapters). The
/// planner keeps only plans at least one of them runs and names the frameworks on each plan;
/// quotes name them too. Each rule cites the framework source it comes from (framework_rules.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "flopcast/parallel/parallel_plan.hpp"
#include "flopcast/workload/fine_tuning_spec.hpp"
#include "flopcast/workload/model_spec.hpp"

namespace flopcast::search {

/// A training framework, as a bit of a FrameworkSet.
enum class Framework : std::uint8_t { MegatronCore = 1, DeepSpeed = 2, TorchTitan = 4 };

/// A set of frameworks (bits of Framework).
struct FrameworkSet {
  std::uint8_t bits = 0;
  /// For fine-tuning with adapters: the families' fine-tuning routes are named ("NeMo
  /// (Megatron-core)", "DeepSpeed (Hugging Face PEFT)", "torchtune (FSDP2)").
  bool adapters = false;
  bool empty() const { return bits == 0; }
  /// Every framework flopcast models (with adapters: their fine-tuning routes).
  static FrameworkSet all(bool adapters) {
    return {static_cast<std::uint8_t>(static_cast<std::uint8_t>(Framework::MegatronCore) |
                                      static_cast<std::uint8_t>(Framework::DeepSpeed) |
                                      static_cast<std::uint8_t>(Framework::TorchTitan)),
            adapters};
  }
  bool has(Framework f) const { return (bits & static_cast<std::uint8_t>(f)) != 0; }
  /// "Megatron-core, torchtitan (FSDP2)"; "none" when empty.
  std::string str() const;
};

/// "Megatron-core", "DeepSpeed", "torchtitan (FSDP2)".
const char* to_string(Framework f);

/// The frameworks that run `plan` for `model`, trained with `method` (full training, or the
/// fine-tuning routes for LoRA and QLoRA).
FrameworkSet frameworks_for(const parallel::ParallelPlan& plan, const workload::ModelSpec& model,
                            workload::TrainingMethod method = workload::TrainingMethod::Full);

/// Why each framework does not run `plan` (one line per framework left out, with its source);
/// empty when all three run it.
std::vector<std::string> framework_exclusions(const parallel::ParallelPlan& plan, const workload::ModelSpec& model,
                                              workload::TrainingMethod method = workload::TrainingMethod::Full);

}  // namespace flopcast::search

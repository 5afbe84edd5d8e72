#pragma once
/// A scenario: model + cluster + plan + precision + training length, and optional blocks
/// (reliability, pricing, claimed figures, measured figures of a validation run).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/job/reliability_spec.hpp"
#include "flopcast/parallel/open_settings.hpp"
#include "flopcast/parallel/parallel_plan.hpp"
#include "flopcast/pricing/pricing_spec.hpp"
#include "flopcast/scenario/diagnostic.hpp"
#include "flopcast/workload/fine_tuning_spec.hpp"
#include "flopcast/workload/model_spec.hpp"

namespace flopcast::scenario {

/// The cluster a job runs on.
struct ClusterSpec {
  hardware::GpuSpec gpu;
  std::int64_t gpus = 0;
  int gpus_per_node = 8;
  hardware::FabricSpec fabric;
  std::int64_t nodes() const { return gpus_per_node > 0 ? (gpus + gpus_per_node - 1) / gpus_per_node : 0; }
};

/// How long to train.
struct TrainingSpec {
  double tokens = 0.0;  ///< tokens to train on; 0 = not given (no whole-run figures)
  workload::TrainingMethod method = workload::TrainingMethod::Full;
  workload::LoraSpec lora;  ///< method lora or qlora only
};

/// Figures a vendor or article claims for this scenario; `simulate` checks them.
struct ClaimedSpec {
  std::map<std::string, double> figures;  ///< mfu, days, memory_gb, tokens_per_day, bubble_fraction, ...
  std::string note;
};

/// The dtype gradients accumulate and are data-parallel reduced in (Megatron-LM
/// --accumulate-allreduce-grads-in-fp32 / --grad-reduce-in-bf16; Megatron-core
/// DistributedDataParallelConfig.grad_reduce_in_fp32; NeMo and Megatron-Bridge
/// `grad_reduce_in_fp32`). Default: the precision's usual one (workload.hpp, grad_bytes).
enum class GradReduce { Default, FP32, Half };

/// How a source counted the FLOPs behind its TFLOP/s or MFU (run schema measured.flops_convention):
/// model (6 per parameter per token plus causal attention, no recompute; the default),
/// model_full_attention (attention over every key: PaLM's, torchtitan's, flopcast's own count),
/// hardware (with recompute), megatron (Megatron-LM's num_floating_point_operations).
enum class FlopsConvention { Model, ModelFullAttention, Hardware, Megatron };
const char* to_string(FlopsConvention c);
std::optional<FlopsConvention> parse_flops_convention(std::string_view s);
/// The count flopcast's model FLOPs, TFLOP/s and every MFU it prints follow.
inline constexpr FlopsConvention kFlopcastFlopsConvention = FlopsConvention::ModelFullAttention;

/// What a source's peak memory counts (run schema measured.memory_kind): the tensors PyTorch
/// allocated (torch.cuda.max_memory_allocated), or what the process reserved
/// (torch.cuda.max_memory_reserved, nvidia-smi); Unstated when the source does not say.
enum class MemoryKind { Unstated, Allocated, Reserved };
const char* to_string(MemoryKind k);

/// One scenario, fully resolved (presets expanded, defaults applied and listed).
struct Scenario {
  std::string name;
  std::string description;
  workload::ModelSpec model;
  ClusterSpec cluster;
  parallel::ParallelPlan plan;
  hardware::Precision precision = hardware::Precision::BF16;
  /// FP8 parameters (Megatron-LM --fp8-param-gather, Transformer Engine fp8_model_init): the
  /// GEMM weights live only in their FP8 copies, without a 16-bit one. FP8 precisions only.
  bool fp8_params = false;
  /// Gradient accumulation and reduction dtype (scenario key `grad_reduce`: fp32, bf16 / fp16 =
  /// the parameters' 16-bit dtype, auto).
  GradReduce grad_reduce = GradReduce::Default;
  /// Transformer blocks an 8- or 4-bit recipe keeps in BF16 (scenario key `bf16_layers`: {first,
  /// last}): the first `first` and the last `last` of the model's layers run their GEMMs in 16 bits,
  /// without casts or 8- / 4-bit weight copies (Megatron-core TransformerConfig
  /// first_last_layers_bf16 with num_layers_at_start_in_bf16 / num_layers_at_end_in_bf16,
  /// megatron/core/fp8_utils.py and fp4_utils.py get_fp8_context / get_fp4_context by layer
  /// number). The MTP modules keep the run's precision (their context is taken without a layer
  /// number). 0 and 0: every layer in the run's precision.
  struct Bf16Layers {
    int first = 0, last = 0;
  } bf16_layers;
  TrainingSpec training;
  job::ReliabilitySpec reliability;
  bool has_reliability = false;
  pricing::PricingSpec pricing;
  bool has_pricing = false;
  ClaimedSpec claimed;
  std::string calibration;  ///< calibration profile name or file ("" = default profile)

  // Measured-run entries (run-schema.md).
  std::string id;
  std::string source;
  /// The publication the run belongs to, for cross-validation (`calibrate --cv source`): the
  /// entry's `source_group`, or its file's name without directory and extension.
  std::string source_group;
  /// iteration_time_s, mfu, tflops_per_gpu, tokens_per_gpu_s, memory_gib. mfu and tflops_per_gpu
  /// in flopcast's count (kFlopcastFlopsConvention): a source's other count is converted when the
  /// plan is final (convert_measured_flops), from measured_as_stated.
  std::map<std::string, double> measured;
  /// mfu and tflops_per_gpu as the source states them, in its flops_convention.
  std::map<std::string, double> measured_as_stated;
  FlopsConvention flops_convention = FlopsConvention::Model;
  bool flops_convention_stated = false;
  MemoryKind memory_kind = MemoryKind::Unstated;
  std::string kind;
  std::string reliability_grade;
  std::vector<std::string> notes;

  /// "key = value (default)" for each default the loader applied, and "key = value (resolved:
  /// ...)" for each open setting resolved; printed by simulate/validate.
  std::vector<std::string> defaults_applied;
  /// Plan settings left open (unstated in a measured run, `auto` in a scenario) and what
  /// resolving them chose (core/estimate/setting_resolution.hpp).
  parallel::OpenSettings open_settings;
  parallel::ResolvedSettings resolved_settings;
  /// Where each key was written (for diagnostics from checks after loading).
  LocationMap locations;
};

}  // namespace flopcast::scenario

#pragma once
/// A parallel plan: how one training step is split over GPUs (Megatron conventions).
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace flopcast::parallel {

enum class Recompute { None, Selective, Full };
/// Pipeline schedules. DualPipe (DeepSeek-V3, arXiv 2412.19437 §3.2.1; github deepseek-ai/DualPipe)
/// feeds micro-batches from both ends of the pipeline, each rank holding two stages (the
/// parameters twice); DualPipeV (the same repository, after Sea AI Lab's "cut-in-half") folds the
/// pipeline into a V, each rank holding two half-size stages, its first and its mirror.
enum class Schedule { GPipe, OneFOneB, Interleaved, ZeroBubble, DualPipe, DualPipeV };
/// How MoE tokens reach their experts (Megatron-core moe_token_dispatcher_type): all-to-all
/// over the expert-parallel group, all-gather of every token, or DeepEP's kernels over NVLink and
/// RDMA (deepseek-ai/DeepEP; Megatron-core's flex dispatcher with moe_enable_deepep).
enum class MoeDispatcher { AllToAll, AllGather, DeepEP, HybridEP };
/// What the MoE dispatches that feed 8-bit expert GEMMs carry on the wire: the forward dispatch
/// (the up-projection's input) and the backward combine (the down-projection's output gradient).
/// BF16, or quantized before the dispatch: FP8 with an FP32 scale per 128 values (DeepSeek-V3,
/// arXiv 2412.19437 §3.3.2, "Low-precision communication"; DeepEP's dispatch takes such an
/// input), or MXFP8 with an E8M0 scale per 32 (Megatron-core moe_dispatch_fwd_dtype and
/// moe_combine_bwd_dtype 'mxfp8', transformer_config.py). The forward combine and the backward
/// dispatch stay BF16 in both.
enum class DispatchDtype { BF16, FP8, MXFP8 };
const char* to_string(Recompute r);
const char* to_string(Schedule s);
const char* to_string(MoeDispatcher d);
const char* to_string(DispatchDtype d);
std::optional<Recompute> parse_recompute(std::string_view s);
std::optional<Schedule> parse_schedule(std::string_view s);
std::optional<MoeDispatcher> parse_moe_dispatcher(std::string_view s);
std::optional<DispatchDtype> parse_dispatch_dtype(std::string_view s);
/// Bytes per value a dispatch of `d` moves: 2, or one byte and its share of the scale (4 / 128
/// for FP8, 1 / 32 for MXFP8).
double dispatch_bytes_per_value(DispatchDtype d);
/// Why the dispatcher `d` cannot send quantized tokens, or nullptr where it can: DeepEP's and
/// Hybrid-EP's dispatch kernels take an FP8 input with its scales; the all-to-all and all-gather
/// dispatchers move the 16-bit tokens.
const char* quantized_dispatch_refusal(MoeDispatcher d);
/// DualPipe or DualPipeV: each pipeline rank holds two model chunks, fed from both directions.
constexpr bool is_dual_pipe(Schedule s) { return s == Schedule::DualPipe || s == Schedule::DualPipeV; }

/// Uneven pipeline stages, as Megatron-LM sets them (megatron/core/transformer/transformer_block.py,
/// get_num_layers_to_build): --decoder-first-pipeline-num-layers and
/// --decoder-last-pipeline-num-layers fix the layers of the first and last pipeline rank (over all
/// of its virtual stages) and the other ranks share the rest evenly; or
/// --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split count the
/// embedding and the loss as one layer each, so layers + 1 (+ 1) split evenly over the ranks and
/// the first (last) virtual stage builds one layer fewer. Megatron refuses the two ways together.
struct PipelineLayout {
  int first_stage_layers = 0;  ///< 0 = not set
  int last_stage_layers = 0;   ///< 0 = not set
  bool account_for_embedding = false;
  bool account_for_loss = false;
};

/// FSDP2 (torch.distributed fully_shard, as torchtitan runs it): ZeRO-3 with per-layer
/// all-gathers prefetched one layer ahead. reshard_after_forward frees a layer's gathered
/// parameters after its forward (gathered again for backward); false keeps them to backward.
struct FsdpSpec {
  bool reshard_after_forward = true;
};

/// Degrees of parallelism and batch split. tp*pp*dp*cp = GPUs. Expert layers regroup each
/// stage's tp*dp*cp GPUs as etp x ep x edp ("MoE parallel folding", Megatron-core's
/// expert_tensor_parallel_size; Liu et al. 2025, arXiv 2504.14960): etp*ep divides tp*dp*cp.
struct ParallelPlan {
  int tp = 1;
  int pp = 1;
  std::int64_t dp = 1;
  int cp = 1;
  int ep = 1;
  int etp = 0;  ///< expert tensor parallel degree; 0 = tp (no folding)
  int vpp = 1;  ///< virtual stages (model chunks) per pipeline rank
  bool sequence_parallel = false;
  int zero = 0;                   ///< ZeRO stage 0..3 (3 = FSDP full shard)
  std::int64_t micro_batch = 1;   ///< sequences per micro-batch per DP rank
  std::int64_t global_batch = 1;  ///< sequences per step
  Recompute recompute = Recompute::None;
  Schedule schedule = Schedule::OneFOneB;
  std::optional<PipelineLayout> pipeline_layout;  ///< uneven stages; none = flopcast's even split
  std::optional<MoeDispatcher> moe_dispatcher;    ///< none = not stated: DeepEP's node-deduplicated dispatch is costed
  /// The dispatcher the step is costed with: the one stated, else DeepEP.
  MoeDispatcher dispatcher() const { return moe_dispatcher.value_or(MoeDispatcher::DeepEP); }
  DispatchDtype dispatch_dtype = DispatchDtype::BF16;  ///< parallel.moe_dispatch_dtype
  std::optional<FsdpSpec> fsdp;                        ///< FSDP2 (with zero 3); none = Megatron / DeepSpeed ZeRO
  bool overlap_dp_comm = true;                         ///< DP gradient sync overlaps backward (bucketed)
  bool overlap_tp_comm = false;                        ///< TP collectives overlap GEMMs (comm/compute overlap)
  bool overlap_ep_comm = false;  ///< MoE dispatch/combine hidden under another micro-batch's compute (Megatron-core)
  bool overlap_pp_comm = true;   ///< PP send/recv overlap compute of other micro-batches
  /// Fused (FlashAttention) kernels; false = Megatron's unfused path (batched GEMM QK^T,
  /// fused scale-mask-softmax, dropout, batched GEMM with V), which also stores the s^2
  /// score tensors (Korthikanti's 5as/h term).
  bool flash_attention = true;
  /// Elementwise ops (norms, rotary, the gated activation) in fused kernels: Megatron-core's and
  /// Transformer Engine's, or torch.compile's. false = PyTorch eager, one kernel per op (torchtitan
  /// without compile, Hugging Face transformers): scenario key `elementwise: eager`.
  bool fused_elementwise = true;

  /// Tensor-parallel degree of the routed experts (etp, or tp when unset).
  int expert_tp() const { return etp > 0 ? etp : tp; }
  /// Expert data-parallel degree: the stage's tp*dp*cp GPUs over etp*ep (at least 1).
  std::int64_t expert_dp() const {
    const std::int64_t group = static_cast<std::int64_t>(expert_tp()) * ep;
    const std::int64_t stage = static_cast<std::int64_t>(tp) * dp * cp;
    return group > 0 && stage >= group ? stage / group : 1;
  }
  /// Micro-batches per step per pipeline (gradient-accumulation steps).
  std::int64_t microbatches() const {
    const std::int64_t d = micro_batch * dp;
    return d > 0 ? global_batch / d : 0;
  }
  /// tp*pp*dp*cp, or nullopt when the product does not fit in int64 (each degree alone may
  /// be up to 10^6, so the product can reach 10^24). check_scenario refuses such plans.
  std::optional<std::int64_t> gpus_checked() const {
    std::int64_t r = tp;
    if (__builtin_mul_overflow(r, static_cast<std::int64_t>(pp), &r) || __builtin_mul_overflow(r, dp, &r) ||
        __builtin_mul_overflow(r, static_cast<std::int64_t>(cp), &r))
      return std::nullopt;
    return r;
  }
  /// tp*pp*dp*cp, saturated at the int64 maximum (never wraps) for a plan check_scenario
  /// would refuse.
  std::int64_t gpus() const { return gpus_checked().value_or(std::numeric_limits<std::int64_t>::max()); }
};

/// Why Megatron-core refuses `--overlap-moe-expert-parallel-comm` for `p`, or null when it runs
/// (megatron/core/transformer/transformer_config.py: expert parallelism, the alltoall or flex
/// dispatcher, no full recompute, and a virtual pipeline when pp > 1). DualPipe is refused too:
/// it overlaps its own forward/backward pairs.
const char* ep_overlap_refusal(const ParallelPlan& p);
inline bool ep_overlap_allowed(const ParallelPlan& p) { return ep_overlap_refusal(p) == nullptr; }

}  // namespace flopcast::parallel

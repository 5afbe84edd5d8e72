#include "flopcast/calibrate/kernel_measurement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "flopcast/comm/collective.hpp"
#include "flopcast/cost/collective_cost.hpp"
#include "flopcast/cost/op_cost.hpp"
#include "flopcast/parallel/parallel_plan.hpp"

namespace flopcast::calibrate {

namespace {

constexpr std::array<const char*, 6> kKindNames{"gemm",       "grouped_gemm", "attention",
                                                "collective", "memory_bound", "step_breakdown"};

}  // namespace

const char* to_string(KernelKind k) { return kKindNames[static_cast<std::size_t>(k)]; }

std::optional<KernelKind> parse_kernel_kind(std::string_view s) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i)
    if (s == kKindNames[i]) return static_cast<KernelKind>(i);
  return std::nullopt;
}

const std::vector<std::string>& kernel_kind_names() {
  static const std::vector<std::string> names(kKindNames.begin(), kKindNames.end());
  return names;
}

std::optional<double> KernelMeasurement::number(const std::string& key) const {
  const auto it = shape.find(key);
  if (it == shape.end() || it->second.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string KernelMeasurement::text(const std::string& key) const {
  const auto it = shape.find(key);
  return it == shape.end() ? std::string() : it->second;
}

bool KernelMeasurement::flag(const std::string& key, bool fallback) const {
  const std::string t = text(key);
  if (t == "true") return true;
  if (t == "false") return false;
  return fallback;
}

namespace {

/// What the cost layer predicts for an entry: the time of the measured work, and the amount of
/// it (FLOPs as the source counts them, or bytes as it counts them) that its rate figures divide.
struct Predicted {
  units::Time time;
  double flops = 0;  ///< FLOPs the source's TFLOP/s divides (0: not a FLOP rate)
  double bytes = 0;  ///< bytes the source's bandwidth divides (0: not a bandwidth)
};

cost::OpContext context_of(const KernelMeasurement& k, const compute::ComputeProfile& p) {
  return cost::OpContext{&k.gpu, &p, k.dtype.value_or(hardware::Precision::BF16)};
}

/// A forward GEMM's input gradient (m x k from n) and weight gradient (n x k over m), oriented as
/// the benchmarks here run them.
cost::GemmShape input_gradient(const cost::GemmShape& g) { return {g.m, g.k, g.n, g.batch, g.grouped}; }
cost::GemmShape weight_gradient(const cost::GemmShape& g) { return {g.n, g.k, g.m, g.batch, g.grouped}; }

/// A trained GEMM: its forward, input gradient and weight gradient.
units::Time trained(const cost::OpContext& c, const cost::GemmShape& g) {
  return cost::gemm_time(c, g) + cost::gemm_time(c, input_gradient(g)) + cost::gemm_time(c, weight_gradient(g));
}

std::optional<Predicted> predict_gemm(const KernelMeasurement& k, const compute::ComputeProfile& p, std::string& why) {
  const auto m = k.number("m"), n = k.number("n"), kk = k.number("k");
  if (!m || !n || !kk) {
    why = "a GEMM needs shape m, n and k";
    return std::nullopt;
  }
  Predicted out;
  cost::GemmShape g{*m, *n, *kk};
  g.accumulate_fp32 = k.text("accumulate") == "fp32";  // a weight gradient added into FP32 (DeepGEMM's wgrad)
  out.time = cost::gemm_time(context_of(k, p), g);
  out.flops = 2 * *m * *n * *kk;
  return out;
}

std::optional<Predicted> predict_grouped_gemm(const KernelMeasurement& k, const compute::ComputeProfile& p,
                                              std::string& why) {
  const auto groups = k.number("groups"), n = k.number("n"), kk = k.number("k");
  auto per_group = k.number("tokens_per_group");
  if (!per_group && groups && k.number("total_m")) per_group = *k.number("total_m") / *groups;
  if (!groups || !n || !kk || !per_group) {
    why = "a grouped GEMM needs shape groups, n, k and tokens_per_group (or total_m)";
    return std::nullopt;
  }
  const cost::OpContext ctx = context_of(k, p);
  const double g = *groups, m = *per_group;
  const std::string dir = k.text("direction");
  const cost::GemmShape fwd{m, *n, *kk, g, true}, dgrad = input_gradient(fwd);
  cost::GemmShape wgrad = weight_gradient(fwd);
  wgrad.accumulate_fp32 = k.text("accumulate") == "fp32";
  Predicted out;
  const double one = 2 * g * m * *n * *kk;
  if (dir.empty() || dir == "fwd") {
    out.time = cost::gemm_time(ctx, fwd);
    out.flops = one;
  } else if (dir == "dgrad") {
    out.time = cost::gemm_time(ctx, dgrad);
    out.flops = one;
  } else if (dir == "wgrad") {
    out.time = cost::gemm_time(ctx, wgrad);
    out.flops = one;
  } else if (dir == "fwd+bwd") {
    out.time = cost::gemm_time(ctx, fwd) + cost::gemm_time(ctx, dgrad) + cost::gemm_time(ctx, wgrad);
    // An MXFP8 training step's grouped GEMMs quantise their inputs as they go: the tokens (m x k),
    // the expert weights (n x k) and the output gradient (m x n), each along both dimensions for
    // the forward and the two backward GEMMs (torchao's _scaled_grouped_mm training function,
    // torchao/prototype/moe_training/scaled_grouped_mm.py; its README times fwd + bwd with them,
    // and with the scale-layout conversions that are not priced here: scored, not fitted).
    if (ctx.precision == hardware::Precision::MXFP8)
      for (const double elements : {g * m * *kk, g * *n * *kk, g * m * *n})
        out.time += cost::cast_time(ctx, elements, 2, 2);
    out.flops = 3 * one;
  } else {
    why = "unknown grouped GEMM direction '" + dir + "' (fwd, dgrad, wgrad, fwd+bwd)";
    return std::nullopt;
  }
  return out;
}

std::optional<Predicted> predict_attention(const KernelMeasurement& k, const compute::ComputeProfile& p,
                                           std::string& why) {
  const auto batch = k.number("batch"), seq = k.number("seq"), heads = k.number("heads"), hd = k.number("head_dim");
  if (!batch || !seq || !heads || !hd) {
    why = "attention needs shape batch, seq, heads and head_dim";
    return std::nullopt;
  }
  const double hdv = k.number("head_dim_v").value_or(*hd);
  const bool causal = k.flag("causal", false);
  const std::string dir = k.text("direction");
  if (dir != "fwd" && dir != "bwd" && dir != "fwd+bwd") {
    why = "attention needs shape direction fwd, bwd or fwd+bwd";
    return std::nullopt;
  }
  const cost::OpContext ctx = context_of(k, p);
  const double bh = *batch * *heads;
  const double window = k.number("sliding_window").value_or(0);
  const cost::AttentionShape a{bh, *seq, *seq, *hd, hdv, causal, window};
  Predicted out;
  const units::Time f = cost::attention_time(ctx, a, false);
  const units::Time b = cost::attention_time(ctx, a, true);
  out.time = dir == "fwd" ? f : dir == "bwd" ? b : f + b;
  // FlashAttention's and cuDNN's benchmark count: 2 b h s^2 (d_qk + d_v) for the forward's two
  // matmuls, halved when causal; backward 2.5 x forward (flash-attention benchmarks/
  // benchmark_flash_attention.py, flops()); with a sliding window, s x window keys, not halved
  // (cuDNN frontend's SDPA benchmark, checked on its causal and windowed rows).
  const double keys = window > 0 ? *seq * std::min(window, *seq) : *seq * *seq / (causal ? 2.0 : 1.0);
  const double fwd = 2 * bh * keys * (*hd + hdv);
  out.flops = dir == "fwd" ? fwd : dir == "bwd" ? 2.5 * fwd : 3.5 * fwd;
  return out;
}

}  // namespace

bool is_component_measurement(const KernelMeasurement& k) {
  if (k.kind == KernelKind::StepBreakdown) return false;
  // torchao's MXFP8 grouped-GEMM training function (direction fwd+bwd): its time includes the
  // block-scale layout conversions, which the cost layer does not price (predict_grouped_gemm).
  return !(k.kind == KernelKind::GroupedGemm && k.dtype == hardware::Precision::MXFP8 &&
           k.text("direction") == "fwd+bwd");
}

namespace {

/// Rows and columns of a memory-bound entry: shape rows / cols, or input_shape (all but the last
/// dimension are rows), times `groups`.
std::optional<std::pair<double, double>> rows_cols(const KernelMeasurement& k) {
  double rows = 0, cols = 0;
  if (k.number("rows") && k.number("cols")) {
    rows = *k.number("rows");
    cols = *k.number("cols");
  } else if (k.dims.size() >= 2) {
    rows = 1;
    for (std::size_t i = 0; i + 1 < k.dims.size(); ++i) rows *= k.dims[i];
    cols = k.dims.back();
  } else {
    return std::nullopt;
  }
  return std::pair{rows * k.number("groups").value_or(1), cols};
}

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

/// Liger-Kernel's cross-entropy forward leaves the logits' gradient in place; the backward its
/// benchmark harness times (benchmark/scripts/utils.py run_speed_benchmark, mode backward) feeds a
/// random scalar gradient, so element_mul_kernel scales the logits in place (a read and a write:
/// src/liger_kernel/ops/cross_entropy.py cross_entropy_backward skips it only for 1.0), and the
/// logits are a leaf whose .grad the harness clears, so autograd's AccumulateGrad clones the
/// returned tensor, still held by the saved context (a read and a write): two kernels, four passes.
/// In a training step the loss's gradient is 1.0 and the logits are no leaf: neither runs.
bool liger_benchmark_backward(const KernelMeasurement& k) {
  return has(k.text("op"), "cross_entropy_bwd") && has(k.text("provider"), "liger");
}

/// A LayerNorm's or RMSNorm's backward is two kernels. The first writes dx and, per CTA of a grid
/// that fills the GPU, FP32 partial sums of dgamma (and dbeta with a bias); the second reduces the
/// partials (Transformer Engine, common/normalization/layernorm/ln_bwd_semi_cuda_kernel.cu:
/// ln_bwd_tuned_kernel then ln_bwd_finalize_tuned_kernel, dgamma_part_bytes = ctas_per_col x cols x
/// 4 with ctas_per_col = SMs x CTAs per SM / ctas_per_row; Liger-Kernel's rms_norm backward keeps
/// sm_count rows of partial dW and sums them in a second kernel). Counted as one partial row per
/// SM, written once and read once. The step prices a backward elementwise op as two kernels too
/// (cost/stage_cost.cpp).
bool is_norm_backward(const std::string& op) { return has(op, "_bwd") && has(op, "norm"); }
double norm_partial_bytes(const KernelMeasurement& k, double cols) {
  const double sums = k.text("bias") == "true" ? 2.0 : 1.0;  // dgamma, and dbeta with a bias
  return 2.0 * k.gpu.sm_count * cols * 4.0 * sums;
}

/// Kernels a memory-bound entry's time covers.
int memory_bound_kernels(const KernelMeasurement& k) {
  return liger_benchmark_backward(k) || is_norm_backward(k.text("op")) ? 2 : 1;
}

/// Bytes a memory-bound kernel moves through HBM, from what it reads and writes per element.
std::optional<double> memory_bytes(const KernelMeasurement& k, std::string& why) {
  const std::string op = k.text("op");
  if (has(op, "relu") || has(op, "elementwise")) {
    const auto n = k.number("elements");
    if (!n) return std::nullopt;
    return 2 * *n * hardware::bytes_per_element(k.dtype.value_or(hardware::Precision::BF16));
  }
  const auto rc = rows_cols(k);
  if (!rc) {
    why = "a memory-bound entry needs rows and cols (or input_shape, or elements)";
    return std::nullopt;
  }
  const double n = rc->first * rc->second;
  const double e = hardware::bytes_per_element(k.dtype.value_or(hardware::Precision::BF16));
  const std::string in = k.text("input_dtype");
  const double in_e =
      in.empty() ? e : hardware::bytes_per_element(hardware::parse_precision(in).value_or(hardware::Precision::BF16));
  if (has(op, "rms_norm_fwd") || has(op, "rmsnorm_fwd") || has(op, "layer_norm_fwd")) {
    if (has(op, "fused_add")) return 4 * n * e;  // reads x and the residual, writes both
    return 2 * n * e;                            // reads x, writes y
  }
  if (is_norm_backward(op)) return 3 * n * e + norm_partial_bytes(k, rc->second);  // dy, x in; dx out
  if (has(op, "softmax")) return 2 * n * e;
  if (has(op, "cross_entropy_fwd")) return 3 * n * e;  // two passes over the logits, the gradient written
  if (has(op, "cross_entropy_bwd")) return (liger_benchmark_backward(k) ? 4 : 2) * n * e;
  if (has(op, "rearrange")) {
    // torchao's scale layout conversions: the entries give the scale tensor's shape with an input
    // dtype of bf16, which E8M0 scales are not; what the kernel moves is not stated.
    why = "a block-scale layout conversion whose element size the entry does not state";
    return std::nullopt;
  }
  if (has(op, "amax")) return n * in_e;  // read only
  if (k.dtype == hardware::Precision::NVFP4) {
    // Input read; FP4 elements (half a byte) and one FP8 scale per 16 written, in both
    // orientations for a row-and-column quantization.
    const double out = n * (0.5 + 1.0 / 16);
    return n * in_e + (has(op, "row_col") ? 2 : 1) * out;
  }
  if (k.dtype == hardware::Precision::MXFP8 || k.dtype == hardware::Precision::FP8) {
    const double scale = k.dtype == hardware::Precision::MXFP8 ? 1.0 / 32 : 4.0 / 128;
    return n * in_e + n * (1 + scale);
  }
  why = "no byte count known for memory-bound op '" + op + "'";
  return std::nullopt;
}

std::optional<Predicted> predict_memory_bound(const KernelMeasurement& k, const compute::ComputeProfile& p,
                                              std::string& why) {
  const std::string op = k.text("op");
  Predicted out;
  if (has(op, "stream_triad")) {
    // A long stream (STREAM's arrays are hundreds of MB): the HBM efficiency itself.
    out.bytes = 3.0 * (1u << 30);
    out.time = cost::memory_bound_time(context_of(k, p), units::Bytes{out.bytes}, 1);
    return out;
  }
  if (has(op, "nf4_dequantize")) {
    // bitsandbytes' dequantize_4bit: the entry's elements (rows x cols) in one call, absmax blocks
    // of `blocksize`, with double quantization when the entry says `nested: true`.
    const auto rc = rows_cols(k);
    if (!rc) {
      why = "an NF4 dequantization entry needs rows and cols";
      return std::nullopt;
    }
    const double n = rc->first * rc->second;
    const std::string nested_text = k.text("nested");
    const double blocksize = k.number("blocksize").value_or(64);  // bitsandbytes' default
    if (!nested_text.empty() && nested_text != "true" && nested_text != "false") {
      why = "nested is true or false (double quantization), got '" + nested_text + "'";
      return std::nullopt;
    }
    if (blocksize < 1) {
      why = "blocksize is the weights per absmax block (64 in bitsandbytes), got " + k.text("blocksize");
      return std::nullopt;
    }
    const bool nested = nested_text == "true";
    out.bytes = cost::nf4_dequant_bytes(n, nested, blocksize);
    out.time = cost::nf4_dequant_time(context_of(k, p), n, nested, 1, blocksize);
    return out;
  }
  const auto bytes = memory_bytes(k, why);
  if (!bytes) {
    if (why.empty()) why = "no byte count known for memory-bound op '" + op + "'";
    return std::nullopt;
  }
  out.bytes = *bytes;
  const cost::OpContext ctx = context_of(k, p);
  // An NVFP4 cast (with its Hadamard transform, amax and 2D block scales) runs at the
  // generation's NVFP4 cast efficiency; every other kernel here streams at its HBM efficiency.
  const bool nvfp4_cast = k.dtype == hardware::Precision::NVFP4 && !has(op, "rearrange");
  if (nvfp4_cast) {
    const auto& eff = p.of(p.coefficients_of(k.gpu.arch));
    out.time = units::Time::from_seconds(*bytes /
                                         (k.gpu.hbm_bandwidth.bytes_per_s * eff.cast_of(hardware::Precision::NVFP4))) +
               cost::launch_overhead(p, 1);
  } else {
    out.time = cost::memory_bound_time(ctx, units::Bytes{*bytes}, memory_bound_kernels(k));
  }
  return out;
}

std::optional<comm::Collective> collective_of(const std::string& op) {
  if (op == "all_reduce") return comm::Collective::AllReduce;
  if (op == "all_gather") return comm::Collective::AllGather;
  if (op == "reduce_scatter") return comm::Collective::ReduceScatter;
  if (op == "all_to_all") return comm::Collective::AllToAll;
  return std::nullopt;
}

/// The first figure of `order` the entry measures.
std::optional<std::pair<std::string, double>> first_measured(const KernelMeasurement& k,
                                                             std::initializer_list<const char*> order) {
  for (const char* f : order)
    if (const auto it = k.measured.find(f); it != k.measured.end()) return std::pair{std::string(f), it->second};
  return std::nullopt;
}

std::optional<FigureComparison> compare_nccl(const KernelMeasurement& k, const compute::ComputeProfile& p,
                                             comm::Collective op, std::string& why) {
  MeasuredCollective pt;
  pt.id = k.id;
  pt.gpu = k.gpu;
  pt.gpus = static_cast<std::int64_t>(k.number("gpus").value_or(0));
  const auto nodes = static_cast<std::int64_t>(k.number("nodes").value_or(1));
  if (pt.gpus < 2 || nodes < 1 || pt.gpus % nodes != 0) {
    why = "a collective needs shape gpus (2 or more) and nodes dividing them";
    return std::nullopt;
  }
  pt.gpus_per_node = static_cast<int>(pt.gpus / nodes);
  pt.fabric.gpus_per_node = pt.gpus_per_node;
  pt.fabric.nvlink_domain = std::max(pt.gpus_per_node, 8);
  // The scale-out NICs where the entry states them (a multi-node measurement on other NICs than
  // the catalog default's 8 x 200 Gb/s).
  if (const auto g = k.number("nic_gbps")) pt.fabric.nic_gbps = *g;
  if (const auto n = k.number("nics_per_node")) pt.fabric.nics_per_node = static_cast<int>(*n);
  if (k.number("bytes")) pt.message_bytes = *k.number("bytes");
  const auto fig = first_measured(k, {"time_us", "busbw_gbytes_s", "algbw_gbytes_s"});
  if (!fig) {
    why = "no time_us, busbw_gbytes_s or algbw_gbytes_s measured";
    return std::nullopt;
  }
  pt.measured[fig->first] = fig->second;
  pt.op = op;
  auto rows = compare_collective(pt, p, why);
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

/// The ops of a training step's per-op breakdown that the entry gives the shape of: the MLA core
/// attention of DeepSeek-V3's trace, its routed experts' grouped GEMMs, and torchao's single MoE
/// layer (routed experts' grouped GEMMs forward and backward, MXFP8 casts, the shared experts'
/// 16-bit GEMMs, SwiGLU, moving the tokens). A breakdown entry
/// without its op's shape, or one whose time includes waiting (the trace's communication kernels,
/// which its notes call upper bounds), is not predicted.
std::optional<Predicted> predict_step_op(const KernelMeasurement& k, const compute::ComputeProfile& p,
                                         std::string& why) {
  const std::string op = k.text("op");
  const cost::OpContext ctx = context_of(k, p);
  Predicted out;
  if (has(op, "core attention") && k.number("heads") && k.number("head_dim") && k.number("seq")) {
    const double tokens = k.number("micro_batch_tokens").value_or(*k.number("seq"));
    const cost::AttentionShape a{tokens / *k.number("seq") * *k.number("heads"),
                                 *k.number("seq"),
                                 *k.number("seq"),
                                 *k.number("head_dim"),
                                 k.number("head_dim_v").value_or(0),
                                 k.flag("causal", true),
                                 0};
    out.time = cost::attention_time(ctx, a, has(op, "backward"));
    return out;
  }
  if (has(op, "grouped") && k.number("local_experts") && k.number("rows_per_rank") && k.number("hidden") &&
      k.number("moe_intermediate")) {
    const double e = *k.number("local_experts"), m = *k.number("rows_per_rank") / e, h = *k.number("hidden"),
                 f = *k.number("moe_intermediate");
    // SwiGLU experts: gate and up fused (h -> 2f), down (f -> h); dgrad their input gradients.
    for (const cost::GemmShape g : {cost::GemmShape{m, 2 * f, h, e, true}, cost::GemmShape{m, h, f, e, true}})
      out.time += cost::gemm_time(ctx, has(op, "dgrad") ? input_gradient(g) : g);
    return out;
  }
  if (has(op, "single MoE layer") && k.number("total_m") && k.number("n") && k.number("k") &&
      k.number("local_experts")) {
    // torchtitan's MoE module (torchtitan/models/moe.py, MoEArgs): top_k routed experts per
    // token (shape key top_k, default 1 as MoEArgs) and `shared_experts` dense SwiGLU FFNs of
    // the same width that every token passes (MoEArgs num_shared_experts; default 0 here).
    const double e = *k.number("local_experts"), tokens = *k.number("total_m"), f = *k.number("n"), h = *k.number("k"),
                 rows = tokens * k.number("top_k").value_or(1), m = rows / e,
                 shared = k.number("shared_experts").value_or(0);
    // Gate and up (h -> 2f) and down (f -> h).
    for (const cost::GemmShape g : {cost::GemmShape{m, 2 * f, h, e, true}, cost::GemmShape{m, h, f, e, true}})
      out.time += trained(ctx, g);
    if (ctx.precision == hardware::Precision::MXFP8)  // each GEMM's operands cast along both dimensions
      for (const double elements : {rows * h, e * 2 * f * h, rows * 2 * f, rows * f, e * f * h, rows * h})
        out.time += cost::cast_time(ctx, elements, 2, 2);
    // The shared experts are plain linear layers: torchao's grouped-GEMM conversion swaps only
    // torch._grouped_mm (ScaledGroupedMMTensor), so they run in 16 bits under either recipe.
    const cost::OpContext bf16{ctx.gpu, ctx.profile, hardware::Precision::BF16};
    if (shared > 0)
      for (const cost::GemmShape g :
           {cost::GemmShape{tokens, 2 * f * shared, h}, cost::GemmShape{tokens, h, f * shared}})
        out.time += trained(bf16, g);
    // SwiGLU between the GEMMs, routed and shared: forward reads gate and up and writes their
    // product, backward reads its gradient, gate and up and writes both gradients (8 passes of
    // the f-wide activations in 16 bits, one kernel each way).
    out.time += cost::memory_bound_time(bf16, units::Bytes{8 * (rows + tokens * shared) * f * 2}, 2);
    // Moving the routed tokens (torchtitan MoE.forward without expert parallelism): the gather
    // into expert order with the score applied, indices_padding_wrapper's permutation to the
    // aligned groups and back, and the scatter-add of the routed output into the shared
    // expert's (reads the source, reads and writes the destination): 2 + 2 + 2 + 3 passes of
    // rows x h in 16 bits forward, as many backward (the gradients of a gather, a permutation and
    // a scatter-add are a scatter-add, the inverse permutation and a gather).
    out.time += cost::memory_bound_time(bf16, units::Bytes{2 * 9 * rows * h * 2}, 8);
    return out;
  }
  why = has(op, "DeepEP") ? "a communication kernel's duration in a trace includes its waiting (the entry's notes)"
                          : "a per-op breakdown of a training step whose op shapes the entry does not give";
  return std::nullopt;
}

FigureComparison comparison(const KernelMeasurement& k, const std::string& figure, double measured, double predicted) {
  return {k.id, figure, measured, predicted, (predicted - measured) / measured * 100.0};
}

/// MoE dispatch and combine (DeepEP, Hybrid-EP): its time, or its bandwidth as the source
/// defines it, bytes over the bottleneck link per time (deepseek-ai/DeepEP README: the NVLink
/// bytes a rank receives inside a node, the RDMA bytes it sends across nodes).
std::optional<FigureComparison> compare_dispatch(const KernelMeasurement& k, const compute::ComputeProfile& p,
                                                 std::string& why) {
  const auto gpus = k.number("gpus"), nodes = k.number("nodes"), tokens = k.number("tokens_per_rank"),
             hidden = k.number("hidden"), topk = k.number("topk");
  if (!gpus || !nodes || !tokens || !hidden || !topk || *nodes < 1) {
    why = "a dispatch needs shape gpus, nodes, tokens_per_rank, hidden and topk";
    return std::nullopt;
  }
  cost::MoeDispatch d;
  d.ranks = static_cast<std::int64_t>(*gpus);
  d.ranks_per_node = static_cast<std::int64_t>(*gpus / *nodes);
  d.tokens = *tokens;
  d.hidden = *hidden;
  d.top_k = static_cast<int>(*topk);
  if (const auto experts = k.number("experts"))
    d.experts = *experts;
  else if (const auto local = k.number("local_experts"))
    d.experts = *local * *gpus;
  // FP8 dispatch carries one FP32 scale per 128 values (DeepEP's per-token-group quantisation);
  // combine is BF16.
  d.bytes_per_value = parallel::dispatch_bytes_per_value(
      k.dtype == hardware::Precision::FP8 ? parallel::DispatchDtype::FP8 : parallel::DispatchDtype::BF16);
  d.low_latency = k.measured.count("latency_us") > 0;
  d.rdma_inside_node = has(k.text("transport"), "pure RDMA");
  d.sms = static_cast<int>(k.number("sms").value_or(0));
  const std::string kernel = k.text("kernel");
  // DeepEP V1's normal kernels copy token by token with warps; Hybrid-EP copies with TMA, and
  // DeepEP V2's ElasticBuffer has no published kernel design to say which.
  d.warp_copies = !d.low_latency && (has(kernel, "DeepEP V1") || has(kernel, "normal"));
  d.nic_gbps = k.number("nic_gbps").value_or(0);
  // DeepEP's tests route to at most 4 nodes (num_topk_groups = min(num_nodes, 4)), as DeepSeek-V3 does.
  d.node_limit = static_cast<int>(k.number("node_limit").value_or(0));
  const cost::MoeDispatchCost c = cost::moe_dispatch_cost(k.gpu, k.fabric, d.ranks_per_node, p, d);
  if (const auto it = k.measured.find("latency_us"); it != k.measured.end())
    return comparison(k, "latency_us", it->second, c.time.us());
  // DeepEP's bottleneck bandwidth: NVLink bytes received inside one node; across nodes its RDMA
  // figure counts each token once per node it reaches, its own node included, so a logical
  // figure: the NIC carries the (nodes - 1) / nodes of it. V1 counts deduplicated (token, node)
  // pairs over the kernel's time (tests/legacy/test_internode.py, num_rdma_token_sent); V2 counts
  // the same pairs (tests/elastic/test_ep.py, num_scaleout_send_tokens, the own node skipped only
  // under --ignore-local-traffic; its README: "logical bandwidth ... contains local rank traffic").
  // Hybrid-EP's "algorithm bandwidth" across nodes counts the same pairs ("to align with the
  // implementation in the DeepEP", deepseek-ai/DeepEP branch hybrid-ep @1dddd19, the commit of its
  // H100 table: tests/utils.py count_rdma_send_from_routing_map keeps the local node), so its
  // figures exceed the NIC's line rate by up to nodes / (nodes - 1).
  const double bottleneck = *nodes > 1 ? c.rdma_bytes * *nodes / (*nodes - 1) : c.received_bytes;
  for (const char* f : {"bottleneck_bandwidth_gbytes_s", "algbw_gbytes_s", "rdma_bandwidth_gbytes_s"})
    if (const auto it = k.measured.find(f); it != k.measured.end())
      return comparison(k, f, it->second, bottleneck / c.time.seconds() / 1e9);
  why = "no latency_us or bandwidth measured";
  return std::nullopt;
}

/// A copy-engine copy between two GPUs of one node (nvbandwidth): NVLink's one-way rate at the
/// profile's NVLink efficiency, both ways for a bidirectional figure.
std::optional<FigureComparison> compare_copy(const KernelMeasurement& k, const compute::ComputeProfile& p,
                                             std::string& why) {
  const auto it = k.measured.find("bandwidth_gbytes_s");
  if (it == k.measured.end() || k.gpu.nvlink_one_way.bytes_per_s <= 0) {
    why = "a copy needs a measured bandwidth_gbytes_s on an NVLink GPU";
    return std::nullopt;
  }
  // nvbandwidth's pair tests: unidirectional, or bidirectional (both ways at once), as the
  // entry's id and source name the test.
  const double ways = has(k.id, "bidirectional") || has(k.source, "bidirectional") ? 2.0 : 1.0;
  return comparison(k, "bandwidth_gbytes_s", it->second,
                    ways * k.gpu.nvlink_one_way.bytes_per_s * p.nvlink_efficiency / 1e9);
}

}  // namespace

std::optional<FigureComparison> compare_kernel(const KernelMeasurement& k, const compute::ComputeProfile& profile,
                                               std::string& why_not) {
  why_not.clear();
  // A kernel benchmark runs at the boost clock its datasheet peak assumes, and times one call.
  compute::ComputeProfile p = profile;
  for (auto& e : p.arch) e.sustained_clock = 1.0;
  std::optional<Predicted> pred;
  switch (k.kind) {
    case KernelKind::Gemm:
      pred = predict_gemm(k, p, why_not);
      break;
    case KernelKind::GroupedGemm:
      pred = predict_grouped_gemm(k, p, why_not);
      break;
    case KernelKind::Attention:
      pred = predict_attention(k, p, why_not);
      break;
    case KernelKind::MemoryBound:
      pred = predict_memory_bound(k, p, why_not);
      break;
    case KernelKind::Collective: {
      const std::string op = k.text("op");
      if (const auto c = collective_of(op)) return compare_nccl(k, p, *c, why_not);
      if (op == "moe_dispatch" || op == "moe_combine") return compare_dispatch(k, p, why_not);
      if (op == "p2p_copy") return compare_copy(k, p, why_not);
      why_not = "collective op '" + op + "' is not predicted";
      return std::nullopt;
    }
    case KernelKind::StepBreakdown:
      pred = predict_step_op(k, p, why_not);
      break;
  }
  if (!pred) return std::nullopt;
  const auto fig = first_measured(k, {"time_us", "time_us_per_layer", "tflops", "bandwidth_gbytes_s"});
  if (!fig) {
    why_not = "no time_us, tflops or bandwidth_gbytes_s measured";
    return std::nullopt;
  }
  double predicted = 0;
  // A benchmark's call pays its host launch and timing events, but not one replayed from a CUDA
  // graph (triton.testing.do_bench_cudagraph captures the calls and times the graph's replay).
  if (k.text("timing") != "cuda_graph") pred->time += units::Time::from_us(p.benchmark_overhead_us);
  if (fig->first == "time_us" || fig->first == "time_us_per_layer") {
    predicted = pred->time.us();
  } else if (fig->first == "tflops") {
    if (pred->flops <= 0) {
      why_not = "a TFLOP/s figure for a kernel without FLOPs";
      return std::nullopt;
    }
    predicted = pred->flops / pred->time.seconds() / 1e12;
  } else {
    if (pred->bytes <= 0) {
      why_not = "a bandwidth figure without a byte count";
      return std::nullopt;
    }
    predicted = pred->bytes / pred->time.seconds() / 1e9;
  }
  return FigureComparison{k.id, fig->first, fig->second, predicted, (predicted - fig->second) / fig->second * 100.0};
}

}  // namespace flopcast::calibrate

#include "flopcast/calibrate/kernel_measurement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "flopcast/comm/collective.hpp"
#include "flopcast/cost/collective_cost.hpp"
#include "flopcast/cost/op_cost.hpp"

namespace flopcast {

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
  Time time;
  double flops = 0;  ///< FLOPs the source's TFLOP/s divides (0: not a FLOP rate)
  double bytes = 0;  ///< bytes the source's bandwidth divides (0: not a bandwidth)
};

OpContext context_of(const KernelMeasurement& k, const ComputeProfile& p) {
  return OpContext{&k.gpu, &p, k.dtype.value_or(Precision::BF16)};
}

std::optional<Predicted> predict_gemm(const KernelMeasurement& k, const ComputeProfile& p, std::string& why) {
  const auto m = k.number("m"), n = k.number("n"), kk = k.number("k");
  if (!m || !n || !kk) {
    why = "a GEMM needs shape m, n and k";
    return std::nullopt;
  }
  Predicted out;
  out.time = gemm_time(context_of(k, p), {*m, *n, *kk});
  out.flops = 2 * *m * *n * *kk;
  return out;
}

std::optional<Predicted> predict_grouped_gemm(const KernelMeasurement& k, const ComputeProfile& p, std::string& why) {
  const auto groups = k.number("groups"), n = k.number("n"), kk = k.number("k");
  auto per_group = k.number("tokens_per_group");
  if (!per_group && groups && k.number("total_m")) per_group = *k.number("total_m") / *groups;
  if (!groups || !n || !kk || !per_group) {
    why = "a grouped GEMM needs shape groups, n, k and tokens_per_group (or total_m)";
    return std::nullopt;
  }
  const OpContext ctx = context_of(k, p);
  const double g = *groups, m = *per_group;
  const std::string dir = k.text("direction");
  const GemmShape fwd{m, *n, *kk, g}, dgrad{m, *kk, *n, g}, wgrad{*n, *kk, m, g};
  Predicted out;
  const double one = 2 * g * m * *n * *kk;
  if (dir.empty() || dir == "fwd") {
    out.time = gemm_time(ctx, fwd);
    out.flops = one;
  } else if (dir == "dgrad") {
    out.time = gemm_time(ctx, dgrad);
    out.flops = one;
  } else if (dir == "wgrad") {
    out.time = gemm_time(ctx, wgrad);
    out.flops = one;
  } else if (dir == "fwd+bwd") {
    out.time = gemm_time(ctx, fwd) + gemm_time(ctx, dgrad) + gemm_time(ctx, wgrad);
    out.flops = 3 * one;
  } else {
    why = "unknown grouped GEMM direction '" + dir + "' (fwd, dgrad, wgrad, fwd+bwd)";
    return std::nullopt;
  }
  return out;
}

std::optional<Predicted> predict_attention(const KernelMeasurement& k, const ComputeProfile& p, std::string& why) {
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
  const OpContext ctx = context_of(k, p);
  const double bh = *batch * *heads;
  const double hd_mean = (*hd + hdv) / 2;
  Predicted out;
  const Time f = attention_time(ctx, bh, *seq, *seq, hd_mean, causal, false);
  const Time b = attention_time(ctx, bh, *seq, *seq, hd_mean, causal, true);
  out.time = dir == "fwd" ? f : dir == "bwd" ? b : f + b;
  // FlashAttention's and cuDNN's benchmark count: 2 b h s^2 (d_qk + d_v) for the forward's two
  // matmuls, halved when causal; backward 2.5 x forward (flash-attention benchmarks/
  // benchmark_flash_attention.py, flops()).
  const double fwd = 2 * bh * *seq * *seq * (*hd + hdv) / (causal ? 2.0 : 1.0);
  out.flops = dir == "fwd" ? fwd : dir == "bwd" ? 2.5 * fwd : 3.5 * fwd;
  return out;
}

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

/// Bytes a memory-bound kernel moves through HBM, from what it reads and writes per element.
std::optional<double> memory_bytes(const KernelMeasurement& k, std::string& why) {
  const std::string op = k.text("op");
  if (has(op, "relu") || has(op, "elementwise")) {
    const auto n = k.number("elements");
    if (!n) return std::nullopt;
    return 2 * *n * bytes_per_element(k.dtype.value_or(Precision::BF16));
  }
  const auto rc = rows_cols(k);
  if (!rc) {
    why = "a memory-bound entry needs rows and cols (or input_shape, or elements)";
    return std::nullopt;
  }
  const double n = rc->first * rc->second;
  const double e = bytes_per_element(k.dtype.value_or(Precision::BF16));
  const std::string in = k.text("input_dtype");
  const double in_e = in.empty() ? e : bytes_per_element(parse_precision(in).value_or(Precision::BF16));
  if (has(op, "rms_norm_fwd") || has(op, "rmsnorm_fwd") || has(op, "layer_norm_fwd")) {
    if (has(op, "fused_add")) return 4 * n * e;  // reads x and the residual, writes both
    return 2 * n * e;                            // reads x, writes y
  }
  if (has(op, "_bwd") && (has(op, "norm"))) return 3 * n * e;  // reads dy and x, writes dx
  if (has(op, "softmax")) return 2 * n * e;
  if (has(op, "cross_entropy_fwd")) return 3 * n * e;  // two passes over the logits, the gradient written
  if (has(op, "cross_entropy_bwd")) return 2 * n * e;
  if (has(op, "rearrange")) return 2 * n * 1.0;  // block scales (one byte each) read and written
  if (has(op, "amax")) return n * in_e;          // read only
  if (k.dtype == Precision::NVFP4) {
    // Input read; FP4 elements (half a byte) and one FP8 scale per 16 written, in both
    // orientations for a row-and-column quantization.
    const double out = n * (0.5 + 1.0 / 16);
    return n * in_e + (has(op, "row_col") ? 2 : 1) * out;
  }
  if (k.dtype == Precision::MXFP8 || k.dtype == Precision::FP8) {
    const double scale = k.dtype == Precision::MXFP8 ? 1.0 / 32 : 4.0 / 128;
    return n * in_e + n * (1 + scale);
  }
  why = "no byte count known for memory-bound op '" + op + "'";
  return std::nullopt;
}

std::optional<Predicted> predict_memory_bound(const KernelMeasurement& k, const ComputeProfile& p, std::string& why) {
  const std::string op = k.text("op");
  Predicted out;
  if (has(op, "stream_triad")) {
    // A long stream (STREAM's arrays are hundreds of MB): the HBM efficiency itself.
    out.bytes = 3.0 * (1u << 30);
    out.time = memory_bound_time(context_of(k, p), Bytes{out.bytes}, 1);
    return out;
  }
  const auto bytes = memory_bytes(k, why);
  if (!bytes) {
    if (why.empty()) why = "no byte count known for memory-bound op '" + op + "'";
    return std::nullopt;
  }
  out.bytes = *bytes;
  out.time = memory_bound_time(context_of(k, p), Bytes{*bytes}, 1);
  return out;
}

std::optional<Collective> collective_of(const std::string& op) {
  if (op == "all_reduce") return Collective::AllReduce;
  if (op == "all_gather") return Collective::AllGather;
  if (op == "reduce_scatter") return Collective::ReduceScatter;
  if (op == "all_to_all") return Collective::AllToAll;
  return std::nullopt;
}

/// The first figure of `order` the entry measures.
std::optional<std::pair<std::string, double>> first_measured(const KernelMeasurement& k,
                                                             std::initializer_list<const char*> order) {
  for (const char* f : order)
    if (const auto it = k.measured.find(f); it != k.measured.end()) return std::pair{std::string(f), it->second};
  return std::nullopt;
}

std::optional<FigureComparison> compare_nccl(const KernelMeasurement& k, const ComputeProfile& p, Collective op,
                                             std::string& why) {
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

}  // namespace

std::optional<FigureComparison> compare_kernel(const KernelMeasurement& k, const ComputeProfile& p,
                                               std::string& why_not) {
  why_not.clear();
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
      if (const auto op = collective_of(k.text("op"))) return compare_nccl(k, p, *op, why_not);
      why_not = "collective op '" + k.text("op") + "' is not predicted";
      return std::nullopt;
    }
    case KernelKind::StepBreakdown:
      why_not = "a per-op breakdown of a training step";
      return std::nullopt;
  }
  if (!pred) return std::nullopt;
  const auto fig = first_measured(k, {"time_us", "tflops", "bandwidth_gbytes_s"});
  if (!fig) {
    why_not = "no time_us, tflops or bandwidth_gbytes_s measured";
    return std::nullopt;
  }
  double predicted = 0;
  if (fig->first == "time_us") {
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

}  // namespace flopcast

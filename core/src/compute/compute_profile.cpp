#include "flopcast/compute/compute_profile.hpp"

#include <cmath>
#include <string>

namespace flopcast::compute {

namespace {

bool is_8bit(hardware::Precision p) { return p == hardware::Precision::FP8 || p == hardware::Precision::MXFP8; }
bool is_4bit(hardware::Precision p) { return p == hardware::Precision::FP4 || p == hardware::Precision::NVFP4; }
double or_else(double v, double fallback) { return std::isnan(v) ? fallback : v; }

}  // namespace

double ArchEfficiency::gemm_of(hardware::Precision p) const {
  const double eight = fp8_apart ? gemm_fp8 : gemm;
  if (is_8bit(p)) return eight;
  if (is_4bit(p)) return or_else(gemm_fp4, eight);
  return gemm;
}

double ArchEfficiency::grouped_of(hardware::Precision p) const {
  return is_8bit(p) || is_4bit(p) ? or_else(grouped_gemm_fp8, grouped_gemm) : grouped_gemm;
}

double ArchEfficiency::attention_of(hardware::Precision p, bool backward) const {
  const double bwd16 = or_else(flash_attention_bwd, flash_attention);
  if (!is_8bit(p)) return backward ? bwd16 : flash_attention;
  const double fp8 = backward ? or_else(attention_fp8_bwd, bwd16) : or_else(attention_fp8, flash_attention);
  if (p != hardware::Precision::MXFP8) return fp8;
  return or_else(backward ? attention_mxfp8_bwd : attention_mxfp8, fp8);
}

double ArchEfficiency::cast_of(hardware::Precision p) const { return is_4bit(p) ? or_else(cast_fp4, hbm) : hbm; }

double ArchEfficiency::nf4_dequant() const { return or_else(dequant_nf4, hbm); }

bool ComputeProfile::collective_latency_shared(hardware::GpuArch a) const {
  return std::isnan(of(coefficients_of(a)).collective_latency_us);
}

double ComputeProfile::collective_latency_of(hardware::GpuArch a) const {
  return or_else(of(coefficients_of(a)).collective_latency_us, collective_latency_us);
}

double ProfileParameter::value(const ComputeProfile& p) const {
  ComputeProfile copy = p;
  const double v = *slot(copy);
  return std::isnan(v) && tied_value ? tied_value(p) : v;
}

namespace {

/// One per-generation coefficient: its name after "GENERATION.", its bounds, its member, the
/// generations that have the hardware path it describes, and what it stands at while tied.
struct ArchCoefficient {
  const char* name;
  double lower, upper;
  double ArchEfficiency::*member;
  bool fp8;  ///< needs an 8-bit tensor-core path (Hopper, Blackwell, Blackwell Ultra, Ada)
  bool fp4;  ///< needs Blackwell's block-scaled tensor cores (4-bit, MX formats: Blackwell, Blackwell Ultra)
  double (*tied)(const ArchEfficiency&);
  const char* tied_to;  ///< the coefficient it falls back to ("" when never tied)
};

bool has_fp8(hardware::GpuArch a) { return a != hardware::GpuArch::Ampere; }
bool has_fp4(hardware::GpuArch a) {
  return a == hardware::GpuArch::Blackwell || a == hardware::GpuArch::BlackwellUltra;
}

}  // namespace

const std::vector<ProfileParameter>& profile_parameters() {
  // Bounds keep each coefficient physical: an efficiency is a fraction of a datasheet peak (a
  // kernel cannot beat its GPU's peak: upper bound 1) and a kernel below a fifth of it would be
  // a broken one, not a slow one (lower bound 0.2; 0.1 for 8-bit attention's backward, whose
  // published cuDNN kernels reach 0.2 of the 8-bit peak on Hopper, and 0.05 for the NVFP4 cast
  // kernels with the Hadamard transform, which reach 0.15-0.35 of HBM bandwidth: torchao's
  // NVFP4 kernel tables in data/calibration/kernels-2026.yaml; 0.05 too for bitsandbytes' NF4
  // dequantization, 0.25 at 8192 x 8192 on A100 in the same file). The HBM efficiency is bounded
  // by what a streaming kernel shows (STREAM triad, large elementwise kernels: 0.85-0.92 of
  // the datasheet bandwidth) and 0.97; a grouped GEMM may run up to 1.2x a dense kernel's rate
  // (its tiles of several problems fill the waves). NCCL reaches 24 of 25 GB/s per HDR NIC,
  // NVIDIA/nccl#412, and ~230 of 240 GB/s NCCL-effective NVLink on A100, nccl-tests#149;
  // overheads are non-negative and below what a profiler would ever show for one kernel.
  static const std::vector<ProfileParameter> params = [] {
    static const ArchCoefficient coefficients[] = {
        {"gemm", 0.20, 1.00, &ArchEfficiency::gemm, false, false, nullptr, ""},
        {"gemm_fp8", 0.20, 1.00, &ArchEfficiency::gemm_fp8, true, false, nullptr, ""},
        {"gemm_fp4", 0.20, 1.00, &ArchEfficiency::gemm_fp4, true, true,
         [](const ArchEfficiency& e) { return e.gemm_of(hardware::Precision::FP8); }, "gemm_fp8"},
        {"grouped_gemm", 0.20, 1.20, &ArchEfficiency::grouped_gemm, false, false, nullptr, ""},
        {"grouped_gemm_fp8", 0.20, 1.20, &ArchEfficiency::grouped_gemm_fp8, true, false,
         [](const ArchEfficiency& e) { return e.grouped_gemm; }, "grouped_gemm"},
        {"flash_attention", 0.20, 1.00, &ArchEfficiency::flash_attention, false, false, nullptr, ""},
        {"flash_attention_bwd", 0.20, 1.00, &ArchEfficiency::flash_attention_bwd, false, false,
         [](const ArchEfficiency& e) { return e.flash_attention; }, "flash_attention"},
        {"attention_fp8", 0.10, 1.00, &ArchEfficiency::attention_fp8, true, false,
         [](const ArchEfficiency& e) { return e.flash_attention; }, "flash_attention"},
        {"attention_fp8_bwd", 0.10, 1.00, &ArchEfficiency::attention_fp8_bwd, true, false,
         [](const ArchEfficiency& e) { return e.attention_of(hardware::Precision::BF16, true); },
         "flash_attention_bwd"},
        {"attention_mxfp8", 0.10, 1.00, &ArchEfficiency::attention_mxfp8, true, true,
         [](const ArchEfficiency& e) { return e.attention_of(hardware::Precision::FP8, false); }, "attention_fp8"},
        {"attention_mxfp8_bwd", 0.10, 1.00, &ArchEfficiency::attention_mxfp8_bwd, true, true,
         [](const ArchEfficiency& e) { return e.attention_of(hardware::Precision::FP8, true); }, "attention_fp8_bwd"},
        {"hbm", 0.30, 0.97, &ArchEfficiency::hbm, false, false, nullptr, ""},
        {"cast_fp4", 0.05, 1.00, &ArchEfficiency::cast_fp4, true, true, [](const ArchEfficiency& e) { return e.hbm; },
         "hbm"},
        {"dequant_nf4", 0.05, 1.00, &ArchEfficiency::dequant_nf4, false, false,
         [](const ArchEfficiency& e) { return e.hbm; }, "hbm"},
        // Sustained over boost clock: no GPU runs above its boost clock; below 0.6 a board would
        // be throttled far past its rated power (H100 SXM: 1.98 GHz boost, ~1.6-1.75 GHz sustained
        // at 700 W in dense training, as nvidia-smi logs of training runs show).
        {"sustained_clock", 0.60, 1.00, &ArchEfficiency::sustained_clock, false, false, nullptr, ""},
    };
    std::vector<ProfileParameter> out;
    for (hardware::GpuArch a : hardware::kGpuArchs)
      for (const auto& c : coefficients) {
        if ((c.fp8 && !has_fp8(a)) || (c.fp4 && !has_fp4(a))) continue;
        ProfileParameter q;
        q.name = std::string(to_string(a)) + "." + c.name;
        q.lower = c.lower;
        q.upper = c.upper;
        const auto member = c.member;
        q.slot = [a, member](ComputeProfile& p) { return &(p.of(a).*member); };
        if (const auto tied = c.tied) {
          q.tied_value = [a, tied](const ComputeProfile& p) { return tied(p.of(a)); };
          q.tied_to = std::string(to_string(a)) + "." + c.tied_to;
        }
        out.push_back(std::move(q));
      }
    // Each generation's collective floor, tied to the shared one.
    for (hardware::GpuArch a : hardware::kGpuArchs) {
      ProfileParameter q;
      q.name = std::string(to_string(a)) + ".collective_latency_us";
      q.lower = 0.0;
      q.upper = kCollectiveLatencyFitMaxUs;
      q.slot = [a](ComputeProfile& p) { return &p.of(a).collective_latency_us; };
      q.tied_value = [a](const ComputeProfile& p) { return p.collective_latency_of(a); };
      q.tied_to = "collective_latency_us";
      out.push_back(std::move(q));
    }
    auto shared = [&out](const char* name, double lower, double upper, double ComputeProfile::*member) {
      ProfileParameter q;
      q.name = name;
      q.lower = lower;
      q.upper = upper;
      q.slot = [member](ComputeProfile& p) { return &(p.*member); };
      out.push_back(std::move(q));
    };
    shared("gemm_k_half", 0.0, 512.0, &ComputeProfile::gemm_k_half);
    shared("gemm_epilogue_exposed", 0.0, 1.0, &ComputeProfile::gemm_epilogue_exposed);
    // Up to 4,096 keys: FlashAttention's published rates reach their plateau by 4-8K keys
    // (Dao 2023, arXiv 2307.08691, Fig. 4-7; Shah et al. 2024, arXiv 2407.08608, Fig. 5-7).
    shared("attention_kv_half", 0.0, 4096.0, &ComputeProfile::attention_kv_half);
    shared("kernel_overhead_us", 0.0, 50.0, &ComputeProfile::kernel_overhead_us);
    shared("benchmark_overhead_us", 0.0, 50.0, &ComputeProfile::benchmark_overhead_us);
    // Host dispatch per kernel (PyTorch blog, "Accelerating PyTorch with CUDA Graphs", 2021:
    // CPU launch overhead is why small kernels leave the GPU idle); bounded at 100 us, above
    // which a GPU framework would be unusable for any model.
    shared("host_overhead_us", 0.0, 100.0, &ComputeProfile::host_overhead_us);
    shared("microbatch_overhead_ms", 0.0, 200.0, &ComputeProfile::microbatch_overhead_ms);
    shared("iteration_overhead_ms", 0.0, 500.0, &ComputeProfile::iteration_overhead_ms);
    shared("nic_efficiency", 0.30, 0.96, &ComputeProfile::nic_efficiency);
    shared("nvlink_efficiency", 0.30, 0.96, &ComputeProfile::nvlink_efficiency);
    shared("collective_latency_us", 0.0, kCollectiveLatencyFitMaxUs, &ComputeProfile::collective_latency_us);
    // MoE dispatch and combine (DeepEP-class kernels): a fraction of the link's one-way rate;
    // an SM's copy rate no higher than its share of HBM bandwidth (8 TB/s over 148 SMs: ~54 GB/s).
    shared("dispatch_efficiency", 0.30, 1.00, &ComputeProfile::dispatch_efficiency);
    shared("dispatch_rdma_efficiency", 0.30, 1.00, &ComputeProfile::dispatch_rdma_efficiency);
    shared("dispatch_sm_gbps", 1.0, 60.0, &ComputeProfile::dispatch_sm_gbps);
    // Up to 2 us per token copy on one SM: a bound from the data, not a latency figure. At 2 us a
    // 24-SM DeepEP dispatch of 4,096 tokens (21,700 copies at top-8 over 8 ranks) would take 1.8
    // ms, four times the slowest one measured on one node (B200 FP8 at 24 SMs: 0.46 ms,
    // data/calibration/kernels-2026.yaml).
    shared("dispatch_copy_ns", 0.0, 2000.0, &ComputeProfile::dispatch_copy_ns);

    return out;
  }();
  return params;
}

void ComputeProfile::fill_stand_ins() {
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    const auto i = static_cast<std::size_t>(a);
    if (listed[i] || !hardware::coefficient_stand_in(a)) continue;
    arch[i] = of(*hardware::coefficient_stand_in(a));
    fitted_runs[i] = 0;
  }
}

}  // namespace flopcast::compute

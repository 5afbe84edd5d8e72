// Kernel measurements (data/calibration/kernels-2026.yaml's format): reading them, predicting each
// with the cost layer on worked examples, and fitting the cost layer's coefficients on them.
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/calibrate/kernel_measurement.hpp"
#include "flopcast/cost/collective_cost.hpp"
#include "flopcast/cost/op_cost.hpp"
#include "flopcast/io/kernel_runs.hpp"

using namespace flopcast;

namespace {

std::vector<calibrate::KernelMeasurement> parse(const std::string& text, scenario::Diagnostics& d) {
  return io::parse_kernel_file(text, "k.yaml", test::shipped_catalog(), d);
}

calibrate::KernelMeasurement one(const std::string& text) {
  scenario::Diagnostics d;
  auto v = parse(text, d);
  REQUIRE_MESSAGE(v.size() == 1, d.str());
  return v[0];
}

/// `entry` with its first "%s" replaced by `extra`, read as one entry.
calibrate::KernelMeasurement one_with(std::string entry, const std::string& extra) {
  entry.replace(entry.find("%s"), 2, extra);
  return one(entry);
}

/// `entry` with `extra` in its shape (one_with), compared with what `p` predicts for it.
std::optional<calibrate::FigureComparison> compared(const std::string& entry, const std::string& extra,
                                                    const compute::ComputeProfile& p, std::string& why) {
  return calibrate::compare_kernel(one_with(entry, extra), p, why);
}

/// `text` read as one entry whose measured time is what `truth` predicts for it: a measurement a
/// fit should recover `truth` from.
calibrate::KernelMeasurement made_by(const compute::ComputeProfile& truth, const std::string& text) {
  auto k = one(text);
  std::string why;
  k.measured["time_us"] = calibrate::compare_kernel(k, truth, why)->predicted;
  return k;
}

/// The kernel fit of the coefficients `names` alone on `ks`, from `start`.
calibrate::KernelFitResult fit_named(const std::vector<calibrate::KernelMeasurement>& ks,
                                     const compute::ComputeProfile& start, std::vector<std::string> names) {
  calibrate::KernelFitOptions o;
  o.parameters = std::move(names);
  return calibrate::fit_kernel_profile(ks, start, o);
}

/// A profile with round numbers and no benchmark overhead, so predictions are worked by hand.
compute::ComputeProfile round_profile() {
  compute::ComputeProfile p;
  p.kernel_overhead_us = 0;
  p.benchmark_overhead_us = 0;
  p.gemm_k_half = 0;
  auto& h = p.of(hardware::GpuArch::Hopper);
  h.gemm = 0.75;
  h.hbm = 0.80;
  h.flash_attention = 0.60;
  h.flash_attention_bwd = 0.50;
  return p;
}

/// DeepSeek-V3's dispatch shape (4096 tokens of 7168 values per rank, top-8) over `ranks` ranks,
/// `per_node` of them in one node, with `experts` routed experts.
cost::MoeDispatch v3_dispatch(std::int64_t ranks, std::int64_t per_node, double experts) {
  cost::MoeDispatch d;
  d.ranks = ranks;
  d.ranks_per_node = per_node;
  d.tokens = 4096;
  d.hidden = 7168;
  d.top_k = 8;
  d.experts = experts;
  d.bytes_per_value = 2;
  return d;
}

}  // namespace

TEST_CASE("a kernel file: bad entries are reported at their line with a did-you-mean, the others load") {
  scenario::Diagnostics d;
  const auto v = parse(R"(
- id: good
  source: a benchmark
  kind: gemm
  gpu: H100
  dtype: bf16
  shape: {m: 8192, n: 8192, k: 8192}
  measured: {time_ms: 1.5, speedup: 1.2x}
- id: typo-kind
  source: s
  kind: gem
  gpu: H100
  dtype: bf16
  shape: {m: 1, n: 1, k: 1}
  measured: {tflops: 1}
- id: typo-dtype
  source: s
  kind: gemm
  gpu: H100
  dtype: bf61
  shape: {m: 1, n: 1, k: 1}
  measured: {tflops: 1}
- id: unknown-gpu
  source: s
  kind: gemm
  gpu: H10O
  dtype: bf16
  shape: {m: 1, n: 1, k: 1}
  measured: {tflops: 1}
)",
                       d);
  REQUIRE(v.size() == 1);
  CHECK(v[0].id == "good");
  // time_ms is read as time_us; "1.2x" is metadata, not a figure.
  CHECK(v[0].measured.at("time_us") == doctest::Approx(1500));
  CHECK(v[0].measured.count("speedup") == 0);
  const std::string all = d.str();
  CHECK_MESSAGE(all.find("k.yaml:11:9: error: typo-kind.kind: unknown kernel kind 'gem' (hint: did you mean 'gemm'?") !=
                    std::string::npos,
                all);
  CHECK_MESSAGE(all.find("k.yaml:20:10: error: typo-dtype.dtype: unknown dtype 'bf61' (hint: did you mean 'bf16'?") !=
                    std::string::npos,
                all);
  // The same hint as a scenario's unknown GPU: a name of the same part family, the known GPUs and
  // how to add one.
  CHECK_MESSAGE(all.find("k.yaml:26:8: error: unknown-gpu.gpu: unknown GPU 'H10O' (hint: did you mean 'H100'? (known "
                         "GPUs: ") != std::string::npos,
                all);
  CHECK(io::is_kernel_file("- id: x\n  shape: {m: 1}\n"));
  CHECK_FALSE(io::is_kernel_file("- id: x\n  model: llama3-8b\n  shape: {m: 1}\n"));
}

TEST_CASE("a GEMM entry's TFLOP/s is 2 m n k over the cost layer's time") {
  const auto k = one(R"(
- id: g
  source: s
  kind: gemm
  gpu: H100
  dtype: bf16
  shape: {m: 8192, n: 8192, k: 8192}
  measured: {tflops: 700}
)");
  const compute::ComputeProfile p = round_profile();
  std::string why;
  const auto c = calibrate::compare_kernel(k, p, why);
  REQUIRE_MESSAGE(c.has_value(), why);
  const cost::OpContext ctx{&k.gpu, &p, hardware::Precision::BF16};
  const double t = cost::gemm_time(ctx, {8192, 8192, 8192, 1}).seconds();
  CHECK(c->figure == "tflops");
  CHECK(c->predicted == doctest::Approx(2.0 * 8192 * 8192 * 8192 / t / 1e12));
  // Stream-K on Hopper (tests/cost): 2 x 8192^3 at 0.75 of 989.4 TFLOP/s, 1.4817 ms, plus one FP32
  // partial 128x128 tile per SM written and read, 132 x 128 x 128 x 8 B at 3.35 TB/s x 0.80 =
  // 6.5 us: 738.8 TFLOP/s.
  const double seconds = 2.0 * 8192 * 8192 * 8192 / (989.4e12 * 0.75) + 132 * 128 * 128 * 8.0 / (3.35e12 * 0.80);
  CHECK(c->predicted == doctest::Approx(2.0 * 8192 * 8192 * 8192 / seconds / 1e12).epsilon(1e-6));
  CHECK(c->predicted == doctest::Approx(738.8).epsilon(1e-4));
  CHECK(c->error_pct == doctest::Approx((c->predicted - 700) / 700 * 100));
}

TEST_CASE("a kernel timed from a CUDA graph's replay pays no benchmark launch") {
  // The same GEMM as a loop of calls (the benchmark's launch and events, benchmark_overhead_us) and
  // replayed from a CUDA graph (timing: cuda_graph, triton.testing.do_bench_cudagraph): the second
  // is predicted exactly that overhead faster.
  const std::string entry = R"(
- id: g
  source: s
  kind: gemm
  gpu: H100
  dtype: bf16
  shape: {m: 512, n: 2112, k: 7168%s}
  measured: {time_us: 30}
)";
  compute::ComputeProfile p = round_profile();
  p.benchmark_overhead_us = 3;
  std::string why;
  const auto loop = compared(entry, "", p, why);
  REQUIRE_MESSAGE(loop.has_value(), why);
  const auto graph = compared(entry, ", timing: cuda_graph", p, why);
  REQUIRE_MESSAGE(graph.has_value(), why);
  CHECK(loop->predicted - graph->predicted == doctest::Approx(3.0).epsilon(1e-9));
}

TEST_CASE("a GEMM entry with accumulate: fp32 is priced with its FP32 output read and written") {
  const std::string entry = R"(
- id: w
  source: s
  kind: gemm
  gpu: H100
  dtype: bf16
  shape: {m: 7168, n: 4096, k: 4096, op: wgrad%s}
  measured: {tflops: 600}
)";
  const compute::ComputeProfile p = round_profile();
  std::string why;
  const auto plain = compared(entry, "", p, why);
  const auto accum = compared(entry, ", accumulate: fp32", p, why);
  REQUIRE_MESSAGE((plain && accum), why);
  // 7168 x 4096 x 8 B at 3.35 TB/s x 0.80 more than the plain kernel's time.
  const double flops = 2.0 * 7168 * 4096 * 4096;
  const double t_plain = flops / (plain->predicted * 1e12);
  CHECK(flops / (accum->predicted * 1e12) ==
        doctest::Approx(t_plain + 7168.0 * 4096 * 8 / (3.35e12 * 0.80)).epsilon(1e-6));
}

TEST_CASE("torchao's MXFP8 grouped-GEMM training function is scored, not fitted, and its GEMMs alone are") {
  const std::string entry = R"(
- id: g
  source: s
  kind: grouped_gemm
  gpu: B200
  dtype: %s
  shape: {groups: 8, total_m: 131072, n: 2048, k: 7168, direction: %s}
  measured: {time_us: 10000}
)";
  auto with = [&](const char* dtype, const char* direction) {
    std::string text = entry;
    text.replace(text.find("%s"), 2, dtype);
    text.replace(text.find("%s"), 2, direction);
    return one(text);
  };
  // Timed with its block-scale layout conversions, which the cost layer does not price.
  CHECK_FALSE(calibrate::is_component_measurement(with("mxfp8", "fwd+bwd")));
  CHECK(calibrate::is_component_measurement(with("mxfp8", "fwd")));
  CHECK(calibrate::is_component_measurement(with("mxfp8", "wgrad")));
  CHECK(calibrate::is_component_measurement(with("bf16", "fwd+bwd")));
}

TEST_CASE("the fit sets the 8-bit grouped-GEMM rate apart where 8-bit grouped entries inform it") {
  // Grouped GEMMs on H100 made with grouped_gemm 0.5 (16-bit) and grouped_gemm_fp8 0.9 (8-bit).
  compute::ComputeProfile truth = round_profile();
  auto& h = truth.of(hardware::GpuArch::Hopper);
  h.gemm_fp8 = 0.7;
  h.fp8_apart = true;
  h.grouped_gemm = 0.5;
  h.grouped_gemm_fp8 = 0.9;
  std::vector<calibrate::KernelMeasurement> ks;
  for (const char* dtype : {"bf16", "fp8"})
    for (const int n : {2048, 4096, 7168})
      ks.push_back(made_by(truth, std::string("- id: g\n  source: s\n  kind: grouped_gemm\n  gpu: H100\n  dtype: ") +
                                      dtype + "\n  shape: {groups: 8, tokens_per_group: 4096, n: " + std::to_string(n) +
                                      ", k: 7168, direction: fwd}\n  measured: {time_us: 1}\n"));
  compute::ComputeProfile start = truth;
  start.of(hardware::GpuArch::Hopper).grouped_gemm = 1.0;
  start.of(hardware::GpuArch::Hopper).grouped_gemm_fp8 = compute::kTied;
  const auto r = fit_named(ks, start, {"hopper.grouped_gemm", "hopper.grouped_gemm_fp8"});
  // Apart, the 8-bit coefficient moves its three entries alone, and the 16-bit one answers for the
  // other three only (tied, it would move all six).
  CHECK(r.informed.at("hopper.grouped_gemm_fp8") == 3);
  CHECK(r.informed.at("hopper.grouped_gemm") == 3);
  CHECK(r.profile.of(hardware::GpuArch::Hopper).grouped_gemm == doctest::Approx(0.5).epsilon(1e-3));
  CHECK(r.profile.of(hardware::GpuArch::Hopper).grouped_gemm_fp8 == doctest::Approx(0.9).epsilon(1e-3));
}

TEST_CASE("a multi-node collective entry is priced on the NICs it states") {
  const std::string entry = R"(
- id: ar
  source: s
  kind: collective
  gpu: B200
  dtype: fp32
  shape: {op: all_reduce, gpus: 32, nodes: 4, bytes: 17179869184%s}
  measured: {busbw_gbytes_s: 380}
)";
  const compute::ComputeProfile p = round_profile();
  std::string why;
  const auto hdr = compared(entry, "", p, why);
  const auto ndr = compared(entry, ", nics_per_node: 8, nic_gbps: 400", p, why);
  REQUIRE_MESSAGE((hdr && ndr), why);
  // A 16 GiB ring is bound by the NICs: twice their line rate, about twice the bus bandwidth.
  CHECK(ndr->predicted / hdr->predicted == doctest::Approx(2.0).epsilon(0.05));
  const auto four = compared(entry, ", nics_per_node: 4, nic_gbps: 400", p, why);
  REQUIRE_MESSAGE(four, why);
  CHECK(four->predicted < 0.6 * ndr->predicted);
}

TEST_CASE("an attention entry counts FLOPs as FlashAttention's benchmarks do, causal halved") {
  // 2 x 1 x 16 heads x 4096^2 x (128 + 128) / 2 (causal) = 68.72 GFLOP forward; the cost layer's time
  // attends S^2/2 + 64 S keys at 0.60 of the peak.
  const auto k = one(R"(
- id: a
  source: s
  kind: attention
  gpu: H100
  dtype: bf16
  shape: {batch: 1, seq: 4096, heads: 16, head_dim: 128, causal: true, direction: fwd}
  measured: {tflops: 500}
)");
  const compute::ComputeProfile p = round_profile();
  std::string why;
  const auto c = calibrate::compare_kernel(k, p, why);
  REQUIRE_MESSAGE(c.has_value(), why);
  const double keys = 4096.0 * 4096 / 2 + 64 * 4096;
  const double time = 2 * 16 * 256 * keys / (989.4e12 * 0.60);
  CHECK(c->predicted == doctest::Approx(2 * 16 * 4096.0 * 4096 * 256 / 2 / time / 1e12).epsilon(1e-6));
}

TEST_CASE("a memory-bound entry: an RMSNorm forward reads and writes rows x cols at the HBM efficiency") {
  // 16384 x 4096 BF16: 2 x 16384 x 4096 x 2 B = 268.4 MB at 3.35 TB/s x 0.80 = 100.1 us.
  const auto k = one(R"(
- id: n
  source: s
  kind: memory_bound
  gpu: H100
  dtype: bf16
  shape: {op: rms_norm_fwd, rows: 16384, cols: 4096}
  measured: {time_ms: 0.1}
)");
  std::string why;
  const auto c = calibrate::compare_kernel(k, round_profile(), why);
  REQUIRE_MESSAGE(c.has_value(), why);
  CHECK(c->figure == "time_us");
  CHECK(c->predicted == doctest::Approx(2.0 * 16384 * 4096 * 2 / (3.35e12 * 0.80) * 1e6).epsilon(1e-4));
}

TEST_CASE("a norm's backward: dx in one kernel, the per-SM partial sums of dgamma (and dbeta) reduced in a second") {
  // 1024 x 12288 BF16 on an H100 (132 SMs): dy and x read, dx written, 3 x 1024 x 12288 x 2 B,
  // plus 132 rows of FP32 partials written and read again, one row per weight (two with a bias),
  // at 3.35 TB/s x 0.80, and two launches.
  auto entry = [](const std::string& op, const std::string& bias) {
    return one("- id: n\n  source: s\n  kind: memory_bound\n  gpu: H100\n  dtype: bf16\n  shape: {op: " + op +
               ", rows: 1024, cols: 12288, bias: " + bias + "}\n  measured: {time_ms: 0.05}\n");
  };
  compute::ComputeProfile p = round_profile();
  p.kernel_overhead_us = 3;
  const double main_bytes = 3.0 * 1024 * 12288 * 2, partial_row = 2.0 * 132 * 12288 * 4;
  auto us = [](double bytes) { return bytes / (3.35e12 * 0.80) * 1e6; };
  std::string why;
  const auto ln = calibrate::compare_kernel(entry("layer_norm_bwd", "true"), p, why);
  REQUIRE_MESSAGE(ln.has_value(), why);
  CHECK(ln->predicted == doctest::Approx(us(main_bytes + 2 * partial_row) + 2 * 3).epsilon(1e-4));
  const auto rms = calibrate::compare_kernel(entry("rms_norm_bwd", "false"), p, why);
  REQUIRE_MESSAGE(rms.has_value(), why);
  CHECK(rms->predicted == doctest::Approx(us(main_bytes + partial_row) + 2 * 3).epsilon(1e-4));
  // The forward stays one kernel, reading x and writing y.
  const auto fwd = calibrate::compare_kernel(entry("rms_norm_fwd", "false"), p, why);
  REQUIRE_MESSAGE(fwd.has_value(), why);
  CHECK(fwd->predicted == doctest::Approx(us(2.0 * 1024 * 12288 * 2) + 3).epsilon(1e-4));
}

TEST_CASE("torchao's single MoE layer: the shared expert's 16-bit GEMMs and its SwiGLU beside the routed experts") {
  // bench_moe_layer.py's DeepSeek-V3 shape: 131072 tokens, h 7168, f 2048, 8 local experts,
  // torchtitan's MoEArgs top_k 1 and one shared expert.
  const auto entry = [](const std::string& extra) {
    return one(R"(
- id: l
  source: s
  kind: step_breakdown
  gpu: H100
  dtype: bf16
  shape: {op: single MoE layer forward+backward (bench_moe_layer.py), total_m: 131072, n: 2048, k: 7168, local_experts: 8)" +
               extra + R"(}
  measured: {time_ms: 90}
)");
  };
  const compute::ComputeProfile p = round_profile();
  const auto routed = entry(""), with_shared = entry(", top_k: 1, shared_experts: 1"), top2 = entry(", top_k: 2");
  std::string why;
  const auto r = calibrate::compare_kernel(routed, p, why);
  REQUIRE_MESSAGE(r.has_value(), why);
  const auto s = calibrate::compare_kernel(with_shared, p, why);
  REQUIRE_MESSAGE(s.has_value(), why);
  const auto t2 = calibrate::compare_kernel(top2, p, why);
  REQUIRE_MESSAGE(t2.has_value(), why);
  CHECK(r->figure == "time_us");
  // The shared expert: gate and up (131072 x 4096 from 7168) and down (131072 x 7168 from 2048),
  // each forward, input gradient and weight gradient, dense BF16 GEMMs; its SwiGLU moves
  // 8 x 131072 x 2048 x 2 B more at 3.35 TB/s x 0.80.
  const cost::OpContext ctx{&routed.gpu, &p, hardware::Precision::BF16};
  const double T = 131072, h = 7168, f = 2048;
  double dense = 0;
  for (const cost::GemmShape g : {cost::GemmShape{T, 2 * f, h}, cost::GemmShape{T, h, f}})
    dense +=
        (cost::gemm_time(ctx, g) + cost::gemm_time(ctx, {g.m, g.k, g.n}) + cost::gemm_time(ctx, {g.n, g.k, g.m})).us();
  const double swiglu = 8 * T * f * 2 / (3.35e12 * 0.80) * 1e6;
  CHECK(s->predicted - r->predicted == doctest::Approx(dense + swiglu).epsilon(1e-6));
  // 3 passes x 2 x 131072 x 7168 x (4096 + 2048) FLOPs = 34.6 TFLOP at 0.75 of 989.4 TFLOP/s: ~47 ms.
  CHECK(dense == doctest::Approx(34.64e12 / (989.4e12 * 0.75) * 1e6).epsilon(0.03));
  // Two routed experts per token double every routed term: twice the routed prediction.
  CHECK(t2->predicted == doctest::Approx(2 * r->predicted).epsilon(0.02));
}

TEST_CASE("MoE dispatch: a token reaches the distinct ranks of its experts, deduplicated per node across nodes") {
  // 256 experts over 8 ranks (32 each), top-8: a rank gets none of a token's experts with
  // probability C(224, 8) / C(256, 8) = prod_{i<8} (224 - i)/(256 - i) = 0.3406.
  double none = 1;
  for (int i = 0; i < 8; ++i) none *= (224.0 - i) / (256.0 - i);
  CHECK(cost::expected_holders(256, 8, 8) == doctest::Approx(8 * (1 - none)));
  CHECK(cost::expected_holders(256, 1, 8) == 1.0);
  // Inside one node of 8 H800: each of 4096 tokens goes to 5.27 ranks, all but its own share over
  // NVLink, at the dispatch efficiency of the 200 GB/s one-way NVLink.
  const auto& cat = test::shipped_catalog();
  const hardware::GpuSpec& h800 = *cat.find_gpu("H800");
  compute::ComputeProfile p;
  p.dispatch_efficiency = 0.8;
  p.dispatch_sm_gbps = 0;
  cost::MoeDispatch d = v3_dispatch(8, 8, 256);
  const auto c = cost::moe_dispatch_cost(h800, *cat.find_fabric(h800.default_fabric), 8, p, d);
  const double hit = 8 * (1 - none);
  CHECK(c.received_bytes == doctest::Approx(4096 * hit * 7168 * 2));
  CHECK(c.nvlink_bytes == doctest::Approx(4096 * hit * 7 / 8 * 7168 * 2));
  CHECK(c.rdma_bytes == 0);
  CHECK(c.time.seconds() == doctest::Approx(c.nvlink_bytes / (200e9 * 0.8)).epsilon(1e-6));
  // Across 2 nodes with a 400 Gb/s NIC per GPU: each token once to the other node when any of
  // its experts is there (1 - C(128, 8)/C(256, 8) of the time); every copy but the rank's own then
  // crosses NVLink once (sent to a peer, or forwarded by the GPU the RDMA copy reached); the slower
  // link sets the time (NVLink here: 6.2 copies per token at 160 GB/s against one at 40 GB/s).
  d.ranks = 16;
  d.nic_gbps = 400;
  const auto x = cost::moe_dispatch_cost(h800, *cat.find_fabric(h800.default_fabric), 8, p, d);
  const double hit16 = cost::expected_holders(256, 16, 8);
  CHECK(x.rdma_bytes == doctest::Approx(4096 * cost::expected_holders(256, 2, 8) / 2 * 7168 * 2));
  CHECK(x.nvlink_bytes == doctest::Approx(4096 * hit16 * 15 / 16 * 7168 * 2));
  CHECK(x.time.seconds() ==
        doctest::Approx(std::max(x.nvlink_bytes / (200e9 * 0.8), x.rdma_bytes / (50e9 * 0.8))).epsilon(1e-6));
}

TEST_CASE("MoE dispatch on few SMs: bytes at each SM's rate, and a warp-copy kernel's cost per token copy") {
  const auto& cat = test::shipped_catalog();
  const hardware::GpuSpec& b200 = *cat.find_gpu("B200");
  const hardware::FabricSpec& fabric = *cat.find_fabric(b200.default_fabric);
  compute::ComputeProfile p;
  p.dispatch_efficiency = 0.7;
  p.dispatch_sm_gbps = 20;
  p.dispatch_copy_ns = 400;
  cost::MoeDispatch d = v3_dispatch(8, 8, 64);
  d.sms = 24;
  // TMA copies (Hybrid-EP): the bytes at 24 x 20 GB/s, below NVLink's 900 x 0.7 GB/s.
  const auto tma = cost::moe_dispatch_cost(b200, fabric, 8, p, d);
  const double link = tma.nvlink_bytes / (900e9 * 0.7), sm_bytes = tma.nvlink_bytes / (24 * 20e9);
  REQUIRE(sm_bytes > link);
  CHECK(tma.time.seconds() == doctest::Approx(sm_bytes).epsilon(1e-9));
  // Warp copies (DeepEP's normal kernels): each received token copy adds 400 ns on one of the 24.
  d.warp_copies = true;
  const auto warp = cost::moe_dispatch_cost(b200, fabric, 8, p, d);
  const double copies = warp.received_bytes / (7168 * 2);
  CHECK(copies == doctest::Approx(4096 * cost::expected_holders(64, 8, 8)));
  CHECK(warp.time.seconds() == doctest::Approx(sm_bytes + copies * 400e-9 / 24).epsilon(1e-9));
  // FP8 halves the bytes but not the copies: the per-copy cost weighs more, so it is slower per byte.
  d.bytes_per_value = 1 + 4.0 / 128;
  const auto fp8 = cost::moe_dispatch_cost(b200, fabric, 8, p, d);
  CHECK(fp8.time < warp.time);
  CHECK(fp8.received_bytes / fp8.time.seconds() < warp.received_bytes / warp.time.seconds());
  // Twice the SMs: the SM side halves until NVLink sets the time.
  d.sms = 48;
  d.bytes_per_value = 2;
  const auto wide = cost::moe_dispatch_cost(b200, fabric, 8, p, d);
  CHECK(wide.time.seconds() == doctest::Approx(std::max(link, warp.time.seconds() / 2)).epsilon(1e-9));
}

TEST_CASE("DeepEP's internode bottleneck bandwidth counts each token once per node it reaches, its own included") {
  const auto k = one(R"(- id: d
  source: s
  kind: collective
  gpu: H800
  dtype: bf16
  shape: {op: moe_combine, gpus: 16, nodes: 2, transport: ib-rdma, tokens_per_rank: 4096, hidden: 7168, topk: 8, kernel: normal (high-throughput), nic_gbps: 400, experts: 256}
  measured: {bottleneck_bandwidth_gbytes_s: 43}
)");
  compute::ComputeProfile p;
  p.dispatch_efficiency = 0.8;
  std::string why;
  const auto c = calibrate::compare_kernel(k, p, why);
  REQUIRE_MESSAGE(c.has_value(), why);
  const auto& cat = test::shipped_catalog();
  const hardware::GpuSpec& h800 = *cat.find_gpu("H800");
  cost::MoeDispatch d = v3_dispatch(16, 8, 256);
  d.nic_gbps = 400;
  d.warp_copies = true;
  const auto x = cost::moe_dispatch_cost(h800, *cat.find_fabric(h800.default_fabric), 8, p, d);
  // The NIC carries half of the (token, node) pairs; the figure counts both halves.
  const double pairs = 4096 * cost::expected_holders(256, 2, 8) * 7168 * 2;
  CHECK(x.rdma_bytes == doctest::Approx(pairs / 2));
  CHECK(c->predicted == doctest::Approx(pairs / x.time.seconds() / 1e9).epsilon(1e-9));
}

TEST_CASE("DeepEP V2's and Hybrid-EP's internode bandwidths count (token, node) pairs as V1's does") {
  // V2 (tests/elastic/test_ep.py) and Hybrid-EP (tests/utils.py count_rdma_send_from_routing_map)
  // keep the local node in the count: the figure is the NIC's bytes times nodes / (nodes - 1).
  const std::string entry = R"(- id: d
  source: s
  kind: collective
  gpu: H800
  dtype: bf16
  shape: {op: moe_dispatch, gpus: 32, nodes: 4, transport: ib-rdma, tokens_per_rank: 4096, hidden: 7168, topk: 8, nic_gbps: 400, experts: 256, kernel: %s}
  measured: {algbw_gbytes_s: 50}
)";
  compute::ComputeProfile p;
  p.dispatch_efficiency = 0.8;
  const auto& cat = test::shipped_catalog();
  const hardware::GpuSpec& h800 = *cat.find_gpu("H800");
  cost::MoeDispatch d = v3_dispatch(32, 8, 256);
  d.nic_gbps = 400;
  const auto x = cost::moe_dispatch_cost(h800, *cat.find_fabric(h800.default_fabric), 8, p, d);
  const double pairs = 4096 * cost::expected_holders(256, 4, 8) * 7168 * 2;
  CHECK(x.rdma_bytes == doctest::Approx(pairs * 3 / 4));
  for (const char* kernel : {"V2 ElasticBuffer", "Hybrid-EP"}) {
    CAPTURE(kernel);
    std::string why;
    const auto c = compared(entry, kernel, p, why);
    REQUIRE_MESSAGE(c.has_value(), why);
    CHECK(c->predicted == doctest::Approx(pairs / x.time.seconds() / 1e9).epsilon(1e-9));
    // More than the NIC carries, as the sources' figures are; all bytes received would be more still.
    CHECK(c->predicted > x.rdma_bytes / x.time.seconds() / 1e9);
    CHECK(c->predicted < x.received_bytes / x.time.seconds() / 1e9);
  }
}

TEST_CASE("Liger's cross-entropy backward as its harness times it: in-place scaling and autograd's clone") {
  // 4096 x 128256 FP32 logits: 2.10 GB a pass at 3.35 TB/s x 0.80. Liger's harness: element_mul
  // (read + write) and AccumulateGrad's clone (read + write), two kernels; otherwise one pass each way.
  const std::string entry = R"(- id: ce
  source: s
  kind: memory_bound
  gpu: H100
  dtype: fp32
  shape: {op: cross_entropy_bwd, rows: 4096, cols: 128256, provider: %s}
  measured: {time_ms: 1.0}
)";
  compute::ComputeProfile p = round_profile();
  p.kernel_overhead_us = 3;
  const double pass_us = 4096.0 * 128256 * 4 / (3.35e12 * 0.80) * 1e6;
  std::string why;
  const auto liger = compared(entry, "liger_triton", p, why);
  REQUIRE_MESSAGE(liger.has_value(), why);
  CHECK(liger->predicted == doctest::Approx(4 * pass_us + 2 * 3).epsilon(1e-4));
  const auto other = compared(entry, "torch", p, why);
  REQUIRE_MESSAGE(other.has_value(), why);
  CHECK(other->predicted == doctest::Approx(2 * pass_us + 3).epsilon(1e-4));
}

TEST_CASE("fit_kernel_profile recovers the coefficients that made the measurements") {
  // Measurements made by the cost layer itself with hopper.gemm 0.70 and hopper.hbm 0.85: a fit
  // from 0.80 / 0.75 must find them again (Cauchy loss, no noise: exactly, to the fit's tolerance).
  compute::ComputeProfile truth = round_profile();
  truth.of(hardware::GpuArch::Hopper).gemm = 0.70;
  truth.of(hardware::GpuArch::Hopper).hbm = 0.85;
  std::vector<calibrate::KernelMeasurement> ks;
  const int shapes[][3] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {16384, 2048, 8192}, {2048, 16384, 4096}};
  for (const auto& s : shapes) {
    auto k =
        one("- id: g\n  source: s\n  kind: gemm\n  gpu: H100\n  dtype: bf16\n  shape: {m: " + std::to_string(s[0]) +
            ", n: " + std::to_string(s[1]) + ", k: " + std::to_string(s[2]) + "}\n  measured: {time_us: 1}\n");
    std::string why;
    k.measured["time_us"] = calibrate::compare_kernel(k, truth, why)->predicted;
    ks.push_back(k);
  }
  for (int rows : {2048, 8192, 32768}) {
    auto k =
        one("- id: n\n  source: s\n  kind: memory_bound\n  gpu: H100\n  dtype: bf16\n  shape: {op: rms_norm_fwd, "
            "rows: " +
            std::to_string(rows) + ", cols: 8192}\n  measured: {time_us: 1}\n");
    std::string why;
    k.measured["time_us"] = calibrate::compare_kernel(k, truth, why)->predicted;
    ks.push_back(k);
  }
  compute::ComputeProfile start = round_profile();
  start.of(hardware::GpuArch::Hopper).gemm = 0.80;
  start.of(hardware::GpuArch::Hopper).hbm = 0.75;
  calibrate::KernelFitOptions o;
  o.parameters = {"hopper.gemm", "hopper.hbm"};
  const auto r = calibrate::fit_kernel_profile(ks, start, o);
  CHECK(r.fitted == std::vector<std::string>{"hopper.gemm", "hopper.hbm"});
  CHECK(r.informed.at("hopper.gemm") == 4);
  // The three norms, and three of the GEMMs through their stream-K partials, which move at the HBM
  // rate; at 4096^3 eight whole waves of 128x128 tiles (1,024 on 132 SMs, 7.76 waves' work) beat
  // stream-K by less than its partials cost.
  CHECK(r.informed.at("hopper.hbm") == 6);
  CHECK(r.profile.of(hardware::GpuArch::Hopper).gemm == doctest::Approx(0.70).epsilon(1e-3));
  CHECK(r.profile.of(hardware::GpuArch::Hopper).hbm == doctest::Approx(0.85).epsilon(1e-3));
  CHECK(r.median_after_pct < 0.1);
  CHECK(r.at_bound.empty());
}

TEST_CASE("a step breakdown is scored, not fitted: a whole MoE layer does not move the GEMM rate") {
  // GEMMs made with hopper.gemm 0.70, and two single-MoE-layer breakdowns measured 1.5x slower
  // than the same coefficients predict (what the cost layer does not price of a whole layer).
  compute::ComputeProfile truth = round_profile();
  truth.of(hardware::GpuArch::Hopper).gemm = 0.70;
  std::vector<calibrate::KernelMeasurement> ks;
  for (const int n : {4096, 8192, 16384}) {
    auto k = one("- id: g\n  source: s\n  kind: gemm\n  gpu: H100\n  dtype: bf16\n  shape: {m: 8192, n: " +
                 std::to_string(n) + ", k: 8192}\n  measured: {time_us: 1}\n");
    std::string why;
    k.measured["time_us"] = calibrate::compare_kernel(k, truth, why)->predicted;
    ks.push_back(k);
  }
  for (const int f : {2048, 8192}) {
    auto k =
        one("- id: l\n  source: s\n  kind: step_breakdown\n  gpu: H100\n  dtype: bf16\n  shape: {op: single MoE layer "
            "forward+backward, total_m: 65536, n: " +
            std::to_string(f) + ", k: 7168, local_experts: 8, shared_experts: 1}\n  measured: {time_us: 1}\n");
    std::string why;
    k.measured["time_us"] = 1.5 * calibrate::compare_kernel(k, truth, why)->predicted;
    ks.push_back(k);
  }
  compute::ComputeProfile start = round_profile();
  start.of(hardware::GpuArch::Hopper).gemm = 0.80;
  calibrate::KernelFitOptions o;
  o.parameters = {"hopper.gemm"};
  const auto r = calibrate::fit_kernel_profile(ks, start, o);
  CHECK(r.informed.at("hopper.gemm") == 3);
  CHECK(r.entries == 3);
  CHECK(r.profile.of(hardware::GpuArch::Hopper).gemm == doctest::Approx(0.70).epsilon(1e-3));
  // Scored all the same: the two breakdowns' predicted speed stays 1.5 times their measured one,
  // the summary's p90.
  CHECK(r.p90_after_pct == doctest::Approx(50.0).epsilon(0.01));
}

TEST_CASE("kernel cross-validation fits again what a fitted profile's kernel stage holds") {
  // GEMMs of two publications, made with hopper.gemm 0.70; the start says 0.80 and, as a profile
  // written by calibrate does, holds every coefficient for its run stage.
  compute::ComputeProfile truth = round_profile();
  truth.of(hardware::GpuArch::Hopper).gemm = 0.70;
  std::vector<calibrate::KernelMeasurement> ks;
  const int shapes[][3] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {16384, 2048, 8192}, {2048, 16384, 4096}};
  for (const char* source : {"a/one", "b/two"})
    for (const auto& s : shapes) {
      auto k = one("- id: g\n  source: " + std::string(source) + "\n  kind: gemm\n  gpu: H100\n  dtype: bf16\n" +
                   "  shape: {m: " + std::to_string(s[0]) + ", n: " + std::to_string(s[1]) +
                   ", k: " + std::to_string(s[2]) + "}\n  measured: {time_us: 1}\n");
      std::string why;
      k.measured["time_us"] = calibrate::compare_kernel(k, truth, why)->predicted;
      ks.push_back(k);
    }
  compute::ComputeProfile start = round_profile();
  start.of(hardware::GpuArch::Hopper).gemm = 0.80;
  for (const auto& q : compute::profile_parameters()) start.held.push_back(q.name);
  // Not marked as the kernel stage's: held in every fold, so each held-out GEMM is off by 0.80 / 0.70.
  const auto stale = calibrate::cross_validate_kernels(ks, start);
  REQUIRE(stale.predictions.size() == 8);
  CHECK(stale.median_abs_pct > 5);
  // Marked: each fold fits it on the other publication's GEMMs and predicts the held-out ones.
  start.kernel_fitted = {"hopper.gemm"};
  const auto cv = calibrate::cross_validate_kernels(ks, start);
  REQUIRE(cv.predictions.size() == 8);
  CHECK(cv.groups == std::vector<std::string>{"a/one", "b/two"});
  CHECK(cv.p90_abs_pct < 0.5);
}

TEST_CASE("the whole-step glue is never fitted on kernels: host overheads and the sustained clock") {
  CHECK(calibrate::is_glue_parameter("host_overhead_us"));
  CHECK(calibrate::is_glue_parameter("iteration_overhead_ms"));
  CHECK(calibrate::is_glue_parameter("kernel_overhead_us"));
  CHECK(calibrate::is_glue_parameter("hopper.sustained_clock"));
  CHECK_FALSE(calibrate::is_glue_parameter("hopper.gemm"));
  CHECK_FALSE(calibrate::is_glue_parameter("benchmark_overhead_us"));
  CHECK_FALSE(calibrate::is_glue_parameter("collective_latency_us"));
  // A kernel benchmark predicts at the boost clock: the sustained clock does not move it.
  const auto k = one(R"(
- id: g
  source: s
  kind: gemm
  gpu: H100
  dtype: bf16
  shape: {m: 8192, n: 8192, k: 8192}
  measured: {tflops: 700}
)");
  compute::ComputeProfile slow = round_profile();
  slow.of(hardware::GpuArch::Hopper).sustained_clock = 0.7;
  std::string why;
  CHECK(calibrate::compare_kernel(k, slow, why)->predicted ==
        calibrate::compare_kernel(k, round_profile(), why)->predicted);
  CHECK(calibrate::kernel_source_group(k) == "s");
  calibrate::KernelMeasurement repo = k;
  repo.source = "deepseek-ai/DeepGEMM @327ec92: README.md";
  CHECK(calibrate::kernel_source_group(repo) == "deepseek-ai/DeepGEMM");
}

TEST_CASE("an NF4 dequantization entry is priced as bitsandbytes' dequantize_4bit, nested or not") {
  const char* entry = R"(
- id: q
  source: s
  kind: memory_bound
  gpu: H100
  dtype: fp16
  shape: {op: nf4_dequantize, rows: 8192, cols: 8192, blocksize: 64%s}
  measured: {time_ms: 0.341}
)";
  auto prof = round_profile();
  prof.of(hardware::GpuArch::Hopper).dequant_nf4 = 0.25;
  std::string why;
  const auto plain = one_with(entry, "");
  const auto c = calibrate::compare_kernel(plain, prof, why);
  REQUIRE_MESSAGE(c.has_value(), why);
  CHECK(c->figure == "time_us");
  // 67,108,864 weights x 2.5625 B at 3.35 TB/s x 0.25 (no overheads in this profile): 205.3 us.
  const double n = 8192.0 * 8192;
  CHECK(c->predicted == doctest::Approx(n * 2.5625 / (3.35e12 * 0.25) * 1e6).epsilon(1e-6));
  const cost::OpContext ctx{&plain.gpu, &prof, hardware::Precision::FP16};
  const auto nested = compared(entry, ", nested: true", prof, why);
  REQUIRE(nested.has_value());
  CHECK(nested->predicted == doctest::Approx(cost::nf4_dequant_time(ctx, n, true).seconds() * 1e6).epsilon(1e-9));
  CHECK(nested->predicted > c->predicted);
  // Without its size the entry is not predicted, and says why.
  const auto bad = one(R"(
- id: q
  source: s
  kind: memory_bound
  gpu: H100
  dtype: fp16
  shape: {op: nf4_dequantize}
  measured: {time_ms: 0.341}
)");
  CHECK_FALSE(calibrate::compare_kernel(bad, prof, why).has_value());
  CHECK(why.find("rows and cols") != std::string::npos);
  // A nested flag that is not a boolean, or a block size below one, is not read as a default.
  why.clear();
  CHECK_FALSE(compared(entry, ", nested: yes", prof, why).has_value());
  CHECK(why.find("nested is true or false") != std::string::npos);
  why.clear();
  auto zero = one_with(entry, "");
  zero.shape["blocksize"] = "0";
  CHECK_FALSE(calibrate::compare_kernel(zero, prof, why).has_value());
  CHECK(why.find("blocksize") != std::string::npos);
}

TEST_CASE("the NF4 dequantization rate is fitted apart once three entries inform it, else it stays the HBM rate") {
  // Entries made with hbm 0.80 and dequant_nf4 0.25 on H100: with three dequantization entries and
  // three RMSNorms the fit recovers both; with two dequantization entries it leaves dequant_nf4
  // tied (kMinKernelEntries) and fits the HBM rate on the RMSNorms alone.
  compute::ComputeProfile truth = round_profile();
  truth.of(hardware::GpuArch::Hopper).dequant_nf4 = 0.25;
  auto made = [&](const std::string& shape) {
    return made_by(truth, "- id: m\n  source: s\n  kind: memory_bound\n  gpu: H100\n  dtype: fp16\n  shape: " + shape +
                              "\n  measured: {time_us: 1}\n");
  };
  std::vector<calibrate::KernelMeasurement> ks;
  for (const int rows : {4096, 8192, 16384})
    ks.push_back(made("{op: rms_norm_fwd, rows: " + std::to_string(rows) + ", cols: 4096}"));
  for (const int rows : {4096, 8192, 14336})
    ks.push_back(made("{op: nf4_dequantize, rows: " + std::to_string(rows) + ", cols: 8192, nested: true}"));
  compute::ComputeProfile start = truth;
  start.of(hardware::GpuArch::Hopper).hbm = 0.6;
  start.of(hardware::GpuArch::Hopper).dequant_nf4 = compute::kTied;
  const auto r = fit_named(ks, start, {"hopper.hbm", "hopper.dequant_nf4"});
  CHECK(r.informed.at("hopper.dequant_nf4") == 3);
  CHECK(r.profile.of(hardware::GpuArch::Hopper).dequant_nf4 == doctest::Approx(0.25).epsilon(1e-3));
  CHECK(r.profile.of(hardware::GpuArch::Hopper).hbm == doctest::Approx(0.80).epsilon(1e-3));
  ks.pop_back();
  const auto two = fit_named(ks, start, {"hopper.hbm", "hopper.dequant_nf4"});
  CHECK(two.informed.at("hopper.dequant_nf4") == 2);
  CHECK(std::isnan(two.profile.of(hardware::GpuArch::Hopper).dequant_nf4));
  // The two are scored, not fitted: they do not pull the HBM rate they fall back to toward 0.25.
  CHECK(two.profile.of(hardware::GpuArch::Hopper).hbm == doctest::Approx(0.80).epsilon(1e-3));
  CHECK(two.entries == 3);
}

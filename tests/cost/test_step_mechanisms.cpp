// Mechanisms of the step estimate checked on worked examples: which ops an FP8 recipe leaves in
// 16 bits, and the node-deduplicated MoE dispatch volume.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/cost/collective_cost.hpp"
#include "flopcast/cost/op_cost.hpp"
#include "flopcast/cost/stage_cost.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/workload/workload.hpp"

using namespace flopcast;

namespace {

/// A scenario from its text, with the shipped catalog.
scenario::Scenario parse(const std::string& text) {
  scenario::Diagnostics d;
  auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  return *s;
}

/// A dense GELU model on one H100: 2 layers, hidden 1024 (8 heads), ffn 4096, seq 2048.
scenario::Scenario dense_h100(const std::string& precision) {
  return parse(
      "model:\n  layers: 2\n  hidden: 1024\n  heads: 8\n  ffn: 4096\n  vocab: 4096\n  seq_len: 2048\n"
      "cluster:\n  gpu: H100\n  gpus: 1\nparallel:\n  micro_batch: 1\n  global_batch: 1\n  recompute: none\n"
      "precision: " +
      precision + "\n");
}

compute::ComputeProfile no_host_profile() {
  compute::ComputeProfile p;
  p.host_overhead_us = 0;
  p.microbatch_overhead_ms = 0;
  p.iteration_overhead_ms = 0;
  return p;
}

/// Forward and backward time of one layer's four FP8-able GEMMs (QKV, projection, FC1, FC2)
/// at T = 2048 tokens, hidden 1024, ffn 4096, TP 1, in `ctx`'s precision, with the casts of
/// their 16-bit operands under FP8 (the input's T x k in the forward, the output gradient's
/// T x n in the backward, each row- and column-wise: op_cost.hpp, cast_time).
std::pair<double, double> layer_gemms(const cost::OpContext& ctx) {
  const double T = 2048, h = 1024, f = 4096;
  const cost::GemmShape fwd[] = {{T, 3 * h, h}, {T, h, h}, {T, f, h}, {T, h, f}};
  const bool cast = ctx.precision == hardware::Precision::FP8;
  double tf = 0, tb = 0;
  for (const auto& g : fwd) {
    tf += cost::gemm_time(ctx, g).seconds() + (cast ? cost::cast_time(ctx, g.m * g.k, 2, 2).seconds() : 0.0);
    tb += cost::gemm_time(ctx, {g.m, g.k, g.n}).seconds() + cost::gemm_time(ctx, {g.k, g.n, g.m}).seconds() +
          (cast ? cost::cast_time(ctx, g.m * g.n, 2, 2).seconds() : 0.0);
  }
  return {tf, tb};
}

/// A dispatch over EP 32 of 64 experts, top-8, 4,096 tokens of hidden 2,048 a rank (the MoE
/// dispatch tests' worked example), `per_domain` ranks to an NVLink domain.
cost::MoeDispatch ep32_dispatch(std::int64_t per_domain, int sms, bool warp, double bytes_per_value = 2) {
  cost::MoeDispatch md;
  md.ranks = 32;
  md.ranks_per_node = per_domain;
  md.tokens = 4096;
  md.hidden = 2048;
  md.top_k = 8;
  md.experts = 64;
  md.sms = sms;
  md.warp_copies = warp;
  md.bytes_per_value = bytes_per_value;
  return md;
}

}  // namespace

TEST_CASE("fp8 scope: attention, the LM head and the router stay in 16 bits") {
  CHECK(cost::non_gemm_precision(hardware::Precision::FP8) == hardware::Precision::BF16);
  CHECK(cost::non_gemm_precision(hardware::Precision::MXFP8) == hardware::Precision::BF16);
  CHECK(cost::non_gemm_precision(hardware::Precision::NVFP4) == hardware::Precision::BF16);
  CHECK(cost::non_gemm_precision(hardware::Precision::BF16) == hardware::Precision::BF16);
  CHECK(cost::non_gemm_precision(hardware::Precision::FP16) == hardware::Precision::FP16);
}

TEST_CASE("fp8 scope: an fp8 run differs from its bf16 twin by the four layer GEMMs and their casts only") {
  // Same model, same plan: under FP8 only QKV, projection, FC1 and FC2 change precision, each
  // with the casts of its 16-bit operands (elementwise kernels keep 16-bit activations in both).
  // So the stage's forward time of the bf16 run minus that of the fp8 run is exactly 2 layers x
  // (the four GEMMs at bf16 minus at fp8 with their casts); attention, embedding and the LM head
  // cancel. Were attention and the LM head at the FP8 peak, the
  // difference would be larger by their halved times.
  const auto prof = no_host_profile();
  const auto bf = dense_h100("bf16");
  const auto f8 = dense_h100("fp8");
  const auto e_bf = estimate::estimate_step(bf, prof);
  const auto e_f8 = estimate::estimate_step(f8, prof);
  REQUIRE(e_bf.stages.size() == 1);
  REQUIRE(e_f8.stages.size() == 1);
  const cost::OpContext c_bf{&bf.cluster.gpu, &prof, hardware::Precision::BF16};
  const cost::OpContext c_f8{&f8.cluster.gpu, &prof, hardware::Precision::FP8};
  const auto [bf_f, bf_b] = layer_gemms(c_bf);
  const auto [f8_f, f8_b] = layer_gemms(c_f8);
  const double want_f = 2 * (bf_f - f8_f), want_b = 2 * (bf_b - f8_b);
  // (For layers this small FP8 loses: its casts cost more than its faster GEMMs save.)
  REQUIRE(want_f != 0);
  const double got_f = (e_bf.stages[0].forward - e_f8.stages[0].forward).seconds();
  const double got_b = (e_bf.stages[0].backward - e_f8.stages[0].backward).seconds();
  CHECK(got_f == doctest::Approx(want_f).epsilon(1e-6));
  CHECK(got_b == doctest::Approx(want_b).epsilon(1e-6));
}

TEST_CASE("tp comm overlap: what Transformer Engine's comm-GEMM overlap leaves exposed") {
  const auto ms = [](double v) { return units::Time::from_seconds(v * 1e-3); };
  // GEMM-bound: one all-gather 1 ms and one reduce-scatter 1 ms, so 4 ms of collectives per
  // direction, under 10 ms of forward and 20 ms of backward GEMMs. Forward: max(0, 4 - 10) + the
  // last quarter of the two pipelined reduce-scatters, 2 x 1 / 4 = 0.5 ms; backward: 0.
  CHECK(cost::tp_overlap_exposed(ms(1), ms(1), ms(10), ms(20), parallel::Recompute::None, 0.0).seconds() ==
        doctest::Approx(0.5e-3).epsilon(1e-6));
  // Full recompute replays the forward's collectives: 2 x 0.5 = 1 ms.
  CHECK(cost::tp_overlap_exposed(ms(1), ms(1), ms(10), ms(20), parallel::Recompute::Full, 0.0).seconds() ==
        doctest::Approx(1.0e-3).epsilon(1e-6));
  // Communication-bound: ag = rs = 3 ms (12 ms per direction) under 8 ms forward and 10 ms
  // backward GEMMs. Forward: (12 - 8) + 2 x 3 / 4 = 5.5 ms; backward: 12 - 10 = 2 ms; 7.5 ms.
  CHECK(cost::tp_overlap_exposed(ms(3), ms(3), ms(8), ms(10), parallel::Recompute::None, 0.0).seconds() ==
        doctest::Approx(7.5e-3).epsilon(1e-6));
  // No GEMM to hide under: never more than the collectives themselves (12 + 12 ms).
  CHECK(cost::tp_overlap_exposed(ms(3), ms(3), ms(0), ms(0), parallel::Recompute::None, 0.0).seconds() ==
        doctest::Approx(24e-3).epsilon(1e-6));
}

TEST_CASE("tp comm overlap: the SMs the pipeline and bulk kernels take from the GEMMs") {
  const auto ms = [](double v) { return units::Time::from_seconds(v * 1e-3); };
  // Transformer Engine's add_ub default num_sm = 16 of an H100's 132 SMs.
  CHECK(cost::tp_overlap_sm_share(132) == doctest::Approx(16.0 / 132));
  const double s = cost::tp_overlap_sm_share(132);
  // GEMM-bound (ag = rs = 1 ms under 10 ms forward, 20 ms backward GEMMs): the forward's two
  // pipelined reduce-scatters hold 16 SMs for 2 ms, slowing the GEMMs by s x 2 ms = 0.242 ms,
  // plus the 0.5 ms pipeline tail; the backward's bulk all-gathers and reduce-scatters hold them
  // for 4 ms: s x 4 = 0.485 ms. 0.5 + 6 x 16 / 132 = 1.227 ms in all, against 0.5 ms with no SM cost.
  CHECK(cost::tp_overlap_exposed(ms(1), ms(1), ms(10), ms(20), parallel::Recompute::None, s).seconds() ==
        doctest::Approx((0.5 + 6 * 16.0 / 132) * 1e-3).epsilon(1e-6));
  // Communication-bound (ag = rs = 3 ms under 8 and 10 ms): the GEMMs finish inside the
  // communication even at 116 SMs (8 / (1 - s) = 9.1 < 12 ms), so the SM share adds nothing: 7.5 ms.
  CHECK(cost::tp_overlap_exposed(ms(3), ms(3), ms(8), ms(10), parallel::Recompute::None, s).seconds() ==
        doctest::Approx(7.5e-3).epsilon(1e-6));
  // Never more than the collectives unoverlapped (12 + 12 ms).
  CHECK(cost::tp_overlap_exposed(ms(3), ms(3), ms(0), ms(0), parallel::Recompute::None, s).seconds() ==
        doctest::Approx(24e-3).epsilon(1e-6));
}

TEST_CASE("tp comm overlap: the estimate charges the exposed part, not zero and not all") {
  // Llama-style 8B-class layers at TP 2 with sequence parallelism on two H100s of a node (GEMM-
  // bound: at TP 2 each GEMM is 4x the TP 8 one and each collective about half): with the
  // overlap the TP time is above zero and below the unoverlapped four all-gather/reduce-scatter
  // pairs per layer.
  const std::string text =
      "model:\n  layers: 4\n  hidden: 4096\n  heads: 32\n  kv_heads: 8\n  ffn: 14336\n  ffn_kind: swiglu\n"
      "  vocab: 128256\n  seq_len: 8192\n"
      "cluster:\n  gpu: H100\n  gpus: 2\n  gpus_per_node: 8\n"
      "parallel:\n  tp: 2\n  sequence_parallel: true\n  micro_batch: 1\n  global_batch: 8\n  recompute: none\n"
      "  zero: 0\n  overlap_tp_comm: ";
  scenario::Diagnostics d;
  auto on = io::parse_scenario(text + "true\nprecision: bf16\n", "on.yaml", test::shipped_catalog(), d);
  auto off = io::parse_scenario(text + "false\nprecision: bf16\n", "off.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(on.has_value(), d.str());
  REQUIRE_MESSAGE(off.has_value(), d.str());
  const auto prof = no_host_profile();
  const double tp_on = estimate::estimate_step(*on, prof).stages[0].tp_comm.seconds();
  const double tp_off = estimate::estimate_step(*off, prof).stages[0].tp_comm.seconds();
  CHECK(tp_on > 0);
  CHECK(tp_on < tp_off);
  // GEMM-bound at this size: each layer keeps the last quarter of its two forward
  // reduce-scatters, 2 x rs / 4, and the GEMMs lose the 16 of 132 SMs the pipeline kernels hold
  // for 2 rs and the bulk kernels for 2 (ag + rs): s = 16 / 132. The all-gather and reduce-scatter
  // of a ring cost the same, so 4 layers x (0.5 + 6 s) rs = 4.91 rs; unoverlapped it pays 4 layers
  // x 4 (ag + rs) = 32 rs (and the cross-entropy's three small all-reduces, a few percent).
  const double s = 16.0 / 132;
  CHECK(tp_on / tp_off == doctest::Approx(4 * (0.5 + 6 * s) / 32).epsilon(0.05));
}

TEST_CASE("stage times: the middle stages follow their own dense and MoE layer counts") {
  // 8 stages of 4 layers, the first 10 layers dense: stage 1 is all dense, stage 2 has 2 dense
  // and 2 MoE layers, stages 3-6 are all MoE. Without host floor and per-micro-batch overhead, a
  // stage's time is the sum of its layers' (integer nanoseconds, exact): twice the mixed stage
  // equals the dense stage plus an MoE one, and equal middle stages are equal.
  const std::string text =
      "model:\n  layers: 32\n  hidden: 1024\n  heads: 8\n  ffn: 4096\n  vocab: 4096\n  seq_len: 2048\n"
      "  moe: {experts: 8, top_k: 2, expert_ffn: 2048, dense_layers: 10}\n"
      "cluster:\n  gpu: H100\n  gpus: 64\nparallel:\n  pp: 8\n  ep: 8\n  micro_batch: 1\n  global_batch: 64\n"
      "  recompute: none\nprecision: bf16\n";
  const scenario::Scenario s = parse(text);
  std::vector<units::Time> tp_alt;
  const auto st = cost::stage_costs(s, no_host_profile(), &tp_alt);
  REQUIRE(st.size() == 8);
  for (const auto& x : st) CHECK(x.layers == 4);
  auto check_mixed = [](units::Time dense, units::Time mixed, units::Time moe) { CHECK(mixed * 2 == dense + moe); };
  check_mixed(st[1].forward, st[2].forward, st[3].forward);
  check_mixed(st[1].backward, st[2].backward, st[3].backward);
  check_mixed(st[1].ep_comm, st[2].ep_comm, st[3].ep_comm);
  check_mixed(tp_alt[1], tp_alt[2], tp_alt[3]);
  CHECK(st[1].forward != st[3].forward);
  for (std::size_t i = 4; i < 7; ++i) {
    CHECK(st[i].forward == st[3].forward);
    CHECK(st[i].backward == st[3].backward);
    CHECK(st[i].ep_comm == st[3].ep_comm);
    CHECK(tp_alt[i] == tp_alt[3]);
  }
}

TEST_CASE("moe dispatch: the dispatcher a run states sets the bytes it sends") {
  // 64 experts, top-8, EP 32 over 4 nodes of 8 H100, 4 MoE layers of T = 4096 tokens, hidden 2048:
  // DeepEP sends a token once per remote node holding any of its experts (0.45 of a copy per
  // routed expert), Megatron-core's alltoall dispatcher one copy per routed expert (2.2x the NIC
  // bytes), its allgather dispatcher all-gathers the group's 32 x T tokens on every rank and
  // reduce-scatters them back, forward and backward.
  auto scenario = [](const std::string& dispatcher, const std::string& gpu = "H100", int gpus_per_node = 8) {
    const std::string text =
        "model:\n  layers: 4\n  hidden: 2048\n  heads: 16\n  ffn: 8192\n  vocab: 4096\n  seq_len: 4096\n"
        "  moe: {experts: 64, top_k: 8, expert_ffn: 1024}\n"
        "cluster:\n  gpu: " +
        gpu + "\n  gpus: 32\n  gpus_per_node: " + std::to_string(gpus_per_node) +
        "\nparallel:\n  ep: 32\n  micro_batch: 1\n  global_batch: 32\n  recompute: none\n" +
        (dispatcher.empty() ? std::string() : "  moe_dispatcher: " + dispatcher + "\n") + "precision: bf16\n";
    return parse(text);
  };
  compute::ComputeProfile profile = no_host_profile();
  profile.dispatch_copy_ns = 400;  // what a DeepEP warp pays per token copy, about the shipped figure
  auto ep_comm = [&](const scenario::Scenario& s) {
    const auto st = cost::stage_costs(s, profile);
    REQUIRE(st.size() == 1);
    return st[0].ep_comm;
  };
  const units::Time unstated = ep_comm(scenario("")), deepep = ep_comm(scenario("deepep")),
                    alltoall = ep_comm(scenario("alltoall"));
  CHECK(unstated == deepep);
  CHECK(deepep.seconds() > 0);
  // The NIC sets the time at this span: the ratio is near 1 / 0.45, less the NVLink share.
  CHECK(alltoall.seconds() / deepep.seconds() > 1.8);
  CHECK(alltoall.seconds() / deepep.seconds() < 2.3);
  const scenario::Scenario gather = scenario("allgather");
  const units::Bytes group_tokens{4096.0 * 2048 * 2 * 32};
  const units::Time one_layer =
      (cost::collective_time(gather, profile, cost::CollectiveKind::AllGather, 32, 1, group_tokens) +
       cost::collective_time(gather, profile, cost::CollectiveKind::ReduceScatter, 32, 1, group_tokens)) *
      2;
  CHECK(ep_comm(gather) == one_layer * 4);
  // DeepEP and Hybrid-EP are priced by the dispatch cost their kernel measurements fit: each
  // layer's dispatch and combine, forward and backward, on Megatron-core's 20 or 16 SMs, DeepEP's
  // warps paying per token copy.
  auto dispatch = [&](const scenario::Scenario& s, std::int64_t per_domain, int sms, bool warp) {
    return cost::moe_dispatch_cost(s.cluster.gpu, s.cluster.fabric, s.cluster.gpus_per_node, profile,
                                   ep32_dispatch(per_domain, sms, warp))
        .time;
  };
  const scenario::Scenario deep = scenario("deepep"), hybrid = scenario("hybridep");
  CHECK(deepep.seconds() == doctest::Approx((dispatch(deep, 8, 20, true) * 16).seconds()).epsilon(1e-12));
  CHECK(ep_comm(hybrid).seconds() == doctest::Approx((dispatch(hybrid, 8, 16, false) * 16).seconds()).epsilon(1e-12));
  // A GB200 NVL72 rack of 4-GPU trays: the 32 EP ranks share one NVLink domain, no byte crosses a
  // NIC, and on 16 SMs Hybrid-EP's TMA copies beat DeepEP's warps on 20.
  const scenario::Scenario rack = scenario("hybridep", "GB200", 4), rack_deep = scenario("deepep", "GB200", 4);
  REQUIRE(rack.cluster.fabric.nvlink_group() >= 32);
  CHECK(cost::moe_dispatch_cost(rack.cluster.gpu, rack.cluster.fabric, 4, profile, ep32_dispatch(32, 0, false))
            .rdma_bytes == 0);
  CHECK(ep_comm(rack).seconds() == doctest::Approx((dispatch(rack, 32, 16, false) * 16).seconds()).epsilon(1e-12));
  CHECK(ep_comm(rack) < ep_comm(rack_deep));
}

TEST_CASE("moe load: a layer's routed experts compute the most loaded EP rank's tokens") {
  // 64 experts of 1024 (GELU: up 2048 -> 1024, down 1024 -> 2048), top-8, EP 32 on 32 H100, 4 MoE
  // layers of T = 6144 tokens a GPU: 49152 routes a rank, 2 local experts of 24576 tokens each on
  // average; the slowest of 32 ranks takes routed_load_factor of that (0.9% more), which a capacity
  // factor of 1 caps back to the mean. The forward differs by the two grouped GEMMs at the two
  // loads, here a wave of tiles more (at 4096 tokens the same waves hold both loads).
  auto scenario = [](const std::string& capacity) {
    return parse(
        "model:\n  layers: 4\n  hidden: 2048\n  heads: 16\n  ffn: 8192\n  vocab: 4096\n  seq_len: 6144\n"
        "  moe: {experts: 64, top_k: 8, expert_ffn: 1024" +
        capacity +
        "}\ncluster:\n  gpu: H100\n  gpus: 32\n  gpus_per_node: 8\n"
        "parallel:\n  ep: 32\n  micro_batch: 1\n  global_batch: 32\n  recompute: none\nprecision: bf16\n");
  };
  const compute::ComputeProfile profile = no_host_profile();
  const scenario::Scenario random = scenario(""), capped = scenario(", capacity_factor: 1.0");
  const double load = workload::routed_load_factor(*random.model.moe, 32, 6144.0 * 8);
  CHECK(load == doctest::Approx(1.00866).epsilon(1e-5));
  const cost::OpContext ctx{&random.cluster.gpu, &profile, random.precision};
  auto expert_gemms = [&](double tokens) {
    return cost::gemm_time(ctx, {tokens, 1024, 2048, 2, true}) + cost::gemm_time(ctx, {tokens, 2048, 1024, 2, true});
  };
  const auto slow = cost::stage_costs(random, profile), even = cost::stage_costs(capped, profile);
  REQUIRE(slow.size() == 1);
  REQUIRE(even.size() == 1);
  CHECK(slow[0].forward > even[0].forward);
  CHECK((slow[0].forward - even[0].forward).seconds() ==
        doctest::Approx(((expert_gemms(24576 * load) - expert_gemms(24576)) * 4).seconds()).epsilon(1e-9));
  CHECK(slow[0].ep_comm == even[0].ep_comm);  // the dispatch's fitted rate already holds random routing
}

TEST_CASE("moe dispatch: a quantized dispatch sends half the forward dispatch's and the gradients' bytes") {
  // The same 64 experts, top-8, EP 32 over 4 nodes of 8 H100, 4 MoE layers, now FP8: DeepSeek-V3's
  // FP8 dispatch (§3.3.2) sends the forward dispatch and the backward combine's gradients at
  // 1 + 4/128 B per value, the forward combine and the backward dispatch at 2 B.
  auto scenario = [](const std::string& dtype) {
    return parse(
        "model:\n  layers: 4\n  hidden: 2048\n  heads: 16\n  ffn: 8192\n  vocab: 4096\n  seq_len: 4096\n"
        "  moe: {experts: 64, top_k: 8, expert_ffn: 1024}\n"
        "cluster:\n  gpu: H100\n  gpus: 32\n  gpus_per_node: 8\n"
        "parallel:\n  ep: 32\n  micro_batch: 1\n  global_batch: 32\n  recompute: none\n  moe_dispatcher: deepep\n" +
        (dtype.empty() ? std::string() : "  moe_dispatch_dtype: " + dtype + "\n") + "precision: fp8\n");
  };
  compute::ComputeProfile profile = no_host_profile();
  profile.dispatch_copy_ns = 400;
  auto ep_comm = [&](const scenario::Scenario& s) {
    const auto st = cost::stage_costs(s, profile);
    REQUIRE(st.size() == 1);
    return st[0].ep_comm;
  };
  const scenario::Scenario wide = scenario(""), fp8 = scenario("fp8"), mx = scenario("mxfp8");
  auto pass = [&](double bytes_per_value) {
    return cost::moe_dispatch_cost(wide.cluster.gpu, wide.cluster.fabric, 8, profile,
                                   ep32_dispatch(8, 20, true, bytes_per_value))
        .time;
  };
  // Four MoE layers, each two 16-bit and two 8-bit passes.
  CHECK(ep_comm(wide).seconds() == doctest::Approx((pass(2.0) * 16).seconds()).epsilon(1e-12));
  CHECK(ep_comm(fp8).seconds() == doctest::Approx(((pass(2.0) + pass(1.03125)) * 8).seconds()).epsilon(1e-12));
  // MXFP8's scale per 32 values weighs as FP8's per 128: 1/32 B a value either way.
  CHECK(ep_comm(mx).seconds() == doctest::Approx(ep_comm(fp8).seconds()).epsilon(1e-12));
  // An 8-bit pass moves about half the bytes but pays the same per-copy warp work and latency, so
  // it takes more than half a 16-bit pass's time; the EP time falls by less than a quarter.
  const double pass_ratio = pass(1.03125).seconds() / pass(2.0).seconds();
  MESSAGE("8-bit / 16-bit pass: " << pass_ratio);
  CHECK(pass_ratio > 0.5);
  CHECK(pass_ratio < 0.9);
  CHECK(ep_comm(fp8).seconds() / ep_comm(wide).seconds() == doctest::Approx((1 + pass_ratio) / 2).epsilon(1e-12));
  // Only the dispatch changes: the GEMMs and their casts are the same.
  const auto a = cost::stage_costs(wide, profile), b = cost::stage_costs(fp8, profile);
  CHECK(a[0].forward == b[0].forward);
  CHECK(a[0].backward == b[0].backward);
}

TEST_CASE("ep overlap: what Megatron-core's batch-level overlap leaves of the all-to-all") {
  // ep 10 ms (5 forward, 5 backward), the layer's forward compute 3 ms, backward 6 ms, 15% of the
  // SMs to the dispatch kernels: the forward's 5 ms hide under the other micro-batch's 6 ms of
  // backward, costing 0.15 x 5 = 0.75 ms of SM time; the backward's 5 ms exceed the 3 ms of
  // forward by 2 ms, which is more than its SM cost: 2.75 ms in all.
  const units::Time exposed = cost::ep_overlap_exposed(
      units::Time::from_seconds(0.010), units::Time::from_seconds(0.003), units::Time::from_seconds(0.006), 0.15);
  CHECK(exposed.seconds() == doctest::Approx(0.00275));
  // Nothing to hide behind: all of it; no SM share and ample compute: nothing.
  CHECK(cost::ep_overlap_exposed(units::Time::from_seconds(0.01), units::Time{0}, units::Time{0}, 0.15).seconds() ==
        doctest::Approx(0.01));
  CHECK(cost::ep_overlap_exposed(units::Time::from_seconds(0.01), units::Time::from_seconds(1),
                                 units::Time::from_seconds(1), 0.0)
            .ns == 0);
  // Megatron-core's 20 DeepEP SMs of a B200's 148; a GPU of 30 SMs gives half.
  CHECK(cost::ep_overlap_sm_share(148, parallel::MoeDispatcher::DeepEP) == doctest::Approx(20.0 / 148));
  CHECK(cost::ep_overlap_sm_share(148, parallel::MoeDispatcher::HybridEP) == doctest::Approx(16.0 / 148));
  CHECK(cost::ep_overlap_sm_share(30, parallel::MoeDispatcher::DeepEP) == doctest::Approx(0.5));
  // Where Megatron-core refuses the overlap (transformer_config.py).
  parallel::ParallelPlan p;
  p.ep = 8;
  CHECK(parallel::ep_overlap_allowed(p));
  p.recompute = parallel::Recompute::Full;
  CHECK(!parallel::ep_overlap_allowed(p));
  p.recompute = parallel::Recompute::Selective;
  p.pp = 2;
  CHECK(!parallel::ep_overlap_allowed(p));
  p.vpp = 2;
  p.schedule = parallel::Schedule::Interleaved;
  CHECK(parallel::ep_overlap_allowed(p));
  p.moe_dispatcher = parallel::MoeDispatcher::AllGather;
  CHECK(!parallel::ep_overlap_allowed(p));
  p.moe_dispatcher = parallel::MoeDispatcher::DeepEP;
  p.ep = 1;
  CHECK(!parallel::ep_overlap_allowed(p));
}

TEST_CASE("ep overlap: a stage's exposed all-to-all shrinks by what the overlap hides") {
  // 8 micro-batches per step: 7 of 8 forwards and backwards paired.
  auto stage = [](bool overlap) {
    const std::string text =
        "model:\n  layers: 4\n  hidden: 2048\n  heads: 16\n  ffn: 8192\n  vocab: 4096\n  seq_len: 4096\n"
        "  moe: {experts: 64, top_k: 8, expert_ffn: 1024}\n"
        "cluster:\n  gpu: H100\n  gpus: 32\n  gpus_per_node: 8\nparallel:\n  ep: 32\n  micro_batch: 1\n"
        "  global_batch: 256\n  recompute: none\n  overlap_ep_comm: " +
        std::string(overlap ? "true" : "false") + "\nprecision: bf16\n";
    const auto st = cost::stage_costs(parse(text), no_host_profile());
    REQUIRE(st.size() == 1);
    return st[0];
  };
  const cost::StageTimes off = stage(false), on = stage(true);
  CHECK(on.forward == off.forward);  // the compute is the same
  CHECK(on.ep_comm < off.ep_comm);
  // At least the dispatch kernels' SM share of the all-to-all stays (H100: 20 of 132 SMs).
  CHECK(on.ep_comm.seconds() >= off.ep_comm.seconds() * 20.0 / 132 * 0.999);
}

TEST_CASE("ep overlap: the passes the combined 1F1B schedule cannot pair") {
  parallel::ParallelPlan p;
  p.dp = 1;
  p.micro_batch = 1;
  p.global_batch = 8;
  // No pipeline: the first forward and the last backward run alone, 1 of 8 each way.
  CHECK(cost::ep_unpaired_share(p, 0) == doctest::Approx(1.0 / 8));
  // Interleaved, pp 4 x vpp 2, 16 micro-batches (32 passes each way): stage 0 warms up with
  // 2 x 3 + 1 x 4 + 1 = 11 forwards, the last stage with 0 + 4 + 1 = 5.
  p.pp = 4;
  p.vpp = 2;
  p.global_batch = 16;
  CHECK(cost::ep_unpaired_share(p, 0) == doctest::Approx(11.0 / 32));
  CHECK(cost::ep_unpaired_share(p, 3) == doctest::Approx(5.0 / 32));
  // Fewer passes than the warm-up: none is paired.
  p.global_batch = 2;
  CHECK(cost::ep_unpaired_share(p, 0) == 1.0);
}

TEST_CASE("ep overlap: a stage's EP time lies between the paired figure and the whole all-to-all") {
  auto moe = [](int global_batch, bool overlap) {
    const std::string text =
        "model:\n  layers: 4\n  hidden: 2048\n  heads: 16\n  ffn: 8192\n  vocab: 32000\n  seq_len: 4096\n"
        "  moe: {experts: 64, top_k: 4, expert_ffn: 1024}\n"
        "cluster:\n  gpu: H100\n  gpus: 16\nparallel:\n  ep: 16\n  micro_batch: 1\n  global_batch: " +
        std::to_string(global_batch) + "\n  recompute: none\n  overlap_ep_comm: " + (overlap ? "true" : "false") +
        "\nprecision: bf16\n";
    return cost::stage_costs(parse(text), no_host_profile()).front().ep_comm;
  };
  // One micro-batch per step: its forward and backward both run alone, nothing hidden.
  CHECK(moe(16, true) == moe(16, false));
  // More micro-batches pair more passes; the share left whole shrinks as 1 / micro-batches.
  const units::Time alone = moe(16, false), two = moe(32, true), many = moe(16 * 64, true);
  CHECK(two < alone);
  CHECK(many < two);
  const double paired = (many.seconds() - alone.seconds() / 64) / (1 - 1.0 / 64);  // the fully paired figure
  CHECK(two.seconds() == doctest::Approx(0.5 * alone.seconds() + 0.5 * paired).epsilon(1e-5));
}

TEST_CASE("per-op checkpointing (selective under FSDP2) runs K, the output projection and w3 again, not attention") {
  // A SwiGLU GQA model on 2 H100 under FSDP2: 2 layers, hidden 1024 (8 heads of 128, 2 KV
  // heads), ffn 4096, seq 2048, bf16. Full recompute runs a layer's whole forward again; the
  // per-op policy runs its elementwise ops and three of its GEMMs, so the difference of the two
  // is the other GEMMs and attention's forward, per layer.
  auto stage = [](const char* recompute) {
    const std::string text =
        "model:\n  layers: 2\n  hidden: 1024\n  heads: 8\n  kv_heads: 2\n  ffn: 4096\n  ffn_kind: swiglu\n"
        "  vocab: 4096\n  seq_len: 2048\ncluster:\n  gpu: H100\n  gpus: 2\n"
        "parallel:\n  dp: 2\n  zero: 3\n  fsdp: {reshard_after_forward: true}\n  micro_batch: 1\n"
        "  global_batch: 2\n  recompute: " +
        std::string(recompute) + "\nprecision: bf16\n";
    return cost::stage_costs(parse(text), no_host_profile()).front();
  };
  const auto full = stage("full"), op = stage("selective"), none = stage("none");
  CHECK(none.recompute.ns == 0);
  const compute::ComputeProfile prof = no_host_profile();
  const auto& gpu = *test::shipped_catalog().find_gpu("H100");
  const cost::OpContext ctx{&gpu, &prof, hardware::Precision::BF16};
  const double T = 2048, h = 1024, kv = 256, f = 4096;
  auto g = [&](double m, double n, double k) { return cost::gemm_time(ctx, {m, n, k}).seconds(); };
  const double all = g(T, h + 2 * kv, h) + g(T, h, h) + g(T, 2 * f, h) + g(T, h, f);
  const double again = g(T, kv, h) + g(T, h, h) + g(T, f, h);
  const double attention = cost::attention_time(ctx, {8, T, T, 128, 0, true, 0}, false).seconds();
  CHECK((full.recompute - op.recompute).seconds() == doctest::Approx(2 * (all - again + attention)).epsilon(1e-9));
  CHECK(op.recompute.seconds() > 2 * again);
}

TEST_CASE(
    "eager elementwise: PyTorch's unfused norms, rotary, SwiGLU and attention-output copy, priced as bytes and launches") {
  // A Llama-style layer (RMSNorm, RoPE, SwiGLU) on one H100, hidden 1024 (8 heads of 128, 2 KV
  // heads), ffn 4096, T = 2048 tokens. Eager adds per token and layer: two RMSNorms at 36 - 4 B
  // per element (2 x 32 x 1024 = 65,536 B), rotary at 20 - 8 B per query and key element
  // (12 x (1024 + 256) = 15,360 B), SwiGLU at 10 - 6 B (4 x 4096 = 16,384 B) and the attention
  // output made contiguous (4 x 1024 = 4,096 B): 101,376 B, in 18 more kernels. Forward: T x
  // that at 3.35 TB/s x 0.75 plus 18 launches of 6 us, per layer; backward twice both.
  auto llama = [&](const char* elementwise) {
    return parse(std::string("model:\n  layers: 2\n  hidden: 1024\n  heads: 8\n  kv_heads: 2\n  ffn: 4096\n"
                             "  ffn_kind: swiglu\n  norm: rmsnorm\n  position: rope\n  vocab: 4096\n  seq_len: 2048\n"
                             "cluster:\n  gpu: H100\n  gpus: 1\nparallel:\n  micro_batch: 1\n  global_batch: 1\n"
                             "  recompute: none\nprecision: bf16\nelementwise: ") +
                 elementwise + "\n");
  };
  const auto fused = llama("fused"), eager = llama("eager");
  CHECK(fused.plan.fused_elementwise);
  CHECK_FALSE(eager.plan.fused_elementwise);
  const auto prof = no_host_profile();
  const auto e_fused = estimate::estimate_step(fused, prof);
  const auto e_eager = estimate::estimate_step(eager, prof);
  REQUIRE(e_fused.stages.size() == 1);
  const double per_layer = 2048 * 101376.0 / (3.35e12 * 0.75) + 18 * 6e-6;
  CHECK((e_eager.stages[0].forward - e_fused.stages[0].forward).seconds() ==
        doctest::Approx(2 * per_layer).epsilon(1e-6));
  CHECK((e_eager.stages[0].backward - e_fused.stages[0].backward).seconds() ==
        doctest::Approx(4 * per_layer).epsilon(1e-6));
}

TEST_CASE("eager elementwise: LayerNorm (one kernel in PyTorch) and GELU add only the attention-output copy") {
  // The GELU model of dense_h100: LayerNorm, learned positions, two FFN matrices. Eager adds the
  // attention output's contiguous copy only: 4 x 1024 B per token, one kernel.
  const auto fused = dense_h100("bf16");
  auto eager = fused;
  eager.plan.fused_elementwise = false;
  const auto prof = no_host_profile();
  const double per_layer = 2048 * 4096.0 / (3.35e12 * 0.75) + 6e-6;
  CHECK(
      (estimate::estimate_step(eager, prof).stages[0].forward - estimate::estimate_step(fused, prof).stages[0].forward)
          .seconds() == doctest::Approx(2 * per_layer).epsilon(1e-6));
}

TEST_CASE("eager elementwise: under FSDP2 an unstated choice is fused, and the defaults say so") {
  const auto s = parse(
      "model: llama3-8b\ncluster:\n  gpu: H100\n  gpus: 8\nparallel:\n  dp: 8\n  zero: 3\n  fsdp: {}\n"
      "  global_batch: 16\nprecision: bf16\n");
  CHECK(s.plan.fused_elementwise);
  const auto& d = s.defaults_applied;
  CHECK(std::any_of(d.begin(), d.end(), [](const std::string& x) { return x.rfind("elementwise = fused", 0) == 0; }));
  // Megatron-core plans fuse their own: nothing to say.
  const auto megatron = dense_h100("bf16");
  CHECK(std::none_of(megatron.defaults_applied.begin(), megatron.defaults_applied.end(),
                     [](const std::string& x) { return x.rfind("elementwise", 0) == 0; }));
}

TEST_CASE("a collective pays its own generation's floor: raising Ampere's moves an A100 all-reduce, not an H100's") {
  auto node = [](const std::string& gpu) {
    return parse(
        "model:\n  layers: 2\n  hidden: 1024\n  heads: 8\n  ffn: 4096\n  vocab: 4096\n  seq_len: 2048\n"
        "cluster:\n  gpu: " +
        gpu +
        "\n  gpus: 8\nparallel:\n  tp: 8\n  micro_batch: 1\n  global_batch: 1\n  recompute: none\nprecision: bf16\n");
  };
  const scenario::Scenario a100 = node("A100-80G"), h100 = node("H100");
  const units::Bytes mib{1048576.0};
  compute::ComputeProfile p = no_host_profile();
  p.collective_latency_us = 20;
  auto all_reduce = [&](const scenario::Scenario& s, const compute::ComputeProfile& prof) {
    return cost::collective_time(s, prof, cost::CollectiveKind::AllReduce, 8, 1, mib);
  };
  const units::Time a_shared = all_reduce(a100, p), h_shared = all_reduce(h100, p);
  compute::ComputeProfile q = p;
  q.of(hardware::GpuArch::Ampere).collective_latency_us = 30;  // 10 us above the shared floor
  CHECK((all_reduce(a100, q) - a_shared).us() == doctest::Approx(10.0).epsilon(1e-6));
  CHECK(all_reduce(h100, q) == h_shared);                     // Hopper keeps the shared floor
  q.of(hardware::GpuArch::Hopper).collective_latency_us = 5;  // 15 us below it
  CHECK((h_shared - all_reduce(h100, q)).us() == doctest::Approx(15.0).epsilon(1e-6));
}

TEST_CASE("layers kept in BF16 (bf16_layers): every layer kept is the BF16 run, one kept layer costs its BF16 GEMMs") {
  const std::string base =
      "model:\n  layers: 4\n  hidden: 1024\n  heads: 8\n  ffn: 4096\n  vocab: 4096\n  seq_len: 2048\n"
      "cluster:\n  gpu: B200\n  gpus: 1\nparallel:\n  micro_batch: 1\n  global_batch: 1\n  recompute: none\n";
  const auto prof = no_host_profile();
  const auto bf = parse(base + "precision: bf16\n");
  const auto fp4 = parse(base + "precision: nvfp4\n");
  const auto all = parse(base + "precision: nvfp4\nbf16_layers: {first: 0, last: 4}\n");
  const auto one = parse(base + "precision: nvfp4\nbf16_layers: {first: 1}\n");
  CHECK(workload::kept_in_bf16(one, 0));
  CHECK_FALSE(workload::kept_in_bf16(one, 1));
  CHECK(workload::layer_precision(one, 0) == hardware::Precision::BF16);
  CHECK(workload::layer_precision(one, 3) == hardware::Precision::NVFP4);
  const auto e_bf = estimate::estimate_step(bf, prof), e_fp4 = estimate::estimate_step(fp4, prof),
             e_all = estimate::estimate_step(all, prof), e_one = estimate::estimate_step(one, prof);
  // Every layer kept: the layers run as in the BF16 run (the LM head and attention are 16-bit in both).
  CHECK(e_all.stages[0].forward.seconds() == doctest::Approx(e_bf.stages[0].forward.seconds()).epsilon(1e-9));
  CHECK(e_all.stages[0].backward.seconds() == doctest::Approx(e_bf.stages[0].backward.seconds()).epsilon(1e-9));
  // One of four like layers kept: a quarter of the difference between the two runs.
  const double layer_f = (e_bf.stages[0].forward - e_fp4.stages[0].forward).seconds() / 4;
  const double layer_b = (e_bf.stages[0].backward - e_fp4.stages[0].backward).seconds() / 4;
  REQUIRE(layer_f != 0);
  CHECK((e_one.stages[0].forward - e_fp4.stages[0].forward).seconds() == doctest::Approx(layer_f).epsilon(1e-6));
  CHECK((e_one.stages[0].backward - e_fp4.stages[0].backward).seconds() == doctest::Approx(layer_b).epsilon(1e-6));
  // Memory: the kept layers hold no 4-bit weight copies and save 16-bit GEMM inputs.
  const auto m_bf = workload::memory_per_gpu(bf, prof), m_fp4 = workload::memory_per_gpu(fp4, prof),
             m_all = workload::memory_per_gpu(all, prof);
  CHECK(m_fp4.weight_copies.value > 0);
  CHECK(m_all.weight_copies.value == 0);
  CHECK(m_all.total().value == doctest::Approx(m_bf.total().value).epsilon(1e-12));
}

TEST_CASE(
    "virtual pipeline stages place layers as Megatron-core interleaves them, so kept layers sit where it puts them") {
  const std::string base =
      "model:\n  layers: 8\n  hidden: 1024\n  heads: 8\n  ffn: 4096\n  vocab: 4096\n  seq_len: 2048\n"
      "cluster:\n  gpu: B200\n  gpus: 2\nparallel:\n  pp: 2\n  micro_batch: 1\n  global_batch: 8\n"
      "  recompute: none\n";
  // pp 2 x vpp 2 over 8 layers: chunks of 2, virtual stage v's chunk on rank r at 4 v + 2 r.
  const auto vpp = parse(base + "  vpp: 2\n  schedule: interleaved\nprecision: nvfp4\nbf16_layers: {last: 2}\n");
  const auto r0 = workload::pipeline_stage(vpp.model, vpp.plan, 0),
             r1 = workload::pipeline_stage(vpp.model, vpp.plan, 1);
  CHECK(r0.chunks == std::vector<std::pair<int, int>>{{0, 2}, {4, 2}});
  CHECK(r1.chunks == std::vector<std::pair<int, int>>{{2, 2}, {6, 2}});
  const auto all = workload::pipeline_stages(vpp.model, vpp.plan);
  CHECK(all[1].chunks == r1.chunks);
  // Without virtual stages, one block per rank.
  const auto flat = parse(base + "precision: nvfp4\n");
  CHECK(workload::pipeline_stage(flat.model, flat.plan, 1).chunks == std::vector<std::pair<int, int>>{{4, 4}});
  // The last two layers (6, 7) are rank 1's second chunk: rank 1 runs them in BF16, rank 0 none.
  const auto prof = no_host_profile();
  const auto plain = parse(base + "  vpp: 2\n  schedule: interleaved\nprecision: nvfp4\n");
  const auto bf = parse(base + "  vpp: 2\n  schedule: interleaved\nprecision: bf16\n");
  const auto e_kept = estimate::estimate_step(vpp, prof), e_plain = estimate::estimate_step(plain, prof),
             e_bf = estimate::estimate_step(bf, prof);
  CHECK(e_kept.stages[0].forward.seconds() == doctest::Approx(e_plain.stages[0].forward.seconds()).epsilon(1e-12));
  // Rank 1 holds four like layers, two of them kept: half the gap between its BF16 and NVFP4 runs.
  const double gap = (e_bf.stages[1].forward - e_plain.stages[1].forward).seconds();
  REQUIRE(gap != 0);
  CHECK((e_kept.stages[1].forward - e_plain.stages[1].forward).seconds() == doctest::Approx(gap / 2).epsilon(1e-6));
}

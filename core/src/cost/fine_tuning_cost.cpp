#include "flopcast/cost/fine_tuning_cost.hpp"

#include <algorithm>
#include <cstdint>

#include "flopcast/workload/fine_tuning.hpp"

namespace flopcast::cost {
namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

}  // namespace

FineTuningLayerCost fine_tuning_layer_cost(const OpContext& ctx, const scenario::Scenario& s, int layer,
                                           double tokens) {
  const auto& m = s.model;
  const auto& p = s.plan;
  const double t = p.tp, r = s.training.lora.rank;
  const double elt = hardware::bytes_per_element(ctx.precision) >= 2 ? hardware::bytes_per_element(ctx.precision) : 2.0;
  FineTuningLayerCost c;
  for (const auto& a : workload::adapter_shapes(m, s.training.lora, layer)) {
    // Both adapter matrices split by TP like their base GEMM (an approximation: frameworks
    // replicate one of the two, which differs by r x width, r << width). A routed expert's
    // adapters see the tokens routed to it: per_token / copies of T per copy, batched.
    const double split = a.routed ? p.expert_tp() : t;
    const double copies = a.routed ? a.copies / p.ep : a.copies;
    const double rows = a.routed ? tokens * a.per_token / a.copies * p.ep * p.expert_tp() / t : tokens;
    const double in = a.in / split, out = a.out / split;
    // x A (rows x r from in), then (x A) B (rows x out from r).
    c.fwd += gemm_time(ctx, {rows, r, in, copies}) + gemm_time(ctx, {rows, out, r, copies});
    c.bwd_input += gemm_time(ctx, {rows, r, out, copies}) + gemm_time(ctx, {rows, in, r, copies});
    c.bwd_weight += gemm_time(ctx, {r, out, rows, copies}) + gemm_time(ctx, {in, r, rows, copies});
    // The adapter's output scaled by alpha / r, a kernel of its own in every framework that runs
    // adapters (Megatron-Bridge / NeMo ParallelLinearAdapter.forward `x * (self.alpha /
    // self.dim)`, PEFT lora/layer.py `* scaling`, torchtune LoRALinear): read and written once
    // forward, and again for its gradient backward. Then added to the base output (read both,
    // write one); backward adds A's input gradient into the base's.
    c.fwd += memory_bound_time(ctx, units::Bytes{(2 + 3) * rows * copies * out * elt}, 2);
    c.bwd_input += memory_bound_time(ctx, units::Bytes{(2 * out + 3 * in) * rows * copies * elt}, 2);
    c.kernels_f += 4;
    c.kernels_b += 6;
    if (s.training.lora.dropout > 0) {
      // LoRA dropout on the adapter's input, before A (PEFT lora/layer.py `lora_dropout`, NeMo
      // ParallelLinearAdapter dropout_position 'pre'): torch's native_dropout reads the input and
      // writes the dropped copy and a 1-byte mask; its backward reads the gradient and the mask
      // and writes the input's gradient (native_dropout_backward). One kernel each way.
      const double x = workload::adapter_input_elements(s, a, tokens);
      c.fwd += memory_bound_time(ctx, units::Bytes{x * (2 * elt + 1)}, 1);
      c.bwd_input += memory_bound_time(ctx, units::Bytes{x * (2 * elt + 1)}, 1);
      c.kernels_f += 1;
      c.kernels_b += 1;
    }
  }
  const workload::BaseWeights base = s.training.lora.base_weights;
  if (workload::base_weights_dequantized(base, s.precision)) {
    // Frozen weights stored narrower than the run computes are restored to 16 bits before the
    // forward GEMM and again before the input-gradient GEMM (bitsandbytes' autograd/_functions.py,
    // MatMul4Bit forward and backward): one pass over every weight per direction.
    const double h = d(m.hidden);
    double gemm = h * d(m.q_dim()) + 2 * h * d(m.kv_dim()) + d(m.q_dim()) * h;
    double matrices = 4;
    if (m.is_moe_layer(layer)) {
      const auto& e = *m.moe;
      const double expert = m.ffn_matrices() * h * d(e.expert_ffn);
      gemm =
          gemm / t + e.shared_experts * expert / t + e.experts * expert / (static_cast<double>(p.expert_tp()) * p.ep);
      matrices += 2.0 * (e.experts / p.ep + e.shared_experts);
    } else {
      gemm = (gemm + m.ffn_matrices() * h * d(m.ffn)) / t;
      matrices += m.ffn_matrices();
    }
    units::Time dq{0};
    double kernels = matrices;
    if (base == workload::BaseWeights::NF4) {
      // bitsandbytes' dequantize_4bit with QLoRA's double quantization, one call a matrix.
      dq = nf4_dequant_time(ctx, gemm, true, matrices);
      kernels = nf4_dequant_kernels(true) * matrices;
    } else {
      // Frozen FP8 or NVFP4 weights under a wider precision are cast: read their bytes, write 2.
      dq = memory_bound_time(ctx, units::Bytes{gemm * (workload::base_weight_bytes(base) + 2.0)},
                             static_cast<int>(std::min(matrices, 1e6)));
    }
    c.fwd += dq;
    c.bwd_input += dq;
    c.kernels_f += kernels;
    c.kernels_b += kernels;
  }
  return c;
}

AdapterTpComm adapter_tp_comm(const scenario::Scenario& s, int layer, double tokens, double elt, bool sequence_parallel,
                              const std::function<units::Time(CollectiveKind, units::Bytes)>& coll) {
  AdapterTpComm c;
  const auto& p = s.plan;
  if (p.tp <= 1) return c;
  const double r = s.training.lora.rank;
  auto fwd = [&](CollectiveKind op, double bytes) {
    c.fwd += coll(op, units::Bytes{bytes});
    c.calls_f += 1;
  };
  auto bwd = [&](CollectiveKind op, double bytes) {
    c.bwd += coll(op, units::Bytes{bytes});
    c.calls_b += 1;
  };
  for (const auto& a : workload::adapter_shapes(s.model, s.training.lora, layer)) {
    if (a.routed) continue;
    const double low_rank = tokens * r * a.copies * elt;  // A's output, B's input: tokens x r per copy
    const bool row_parallel = workload::is_row_parallel(a.target);
    if (row_parallel) {
      const double out = tokens * a.out * elt;
      fwd(CollectiveKind::AllReduce, low_rank);                    // linear_in: RowParallelLinear, input_is_parallel
      fwd(CollectiveKind::AllGather, out);                         // linear_out: ColumnParallelLinear, gather_output
      bwd(CollectiveKind::AllReduce, low_rank);                    // linear_out's input gradient
      if (sequence_parallel) bwd(CollectiveKind::AllGather, out);  // scatter_to_sequence_parallel_region
    } else {
      const double in = tokens * a.in * elt;
      fwd(CollectiveKind::AllGather, low_rank);  // linear_in: ColumnParallelLinear, gather_output
      bwd(CollectiveKind::AllReduce, low_rank);  // linear_out's input gradient
      if (!sequence_parallel) {
        bwd(CollectiveKind::AllReduce, in);  // linear_in's input gradient
      } else if (p.overlap_tp_comm) {        // gather_from_sequence_parallel_region
        fwd(CollectiveKind::AllGather, in);
        bwd(CollectiveKind::ReduceScatter, in);
      }
    }
  }
  return c;
}

}  // namespace flopcast::cost

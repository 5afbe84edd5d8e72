#pragma once
/// What fine-tuning with low-rank adapters adds to a layer's cost (workload/fine_tuning.hpp
/// holds the adapters' shapes, parameters and memory; docs/fine-tuning.md).
#include <functional>

#include "flopcast/cost/collective_cost.hpp"
#include "flopcast/cost/op_cost.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::cost {

/// The extra work of one layer of a fine-tuning job for one micro-batch of `tokens` tokens on
/// one GPU: the adapters' GEMMs (each split by TP like its base GEMM), the scale and the add of
/// their output, QLoRA's dequantization. The base GEMMs' weight gradients are dropped by the caller.
struct FineTuningLayerCost {
  units::Time fwd{0}, bwd_input{0}, bwd_weight{0};
  double kernels_f = 0, kernels_b = 0;
};
FineTuningLayerCost fine_tuning_layer_cost(const OpContext& ctx, const scenario::Scenario& s, int layer, double tokens);

/// The tensor-parallel collectives the adapters of one layer add for one micro-batch of `tokens`
/// tokens (plan.tp > 1), as Megatron-Bridge's ParallelLinearAdapter runs them
/// (megatron/bridge/peft/utils.py): plain collectives on the compute stream, outside Transformer
/// Engine's comm-GEMM overlap. An adapter on a column-parallel GEMM (qkv, q, k, v, fc1, gate, up)
/// all-gathers A's output (tokens x r) forward and all-reduces B's input gradient backward;
/// without sequence parallelism it also all-reduces the gradient of its whole input (tokens x
/// width), which the base layer's own all-reduce does not cover; with sequence parallelism that
/// gradient joins the base's reduce-scatter (TE returns the layer norm's output gathered), unless
/// comm-GEMM overlap is on, when the adapter gathers the sequence itself (an all-gather forward, a
/// reduce-scatter backward). An adapter on a row-parallel GEMM (proj, fc2) all-reduces A's output
/// forward, all-gathers B's output (tokens x width) forward, all-reduces B's input gradient
/// backward and, with sequence parallelism, all-gathers its output's gradient backward (the
/// adjoint of scattering it back along the sequence). `coll` prices one collective over the TP
/// group from its kind and nccl-tests size. Routed experts' adapters add none while experts are
/// not tensor-parallel; with expert TP their collectives are not priced.
struct AdapterTpComm {
  units::Time fwd{0}, bwd{0};
  double calls_f = 0, calls_b = 0;  ///< collective launches, each a kernel
};
AdapterTpComm adapter_tp_comm(const scenario::Scenario& s, int layer, double tokens, double elt, bool sequence_parallel,
                              const std::function<units::Time(CollectiveKind, units::Bytes)>& coll);

}  // namespace flopcast::cost

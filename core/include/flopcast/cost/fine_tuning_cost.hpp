#pragma once
/// What fine-tuning with low-rank adapters adds to a layer's cost (workload/fine_tuning.hpp
/// holds the adapters' shapes, parameters and memory; docs/fine-tuning.md).
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

}  // namespace flopcast::cost

#pragma once
/// A parallel plan written out as text: the one formatter of every output that names a plan
/// (the planner's tables, `simulate`'s header, quotes, the GUI). The degrees read the same way
/// in both forms: "TP8 PP2 DP4", then CP, EP and VPP when above 1.
#include <string>

#include "flopcast/parallel/parallel_plan.hpp"

namespace flopcast::parallel {

/// "TP8 PP2 DP4", with " CP2", " EP8" and " VPP4" for each of those degrees above 1.
std::string plan_degrees(const ParallelPlan& p);

/// One table cell: "TP8 PP2 DP4 mb1 SP ZeRO-1 rc-selective 1f1b" (the micro-batch, SP when on,
/// the ZeRO stage, the recompute mode, and the schedule when there is a pipeline).
std::string plan_label(const ParallelPlan& p);

/// A sentence: "TP2 PP1 DP32 +SP, ZeRO-1, micro-batch 1, global batch 512, recompute selective,
/// 1f1b" (a quote's parallel plan; `simulate` adds the precision and the micro-batches per step),
/// and the quantized MoE dispatch where the plan has one (dispatch_text).
std::string plan_summary(const ParallelPlan& p);

/// "MoE dispatch in fp8 (combine bf16)" for a quantized dispatch, else "".
std::string dispatch_text(const ParallelPlan& p);

}  // namespace flopcast::parallel

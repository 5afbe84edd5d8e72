#pragma once
/// Closed-form step time over the stage costs (core/cost): the schedule's pipeline formula and
/// bubble, the exposed data-parallel sync, the optimizer, the per-iteration overhead. Fast
/// enough for the planner to rank millions of plans; the discrete-event step (core/step) is its
/// sibling over the same stage costs, deciding event by event what overlaps.
#include <vector>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/cost/stage_cost.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::estimate {

/// Where one step's time goes, on the critical path. Sums to the step time.
struct StepBreakdown {
  units::Time compute;    ///< forward + backward GEMMs, attention, elementwise (steady state)
  units::Time recompute;  ///< recomputed forward passes
  units::Time tp_comm;    ///< exposed tensor/sequence-parallel collectives
  units::Time cp_comm;    ///< exposed context-parallel exchanges
  units::Time ep_comm;    ///< exposed expert-parallel all-to-all
  units::Time pp_comm;    ///< exposed pipeline send/recv
  units::Time dp_comm;    ///< exposed data-parallel gradient sync (and ZeRO gathers)
  units::Time bubble;     ///< pipeline fill and drain
  units::Time optimizer;  ///< optimizer step over the local shard
  units::Time overhead;   ///< per-iteration host overhead
  units::Time total() const {
    return compute + recompute + tp_comm + cp_comm + ep_comm + pp_comm + dp_comm + bubble + optimizer + overhead;
  }
};

/// A step estimate.
struct StepEstimate {
  units::Time step;
  StepBreakdown breakdown;
  std::vector<cost::StageTimes> stages;
  units::Time dp_sync;       ///< the full DP gradient sync (before overlap)
  units::Flops model_flops;  ///< per step, whole job
  units::Flops hardware_flops;
  double mfu = 0;  ///< model FLOPs / (step x GPUs x dense peak of the precision)
  double hfu = 0;
  double tokens_per_s = 0;  ///< whole job
  workload::MemoryBreakdown memory;
};

/// Estimates one training step: estimate_over(s, profile, stage_costs(s, profile)). The scenario
/// must have passed check_scenario.
StepEstimate estimate_step(const scenario::Scenario& s, const compute::ComputeProfile& profile);

/// The closed-form step over given stage costs (one per pipeline stage, as stage_costs returns
/// them): what the discrete-event step reports beside its own time, without pricing the stages
/// twice.
StepEstimate estimate_over(const scenario::Scenario& s, const compute::ComputeProfile& profile,
                           std::vector<cost::StageTimes> stages);

}  // namespace flopcast::estimate

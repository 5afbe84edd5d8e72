#include "flopcast/job/scenario_job.hpp"

#include "flopcast/workload/fine_tuning.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::job {

JobInput job_input_for(const scenario::Scenario& s, units::Time step, std::int64_t steps, const EnergySpec& energy) {
  JobInput in;
  in.step_time = step;
  in.steps = steps;
  in.gpus = s.cluster.gpus;
  in.gpus_per_node = s.cluster.gpus_per_node;
  // What a checkpoint holds: every parameter, or a LoRA job's adapters (the frozen base weights
  // are read back from the base model's checkpoint, not written).
  in.params = workload::trainable_params(s);
  in.gpu_tdp_w = s.cluster.gpu.tdp_w;
  in.node_power_w = s.cluster.fabric.node_power_kw * 1000.0;
  in.energy = energy;
  in.reliability = s.reliability;  // ReliabilitySpec's cited defaults when the block is absent
  return in;
}

}  // namespace flopcast::job

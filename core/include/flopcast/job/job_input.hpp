#pragma once
/// Inputs of the whole-run simulation: the step the step simulator (or estimate) produced,
/// how many steps to run, the cluster, and the reliability and energy assumptions.
#include <cstdint>

#include "flopcast/job/reliability_spec.hpp"
#include "flopcast/units/money.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::job {

/// Power and electricity assumptions for the energy estimate.
struct EnergySpec {
  /// Power usage effectiveness: facility energy / IT energy. 1.58 is the 2023 industry
  /// average (Uptime Institute survey, UPTIME). Hyperscalers reach 1.1 (UPTIME), China's hub
  /// clusters must stay <= 1.25 (NDRC-PUE).
  double pue = 1.58;
  /// Board power of an idle GPU (restarts, waiting) as a fraction of TDP. 0.15 is an
  /// assumption (data-centre GPUs idle at roughly 60-100 W on 400-700 W parts); no measured
  /// figure was found.
  double gpu_idle_fraction = 0.15;
  /// Electricity price per kWh. $0.08 is the middle of the $0.07-0.09 US industrial
  /// planning range (EIA Table 5.6.B, Jan-Jul 2024).
  units::PriceRate price_per_kwh{80'000, units::Currency::of("USD")};
};

/// One whole training run to simulate.
struct JobInput {
  units::Time step_time;   ///< one optimizer step (from `step` or `estimate`), > 0
  std::int64_t steps = 0;  ///< optimizer steps of the run, > 0
  std::int64_t gpus = 0;   ///< GPUs of the job (failures scale with this), > 0
  int gpus_per_node = 8;   ///< for node power and per-node bills
  double params = 0.0;     ///< parameter count, sizes the checkpoint
  double gpu_tdp_w = 0.0;  ///< board power of one GPU at full load, W
  /// Whole-node power at full load, W (e.g. DGX A100 6,500 W, NV-DGXA100); 0 = unknown, then the
  /// non-GPU part of a node is taken as kNodeOverheadFraction x the GPUs' TDP.
  double node_power_w = 0.0;
  /// Average GPU board power while training as a fraction of TDP (0..1). 1.0 (every GPU at
  /// its TDP) is an upper bound; a measured fraction is better.
  double gpu_utilisation = 1.0;
  /// GPU-to-host bandwidth an async checkpoint snapshot crosses. 24 GB/s is PCIe Gen4 x16 in
  /// NCCL's topology model (NCCL src/graph/topo.cc); Gen5 x16 hosts (H100,
  /// H800) reach 48 GB/s there.
  units::Bandwidth host_link = units::Bandwidth::from_gbytes_per_s(24.0);
  EnergySpec energy;
  ReliabilitySpec reliability;
};

/// Non-GPU power of a node (CPUs, NICs, NVSwitches, fans) relative to its GPUs' TDP when the
/// node power is unknown: DGX H100 (10.2 kW - 8 x 700 W) / 5.6 kW = 0.82 and DGX B200
/// (14.3 kW - 8 x 1,000 W) / 8 kW = 0.79 (FG-DGX, NV-DGXB200UG); 0.8 rounds both.
inline constexpr double kNodeOverheadFraction = 0.8;

}  // namespace flopcast::job

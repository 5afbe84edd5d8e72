#pragma once
/// A scenario: model + cluster + plan + precision + training length, and optional blocks
/// (reliability, pricing, claimed figures, measured figures of a validation run).
#include <map>
#include <string>
#include <vector>

#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/job/reliability_spec.hpp"
#include "flopcast/parallel/parallel_plan.hpp"
#include "flopcast/pricing/pricing_spec.hpp"
#include "flopcast/scenario/diagnostic.hpp"
#include "flopcast/workload/model_spec.hpp"

namespace flopcast {

/// The cluster a job runs on.
struct ClusterSpec {
  GpuSpec gpu;
  std::int64_t gpus = 0;
  int gpus_per_node = 8;
  FabricSpec fabric;
  std::int64_t nodes() const { return gpus_per_node > 0 ? (gpus + gpus_per_node - 1) / gpus_per_node : 0; }
};

/// How long to train.
struct TrainingSpec {
  double tokens = 0.0;  ///< tokens to train on; 0 = not given (no whole-run figures)
};

/// Figures a vendor or article claims for this scenario; `simulate` checks them.
struct ClaimedSpec {
  std::map<std::string, double> figures;  ///< mfu, days, memory_gb, tokens_per_day, bubble_fraction, ...
  std::string note;
};

/// One scenario, fully resolved (presets expanded, defaults applied and listed).
struct Scenario {
  std::string name;
  std::string description;
  ModelSpec model;
  ClusterSpec cluster;
  ParallelPlan plan;
  Precision precision = Precision::BF16;
  TrainingSpec training;
  ReliabilitySpec reliability;
  bool has_reliability = false;
  PricingSpec pricing;
  bool has_pricing = false;
  ClaimedSpec claimed;
  std::string calibration;  ///< calibration profile name or file ("" = default profile)

  // Measured-run entries (run-schema.md).
  std::string id;
  std::string source;
  std::map<std::string, double> measured;  ///< iteration_time_s, mfu, tflops_per_gpu, tokens_per_gpu_s
  std::string kind;
  std::string reliability_grade;
  std::vector<std::string> notes;

  /// "key = value (default)" for each default the loader applied; printed by simulate/validate.
  std::vector<std::string> defaults_applied;
  /// Where each key was written (for diagnostics from checks after loading).
  LocationMap locations;
};

}  // namespace flopcast

#pragma once
/// A claim about GPUs, prices or training, as a claims file states it (docs/claims.md): who
/// said it, what it says, and what flopcast needs to judge it. The io loader resolves every
/// name (GPU, fabric, model, price catalog, plan) before evaluation, so a claim here is
/// complete: evaluation reads no file except through the scenario runner.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "flopcast/claims/claimed_value.hpp"
#include "flopcast/comm/collective.hpp"
#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/scenario/diagnostic.hpp"
#include "flopcast/topology/group_shape.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::claims {

/// What a claim is about.
enum class ClaimKind { Training, Price, Collective, Hardware, Energy, Checkpoint };

/// "training", "price", "collective", "hardware", "energy", "checkpoint".
const char* to_string(ClaimKind k);
/// The kind named `s`, or nullopt.
std::optional<ClaimKind> parse_claim_kind(std::string_view s);

/// A scenario file, optionally with keys overridden (`set:`, dotted scenario keys as in sweeps).
struct ScenarioRef {
  std::string path;                                      ///< as the runner opens it (resolved)
  std::string name;                                      ///< as the claims file writes it
  std::vector<std::pair<std::string, std::string>> set;  ///< key -> YAML value text
  /// A stable key for caching runs: path and overrides.
  std::string key() const;
};

/// A training claim: a figure of a scenario's `claimed:` block, checked by `simulate`'s check.
struct TrainingNeeds {
  ScenarioRef scenario;
};

/// How much GPU time a price claim is about.
struct PriceUse {
  std::int64_t gpus = 0;  ///< GPUs rented (0 = not stated)
  units::Time span;       ///< how long (0 = not stated)
};

/// Price figures: see docs/claims.md.
enum class PriceFigure {
  Rate,         ///< a plan's price per GPU or node per unit
  Total,        ///< the bill of a stated use under a plan
  Saving,       ///< one plan (or the CPU instance) against a baseline plan for the same use
  CreditHours,  ///< hours of GPU time the catalog's new-user credit buys
  RunCost,      ///< the bill of a simulated run (a scenario) under the cheapest of some plans
  Purchase,     ///< a purchase price (flopcast's catalogs hold rental plans only)
};
const char* to_string(PriceFigure f);

/// The side of a price comparison: a plan, or the catalog's CPU debug instance.
struct PriceOption {
  const pricing::Plan* plan = nullptr;        ///< into the claim's catalog
  const pricing::CpuInstance* cpu = nullptr;  ///< into the claim's catalog
  std::string id() const;                     ///< the plan or instance id ("" when none)
  bool empty() const { return plan == nullptr && cpu == nullptr; }
};

/// A price claim.
struct PriceNeeds {
  PriceFigure figure = PriceFigure::Rate;
  std::shared_ptr<const pricing::PriceCatalog> catalog;  ///< shared: plan pointers point into it
  std::vector<PriceOption> options;                      ///< the plan(s) the claim is about (RunCost: the cheapest)
  std::optional<PriceOption> baseline;                   ///< Saving: what it is cheaper than (absent: not stated)
  PriceUse use;
  std::string gpu;                 ///< CreditHours/Purchase without a plan: the GPU the claim names
  std::optional<ScenarioRef> run;  ///< RunCost
};

/// A collective claim, costed as `flopcast collective` costs it.
struct CollectiveNeeds {
  comm::Collective op = comm::Collective::AllReduce;
  hardware::GpuSpec gpu;
  hardware::FabricSpec fabric;
  std::int64_t gpus = 0;       ///< GPUs of the cluster
  topology::GroupShape group;  ///< the communicator (default: every GPU, as many per node as fit)
  units::Bytes min_size{8.0};  ///< smallest message (nccl-tests' -b default 8 B): latency
  /// Largest message (flopcast collective's --max default, 8 GiB): bus bandwidth.
  units::Bytes max_size{8.0 * 1073741824.0};
  std::string figure;  ///< "latency", "busbw" or "algbw"
};

/// A hardware claim, read against data/gpus.yaml or data/fabrics.yaml.
struct HardwareNeeds {
  std::string
      figure;  ///< dense_tflops, peak_vs, nvlink_bandwidth, memory, memory_bandwidth, power, nic_bandwidth, software
  std::optional<hardware::GpuSpec> gpu;
  std::optional<hardware::Precision> precision;    ///< dense_tflops, peak_vs
  std::optional<hardware::GpuSpec> compared_with;  ///< peak_vs
  std::optional<hardware::FabricSpec> fabric;      ///< nic_bandwidth
};

/// A fleet that draws power for a period.
struct FleetPower {
  hardware::GpuSpec gpu;
  hardware::FabricSpec fabric;  ///< its node power (0 = unknown: 0.8 x the GPUs' TDP for the rest of a node)
  std::int64_t gpus = 0;
};

/// An energy claim: a fleet's electricity over a period with a PUE and a tariff.
struct EnergyNeeds {
  std::string figure;  ///< "cost" or "saving"
  FleetPower fleet;
  std::optional<FleetPower> baseline;  ///< saving: what it is compared with (absent: not stated)
  units::Time period;                  ///< e.g. a year of 8,760 h
  double utilisation = 1.0;            ///< GPU board power as a fraction of TDP (1 = at TDP)
  double pue = 1.58;
  units::PriceRate tariff;  ///< per kWh
  std::string tariff_from;  ///< where the tariff and PUE come from ("catalog seed-vendor", "the claims file")
};

/// A checkpoint claim, computed with core/job's checkpoint model.
struct CheckpointNeeds {
  std::string figure;  ///< write_time, save_speedup, storage_bandwidth, interval, restart_time, lost_work
  std::string model;   ///< the model's name, for messages
  double params = 0;   ///< its parameter count (sizes the checkpoint)
  std::int64_t gpus = 0;
  units::Bandwidth storage_write;                  ///< the claim's storage write bandwidth
  std::optional<units::Bandwidth> storage_read;    ///< restart: read bandwidth (absent: taken equal to the write)
  std::optional<units::Bandwidth> baseline_write;  ///< save_speedup: what it is faster than (absent: not stated)
  units::Time interval;                            ///< interval, lost_work: the checkpoint interval
  bool async = true;
};

/// What a claim needs, by kind.
using ClaimNeeds =
    std::variant<TrainingNeeds, PriceNeeds, CollectiveNeeds, HardwareNeeds, EnergyNeeds, CheckpointNeeds>;

/// One claim of a claims file.
struct Claim {
  std::string id;  ///< unique in the file
  ClaimKind kind = ClaimKind::Training;
  std::string quote;                    ///< the claim as its source words it
  std::string source;                   ///< a key of docs/references.md or a citation
  std::string figure;                   ///< what is claimed (per kind; for training: the scenario's claimed figure)
  std::optional<ClaimedValue> claimed;  ///< absent for training claims (the scenario states it)
  /// Other claims of the file whose figures this one is computed from: when the two disagree,
  /// the verdict is "contradicts" and names them.
  std::vector<std::string> relies_on;
  std::string note;
  ClaimNeeds needs;
  scenario::SourceLocation where;  ///< where the claim starts
};

/// A claims file: its claims (those that loaded) and the ids of those that did not.
struct ClaimsFile {
  std::string file;
  std::string title;
  std::vector<Claim> claims;
  /// Claims left out because of bad input (their diagnostics went to the loader's Diagnostics).
  std::vector<std::pair<std::string, scenario::SourceLocation>> rejected;
};

}  // namespace flopcast::claims

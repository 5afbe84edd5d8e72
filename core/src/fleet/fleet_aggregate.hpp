#pragma once
// Internal: the seeds of a fleet run and their aggregation into costs, revenue and summaries
// (not installed). fleet.cpp, fleet_money.cpp and fleet_size_sweep.cpp share it.
#include <optional>
#include <string>
#include <vector>

#include "fleet_engine.hpp"
#include "flopcast/fleet/fleet.hpp"

namespace flopcast::fleet::detail {

/// Every seed of the fleet, on up to options.threads threads, in seed order.
std::vector<SeedRun> run_seeds(const Fleet& fleet, const FleetOptions& options);

/// `m` in the fleet's reporting currency. The fleet is valid (validate_fleet): a rate exists.
units::Money to_reporting(const Fleet& fleet, units::Money m);

/// The plan id the revenue bills pool `pool`'s runs under; nullptr when the fleet has no
/// revenue, the pool is internal or no plan names its GPU.
const std::string* revenue_plan_of(const Fleet& fleet, const Pool& pool);

/// What each pool costs over the horizon (fleet order). Bills that cannot be made go to `warnings`.
std::vector<PoolCost> pool_costs(const Fleet& fleet, const std::vector<SeedRun>& runs,
                                 std::vector<std::string>& warnings);

/// The revenue of the pools' runs (nullopt without a RevenueSpec); fills each cost's revenue,
/// revenue_plan and margin. Runs a plan cannot bill go to `warnings`.
std::optional<RevenueResult> add_revenue(const Fleet& fleet, const std::vector<SeedRun>& runs,
                                         std::vector<PoolCost>& costs, std::vector<std::string>& warnings);

/// Headline figures of the seeds.
FleetSummary summary_of(const Fleet& fleet, const std::vector<SeedRun>& runs, const std::vector<PoolCost>& costs,
                        const std::optional<RevenueResult>& revenue);

/// Runs the seeds and summarises them (what-ifs and the size sweep); the costs and the seeds'
/// runs are handed back when asked for.
FleetSummary summarise(const Fleet& fleet, const FleetOptions& options, std::vector<PoolCost>* costs_out = nullptr,
                       std::vector<SeedRun>* runs_out = nullptr);

}  // namespace flopcast::fleet::detail

#pragma once
/// Fleet capacity planning: many training jobs on a finite cluster.
///
/// A fleet is a set of pools of GPU nodes (owned, with capex and power; or rented under a
/// catalog plan) and a stream of training jobs (a list, or a seeded generator). Each job's
/// run time and failures come from the whole-run simulation (core/job) of its scenario on the
/// GPUs it is given: the caller (app/fleet_request) turns each (scenario, GPU type, GPU count)
/// into a RunProfile once, and the engine draws one of its trials per job and seed.
///
/// The engine is a discrete-event simulation on des::EventQueue (arrivals, completions,
/// preemptions), one Rng per seed, seeds simulated independently and merged in seed order:
/// same fleet and seeds, byte-identical results whatever the thread count.
///
/// Scheduling: a queue ordered FIFO or by priority; optional EASY backfill (Lifka 1995,
/// "The ANL/IBM SP scheduling system"; Mu'alem & Feitelson 2001): a later job may start now
/// only if it does not delay the reservation of the job at the head of the queue, judged on
/// the scheduler's estimate of run times (RunProfile::estimate); gang scheduling (a job
/// starts only when all the GPUs of its variant are free in one pool); optional preemption
/// of strictly lower priority jobs, which lose the work since their last checkpoint.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/units/money.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::fleet {

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

/// How one job class runs on one GPU type and count: the whole-run simulation's trials.
struct RunProfile {
  std::string gpu;                     ///< GPU catalog name (data/gpus.yaml)
  std::int64_t gpus = 0;               ///< GPUs the run uses, > 0
  std::vector<units::Time> spans;      ///< GPU span of each trial (failures, restarts included); non-empty
  std::vector<std::int64_t> failures;  ///< failures of each trial (same length as spans)
  /// Run time the scheduler assumes (a user's wall-time request): the P90 span. EASY backfill
  /// reserves on it; the true run time is the drawn trial.
  units::Time estimate;
  /// Interval between durable checkpoints: a preempted job keeps whole intervals of work.
  units::Time checkpoint_interval;
  units::Time restart;  ///< time to restart after a preemption (reload state)
  /// Average IT power of the run's nodes while it runs, kW (GPU boards at the scenario's
  /// utilisation + node overhead): energy of owned pools.
  double it_power_kw = 0.0;
};

/// A kind of job: one scenario, and the (GPU type, count) variants it may run as.
struct JobClass {
  std::string name;       ///< e.g. the scenario's stem
  std::string scenario;   ///< scenario path as written in the fleet file
  std::string gpu;        ///< the scenario's GPU
  std::int64_t gpus = 0;  ///< GPUs the scenario asks for
  /// Preference order; [0] is the scenario as written. Others are re-planned: another GPU
  /// type and/or another data-parallel width. Gang scheduling uses only variants with
  /// gpus >= the class's gpus; without gang, smaller variants let a job start sooner.
  std::vector<RunProfile> variants;
};

/// One job of a list stream.
struct JobSpec {
  std::string name;                     ///< unique in the stream
  std::size_t job_class = 0;            ///< index into Fleet::classes
  units::Time arrival;                  ///< since the start of the horizon
  int priority = 0;                     ///< higher runs first (priority order, preemption)
  std::optional<units::Time> deadline;  ///< finish at most this long after arrival
};

/// One template of a generated stream.
struct MixEntry {
  std::size_t job_class = 0;
  double weight = 1.0;  ///< relative frequency, > 0
  int priority = 0;
  std::optional<units::Time> deadline;  ///< relative to arrival
};

/// How arrivals are spaced.
enum class ArrivalProcess {
  Poisson,  ///< exponential inter-arrival times with mean 1 / rate
  Uniform,  ///< evenly spaced, 1 / rate apart (a deterministic plan)
};
const char* to_string(ArrivalProcess a);  ///< "poisson", "uniform"

/// A seeded job generator: arrivals from `start` to `end` at `rate_per_day`, each job's
/// template drawn from `mix` by weight.
struct StreamGenerator {
  ArrivalProcess process = ArrivalProcess::Poisson;
  double rate_per_day = 0.0;       ///< mean arrivals per day, > 0
  units::Time start;               ///< first possible arrival
  std::optional<units::Time> end;  ///< last possible arrival; default the horizon
  std::int64_t max_jobs = 0;       ///< stop after this many jobs; 0 = no limit
  std::vector<MixEntry> mix;       ///< non-empty
};

/// Who pays for a pool's nodes.
enum class PoolKind { Owned, Rented };
const char* to_string(PoolKind k);  ///< "owned", "rented"

/// Costs of an owned pool.
struct OwnedCosts {
  units::Money capex_per_node;     ///< purchase price of one node
  units::Time amortisation;        ///< straight-line write-off period, > 0
  double node_power_kw = 0.0;      ///< whole-node power at full load, kW (idle uses idle_fraction)
  double idle_fraction = 0.15;     ///< idle node power / full power (EnergySpec's assumption)
  units::PriceRate price_per_kwh;  ///< electricity
  double pue = 1.58;               ///< facility / IT energy
};

/// How a rented pool is billed.
enum class RentalBilling {
  Reserved,  ///< the whole pool for the whole horizon (a contract)
  OnDemand,  ///< only while jobs run on it: each run billed on its own (busy GPU time)
};
const char* to_string(RentalBilling b);  ///< "reserved", "on_demand"

/// A rented pool's plan.
struct RentedCosts {
  std::shared_ptr<const pricing::PriceCatalog> catalog;
  std::string plan;  ///< plan id in the catalog
  RentalBilling billing = RentalBilling::Reserved;
};

/// A pool of identical nodes.
struct Pool {
  std::string name;        ///< unique in the fleet
  std::string gpu;         ///< GPU catalog name
  std::string fabric;      ///< fabric/node type (data/fabrics.yaml)
  std::int64_t nodes = 0;  ///< > 0
  int gpus_per_node = 8;
  PoolKind kind = PoolKind::Owned;
  OwnedCosts owned;    ///< when Owned
  RentedCosts rented;  ///< when Rented
  /// The provider's own use: the pool's cost counts, its runs are billed to no customer (it
  /// earns nothing). A pool of a fleet with revenue must have a revenue plan for its GPU or be internal.
  bool internal = false;
  std::int64_t gpus() const { return nodes * gpus_per_node; }
};

/// Queue order.
enum class QueueOrder { Fifo, Priority };
/// Backfilling.
enum class Backfill { None, Easy };
const char* to_string(QueueOrder o);  ///< "fifo", "priority"
const char* to_string(Backfill b);    ///< "none", "easy"

/// The scheduler.
struct Policy {
  QueueOrder order = QueueOrder::Fifo;
  Backfill backfill = Backfill::None;
  /// A job starts only when all the GPUs of a variant with at least the asked GPUs are free.
  /// false: a job may start on a smaller variant (elastic, re-planned) when that fits sooner.
  bool gang = true;
  /// A waiting job may preempt running jobs of strictly lower priority in one pool.
  bool preemption = false;
};

/// Revenue of a provider: each job run billed under a catalog plan for its GPU type.
struct RevenueSpec {
  std::shared_ptr<const pricing::PriceCatalog> catalog;
  /// (GPU catalog name, plan id): the plan each GPU type's runs are billed under. Every pool
  /// that is not internal needs one for its GPU (validate_fleet).
  std::vector<std::pair<std::string, std::string>> plans;
  std::optional<units::Currency> currency;  ///< customers' bill currency; default the catalog's
};

/// An exchange rate a price catalog states, with the catalog's name: where a conversion comes from.
struct FxQuote {
  units::FxRate rate;
  std::string catalog;
  /// "1 USD = 7.2 CNY (seed-vendor: assumption, not sourced)".
  std::string str() const;
};

/// `m` in currency `to`: unchanged when it is already in `to`, else converted with the first
/// quote of `fx` between the two currencies (either direction; exact in micro-units, rounded
/// half away from zero to the minor unit, as bills convert). nullopt when no quote converts it.
std::optional<units::Money> convert_money(units::Money m, units::Currency to, const std::vector<FxQuote>& fx);

/// A change to the fleet whose effect is reported beside the base case.
struct WhatIf {
  enum class Kind {
    AddNodes,    ///< `nodes` more nodes in pool `pool`
    ChangePlan,  ///< rent pool `pool` under `plan` (and `billing`) instead
  };
  Kind kind = Kind::AddNodes;
  std::string label;  ///< e.g. "+4 nodes h800"
  std::string pool;
  std::int64_t nodes = 0;                ///< AddNodes
  std::string plan;                      ///< ChangePlan
  std::optional<RentalBilling> billing;  ///< ChangePlan; default unchanged
};

/// A whole fleet file, resolved.
struct Fleet {
  std::string name;
  std::string description;
  std::vector<Pool> pools;        ///< non-empty
  std::vector<JobClass> classes;  ///< non-empty, variants filled
  std::vector<JobSpec> jobs;      ///< list stream (empty when `generator` is set)
  std::optional<StreamGenerator> generator;
  units::Time horizon = units::Time::from_seconds(90 * 86400.0);
  int seeds = 20;  ///< seeds simulated: seed, seed+1, ... (mixed, see mix_seed)
  std::uint64_t seed = 1;
  Policy policy;
  std::optional<RevenueSpec> revenue;
  /// Reporting currency: every cost, revenue and margin is converted into it (never a mixed total).
  units::Currency currency;
  /// Rates for every other currency a pool or the revenue bills in (validate_fleet checks).
  std::vector<FxQuote> fx;
  std::vector<WhatIf> what_ifs;
  units::Time sample_interval;  ///< time-series bin width; 0 = horizon / 360
};

/// Engine knobs.
struct FleetOptions {
  int threads = 1;                  ///< seeds in parallel; results do not depend on it
  bool what_ifs = true;             ///< also simulate Fleet::what_ifs
  bool keep_per_seed_jobs = false;  ///< keep every job record of every seed (tests)
  /// Jobs still running or waiting this long after the horizon are reported unfinished.
  /// Runs past the horizon are simulated (their wait and finish count), but utilisation,
  /// queue series and costs stop at the horizon.
  double drain_factor = 3.0;  ///< drain until horizon x (1 + drain_factor)
};

/// Problems with a resolved fleet (one message each); empty = valid.
std::vector<std::string> validate_fleet(const Fleet& fleet);

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

/// One job of one seed, as simulated.
struct JobRecord {
  std::string name;       ///< list: the spec's name; generated: "<class>#<n>"
  std::size_t index = 0;  ///< list: index in Fleet::jobs; generated: arrival rank
  std::size_t job_class = 0;
  int priority = 0;
  units::Time arrival;
  std::optional<units::Time> deadline;  ///< absolute (arrival + the relative deadline)
  bool started = false;  ///< started at some point of the simulation (the drain after the horizon included)
  bool finished = false;
  /// Started by the end of the horizon; a job that is not is counted as unstarted.
  bool started_in_horizon = false;
  units::Time start;   ///< first start (valid when started)
  units::Time finish;  ///< valid when finished
  /// start - arrival. Never started: the time from its arrival to the end of the simulation
  /// (horizon x (1 + drain_factor)), a lower bound of its wait (censored).
  units::Time wait;
  bool censored = false;    ///< `wait` is a lower bound: the job never started
  units::Time run;          ///< finish - start, preemptions included
  std::int64_t gpus = 0;    ///< GPUs of the variant it ran on (last start)
  std::string pool;         ///< pool it ran in (last start)
  std::size_t variant = 0;  ///< JobClass::variants index it ran on (last start); 0 = as written
  std::int64_t preemptions = 0;
  std::int64_t failures = 0;     ///< failures of the drawn whole-run trial
  bool missed_deadline = false;  ///< finished after its deadline, or never finished
};

/// Nearest-rank percentiles (the ceil(p N)-th smallest) and the mean of a sample, some of whose
/// values may be censored (lower bounds: the waits of jobs that never started).
struct Percentiles {
  units::Time p50, p90, mean;
  std::int64_t count = 0;
  std::int64_t censored = 0;  ///< values that are lower bounds
  /// The figure is a lower bound: a censored value sorts at or below its rank (the mean: any
  /// censored value). Otherwise it is exact, whatever the censored values' true size.
  bool p50_lower_bound = false, p90_lower_bound = false, mean_lower_bound = false;
};

/// One value of a sample: exact, or censored (the true value is at least `value`).
struct SampleValue {
  units::Time value;
  bool censored = false;
};

/// A list job over seeds (list streams only).
struct JobStats {
  std::string name;
  std::string job_class;
  int priority = 0;
  units::Time arrival;
  std::optional<units::Time> deadline;  ///< relative
  Percentiles wait, run, finish;        ///< finish: since the start of the horizon (finished seeds)
  double deadline_miss_rate = 0.0;      ///< fraction of seeds
  double unfinished_rate = 0.0;         ///< fraction of seeds
  double unstarted_rate = 0.0;          ///< fraction of seeds it does not start within the horizon
};

/// A job class over all its jobs and seeds.
struct ClassStats {
  std::string name;
  std::int64_t jobs = 0;            ///< all seeds together
  Percentiles wait, run;            ///< wait: censored values included
  double deadline_miss_rate = 0.0;  ///< of its jobs with a deadline
  double replanned_rate = 0.0;      ///< jobs that ran on a variant other than [0]
  double unstarted = 0.0;           ///< jobs per seed (mean) that do not start within the horizon
  double never_started = 0.0;       ///< jobs per seed (mean) that never start (censored waits)
};

/// Fixed-width bins over the horizon: what the GUI plots.
struct TimeSeries {
  units::Time interval;                ///< bin width
  std::vector<units::Time> bin_start;  ///< start of each bin
  std::vector<std::string> pools;      ///< pool names, in fleet order
  /// [pool][bin]: busy GPUs / pool GPUs, time-averaged over the bin, mean over seeds (0..1).
  std::vector<std::vector<double>> utilisation;
  std::vector<double> queue_length;      ///< jobs waiting, time-averaged over the bin, mean over seeds
  std::vector<double> queue_length_p90;  ///< P90 over seeds of the bin's time-averaged queue
  std::vector<double> running_jobs;      ///< jobs running, time-averaged, mean over seeds
};

/// Money over seeds: nearest-rank P50 and the mean (rounded half away from zero).
struct MoneyStats {
  units::Money mean, p50;
};

/// What a pool costs and earns over the horizon (mean over seeds where it depends on the load).
/// `energy`, `capex` and `bill` are in the currency they are billed in; `plan_bills`, `cost`,
/// `revenue` and `margin` in the fleet's reporting currency.
struct PoolCost {
  std::string pool;
  PoolKind kind = PoolKind::Owned;
  bool internal = false;        ///< earns nothing (Pool::internal)
  double utilisation = 0.0;     ///< busy GPU-time / (GPUs x horizon), mean over seeds
  double busy_gpu_hours = 0.0;  ///< mean over seeds
  // Owned
  double energy_kwh = 0.0;  ///< facility energy (IT x PUE), mean over seeds
  units::Money energy;      ///< energy_kwh x price
  units::Money capex;       ///< capex_per_node x nodes x horizon / amortisation
  // Rented
  std::string plan;  ///< plan id
  RentalBilling billing = RentalBilling::Reserved;
  units::Money bill;  ///< the plan's bill for the horizon (on demand: sum of runs), in the catalog's currency
  /// The same usage billed under every plan of the pool's catalog that rents its GPU, in
  /// catalog order (the pool's own plan included): which plan would have been cheapest.
  std::vector<std::pair<std::string, units::Money>> plan_bills;
  units::Money cost;  ///< energy + capex, or the bill
  /// The pool's runs billed to customers under `revenue_plan`; zero when internal; nullopt
  /// when the fleet has no revenue.
  std::optional<units::Money> revenue;
  std::string revenue_plan;            ///< revenue plan id; empty when internal or without revenue
  std::optional<units::Money> margin;  ///< revenue - cost (when revenue is set)
  std::vector<std::string> notes;      ///< e.g. billed units
};

/// Provider revenue from the jobs' runs billed under the revenue catalog, in the reporting currency.
struct RevenueResult {
  units::Currency currency;  ///< the reporting currency
  /// Over seeds. The mean is the sum of the pools' mean revenues (PoolCost::revenue).
  MoneyStats total;
  std::vector<std::string> notes;  ///< how runs are billed; runs no plan could bill
};

/// Headline figures of one simulated fleet (base case or a what-if). Money in the reporting currency.
struct FleetSummary {
  std::int64_t jobs = 0;            ///< jobs per seed (mean, rounded)
  Percentiles wait;                 ///< over every job of every seed (censored waits included)
  Percentiles wait_p90_over_seeds;  ///< distribution over seeds of each seed's P90 wait
  Percentiles run;
  std::vector<Percentiles> class_wait;  ///< per class, in Fleet::classes order (censored included)
  std::vector<double> class_unstarted;  ///< per class: jobs per seed not started within the horizon
  double utilisation = 0.0;             ///< all pools: busy GPU-time / (GPUs x horizon)
  double deadline_misses = 0.0;         ///< mean per seed
  double unfinished = 0.0;              ///< mean per seed
  double unstarted = 0.0;               ///< mean per seed: jobs not started within the horizon
  double preemptions = 0.0;             ///< mean per seed
  units::Money cost;                    ///< all pools (sum of PoolCost::cost)
  std::optional<units::Money> revenue;  ///< mean revenue (when a RevenueSpec is given)
  std::optional<units::Money> margin;   ///< revenue - cost
};

/// A what-if beside the base case.
struct WhatIfResult {
  WhatIf what_if;
  FleetSummary summary;
  std::vector<PoolCost> costs;
};

/// Everything `flopcast fleet` reports.
struct FleetResult {
  std::string name;
  units::Time horizon;
  int seeds = 0;
  std::uint64_t seed = 0;
  Policy policy;
  units::Currency currency;  ///< reporting currency
  std::vector<FxQuote> fx;   ///< the rates the figures were converted with (Fleet::fx)
  FleetSummary summary;
  std::vector<JobStats> jobs;       ///< list streams: one per job, in list order
  std::vector<ClassStats> classes;  ///< in Fleet::classes order
  std::vector<PoolCost> costs;      ///< in Fleet::pools order
  std::optional<RevenueResult> revenue;
  TimeSeries series;
  std::vector<WhatIfResult> what_ifs;
  std::vector<std::string> warnings;  ///< e.g. a class no pool can run
  std::uint64_t events = 0;           ///< events popped, all seeds (base case)
  std::uint64_t simulated_jobs = 0;   ///< jobs simulated, all seeds (base case)
  /// keep_per_seed_jobs: [seed][job], in arrival order.
  std::vector<std::vector<JobRecord>> per_seed_jobs;
};

/// Simulates the fleet over its seeds (and its what-ifs). The fleet must be valid
/// (validate_fleet); FLOPCAST_ASSERT otherwise.
FleetResult simulate_fleet(const Fleet& fleet, const FleetOptions& options = {});

/// One seed only: the job records in arrival order (tests, the size sweep).
std::vector<JobRecord> simulate_fleet_seed(const Fleet& fleet, std::uint64_t seed_index,
                                           const FleetOptions& options = {});

/// The smallest pool size that keeps a P90 wait under a target.
struct SizeSweepSpec {
  std::string pool;                      ///< pool to resize
  units::Time target_p90_wait;           ///< the P90 wait (all jobs, or job_class's; all seeds) must be <= this
  std::optional<std::size_t> job_class;  ///< target this class's P90 wait; nullopt = every job's
  std::int64_t min_nodes = 1;
  std::int64_t max_nodes = 0;  ///< 0 = 4 x the pool's nodes
};

/// One size tried.
struct SizeSweepPoint {
  std::int64_t nodes = 0;
  FleetSummary summary;       ///< the fleet at this size: waits per class, cost, revenue, margin
  Percentiles wait;           ///< the targeted waits (all jobs or the class's)
  bool meets_target = false;  ///< wait.p90 <= target and exact (not a lower bound)
  /// The class of the job whose wait is the targeted P90 (the nearest-rank value).
  std::string p90_class;
  bool p90_class_runs_on_pool = false;  ///< that class has a variant the pool can run
};

/// How the sweep ended.
enum class SizeSweepVerdict {
  Met,              ///< `nodes` is the smallest size meeting the target
  NotMet,           ///< not met up to max_nodes, though the pool's own jobs could meet it
  SetByOtherPools,  ///< at max_nodes, more of the targeted jobs than the P90 allows wait longer than
                    ///< the target in classes that never run on the pool: no size of it meets it
};
const char* to_string(SizeSweepVerdict v);  ///< "met", "not_met", "set_by_other_pools"

/// A class's share of the targeted jobs that wait longer than the target at the largest size.
struct OverTarget {
  std::string job_class;
  double share = 0.0;  ///< of all targeted jobs (all seeds)
};

/// The sweep's answer. Sizes are searched by bisection between min and max, assuming the
/// targeted P90 does not grow with the pool; today's size and the largest are always tried;
/// every size tried is listed in order of size.
struct SizeSweepResult {
  std::string pool;
  std::int64_t today_nodes = 0;
  units::Time target_p90_wait;
  std::optional<std::size_t> job_class;
  std::vector<std::string> classes;  ///< class names, in Fleet::classes order
  SizeSweepVerdict verdict = SizeSweepVerdict::NotMet;
  std::optional<std::int64_t> nodes;  ///< Met: the smallest size meeting the target
  /// At the largest size: classes that never run on the pool, with their share of the targeted
  /// jobs waiting longer than the target (largest first). SetByOtherPools when they sum to more
  /// than `allowed_share`.
  std::vector<OverTarget> other_pools_over;
  double allowed_share = 0.0;  ///< share of the targeted jobs that may wait longer (about 10%)
  std::vector<SizeSweepPoint> tried;
};

SizeSweepResult sweep_pool_size(const Fleet& fleet, const SizeSweepSpec& spec, const FleetOptions& options = {});

/// True when jobs of class `job_class` can run on pool `pool` (a variant of the pool's GPU, at
/// most the pool's GPUs, and under gang scheduling at least the GPUs the class asks).
bool class_runs_on_pool(const Fleet& fleet, std::size_t job_class, std::size_t pool);

/// Nearest-rank percentiles and mean of `values` (sorted in place), all exact.
Percentiles percentiles_of(std::vector<units::Time>& values);
/// The same with censored values (lower bounds), sorted in place (exact before censored at a tie).
Percentiles percentiles_of(std::vector<SampleValue>& values);

}  // namespace flopcast::fleet

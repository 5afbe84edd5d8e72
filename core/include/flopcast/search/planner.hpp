#pragma once
/// The plan search (`flopcast plan`): enumerates every plan of a job over GPU types, GPU
/// counts, precisions, parallel degrees (TP, PP, DP, CP, EP, VPP), micro-batch, sequence
/// parallelism, ZeRO, recompute, schedule and price plan; keeps only plans a training framework
/// runs (framework_rules.hpp); prunes the ones that break divisibility or do not fit memory
/// (counted per reason) and whole subtrees whose lower bound on step time cannot beat what is
/// kept (plan_bounds.cpp proves the bound); ranks the rest with the closed-form step estimate;
/// then re-simulates the best candidates of each GPU type with the discrete-event step and the
/// whole-run Monte Carlo and recommends only a plan whose simulated P90 (or P50) time and cost
/// meet the deadline and the budget. When none does, it says how close the nearest come and
/// what would make one work (more GPUs, more days, more budget), computed from the simulations.
///
/// Memory stays flat however large the space: the search keeps bounded lists (top-K, the ranked
/// candidates per GPU type) and, per (GPU type, GPU count), the fastest plan only. For a fixed
/// GPU type, count and price plan the bill grows with the run's span, so each count's fastest
/// plan is also its cheapest and the front is built from those (a commitment discount that
/// starts at a longer term is the one exception; the notes say when a catalog has one).
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/compute/prediction_band.hpp"
#include "flopcast/job/job_result.hpp"
#include "flopcast/parallel/plan_text.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "flopcast/search/framework_rules.hpp"
#include "flopcast/units/money.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::search {

/// The values each axis may take. Empty lists mean "the default range" (noted per field).
struct PlanSpace {
  /// Cluster types to search: GPU, fabric, GPUs per node. `gpus` is ignored (see counts).
  std::vector<scenario::ClusterSpec> clusters;
  /// Largest GPU count; 0 = the base scenario's cluster.gpus.
  std::int64_t gpus_max = 0;
  /// Smallest GPU count (default 1).
  std::int64_t gpus_min = 1;
  /// GPU counts; empty = every multiple of the node size up to gpus_max (and 1, 2, 4, ... below
  /// one node when gpus_max is smaller than a node).
  std::vector<std::int64_t> gpu_counts;
  std::vector<int> tp;                         ///< empty = powers of two up to the node size
  std::vector<int> pp;                         ///< empty = 1 .. layers
  std::vector<int> cp;                         ///< empty = {1, 2, 4, 8}
  std::vector<int> ep;                         ///< empty = {1} (dense) or powers of two dividing experts (MoE)
  std::vector<int> vpp;                        ///< empty = {1, 2, 4} (vpp > 1 only with the interleaved schedule)
  std::vector<std::int64_t> micro_batch;       ///< empty = {1, 2, 4, 8}
  std::vector<int> zero;                       ///< empty = {0, 1, 2, 3}
  std::vector<bool> sequence_parallel;         ///< empty = {false, true} (true only with tp > 1)
  std::vector<parallel::Recompute> recompute;  ///< empty = none, selective, full
  std::vector<parallel::Schedule> schedule;    ///< empty = 1f1b, interleaved, zero-bubble, gpipe (pp > 1)
  /// Numeric formats; empty = the base scenario's. A GPU without a dense peak for one (fp8
  /// before Hopper, nvfp4 before Blackwell) is not searched in it.
  std::vector<hardware::Precision> precisions;
};

/// What the re-simulation of one plan returns: its step time and where it came from.
struct StepSimulation {
  bool ok = true;
  std::string error;  ///< why there is no step time (ok = false)
  units::Time step;
  double mfu = 0;
  std::string method;                ///< "closed-form estimate", "DES", ...
  std::vector<std::string> details;  ///< lines worth printing (bubble, exposed communication, ...)
};
/// The step simulator used to re-simulate the best plans (the DES unless told otherwise).
using StepSimulator = std::function<StepSimulation(const scenario::Scenario&, const compute::ComputeProfile&)>;
/// The closed-form estimate (estimate_step).
StepSimulation estimate_step_simulation(const scenario::Scenario& s, const compute::ComputeProfile& profile);
/// The discrete-event step simulation (core/step, simulate_step without a timeline): the default.
StepSimulation des_step_simulation(const scenario::Scenario& s, const compute::ComputeProfile& profile);

/// Which simulated percentile must meet the deadline and the budget.
enum class Confidence { P50, P90 };
const char* to_string(Confidence c);  ///< "P50", "P90"
/// "P90 of failures, the step at the model band's slow end (hopper band x0.64 to x1.35)", or "P90
/// (point prediction: no band for hopper)" when the band is unknown.
std::string confidence_words(Confidence c, const compute::PredictionBand& band, hardware::GpuArch arch);

/// What the search optimises within the constraints.
enum class Objective {
  Cheapest,    ///< the lowest bill (a deadline, a budget or neither)
  Fastest,     ///< the shortest run (a budget without a deadline: what the budget buys soonest)
  MostTokens,  ///< the most training tokens the budget buys (by the deadline, when one is set)
};

/// Search settings.
struct PlannerOptions {
  std::optional<units::Time> deadline;  ///< wall time of the whole run, provisioning included
  std::optional<units::Money>
      budget;            ///< total bill at the expected span (in `currency`); re-simulated plans also get P50/P90 bills
  std::string currency;  ///< currency of every cost; "" = the first catalog's
  int top_k = 10;        ///< plans kept in the top-K list
  int threads = 1;       ///< worker threads (results do not depend on it)
  /// Price catalogs whose plans are searched. Empty: costs are not computed (time only).
  std::vector<std::shared_ptr<const pricing::PriceCatalog>> catalogs;
  Confidence confidence = Confidence::P90;
  Objective objective = Objective::Cheapest;
  /// Check the constraints with the profile's prediction band of each candidate's GPU
  /// generation and regime (compute/prediction_band.hpp): the whole run is simulated again with
  /// the step time at the band's P90 factor (Confidence::P90) or its P50 factor, the model's
  /// median bias (Confidence::P50), and that run's percentile is what must meet the deadline and
  /// the budget. A generation without a band is checked at the point prediction.
  bool bands = true;
  /// An extra relative stretch of the simulated time (and GPU time) on top of the band (0 =
  /// none): a plan must meet the constraints with them stretched by 1 + this.
  double model_uncertainty = 0;
  /// Candidates re-simulated per GPU type in one round (at least 32), at most
  /// `candidates_per_count` of them with the same GPU count and precision, so that a round
  /// spans several counts; `rounds` rounds at most while no candidate meets the constraints.
  int candidates_per_gpu = 32;
  int candidates_per_count = 4;
  int rounds = 4;
  /// Discard subtrees by their lower bound (plan_bounds.cpp). Off: every plan is estimated
  /// (the tests hold the two to the same result).
  bool prune = true;
  /// When nothing meets, search beyond the GPU limit for the count that would (off in that
  /// inner search itself).
  bool find_remedies = true;
  StepSimulator simulator;  ///< empty = des_step_simulation
  /// Set (by another thread, e.g. the GUI's Cancel) to stop the search: the workers stop at
  /// the next (GPU type, count) item and search_plans returns the error "cancelled".
  const std::atomic<bool>* cancel = nullptr;
};

/// One evaluated plan.
struct PlanCandidate {
  std::int64_t index = 0;   ///< enumeration order (deterministic tie-break)
  std::size_t cluster = 0;  ///< index into PlanSpace::clusters
  std::string gpu;          ///< GPU catalog name
  std::int64_t gpus = 0;
  hardware::Precision precision = hardware::Precision::BF16;
  parallel::ParallelPlan plan;
  FrameworkSet frameworks;  ///< the training frameworks that run the plan
  units::Time step;         ///< closed-form step time
  double mfu = 0;
  units::Bytes memory;     ///< per GPU, most-loaded stage
  units::Bytes capacity;   ///< the GPU's HBM
  std::int64_t steps = 0;  ///< optimizer steps of the run
  /// Expected wall time (provisioning + debug phase + expected GPU span with failures,
  /// restarts and checkpoints, closed form for synchronous checkpoints).
  units::Time wall;
  units::Time gpu_span;  ///< expected GPU span (what is billed)
  double gpu_hours = 0;  ///< gpus x gpu_span
};

/// A priced plan: a candidate under one price option (plan or mix of a catalog).
struct PricedPlan {
  PlanCandidate candidate;
  std::string catalog;       ///< catalog name
  std::string price_option;  ///< plan id, or "<long>+<short>" for a mix
  std::string price_label;
  units::Money cost;  ///< bill total at the expected GPU span (closed form), in the search currency
  bool meets_deadline = true;
  bool meets_budget = true;
};

/// The re-simulation of a plan: step simulator + whole-run Monte Carlo + bill. `plan` names
/// the price option that bills least at the confidence percentile.
struct Resimulated {
  PricedPlan plan;
  StepSimulation step;
  bool run_ok = false;
  std::vector<std::string> errors;  ///< why the whole run was not simulated
  units::Time wall_p50, wall_p90;
  units::Money cost_p50, cost_p90;
  bool p90_meets_deadline = true;
  /// At the confidence percentile, with the model's uncertainty band: what is compared with
  /// the deadline and the budget.
  units::Time wall;
  units::Money cost;
  /// The prediction band of the plan's generation and regime (unknown when the profile has
  /// none or PlannerOptions::bands is off) and the factor on the simulated step time the run
  /// behind `wall` and `cost` used: the band's P90 at Confidence::P90, its P50 at P50, else 1.
  /// wall_p50, wall_p90, cost_p50 and cost_p90 are the run at the point prediction.
  compute::PredictionBand band;
  hardware::GpuArch arch = hardware::GpuArch::Ampere;  ///< the plan's GPU generation (the band's)
  double band_factor = 1;
  /// The recommended plan only (PlanResult::chosen, band known): the run with the step at the
  /// band's P10 and P90 factors, failures at their median (the P50 trial), and its bill under
  /// the chosen price option.
  bool band_ends = false;
  units::Time band_wall_p10, band_wall_p90;
  units::Money band_cost_p10, band_cost_p90;
  bool meets_deadline = true;
  bool meets_budget = true;
  bool spot = false;  ///< priced under a spot plan (its interruptions are in the run)
  double tokens = 0;  ///< training tokens of the simulated run (MostTokens: what the budget buys)
  bool meets() const { return run_ok && meets_deadline && meets_budget; }
};

/// Counts of one pruning reason.
struct PruneCount {
  std::string reason;      ///< "tp*pp*cp does not divide the GPU count", "does not fit memory", ...
  std::int64_t count = 0;  ///< plans (or partial plans, see `unit`) dropped for it
  std::string unit;        ///< what was counted: "plans" or e.g. "(gpus, tp, cp, pp) shapes"
};

/// The outcome of a search.
struct PlanResult {
  std::int64_t enumerated = 0;  ///< full plans considered (estimated + pruned for memory or validity)
  std::int64_t estimated = 0;   ///< plans ranked with the step estimate
  std::vector<PruneCount> pruned;
  double seconds = 0;             ///< wall time of the search (enumeration + estimates)
  double resimulate_seconds = 0;  ///< wall time of the re-simulations
  std::string currency;
  std::vector<PlanCandidate> top;             ///< top-K by expected GPU-hours (then wall time)
  std::vector<PricedPlan> fastest_per_count;  ///< each (GPU type, count)'s fastest plan, cheapest option
  std::vector<PricedPlan> pareto;             ///< time/cost front, by wall time ascending
  /// The recommended plan: the simulated plan that meets the deadline and the budget at the
  /// confidence percentile and is best for the objective; `best` is its priced plan (cost at
  /// the confidence percentile) and `runner_up` the next one.
  std::optional<Resimulated> chosen;
  std::optional<PricedPlan> best;
  std::optional<PricedPlan> runner_up;
  std::string why_runner_up_lost;
  std::vector<Resimulated> resimulated;  ///< every re-simulated candidate, in ranking order
  int rounds = 0;                        ///< re-simulation rounds run
  /// Nothing meets: the nearest simulated plans (by how far they miss) and what would make
  /// one work ("a deadline of 49 days", "a budget of 9.1M CNY", "1,024 H800"), computed.
  std::vector<Resimulated> closest;
  std::vector<std::string> remedies;
  std::vector<std::string> infeasible;  ///< per GPU type / constraint: why nothing (or less) was possible
  std::vector<std::string> notes;
};

/// Streaming top-K: keeps the K smallest by (key, index) in bounded memory.
class TopK {
 public:
  explicit TopK(std::size_t k) : k_(k) {}
  void offer(const PlanCandidate& c, double key);
  /// The largest key kept once K are kept (a candidate above it cannot enter); +inf before.
  double threshold() const;
  /// Merges another TopK (same k).
  void merge(const TopK& other);
  /// The kept candidates, best first.
  std::vector<PlanCandidate> sorted() const;
  std::size_t size() const { return heap_.size(); }

 private:
  std::size_t k_;
  std::vector<std::pair<double, PlanCandidate>> heap_;  ///< max-heap on (key, index)
};

/// Time/cost Pareto front of `points` (minimise wall, minimise cost; same currency): the
/// points no other point beats on both, by wall ascending. Ties keep the first.
std::vector<PricedPlan> pareto_front(std::vector<PricedPlan> points);

/// The search. `base` gives the model, global batch, precision, training tokens, reliability
/// and pricing settings; its plan and cluster are replaced. Never throws on a plan: bad input
/// (no cluster, no tokens) is reported in `errors`.
struct PlanSearch {
  PlanResult result;
  std::vector<std::string> errors;
  bool ok() const { return errors.empty(); }
};
PlanSearch search_plans(const scenario::Scenario& base, const compute::ComputeProfile& profile, const PlanSpace& space,
                        const PlannerOptions& options);

}  // namespace flopcast::search

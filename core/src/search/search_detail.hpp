#pragma once
// Internal to core/search: what the search (planner.cpp), its enumeration (plan_enumeration.cpp), its
// lists (plan_lists.cpp), the bounds (plan_bounds.cpp) and the choice (plan_choice.cpp) share. Not
// installed.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/job/job_input.hpp"
#include "flopcast/search/planner.hpp"

namespace flopcast::search::detail {

std::string sfmt(const char* f, ...) __attribute__((format(printf, 1, 2)));

/// (key, index) order: the smaller key first, ties to the lower enumeration index.
inline bool key_less(double ka, std::int64_t ia, double kb, std::int64_t ib) {
  return ka < kb || (ka == kb && ia < ib);
}

/// The axis values after defaults.
struct Axes {
  std::vector<int> tp, pp, cp, ep, vpp, zero;
  std::vector<std::int64_t> mb;
  std::vector<bool> sp;
  std::vector<parallel::Recompute> rc;
  std::vector<parallel::Schedule> sched;
  parallel::Schedule flat_schedule = parallel::Schedule::OneFOneB;  ///< the schedule a plan without pipeline gets
  std::vector<int> vpp_interleaved;                                 ///< the vpp values > 1
};

/// A model-parallel shape that divides the job: what the outer axes (tp, cp, pp, ep,
/// micro-batch) choose; dp follows from the GPU count.
struct Shape {
  int tp = 1, cp = 1, pp = 1, ep = 1;
  std::int64_t dp = 1, mb = 1;

  /// Writes the shape's degrees and micro-batch into `p`; the plan's other choices stay.
  void apply_to(parallel::ParallelPlan& p) const {
    p.tp = tp;
    p.pp = pp;
    p.dp = dp;
    p.cp = cp;
    p.ep = ep;
    p.micro_batch = mb;
  }
};

/// One work item: a cluster type, a GPU count and a precision.
struct Item {
  std::size_t cluster;
  std::int64_t gpus;
  hardware::Precision precision;
};

/// The candidates kept for the re-simulation of one GPU type: the `capacity` smallest by
/// (key, index) with at most `per_count` of one (GPU count, precision). Streaming and exact:
/// what it keeps does not depend on the order candidates are offered in (the selection is the
/// greedy basis of a partition matroid truncated to `capacity`, which is order-independent).
class RankedList {
 public:
  RankedList(std::size_t capacity, std::size_t per_count) : capacity_(capacity), per_count_(per_count) {}
  void offer(const PlanCandidate& c, double key);
  void merge(const RankedList& other);
  /// The largest key a candidate of `c`'s count may have to enter (+inf while there is room).
  double threshold(const PlanCandidate& c) const;
  /// The kept candidates, best first.
  std::vector<PlanCandidate> sorted() const;

 private:
  std::size_t capacity_, per_count_;
  std::vector<std::pair<double, PlanCandidate>> kept_;  ///< sorted by (key, index)
};

/// What one search reads, shared by every worker (read-only).
struct SearchContext {
  const scenario::Scenario& base;
  const compute::ComputeProfile& profile;
  const PlanSpace& space;
  const PlannerOptions& options;
  std::int64_t steps = 0;    ///< optimizer steps of the run
  units::Time fixed_wall;    ///< provisioning + debug phase
  job::EnergySpec energy;    ///< energy figures do not change step or span: any catalog's serve
  units::Currency currency;  ///< of every cost
  std::size_t top_k = 0;
  /// Per cluster type: the lowest price of one GPU-hour among the plans that name it, in the
  /// search currency (0 = none): a lower bound on what a GPU-hour bills.
  std::vector<double> min_gpu_hour_price;
  /// The profile with the host dispatch floor off, for shape_step_lower_bound_in.
  compute::ComputeProfile bound_profile;
};

/// The ranking key of a candidate for the re-simulation (smaller is better): the objective's
/// figure (GPU-hours, or wall time for Fastest), candidates whose closed form is out of reach
/// of the budget after those within it, and out of reach of the deadline last (by wall time),
/// so that when nothing is within reach the closest plans are still simulated.
double ranking_key(const SearchContext& ctx, const PlanCandidate& c);

/// Offset of a ranking class (above any GPU-hours or seconds of a real run).
inline constexpr double kOutOfReach = 1e15;

/// The closed-form margin a candidate may miss the deadline (or budget) by and still be
/// re-simulated: the DES and the closed form differ by up to 12% on the shipped examples
/// (72B on 512 H800: 7.918 s closed form, 8.849 s DES), so 15% leaves room either way.
inline constexpr double kRankSlack = 0.15;

/// A lower bound on the closed-form step time of every plan of shape `sh` on the scratch
/// scenario `s` (its cluster, GPU count and precision set): see plan_bounds.cpp.
units::Time shape_step_lower_bound(const scenario::Scenario& s, const compute::ComputeProfile& profile, const Axes& a,
                                   const Shape& sh);

/// The same bound, computed in place: `s` (a worker's scratch scenario) has its plan
/// overwritten; `no_host` is the profile with host_overhead_us = 0 (SearchContext::bound_profile).
/// No copies: the planner asks once per shape of every GPU count.
units::Time shape_step_lower_bound_in(scenario::Scenario& s, const compute::ComputeProfile& no_host, const Axes& a,
                                      const Shape& sh);

/// The catalog name and aliases of a GPU, as plans name it.
std::vector<std::string> gpu_names(const hardware::GpuSpec& g);

/// The scenario of candidate `c`: the base with its cluster, GPU count, precision and plan.
scenario::Scenario scenario_of(const SearchContext& ctx, const PlanCandidate& c);

/// Re-simulates the ranked candidates of every GPU type in rounds, chooses the plan and, when
/// none meets the constraints, the closest plans and the remedies (plan_choice.cpp).
void choose_by_simulation(const SearchContext& ctx, const std::vector<std::vector<PlanCandidate>>& ranked,
                          PlanResult& res);

/// "128 x B200 TP1 PP2 ... under spheron-b200-spot".
std::string describe(const PricedPlan& p);

}  // namespace flopcast::search::detail

#pragma once
// Internal to core/search: enumerating and ranking the plans of each work item (a GPU type, count
// and precision), plan_enumeration.cpp; planner.cpp drives it and prices and explains what it
// keeps. Not installed.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "search_detail.hpp"

namespace flopcast::search::detail {

/// Why choices or plans are left out before the estimate, counted per reason (PlanResult::pruned,
/// worded by kReasonText and counted in kReasonUnit).
enum Reason : int {
  kTpHeads,    // tp does not divide heads / kv_heads / ffn, or exceeds vocab
  kTpGpus,     // tp*cp*pp exceeds or does not divide the GPU count
  kCpSeq,      // cp does not divide seq_len
  kPpLayers,   // pp*vpp exceeds layers
  kEp,         // ep does not divide dp*cp or experts
  kBatch,      // micro_batch*dp does not divide global batch
  kPrecision,  // the GPU has no dense peak for the precision
  kFramework,  // no training framework runs the combination
  kMemory,     // does not fit memory
  kBound,      // the subtree's lower bound cannot beat what is kept
  kReasonCount
};

inline constexpr const char* kReasonText[kReasonCount] = {
    "tp does not divide heads, kv_heads or ffn (or exceeds vocab)",
    "tp*cp*pp does not divide the GPU count",
    "cp does not divide seq_len",
    "pp*vpp exceeds the layers",
    "ep does not divide dp*cp or the experts",
    "micro_batch*dp does not divide the global batch",
    "the GPU has no dense peak for the precision",
    "no training framework runs the combination (Megatron-core, DeepSpeed, torchtitan)",
    "does not fit in GPU memory",
    "lower bound on the step time cannot beat the plans kept (never estimated)",
};

inline constexpr const char* kReasonUnit[kReasonCount] = {
    "(GPU type, count, tp) choices",
    "(GPU type, count, tp, cp, pp) choices",
    "(GPU type, count, tp, cp) choices",
    "(GPU type, count, tp, cp, pp[, vpp]) choices",
    "(..., ep) choices",
    "(..., ep, micro-batch) choices",
    "(GPU type, count, precision) choices",
    "plans",
    "plans",
    "(GPU type, count, tp, cp, pp, ep, micro-batch) shapes",
};

/// What one work item (a GPU type, count and precision) produced. Its lists prune the item's
/// own subtrees: they depend only on the item, so the counts do not depend on the threads.
struct ItemResult {
  std::int64_t counts[kReasonCount] = {};
  std::int64_t enumerated = 0, estimated = 0;
  std::optional<PlanCandidate> fastest;
  std::string error;  ///< a candidate the estimate rejected (should not happen; reported)
  TopK top{0};
  RankedList ranked{0, 0};
  /// Where the first pass stopped (search_item): the position in the bound order of the first
  /// shape not searched, its bound, and the shapes from there on (0: the item is done).
  std::size_t resume = 0, remaining = 0;
  units::Time next_bound;
  /// The bound order from `resume` on, (lower bound, shape index): the second pass reads it
  /// instead of bounding every shape of the item again.
  std::vector<std::pair<units::Time, std::int64_t>> rest;
};

/// What every item's first pass kept, merged: the final lists (over every item's plans) keep
/// nothing worse than these thresholds, so a subtree whose bound is worse cannot matter.
struct GlobalLists {
  TopK top{0};
  std::vector<RankedList> ranked;  ///< per cluster type
};

/// What the merge keeps per cluster type for the explanations.
struct ClusterTotals {
  std::vector<std::int64_t> estimated, memory_pruned;
};

/// The space's axes with the defaults filled in (TP in powers of two up to the node, every pipeline
/// depth up to the layers, the expert counts that divide the experts, ...).
Axes resolve_axes(const PlanSpace& sp, const workload::ModelSpec& m, int gpus_per_node);

/// Why `base` and `space` cannot be searched (empty: they can).
std::vector<std::string> request_errors(const scenario::Scenario& base, const PlanSpace& space);

/// The work items: every GPU count of every cluster type in every precision, in the space's
/// order; a precision the GPU has no peak for is counted and left out, and named in `missing`
/// ("H100: nvfp4").
std::vector<Item> work_items(const scenario::Scenario& base, const PlanSpace& space, std::int64_t& no_peak,
                             std::string& missing);

/// Searches work item `i` on a worker's scratch scenario `s`, first pass: its shapes in order
/// of their lower bound while the bound is no worse than the item's fastest plan (every plan
/// that could be the item's fastest is searched here). With pruning on, it stops at the first
/// shape past that and records where (ir.resume): the second pass (search_item_rest) goes on
/// from there against every item's lists.
void search_item(const SearchContext& ctx, const Axes& a, std::size_t i, const Item& it, scenario::Scenario& s,
                 ItemResult& ir);

/// The second pass of item `i`: the shapes after ir.resume, each subtree skipped when its bound
/// cannot beat what the item's lists or every item's first-pass lists (`global`) keep. When
/// even the first of them cannot, the whole rest is skipped without enumerating it again.
void search_item_rest(const SearchContext& ctx, const Axes& a, std::size_t i, const Item& it, scenario::Scenario& s,
                      const GlobalLists& global, ItemResult& ir);

/// Every item's first-pass lists merged (lists as merge_items builds them).
GlobalLists first_pass_lists(const SearchContext& ctx, const std::vector<Item>& items,
                             const std::vector<ItemResult>& item_results);

/// Sums the items' counts into `res` (pruning, enumerated, estimated, notes), merges their
/// top-K into res.top and their ranked candidates into one list per GPU type (deterministic:
/// keys tie-break on enumeration index).
ClusterTotals merge_items(const SearchContext& ctx, const std::vector<Item>& items,
                          const std::vector<ItemResult>& item_results, PlanResult& res,
                          std::vector<std::vector<PlanCandidate>>& ranked);

}  // namespace flopcast::search::detail

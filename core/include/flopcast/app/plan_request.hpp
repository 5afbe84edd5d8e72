#pragma once
/// A plan search as `flopcast plan` and the GUI's Planner tab ask for it: the GPU types on their
/// usual fabrics, the counts, the price catalogs and the constraints, turned into the search's
/// PlanSpace and PlannerOptions. Two stages, as the CLI checks its flags: the space (GPU types),
/// then the options (catalogs, currency, budget).
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/units_parse.hpp"
#include "flopcast/quote/quote.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "flopcast/search/planner.hpp"

namespace flopcast::app {

/// What a plan search is asked.
struct PlanRequest {
  std::vector<std::string> gpu_types;  ///< GPU catalog names; empty = the scenario's GPU only
  std::int64_t gpus_max = 0;           ///< most GPUs; 0 = the scenario's cluster.gpus
  std::int64_t gpus_min = 1;           ///< fewest GPUs
  /// Price catalogs (names or files); empty = default_plan_catalogs(scenario).
  std::vector<std::string> catalogs;
  /// Of every cost, as written (an ISO code, or a word such as RMB: io::parse_currency); "" = the
  /// scenario's pricing.currency, else the budget's.
  std::string currency;
  std::optional<units::Time> deadline;  ///< longest wall time of the whole run
  /// The deadline as written ("45d", "1080h"); a unit is required. Set, it replaces `deadline`.
  std::string deadline_text;
  /// Largest bill as written, with its currency ("5M CNY", "500万元", "$2M": io::parse_money); "" =
  /// none. In another currency than the search's it is converted with a catalog's stated rate; one
  /// that no catalog bills in or states a rate for is refused (BadBudget).
  std::string budget;
  search::Confidence confidence = search::Confidence::P90;
  /// Most tokens the budget buys (`--tokens max`); needs a budget.
  bool tokens_max = false;
  /// Numeric formats to search ("bf16", "fp8", "nvfp4"); empty = the scenario's.
  std::vector<std::string> precisions;
  /// Price spot plans too (their interruptions are simulated); by default only offers, list
  /// and contract prices are billed (never assumptions or competitors' prices).
  bool allow_spot = false;
  int top_k = 10;                             ///< plans in the top list
  int threads = 1;                            ///< worker threads (results do not depend on it)
  const std::atomic<bool>* cancel = nullptr;  ///< set to stop the search (the GUI's Cancel)
};

/// Why a request cannot be searched.
enum class PlanProblem {
  None,
  UnknownGpu,         ///< a GPU type is not in the catalog, or has no usual fabric (`why`)
  CatalogUnreadable,  ///< a price catalog cannot be loaded (`why` names it; `diags` say why)
  BadBudget,          ///< the budget is not an amount with its currency, or cannot be converted (`why`)
  BadCurrency,        ///< the currency names none the catalogs bill in or convert (`why`)
  BadDeadline,        ///< the deadline is not a duration with its unit (`why`)
  BadPrecision,       ///< a precision is unknown (`why`)
  NeedsBudget,        ///< tokens_max without a budget
};

/// One cluster spec per GPU name: the scenario's cluster for its own GPU, else the GPU's usual
/// fabric (data/gpus.yaml default_fabric). Empty `gpus` = the scenario's GPU only. False with
/// `why` (the known names) for an unknown GPU or one without a usual fabric.
bool plan_clusters(const io::Catalog& cat, const scenario::Scenario& s, const std::vector<std::string>& gpus,
                   std::vector<scenario::ClusterSpec>& out, std::string& why);

/// The price catalogs a search prices with when none are named: the scenario's
/// pricing.catalog first (its currency is the default), then every shipped one.
std::vector<std::string> default_plan_catalogs(const scenario::Scenario& s);

/// Stage 1: the space of `request` (GPU types on their clusters, the count limits).
/// UnknownGpu with `why` when a GPU type cannot be searched.
PlanProblem prepare_plan_space(const io::Catalog& cat, const scenario::Scenario& s, const PlanRequest& request,
                               search::PlanSpace& space, std::string& why);

/// Stage 2: the planner options of `request`: the catalogs loaded from `data_dir` (""
/// = the embedded copies), the currency, the budget (in the request's currency, else the
/// first catalog's), the deadline, the objective (cheapest; fastest for a budget without a
/// deadline; most tokens), the confidence, top-K, threads and cancel flag. Each catalog keeps
/// only the plans a customer is billed at (offer, list, contract; spot with allow_spot).
/// CatalogUnreadable (`why` = the catalog's name, `diags` its loader's diagnostics; those of
/// catalogs that loaded are not kept), BadBudget, BadCurrency, BadDeadline (`why` says what to
/// write) or NeedsBudget on failure.
PlanProblem prepare_plan_options(const scenario::Scenario& s, const PlanRequest& request, const std::string& data_dir,
                                 search::PlannerOptions& options, std::string& why, scenario::Diagnostics& diags);

/// Why a deadline as written (`text`) was refused by io::parse_duration_with_unit, and what to
/// write instead.
std::string deadline_problem_text(const std::string& text, io::UnitProblem problem);

/// Why an amount of money as written (`text`) was refused by io::parse_money, and what to write
/// instead; `example` is the currency a missing one is shown with ("CNY").
std::string money_problem_text(const std::string& text, io::UnitProblem problem, const std::string& example);

/// "A,B, C" -> {"A", "B", "C"} (empty items dropped): the lists of --gpu, --catalog, --precision.
std::vector<std::string> split_list(const std::string& s);

/// The catalog with only the plans of the kinds a plan or quote bills: offer, list, contract,
/// and spot when `allow_spot`; assumptions and competitors' prices are left out.
pricing::PriceCatalog billable_catalog(pricing::PriceCatalog catalog, bool allow_spot);

/// What `quote --plan best` quotes from a search.
struct QuotePlanChoice {
  /// The plan to quote: the search's recommendation; with `allow_miss` and none meeting, the
  /// closest simulated plan (its misses are the quote's to state). Null: nothing to quote.
  const search::Resimulated* plan = nullptr;
  bool recommended = false;  ///< `plan` is the search's recommendation (it meets the constraints)
  /// Every other GPU type searched: its cheapest simulated plan that meets, else its closest
  /// (by how far it misses), at the confidence with the model band's factor. In the order of
  /// the space's GPU types.
  std::vector<quote::QuoteAlternative> alternatives;
};
QuotePlanChoice quote_plan_choice(const search::PlanResult& r, const search::PlanSpace& space, bool allow_miss);

/// The scenario of a search's recommended plan `chosen`: `base` (the searched scenario) with the
/// plan's cluster, GPU count, precision, parallel plan and price catalog.
scenario::Scenario plan_scenario(const scenario::Scenario& base, const search::PlanSpace& space,
                                 const search::Resimulated& chosen);

/// The recommended plan written as a scenario: `base_yaml` (the searched scenario's file text)
/// with the plan's cluster, fabric, parallel plan, precision and price catalog, through the io
/// scenario writer (every other key kept). Loads as the plan's scenario.
std::string plan_scenario_yaml(const std::string& base_yaml, const scenario::Scenario& base,
                               const search::PlanSpace& space, const search::Resimulated& chosen,
                               const io::Catalog& catalog);

}  // namespace flopcast::app

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
  std::string currency;          ///< of every cost; "" = the scenario's pricing.currency, else the budget's
  std::optional<Time> deadline;  ///< longest wall time of the whole run
  std::string budget;            ///< largest bill as written ("2.5M USD", "1500000"); "" = none
  int top_k = 10;                ///< plans in the top list
  int threads = 1;               ///< worker threads (results do not depend on it)
  const std::atomic<bool>* cancel = nullptr;  ///< set to stop the search (the GUI's Cancel)
};

/// Why a request cannot be searched.
enum class PlanProblem {
  None,
  UnknownGpu,         ///< a GPU type is not in the catalog, or has no usual fabric (`why`)
  CatalogUnreadable,  ///< a price catalog cannot be loaded (`why` names it; `diags` say why)
  BadBudget,          ///< the budget is not an amount
};

/// One cluster spec per GPU name: the scenario's cluster for its own GPU, else the GPU's usual
/// fabric (data/gpus.yaml default_fabric). Empty `gpus` = the scenario's GPU only. False with
/// `why` (the known names) for an unknown GPU or one without a usual fabric.
bool plan_clusters(const io::Catalog& cat, const Scenario& s, const std::vector<std::string>& gpus,
                   std::vector<ClusterSpec>& out, std::string& why);

/// The price catalogs a search prices with when none are named: the scenario's
/// pricing.catalog first (its currency is the default), then every shipped one.
std::vector<std::string> default_plan_catalogs(const Scenario& s);

/// Stage 1: the space of `request` (GPU types on their clusters, the count limits).
/// UnknownGpu with `why` when a GPU type cannot be searched.
PlanProblem prepare_plan_space(const io::Catalog& cat, const Scenario& s, const PlanRequest& request,
                               search::PlanSpace& space, std::string& why);

/// Stage 2: the planner options of `request`: the catalogs loaded from `data_dir` (""
/// = the embedded copies), the currency, the budget (in the request's currency, else the
/// first catalog's), the deadline, top-K, threads and cancel flag. CatalogUnreadable (`why`
/// = the catalog's name, `diags` its loader's diagnostics; those of catalogs that loaded are
/// not kept) or BadBudget on failure.
PlanProblem prepare_plan_options(const Scenario& s, const PlanRequest& request, const std::string& data_dir,
                                 search::PlannerOptions& options, std::string& why, Diagnostics& diags);

}  // namespace flopcast::app

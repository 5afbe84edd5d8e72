#pragma once
/// `flopcast plan` output: the search's result as text, as one JSON document, and each GPU
/// count's fastest plan, priced, as CSV.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>

#include "flopcast/scenario/scenario.hpp"
#include "flopcast/search/planner.hpp"

namespace flopcast::app {

/// A finished search and what it was asked (the pointers outlive the report).
struct PlanReport {
  const scenario::Scenario* scenario = nullptr;
  const search::PlanSpace* space = nullptr;
  const search::PlannerOptions* options = nullptr;
  const search::PlanResult* result = nullptr;
};

/// The text `flopcast plan` prints: the job, pruning counts, the top plans, the Pareto front,
/// the cheapest plan meeting the constraints (and why the runner-up lost), the re-simulated
/// plans, infeasible choices and notes.
void print_plan_text(const PlanReport& r, std::ostream& out);

/// The same as one JSON object (keys in a fixed order).
nlohmann::ordered_json plan_to_json(const PlanReport& r);

/// Each GPU count's fastest plan under each price option, one CSV row each, with whether it
/// meets the deadline and budget and lies on the Pareto front.
std::string plan_csv(const search::PlanResult& r);

}  // namespace flopcast::app

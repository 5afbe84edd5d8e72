#pragma once
/// The simulate report: built once from a scenario, rendered as text or JSON.
#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::cli {

/// A claimed figure checked against the simulation.
struct ClaimCheck {
  std::string figure;
  double claimed = 0;
  double simulated = 0;
  std::string verdict;  ///< "consistent", "optimistic by 35%", "impossible: ..."
};

/// Everything `simulate` prints.
struct SimReport {
  const Scenario* scenario = nullptr;
  std::string profile_name;
  StepEstimate est;
  bool fits_memory = true;
  double train_seconds = 0;  ///< ideal (failure-free) time to train training.tokens
  double gpu_hours = 0;
  double node_hours = 0;
  double steps = 0;
  std::vector<ClaimCheck> claims;
};

SimReport make_report(const Scenario& s, const ComputeProfile& profile);
void print_text(const SimReport& r, std::ostream& out);
nlohmann::ordered_json to_json(const SimReport& r);

/// "1.23 s", "45.6 ms", "789 us"
std::string format_time(Time t);
/// "12.3 GiB"
std::string format_gib(Bytes b);
/// "1.4T", "300B", "8.03B"
std::string format_count(double v);

}  // namespace flopcast::cli

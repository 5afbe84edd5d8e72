#pragma once
// Internal: one judge per claim kind, and what they share (not installed).
#include <map>
#include <string>
#include <vector>

#include "flopcast/claims/claim.hpp"
#include "flopcast/claims/scenario_runner.hpp"
#include "flopcast/claims/verdict.hpp"

namespace flopcast::claims::detail {

/// What the judges may ask about the file and its scenarios.
class EvalContext {
 public:
  EvalContext(const ClaimsFile& file, const ScenarioRunner& runner) : file_(file), runner_(runner) {}
  /// The outcome of running `ref` (each scenario is run once).
  const ScenarioOutcome& run(const ScenarioRef& ref);
  /// Ids of the file's price claims of figure `rate` about plan `plan_id` of catalog `catalog`.
  std::vector<std::string> rate_claims_of(const std::string& catalog, const std::string& plan_id) const;

 private:
  const ClaimsFile& file_;
  const ScenarioRunner& runner_;
  std::map<std::string, ScenarioOutcome> runs_;
};

/// `claimed_text` receives the claimed figure as the scenario states it.
Verdict judge_training(const Claim& c, const TrainingNeeds& n, EvalContext& ctx, std::string& claimed_text);
Verdict judge_price(const Claim& c, const PriceNeeds& n, EvalContext& ctx);
Verdict judge_collective(const Claim& c, const CollectiveNeeds& n);
Verdict judge_hardware(const Claim& c, const HardwareNeeds& n);
Verdict judge_energy(const Claim& c, const EnergyNeeds& n);
Verdict judge_checkpoint(const Claim& c, const CheckpointNeeds& n);

/// A claim that relies on other claims' figures (relies_on) and disagrees with what they give
/// contradicts them: an optimistic, pessimistic or arithmetically impossible verdict (one
/// without a reason of its own) becomes "contradicts" with `arithmetic` as the reason.
void settle(Verdict& v, const Claim& c, const std::string& arithmetic);

/// A verdict that cannot be given, and why.
Verdict cannot_judge(std::string why);

/// True when `catalog_source` cites the claim's own source key as a word ("SEED (CLAIM: ...)"
/// cites SEED): reading such a figure back against the claim would only repeat it.
bool cites_source(const std::string& catalog_source, const std::string& claim_source);

}  // namespace flopcast::claims::detail

#pragma once
/// Training claims and run costs need a scenario simulated the way `flopcast simulate` does it
/// (load, check, step, claim checks). Core cannot read files, so the front (or the application
/// layer) hands evaluation a ScenarioRunner that does exactly that and reports the outcome.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "flopcast/claims/claim.hpp"
#include "flopcast/claims/verdict.hpp"

namespace flopcast::claims {

/// One of the scenario's `claimed:` figures as `simulate` checked it (app/evaluation.hpp, with
/// compare() and kTolerance: the verdict words and tolerance of every claim).
struct TrainingCheck {
  std::string figure;  ///< "mfu", "memory_gb", "days", "tokens_per_day", "bubble_fraction", ...
  double claimed = 0.0;
  double simulated = 0.0;
  /// Kind, percent, reason (Impossible, CannotJudge) and notes (what an optimistic pipeline
  /// bubble would need); the figure and how are left to the claims file's judge.
  Verdict verdict;
  /// As `simulate` and a quote print it: the verdict's line, each note after it in
  /// parentheses: "optimistic by 35%", "pessimistic by 11%", "impossible: MFU above 100%".
  std::string text() const;
};

/// What simulating a scenario gave.
struct ScenarioOutcome {
  enum class Status {
    Simulated,     ///< loaded, checked and simulated
    Inconsistent,  ///< the file reads, but its figures cannot describe any run (product, divisibility)
    BadInput,      ///< the file is missing or has errors a user must fix
  };
  Status status = Status::BadInput;
  std::vector<std::string> problems;   ///< Inconsistent / BadInput: each problem, "file:line:col: ..."
  std::string name;                    ///< the scenario's name
  std::string gpu;                     ///< its GPU's catalog name
  std::vector<std::string> gpu_names;  ///< the GPU's name and aliases (for price plans)
  std::int64_t gpus = 0;
  std::int64_t plan_gpus = 0;         ///< tp x pp x dp x cp of the plan (may differ from `gpus` when Inconsistent)
  std::string engine;                 ///< "discrete-event simulation" or "closed-form estimate"
  std::vector<TrainingCheck> checks;  ///< one per `claimed:` figure
  /// The scenario's `claimed:` figures as written (also when Inconsistent: nothing is simulated).
  std::map<std::string, double> claimed;
  bool fits_memory = true;
  std::string memory_problem;  ///< "the plan needs 142.5 GiB per GPU but the A100-80G has 80.0 GiB"
  double mfu = 0.0;
  units::Time step_time;
  double train_seconds = 0.0;  ///< failure-free time to train `training.tokens` (0 = not given)
  double gpu_hours = 0.0;      ///< train_seconds x GPUs / 3600
};

/// Simulates a scenario as `flopcast simulate` does.
using ScenarioRunner = std::function<ScenarioOutcome(const ScenarioRef&)>;

}  // namespace flopcast::claims

#pragma once
/// Judging claims: each kind computed with the module that owns the figure (core/pricing for
/// bills, the collective model as `flopcast collective` runs it, data/gpus.yaml's dense
/// one-way figures, core/job's energy and checkpoint model, `simulate`'s claim check through
/// the scenario runner). Deterministic: the same claims give the same verdicts.
#include "flopcast/claims/claim.hpp"
#include "flopcast/claims/claim_results.hpp"
#include "flopcast/claims/scenario_runner.hpp"

namespace flopcast::claims {

/// The verdict on every claim of `file`, in file order. Each scenario is run once however many
/// claims point at it. `rejected` claims are not judged; the caller adds their diagnostics to
/// the report's `errors`.
ClaimsReport evaluate_claims(const ClaimsFile& file, const ScenarioRunner& runner);

}  // namespace flopcast::claims

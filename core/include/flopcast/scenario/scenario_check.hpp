#pragma once
/// Semantic checks of a loaded scenario (divisibility, products, supported precision,
/// limits), reported at the file:line of the offending key.
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::scenario {

/// Appends every problem of `s` to `diags` (errors and warnings).
void check_scenario(const Scenario& s, Diagnostics& diags);

}  // namespace flopcast::scenario

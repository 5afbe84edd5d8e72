#pragma once
/// The `flopcast simulate` report as text: the scenario, the step, memory, where the time goes,
/// the failure-free training, the claims, then the whole run and the bills when present.
#include <iosfwd>

#include "flopcast/app/evaluation.hpp"

namespace flopcast::app {

/// Writes `r` as the text `flopcast simulate` prints. New sections go after the step report,
/// so the step's lines stay a prefix of the output.
void print_text(const SimReport& r, std::ostream& out);

}  // namespace flopcast::app

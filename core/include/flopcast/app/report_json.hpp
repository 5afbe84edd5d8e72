#pragma once
/// The `flopcast simulate --json` document.
#include <nlohmann/json.hpp>

#include "flopcast/app/evaluation.hpp"

namespace flopcast::app {

/// `r` as one JSON object: scenario, model, cluster, parallel, step, stages, memory, breakdown,
/// training, claims, feasibility, then whole_run and bills when present (keys in this order).
nlohmann::ordered_json to_json(const SimReport& r);

}  // namespace flopcast::app

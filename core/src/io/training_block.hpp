#pragma once
// Internal helper of flopcast::io (not installed): the scenario's `training:` block.
#include "flopcast/scenario/scenario.hpp"
#include "yaml_util.hpp"

namespace flopcast::io::detail {

/// Reads `training:` (tokens, method, lora) into s.training. The model and precision must have
/// been read (the rank is checked against the hidden size, QLoRA against the precision).
void read_training(const YAML::Node& t, Reader& r, scenario::Scenario& s);

}  // namespace flopcast::io::detail

#pragma once
/// Between a scenario form (scenario_form.hpp) and scenario YAML: YAML out, beside the loader's
/// YAML in. The GUI's editor never builds a Scenario itself: it writes YAML text and runs the
/// loader on it, so every value is checked by the same code and reported with the same
/// messages as `flopcast simulate`.
#include <string>
#include <vector>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_form.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::io {

/// The form showing a loaded scenario `s`, whose file text is `yaml_text`. Values come from
/// the resolved scenario; what the text alone says (tokens as written, whether dp was given,
/// whether the fabric is a preset or an inline mapping) comes from the text.
ScenarioForm form_from_scenario(const scenario::Scenario& s, const std::string& yaml_text);

/// The YAML text of `form` laid over `base_yaml` (the opened file's text; "" for a new
/// document). The form's keys (name, model, cluster, parallel, precision, training.tokens,
/// pricing.catalog) replace the base's; every other key is kept as it was (description,
/// reliability, claimed, the other pricing keys, overlap flags, a custom model's moe block,
/// an inline fabric).
/// Comments of the base are not kept (the saved file's backup keeps them).
std::string compose_scenario_yaml(const std::string& base_yaml, const ScenarioForm& form, const Catalog& catalog);

/// The YAML of `form` for a new file (compose_scenario_yaml over an empty document) with each
/// `header` line as a comment on top and, after each key the form writes, a comment saying what
/// it means and which values it takes (`flopcast init`). The loader reads it as it reads
/// compose_scenario_yaml's text: comments change no value.
std::string commented_scenario_yaml(const ScenarioForm& form, const Catalog& catalog,
                                    const std::vector<std::string>& header);

}  // namespace flopcast::io

#pragma once
/// Between the editor's form and scenario YAML. The editor never builds a Scenario itself:
/// it writes YAML text and runs the CLI's own loader on it, so every value is checked by the
/// same code and reported with the same messages as `flopcast simulate`.
#include <string>

#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "form_state.hpp"

namespace flopcast::gui {

/// The form of a new document: Llama 3 8B on 64 H800 as scenarios/quickstart.yaml (or the
/// catalog's first model and GPU when those are missing from a --data-dir catalog).
FormState default_form(const io::Catalog& catalog);

/// The form showing a loaded scenario `s`, whose file text is `yaml_text`. Values come from
/// the resolved scenario; what the text alone says (tokens as written, whether dp was given,
/// whether the fabric is a preset or an inline mapping) comes from the text.
FormState form_from_scenario(const Scenario& s, const std::string& yaml_text);

/// The YAML text of `form` laid over `base_yaml` (the opened file's text; "" for a new
/// document). The form's keys (name, model, cluster, parallel, precision, training.tokens,
/// pricing.catalog) replace the base's; every other key is kept as it was (description,
/// reliability, claimed, the other pricing keys, overlap flags, a custom model's moe block,
/// an inline fabric).
/// Comments of the base are not kept (the saved file's backup keeps them).
std::string compose_scenario_yaml(const std::string& base_yaml, const FormState& form, const io::Catalog& catalog);

}  // namespace flopcast::gui

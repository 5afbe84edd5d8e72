#pragma once
/// The form of a scenario file that does not load: what the file says for each form field,
/// read leniently (a value of the wrong type is left at the default; a text that is not YAML,
/// or a mapping with none of the form's keys, gives the defaults), so that a file with a
/// typo still opens in the editor and the loader's diagnostics are shown at their fields.
#include <string>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_form.hpp"

namespace flopcast::io {

/// The form of scenario text `yaml`: `defaults` (a new document's form) overlaid with every form value the
/// text gives. Never throws; a text that is not YAML gives the default form.
ScenarioForm draft_form(const std::string& yaml, const Catalog& catalog, ScenarioForm defaults);

/// True when `yaml` is a fleet file (`flopcast fleet` input: top-level `pools` or
/// `job_classes`, and no `model` or `cluster`) rather than a scenario.
bool looks_like_fleet_file(const std::string& yaml);

}  // namespace flopcast::io

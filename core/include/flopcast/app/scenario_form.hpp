#pragma once
/// The scenario form of a new document in the GUI's editor.
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_form.hpp"

namespace flopcast::app {

/// The form of a new document: Llama 3 8B on 64 H800 as scenarios/quickstart.yaml (or the
/// catalog's first model and GPU when those are missing from a --data-dir catalog).
io::ScenarioForm default_form(const io::Catalog& catalog);

}  // namespace flopcast::app

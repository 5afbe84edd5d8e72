#pragma once
/// A first scenario for a GPU type, a model and a GPU count (`flopcast init`): a plan that fits,
/// the tokens, a price list, and the commented YAML a user edits from there.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_form.hpp"

namespace flopcast::app {

/// What the scenario is for; empty fields take default_form's values (scenario_form.hpp).
struct TemplateRequest {
  std::string gpu;        ///< a catalog GPU name
  std::string model;      ///< a catalog model preset
  std::int64_t gpus = 0;  ///< GPUs of the job; 0 = 64
};

/// The scenario `flopcast init` writes.
struct ScenarioTemplate {
  io::ScenarioForm form;
  /// Whether the chosen plan fits the GPU's memory (false: even the leanest candidate does not).
  bool fits = false;
  /// Whether it leaves `free_share` of the HBM free (false: no candidate does; the leanest is chosen).
  bool headroom = false;
  double free_share = 0;           ///< the share of HBM a first scenario's plan leaves free (0.08)
  int candidates = 0;              ///< plans compared (tp x pp (x ep) x recompute that divide the cluster and batch)
  bool form_moe = false;           ///< the model is a mixture of experts (ep was searched too)
  double memory_gib = 0;           ///< the chosen plan's memory per GPU
  double capacity_gib = 0;         ///< the GPU's HBM
  double step_s = 0;               ///< the chosen plan's closed-form step time
  std::vector<std::string> notes;  ///< what the user should know (a cluster not made of whole nodes, no price list)
};

/// The template for `request`: the fastest plan by the closed-form estimate among tp (1, 2, 4, 8,
/// ... up to a node) x pp (powers of two up to the layers) x, for an MoE model, ep (powers of two
/// dividing dp and the experts) x recompute (none, selective, full)
/// with sequence parallelism when tp > 1, ZeRO-1, micro-batch 1 and a global batch of about 4M
/// tokens, that leaves 8% of the GPU's memory free (the leanest when none does); training tokens 20 per
/// parameter (Chinchilla's compute-optimal ratio, Hoffmann et al. 2022, arXiv 2203.15556); the
/// first shipped price catalog with a plan for the GPU. nullopt with `why` when the GPU or the
/// model is not in the catalog or no plan divides the cluster.
std::optional<ScenarioTemplate> make_scenario_template(const io::Catalog& catalog, const TemplateRequest& request,
                                                       std::string& why);

/// The YAML `flopcast init` writes for `t`: the scenario writer's text with a header and a
/// comment on each key (what it means, the values it takes, the command that lists them).
std::string template_yaml(const ScenarioTemplate& t, const io::Catalog& catalog);

}  // namespace flopcast::app

#include "flopcast/app/plan_request.hpp"

#include <algorithm>

#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/units_parse.hpp"

namespace flopcast::app {

bool plan_clusters(const io::Catalog& cat, const Scenario& s, const std::vector<std::string>& gpus,
                   std::vector<ClusterSpec>& out, std::string& why) {
  out.clear();
  if (gpus.empty()) {
    out.push_back(s.cluster);
    return true;
  }
  for (const auto& name : gpus) {
    const GpuSpec* g = cat.find_gpu(name);
    if (!g) {
      std::string known;
      for (const auto& n : cat.gpu_names()) known += (known.empty() ? "" : ", ") + n;
      why = "unknown GPU '" + name + "' (known: " + known + ")";
      return false;
    }
    if (g->name == s.cluster.gpu.name) {
      out.push_back(s.cluster);
      continue;
    }
    ClusterSpec c;
    c.gpu = *g;
    const FabricSpec* f = g->default_fabric.empty() ? nullptr : cat.find_fabric(g->default_fabric);
    if (!f) {
      why = "the GPU '" + g->name +
            "' has no usual fabric in data/gpus.yaml; plan it from a scenario naming its cluster.fabric";
      return false;
    }
    c.fabric = *f;
    c.gpus_per_node = f->gpus_per_node;
    out.push_back(c);
  }
  return true;
}

std::vector<std::string> default_plan_catalogs(const Scenario& s) {
  std::vector<std::string> names;
  if (s.has_pricing && !s.pricing.catalog.empty()) names.push_back(s.pricing.catalog);
  for (const auto& n : io::price_catalog_names())
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

PlanProblem prepare_plan_space(const io::Catalog& cat, const Scenario& s, const PlanRequest& request,
                               search::PlanSpace& space, std::string& why) {
  space.gpus_max = request.gpus_max;
  space.gpus_min = request.gpus_min;
  if (!plan_clusters(cat, s, request.gpu_types, space.clusters, why)) return PlanProblem::UnknownGpu;
  return PlanProblem::None;
}

PlanProblem prepare_plan_options(const Scenario& s, const PlanRequest& request, const std::string& data_dir,
                                 search::PlannerOptions& options, std::string& why, Diagnostics& diags) {
  options.top_k = request.top_k;
  options.threads = std::max(1, request.threads);
  options.cancel = request.cancel;
  options.deadline = request.deadline;
  options.currency = !request.currency.empty() ? request.currency : s.has_pricing ? s.pricing.currency : std::string();
  const std::vector<std::string> names = request.catalogs.empty() ? default_plan_catalogs(s) : request.catalogs;
  for (const auto& n : names) {
    Diagnostics d;  // a catalog that loads says nothing
    auto pc = io::load_price_catalog(n, data_dir, d);
    if (!pc) {
      for (const auto& x : d.items()) diags.add(x);
      why = n;
      return PlanProblem::CatalogUnreadable;
    }
    options.catalogs.push_back(std::make_shared<const PriceCatalog>(std::move(*pc)));
  }
  if (!request.budget.empty()) {
    const auto b = io::parse_budget(request.budget, request.currency,
                                    options.catalogs.empty() ? "USD" : options.catalogs.front()->currency.str());
    if (!b) return PlanProblem::BadBudget;
    options.budget = *b;
    if (request.currency.empty()) options.currency = b->currency.str();
  }
  return PlanProblem::None;
}

}  // namespace flopcast::app

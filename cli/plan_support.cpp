#include "plan_support.hpp"

#include <cmath>

#include "flopcast/io/units_parse.hpp"

namespace flopcast::cli {

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

std::optional<Money> parse_budget(const std::string& text, const std::string& currency, const std::string& fallback) {
  std::string num = text, cur;
  const auto sp = text.find(' ');
  if (sp != std::string::npos) {
    num = text.substr(0, sp);
    cur = text.substr(text.find_first_not_of(' ', sp));
  }
  const auto v = io::parse_count(num);
  if (!v || !std::isfinite(*v) || *v < 0 || *v > 9e15) return std::nullopt;
  if (cur.empty()) cur = !currency.empty() ? currency : fallback;
  if (cur.size() != 3) return std::nullopt;
  return Money::of_minor(static_cast<std::int64_t>(std::llround(*v * 100.0)), Currency::of(cur));
}

}  // namespace flopcast::cli

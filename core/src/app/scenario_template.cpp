#include "flopcast/app/scenario_template.hpp"

#include <fmt/format.h>

#include <cmath>

#include "flopcast/app/scenario_form.hpp"
#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/scenario_writer.hpp"
#include "flopcast/units/format.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::app {
namespace {

/// Tokens per step the template's global batch aims at: 4M (2^22), Llama 3 405B's first stage
/// (arXiv 2407.21783, section 3.4.1: 4M tokens per batch at sequence length 4,096).
constexpr double kTokensPerStep = 4'194'304;
/// Chinchilla's compute-optimal tokens per parameter (Hoffmann et al. 2022, arXiv 2203.15556).
constexpr double kTokensPerParameter = 20;
/// The share of HBM a first scenario's plan leaves free. The memory model is checked against
/// measured peaks on two runs only, one 36% above the prediction (docs/calibration.md, "Memory
/// model": torchtitan's reserved peak; the caching allocator's blocks around FSDP2's per-layer
/// gathers are not modelled), and its 5% fragmentation is an allowance, not a measurement: a plan
/// at 79.5 of 79.7 GiB "fits" on paper and runs out of memory on a cluster. 8% (6.4 GiB of an
/// 80 GB GPU) is a margin for a first run, not a measured figure; `flopcast plan` searches to the
/// limit.
constexpr double kFreeHbmShare = 0.08;

/// `v` rounded to two significant digits, as a count string ("160B", "1.4T").
std::string two_digit_count(double v) {
  if (v <= 0) return "1";
  const double scale = std::pow(10.0, std::floor(std::log10(v)) - 1);
  return units::format_count(std::round(v / scale) * scale);
}

void set_model(io::ScenarioForm& f, const workload::ModelSpec& m) {
  f.model_preset = m.name;
  io::set_model_shape(f, m);
}

/// The first shipped price catalog with a plan that names `gpu`, or "".
std::string price_catalog_for(const std::string& data_dir, const std::string& gpu) {
  for (const auto& name : io::price_catalog_names()) {
    scenario::Diagnostics d;
    const auto c = io::load_price_catalog(name, data_dir, d);
    if (!c) continue;
    for (const auto& p : c->plans)
      if (p.names_gpu(gpu)) return name;
  }
  return {};
}

/// A candidate's closed-form figures, read through the loader as the written file will be.
struct Evaluated {
  io::ScenarioForm form;
  double step_s = 0;
  units::Bytes memory, capacity;
  bool fits = false;
  bool headroom = false;  ///< fits with kFreeHbmShare of the HBM free
};

std::optional<Evaluated> evaluate(const io::ScenarioForm& f, const io::Catalog& catalog) {
  scenario::Diagnostics diags;
  auto s = io::parse_scenario(io::compose_scenario_yaml("", f, catalog), "<init>", catalog, diags);
  if (!s) return std::nullopt;
  if (s->open_settings.any()) estimate::resolve_open_settings(*s, catalog.profile);
  const estimate::StepEstimate e = estimate::estimate_step(*s, catalog.profile);
  const bool headroom =
      e.memory.fits() && e.memory.total().value <= (1 - kFreeHbmShare) * static_cast<double>(e.memory.capacity.value);
  return Evaluated{f, e.step.seconds(), e.memory.total(), e.memory.capacity, e.memory.fits(), headroom};
}

/// True when `a` is the better choice: it leaves the free share of HBM and `b` does not, else
/// the faster when both do, else the leaner.
bool better(const Evaluated& a, const Evaluated& b) {
  if (a.headroom != b.headroom) return a.headroom;
  if (a.headroom) return a.step_s < b.step_s;
  return a.memory.value < b.memory.value;
}

}  // namespace

std::optional<ScenarioTemplate> make_scenario_template(const io::Catalog& catalog, const TemplateRequest& request,
                                                       std::string& why) {
  io::ScenarioForm f = default_form(catalog);
  if (!request.model.empty()) {
    const workload::ModelSpec* m = catalog.find_model(request.model);
    if (!m) {
      why = "unknown model preset '" + request.model + "'";
      return std::nullopt;
    }
    set_model(f, *m);
  }
  const hardware::GpuSpec* g = catalog.find_gpu(request.gpu.empty() ? f.gpu : request.gpu);
  if (!g) {
    why = "unknown GPU '" + request.gpu + "' (" + io::unknown_gpu_hint(catalog, request.gpu) + ")";
    return std::nullopt;
  }
  const workload::ModelSpec* model = catalog.find_model(f.model_preset);
  if (!model) {
    why = "the catalog has no models";
    return std::nullopt;
  }
  f.gpu = g->name;
  f.gpus = request.gpus > 0 ? request.gpus : 64;
  const hardware::FabricSpec* node = catalog.find_fabric(g->default_fabric);
  f.gpus_per_node = node && node->gpus_per_node > 0 ? node->gpus_per_node : 8;
  f.fabric.clear();  // the GPU's usual node
  f.name = fmt::format("{} on {} x {}", model->display, f.gpus, g->name);
  f.tokens = two_digit_count(kTokensPerParameter * workload::parameter_count(*model).active);
  f.pricing_catalog = price_catalog_for(catalog.data_dir, g->name);
  f.dp_auto = false;
  f.cp = f.ep = f.vpp = 1;
  f.micro_batch = 1;
  f.schedule = "1f1b";
  const std::int64_t batch = std::max<std::int64_t>(1, std::llround(kTokensPerStep / static_cast<double>(f.seq_len)));

  ScenarioTemplate t;
  std::optional<Evaluated> best;
  for (std::int64_t tp = 1; tp <= f.gpus_per_node && f.gpus % tp == 0; tp *= 2) {
    for (std::int64_t pp = 1; pp <= model->layers && f.gpus % (tp * pp) == 0; pp *= 2) {
      // MoE models also split their experts: ep over powers of two dividing dp and the experts
      // (1 for dense models), the expert layers' tensor parallelism that of the rest (etp = tp).
      const std::int64_t dp = f.gpus / (tp * pp);
      std::vector<std::int64_t> eps = {1};
      if (model->moe)
        for (std::int64_t ep = 2; ep <= dp && dp % ep == 0 && model->moe->experts % ep == 0; ep *= 2) eps.push_back(ep);
      for (const std::int64_t ep : eps)
        for (const char* recompute : {"none", "selective", "full"}) {
          io::ScenarioForm c = f;
          c.tp = tp;
          c.pp = pp;
          c.dp = dp;
          c.ep = ep;
          c.sequence_parallel = tp > 1;
          c.zero = c.dp > 1 ? 1 : 0;
          c.global_batch = (batch + c.dp - 1) / c.dp * c.dp;
          c.recompute = recompute;
          const auto e = evaluate(c, catalog);
          if (!e) continue;
          ++t.candidates;
          if (!best || better(*e, *best)) best = e;
        }
    }
  }
  if (!best) {
    why = fmt::format("no plan of tp (1 to {}) x pp divides {} GPUs", f.gpus_per_node, f.gpus);
    return std::nullopt;
  }
  t.form = best->form;
  t.form_moe = model->moe.has_value();
  t.fits = best->fits;
  t.headroom = best->headroom;
  t.free_share = kFreeHbmShare;
  t.memory_gib = best->memory.gib();
  t.capacity_gib = best->capacity.gib();
  t.step_s = best->step_s;
  if (f.gpus % f.gpus_per_node != 0)
    t.notes.push_back(fmt::format("{} GPUs are not a multiple of the node ({} per node): the last node is partly used",
                                  f.gpus, f.gpus_per_node));
  if (f.pricing_catalog.empty())
    t.notes.push_back("no shipped price catalog has a plan for the " + g->name + ": the file has no pricing block");
  return t;
}

std::string template_yaml(const ScenarioTemplate& t, const io::Catalog& catalog) {
  const auto& f = t.form;
  std::vector<std::string> header = {
      f.name + " (written by flopcast init: edit any value and run it again).",
      "Run it: flopcast simulate FILE; search every plan: flopcast plan FILE. Keys: docs/run-schema.md.",
  };
  const int free_pct = static_cast<int>(std::lround(100 * t.free_share));
  if (t.headroom) {
    header.push_back(
        fmt::format("The plan is the fastest of {} (tp, pp, {}recompute) that leaves {}% of the {:.1f} GiB of",
                    t.candidates, t.form_moe ? "ep, " : "", free_pct, t.capacity_gib));
    header.push_back(
        fmt::format("HBM free by the closed-form estimate ({:.1f} GiB per GPU, step {:.2f} s), a margin for",
                    t.memory_gib, t.step_s));
    header.push_back("a first run; flopcast plan searches the rest.");
  } else {
    header.push_back(fmt::format("No plan of the {} compared (tp, pp, {}recompute) leaves {}% of the {:.1f} GiB of HBM",
                                 t.candidates, t.form_moe ? "ep, " : "", free_pct, t.capacity_gib));
    header.push_back(fmt::format("free: this is the leanest ({:.1f} GiB per GPU{}): add GPUs or pick a larger GPU.",
                                 t.memory_gib,
                                 t.fits ? ", too close to the limit to run safely" : ", it does not fit"));
  }
  for (const auto& n : t.notes) header.push_back("Note: " + n + ".");
  return io::commented_scenario_yaml(f, catalog, header);
}

}  // namespace flopcast::app

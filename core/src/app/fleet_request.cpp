#include "flopcast/app/fleet_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "flopcast/app/evaluation.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/job/job_simulation.hpp"
#include "flopcast/job/job_size.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/scenario/scenario_check.hpp"
#include "flopcast/units/format.hpp"

namespace flopcast::app {
namespace {

/// The first pool of `gpu`, or nullptr.
const fleet::Pool* pool_of(const fleet::Fleet& f, const std::string& gpu) {
  for (const auto& p : f.pools)
    if (normalize_gpu_name(p.gpu) == normalize_gpu_name(gpu)) return &p;
  return nullptr;
}

struct Planned {
  std::optional<fleet::RunProfile> profile;
  std::string why;
};

Planned plan_variant(const Scenario& s, const ComputeProfile& profile) {
  Planned out;
  const SimReport r = make_report(s, profile);
  if (!r.fits_memory) {
    out.why =
        fmt::format("needs {:.1f} GiB per GPU, more than the {} has", r.est.memory.total().gib(), s.cluster.gpu.name);
    return out;
  }
  if (!(r.steps > 0)) {
    out.why = "no optimizer steps (tokens too few for one global batch)";
    return out;
  }
  const JobInput in = job_input_of(s, r, EnergySpec{});
  // The one job-size guard (job_size.hpp), as `simulate` applies it.
  if (out.why = job_too_big_to_simulate(in); !out.why.empty()) return out;
  JobOutcome o = simulate_job(in);
  if (!o.ok()) {
    out.why = o.errors.front();
    return out;
  }
  const JobResult& jr = o.result;
  fleet::RunProfile rp;
  rp.gpu = s.cluster.gpu.name;
  rp.gpus = s.cluster.gpus;
  for (const JobTrial& t : jr.samples) {
    rp.spans.push_back(t.gpu_span);
    rp.failures.push_back(t.failures);
  }
  rp.estimate = jr.gpu_span_p90;
  rp.checkpoint_interval = jr.checkpoint_interval;
  rp.restart = jr.restart_time;
  rp.it_power_kw = jr.energy.avg_it_power_kw;
  out.profile = std::move(rp);
  return out;
}

}  // namespace

Scenario replan_scenario(const io::FleetClassInput& c, const GpuSpec& gpu, const FabricSpec& fabric, int gpus_per_node,
                         std::int64_t gpus, std::string& why) {
  Scenario s = c.scenario;
  s.training.tokens = c.tokens;
  s.cluster.gpu = gpu;
  s.cluster.fabric = fabric;
  s.cluster.gpus_per_node = gpus_per_node;
  const std::int64_t mp = static_cast<std::int64_t>(s.plan.tp) * s.plan.pp * s.plan.cp;
  if (gpus % mp != 0) {
    why = fmt::format("{} GPUs is not a multiple of TP x PP x CP = {}", gpus, mp);
    return s;
  }
  s.plan.dp = gpus / mp;
  s.cluster.gpus = gpus;
  if (s.plan.global_batch % (s.plan.dp * s.plan.micro_batch) != 0) {
    why = fmt::format("global batch {} is not divisible by DP {} x micro-batch {}", s.plan.global_batch, s.plan.dp,
                      s.plan.micro_batch);
    return s;
  }
  Diagnostics d;
  check_scenario(s, d);
  for (const auto& item : d.items())
    if (item.severity == Severity::Error) {
      why = item.message;
      return s;
    }
  why.clear();
  return s;
}

bool plan_fleet(io::FleetFile& ff, const io::Catalog& catalog, Diagnostics& diags, std::vector<std::string>& notes) {
  fleet::Fleet& f = ff.fleet;
  std::map<std::string, Planned> cache;  // (scenario file, tokens, GPU, count, fabric, gpus/node) -> profile
  bool ok = true;
  for (std::size_t ci = 0; ci < ff.classes.size(); ++ci) {
    const io::FleetClassInput& c = ff.classes[ci];
    ComputeProfile profile = catalog.profile;
    if (!c.scenario.calibration.empty()) {
      Diagnostics pd;
      if (auto p = io::load_profile(c.scenario.calibration, catalog, pd))
        profile = *p;
      else {
        diags.error_at(ff.locations, c.key + ".scenario",
                       "scenario '" + c.scenario_path + "': calibration profile '" + c.scenario.calibration +
                           "' cannot be loaded");
        ok = false;
        continue;
      }
    }
    std::vector<std::string> types{c.scenario.cluster.gpu.name};
    for (const auto& g : c.replan_gpus)
      if (std::find(types.begin(), types.end(), g) == types.end()) types.push_back(g);
    std::vector<std::int64_t> counts{c.gpus};
    for (auto n : c.replan_counts)
      if (std::find(counts.begin(), counts.end(), n) == counts.end()) counts.push_back(n);
    fleet::JobClass& jc = f.classes[ci];
    jc.variants.clear();
    for (std::size_t ti = 0; ti < types.size(); ++ti) {
      const GpuSpec* gpu = catalog.find_gpu(types[ti]);
      const fleet::Pool* pool = pool_of(f, types[ti]);
      for (std::size_t ni = 0; ni < counts.size(); ++ni) {
        const bool as_written = ti == 0 && ni == 0;
        if (!pool && !as_written) continue;  // no pool could run it
        const FabricSpec* fabric = pool ? catalog.find_fabric(pool->fabric) : &c.scenario.cluster.fabric;
        if (!fabric) fabric = &c.scenario.cluster.fabric;
        const int gpn = pool ? pool->gpus_per_node : c.scenario.cluster.gpus_per_node;
        const std::string key =
            fmt::format("{}|{}|{}|{}|{}|{}", c.scenario_file, c.tokens, gpu->name, counts[ni], fabric->name, gpn);
        auto it = cache.find(key);
        if (it == cache.end()) {
          Planned p;
          const Scenario s = replan_scenario(c, *gpu, *fabric, gpn, counts[ni], p.why);
          if (p.why.empty()) p = plan_variant(s, profile);
          it = cache.emplace(key, std::move(p)).first;
        }
        const std::string label = fmt::format("{} on {} x {}", c.name, counts[ni], gpu->name);
        if (!it->second.profile) {
          if (as_written) {
            diags.error_at(ff.locations, c.key + ".scenario",
                           "job class '" + c.name + "' cannot run as written (" + label + "): " + it->second.why,
                           "change the scenario or the class's gpus/tokens");
            ok = false;
          } else {
            notes.push_back("re-plan " + label + " dropped: " + it->second.why);
          }
          continue;
        }
        jc.variants.push_back(*it->second.profile);
      }
    }
  }
  return ok;
}

std::optional<PreparedFleet> prepare_fleet_file(const std::string& path, const io::Catalog& catalog,
                                                std::optional<Time> horizon, int seeds, Diagnostics& diags,
                                                bool* io_error) {
  if (io_error) *io_error = false;
  auto ff = io::load_fleet_file(path, catalog, diags);
  if (!ff) {
    for (const auto& d : diags.items())
      if (io_error && d.where.file == path && io::is_unreadable_file(d)) *io_error = true;
    return std::nullopt;
  }
  if (horizon) ff->fleet.horizon = *horizon;
  if (seeds > 0) ff->fleet.seeds = seeds;
  PreparedFleet out;
  if (!plan_fleet(*ff, catalog, diags, out.notes)) return std::nullopt;
  if (const auto errors = fleet::validate_fleet(ff->fleet); !errors.empty()) {
    for (const auto& e : errors) diags.error({path, 0, 0}, "", e);
    return std::nullopt;
  }
  for (const auto& c : ff->fleet.classes) {
    std::string s;
    for (const auto& v : c.variants) s += (s.empty() ? "" : ", ") + fmt::format("{} x {}", v.gpus, v.gpu);
    out.class_variants.push_back(s);
  }
  out.fleet = std::move(ff->fleet);
  return out;
}

}  // namespace flopcast::app

#include "flopcast/app/fleet_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "flopcast/app/evaluation.hpp"
#include "flopcast/estimate/setting_resolution.hpp"
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
    if (pricing::normalize_gpu_name(p.gpu) == pricing::normalize_gpu_name(gpu)) return &p;
  return nullptr;
}

struct Planned {
  std::optional<fleet::RunProfile> profile;
  std::string why;
};

Planned plan_variant(scenario::Scenario s, const compute::ComputeProfile& profile) {
  Planned out;
  // Settings left open in the scenario are resolved for this variant's GPUs and count.
  if (s.open_settings.any()) estimate::resolve_open_settings(s, profile);
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
  const job::JobInput in = job_input_of(s, r, job::EnergySpec{});
  // The one job-size guard (job_size.hpp), as `simulate` applies it.
  if (out.why = job::job_too_big_to_simulate(in); !out.why.empty()) return out;
  job::JobOutcome o = job::simulate_job(in);
  if (!o.ok()) {
    out.why = o.errors.front();
    return out;
  }
  const job::JobResult& jr = o.result;
  fleet::RunProfile rp;
  rp.gpu = s.cluster.gpu.name;
  rp.gpus = s.cluster.gpus;
  for (const job::JobTrial& t : jr.samples) {
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

scenario::Scenario replan_scenario(const io::FleetClassInput& c, const hardware::GpuSpec& gpu,
                                   const hardware::FabricSpec& fabric, int gpus_per_node, std::int64_t gpus,
                                   std::string& why) {
  scenario::Scenario s = c.scenario;
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
  scenario::Diagnostics d;
  scenario::check_scenario(s, d);
  for (const auto& item : d.items())
    if (item.severity == scenario::Severity::Error) {
      why = item.message;
      return s;
    }
  why.clear();
  return s;
}

bool plan_fleet(io::FleetFile& ff, const io::Catalog& catalog, scenario::Diagnostics& diags,
                std::vector<std::string>& notes) {
  fleet::Fleet& f = ff.fleet;
  std::map<std::string, Planned> cache;  // (scenario file, tokens, GPU, count, fabric, gpus/node) -> profile
  bool ok = true;
  for (std::size_t ci = 0; ci < ff.classes.size(); ++ci) {
    const io::FleetClassInput& c = ff.classes[ci];
    compute::ComputeProfile profile = catalog.profile;
    if (!c.scenario.calibration.empty()) {
      scenario::Diagnostics pd;
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
      const hardware::GpuSpec* gpu = catalog.find_gpu(types[ti]);
      const fleet::Pool* pool = pool_of(f, types[ti]);
      for (std::size_t ni = 0; ni < counts.size(); ++ni) {
        const bool as_written = ti == 0 && ni == 0;
        if (!pool && !as_written) continue;  // no pool could run it
        const hardware::FabricSpec* fabric = pool ? catalog.find_fabric(pool->fabric) : &c.scenario.cluster.fabric;
        if (!fabric) fabric = &c.scenario.cluster.fabric;
        const int gpn = pool ? pool->gpus_per_node : c.scenario.cluster.gpus_per_node;
        const std::string key =
            fmt::format("{}|{}|{}|{}|{}|{}", c.scenario_file, c.tokens, gpu->name, counts[ni], fabric->name, gpn);
        auto it = cache.find(key);
        if (it == cache.end()) {
          Planned p;
          const scenario::Scenario s = replan_scenario(c, *gpu, *fabric, gpn, counts[ni], p.why);
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

namespace {

/// A run a pool can give a class: its median whole-run span and "64 x H800".
struct VariantRun {
  units::Time median;
  std::string label;
};

/// Per class, the median span of each variant some pool can run, in the class's preference order.
std::vector<std::vector<VariantRun>> runnable_variants(const fleet::Fleet& f) {
  std::vector<std::vector<VariantRun>> out(f.classes.size());
  for (std::size_t c = 0; c < f.classes.size(); ++c) {
    const fleet::JobClass& jc = f.classes[c];
    for (const fleet::RunProfile& v : jc.variants) {
      if (f.policy.gang && v.gpus < jc.gpus) continue;
      const bool has_pool = std::any_of(f.pools.begin(), f.pools.end(), [&](const fleet::Pool& p) {
        return pricing::normalize_gpu_name(p.gpu) == pricing::normalize_gpu_name(v.gpu) && v.gpus <= p.gpus();
      });
      if (!has_pool || v.spans.empty()) continue;
      std::vector<units::Time> spans = v.spans;
      out[c].push_back({fleet::percentiles_of(spans).p50, fmt::format("{} x {}", v.gpus, v.gpu)});
    }
  }
  return out;
}

}  // namespace

void warn_short_deadlines(const io::FleetFile& ff, scenario::Diagnostics& diags) {
  const fleet::Fleet& f = ff.fleet;
  const auto runs = runnable_variants(f);
  const auto check = [&](const std::string& key, const std::string& who, std::size_t c,
                         std::optional<units::Time> deadline) {
    if (!deadline || runs[c].empty()) return;
    const auto by_median = [](const VariantRun& a, const VariantRun& b) { return a.median < b.median; };
    const VariantRun& fastest = *std::min_element(runs[c].begin(), runs[c].end(), by_median);
    const VariantRun& slowest = *std::max_element(runs[c].begin(), runs[c].end(), by_median);
    const std::string head =
        who + " (" + f.classes[c].name + "): deadline " + units::format_duration_with_hours(*deadline);
    if (*deadline < fastest.median) {
      diags.warning(scenario::locate(ff.locations, key), key,
                    head + " is shorter than its run, " + units::format_duration_with_hours(fastest.median) +
                        " (the median whole run as " + fastest.label +
                        ", the fastest it runs as): it misses the deadline even if it starts at once",
                    "give it a deadline of at least " + units::format_duration_with_hours(fastest.median) +
                        ", or let the class run on more GPUs (replan: gpu_counts)");
    } else if (*deadline < slowest.median) {
      // It can make the deadline, but not on every variant the scheduler may start it on.
      diags.warning(scenario::locate(ff.locations, key), key,
                    head + " is shorter than its run as " + slowest.label + ", " +
                        units::format_duration_with_hours(slowest.median) + " (the median whole run; as " +
                        fastest.label + " it runs " + units::format_duration_with_hours(fastest.median) +
                        "): a job started as " + slowest.label + " misses the deadline even if it starts at once",
                    "give it a deadline of at least " + units::format_duration_with_hours(slowest.median) +
                        ", or drop that GPU type or count from the class's replan");
    }
  };
  for (std::size_t i = 0; i < f.jobs.size(); ++i)
    check("jobs[" + std::to_string(i) + "].deadline", "job '" + f.jobs[i].name + "'", f.jobs[i].job_class,
          f.jobs[i].deadline);
  if (f.generator)
    for (std::size_t i = 0; i < f.generator->mix.size(); ++i)
      check("generator.mix[" + std::to_string(i) + "].deadline", "generator.mix[" + std::to_string(i) + "]",
            f.generator->mix[i].job_class, f.generator->mix[i].deadline);
}

std::optional<PreparedFleet> prepare_fleet_file(const std::string& path, const io::Catalog& catalog,
                                                const FleetOverrides& overrides, scenario::Diagnostics& diags,
                                                bool* io_error) {
  if (io_error) *io_error = false;
  io::FleetLoadOptions load;
  load.currency = overrides.currency;
  auto ff = io::load_fleet_file(path, catalog, diags, load);
  if (!ff) {
    for (const auto& d : diags.items())
      if (io_error && d.where.file == path && io::is_unreadable_file(d)) *io_error = true;
    return std::nullopt;
  }
  if (overrides.horizon) ff->fleet.horizon = *overrides.horizon;
  if (overrides.seeds > 0) ff->fleet.seeds = overrides.seeds;
  PreparedFleet out;
  if (!plan_fleet(*ff, catalog, diags, out.notes)) return std::nullopt;
  warn_short_deadlines(*ff, diags);
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

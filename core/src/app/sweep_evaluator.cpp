#include "flopcast/app/sweep_evaluator.hpp"

#include <fmt/format.h>

#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/units/assert.hpp"

namespace flopcast::app {
namespace {

/// The output cells, in sweep_output_columns() order.
enum Cell : int {
  kFeasible,
  kWhy,
  kMethod,
  kStep,
  kStepP10,
  kStepP90,
  kMfu,
  kTokensPerS,
  kMemory,
  kDaysP50,
  kDaysP90,
  kDaysBandP10,
  kDaysBandP90,
  kCurrency,
  kCheapest,
  kCostP50,
  kCostP90,
  kCosts,
};

/// First errors of a diagnostics list, on one line.
std::string first_error(const scenario::Diagnostics& d) {
  std::string out;
  for (const auto& x : d.items()) {
    if (x.severity != scenario::Severity::Error) continue;
    if (!out.empty()) out += "; ";
    out += (x.key.empty() ? "" : x.key + ": ") + x.message;
    if (out.size() > 300) break;
  }
  return out;
}

std::string num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

/// The bills' cells: the currency, every plan's P50/P90 total and the cheapest plan's.
void bill_cells(const RunBills& bills, std::string* out) {
  const auto& cmp = bills.comparison;
  out[kCurrency] = cmp.currency.str();
  std::string costs;
  for (const auto& row : cmp.rows) {
    if (!row.p50.ok() || !row.p90.ok()) continue;
    costs += (costs.empty() ? "" : ";") + row.option.id + "=" + num(row.p50.total.major(), 2) + "/" +
             num(row.p90.total.major(), 2);
  }
  out[kCosts] = costs;
  if (cmp.cheapest) {
    const auto& row = cmp.rows[*cmp.cheapest];
    out[kCheapest] = row.option.id;
    out[kCostP50] = num(row.p50.total.major(), 2);
    out[kCostP90] = num(row.p90.total.major(), 2);
  } else if (out[kWhy].empty()) {
    out[kWhy] = "no price plan of the catalog bills this GPU";
  }
}

}  // namespace

const std::vector<sweep::Column>& sweep_output_columns() {
  using sweep::Better;
  using sweep::CellType;
  static const std::vector<sweep::Column> cols = {
      {"feasible", CellType::Boolean, Better::Higher, true},  // a plan that stops fitting is a regression
      {"why", CellType::Text, Better::None, false},
      {"method", CellType::Text, Better::None, true},
      {"step_time_s", CellType::Number, Better::Lower, true},
      // The step at the prediction band's ends (empty when the profile has no band for the GPU).
      {"step_p10_s", CellType::Number, Better::Lower, true},
      {"step_p90_s", CellType::Number, Better::Lower, true},
      {"mfu", CellType::Number, Better::Higher, true},
      {"tokens_per_s", CellType::Number, Better::Higher, true},
      {"memory_gib", CellType::Number, Better::Lower, true},
      {"days_p50", CellType::Number, Better::Lower, true},
      {"days_p90", CellType::Number, Better::Lower, true},
      // The run with the step at the band's P10 / P90, failures at their median (WholeRun::band_p10/p90).
      {"days_band_p10", CellType::Number, Better::Lower, true},
      {"days_band_p90", CellType::Number, Better::Lower, true},
      {"currency", CellType::Text, Better::None, true},
      {"cheapest_plan", CellType::Text, Better::None, true},
      {"cost_p50", CellType::Number, Better::Lower, true},
      {"cost_p90", CellType::Number, Better::Lower, true},
      {"costs", CellType::Text, Better::None, false},
  };
  return cols;
}

namespace {

std::string fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64: offset basis and prime (Fowler, Noll, Vo)
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

/// The swept keys whose value was `auto` and that resolution chose (`used` empty there).
void fill_resolved(const std::vector<std::string>& keys, const parallel::ResolvedSettings& resolved,
                   std::vector<std::string>& used) {
  for (const auto& [key, value] : resolved.chosen)
    for (std::size_t i = 0; i < keys.size() && i < used.size(); ++i)
      if (keys[i] == key && used[i].empty()) used[i] = value;
}

}  // namespace

namespace {

/// The base scenario's content as hashed: one "key\tvalue" line per value (io::SweepSpec::base_values).
std::string base_content(const io::SweepSpec& spec) {
  std::string out;
  for (const auto& [key, value] : spec.base_values) out += key + "\t" + value + "\n";
  return out;
}

}  // namespace

std::string sweep_id(const io::SweepSpec& spec) {
  std::string id_src;
  for (const auto& a : spec.axes)
    for (std::size_t i = 0; i < a.keys.size(); ++i) {
      id_src += a.keys[i] + "=";
      for (const auto& v : a.values) id_src += v[i] + ",";
    }
  id_src += base_content(spec);
  return fnv1a(id_src);
}

sweep::SweepIdentity sweep_identity(const io::SweepSpec& spec) {
  sweep::SweepIdentity id;
  id.id = sweep_id(spec);
  id.scenario_hash = fnv1a(base_content(spec));
  id.flopcast_version = FLOPCAST_VERSION;
  id.points = spec.points();
  for (const auto& a : spec.axes) id.axes.push_back({a.keys, a.values});
  id.base = spec.base_values;
  return id;
}

SweepEvaluator::SweepEvaluator(const io::SweepSpec& spec, const io::Catalog& catalog, std::string data_dir,
                               std::string profile, StepEngine engine)
    : spec_(spec), catalog_(catalog), data_dir_(std::move(data_dir)), profile_(std::move(profile)), engine_(engine) {}

std::vector<sweep::Column> SweepEvaluator::columns() const {
  std::vector<sweep::Column> cols;
  for (const auto& key : spec_.keys()) cols.push_back({key, sweep::CellType::Value, sweep::Better::None, false});
  for (const auto& c : sweep_output_columns()) cols.push_back(c);
  return cols;
}

std::optional<compute::ComputeProfile> SweepEvaluator::profile_for(const std::string& name) {
  if (name.empty()) return catalog_.profile;
  std::lock_guard lk(profiles_mu_);
  auto it = profiles_.find(name);
  if (it == profiles_.end()) {
    scenario::Diagnostics pd;
    it = profiles_.emplace(name, io::load_profile(name, catalog_, pd)).first;
  }
  return it->second;
}

std::vector<std::string> SweepEvaluator::cells(std::int64_t index) {
  const std::size_t nkeys = spec_.keys().size();
  std::vector<std::string> cells(nkeys + sweep_output_columns().size());
  std::vector<std::string> used;
  evaluate(index, used, cells.data() + nkeys);
  FLOPCAST_ASSERT(used.size() == nkeys, "one value per swept key");
  std::move(used.begin(), used.end(), cells.begin());
  return cells;
}

void SweepEvaluator::evaluate(std::int64_t index, std::vector<std::string>& used, std::string* out) {
  out[kMethod] = engine_ == StepEngine::Estimate ? "estimate" : "simulation";
  scenario::Diagnostics d;
  auto s = io::sweep_point_scenario(spec_, index, catalog_, d, &used);
  if (!s) {
    out[kFeasible] = "false";
    out[kWhy] = "invalid: " + first_error(d);
    return;
  }
  const auto prof = profile_for(!profile_.empty() ? profile_ : s->calibration);
  if (!prof) {
    out[kFeasible] = "false";
    out[kWhy] = "invalid: calibration profile '" + s->calibration + "' cannot be loaded";
    return;
  }
  // Open settings (`auto` micro-batch, ZeRO, recompute, ...) are resolved with the profile the
  // point is evaluated with, as `simulate` does; their cells hold the values chosen.
  if (s->open_settings.any()) estimate::resolve_open_settings(*s, *prof);
  fill_resolved(spec_.keys(), s->resolved_settings, used);
  SimReport r = make_report(*s, *prof, engine_);
  r.scenario = &*s;
  out[kStep] = num(r.est.step.seconds(), 6);
  if (r.band.known) {
    const auto [lo, hi] = step_band(r);
    out[kStepP10] = num(lo.seconds(), 6);
    out[kStepP90] = num(hi.seconds(), 6);
  }
  out[kMfu] = num(r.est.mfu, 4);
  out[kTokensPerS] = num(r.est.tokens_per_s, 1);
  out[kMemory] = num(r.est.memory.total().value / 1073741824.0, 2);
  if (!r.fits_memory) {
    out[kFeasible] = "false";
    out[kWhy] =
        fmt::format("needs {:.1f} GiB per GPU, the {} has {:.1f} GiB", r.est.memory.total().value / 1073741824.0,
                    s->cluster.gpu.name, r.est.memory.capacity.value / 1073741824.0);
    return;
  }
  scenario::Diagnostics wd;
  if (!add_whole_run(r, data_dir_, wd)) {
    out[kFeasible] = "false";
    out[kWhy] = "invalid: " + first_error(wd);
    return;
  }
  out[kFeasible] = "true";
  if (r.run && !r.run->ok()) {
    out[kFeasible] = "false";
    out[kWhy] = "whole run: " + r.run->errors.front();
  } else if (r.run) {
    // checkpoint_interval auto / young_daly: the interval the whole run used (whole steps).
    const auto keys = spec_.keys();
    for (std::size_t i = 0; i < keys.size() && i < used.size(); ++i)
      if (keys[i] == "reliability.checkpoint_interval" && used[i].empty())
        used[i] = num(r.run->result.checkpoint_interval.seconds(), 1) + "s";
    out[kDaysP50] = num(r.run->result.wall_p50.days(), 3);
    out[kDaysP90] = num(r.run->result.wall_p90.days(), 3);
    if (r.run->band_p10 && r.run->band_p90) {
      out[kDaysBandP10] = num(r.run->band_p10->wall_p50.days(), 3);
      out[kDaysBandP90] = num(r.run->band_p90->wall_p50.days(), 3);
    }
  }
  if (r.bills) bill_cells(*r.bills, out);
}

}  // namespace flopcast::app

// The pool-size sweep: the smallest size of one pool that keeps a P90 wait (every job's, or one
// class's) under a target, each size's waits per class and money, and whether the target is
// out of the pool's reach because other pools' jobs set the P90.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "fleet_aggregate.hpp"
#include "flopcast/units/assert.hpp"

namespace flopcast::fleet {

const char* to_string(SizeSweepVerdict v) {
  switch (v) {
    case SizeSweepVerdict::Met:
      return "met";
    case SizeSweepVerdict::NotMet:
      return "not_met";
    case SizeSweepVerdict::SetByOtherPools:
      return "set_by_other_pools";
  }
  return "?";
}

namespace {

using detail::SeedRun;

/// A targeted job's wait and class.
struct ClassWait {
  SampleValue wait;
  std::size_t job_class = 0;
};

std::vector<ClassWait> targeted_waits(const std::vector<SeedRun>& runs, const SizeSweepSpec& spec) {
  std::vector<ClassWait> w;
  for (const SeedRun& r : runs)
    for (const JobRecord& j : r.jobs)
      if (!spec.job_class || j.job_class == *spec.job_class) w.push_back(ClassWait{{j.wait, j.censored}, j.job_class});
  return w;
}

/// The fleet at `nodes` nodes of pool `p`, simulated: its summary, the targeted P90 and who sets it.
SizeSweepPoint evaluate(const Fleet& fleet, const FleetOptions& o, const SizeSweepSpec& spec, std::size_t p,
                        std::int64_t nodes, std::vector<SeedRun>* runs_out) {
  Fleet g = fleet;
  g.what_ifs.clear();
  g.pools[p].nodes = nodes;
  std::vector<SeedRun> runs;
  SizeSweepPoint pt;
  pt.nodes = nodes;
  pt.summary = detail::summarise(g, o, nullptr, &runs);
  pt.wait = spec.job_class ? pt.summary.class_wait[*spec.job_class] : pt.summary.wait;
  pt.meets_target = pt.wait.count > 0 && !pt.wait.p90_lower_bound && pt.wait.p90 <= spec.target_p90_wait;
  auto w = targeted_waits(runs, spec);
  if (!w.empty()) {
    // The same order as percentiles_of: the job at the nearest rank of the P90.
    std::sort(w.begin(), w.end(), [](const ClassWait& a, const ClassWait& b) {
      if (a.wait.value != b.wait.value) return a.wait.value < b.wait.value;
      return !a.wait.censored && b.wait.censored;
    });
    const std::size_t k =
        std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(w.size()))), 1, w.size());
    const std::size_t c = w[k - 1].job_class;
    pt.p90_class = g.classes[c].name;
    pt.p90_class_runs_on_pool = class_runs_on_pool(g, c, p);
  }
  if (runs_out) *runs_out = std::move(runs);
  return pt;
}

/// At the largest size: the targeted jobs of classes that never run on the pool and wait longer
/// than the target, per class, as shares of the targeted jobs; and the share the P90 allows.
/// True when they are more than the P90 allows.
bool other_pools_over(const Fleet& fleet, const SizeSweepSpec& spec, std::size_t p, std::int64_t nodes,
                      const std::vector<SeedRun>& runs, SizeSweepResult& out) {
  Fleet g = fleet;
  g.pools[p].nodes = nodes;
  const auto w = targeted_waits(runs, spec);
  if (w.empty()) return false;
  const auto n = static_cast<double>(w.size());
  // P90 <= target iff at least ceil(0.9 n) waits are <= target: at most n - ceil(0.9 n) longer.
  const auto allowed = w.size() - static_cast<std::size_t>(std::ceil(0.9 * n));
  out.allowed_share = static_cast<double>(allowed) / n;
  std::vector<std::size_t> over(fleet.classes.size(), 0);
  std::size_t others = 0;
  for (const ClassWait& x : w)
    if (x.wait.value > spec.target_p90_wait && !class_runs_on_pool(g, x.job_class, p)) {
      ++over[x.job_class];
      ++others;
    }
  for (std::size_t c = 0; c < over.size(); ++c)
    if (over[c] > 0)
      out.other_pools_over.push_back(OverTarget{fleet.classes[c].name, static_cast<double>(over[c]) / n});
  std::stable_sort(out.other_pools_over.begin(), out.other_pools_over.end(),
                   [](const OverTarget& a, const OverTarget& b) { return a.share > b.share; });
  return others > allowed;
}

}  // namespace

SizeSweepResult sweep_pool_size(const Fleet& fleet, const SizeSweepSpec& spec, const FleetOptions& options) {
  FLOPCAST_ASSERT(validate_fleet(fleet).empty(), "sweep_pool_size needs a valid fleet");
  const auto it =
      std::find_if(fleet.pools.begin(), fleet.pools.end(), [&](const Pool& p) { return p.name == spec.pool; });
  FLOPCAST_ASSERT(it != fleet.pools.end(), "sweep_pool_size: unknown pool");
  FLOPCAST_ASSERT(!spec.job_class || *spec.job_class < fleet.classes.size(), "sweep_pool_size: unknown class");
  const auto p = static_cast<std::size_t>(it - fleet.pools.begin());
  SizeSweepResult out;
  out.pool = spec.pool;
  out.today_nodes = it->nodes;
  out.target_p90_wait = spec.target_p90_wait;
  out.job_class = spec.job_class;
  for (const JobClass& c : fleet.classes) out.classes.push_back(c.name);
  FleetOptions o = options;
  o.what_ifs = false;
  std::int64_t lo = std::max<std::int64_t>(1, spec.min_nodes);
  std::int64_t hi = spec.max_nodes > 0 ? spec.max_nodes : 4 * it->nodes;
  hi = std::max(hi, lo);
  std::map<std::int64_t, SizeSweepPoint> tried;
  const auto meets = [&](std::int64_t nodes) {
    auto found = tried.find(nodes);
    if (found == tried.end()) found = tried.emplace(nodes, evaluate(fleet, o, spec, p, nodes, nullptr)).first;
    return found->second.meets_target;
  };
  meets(out.today_nodes);
  std::vector<SeedRun> largest;
  tried.insert_or_assign(hi, evaluate(fleet, o, spec, p, hi, &largest));
  const bool set_by_others = other_pools_over(fleet, spec, p, hi, largest, out);
  largest.clear();
  if (meets(hi)) {
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (meets(mid))
        hi = mid;
      else
        lo = mid + 1;
    }
    out.nodes = hi;
    out.verdict = SizeSweepVerdict::Met;
  } else {
    out.verdict = set_by_others ? SizeSweepVerdict::SetByOtherPools : SizeSweepVerdict::NotMet;
  }
  for (auto& [n, pt] : tried) out.tried.push_back(std::move(pt));
  return out;
}

}  // namespace flopcast::fleet

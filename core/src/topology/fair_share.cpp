#include "flopcast/topology/fair_share.hpp"

#include <algorithm>
#include <limits>

#include "flopcast/units/assert.hpp"

namespace flopcast {

FairShare max_min_fair_share(std::span<const NetworkFlow> flows, std::span<const Bandwidth> capacity) {
  const std::size_t n_links = capacity.size();
  FairShare out;
  out.rate.assign(flows.size(), Bandwidth{0.0});
  out.link_load.assign(n_links, Bandwidth{0.0});
  if (flows.empty()) return out;

  // Compact the problem to the links that some flow uses, with summed weights per flow.
  std::vector<std::int32_t> local_of(n_links, -1);
  std::vector<std::int32_t> used_links;
  std::vector<std::vector<std::pair<std::int32_t, double>>> flow_uses(flows.size());
  for (std::size_t f = 0; f < flows.size(); ++f) {
    FLOPCAST_ASSERT(!flows[f].uses.empty(), "a flow must cross at least one link");
    auto& fu = flow_uses[f];
    for (const LinkUse& u : flows[f].uses) {
      FLOPCAST_ASSERT(u.link >= 0 && static_cast<std::size_t>(u.link) < n_links, "link index out of range");
      FLOPCAST_ASSERT(u.weight > 0.0, "link weight must be positive");
      std::int32_t& l = local_of[static_cast<std::size_t>(u.link)];
      if (l < 0) {
        l = static_cast<std::int32_t>(used_links.size());
        used_links.push_back(u.link);
      }
      auto it = std::find_if(fu.begin(), fu.end(), [&](const auto& p) { return p.first == l; });
      if (it == fu.end()) fu.emplace_back(l, u.weight);
      else it->second += u.weight;
    }
  }

  const std::size_t m = used_links.size();
  std::vector<double> remaining(m);
  std::vector<double> active_weight(m, 0.0);   // sum of weights of unfrozen flows per link
  std::vector<std::int32_t> active_count(m, 0);  // unfrozen flows per link (exact zero test)
  std::vector<std::vector<std::int32_t>> flows_on(m);
  for (std::size_t l = 0; l < m; ++l) remaining[l] = capacity[static_cast<std::size_t>(used_links[l])].bytes_per_s;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    for (const auto& [l, w] : flow_uses[f]) {
      active_weight[static_cast<std::size_t>(l)] += w;
      ++active_count[static_cast<std::size_t>(l)];
      flows_on[static_cast<std::size_t>(l)].push_back(static_cast<std::int32_t>(f));
    }
  }

  std::vector<double> rate(flows.size(), 0.0);
  std::vector<char> frozen(flows.size(), 0);
  std::size_t unfrozen = flows.size();
  // A link whose remaining capacity is below this fraction of its capacity counts as full.
  constexpr double kFullTolerance = 1e-12;
  while (unfrozen > 0) {
    double step = std::numeric_limits<double>::infinity();
    for (std::size_t l = 0; l < m; ++l) {
      if (active_weight[l] > 0.0) step = std::min(step, std::max(remaining[l], 0.0) / active_weight[l]);
    }
    FLOPCAST_ASSERT(step < std::numeric_limits<double>::infinity(), "unfrozen flow on no link");
    for (std::size_t f = 0; f < flows.size(); ++f) {
      if (!frozen[f]) rate[f] += step;
    }
    for (std::size_t l = 0; l < m; ++l) remaining[l] -= step * active_weight[l];
    for (std::size_t l = 0; l < m; ++l) {
      const double cap = capacity[static_cast<std::size_t>(used_links[l])].bytes_per_s;
      if (active_weight[l] <= 0.0 || remaining[l] > kFullTolerance * cap) continue;
      for (std::int32_t f : flows_on[l]) {
        const auto fi = static_cast<std::size_t>(f);
        if (frozen[fi]) continue;
        frozen[fi] = 1;
        --unfrozen;
        for (const auto& [l2, w] : flow_uses[fi]) {
          const auto li = static_cast<std::size_t>(l2);
          active_weight[li] -= w;
          if (--active_count[li] == 0) active_weight[li] = 0.0;
        }
      }
    }
  }

  for (std::size_t f = 0; f < flows.size(); ++f) {
    out.rate[f] = Bandwidth{rate[f]};
    for (const auto& [l, w] : flow_uses[f]) {
      out.link_load[static_cast<std::size_t>(used_links[static_cast<std::size_t>(l)])].bytes_per_s += w * rate[f];
    }
  }
  return out;
}

}  // namespace flopcast

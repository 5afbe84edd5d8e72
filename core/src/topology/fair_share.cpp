#include "flopcast/topology/fair_share.hpp"

#include <algorithm>
#include <limits>

#include "flopcast/units/assert.hpp"

namespace flopcast {

namespace {

// Progressive filling over flows given as rows of `uses` (row f: uses[start[f]] ..
// uses[start[f + 1] - 1]). Every sum and comparison is made in the same order as the
// straightforward form (one std::vector per flow and per link), so results are identical;
// what changes is the bookkeeping: rows and per-link flow lists are flat arrays of 32-bit
// indices, buffers are sized once, and each round visits only the links that still carry an
// unfrozen flow. Memory is what costs here: a 16,384-GPU problem has ~10^5 links and uses.
//
// The result is compact: rates per flow, and the load of each link some flow uses
// (`used_links[i]` carries `load[i]`), summed over flows in flow order.
struct Solution {
  std::vector<double> rate;
  std::vector<std::int32_t> used_links;
  std::vector<double> load;
};

// The working arrays of solve(), kept from one problem to the next by a caller that solves many
// (network_share() asks for thousands of problems of 10^5 entries: fresh arrays of that size are
// fresh pages, and zeroing them dominated).
struct SolveScratch {
  std::vector<std::int32_t> mark, row, link, active_count, on_start, flows_on;
  std::vector<double> weight, remaining, active_weight;
  std::vector<char> frozen;
};

// `local_of` is scratch of one int32 per link (10^5 on a large cluster), -1 everywhere on
// entry and on return, so that several problems over the same links can share it. The result
// goes to `out` (its arrays reused).
void solve(std::span<const std::size_t> start, std::span<const LinkUse> uses, std::span<const Bandwidth> capacity,
           std::vector<std::int32_t>& local_of, SolveScratch& w, Solution& out) {
  const std::size_t n_links = capacity.size();
  const std::size_t nf = start.size() - 1;
  out.rate.clear();
  out.used_links.clear();
  out.load.clear();
  if (nf == 0) return;
  const std::size_t n_uses = start[nf] - start[0];
  FLOPCAST_ASSERT(n_uses < static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()),
                  "too many link uses for 32-bit indices");

  // Compact the problem to the links that some flow uses (local ids in order of first use),
  // with summed weights per flow (entries in order of first use within the flow).
  std::vector<std::int32_t>& used_links = out.used_links;
  std::vector<std::int32_t>& mark = w.mark;  // per local link: its entry in the latest flow that uses it
  mark.clear();
  used_links.reserve(std::min(n_links, n_uses));
  mark.reserve(std::min(n_links, n_uses));
  std::vector<std::int32_t>& row = w.row;  // flow f's entries: row[f] .. row[f + 1] - 1
  row.assign(nf + 1, 0);
  std::vector<std::int32_t>& link = w.link;
  std::vector<double>& weight = w.weight;
  link.clear();
  weight.clear();
  link.reserve(n_uses);
  weight.reserve(n_uses);
  {
    if (local_of.size() != n_links) local_of.assign(n_links, -1);
    for (std::size_t f = 0; f < nf; ++f) {
      FLOPCAST_ASSERT(start[f + 1] > start[f], "a flow must cross at least one link");
      const auto first = static_cast<std::int32_t>(link.size());
      row[f] = first;
      for (std::size_t k = start[f]; k < start[f + 1]; ++k) {
        const LinkUse& u = uses[k];
        FLOPCAST_ASSERT(u.link >= 0 && static_cast<std::size_t>(u.link) < n_links, "link index out of range");
        FLOPCAST_ASSERT(u.weight > 0.0, "link weight must be positive");
        std::int32_t& l = local_of[static_cast<std::size_t>(u.link)];
        if (l < 0) {
          l = static_cast<std::int32_t>(used_links.size());
          used_links.push_back(u.link);
          mark.push_back(-1);
        }
        std::int32_t& entry = mark[static_cast<std::size_t>(l)];
        if (entry >= first) {
          weight[static_cast<std::size_t>(entry)] += u.weight;  // the flow crosses the link again
        } else {
          entry = static_cast<std::int32_t>(link.size());
          link.push_back(l);
          weight.push_back(u.weight);
        }
      }
    }
    row[nf] = static_cast<std::int32_t>(link.size());
    for (const std::int32_t l : used_links) local_of[static_cast<std::size_t>(l)] = -1;
  }

  const std::size_t m = used_links.size();
  const std::size_t n_entries = link.size();
  std::vector<double>& remaining = w.remaining;
  remaining.assign(m, 0.0);
  std::vector<double>& active_weight = w.active_weight;  // sum of weights of unfrozen flows per link
  active_weight.assign(m, 0.0);
  std::vector<std::int32_t>& active_count = w.active_count;  // unfrozen flows per link (exact zero test)
  active_count.assign(m, 0);
  for (std::size_t l = 0; l < m; ++l) remaining[l] = capacity[static_cast<std::size_t>(used_links[l])].bytes_per_s;
  // Flows on each link, in increasing flow order: flows_on[on_start[l]] .. flows_on[on_start[l + 1] - 1].
  std::vector<std::int32_t>& on_start = w.on_start;
  on_start.assign(m + 1, 0);
  for (std::size_t k = 0; k < n_entries; ++k) {
    const auto l = static_cast<std::size_t>(link[k]);
    active_weight[l] += weight[k];
    ++active_count[l];
    ++on_start[l + 1];
  }
  for (std::size_t l = 0; l < m; ++l) on_start[l + 1] += on_start[l];
  std::vector<std::int32_t>& flows_on = w.flows_on;
  flows_on.assign(n_entries, 0);
  std::copy(on_start.begin(), on_start.end() - 1, mark.begin());  // mark becomes the fill cursor
  for (std::size_t f = 0; f < nf; ++f) {
    for (auto k = static_cast<std::size_t>(row[f]); k < static_cast<std::size_t>(row[f + 1]); ++k)
      flows_on[static_cast<std::size_t>(mark[static_cast<std::size_t>(link[k])]++)] = static_cast<std::int32_t>(f);
  }

  // Links that still carry an unfrozen flow, in increasing order. A link off this list has
  // active weight exactly 0: the straightforward form skips it in every test, and subtracting
  // step x 0 leaves its remaining capacity as it is.
  std::vector<std::int32_t>& live = mark;
  for (std::size_t l = 0; l < m; ++l) live[l] = static_cast<std::int32_t>(l);

  std::vector<double>& rate = out.rate;
  rate.assign(nf, 0.0);
  std::vector<char>& frozen = w.frozen;
  frozen.assign(nf, 0);
  std::size_t unfrozen = nf;
  // A link whose remaining capacity is below this fraction of its capacity counts as full.
  constexpr double kFullTolerance = 1e-12;
  // Every unfrozen flow has grown by the same steps, in the same order, from 0: its rate is
  // this running sum (bit for bit), so a flow's rate is set once, when it freezes.
  double level = 0.0;
  while (unfrozen > 0) {
    double step = std::numeric_limits<double>::infinity();
    for (const std::int32_t l : live) {
      const auto li = static_cast<std::size_t>(l);
      if (active_weight[li] > 0.0) step = std::min(step, std::max(remaining[li], 0.0) / active_weight[li]);
    }
    FLOPCAST_ASSERT(step < std::numeric_limits<double>::infinity(), "unfrozen flow on no link");
    level += step;
    for (const std::int32_t l : live) {
      const auto li = static_cast<std::size_t>(l);
      remaining[li] -= step * active_weight[li];
    }
    for (const std::int32_t l : live) {
      const auto li = static_cast<std::size_t>(l);
      const double cap = capacity[static_cast<std::size_t>(used_links[li])].bytes_per_s;
      if (active_weight[li] <= 0.0 || remaining[li] > kFullTolerance * cap) continue;
      for (auto j = static_cast<std::size_t>(on_start[li]); j < static_cast<std::size_t>(on_start[li + 1]); ++j) {
        const auto fi = static_cast<std::size_t>(flows_on[j]);
        if (frozen[fi]) continue;
        frozen[fi] = 1;
        rate[fi] = level;
        --unfrozen;
        for (auto k = static_cast<std::size_t>(row[fi]); k < static_cast<std::size_t>(row[fi + 1]); ++k) {
          const auto l2 = static_cast<std::size_t>(link[k]);
          active_weight[l2] -= weight[k];
          if (--active_count[l2] == 0) active_weight[l2] = 0.0;
        }
      }
    }
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](std::int32_t l) { return active_count[static_cast<std::size_t>(l)] == 0; }),
               live.end());
  }

  // Link loads, summed in flow order.
  std::vector<double>& load = out.load;
  load.assign(m, 0.0);
  for (std::size_t f = 0; f < nf; ++f) {
    for (auto k = static_cast<std::size_t>(row[f]); k < static_cast<std::size_t>(row[f + 1]); ++k)
      load[static_cast<std::size_t>(link[k])] += weight[k] * rate[f];
  }
}

FairShare expand(const Solution& s, std::size_t n_flows, std::size_t n_links) {
  FairShare out;
  out.rate.assign(n_flows, Bandwidth{0.0});
  out.link_load.assign(n_links, Bandwidth{0.0});
  for (std::size_t f = 0; f < s.rate.size(); ++f) out.rate[f] = Bandwidth{s.rate[f]};
  for (std::size_t i = 0; i < s.used_links.size(); ++i)
    out.link_load[static_cast<std::size_t>(s.used_links[i])] = Bandwidth{s.load[i]};
  return out;
}

std::span<const std::size_t> rows_of(const FlowTable& flows, std::size_t first, std::size_t last) {
  FLOPCAST_ASSERT(first <= last && last <= flows.size(), "flow range out of the table");
  return std::span<const std::size_t>(flows.start).subspan(first, last - first + 1);
}

}  // namespace

FairShare max_min_fair_share(std::span<const NetworkFlow> flows, std::span<const Bandwidth> capacity) {
  FlowTable t;
  t.start.reserve(flows.size() + 1);
  for (const NetworkFlow& f : flows) {
    t.uses.insert(t.uses.end(), f.uses.begin(), f.uses.end());
    t.end_flow();
  }
  return max_min_fair_share(t, capacity);
}

FairShare max_min_fair_share(const FlowTable& flows, std::size_t first, std::size_t last,
                             std::span<const Bandwidth> capacity) {
  std::vector<std::int32_t> local_of;
  SolveScratch w;
  Solution s;
  solve(rows_of(flows, first, last), flows.uses, capacity, local_of, w, s);
  return expand(s, last - first, capacity.size());
}

FairShare max_min_fair_share(const FlowTable& flows, std::span<const Bandwidth> capacity) {
  return max_min_fair_share(flows, 0, flows.size(), capacity);
}

std::vector<FairRates> max_min_fair_rates(const FlowTable& flows, std::span<const FlowRange> problems,
                                          std::span<const Bandwidth> capacity) {
  std::vector<FairRates> out;
  // Per thread: the planner's workers solve thousands of problems each.
  thread_local std::vector<std::int32_t> local_of;
  thread_local SolveScratch w;
  thread_local Solution s;
  for (const FlowRange& p : problems) {
    solve(rows_of(flows, p.first, p.last), flows.uses, capacity, local_of, w, s);
    FairRates& r = out.emplace_back();
    r.rate.reserve(s.rate.size());
    for (double x : s.rate) r.rate.push_back(Bandwidth{x});
    for (double l : s.load) r.worst_link_load = std::max(r.worst_link_load, Bandwidth{l});
  }
  return out;
}

FairRates max_min_fair_rates(const FlowTable& flows, std::size_t first, std::size_t last,
                             std::span<const Bandwidth> capacity) {
  const FlowRange one{first, last};
  return std::move(max_min_fair_rates(flows, std::span<const FlowRange>(&one, 1), capacity).front());
}

}  // namespace flopcast

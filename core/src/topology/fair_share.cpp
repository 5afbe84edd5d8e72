#include "flopcast/topology/fair_share.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "flopcast/units/assert.hpp"

namespace flopcast::topology {

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
  std::vector<std::int32_t> mark, active_count, on_start, flows_on;
  std::vector<double> remaining, active_weight;
  std::vector<char> frozen;
};

// A problem compacted to the links some flow uses: local link ids in order of first use
// (`used_links[l]` is local link l's id in the capacity array), each flow's entries in order
// of first use within the flow with the weights of repeated links summed.
struct Compact {
  std::vector<std::int32_t> used_links;
  std::vector<std::int32_t> row;  // flow f's entries: row[f] .. row[f + 1] - 1
  std::vector<std::int32_t> link;
  std::vector<double> weight;
  std::size_t flows() const { return row.empty() ? 0 : row.size() - 1; }
};

// The root of link x's set in a union-find forest (path halving).
std::int32_t find_root(std::vector<std::int32_t>& parent, std::int32_t x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    x = parent[static_cast<std::size_t>(x)];
  }
  return x;
}

// `local_of` is scratch of one int32 per link (10^5 on a large cluster), -1 everywhere on
// entry and on return, so that several problems over the same links can share it. `mark` is
// scratch. `parent` (optional) receives a union-find forest over the local links in which
// links some flow crosses together have one root, the smallest id of their set: the
// problem's connected components, found in the same pass.
void compact(std::span<const std::size_t> start, std::span<const LinkUse> uses, std::size_t n_links,
             std::vector<std::int32_t>& local_of, std::vector<std::int32_t>& mark, Compact& c,
             std::vector<std::int32_t>* parent) {
  if (parent) parent->clear();
  const std::size_t nf = start.size() - 1;
  const std::size_t n_uses = start[nf] - start[0];
  FLOPCAST_ASSERT(n_uses < static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()),
                  "too many link uses for 32-bit indices");
  std::vector<std::int32_t>& used_links = c.used_links;
  used_links.clear();
  mark.clear();  // per local link: its entry in the latest flow that uses it
  used_links.reserve(std::min(n_links, n_uses));
  mark.reserve(std::min(n_links, n_uses));
  std::vector<std::int32_t>& row = c.row;
  row.assign(nf + 1, 0);
  std::vector<std::int32_t>& link = c.link;
  std::vector<double>& weight = c.weight;
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
      std::int32_t root = -1;  // the root of the links this flow crossed so far
      for (std::size_t k = start[f]; k < start[f + 1]; ++k) {
        const LinkUse& u = uses[k];
        FLOPCAST_ASSERT(u.link >= 0 && static_cast<std::size_t>(u.link) < n_links, "link index out of range");
        FLOPCAST_ASSERT(u.weight > 0.0, "link weight must be positive");
        std::int32_t& l = local_of[static_cast<std::size_t>(u.link)];
        if (l < 0) {
          l = static_cast<std::int32_t>(used_links.size());
          used_links.push_back(u.link);
          mark.push_back(-1);
          if (parent) {
            parent->push_back(root < 0 ? l : root);  // a new link is larger than any root
            if (root < 0) root = l;
          }
        } else if (parent) {
          const std::int32_t r = find_root(*parent, l);
          if (root < 0) {
            root = r;
          } else if (r != root) {
            (*parent)[static_cast<std::size_t>(std::max(r, root))] = std::min(r, root);
            root = std::min(r, root);
          }
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
}

// Progressive filling of a compacted problem: `rate` per flow, `load` per local link.
void fill(const Compact& c, std::span<const units::Bandwidth> capacity, SolveScratch& w, std::vector<double>& rate,
          std::vector<double>& load) {
  const std::vector<std::int32_t>& used_links = c.used_links;
  const std::vector<std::int32_t>& row = c.row;
  const std::vector<std::int32_t>& link = c.link;
  const std::vector<double>& weight = c.weight;
  const std::size_t nf = c.flows();
  const std::size_t m = used_links.size();
  const std::size_t n_entries = link.size();
  std::vector<std::int32_t>& mark = w.mark;
  mark.resize(m);
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
  load.assign(m, 0.0);
  for (std::size_t f = 0; f < nf; ++f) {
    for (auto k = static_cast<std::size_t>(row[f]); k < static_cast<std::size_t>(row[f + 1]); ++k)
      load[static_cast<std::size_t>(link[k])] += weight[k] * rate[f];
  }
}

// The problem split into its connected components (flows that share a link, transitively),
// and the components grouped into classes of exact copies: the same flows in the same order,
// each with the same entries, where the links match one to one in order of first use and carry
// the same capacities. Every copy of a component behaves like it bit for bit: progressive
// filling reads a link's state only through its own flows, in their order, and the global step
// is a minimum, which copies do not change. So only one component per class is filled; a
// cluster's concurrent groups are mostly copies of each other (per rail, per leaf).
struct Decomposition {
  std::vector<std::int32_t> parent;        // union-find over local links (compact())
  std::vector<std::int32_t> comp_of_root;  // per root link: its component, or -1
  std::vector<std::int32_t> comp_of_flow;
  std::vector<std::int32_t> comp_start;  // component c's flows: flows_of[comp_start[c] .. comp_start[c + 1] - 1]
  std::vector<std::int32_t> flows_of;
  std::vector<std::int32_t> canon;  // per local link: its number within its component, in order of first use
  std::vector<std::int32_t> rep;    // per component: the component of its class that is filled
  std::vector<std::int32_t> reps;   // the filled components, in order
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> by_size;  // (flows, entries) -> filled components
  // The smaller problem: the filled components' flows, in order.
  Compact reduced;
  std::vector<std::int32_t> reduced_flow;  // per flow of a filled component: its flow in `reduced`
  std::vector<std::int32_t> reduced_of;    // per local link: its link in `reduced`, or -1 (-1 between calls)
  std::vector<std::int32_t> filled_links;  // per link of `reduced`: its local link
  std::vector<std::int32_t> canon_start, link_by_canon;  // per (filled component, canon): the link in `reduced`
  std::vector<double> rate, load;                        // of `reduced`
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Numbers the links of component `c` in order of first use (canon) and returns true, or, when
// `like` >= 0, checks as it goes that `c` is an exact copy of component `like` (numbered
// already); on a mismatch its numbering is undone and it returns false.
bool number_component(const Compact& p, std::span<const units::Bandwidth> capacity, Decomposition& d, std::int32_t c,
                      std::int32_t like) {
  const auto cs = static_cast<std::size_t>(c);
  const std::int32_t n_flows = d.comp_start[cs + 1] - d.comp_start[cs];
  std::int32_t next = 0;
  bool same = true;
  std::int32_t i = 0;
  for (; same && i < n_flows; ++i) {
    const auto f = static_cast<std::size_t>(d.flows_of[static_cast<std::size_t>(d.comp_start[cs] + i)]);
    const auto b = static_cast<std::size_t>(p.row[f]), e = static_cast<std::size_t>(p.row[f + 1]);
    std::size_t bl = 0;
    if (like >= 0) {
      const auto g = static_cast<std::size_t>(
          d.flows_of[static_cast<std::size_t>(d.comp_start[static_cast<std::size_t>(like)] + i)]);
      bl = static_cast<std::size_t>(p.row[g]);
      if (p.row[g + 1] - p.row[g] != p.row[f + 1] - p.row[f]) {
        same = false;
        break;
      }
    }
    for (std::size_t k = b; k < e; ++k) {
      const auto l = static_cast<std::size_t>(p.link[k]);
      if (d.canon[l] < 0) d.canon[l] = next++;
      if (like < 0) continue;
      const std::size_t kl = bl + (k - b);
      const auto ll = static_cast<std::size_t>(p.link[kl]);
      if (d.canon[l] != d.canon[ll] || !same_bits(p.weight[k], p.weight[kl]) ||
          !same_bits(capacity[static_cast<std::size_t>(p.used_links[l])].bytes_per_s,
                     capacity[static_cast<std::size_t>(p.used_links[ll])].bytes_per_s)) {
        same = false;
        break;
      }
    }
  }
  if (same) return true;
  // Undo: the links numbered are on flows 0 .. i of the component.
  for (std::int32_t j = 0; j <= i && j < n_flows; ++j) {
    const auto f = static_cast<std::size_t>(d.flows_of[static_cast<std::size_t>(d.comp_start[cs] + j)]);
    for (auto k = static_cast<std::size_t>(p.row[f]); k < static_cast<std::size_t>(p.row[f + 1]); ++k)
      d.canon[static_cast<std::size_t>(p.link[k])] = -1;
  }
  return false;
}

// Splits `p` into components and classes (d.rep, d.reps). Returns false when no two components
// are copies (nothing to save).
bool decompose(const Compact& p, std::span<const units::Bandwidth> capacity, Decomposition& d) {
  const std::size_t nf = p.flows();
  const std::size_t m = p.used_links.size();
  FLOPCAST_ASSERT(d.parent.size() == m, "decompose() needs compact()'s union-find forest");
  // Components in order of their first flow.
  d.comp_of_root.assign(m, -1);
  d.comp_of_flow.resize(nf);
  std::int32_t n_comps = 0;
  for (std::size_t f = 0; f < nf; ++f) {
    std::int32_t& c =
        d.comp_of_root[static_cast<std::size_t>(find_root(d.parent, p.link[static_cast<std::size_t>(p.row[f])]))];
    if (c < 0) c = n_comps++;
    d.comp_of_flow[f] = c;
  }
  if (n_comps < 2) return false;
  const auto nc = static_cast<std::size_t>(n_comps);
  d.comp_start.assign(nc + 1, 0);
  for (std::size_t f = 0; f < nf; ++f) ++d.comp_start[static_cast<std::size_t>(d.comp_of_flow[f]) + 1];
  for (std::size_t c = 0; c < nc; ++c) d.comp_start[c + 1] += d.comp_start[c];
  d.flows_of.resize(nf);
  {
    std::vector<std::int32_t>& cursor = d.rep;  // scratch until the classes are found
    cursor.assign(d.comp_start.begin(), d.comp_start.end() - 1);
    for (std::size_t f = 0; f < nf; ++f)
      d.flows_of[static_cast<std::size_t>(cursor[static_cast<std::size_t>(d.comp_of_flow[f])]++)] =
          static_cast<std::int32_t>(f);
  }
  // Classes: a component is compared with the filled components of its size (a few at most;
  // past that it is filled itself, which is only slower, never wrong).
  constexpr std::size_t kMaxTries = 4;
  d.canon.assign(m, -1);
  d.rep.assign(nc, -1);
  d.reps.clear();
  d.by_size.clear();
  for (std::int32_t c = 0; c < n_comps; ++c) {
    const auto cs = static_cast<std::size_t>(c);
    std::uint64_t entries = 0;
    for (std::int32_t i = d.comp_start[cs]; i < d.comp_start[cs + 1]; ++i) {
      const auto f = static_cast<std::size_t>(d.flows_of[static_cast<std::size_t>(i)]);
      entries += static_cast<std::uint64_t>(p.row[f + 1] - p.row[f]);
    }
    const std::uint64_t size = (static_cast<std::uint64_t>(d.comp_start[cs + 1] - d.comp_start[cs]) << 32) ^ entries;
    std::vector<std::int32_t>& same_size = d.by_size[size];
    for (std::size_t t = 0; t < same_size.size() && t < kMaxTries && d.rep[cs] < 0; ++t)
      if (number_component(p, capacity, d, c, same_size[t])) d.rep[cs] = same_size[t];
    if (d.rep[cs] >= 0) continue;
    number_component(p, capacity, d, c, -1);
    d.rep[cs] = c;
    d.reps.push_back(c);
    same_size.push_back(c);
  }
  return d.reps.size() < nc;
}

// Fills `p` through its classes: the filled components' flows (in their order) make a smaller
// problem, whose rates (and loads) the copies take over: bit for bit what fill(p) gives. With
// `loads` false, `load` is the smaller problem's: every link's load is among them (for their
// maximum).
void fill_by_class(const Compact& p, std::span<const units::Bandwidth> capacity, Decomposition& d, SolveScratch& w,
                   bool loads, std::vector<double>& rate, std::vector<double>& load) {
  const std::size_t nf = p.flows();
  const std::size_t m = p.used_links.size();
  Compact& r = d.reduced;
  r.used_links.clear();
  r.row.clear();
  r.link.clear();
  r.weight.clear();
  d.filled_links.clear();
  d.reduced_flow.resize(nf);
  if (d.reduced_of.size() < m) d.reduced_of.resize(m, -1);
  for (std::size_t f = 0; f < nf; ++f) {
    const std::int32_t c = d.comp_of_flow[f];
    if (d.rep[static_cast<std::size_t>(c)] != c) continue;
    d.reduced_flow[f] = static_cast<std::int32_t>(r.row.size());
    r.row.push_back(static_cast<std::int32_t>(r.link.size()));
    for (auto k = static_cast<std::size_t>(p.row[f]); k < static_cast<std::size_t>(p.row[f + 1]); ++k) {
      const auto pl = static_cast<std::size_t>(p.link[k]);
      std::int32_t& l = d.reduced_of[pl];
      if (l < 0) {
        l = static_cast<std::int32_t>(r.used_links.size());
        r.used_links.push_back(p.used_links[pl]);
        d.filled_links.push_back(static_cast<std::int32_t>(pl));
      }
      r.link.push_back(l);
      r.weight.push_back(p.weight[k]);
    }
  }
  r.row.push_back(static_cast<std::int32_t>(r.link.size()));
  fill(r, capacity, w, d.rate, d.load);
  for (const std::int32_t pl : d.filled_links) d.reduced_of[static_cast<std::size_t>(pl)] = -1;

  // A copy's flow i is its class's flow i.
  rate.resize(nf);
  for (std::size_t c = 0; c + 1 < d.comp_start.size(); ++c) {
    const auto rc = static_cast<std::size_t>(d.rep[c]);
    for (std::int32_t i = 0; i < d.comp_start[c + 1] - d.comp_start[c]; ++i) {
      const auto f = static_cast<std::size_t>(d.flows_of[static_cast<std::size_t>(d.comp_start[c] + i)]);
      const auto g = static_cast<std::size_t>(d.flows_of[static_cast<std::size_t>(d.comp_start[rc] + i)]);
      rate[f] = d.rate[static_cast<std::size_t>(d.reduced_flow[g])];
    }
  }
  if (!loads) {
    load.swap(d.load);
    return;
  }
  // A copy's link numbered j (canon) is its class's link j: the filled components' links by
  // (component, canon), each component's from canon_start[c].
  auto comp_of_link = [&](std::size_t l) {
    return static_cast<std::size_t>(
        d.comp_of_root[static_cast<std::size_t>(find_root(d.parent, static_cast<std::int32_t>(l)))]);
  };
  d.canon_start.assign(d.comp_start.size(), 0);
  for (const std::int32_t pl : d.filled_links) ++d.canon_start[comp_of_link(static_cast<std::size_t>(pl)) + 1];
  for (std::size_t c = 0; c + 1 < d.canon_start.size(); ++c) d.canon_start[c + 1] += d.canon_start[c];
  d.link_by_canon.resize(d.filled_links.size());
  for (std::size_t j = 0; j < d.filled_links.size(); ++j) {
    const auto pl = static_cast<std::size_t>(d.filled_links[j]);
    d.link_by_canon[static_cast<std::size_t>(d.canon_start[comp_of_link(pl)] + d.canon[pl])] =
        static_cast<std::int32_t>(j);
  }
  load.resize(m);
  for (std::size_t l = 0; l < m; ++l) {
    const auto rc = static_cast<std::size_t>(d.rep[comp_of_link(l)]);
    load[l] =
        d.load[static_cast<std::size_t>(d.link_by_canon[static_cast<std::size_t>(d.canon_start[rc] + d.canon[l])])];
  }
}

// Solves the flows `start` over `uses` into `out` (its arrays reused). `local_of`: one int32 per
// link, -1 everywhere on entry and on return (compact()). With `loads` false, out.used_links is
// not set and out.load holds every link's load at least once, for their maximum (fill_by_class).
void solve(std::span<const std::size_t> start, std::span<const LinkUse> uses,
           std::span<const units::Bandwidth> capacity, bool loads, std::vector<std::int32_t>& local_of, SolveScratch& w,
           Compact& p, Decomposition& d, Solution& out) {
  out.rate.clear();
  out.used_links.clear();
  out.load.clear();
  if (start.size() < 2) return;
  compact(start, uses, capacity.size(), local_of, w.mark, p, &d.parent);
  if (decompose(p, capacity, d))
    fill_by_class(p, capacity, d, w, loads, out.rate, out.load);
  else
    fill(p, capacity, w, out.rate, out.load);
  if (loads) out.used_links.swap(p.used_links);
}

FairShare expand(const Solution& s, std::size_t n_flows, std::size_t n_links) {
  FairShare out;
  out.rate.assign(n_flows, units::Bandwidth{0.0});
  out.link_load.assign(n_links, units::Bandwidth{0.0});
  for (std::size_t f = 0; f < s.rate.size(); ++f) out.rate[f] = units::Bandwidth{s.rate[f]};
  for (std::size_t i = 0; i < s.used_links.size(); ++i)
    out.link_load[static_cast<std::size_t>(s.used_links[i])] = units::Bandwidth{s.load[i]};
  return out;
}

std::span<const std::size_t> rows_of(const FlowTable& flows, std::size_t first, std::size_t last) {
  FLOPCAST_ASSERT(first <= last && last <= flows.size(), "flow range out of the table");
  return std::span<const std::size_t>(flows.start).subspan(first, last - first + 1);
}

}  // namespace

FairShare max_min_fair_share(std::span<const NetworkFlow> flows, std::span<const units::Bandwidth> capacity) {
  FlowTable t;
  t.start.reserve(flows.size() + 1);
  for (const NetworkFlow& f : flows) {
    t.uses.insert(t.uses.end(), f.uses.begin(), f.uses.end());
    t.end_flow();
  }
  return max_min_fair_share(t, capacity);
}

FairShare max_min_fair_share(const FlowTable& flows, std::size_t first, std::size_t last,
                             std::span<const units::Bandwidth> capacity) {
  std::vector<std::int32_t> local_of;
  SolveScratch w;
  Compact p;
  Decomposition d;
  Solution s;
  solve(rows_of(flows, first, last), flows.uses, capacity, true, local_of, w, p, d, s);
  return expand(s, last - first, capacity.size());
}

FairShare max_min_fair_share(const FlowTable& flows, std::span<const units::Bandwidth> capacity) {
  return max_min_fair_share(flows, 0, flows.size(), capacity);
}

std::vector<FairRates> max_min_fair_rates(const FlowTable& flows, std::span<const FlowRange> problems,
                                          std::span<const units::Bandwidth> capacity) {
  std::vector<FairRates> out;
  // Per thread: the planner's workers solve thousands of problems each.
  thread_local std::vector<std::int32_t> local_of;
  thread_local SolveScratch w;
  thread_local Compact compacted;
  thread_local Decomposition d;
  thread_local Solution s;
  for (const FlowRange& p : problems) {
    solve(rows_of(flows, p.first, p.last), flows.uses, capacity, false, local_of, w, compacted, d, s);
    FairRates& r = out.emplace_back();
    r.rate.reserve(s.rate.size());
    for (double x : s.rate) r.rate.push_back(units::Bandwidth{x});
    for (double l : s.load) r.worst_link_load = std::max(r.worst_link_load, units::Bandwidth{l});
  }
  return out;
}

FairRates max_min_fair_rates(const FlowTable& flows, std::size_t first, std::size_t last,
                             std::span<const units::Bandwidth> capacity) {
  const FlowRange one{first, last};
  return std::move(max_min_fair_rates(flows, std::span<const FlowRange>(&one, 1), capacity).front());
}

}  // namespace flopcast::topology

#include "flopcast/topology/group_traffic.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <unordered_map>

#include "flopcast/units/assert.hpp"

namespace flopcast::topology {

const char* to_string(TrafficPattern p) {
  switch (p) {
    case TrafficPattern::Ring:
      return "ring";
    case TrafficPattern::AllToAll:
      return "all-to-all";
    case TrafficPattern::OneWay:
      return "one-way";
  }
  return "?";
}

namespace {

// One network endpoint of a group in a domain: a NIC and the member GPU that owns it.
struct Port {
  std::int64_t node = 0;
  int nic = 0;
  std::int64_t gpu = 0;
};

// Routes the flows of groups into one FlowTable. Buffers are kept from group to group
// (network_share() routes up to thousands of groups; one heap block per flow, route or
// domain would dominate its time).
class FlowRouter {
 public:
  FlowRouter(const ClusterTopology& topo, FlowTable& table) : topo_(topo), table_(table) {}

  // Appends the flows of one group's collective outside NVLink domains (none inside one
  // domain); `members` are GPU ids in ring order.
  void add_group(std::span<const std::int64_t> members, TrafficPattern pattern) {
    if (members.size() < 2) return;
    ports_by_domain(members);
    const std::size_t nd = nd_;
    if (nd < 2) return;
    std::size_t channels = domains_.front().size();
    for (std::size_t d = 0; d < nd; ++d) channels = std::min(channels, domains_[d].size());

    switch (pattern) {
      case TrafficPattern::Ring:
        for (std::size_t c = 0; c < channels; ++c) {
          for (std::size_t k = 0; k < nd; ++k) add_hop(domains_[k][c], domains_[(k + 1) % nd][c], 1.0);
          table_.end_flow();
        }
        break;
      case TrafficPattern::OneWay:
        for (std::size_t c = 0; c < channels; ++c) {
          add_hop(domains_[0][c], domains_[1][c], 1.0);
          table_.end_flow();
        }
        break;
      case TrafficPattern::AllToAll: {
        // Flow (domain d, channel c) sends equally to channel c of every other domain and, the
        // pattern being symmetric, receives as much: its NIC and PCIe links carry the flow's
        // rate both ways; the switch layer carries each destination leaf's share.
        const double share = 1.0 / static_cast<double>(nd - 1);
        for (std::size_t d = 0; d < nd; ++d) {
          for (std::size_t c = 0; c < channels; ++c) {
            const Port& src = domains_[d][c];
            const std::int32_t up = topo_.gpu_to_nic_link(src.gpu, src.nic);
            if (up >= 0) use(up, 1.0);
            const std::int32_t down = topo_.nic_to_gpu_link(src.nic, src.gpu);
            if (down >= 0) use(down, 1.0);
            use(topo_.nic_to_leaf_link(src.node, src.nic), 1.0);
            use(topo_.leaf_to_nic_link(src.node, src.nic), 1.0);
            std::map<std::int32_t, int> by_leaf;  // destination leaf -> destinations behind it
            for (std::size_t e = 0; e < nd; ++e) {
              if (e != d) ++by_leaf[topo_.leaf_of(domains_[e][c].node, domains_[e][c].nic)];
            }
            const std::int32_t own_leaf = topo_.leaf_of(src.node, src.nic);
            for (const auto& [leaf, count] : by_leaf) {
              const double w = share * count;
              route_.clear();
              topo_.append_leaf_route(own_leaf, leaf, route_);
              for (std::int32_t l : route_) use(l, w);
            }
            table_.end_flow();
          }
        }
        break;
      }
    }
  }

 private:
  void use(std::int32_t link, double weight) { table_.uses.push_back(LinkUse{link, weight}); }

  void add_hop(const Port& from, const Port& to, double weight) {
    const std::int32_t up = topo_.gpu_to_nic_link(from.gpu, from.nic);
    if (up >= 0) use(up, weight);
    route_.clear();
    topo_.append_nic_route(from.node, from.nic, to.node, to.nic, route_);
    for (std::int32_t l : route_) use(l, weight);
    const std::int32_t down = topo_.nic_to_gpu_link(to.nic, to.gpu);
    if (down >= 0) use(down, weight);
  }

  // Domains in order of first appearance in `members` (domains_[0 .. nd_)), each with its
  // ports in member order.
  void ports_by_domain(std::span<const std::int64_t> members) {
    nd_ = 0;
    domain_ids_.clear();
    for (std::int64_t gpu : members) {
      const std::int64_t d = topo_.domain_of(gpu);
      // Members come in ring order, mostly a domain at a time: try the latest domain first.
      std::size_t idx = nd_;
      if (nd_ > 0 && domain_ids_[nd_ - 1] == d) {
        idx = nd_ - 1;
      } else {
        idx = static_cast<std::size_t>(std::find(domain_ids_.begin(), domain_ids_.end(), d) - domain_ids_.begin());
      }
      if (idx == nd_) {
        domain_ids_.push_back(d);
        if (domains_.size() == nd_) domains_.emplace_back();
        domains_[nd_].clear();
        ++nd_;
      }
      const std::int64_t node = topo_.node_of(gpu);
      auto& ports = domains_[idx];
      for (int k : topo_.nics_of(topo_.local_index(gpu))) {
        const bool seen =
            std::any_of(ports.begin(), ports.end(), [&](const Port& p) { return p.node == node && p.nic == k; });
        if (!seen) ports.push_back(Port{node, k, gpu});
      }
    }
  }

  const ClusterTopology& topo_;
  FlowTable& table_;
  std::vector<std::int32_t> route_;
  std::vector<std::int64_t> domain_ids_;
  std::vector<std::vector<Port>> domains_;  // the first nd_ are in use
  std::size_t nd_ = 0;
};

}  // namespace

namespace {

// Groups [0, cells x cell_groups) fill `cells` cells of the cluster that are exact translations
// of one another, network included: returns cells (0 or 1 when there is nothing to share) and
// sets `cell_groups`. A cell is `cell_nodes` nodes, a multiple of the layout's period (the
// groups repeat: group_period), of a leaf's nodes (so a cell has leaves of its own, all with
// full uplinks) and of an NVLink domain's nodes; only nodes whose every GPU exists count. Each
// link network_share() routes over (GPU<->NIC, NIC<->leaf, leaf<->spine) belongs to one GPU,
// node or leaf, so cells share no link, their links match one to one with equal capacities,
// and the routes are the same hop for hop (one spine: a route between two leaves is the first
// leaf's uplink and the second's downlink). The groups after the cells lie on nodes after them.
std::int64_t translated_cells(const ClusterTopology& topo, const GroupShape& shape, std::int64_t groups,
                              std::int64_t& cell_groups) {
  const int g = topo.gpus_per_node();
  const GroupPeriod period = group_period(shape, g);
  const std::int64_t domain_nodes = topo.domain_size() % g == 0 ? topo.domain_size() / g : 0;
  const std::int64_t full_nodes = topo.gpus() / g;
  if (domain_nodes < 1 || period.nodes < 1 || period.nodes > full_nodes) return 0;
  std::int64_t cell_nodes = std::lcm(period.nodes, static_cast<std::int64_t>(topo.nodes_per_leaf()));
  if (cell_nodes > full_nodes) return 0;
  cell_nodes = std::lcm(cell_nodes, domain_nodes);
  if (cell_nodes > full_nodes) return 0;
  cell_groups = cell_nodes / period.nodes * period.groups;
  return std::min(groups / cell_groups, full_nodes / cell_nodes);
}

}  // namespace

GroupNetworkShare network_share(const ClusterTopology& topo, const GroupShape& shape, std::int64_t concurrent,
                                TrafficPattern pattern, ShareSolve how) {
  GroupNetworkShare out;
  const int g = topo.gpus_per_node();
  const std::int64_t fit = max_concurrent_groups(shape, g, topo.gpus());
  FLOPCAST_ASSERT(fit >= 1, "group shape does not fit the cluster (check_group_shape first)");
  out.groups = std::clamp<std::int64_t>(concurrent, 1, fit);

  // The groups routed: all, or (when the first groups fill cells that are translations of one
  // another) the first cell's and those after the cells. The max-min fair share of copies that
  // share no link is the share of one of them, bit for bit (fair_share.hpp), so the groups of
  // the other cells get exactly the rates of their counterparts in the first.
  std::int64_t cell_groups = 0;
  const std::int64_t cells = how == ShareSolve::EveryGroup ? 0 : translated_cells(topo, shape, out.groups, cell_groups);
  const std::int64_t skip_from = cells >= 2 ? cell_groups : out.groups;
  const std::int64_t skip_to = cells >= 2 ? cells * cell_groups : out.groups;
  out.routed = out.groups - (skip_to - skip_from);

  // Per thread, kept from call to call: a large cluster's table has 10^5 uses, and fresh
  // arrays of that size cost more in page faults than the routing.
  thread_local FlowTable flows;
  flows.start.assign(1, 0);
  flows.uses.clear();
  FlowRouter router(topo, flows);
  std::vector<std::size_t> first_flow{0};
  thread_local std::vector<std::int64_t> members;
  for (std::int64_t i = 0; i < out.groups; ++i) {
    if (i == skip_from) i = skip_to;
    if (i >= out.groups) break;
    const bool fits = place_group_into(shape, i, g, topo.gpus(), members);
    FLOPCAST_ASSERT(fits, "placed group does not fit");
    if (i == 0) {
      std::vector<std::int64_t> ds;
      for (std::int64_t m : members) ds.push_back(topo.domain_of(m));
      std::sort(ds.begin(), ds.end());
      out.domains = std::unique(ds.begin(), ds.end()) - ds.begin();
    }
    router.add_group(members, pattern);
    if (i == 0) {
      // Every group has the same shape: as many flows and about as many link uses.
      flows.uses.reserve(flows.uses.size() * static_cast<std::size_t>(out.routed) + flows.uses.size() / 4);
      flows.start.reserve(flows.size() * static_cast<std::size_t>(out.routed) + 1);
      // Channels per domain = flows per domain of the pattern.
      const auto n = static_cast<std::int64_t>(flows.size());
      const std::int64_t per = pattern == TrafficPattern::AllToAll && out.domains > 0 ? n / out.domains : n;
      out.channels = static_cast<int>(per);
    }
    first_flow.push_back(flows.size());
  }
  if (flows.empty()) return out;

  // Routed group k's rate (the k-th routed, in order).
  auto group_rate = [&](const FairRates& fs, std::size_t k) {
    double sum = 0.0;
    for (std::size_t f = first_flow[k]; f < first_flow[k + 1]; ++f) sum += fs.rate[f].bytes_per_s;
    if (pattern == TrafficPattern::AllToAll && out.domains > 0) sum /= static_cast<double>(out.domains);
    return sum;
  };

  // Every group together, and (when there are several) the first group alone.
  const FlowRange problems[] = {{0, flows.size()}, {0, first_flow[1]}};
  const auto shares =
      max_min_fair_rates(flows, std::span<const FlowRange>(problems, out.groups == 1 ? 1 : 2), topo.capacities());
  const FairRates& all = shares[0];
  double slowest = group_rate(all, 0);
  for (std::size_t k = 1; k + 1 < first_flow.size(); ++k) slowest = std::min(slowest, group_rate(all, k));
  out.per_group = units::Bandwidth{slowest};
  out.worst_link_load = all.worst_link_load;
  out.alone = out.groups == 1 ? out.per_group : units::Bandwidth{group_rate(shares[1], 0)};
  return out;
}

namespace {

// What network_share() reads of a topology, beyond the question: the placement reads the GPU
// count and node size; the routes read the NICs per node (each GPU's NICs follow from them and
// the node size), the NVLink domain size, the nodes per leaf and the rail cabling; the flows
// cross only GPU<->NIC (PCIe rate), NIC<->leaf (NIC rate) and leaf<->spine links (a full leaf's
// uplink rate, a partial last leaf's from its NICs, the NIC rate and the oversubscription).
// The graph's other links (NVLink, PCIe roots) and the GPU's name and peaks are not read.
struct ShareKey {
  std::int64_t gpus = 0, ranks = 0, node_stride = 0, concurrent = 0;
  int gpus_per_node = 0, nics = 0, domain = 0, nodes_per_leaf = 0, ranks_per_node = 0, pattern = 0;
  bool rail_optimized = false;
  double pcie = 0, nic = 0, leaf_uplink = 0, oversubscription = 0;
  bool operator==(const ShareKey&) const = default;
};

struct ShareKeyHash {
  std::size_t operator()(const ShareKey& k) const {
    std::uint64_t h = 0xCBF29CE484222325ull;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001B3ull; };
    auto bits = [](double d) {
      std::uint64_t b;
      std::memcpy(&b, &d, sizeof b);
      return b;
    };
    for (const std::int64_t v : {k.gpus, k.ranks, k.node_stride, k.concurrent}) mix(static_cast<std::uint64_t>(v));
    for (const int v : {k.gpus_per_node, k.nics, k.domain, k.nodes_per_leaf, k.ranks_per_node, k.pattern})
      mix(static_cast<std::uint64_t>(v));
    mix(k.rail_optimized ? 1 : 0);
    for (const double v : {k.pcie, k.nic, k.leaf_uplink, k.oversubscription}) mix(bits(v));
    return static_cast<std::size_t>(h);
  }
};

ShareKey share_key(const ClusterTopology& topo, const GroupShape& shape, std::int64_t concurrent,
                   TrafficPattern pattern) {
  ShareKey k;
  k.gpus = topo.gpus();
  k.ranks = shape.ranks;
  k.node_stride = shape.node_stride;
  k.concurrent = concurrent;
  k.gpus_per_node = topo.gpus_per_node();
  k.nics = topo.nics_per_node();
  k.domain = topo.domain_size();
  k.nodes_per_leaf = topo.nodes_per_leaf();
  k.ranks_per_node = shape.ranks_per_node;
  k.pattern = static_cast<int>(pattern);
  k.rail_optimized = topo.options().rail_optimized;
  k.pcie = topo.rates().pcie.bytes_per_s;
  k.nic = topo.rates().nic.bytes_per_s;
  k.leaf_uplink = topo.rates().leaf_uplink.bytes_per_s;
  k.oversubscription = topo.fabric().oversubscription;
  return k;
}

struct ShareCache {
  std::mutex mu;
  std::unordered_map<ShareKey, GroupNetworkShare, ShareKeyHash> answers;
};

ShareCache& share_cache() {
  static ShareCache cache;
  return cache;
}

/// Answers kept at most (a few MB); the cache starts over when full.
constexpr std::size_t kMaxShareAnswers = 1 << 16;

}  // namespace

GroupNetworkShare network_share_cached(const ClusterTopology& topo, const GroupShape& shape, std::int64_t concurrent,
                                       TrafficPattern pattern) {
  const ShareKey key = share_key(topo, shape, concurrent, pattern);
  ShareCache& cache = share_cache();
  {
    std::lock_guard lock(cache.mu);
    auto it = cache.answers.find(key);
    if (it != cache.answers.end()) return it->second;
  }
  // Computed outside the lock: two threads asking at once both compute the same answer.
  const GroupNetworkShare s = network_share(topo, shape, concurrent, pattern, ShareSolve::ByTranslation);
  std::lock_guard lock(cache.mu);
  if (cache.answers.size() >= kMaxShareAnswers) cache.answers.clear();
  cache.answers.try_emplace(key, s);
  return s;
}

std::size_t network_share_cache_size() {
  ShareCache& cache = share_cache();
  std::lock_guard lock(cache.mu);
  return cache.answers.size();
}

}  // namespace flopcast::topology

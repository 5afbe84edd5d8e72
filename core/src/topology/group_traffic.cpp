#include "flopcast/topology/group_traffic.hpp"

#include <algorithm>
#include <map>

#include "flopcast/units/assert.hpp"

namespace flopcast {

const char* to_string(TrafficPattern p) {
  switch (p) {
    case TrafficPattern::Ring: return "ring";
    case TrafficPattern::AllToAll: return "all-to-all";
    case TrafficPattern::OneWay: return "one-way";
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

// Domains in order of first appearance in `members`, each with its ports in member order.
std::vector<std::vector<Port>> ports_by_domain(const ClusterTopology& topo, std::span<const std::int64_t> members) {
  std::vector<std::vector<Port>> out;
  std::vector<std::int64_t> domain_ids;
  for (std::int64_t gpu : members) {
    const std::int64_t d = topo.domain_of(gpu);
    auto it = std::find(domain_ids.begin(), domain_ids.end(), d);
    std::size_t idx;
    if (it == domain_ids.end()) {
      domain_ids.push_back(d);
      out.emplace_back();
      idx = out.size() - 1;
    } else {
      idx = static_cast<std::size_t>(it - domain_ids.begin());
    }
    const std::int64_t node = topo.node_of(gpu);
    for (int k : topo.nics_of(topo.local_index(gpu))) {
      auto& ports = out[idx];
      const bool seen = std::any_of(ports.begin(), ports.end(), [&](const Port& p) { return p.node == node && p.nic == k; });
      if (!seen) ports.push_back(Port{node, k, gpu});
    }
  }
  return out;
}

void add_hop(const ClusterTopology& topo, const Port& from, const Port& to, double weight, NetworkFlow& flow) {
  const std::int32_t up = topo.gpu_to_nic_link(from.gpu, from.nic);
  if (up >= 0) flow.uses.push_back(LinkUse{up, weight});
  for (std::int32_t l : topo.nic_route(from.node, from.nic, to.node, to.nic)) flow.uses.push_back(LinkUse{l, weight});
  const std::int32_t down = topo.nic_to_gpu_link(to.nic, to.gpu);
  if (down >= 0) flow.uses.push_back(LinkUse{down, weight});
}

}  // namespace

std::vector<NetworkFlow> network_flows(const ClusterTopology& topo, std::span<const std::int64_t> members,
                                       TrafficPattern pattern) {
  std::vector<NetworkFlow> flows;
  if (members.size() < 2) return flows;
  const auto domains = ports_by_domain(topo, members);
  const std::size_t nd = domains.size();
  if (nd < 2) return flows;
  std::size_t channels = domains.front().size();
  for (const auto& d : domains) channels = std::min(channels, d.size());

  switch (pattern) {
    case TrafficPattern::Ring:
      for (std::size_t c = 0; c < channels; ++c) {
        NetworkFlow f;
        for (std::size_t k = 0; k < nd; ++k) add_hop(topo, domains[k][c], domains[(k + 1) % nd][c], 1.0, f);
        flows.push_back(std::move(f));
      }
      break;
    case TrafficPattern::OneWay:
      for (std::size_t c = 0; c < channels; ++c) {
        NetworkFlow f;
        add_hop(topo, domains[0][c], domains[1][c], 1.0, f);
        flows.push_back(std::move(f));
      }
      break;
    case TrafficPattern::AllToAll: {
      // Flow (domain d, channel c) sends equally to channel c of every other domain and, the
      // pattern being symmetric, receives as much: its NIC and PCIe links carry the flow's
      // rate both ways; the switch layer carries each destination leaf's share.
      const double share = 1.0 / static_cast<double>(nd - 1);
      for (std::size_t d = 0; d < nd; ++d) {
        for (std::size_t c = 0; c < channels; ++c) {
          const Port& src = domains[d][c];
          NetworkFlow f;
          const std::int32_t up = topo.gpu_to_nic_link(src.gpu, src.nic);
          if (up >= 0) f.uses.push_back(LinkUse{up, 1.0});
          const std::int32_t down = topo.nic_to_gpu_link(src.nic, src.gpu);
          if (down >= 0) f.uses.push_back(LinkUse{down, 1.0});
          f.uses.push_back(LinkUse{topo.nic_to_leaf_link(src.node, src.nic), 1.0});
          f.uses.push_back(LinkUse{topo.leaf_to_nic_link(src.node, src.nic), 1.0});
          std::map<std::int32_t, int> by_leaf;  // destination leaf -> destinations behind it
          for (std::size_t e = 0; e < nd; ++e) {
            if (e != d) ++by_leaf[topo.leaf_of(domains[e][c].node, domains[e][c].nic)];
          }
          const std::int32_t own_leaf = topo.leaf_of(src.node, src.nic);
          for (const auto& [leaf, count] : by_leaf) {
            const double w = share * count;
            for (std::int32_t l : topo.leaf_route(own_leaf, leaf)) f.uses.push_back(LinkUse{l, w});
          }
          flows.push_back(std::move(f));
        }
      }
      break;
    }
  }
  return flows;
}

GroupNetworkShare network_share(const ClusterTopology& topo, const GroupShape& shape, std::int64_t concurrent,
                                TrafficPattern pattern) {
  GroupNetworkShare out;
  const int g = topo.gpus_per_node();
  const std::int64_t fit = max_concurrent_groups(shape, g, topo.gpus());
  FLOPCAST_ASSERT(fit >= 1, "group shape does not fit the cluster (check_group_shape first)");
  out.groups = std::clamp<std::int64_t>(concurrent, 1, fit);

  std::vector<NetworkFlow> flows;
  std::vector<std::size_t> first_flow{0};
  for (std::int64_t i = 0; i < out.groups; ++i) {
    const auto members = place_group(shape, i, g, topo.gpus());
    FLOPCAST_ASSERT(!members.empty(), "placed group does not fit");
    if (i == 0) {
      std::vector<std::int64_t> ds;
      for (std::int64_t m : members) ds.push_back(topo.domain_of(m));
      std::sort(ds.begin(), ds.end());
      out.domains = std::unique(ds.begin(), ds.end()) - ds.begin();
    }
    auto f = network_flows(topo, members, pattern);
    if (i == 0) {
      // Channels per domain = flows per domain of the pattern.
      const std::int64_t per = pattern == TrafficPattern::AllToAll && out.domains > 0
                                   ? static_cast<std::int64_t>(f.size()) / out.domains
                                   : static_cast<std::int64_t>(f.size());
      out.channels = static_cast<int>(per);
    }
    for (auto& x : f) flows.push_back(std::move(x));
    first_flow.push_back(flows.size());
  }
  if (flows.empty()) return out;

  auto group_rate = [&](const FairShare& fs, std::int64_t i) {
    double sum = 0.0;
    for (std::size_t k = first_flow[static_cast<std::size_t>(i)]; k < first_flow[static_cast<std::size_t>(i) + 1]; ++k)
      sum += fs.rate[k].bytes_per_s;
    if (pattern == TrafficPattern::AllToAll && out.domains > 0) sum /= static_cast<double>(out.domains);
    return sum;
  };

  const FairShare all = max_min_fair_share(flows, topo.capacities());
  double slowest = group_rate(all, 0);
  for (std::int64_t i = 1; i < out.groups; ++i) slowest = std::min(slowest, group_rate(all, i));
  out.per_group = Bandwidth{slowest};
  for (const Bandwidth& b : all.link_load) out.worst_link_load = std::max(out.worst_link_load, b);

  if (out.groups == 1) {
    out.alone = out.per_group;
  } else {
    const std::span<const NetworkFlow> one(flows.data(), first_flow[1]);
    out.alone = Bandwidth{group_rate(max_min_fair_share(one, topo.capacities()), 0)};
  }
  return out;
}

}  // namespace flopcast

#pragma once
/// A fleet file as text for the tests of the fleet loader (tests/fleet) and of fleet planning
/// (tests/cli): a file that loads, and the helpers that break one line of it. Header-only.
#include <optional>
#include <string>

#include <doctest/doctest.h>

#include "flopcast/io/fleet_loader.hpp"
#include "shipped_catalog.hpp"

namespace flopcast::test::fleet_text {

/// A fleet file that loads; tests replace one line to break it.
inline const std::string kGood = R"(name: t
horizon: 10d
seeds: 2
pools:
  - name: a100
    gpu: A100-80G
    nodes: 4
    rented: {catalog: seed-vendor, plan: a100-80g-hourly, billing: on_demand}
  - name: h800
    gpu: H800
    nodes: 8
    owned: {capex_per_node: 200000, currency: USD, amortisation_years: 4, electricity_per_kwh: 0.08}
job_classes:
  - name: small
    scenario: jobs/llama2-7b-32xa100.yaml
    tokens: 1B
    replan: {gpu_types: [H800]}
jobs:
  - {name: a, class: small, arrival: 0d, priority: 1, deadline: 3d}
  - {name: b, class: small, arrival: 1d}
what_if:
  - {add_nodes: 2, pool: h800}
currency: CNY
)";

/// The fleet file's path: scenarios resolve against its folder.
inline const std::string kFile = std::string(FLOPCAST_SCENARIOS_DIR) + "/fleets/test.yaml";

struct Loaded {
  std::optional<io::FleetFile> ff;
  scenario::Diagnostics d;
};

inline Loaded parse(const std::string& text) {
  Loaded l;
  l.ff = io::parse_fleet(text, kFile, shipped_catalog(), l.d);
  return l;
}

inline std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return s.replace(at, from.size(), to);
}

}  // namespace flopcast::test::fleet_text

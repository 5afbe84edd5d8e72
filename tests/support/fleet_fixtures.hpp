#pragma once
/// Fleets built in code for the fleet engine's tests (tests/fleet) and its report's
/// (tests/cli): exponential run-time profiles, owned pools and an M/M/c queue. Header-only.
#include <cmath>
#include <cstdint>
#include <string>

#include "flopcast/fleet/fleet.hpp"
#include "flopcast/units/money.hpp"

namespace flopcast::test::fleet_fixtures {

using namespace flopcast::fleet;

inline constexpr double kHour = 3600.0;

inline units::Time hours(double h) { return units::Time::from_seconds(h * kHour); }

/// A profile whose trials are the n quantiles (i + 1/2) / n of an exponential with mean
/// `mean_h` hours: the engine draws one uniformly per job, so run times are (to within the
/// 1/n discretisation) exponential.
inline RunProfile exponential_profile(const std::string& gpu, std::int64_t gpus, double mean_h, int n = 20000) {
  RunProfile p;
  p.gpu = gpu;
  p.gpus = gpus;
  for (int i = 0; i < n; ++i) {
    const double q = (i + 0.5) / n;
    p.spans.push_back(hours(-std::log(1.0 - q) * mean_h));
    p.failures.push_back(0);
  }
  p.estimate = hours(mean_h);
  p.checkpoint_interval = hours(1);
  return p;
}

/// An owned pool of `nodes` nodes of `gpn` GPUs: 100,000 USD per node over 4 years, 10 kW, PUE 1.5.
inline Pool owned_pool(const std::string& name, const std::string& gpu, std::int64_t nodes, int gpn) {
  Pool p;
  p.name = name;
  p.gpu = gpu;
  p.nodes = nodes;
  p.gpus_per_node = gpn;
  p.kind = PoolKind::Owned;
  p.owned.capex_per_node = units::Money::of_minor(100'000'00, units::Currency::of("USD"));
  p.owned.amortisation = hours(4 * 8760);
  p.owned.node_power_kw = 10.0;
  p.owned.idle_fraction = 0.1;
  p.owned.price_per_kwh = units::PriceRate::of_micro(80'000, units::Currency::of("USD"));
  p.owned.pue = 1.5;
  return p;
}

/// An M/M/c fleet: c single-GPU servers, Poisson arrivals, exponential service, FIFO.
inline Fleet mmc_fleet(int c, double lambda_per_h, double mean_service_h, double days, int seeds) {
  Fleet f;
  f.name = "mmc";
  f.pools.push_back(owned_pool("p", "A100-80G", 1, c));
  JobClass jc;
  jc.name = "one-gpu";
  jc.gpu = "A100-80G";
  jc.gpus = 1;
  jc.variants.push_back(exponential_profile("A100-80G", 1, mean_service_h));
  f.classes.push_back(jc);
  StreamGenerator g;
  g.rate_per_day = lambda_per_h * 24;
  g.mix.push_back(MixEntry{});
  f.generator = g;
  f.horizon = hours(days * 24);
  f.seeds = seeds;
  f.seed = 42;
  return f;
}

}  // namespace flopcast::test::fleet_fixtures

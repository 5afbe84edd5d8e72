// The fleet report (app/fleet_report.hpp): same fleet and seed give byte-identical JSON and CSV
// whatever the number of threads the engine runs its seeds on.
#include <doctest/doctest.h>

#include <string>

#include "fleet_fixtures.hpp"
#include "flopcast/app/fleet_report.hpp"
#include "flopcast/fleet/fleet.hpp"

using namespace flopcast;
using namespace flopcast::fleet;
using namespace flopcast::test::fleet_fixtures;

TEST_CASE("same fleet and seed: byte-identical JSON whatever the thread count") {
  Fleet f = mmc_fleet(3, 2.0, 1.0, 20, 8);
  f.policy.order = QueueOrder::Priority;
  f.policy.backfill = Backfill::Easy;
  f.generator->mix[0].priority = 0;
  MixEntry urgent;
  urgent.priority = 2;
  urgent.deadline = hours(2);
  f.generator->mix.push_back(urgent);
  FleetOptions one, many;
  many.threads = 4;
  app::FleetReport a, b;
  a.result = simulate_fleet(f, one);
  b.result = simulate_fleet(f, many);
  const std::string ja = app::fleet_to_json(a).dump();
  CHECK(ja == app::fleet_to_json(b).dump());
  CHECK(app::fleet_series_csv(a.result) == app::fleet_series_csv(b.result));
  // Another seed gives another result (the check above could fail).
  f.seed = 43;
  app::FleetReport c;
  c.result = simulate_fleet(f, one);
  CHECK(ja != app::fleet_to_json(c).dump());
}

#pragma once
/// `flopcast fleet` output: text, JSON (everything, with the time series) and CSV (the time series).
#include <nlohmann/json.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/fleet/fleet.hpp"

namespace flopcast::app {

/// What one `flopcast fleet` run produced.
struct FleetReport {
  std::string file;
  fleet::FleetResult result;
  std::vector<std::string> notes;           ///< planning notes (dropped re-plans)
  std::vector<std::string> class_variants;  ///< per class: "A100-80G x64, H800 x64"
  std::optional<fleet::SizeSweepResult> sweep;
};

void print_fleet_text(const FleetReport& r, std::ostream& out);
nlohmann::ordered_json fleet_to_json(const FleetReport& r);
/// The time series as CSV: bin start (h), utilisation per pool, queue mean and P90, running jobs.
std::string fleet_series_csv(const fleet::FleetResult& r);

}  // namespace flopcast::app

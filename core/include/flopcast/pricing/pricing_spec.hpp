#pragma once
/// The scenario's `pricing:` block: which catalog and plans to bill the run under.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/units/money.hpp"

namespace flopcast::pricing {

struct PricingSpec {
  std::string catalog;             ///< price catalog name (data/prices/<name>.yaml) or file
  std::vector<std::string> plans;  ///< plan ids to compare; empty = every plan for the GPU
  std::string currency;            ///< bill currency; empty = the catalog's
  /// Bill as a new customer: the catalog's new-user credit is deducted. Off by default, so a
  /// quote never counts on a credit the customer may not get.
  bool new_user = false;
  /// Also compare mixes: whole units of a long plan (month, day) for the expected span plus a
  /// short plan (hour) for whatever runs over.
  bool mixes = true;
  /// Optional add-ons (by id) to include in every bill, e.g. a faster network.
  std::vector<std::string> add_ons;
  /// Checkpoints kept on storage while the run lasts (bills a storage add-on per GB-month).
  int checkpoints_kept = 2;
  /// Overrides of the catalog's electricity figures (owned clusters, energy in quotes).
  std::optional<double> pue;
  std::optional<units::PriceRate> electricity_per_kwh;
};

}  // namespace flopcast::pricing

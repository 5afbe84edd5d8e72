#pragma once
// Internal to flopcast::io's claims loader (not installed): the reading state and the readers
// of each kind's `needs:` block.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/claims/claim.hpp"
#include "flopcast/io/catalog.hpp"
#include "yaml_util.hpp"

namespace flopcast::io::claims_detail {

using namespace flopcast::claims;
using detail::child;
using detail::Reader;

/// Figures each kind can claim, and the dimension each claimed value must have.
struct FigureRule {
  const char* name;
  std::vector<Dimension> dims;  ///< empty: no claimed value needed (free text allowed)
  const char* example;          ///< for the hint
};

/// The figures of each kind.
const std::map<ClaimKind, std::vector<FigureRule>>& figure_rules();

/// State shared while reading one file.
struct Loader {
  Reader& r;
  const Catalog& catalog;
  std::string data_dir;
  std::filesystem::path dir;  ///< the claims file's folder (scenario paths are relative to it)
  std::string default_catalog;
  std::string default_source;
  std::map<std::string, std::shared_ptr<const pricing::PriceCatalog>> catalogs;

  void error(const YAML::Node& at, const std::string& key, std::string msg, std::string hint = {}) {
    r.error(at, key, std::move(msg), std::move(hint));
  }
  /// Reports a missing key; returns nullopt for `return l.missing(...)`.
  std::nullopt_t missing(const YAML::Node& parent, const std::string& key, const std::string& name, std::string hint) {
    r.error(parent, child(key, name), "missing required key '" + name + "'", std::move(hint));
    return std::nullopt;
  }

  std::shared_ptr<const pricing::PriceCatalog> price_catalog(const YAML::Node& at, const std::string& key,
                                                             const std::string& name);
  const hardware::GpuSpec* gpu(const YAML::Node& n, const std::string& key);
  const hardware::FabricSpec* fabric(const YAML::Node& n, const std::string& key);
  std::optional<std::string> scenario_path(const YAML::Node& n, const std::string& key);
  std::optional<ScenarioRef> scenario_ref(const YAML::Node& needs, const std::string& key);
  std::optional<units::Time> duration(const YAML::Node& n, const std::string& key, const char* example);
  std::optional<units::Bandwidth> bandwidth(const YAML::Node& n, const std::string& key);
  std::optional<PriceOption> option(const YAML::Node& map, const std::string& key, const pricing::PriceCatalog& cat,
                                    bool required);
};

/// Reads the `needs:` block of a claim of `kind` claiming `figure` (`claimed` as read, if any).
/// nullopt (with diagnostics) when something it needs is missing or wrong.
std::optional<ClaimNeeds> read_needs(Loader& l, ClaimKind kind, const std::string& figure, const YAML::Node& needs,
                                     const std::string& key, const std::optional<ClaimedValue>& claimed);

}  // namespace flopcast::io::claims_detail

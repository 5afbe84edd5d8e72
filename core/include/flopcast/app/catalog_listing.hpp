#pragma once
/// What `flopcast catalog gpus|fabrics|models|prices` lists: the built-in (or --data-dir)
/// catalogs as aligned text tables or as JSON, one entry per row.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "flopcast/io/catalog.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/scenario/diagnostic.hpp"

namespace flopcast::app {

/// The catalogs `catalog` lists.
enum class CatalogKind { Gpus, Fabrics, Models, Prices };

/// "gpus", "fabrics", "models", "prices" -> the kind; nullopt otherwise.
std::optional<CatalogKind> parse_catalog_kind(const std::string& name);

/// Every shipped price catalog (io::price_catalog_names), read from `data_dir` ("" = the
/// built-in copy). nullopt when one cannot be read, with its diagnostics in `diags`.
std::optional<std::vector<pricing::PriceCatalog>> load_price_listing(const std::string& data_dir,
                                                                     scenario::Diagnostics& diags);

/// The table of one kind. `prices` is read for CatalogKind::Prices only: every plan of every
/// catalog with its kind (the provider's own, a claim, a competitor's), unit price, billing unit
/// and source.
std::string catalog_text(const io::Catalog& catalog, CatalogKind kind,
                         const std::vector<pricing::PriceCatalog>& prices);
/// The same as JSON: an array with one object per entry (figures as numbers, in the units
/// their key names).
nlohmann::ordered_json catalog_json(const io::Catalog& catalog, CatalogKind kind,
                                    const std::vector<pricing::PriceCatalog>& prices);

}  // namespace flopcast::app

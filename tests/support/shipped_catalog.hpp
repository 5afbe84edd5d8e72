#pragma once
/// The shipped catalogs (data/ of the source tree), loaded once per test process. For tests
/// whose expected figures follow the catalog; tests that must not move with it use
/// fixtures.hpp instead.
#include "flopcast/io/catalog.hpp"

namespace flopcast::test {

/// The catalogs of FLOPCAST_DATA_DIR; the calling test fails (REQUIRE) when they do not load.
const io::Catalog& shipped_catalog();

}  // namespace flopcast::test

#pragma once
/// The shipped catalogs (data/ of the source tree), loaded once per test binary. For tests
/// whose expected figures follow the catalog; tests that must not move with it use
/// fixtures.hpp instead.
#include <doctest/doctest.h>

#include "flopcast/io/catalog.hpp"

namespace flopcast::test {

inline const io::Catalog& shipped_catalog() {
  static const io::Catalog cat = [] {
    Diagnostics d;
    auto c = io::load_catalog(FLOPCAST_DATA_DIR, d);
    REQUIRE_MESSAGE(c.has_value(), d.str());
    return *c;
  }();
  return cat;
}

}  // namespace flopcast::test

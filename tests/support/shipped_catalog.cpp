#include "shipped_catalog.hpp"

#include <doctest/doctest.h>

namespace flopcast::test {

const io::Catalog& shipped_catalog() {
  static const io::Catalog cat = [] {
    scenario::Diagnostics d;
    auto c = io::load_catalog(FLOPCAST_DATA_DIR, d);
    REQUIRE_MESSAGE(c.has_value(), d.str());
    return *c;
  }();
  return cat;
}

}  // namespace flopcast::test

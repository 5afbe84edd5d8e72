// libFuzzer target: a price catalog (data/prices/*.yaml) through io::parse_price_catalog.
#include <cstddef>
#include <cstdint>

#include "flopcast/io/price_catalog_io.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flopcast;
  scenario::Diagnostics diags;
  const auto catalog = io::parse_price_catalog(fuzz::input_text(data, size), "fuzz.yaml", diags);
  (void)catalog;
  (void)diags.str();
  return 0;
}

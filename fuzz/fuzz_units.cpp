// libFuzzer target: the unit-string parsers of io/units_parse.hpp, each on the whole input.
// Besides sanitizer findings it checks parse_count's documented promise (never a
// non-finite value).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "flopcast/io/units_parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flopcast;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto n = io::parse_count(text); n && !std::isfinite(*n)) {
    std::fprintf(stderr, "flopcast fuzz finding: parse_count returned %g\n", *n);
    std::abort();
  }
  (void)io::parse_bytes(text);
  (void)io::parse_bandwidth(text);
  (void)io::parse_duration(text);
  return 0;
}

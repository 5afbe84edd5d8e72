// libFuzzer target: the unit-string parsers of io/units_parse.hpp, each on the whole input.
// Besides sanitizer findings it checks the documented promise of parse_count, parse_bytes
// and parse_bandwidth: never a non-finite value ("1e308 TiB" is refused).
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
  if (const auto b = io::parse_bytes(text); b && !std::isfinite(b->value)) {
    std::fprintf(stderr, "flopcast fuzz finding: parse_bytes returned %g\n", b->value);
    std::abort();
  }
  if (const auto r = io::parse_bandwidth(text); r && !std::isfinite(r->bytes_per_s)) {
    std::fprintf(stderr, "flopcast fuzz finding: parse_bandwidth returned %g\n", r->bytes_per_s);
    std::abort();
  }
  (void)io::parse_duration(text);
  return 0;
}

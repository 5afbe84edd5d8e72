#include "unit_reader.hpp"

#include <fmt/format.h>

#include "flopcast/io/units_parse.hpp"

namespace flopcast::io::detail {
namespace {

/// "a bandwidth: 400 Gbps, 50 GB/s; a bare number is in Gb/s"
std::string expected(const KeyUnit& unit) {
  const char* examples = unit.kind == KeyUnit::Kind::Bandwidth ? "a bandwidth: 400 Gbps, 50 GB/s, 3.35 TB/s"
                                                               : "a size: 80 GiB, 512 MiB, 1.5 TB";
  return fmt::format("{}; a bare number is in {}", examples, unit.name);
}

}  // namespace

std::optional<double> read_quantity(Reader& r, const YAML::Node& node, const std::string& path, const KeyUnit& unit,
                                    double lo, double hi) {
  r.note(path, node);
  std::optional<double> value;
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    if (const auto bare = parse_count(text)) {
      value = *bare;
    } else if (unit.kind == KeyUnit::Kind::Bandwidth) {
      if (const auto bw = parse_bandwidth(text)) value = bw->bytes_per_s / unit.base_per_unit;
    } else if (const auto b = parse_bytes(text)) {
      value = b->value / unit.base_per_unit;
    }
  }
  if (!value) {
    r.error(node, path, "expected " + expected(unit) + ", got " + describe(node),
            unit.kind == KeyUnit::Kind::Bandwidth ? "write e.g. \"400 Gbps\" (bits) or \"50 GB/s\" (bytes)"
                                                  : "write e.g. \"80 GiB\" or \"512 MiB\"");
    return std::nullopt;
  }
  if (!(*value >= lo && *value <= hi)) {
    r.error(node, path, fmt::format("{} is out of range: expected {:g} to {:g} {}", describe(node), lo, hi, unit.name));
    return std::nullopt;
  }
  return value;
}

}  // namespace flopcast::io::detail

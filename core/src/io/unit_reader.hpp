#pragma once
// Internal helper of flopcast::io (not installed): a key whose value is a quantity in a unit,
// written as a bare number in the key's own unit (nic_gbps: 400) or as a unit string
// ("400 Gbps", "50 GB/s", "80 GiB"), parsed once, here, with units_parse.
#include <optional>
#include <string>

#include "yaml_util.hpp"

namespace flopcast::io::detail {

/// The unit a key's bare numbers are in.
struct KeyUnit {
  enum class Kind { Bandwidth, Bytes } kind;
  double base_per_unit;  ///< bytes per second (Bandwidth) or bytes (Bytes) in one unit
  const char* name;      ///< "Gb/s", "GB/s", "TB/s", "GiB", "MiB", "bytes"
};
inline constexpr KeyUnit kGbitPerS{KeyUnit::Kind::Bandwidth, 1e9 / 8, "Gb/s"};
inline constexpr KeyUnit kGBytePerS{KeyUnit::Kind::Bandwidth, 1e9, "GB/s"};
inline constexpr KeyUnit kTBytePerS{KeyUnit::Kind::Bandwidth, 1e12, "TB/s"};
inline constexpr KeyUnit kGiB{KeyUnit::Kind::Bytes, 1024.0 * 1024 * 1024, "GiB"};
inline constexpr KeyUnit kMiB{KeyUnit::Kind::Bytes, 1024.0 * 1024, "MiB"};
inline constexpr KeyUnit kByte{KeyUnit::Kind::Bytes, 1, "bytes"};

/// The value of `node` in `unit` (a bare number is taken in `unit`; a unit string of the same
/// kind is converted), in [lo, hi] of `unit`. nullopt with a diagnostic naming the key, the
/// kind of quantity expected and examples ("expected a bandwidth: 400 Gbps, 50 GB/s; a bare
/// number is in Gb/s") when it is neither, or out of range.
std::optional<double> read_quantity(Reader& r, const YAML::Node& node, const std::string& path, const KeyUnit& unit,
                                    double lo, double hi);

}  // namespace flopcast::io::detail

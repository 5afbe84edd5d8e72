#pragma once
/// Sweep files (`flopcast sweep`): a base scenario and axes over any scenario key.
///
///   base: ../quickstart.yaml          # a scenario file, relative to the sweep file
///   # or  scenario: {model: ..., cluster: ..., ...}   (the base written inline)
///   axes:
///     - key: cluster.gpu
///       values: [A100-80G, H800, B200]
///     - key: cluster.gpus
///       range: {from: 64, to: 512, step: 64}     # or {from: 64, to: 1024, factor: 2}
///     - zip:                                      # zipped: one axis, values taken side by side
///         parallel.tp: [1, 2, 4]
///         parallel.sequence_parallel: [false, true, true]
///
/// Points are the cross product of the axes, the last axis varying fastest. A value `auto` for
/// parallel.dp (in the base or an axis) becomes cluster.gpus / (tp * pp * cp) at each point.
/// Every problem is reported at the sweep file's file:line with the key and the fix.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/diagnostic.hpp"
#include "flopcast/scenario/scenario.hpp"

namespace flopcast::io {

/// One axis: one key (or several zipped keys) and its values, as YAML scalars or flow text.
struct SweepAxis {
  std::vector<std::string> keys;                 ///< dotted scenario keys, e.g. "parallel.tp"
  std::vector<std::vector<std::string>> values;  ///< values[i][k]: value i of key k
  scenario::SourceLocation where;
  std::vector<scenario::SourceLocation> key_where;  ///< where each key is written (keys order)
  /// value_where[i][k]: where value i of key k is written (empty for a range's values).
  std::vector<std::vector<scenario::SourceLocation>> value_where;
  bool zipped = false;  ///< written as `zip:` (else `key:`)
  std::size_t size() const { return values.size(); }
};

/// A loaded sweep file.
struct SweepSpec {
  std::string file;       ///< the sweep file as named
  std::string base_file;  ///< the base scenario file ("" when inline)
  std::string base_text;  ///< the base scenario's YAML text
  std::vector<SweepAxis> axes;
  /// The base scenario's content as (dotted key, value) pairs sorted by key ("cluster.gpu" =
  /// "H800", "pricing.plans[0].id" = ...; an empty map or list as "{}" / "[]", a null as "null"),
  /// the swept keys and what lies under them left out, and the scenario's name and description
  /// (no figure of a row uses them): what the rows depend on besides the axes,
  /// whatever the file's comments, key order, flow or block style and quoting.
  std::vector<std::pair<std::string, std::string>> base_values;
  /// Number of points (product of the axis sizes; 1 with no axes).
  std::int64_t points() const;
  /// The (key, value) pairs of point `index` (axis order, zipped keys in their order).
  std::vector<std::pair<std::string, std::string>> point_values(std::int64_t index) const;
  /// Every swept key, in column order.
  std::vector<std::string> keys() const;
};

/// The most points a sweep may have (10^7): beyond it a typo in a range is more likely than
/// intent, and the output would be gigabytes.
inline constexpr std::int64_t kMaxSweepPoints = 10'000'000;

/// Parses a sweep document. `file` names it in diagnostics and anchors a relative `base:`.
std::optional<SweepSpec> parse_sweep(const std::string& text, const std::string& file, scenario::Diagnostics& diags);
/// Reads and parses a sweep file.
std::optional<SweepSpec> load_sweep_file(const std::string& path, scenario::Diagnostics& diags);

/// Checks every swept key and value against the scenario format before any point runs: a key the
/// scenario does not have (`parallel.micro_bacth`, `paralel.tp`) is an error at the key's
/// file:line with a did-you-mean naming the whole dotted key; a value its key cannot read
/// (`recompute: selectiv`, `tokens: "1,5T"`, a word where a number goes) is an error at the
/// value's file:line, whatever the other axes hold. Point 0 (the base with each axis's first value)
/// is read for the keys, and each value with the other axes at their first; what depends on the
/// values together (a plan that does not divide the GPUs) is left to the points. False when a key
/// or a value is refused.
bool check_sweep_keys(const SweepSpec& spec, const Catalog& catalog, scenario::Diagnostics& diags);

/// The scenario of point `index`: the base with the point's values set, `parallel.dp: auto`
/// resolved, parsed and checked (check_scenario). nullopt with diagnostics (naming the sweep
/// file and the point's values) when the point is not a valid scenario.
///
/// `used` (when given) receives the value each swept key (keys() order) has at the point as
/// the scenario uses it: a value written as `auto` is the value it resolves to (parallel.dp:
/// cluster.gpus / (tp * pp * cp)), or "" when it is not known here (it cannot be resolved, or
/// only the evaluation knows it: reliability.checkpoint_interval `auto` / `young_daly` and the
/// open settings (`auto` micro-batch, ZeRO, recompute, ...), which app::SweepEvaluator fills);
/// any other value as written.
std::optional<scenario::Scenario> sweep_point_scenario(const SweepSpec& spec, std::int64_t index,
                                                       const Catalog& catalog, scenario::Diagnostics& diags,
                                                       std::vector<std::string>* used = nullptr);

}  // namespace flopcast::io

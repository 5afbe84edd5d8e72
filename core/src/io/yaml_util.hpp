#pragma once
// Internal helpers of flopcast::io for reading YAML with diagnostics (not installed).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/scenario/diagnostic.hpp"

namespace flopcast::io::detail {

/// Parses `text` (its first YAML document) strictly, the one way every loader reads a file:
/// malformed YAML is an error at its file:line:col, and so is a key written twice in one
/// mapping, block or flow, at any depth ("duplicate key 'tp' (first at line 7)", at the second
/// key). yaml-cpp accepts duplicates and keeps both pairs, so a lookup silently takes one of them;
/// they are found on the parser's events, before the tree is built (aliases are not expanded, so
/// a document of nested aliases costs no more to check than to read). Every duplicate is
/// reported. Returns an undefined node when the text is refused, else the document (a null
/// node for an empty text).
YAML::Node load_yaml(const std::string& text, const std::string& file, scenario::Diagnostics& diags);

/// Where `node` is written (yaml-cpp marks are 0-based).
scenario::SourceLocation loc_of(const YAML::Node& node, const std::string& file);

/// The closest of `candidates` to `word` when it is close enough to be a likely typo.
std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
/// "a, b, c"
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

/// Reads values out of YAML maps, recording each problem and each key's location.
class Reader {
 public:
  Reader(std::string file, scenario::Diagnostics& diags, scenario::LocationMap* locs)
      : file_(std::move(file)), diags_(diags), locs_(locs) {}

  const std::string& file() const { return file_; }
  scenario::Diagnostics& diags() { return diags_; }

  /// Records where `path` is written.
  void note(const std::string& path, const YAML::Node& node);
  /// Reports each key of map `node` that is not in `allowed` (with a did-you-mean).
  void check_keys(const YAML::Node& node, const std::string& path, std::initializer_list<std::string_view> allowed);
  void check_keys(const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed);
  /// `node` must be a map; reports and returns false otherwise.
  bool expect_map(const YAML::Node& node, const std::string& path);

  void error(const YAML::Node& at, const std::string& path, std::string message, std::string hint = {});

  /// Integer in [lo, hi]; accepts count suffixes ("16K"). nullopt (with a diagnostic) when bad.
  std::optional<std::int64_t> integer(const YAML::Node& node, const std::string& path, std::int64_t lo,
                                      std::int64_t hi);
  /// Finite number in [lo, hi]; accepts count suffixes ("1.4T").
  std::optional<double> number(const YAML::Node& node, const std::string& path, double lo, double hi);
  std::optional<bool> boolean(const YAML::Node& node, const std::string& path);
  std::optional<std::string> string(const YAML::Node& node, const std::string& path);
  /// One of `choices`; reports the list otherwise.
  std::optional<std::string> choice(const YAML::Node& node, const std::string& path,
                                    std::initializer_list<std::string_view> choices);

 private:
  std::string file_;
  scenario::Diagnostics& diags_;
  scenario::LocationMap* locs_;
};

/// "path.key" (or "key" when path is empty).
inline std::string child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

/// Sets `value` (YAML text) at dotted `key` of map `root`, creating maps on the way (a preset
/// name written as a scalar on the way becomes {preset: name}). False when a part on the way is
/// a list or another non-map value (the key cannot exist there). Used by sweeps and claims.
bool set_key(YAML::Node root, const std::string& key, const std::string& value);

/// Scalar text of a node for messages ("<map>", "<list>" for others).
std::string describe(const YAML::Node& node);

}  // namespace flopcast::io::detail

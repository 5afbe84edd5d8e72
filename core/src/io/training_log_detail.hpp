#pragma once
// What the readers of training logs share (training_log*.cpp): the log's lines, numbers as
// frameworks print them, and the settings a log states with the line stating each.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/io/training_log.hpp"

namespace flopcast::io::detail {

/// One line of a log (without its line break and any terminal colour codes).
struct LogLine {
  int number = 0;  ///< 1-based
  std::string text;
};

/// `s` without ANSI escape sequences (torchtitan colours its step lines unless
/// metrics.disable_color_printing: torchtitan/tools/utils.py Color).
std::string strip_ansi(std::string_view s);

/// A number at the start of `s` (leading blanks skipped; thousands separators ',' allowed with
/// `commas`, as torchtitan prints tps and tflops with Python's ",": metrics.py). Sets `used` to
/// the characters read when given.
std::optional<double> leading_number(std::string_view s, bool commas = false, std::size_t* used = nullptr);
/// The number printed right after `label` in `line` ("elapsed time per iteration (ms): 1234.5").
std::optional<double> number_after(std::string_view line, std::string_view label, bool commas = false);

/// A setting a log states, with where.
struct Setting {
  std::string value;  ///< as printed ("8", "True", "None", "selective")
  int line = 0;
};

/// The settings a log states, by name. Python's reprs: True/False, None, ints, floats, strings.
class Settings {
 public:
  void put(const std::string& name, std::string value, int line) { map_[name] = {std::move(value), line}; }
  const Setting* find(const std::string& name) const;
  /// Stated and not None.
  bool has(const std::string& name) const;
  std::optional<std::int64_t> integer(const std::string& name) const;
  std::optional<double> number(const std::string& name) const;
  /// True/False (also true/false, as TOML and JSON write them); nullopt when absent or None.
  std::optional<bool> flag(const std::string& name) const;
  std::string text(const std::string& name) const;  ///< "" when absent or None
  int line(const std::string& name) const;          ///< 0 when absent
  bool empty() const { return map_.empty(); }

 private:
  std::map<std::string, Setting> map_;
};

/// Reads a Megatron-LM log (training_log_megatron.cpp); nullopt with diagnostics on problems.
std::optional<LoggedRun> read_megatron_log(const std::vector<LogLine>& lines, const std::string& file,
                                           scenario::Diagnostics& diags);
/// Reads a torchtitan log (training_log_torchtitan.cpp), with its TOML config when given.
std::optional<LoggedRun> read_torchtitan_log(const std::vector<LogLine>& lines, const std::string& file,
                                             const TrainingLogOptions& options, scenario::Diagnostics& diags);

/// The keys of a TOML document flattened to dotted names ("parallelism.tensor_parallel_degree"),
/// values as written (strings without their quotes, arrays as "[...]"). Reads the subset job
/// configs use (tables, key = value with strings, numbers, booleans and arrays, comments);
/// anything else is an error at its line (toml_subset.cpp).
bool read_toml_subset(const std::string& text, const std::string& file, Settings& out, scenario::Diagnostics& diags);

/// The keys of a JSON object flattened as read_toml_subset flattens TOML, after `prefix`, each
/// at `line` (torchtitan prints its config and its model's arguments as JSON). False when
/// `text` is not a JSON object.
bool read_json_settings(const std::string& text, const std::string& prefix, int line, Settings& out);

}  // namespace flopcast::io::detail

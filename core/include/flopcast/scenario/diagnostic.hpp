#pragma once
/// Diagnostics for bad input: every problem names where it is (file:line:col), the key
/// path, the bad value, what was expected and a hint. Loading collects them all.
#include <map>
#include <string>
#include <vector>

namespace flopcast::scenario {

/// A place in an input file (1-based line and column; 0 = unknown).
struct SourceLocation {
  std::string file;
  int line = 0;
  int col = 0;
  std::string str() const;  ///< "file:line:col", "file:line" or "file"
};

enum class Severity { Error, Warning };

/// One problem with an input.
struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLocation where;
  std::string key;      ///< key path, e.g. "parallel.tp"; empty for file-level problems
  std::string message;  ///< what is wrong, with the bad value and what is expected
  std::string hint;     ///< how to fix it; may be empty
  /// "file:line:col: error: key: message (hint: ...)"
  std::string str() const;
};

/// Key path -> where that key's value is written. Filled by io, read by checks in core.
using LocationMap = std::map<std::string, SourceLocation>;

/// An ordered list of diagnostics.
class Diagnostics {
 public:
  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  void error(SourceLocation where, std::string key, std::string message, std::string hint = {});
  void warning(SourceLocation where, std::string key, std::string message, std::string hint = {});
  /// Error at the location the map records for `key` (or the map's "" entry, the file).
  void error_at(const LocationMap& locs, const std::string& key, std::string message, std::string hint = {});
  bool has_errors() const;
  bool empty() const { return items_.empty(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  void append(const Diagnostics& other) { items_.insert(items_.end(), other.items_.begin(), other.items_.end()); }
  /// All diagnostics, one per line.
  std::string str() const;

 private:
  std::vector<Diagnostic> items_;
};

/// The location recorded for `key`, else for its closest recorded parent, else the file.
SourceLocation locate(const LocationMap& locs, const std::string& key);

}  // namespace flopcast::scenario

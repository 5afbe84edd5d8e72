#pragma once
/// A measured-run entry (docs/run-schema.md) being put together from a training log, and its
/// YAML. Keys are dotted paths ("parallel.tp") kept in the order they were set; the YAML nests
/// them in the run schema's order of sections. A key of the newest run schema that the
/// run-file loader does not read yet is kept as a comment (`pending`), so that the file loads
/// today and says what the log stated.
#include <cstdint>
#include <string>
#include <vector>

namespace flopcast::io {

/// One key of a draft.
struct DraftKey {
  std::string path;      ///< dotted key path, e.g. "model.moe.experts"
  std::string value;     ///< the YAML value as written (a number, true/false, a quoted string, a flow map)
  bool pending = false;  ///< written as a comment: a newest-schema key the loader does not read yet
};

/// A run entry in the making.
class RunDraft {
 public:
  void set(const std::string& path, std::int64_t v);
  void set(const std::string& path, double v);
  void set_bool(const std::string& path, bool v);
  /// A string value, written as a YAML double-quoted string when it needs quoting.
  void set_text(const std::string& path, const std::string& v);
  /// A value written as given (a flow map "{a: 1, b: 2}", a bare word).
  void set_raw(const std::string& path, const std::string& yaml);
  /// A newest-schema key written as a comment (see the file's header).
  void set_pending(const std::string& path, const std::string& yaml);
  void add_note(const std::string& note) { notes_.push_back(note); }

  /// The value set for `path` ("" when none; pending keys included).
  std::string get(const std::string& path) const;
  bool has(const std::string& path) const { return find(path) != nullptr; }
  const std::vector<DraftKey>& keys() const { return keys_; }
  const std::vector<std::string>& notes() const { return notes_; }

  /// The entry as one item of a YAML list ("- id: ...\n  source: ...\n  model:\n    ..."),
  /// sections in the run schema's order (id, source, kind, reliability, model, cluster,
  /// parallel, precision, fp8_params, grad_reduce, measured, notes), pending keys as comments.
  std::string yaml() const;

 private:
  const DraftKey* find(const std::string& path) const;
  void put(const std::string& path, std::string value, bool pending);
  std::vector<DraftKey> keys_;
  std::vector<std::string> notes_;
};

/// A number as a run file writes it: integers without a decimal point, others with up to 6
/// significant digits ("12.4135", "0.0001").
std::string yaml_number(double v);
/// `s` as a YAML scalar: bare when it reads back as the same string, else double-quoted.
std::string yaml_string(const std::string& s);

}  // namespace flopcast::io

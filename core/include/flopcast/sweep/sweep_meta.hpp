#pragma once
/// A sweep output's identity, in the sidecar FILE.meta.json written beside every sweep output
/// (FILE.csv or FILE.jsonl), so that the output itself is plain CSV (a header row, then one row
/// per point) or plain JSONL (one object per point). --resume, --check and merge read the
/// sidecar: which sweep the rows belong to (sweep id, axes, points, base scenario hash, the
/// flopcast version that wrote them), which shard, and each column's type and direction.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace flopcast::sweep {

enum class Format { Csv, Jsonl };
/// ".jsonl" -> Jsonl, anything else -> Csv.
Format format_of_path(const std::string& path);

/// What a column's cells hold. JSONL writes each as its JSON type; an empty cell (a figure the
/// point does not have) is `null` there and an empty field in CSV.
enum class CellType {
  Integer,  ///< the point index
  Number,   ///< a figure (decimal text)
  Boolean,  ///< true / false
  Text,     ///< free text (an explanation, a plan id, a currency code)
  Value,    ///< a swept scenario value as used at the point: a number, true/false or text
};

/// Which way a figure is better, for --check: a change against it is a regression.
enum class Better {
  None,    ///< neither (a plan id, a currency): a change is reported, never a regression
  Lower,   ///< step time, days, cost, memory
  Higher,  ///< MFU, tokens/s; for a boolean, true (a plan that fits)
};

/// One output column after the leading "point" column.
struct Column {
  std::string name;
  CellType type = CellType::Text;
  Better better = Better::None;
  bool compare = false;  ///< checked by --check against a baseline
};

/// The values of one axis (several keys when zipped), as the sweep file gives them.
struct AxisValues {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  ///< values[i][k]: value i of key k
  bool operator==(const AxisValues&) const = default;
};

/// One value of the base scenario: its dotted key ("training.tokens", "pricing.plans[0].id") and
/// its value as written (a scalar's text; "null", "[]" or "{}").
using BaseValue = std::pair<std::string, std::string>;

/// Which sweep a file's rows belong to.
struct SweepIdentity {
  std::string id;                ///< ties the rows to the axes and the base scenario's content (16 hex digits)
  std::string scenario_hash;     ///< of the base scenario's content (16 hex digits)
  std::string flopcast_version;  ///< the version that computed the rows
  std::int64_t points = 0;       ///< in the whole sweep
  std::vector<AxisValues> axes;
  /// The base scenario's content, by key, the swept keys (their base values are never used) and
  /// the scenario's name and description left out: what the rows depend on besides the axes. Comments, key order, flow
  /// or block style and quoting are not part of it.
  std::vector<BaseValue> base;
  /// False for a sidecar of format 1 (flopcast 0.6 and before), which kept a hash of the base
  /// scenario's text only: `base` is empty and `scenario_hash` is that text's.
  bool base_known = true;
};

/// The sidecar of one output file.
struct SweepMeta {
  SweepIdentity identity;
  int shard = 1;  ///< 1-based
  int shards = 1;
  Format format = Format::Csv;
  std::vector<Column> columns;  ///< after "point"
  /// The command that computes these rows, without the shard, output and thread flags
  /// ({"flopcast", "sweep", "SWEEP.yml", "--estimate"}): merge prints it, completed with
  /// --shard and --out, for a shard that is missing or unfinished. Empty when not known.
  std::vector<std::string> command;
  int format_version = 0;  ///< of the sidecar read (read_meta); meta_json writes the current one
};

/// The sidecar format this flopcast writes (2: the base scenario's content and the command; 1
/// had a hash of the base scenario's text).
inline constexpr int kSidecarFormat = 2;

/// FILE.meta.json for FILE.
std::string meta_path(const std::string& out_path);

/// The sidecar's JSON text (deterministic: the same sweep and shard give the same bytes).
std::string meta_json(const SweepMeta& meta);

/// Reads the sidecar of `out_path`. nullopt with `error` (naming the sidecar and what to do) when
/// it is missing, unreadable or not a flopcast sweep sidecar.
std::optional<SweepMeta> read_meta(const std::string& out_path, std::string& error);

/// Why rows with identity `theirs` are not rows of the sweep `ours`: "" when they are (same id,
/// axes, points and base scenario content; the flopcast version is not compared here), else the
/// first difference in words ("its axes are parallel.tp (4 values) x parallel.pp (3 values), this
/// sweep's parallel.tp (4 values); 12 points there, 4 here"; "its base scenario differs:
/// training.tokens 5B there, 10B here").
std::string other_sweep_reason(const SweepIdentity& theirs, const SweepIdentity& ours);

/// other_sweep_reason for the points alone: "" when `theirs` has the same axes (keys and values)
/// and points as `ours`, whatever its base scenario; --check compares such files point by point.
std::string other_points_reason(const SweepIdentity& theirs, const SweepIdentity& ours);

/// One difference between two base scenarios: a key whose value changed, was added or removed.
struct BaseChange {
  std::string key;
  std::string theirs, ours;  ///< the values; "" where the key is absent
  bool in_theirs = true, in_ours = true;
};

/// The keys of the base scenario that differ between `theirs` and `ours` (key order); empty when
/// either does not know its base content (base_known).
std::vector<BaseChange> base_changes(const SweepIdentity& theirs, const SweepIdentity& ours);

/// `command` as one shell line: each word quoted with '...' when it holds a character the shell
/// would read ("flopcast sweep 'my sweep.yml' --estimate").
std::string shell_line(const std::vector<std::string>& command);

/// "lower", "higher" or "" (Better::None).
const char* better_name(Better b);

}  // namespace flopcast::sweep

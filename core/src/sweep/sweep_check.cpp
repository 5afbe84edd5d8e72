#include "flopcast/sweep/sweep_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include <fmt/format.h>

#include "sweep_rows.hpp"

namespace flopcast::sweep {
namespace {

/// One side of the comparison: a sweep output with its sidecar.
struct Side {
  std::string path;
  SweepMeta meta;
  detail::RowsFile rows;
  std::vector<std::string> names;                        ///< column names after "point", in the file's order
  std::unordered_map<std::int64_t, std::size_t> row_of;  ///< point -> index in rows.rows
};

/// Reads `path` and its sidecar; "" or what is wrong (`unreadable` when a file cannot be read).
std::string load_side(const std::string& path, Side& s, bool& unreadable) {
  s.path = path;
  std::string err;
  auto meta = read_meta(path, err);
  if (!meta) {
    unreadable = unreadable || ::access(meta_path(path).c_str(), R_OK) != 0;
    return err;
  }
  s.meta = std::move(*meta);
  s.rows = detail::read_rows(path);
  if (!s.rows.error.empty()) {
    unreadable = unreadable || ::access(path.c_str(), R_OK) != 0;
    return s.rows.error;
  }
  if (s.rows.torn) return path + ": its last line is torn (the run was interrupted); finish it with --resume first";
  for (const auto& c : s.meta.columns) s.names.push_back(c.name);
  if (s.meta.format == Format::Csv && s.rows.header != s.names)
    return path + ":1: its header row does not match the columns of its sidecar " + meta_path(path);
  s.row_of.reserve(s.rows.rows.size());
  for (std::size_t i = 0; i < s.rows.rows.size(); ++i) {
    const std::int64_t p = detail::row_point(s.meta.format, s.rows.rows[i]);
    if (p < 0 || !s.row_of.emplace(p, i).second)
      return fmt::format("{}:{}: {} (edited or mixed?)", path, detail::header_lines(s.meta.format) + 1 + i,
                         p < 0 ? "not a row of a sweep" : fmt::format("point {} appears twice", p));
  }
  return "";
}

bool number_of(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

/// The difference between two cells of column `c`, or nullopt when there is none to report.
std::optional<CheckFinding> classify(const Column& c, const std::string& b, const std::string& n, double rtol) {
  if (b == n) return std::nullopt;
  CheckFinding f;
  f.column = c.name;
  f.baseline = b;
  f.current = n;
  f.better = c.better;
  if (b.empty()) {
    f.change = Change::New;
    return f;
  }
  if (n.empty()) {
    f.change = c.better == Better::None ? Change::Changed : Change::Regression;  // the figure is gone
    return f;
  }
  if (c.type == CellType::Boolean && c.better != Better::None && (b == "true" || b == "false") &&
      (n == "true" || n == "false")) {
    const bool better_now = (n == "true") == (c.better == Better::Higher);
    f.change = better_now ? Change::Improvement : Change::Regression;
    return f;
  }
  double x = 0, y = 0;
  if (c.type != CellType::Number || !number_of(b, x) || !number_of(n, y)) {
    f.change = Change::Changed;
    return f;
  }
  if (x == y) return std::nullopt;  // the same number written differently (0.54 and 0.5400)
  if (x != 0) {
    f.relative = (y - x) / std::fabs(x);
    if (std::fabs(*f.relative) <= rtol) return std::nullopt;
  }
  const bool up = y > x;
  if (c.better == Better::None)
    f.change = Change::Changed;
  else
    f.change = up == (c.better == Better::Higher) ? Change::Improvement : Change::Regression;
  return f;
}

/// "parallel.tp=2, parallel.pp=1": the swept values of a row.
std::string where_of(const Side& s, const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < s.meta.columns.size() && i < cells.size(); ++i)
    if (s.meta.columns[i].type == CellType::Value) out += (out.empty() ? "" : ", ") + s.names[i] + "=" + cells[i];
  return out;
}

/// The notes on what the two files do not share (versions, columns, a base scenario that cannot
/// be compared).
void add_notes(const Side& cur, const Side& base, CheckResult& cr) {
  const auto& b = base.meta.identity;
  if (!b.base_known || !cur.meta.identity.base_known)
    cr.notes.push_back(
        fmt::format("the {} sidecar (format 1, an older flopcast) records only a hash of the base "
                    "scenario's text: what changed in the base scenario, if anything, is not shown",
                    b.base_known ? "current file's" : "baseline's"));
  if (cur.meta.identity.flopcast_version != base.meta.identity.flopcast_version)
    cr.notes.push_back(fmt::format("the baseline was written by flopcast {}, this run by flopcast {}",
                                   base.meta.identity.flopcast_version, cur.meta.identity.flopcast_version));
  for (const auto& c : cur.meta.columns)
    if (c.compare && std::find(base.names.begin(), base.names.end(), c.name) == base.names.end())
      cr.notes.push_back("column " + c.name + " is not in the baseline: not compared");
  for (const auto& c : base.meta.columns)
    if (c.compare && std::find(cur.names.begin(), cur.names.end(), c.name) == cur.names.end())
      cr.notes.push_back("column " + c.name + " of the baseline is no longer written: not compared");
}

/// Compares the rows of one point (present on both sides).
void compare_rows(const Side& cur, const Side& base, std::int64_t p,
                  const std::vector<std::pair<std::size_t, std::size_t>>& pairs, CheckResult& cr) {
  std::vector<std::string> a, b;
  const auto& cur_row = cur.rows.rows[cur.row_of.at(p)];
  const auto& base_row = base.rows.rows[base.row_of.at(p)];
  if (!detail::row_cells(cur.meta.format, cur_row, cur.names, a) ||
      !detail::row_cells(base.meta.format, base_row, base.names, b)) {
    cr.errors.push_back(fmt::format("point {}: a row that cannot be read (in {} or {})", p, cur.path, base.path));
    return;
  }
  ++cr.compared;
  for (const auto& [ci, bi] : pairs) {
    if (auto f = classify(cur.meta.columns[ci], b[bi], a[ci], cr.rtol)) {
      f->point = p;
      f->where = where_of(cur, a);
      cr.findings.push_back(std::move(*f));
    }
  }
}

std::string other_sweep_error(const std::string& baseline_path, const std::string& why) {
  return baseline_path + ": a baseline of another sweep: " + why +
         "; --check compares two runs of the same points (the same axes and values), point by point: write a new "
         "baseline with flopcast sweep SWEEP.yml --out " +
         baseline_path + " --force";
}

}  // namespace

std::string baseline_refusal(const std::string& baseline_path, const SweepIdentity& ours, bool& unreadable) {
  std::string err;
  const auto meta = read_meta(baseline_path, err);
  if (!meta) {
    unreadable = unreadable || ::access(meta_path(baseline_path).c_str(), R_OK) != 0;
    return err;
  }
  const auto why = other_points_reason(meta->identity, ours);
  return why.empty() ? "" : other_sweep_error(baseline_path, why);
}

std::int64_t CheckResult::count(Change c) const {
  return std::count_if(findings.begin(), findings.end(), [c](const CheckFinding& f) { return f.change == c; });
}

CheckResult check_against_baseline(const std::string& current_path, const std::string& baseline_path, double rtol) {
  CheckResult cr;
  cr.rtol = rtol;
  Side cur, base;
  for (const auto& e : {load_side(current_path, cur, cr.unreadable), load_side(baseline_path, base, cr.unreadable)})
    if (!e.empty()) cr.errors.push_back(e);
  if (!cr.errors.empty()) return cr;
  cr.identity = cur.meta.identity;
  if (const auto why = other_points_reason(base.meta.identity, cur.meta.identity); !why.empty()) {
    cr.errors.push_back(other_sweep_error(baseline_path, why));
    return cr;
  }
  cr.base_changes = base_changes(base.meta.identity, cur.meta.identity);
  add_notes(cur, base, cr);
  // The compared columns: (index in the current file, index in the baseline).
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < cur.meta.columns.size(); ++i) {
    if (!cur.meta.columns[i].compare) continue;
    const auto it = std::find(base.names.begin(), base.names.end(), cur.names[i]);
    if (it != base.names.end()) pairs.emplace_back(i, static_cast<std::size_t>(it - base.names.begin()));
  }
  const int k = cur.meta.shard, n = cur.meta.shards;
  const std::int64_t in_shard = detail::shard_size(cur.meta.identity.points, k, n);
  for (std::int64_t i = 0; i < in_shard && cr.errors.empty(); ++i) {
    const std::int64_t p = (k - 1) + i * n;
    const bool in_cur = cur.row_of.count(p) > 0, in_base = base.row_of.count(p) > 0;
    if (in_cur && in_base)
      compare_rows(cur, base, p, pairs, cr);
    else if (in_cur || in_base)
      cr.findings.push_back({p, "", "(row)", in_base ? "present" : "", in_cur ? "present" : "", std::nullopt,
                             in_base ? Change::Regression : Change::New, Better::None});
  }
  return cr;
}

}  // namespace flopcast::sweep

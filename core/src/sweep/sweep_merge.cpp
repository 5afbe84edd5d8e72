// merge_shards (sweep_runner.hpp): the shard files of one sweep joined into one file and its
// sidecar, as an unsharded run writes them.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "flopcast/io/atomic_file.hpp"
#include "flopcast/sweep/sweep_runner.hpp"
#include "sweep_rows.hpp"

namespace flopcast::sweep {
namespace {

/// One shard: its path, sidecar and rows.
struct Shard {
  std::string path;
  SweepMeta meta;
  detail::RowsFile rows;
};

/// The command that computes (or finishes) shard k/n into `path`: the shards' own command
/// (SweepMeta::command) with --shard, --out and --resume.
std::string redo_command(const SweepMeta& m, const std::string& path, int k, int n) {
  std::vector<std::string> c = m.command;
  if (c.size() < 3) c = {"flopcast", "sweep", "SWEEP.yml"};
  for (const auto& w :
       {std::string("--shard"), fmt::format("{}/{}", k, n), std::string("--out"), path, std::string("--resume")})
    c.push_back(w);
  return "`" + shell_line(c) + "`";
}

/// The file name shard `k` would have, from the name of shard `s`: the number in its file name
/// that is the shard's (s, or s - 1 when the names count from 0, as Kubernetes' indexes do)
/// replaced (part-1.csv -> part-2.csv; shard-0.csv -> shard-1.csv); "PART-k.csv" (or .jsonl)
/// when no single number in the name is.
std::string sibling_path(const std::string& path, int s, int k, Format f) {
  const std::size_t name_at = path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1;
  for (const int base : {s, s - 1}) {
    std::size_t at = std::string::npos, len = 0;
    int found = 0;
    for (std::size_t i = name_at; i < path.size();) {
      if (path[i] < '0' || path[i] > '9') {
        ++i;
        continue;
      }
      const std::size_t j = path.find_first_not_of("0123456789", i);
      const std::size_t n = (j == std::string::npos ? path.size() : j) - i;
      if (n < 9 && std::stoi(path.substr(i, n)) == base) {
        at = i;
        len = n;
        ++found;
      }
      i += n;
    }
    if (found == 1) return path.substr(0, at) + std::to_string(k - s + base) + path.substr(at + len);
  }
  return fmt::format("PART-{}{}", k, f == Format::Csv ? ".csv" : ".jsonl");
}

std::vector<std::string> column_names(const SweepMeta& m) {
  std::vector<std::string> v;
  for (const auto& c : m.columns) v.push_back(c.name);
  return v;
}

/// Reads every shard's sidecar and rows; errors for a missing or torn one.
std::vector<Shard> read_shards(const std::vector<std::string>& inputs, std::vector<std::string>& errors) {
  std::vector<Shard> shards;
  for (const auto& in : inputs) {
    Shard s;
    s.path = in;
    std::string err;
    auto meta = read_meta(in, err);
    if (!meta) {
      errors.push_back(err);
      continue;
    }
    s.meta = std::move(*meta);
    if (s.meta.format_version != kSidecarFormat) {
      errors.push_back(
          fmt::format("{}: written by an older flopcast (sidecar format {}): run shard {}/{} again with "
                      "this flopcast",
                      in, s.meta.format_version, s.meta.shard, s.meta.shards));
      continue;
    }
    s.rows = detail::read_rows(in);
    if (!s.rows.error.empty())
      errors.push_back(s.rows.error);
    else if (s.rows.torn)
      errors.push_back(
          fmt::format("{}: its last line is torn (shard {}/{} was interrupted); finish it with {}, then "
                      "merge again",
                      in, s.meta.shard, s.meta.shards, redo_command(s.meta, in, s.meta.shard, s.meta.shards)));
    else
      shards.push_back(std::move(s));
  }
  return shards;
}

/// Every shard of the first one's sweep, shard count, version, format and columns; each shard
/// number once, all of them, each complete.
void check_shards(const std::vector<Shard>& shards, std::vector<std::string>& errors) {
  const Shard& a = shards.front();
  std::set<int> seen;
  for (const auto& b : shards) {
    if (const auto why = other_sweep_reason(b.meta.identity, a.meta.identity); !why.empty())
      errors.push_back(b.path + ": from another sweep than " + a.path + ": " + why);
    else if (b.meta.shards != a.meta.shards)
      errors.push_back(fmt::format("{}: shard {}/{}, but {} is shard {}/{}: every shard of one --shard k/N run", b.path,
                                   b.meta.shard, b.meta.shards, a.path, a.meta.shard, a.meta.shards));
    else if (b.meta.identity.flopcast_version != a.meta.identity.flopcast_version)
      errors.push_back(fmt::format("{}: written by flopcast {}, {} by flopcast {}: run every shard with one version",
                                   b.path, b.meta.identity.flopcast_version, a.path, a.meta.identity.flopcast_version));
    else if (b.meta.format != a.meta.format)
      errors.push_back(b.path + ": mixes CSV and JSONL shards");
    else if (column_names(b.meta) != column_names(a.meta))
      errors.push_back(b.path + ": its columns differ from " + a.path + "'s");
    else if (!seen.insert(b.meta.shard).second)
      errors.push_back(fmt::format("{}: shard {}/{} is given twice", b.path, b.meta.shard, b.meta.shards));
    else if (b.meta.command.size() >= 3 && a.meta.command.size() >= 3 &&
             !std::equal(b.meta.command.begin() + 3, b.meta.command.end(), a.meta.command.begin() + 3,
                         a.meta.command.end()))
      errors.push_back(fmt::format("{}: computed by `{}`, {} by `{}`: run every shard with the same flags", b.path,
                                   shell_line(b.meta.command), a.path, shell_line(a.meta.command)));
    else if (const auto want = detail::shard_size(a.meta.identity.points, b.meta.shard, b.meta.shards);
             static_cast<std::int64_t>(b.rows.rows.size()) != want)
      errors.push_back(
          fmt::format("{}: shard {}/{} holds {} of its {} rows (the run stopped early); finish it with "
                      "{}, then merge again",
                      b.path, b.meta.shard, b.meta.shards, b.rows.rows.size(), want,
                      redo_command(b.meta, b.path, b.meta.shard, b.meta.shards)));
  }
  if (!errors.empty()) return;
  // Each missing shard with the command that computes it (at most kListed; the rest counted).
  constexpr int kListed = 10;
  const int n = a.meta.shards;
  std::vector<int> missing;
  for (int k = 1; k <= n; ++k)
    if (!seen.count(k)) missing.push_back(k);
  for (std::size_t i = 0; i < missing.size() && i < kListed; ++i)
    errors.push_back(fmt::format(
        "shard {}/{} is missing (no file of it among the {} given): compute it with {}, "
        "then merge again with its file",
        missing[i], n, shards.size(),
        redo_command(a.meta, sibling_path(a.path, a.meta.shard, missing[i], a.meta.format), missing[i], n)));
  if (missing.size() > kListed) {
    std::string rest;
    for (std::size_t i = kListed; i < missing.size(); ++i)
      rest += fmt::format("{}{}", rest.empty() ? "" : ", ", missing[i]);
    errors.push_back(fmt::format("and {} more shards of {} are missing: {}", missing.size() - kListed, n, rest));
  }
}

}  // namespace

std::vector<std::string> merge_shards(const std::vector<std::string>& inputs, const std::string& out_path, bool force) {
  std::vector<std::string> errors;
  if (inputs.empty()) return {"no shard files to merge"};
  const std::vector<Shard> shards = read_shards(inputs, errors);
  if (!errors.empty()) return errors;
  check_shards(shards, errors);
  const SweepMeta& a = shards.front().meta;
  if (format_of_path(out_path) != a.format)
    errors.push_back(out_path + ": the merged file must have the shards' format (" +
                     std::string(a.format == Format::Csv ? ".csv" : ".jsonl") + ")");
  if (!errors.empty()) return errors;
  std::vector<const std::string*> by_point(static_cast<std::size_t>(a.identity.points), nullptr);
  for (const auto& s : shards) {
    for (std::size_t r = 0; r < s.rows.rows.size(); ++r) {
      const std::int64_t p = detail::row_point(a.format, s.rows.rows[r]);
      if (p < 0 || p >= a.identity.points || p % s.meta.shards != s.meta.shard - 1 ||
          by_point[static_cast<std::size_t>(p)]) {
        errors.push_back(fmt::format("{}:{}: not a row of shard {}/{} (edited or mixed?)", s.path,
                                     detail::header_lines(a.format) + 1 + r, s.meta.shard, s.meta.shards));
        break;
      }
      by_point[static_cast<std::size_t>(p)] = &s.rows.rows[r];
    }
  }
  if (!errors.empty()) return errors;
  SweepMeta merged = a;
  merged.shard = merged.shards = 1;
  std::string text = detail::header_text(a.format, a.columns);
  for (const auto* row : by_point) text += *row + "\n";
  std::string err;
  if (!io::write_file_atomically(out_path, text, force, err) ||
      !io::write_file_atomically(meta_path(out_path), meta_json(merged), true, err))
    errors.push_back(err);
  return errors;
}

}  // namespace flopcast::sweep

#pragma once
// What the sweep tests share: a temporary folder, whole-file reading and writing, and a small
// synthetic sweep (a deterministic evaluation with a quoted cell and a comma, to exercise CSV
// quoting, and typed columns) run through sweep::run_sweep.
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "flopcast/sweep/sweep_runner.hpp"
#include "test_files.hpp"

namespace flopcast::test {

/// A temporary folder; `t / "name"` is the path of a file in it.
struct SweepDir : TempDir {
  SweepDir() : TempDir("sweep") {}
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

inline std::string slurp(const std::string& p) { return read_file(p); }

inline void spit(const std::string& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

/// Columns: a (a swept value), feasible, why, step_time_s (lower is better), mfu (higher).
inline const std::vector<sweep::Column>& fake_columns() {
  using sweep::Better;
  using sweep::CellType;
  static const std::vector<sweep::Column> cols = {{"a", CellType::Value, Better::None, false},
                                                  {"feasible", CellType::Boolean, Better::Higher, true},
                                                  {"why", CellType::Text, Better::None, false},
                                                  {"step_time_s", CellType::Number, Better::Lower, true},
                                                  {"mfu", CellType::Number, Better::Higher, true}};
  return cols;
}

/// Point i: a = i*7 % 13, feasible unless i % 5 == 0, a quoted why every third point, step
/// time 1.5 i, MFU empty on infeasible points.
inline std::vector<std::string> fake_eval(std::int64_t i) {
  const bool fits = i % 5 != 0;
  return {std::to_string(i * 7 % 13), fits ? "true" : "false", i % 3 == 0 ? "why, \"quoted\"" : "",
          std::to_string(1.5 * static_cast<double>(i)), fits ? "0.5" : ""};
}

/// The identity of the synthetic sweep: one axis a = 0..points-1.
inline sweep::SweepIdentity fake_identity(std::int64_t points = 101, const std::string& id = "00000000000000aa") {
  sweep::SweepIdentity s;
  s.id = id;
  s.scenario_hash = "00000000000000bb";
  s.flopcast_version = "0.1.0";
  s.points = points;
  sweep::AxisValues a;
  a.keys = {"a"};
  for (std::int64_t i = 0; i < points; ++i) a.values.push_back({std::to_string(i)});
  s.axes.push_back(std::move(a));
  return s;
}

/// run_sweep of the synthetic sweep; --force unless resuming.
inline sweep::RunStats run_fake(const std::string& out, int threads, int shard = 1, int shards = 1,
                                std::int64_t stop = -1, bool resume = false,
                                const sweep::SweepIdentity& identity = fake_identity()) {
  sweep::RunOptions o;
  o.threads = threads;
  o.shard = shard;
  o.shards = shards;
  o.stop_after = stop;
  o.resume = resume;
  o.force = !resume;
  return sweep::run_sweep(out, identity, fake_columns(), fake_eval, o, nullptr);
}

}  // namespace flopcast::test

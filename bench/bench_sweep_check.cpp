// Prints how fast a 10,000-point sweep is written and checked against a baseline (target: the
// sweep with --check under 2 s on 2 cores). The points are evaluated by a cheap synthetic
// function filling flopcast's real sweep columns (app::sweep_output_columns) with figures of a
// realistic width, so the figures are those of the runner (-j2, ordered writes, sidecar) and of
// the check itself (both files and sidecars read, every compared cell classified, the report
// written), not of the step model. The current run differs from its baseline on every 97th point
// (step time +5%: a regression) and every 89th (MFU +5%: an improvement), at 2% tolerance.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "flopcast/app/sweep_check_report.hpp"
#include "flopcast/app/sweep_evaluator.hpp"
#include "flopcast/sweep/sweep_check.hpp"
#include "flopcast/sweep/sweep_runner.hpp"

namespace {

using namespace flopcast;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kGpus = 100, kMicro = 100;  // 10,000 points

sweep::SweepIdentity identity() {
  sweep::SweepIdentity s;
  s.id = "00000000bench000";
  s.scenario_hash = "00000000bench001";
  s.flopcast_version = "bench";
  s.points = kGpus * kMicro;
  sweep::AxisValues g, m;
  g.keys = {"cluster.gpus"};
  m.keys = {"parallel.micro_batch"};
  for (std::int64_t i = 0; i < kGpus; ++i) g.values.push_back({std::to_string(8 * (i + 1))});
  for (std::int64_t i = 0; i < kMicro; ++i) m.values.push_back({std::to_string(i + 1)});
  s.axes = {g, m};
  return s;
}

std::vector<sweep::Column> columns() {
  std::vector<sweep::Column> cols = {{"cluster.gpus", sweep::CellType::Value},
                                     {"parallel.micro_batch", sweep::CellType::Value}};
  for (const auto& c : app::sweep_output_columns()) cols.push_back(c);
  return cols;
}

/// The cells of point i (the columns above); `changed`: the current run's differences.
std::vector<std::string> cells(std::int64_t i, bool changed) {
  const double gpus = 8.0 * static_cast<double>(i / kMicro + 1), micro = static_cast<double>(i % kMicro + 1);
  const bool fits = i % 7 != 0;
  const double step = 3.0 * micro / gpus * 64 * (changed && i % 97 == 0 ? 1.05 : 1.0);
  const double mfu = 0.45 * (changed && i % 89 == 0 ? 1.05 : 1.0);
  std::vector<std::string> c = {fmt::format("{}", gpus),
                                fmt::format("{}", micro),
                                fits ? "true" : "false",
                                fits ? "" : "needs 94.8 GiB per GPU, the H800 has 79.7 GiB",
                                "estimate",
                                fmt::format("{:.6f}", step),
                                fmt::format("{:.4f}", mfu),
                                fmt::format("{:.1f}", 4096 * micro / step),
                                fmt::format("{:.2f}", 40 + micro / 4)};
  if (fits) {
    const std::vector<std::string> priced = {fmt::format("{:.3f}", step * 900),
                                             fmt::format("{:.3f}", step * 980),
                                             "USD",
                                             "on-demand",
                                             fmt::format("{:.2f}", step * gpus * 1200),
                                             fmt::format("{:.2f}", step * gpus * 1310),
                                             "on-demand=1200.00;reserved-1y=900.00"};
    c.insert(c.end(), priced.begin(), priced.end());
  } else {
    c.resize(c.size() + 7);
  }
  return c;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

bool run(const std::string& out, bool changed, double& secs) {
  sweep::RunOptions o;
  o.threads = 2;
  o.force = true;
  const auto t0 = Clock::now();
  const auto st = sweep::run_sweep(
      out, identity(), columns(), [changed](std::int64_t i) { return cells(i, changed); }, o, nullptr);
  secs = seconds_since(t0);
  for (const auto& e : st.errors) std::fprintf(stderr, "bench_sweep_check: %s\n", e.c_str());
  return st.ok();
}

bool bench(const fs::path& dir, const std::string& ext) {
  const std::string base = (dir / ("base" + ext)).string(), now = (dir / ("now" + ext)).string();
  double t_base = 0, t_now = 0;
  if (!run(base, false, t_base) || !run(now, true, t_now)) return false;
  const auto t0 = Clock::now();
  const auto cr = sweep::check_against_baseline(now, base, 0.02);
  const std::string report = app::sweep_check_text(cr, now, base);
  const double t_check = seconds_since(t0);
  for (const auto& e : cr.errors) std::fprintf(stderr, "bench_sweep_check: %s\n", e.c_str());
  if (!cr.errors.empty()) return false;
  std::printf(
      "%-6s 10,000 points: baseline written in %.3f s, current in %.3f s (-j2, synthetic points); check %.3f s "
      "(%lld points compared, %lld regressions, %lld improvements, report %zu bytes); sweep + check %.3f s "
      "(target < 2 s)\n",
      ext.c_str(), t_base, t_now, t_check, static_cast<long long>(cr.compared),
      static_cast<long long>(cr.count(sweep::Change::Regression)),
      static_cast<long long>(cr.count(sweep::Change::Improvement)), report.size(), t_now + t_check);
  return true;
}

}  // namespace

int main() {
  const fs::path dir = fs::temp_directory_path() / ("flopcast-bench-sweep-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const bool ok = bench(dir, ".csv") && bench(dir, ".jsonl");
  std::error_code ec;
  fs::remove_all(dir, ec);
  return ok ? 0 : 1;
}

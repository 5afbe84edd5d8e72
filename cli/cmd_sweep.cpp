// flopcast sweep / merge: batch runs of a scenario over axes, sharded and resumable.
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/sweep_evaluator.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/sweep_loader.hpp"
#include "flopcast/sweep/sweep_runner.hpp"

namespace flopcast::cli {
namespace {

/// "2%" or "0.02" -> 0.02; nullopt when not a tolerance.
std::optional<double> parse_tolerance(std::string t) {
  const bool pct = !t.empty() && t.back() == '%';
  if (pct) t.pop_back();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !(v >= 0) || !std::isfinite(v)) return std::nullopt;
  return pct ? v / 100 : v;
}

/// --check: prints each regression; sets the exit code (6 on differences, 4 on unreadable files).
void run_check(CliContext& ctx, const std::string& current, const std::string& baseline, double tol) {
  const auto cr = sweep::check_against_baseline(current, baseline, tol);
  for (const auto& e : cr.errors) ctx.fail(kIoError, e);
  if (!cr.errors.empty()) return;
  for (const auto& f : cr.findings)
    ctx.out << fmt::format("regression: point {} {}: baseline {} now {}{}\n", f.point, f.column, f.baseline, f.current,
                           f.relative > 0 && f.relative < 1e9 ? fmt::format(" ({:+.1f}%)", 100 * f.relative) : "");
  ctx.out << fmt::format("check: {} points compared with {} at {:.3g}% tolerance: {} differences\n", cr.compared,
                         baseline, 100 * tol, cr.findings.size());
  if (!cr.findings.empty()) ctx.exit_code = kCheckFailed;
}

struct SweepOpts {
  std::string file, out, shard = "1/1", check, tolerance = "2%", profile;
  int threads = 1;
  bool resume = false, force = false, estimate = false;
  std::int64_t stop_after = -1;
};

/// `flopcast sweep`: checks the flags, loads the sweep file, runs its points (app::SweepEvaluator)
/// on the sweep runner and, with --check, compares the output with a baseline.
void run_sweep_command(CliContext& ctx, const SweepOpts& o) {
  int k = 0, n = 0;
  char tail = 0;
  if (std::sscanf(o.shard.c_str(), "%d/%d%c", &k, &n, &tail) != 2 || n < 1 || k < 1 || k > n)
    return ctx.fail(kUsage, "--shard '" + o.shard + "': expected k/N with 1 <= k <= N, e.g. 2/4");
  const auto tol = parse_tolerance(o.tolerance);
  if (!tol)
    return ctx.fail(kUsage, "--tolerance '" + o.tolerance + "': expected a percentage (2%) or a fraction (0.02)");
  if (o.resume && o.force)
    return ctx.fail(kUsage, "--resume and --force contradict each other (continue the file, or overwrite it)");
  std::error_code ec;
  if (std::filesystem::is_directory(o.out, ec))
    return ctx.fail(kIoError, "cannot write " + o.out + ": it is a folder; name a file inside it");
  const io::Catalog* cat = ctx.catalog();
  if (!cat) return;
  Diagnostics diags;
  auto spec = io::load_sweep_file(o.file, diags);
  if (!diags.empty()) ctx.err << diags.str();
  if (!spec) {
    ctx.exit_code = io::any_unreadable_file(diags) ? kIoError : kBadInput;
    return;
  }
  app::SweepEvaluator evaluator(*spec, *cat, ctx.data_dir, o.profile,
                                o.estimate ? app::StepEngine::Estimate : app::StepEngine::Simulation);
  const sweep::Evaluate eval = [&evaluator](std::int64_t index) { return evaluator.cells(index); };
  sweep::RunOptions ro;
  ro.threads = o.threads;
  ro.shard = k;
  ro.shards = n;
  ro.resume = o.resume;
  ro.force = o.force;
  ro.stop_after = o.stop_after;
  ro.progress = ::isatty(2) == 1;
  // The id ties the output to the sweep file's axes, so --resume and merge refuse another sweep.
  const std::string id = app::sweep_id(*spec);
  const auto st = sweep::run_sweep(o.out, id, spec->points(), evaluator.columns(), eval, ro, &ctx.err);
  if (!st.ok()) {
    for (const auto& e : st.errors) ctx.fail(kIoError, e);
    return;
  }
  ctx.err << fmt::format("sweep: {} points, shard {}/{} has {}; {} resumed{}, {} written in {:.2f} s -> {}\n",
                         st.points, k, n, st.in_shard, st.resumed,
                         st.torn_line_dropped ? " (a torn last row dropped)" : "", st.written, st.seconds, o.out);
  if (st.stopped) {
    ctx.err << "sweep: stopped after " << st.written << " rows (--stop-after); continue with --resume\n";
    return;
  }
  if (!o.check.empty()) run_check(ctx, o.out, o.check, *tol);
}

}  // namespace

void register_sweep(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<SweepOpts>();
  auto* cmd =
      app.add_subcommand("sweep", "Run a scenario over the axes of a sweep file: one row per point (CSV or JSONL)");
  cmd->add_option("sweep", o->file, "Sweep YAML (base scenario + axes; see scenarios/sweeps/)")->required();
  cmd->add_option("-o,--out", o->out, "Output file: .csv or .jsonl")->required()->type_name("FILE");
  add_jobs_flag(*cmd, o->threads, "Worker threads (output identical whatever the count)", 1);
  add_deprecated_spelling(*cmd, ctx, "--threads", o->threads, "-j, --jobs");
  cmd->add_option("--shard", o->shard, "Run only slice k of N (k/N, 1-based): points with index % N == k-1");
  cmd->add_flag("--resume", o->resume, "Continue an interrupted run from --out (a torn last row is dropped)");
  cmd->add_flag("--force", o->force, "Overwrite --out");
  cmd->add_flag("--estimate", o->estimate,
                "Step time from the closed-form estimate instead of the discrete-event simulation");
  cmd->add_option("--check", o->check, "Baseline CSV/JSONL to compare the figures with; exit 6 on a regression");
  cmd->add_option("--tolerance", o->tolerance, "Relative tolerance of --check, e.g. 2% or 0.02 (default 2%)");
  cmd->add_option("--profile", o->profile, "Calibration profile for every point instead of each scenario's");
  cmd->add_option("--stop-after", o->stop_after, "Stop after writing N rows, as if killed (for testing --resume)")
      ->group("");
  cmd->callback([&ctx, o] { run_sweep_command(ctx, *o); });
}

void register_merge(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::vector<std::string> inputs;
    std::string out, check, tolerance = "2%";
    bool force = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("merge", "Join the shard files of a sweep (--shard k/N runs) into one file");
  cmd->add_option("shards", o->inputs, "Shard files (CSV or JSONL), all N of them")->required();
  cmd->add_option("-o,--out", o->out, "Merged file (same format)")->required()->type_name("FILE");
  cmd->add_flag("--force", o->force, "Overwrite --out");
  cmd->add_option("--check", o->check, "Baseline CSV/JSONL to compare the merged figures with; exit 6 on a regression");
  cmd->add_option("--tolerance", o->tolerance, "Relative tolerance of --check, e.g. 2% or 0.02 (default 2%)");
  cmd->callback([&ctx, o] {
    const auto tol = parse_tolerance(o->tolerance);
    if (!tol)
      return ctx.fail(kUsage, "--tolerance '" + o->tolerance + "': expected a percentage (2%) or a fraction (0.02)");
    std::error_code ec;
    if (std::filesystem::is_directory(o->out, ec))
      return ctx.fail(kIoError, "cannot write " + o->out + ": it is a folder; name a file inside it");
    const auto errors = sweep::merge_shards(o->inputs, o->out, o->force);
    for (const auto& e : errors) ctx.err << ctx.who() << ": error: " << e << "\n";
    if (!errors.empty()) {
      bool io = false;
      for (const auto& e : errors)
        io = io || e.find("cannot read") != std::string::npos || e.find("exists") != std::string::npos;
      ctx.exit_code = io ? kIoError : kBadInput;
      return;
    }
    ctx.err << "merge: " << o->inputs.size() << " shards -> " << o->out << "\n";
    if (!o->check.empty()) run_check(ctx, o->out, o->check, *tol);
  });
}

}  // namespace flopcast::cli

// flopcast sweep / merge: batch runs of a scenario over axes, sharded and resumable.
#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/sweep_check_report.hpp"
#include "flopcast/app/sweep_evaluator.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/sweep_loader.hpp"
#include "flopcast/sweep/sweep_check.hpp"
#include "flopcast/sweep/sweep_runner.hpp"
#include "flopcast/sweep/sweep_shard.hpp"
#include "interrupt_guard.hpp"

namespace flopcast::cli {
namespace {

/// -o naming a folder: refused before any work (exit 4), as every command refuses it.
bool out_is_folder(CliContext& ctx, const std::string& out) {
  std::error_code ec;
  if (!std::filesystem::is_directory(out, ec)) return false;
  ctx.fail(kIoError, "cannot write " + out + ": it is a folder; name a file inside it");
  return true;
}

/// --check's tolerance flags: --tolerance takes a percentage ("2%"), --rtol a fraction ("0.02").
struct ToleranceFlags {
  std::string tolerance, rtol;
};

/// The relative tolerance the flags give (app::check_tolerance); nullopt with the usage error
/// printed when they are wrong.
std::optional<double> tolerance_of(CliContext& ctx, const ToleranceFlags& f) {
  std::string error;
  const auto rtol = app::check_tolerance(f.tolerance, f.rtol, error);
  if (!rtol) ctx.fail(kUsage, error);
  return rtol;
}

void add_tolerance_flags(CLI::App* cmd, ToleranceFlags& f) {
  cmd->add_option("--tolerance", f.tolerance,
                  "Relative tolerance of --check as a percentage, e.g. 2% (the default); a bare number is refused");
  cmd->add_option("--rtol", f.rtol, "Relative tolerance of --check as a fraction, e.g. 0.02 (= --tolerance 2%)");
}

/// --check: prints every difference beyond the tolerance (signed, regressions apart from
/// improvements); exit 6 on a regression, 4 on an unreadable file or sidecar, 3 on a baseline of
/// another sweep.
void run_check(CliContext& ctx, const std::string& current, const std::string& baseline, double rtol) {
  const auto cr = sweep::check_against_baseline(current, baseline, rtol);
  for (const auto& e : cr.errors) ctx.err << ctx.who() << ": error: " << e << "\n";
  if (!cr.errors.empty()) {
    ctx.exit_code = cr.unreadable ? kIoError : kBadInput;
    return;
  }
  ctx.out << app::sweep_check_text(cr, current, baseline);
  if (cr.failed()) ctx.exit_code = kCheckFailed;
}

struct SweepOpts {
  std::string file, out, shard = "1/1", check, profile;
  ToleranceFlags tolerance;
  int threads = 1;
  int shards = 0;  ///< --shards (with --shard auto); 0 = not given
  bool resume = false, force = false, estimate = false;
  std::int64_t stop_after = -1;
};

/// What a sweep stopped by a signal wrote, and the command that continues it; the exit status
/// says the signal (main() then ends the process by it).
void report_interrupted(CliContext& ctx, const sweep::RunOptions& ro, const std::string& out,
                        const sweep::RunStats& st) {
  const int sig = caught_signal();
  const int k = ro.shard, n = ro.shards;
  const std::string of =
      n == 1 ? "the " + std::to_string(st.in_shard) : fmt::format("shard {}/{}'s {}", k, n, st.in_shard);
  std::vector<std::string> again = ro.command;
  if (n > 1) again.insert(again.end(), {"--shard", fmt::format("{}/{}", k, n)});
  again.insert(again.end(), {"--out", out, "--resume"});
  ctx.err << fmt::format(
      "sweep: interrupted by {}: {} of {} rows are in {} ({} written now, {} resumed); continue "
      "with: {}\n",
      signal_name(sig), st.resumed + st.written, of, out, st.written, st.resumed, sweep::shell_line(again));
  ctx.exit_code = kInterrupted - SIGINT + sig;  // 128 + the signal, as a shell reports it
}

/// `flopcast sweep`: checks the flags, loads the sweep file, runs its points (app::SweepEvaluator)
/// on the sweep runner and, with --check, compares the output with a baseline.
void run_sweep_command(CliContext& ctx, const SweepOpts& o) {
  std::string shard_error;
  const auto shard = sweep::parse_shard(
      o.shard, o.shards, [](const char* name) { return std::getenv(name); }, shard_error);
  if (!shard) {
    ctx.err << ctx.who() << ": error: " << shard_error << "\n";
    ctx.exit_code = kUsage;
    return;
  }
  const int k = shard->shard, n = shard->shards;
  const auto tol = tolerance_of(ctx, o.tolerance);
  if (!tol) return;
  if (o.resume && o.force) {
    ctx.err << ctx.who()
            << ": error: --resume and --force contradict each other (continue the file, or overwrite it)\n";
    ctx.exit_code = kUsage;
    return;
  }
  if (out_is_folder(ctx, o.out)) return;
  const io::Catalog* cat = ctx.catalog();
  if (!cat) return;
  scenario::Diagnostics diags;
  auto spec = io::load_sweep_file(o.file, diags);
  if (spec && !io::check_sweep_keys(*spec, *cat, diags)) spec.reset();  // a typo fails before any point runs
  if (!diags.empty()) ctx.err << diags.str();
  if (!spec) {
    ctx.exit_code = io::any_unreadable_file(diags) ? kIoError : kBadInput;
    return;
  }
  const sweep::SweepIdentity identity = app::sweep_identity(*spec);
  if (!o.check.empty()) {  // a wrong baseline fails now, not after the sweep
    bool unreadable = false;
    if (const auto e = sweep::baseline_refusal(o.check, identity, unreadable); !e.empty()) {
      ctx.err << ctx.who() << ": error: " << e << "\n";
      ctx.exit_code = unreadable ? kIoError : kBadInput;
      return;
    }
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
  ro.command = {"flopcast", "sweep", o.file};
  if (o.estimate) ro.command.push_back("--estimate");
  if (!o.profile.empty()) ro.command.insert(ro.command.end(), {"--profile", o.profile});
  // The identity (in the output's sidecar) ties the rows to the sweep file's axes and base
  // scenario, so that --resume, --check and merge refuse another sweep's rows.
  sweep::RunStats st;
  {
    const InterruptGuard guard;  // Ctrl-C or SIGTERM: stop at a whole row and say so
    ro.cancel = &guard.flag();
    st = sweep::run_sweep(o.out, identity, evaluator.columns(), eval, ro, &ctx.err);
  }
  if (st.interrupted) {
    report_interrupted(ctx, ro, o.out, st);
    return;
  }
  if (!st.ok()) {
    for (const auto& e : st.errors) ctx.err << ctx.who() << ": error: " << e << "\n";
    ctx.exit_code = kIoError;
    return;
  }
  ctx.err << fmt::format("sweep: {} points, shard {}/{}{} has {}; {} resumed{}, {} written in {:.2f} s -> {}\n",
                         st.points, k, n, shard->source.empty() ? "" : " (" + shard->source + ")", st.in_shard,
                         st.resumed, st.torn_line_dropped ? " (a torn last row dropped)" : "", st.written, st.seconds,
                         o.out);
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
  cmd->add_option("--shard", o->shard,
                  "Run only slice k of N (k/N, 1-based): points with index % N == k-1; or auto: k and N from a Slurm "
                  "job array (SLURM_ARRAY_TASK_ID, _COUNT, _MIN) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, "
                  "with --shards)")
      ->type_name("k/N|auto");
  cmd->add_option("--shards", o->shards,
                  "With --shard auto in a Kubernetes Indexed Job: the number of shards (the Job's completions)")
      ->type_name("N")
      ->check(CLI::Range(1, 10'000'000));
  cmd->add_flag("--resume", o->resume, "Continue an interrupted run from --out (a torn last row is dropped)");
  cmd->add_flag("--force", o->force, "Overwrite --out");
  cmd->add_flag("--estimate", o->estimate,
                "Step time from the closed-form estimate instead of the discrete-event simulation");
  cmd->add_option("--check", o->check,
                  "Baseline CSV/JSONL (with its .meta.json) of the same sweep to compare the figures with; exit 6 on a "
                  "regression");
  add_tolerance_flags(cmd, o->tolerance);
  cmd->add_option("--profile", o->profile, "Calibration profile for every point instead of each scenario's");
  cmd->add_option("--stop-after", o->stop_after, "Stop after writing N rows, as if killed (for testing --resume)")
      ->group("");
  cmd->callback([&ctx, o] { run_sweep_command(ctx, *o); });
}

void register_merge(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::vector<std::string> inputs;
    std::string out, check;
    ToleranceFlags tolerance;
    bool force = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("merge", "Join the shard files of a sweep (--shard k/N runs) into one file");
  cmd->add_option("shards", o->inputs, "Shard files (CSV or JSONL, each with its .meta.json), all N of them")
      ->required();
  cmd->add_option("-o,--out", o->out, "Merged file (same format)")->required()->type_name("FILE");
  cmd->add_flag("--force", o->force, "Overwrite --out");
  cmd->add_option("--check", o->check,
                  "Baseline CSV/JSONL (with its .meta.json) of the same sweep to compare the merged figures with; exit "
                  "6 on a regression");
  add_tolerance_flags(cmd, o->tolerance);
  cmd->callback([&ctx, o] {
    const auto tol = tolerance_of(ctx, o->tolerance);
    if (!tol || out_is_folder(ctx, o->out)) return;
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

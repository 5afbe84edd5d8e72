// flopcast sweep / merge: batch runs of a scenario over axes, sharded and resumable.
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <thread>

#include "cli_context.hpp"
#include "flopcast/app/evaluation.hpp"
#include "flopcast/io/sweep_loader.hpp"
#include "flopcast/sweep/sweep_runner.hpp"
#include "flopcast/units/format.hpp"

namespace flopcast::cli {
namespace {

/// The output columns after the swept keys.
const std::vector<sweep::Column>& output_columns() {
  static const std::vector<sweep::Column> cols = {
      {"feasible", false, true},       {"why", false, false},    {"method", false, false},
      {"step_time_s", true, true},     {"mfu", true, true},      {"memory_gib", true, true},
      {"days_p50", true, true},        {"days_p90", true, true}, {"currency", false, false},
      {"cheapest_plan", false, false}, {"cost_p50", true, true}, {"cost_p90", true, true},
      {"costs", false, false},
  };
  return cols;
}

/// First error of a diagnostics list, on one line.
std::string first_error(const Diagnostics& d) {
  std::string out;
  for (const auto& x : d.items()) {
    if (x.severity != Severity::Error) continue;
    if (!out.empty()) out += "; ";
    out += (x.key.empty() ? "" : x.key + ": ") + x.message;
    if (out.size() > 300) break;
  }
  return out;
}

std::string num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

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
  for (const auto& e : cr.errors) ctx.err << "error: " << e << "\n";
  if (!cr.errors.empty()) {
    ctx.exit_code = kIoError;
    return;
  }
  for (const auto& f : cr.findings)
    ctx.out << fmt::format("regression: point {} {}: baseline {} now {}{}\n", f.point, f.column, f.baseline, f.current,
                           f.relative > 0 && f.relative < 1e9 ? fmt::format(" ({:+.1f}%)", 100 * f.relative) : "");
  ctx.out << fmt::format("check: {} points compared with {} at {:.3g}% tolerance: {} differences\n", cr.compared,
                         baseline, 100 * tol, cr.findings.size());
  if (!cr.findings.empty()) ctx.exit_code = kCheckFailed;
}

}  // namespace

void register_sweep(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::string file, out, shard = "1/1", check, tolerance = "2%", profile;
    int threads = 1;
    bool resume = false, force = false, estimate = false;
    std::int64_t stop_after = -1;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd =
      app.add_subcommand("sweep", "Run a scenario over the axes of a sweep file: one row per point (CSV or JSONL)");
  cmd->add_option("sweep", o->file, "Sweep YAML (base scenario + axes; see scenarios/sweeps/)")->required();
  cmd->add_option("--out,-o", o->out, "Output file: .csv or .jsonl")->required();
  cmd->add_option("-j,--threads", o->threads, "Worker threads (output identical whatever the count)")
      ->check(CLI::Range(1, 256));
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
  cmd->callback([&ctx, o] {
    int k = 0, n = 0;
    char tail = 0;
    if (std::sscanf(o->shard.c_str(), "%d/%d%c", &k, &n, &tail) != 2 || n < 1 || k < 1 || k > n) {
      ctx.err << "error: --shard '" << o->shard << "': expected k/N with 1 <= k <= N, e.g. 2/4\n";
      ctx.exit_code = kUsage;
      return;
    }
    const auto tol = parse_tolerance(o->tolerance);
    if (!tol) {
      ctx.err << "error: --tolerance '" << o->tolerance << "': expected a percentage (2%) or a fraction (0.02)\n";
      ctx.exit_code = kUsage;
      return;
    }
    if (o->resume && o->force) {
      ctx.err << "error: --resume and --force contradict each other (continue the file, or overwrite it)\n";
      ctx.exit_code = kUsage;
      return;
    }
    const io::Catalog* cat = ctx.catalog();
    if (!cat) return;
    Diagnostics diags;
    auto spec = io::load_sweep_file(o->file, diags);
    if (!diags.empty()) ctx.err << diags.str();
    if (!spec) {
      ctx.exit_code = kBadInput;
      for (const auto& d : diags.items())
        if (d.key.empty() && (d.message == "file not found" || d.message == "cannot read file"))
          ctx.exit_code = kIoError;
      return;
    }
    std::vector<sweep::Column> cols;
    for (const auto& key : spec->keys()) cols.push_back({key, false, false});
    for (const auto& c : output_columns()) cols.push_back(c);

    // Profiles by name, loaded once (points may name different calibrations).
    std::mutex prof_mu;
    std::map<std::string, std::optional<ComputeProfile>> profiles;
    auto profile_for = [&](const std::string& name) -> std::optional<ComputeProfile> {
      if (name.empty()) return cat->profile;
      std::lock_guard lk(prof_mu);
      auto it = profiles.find(name);
      if (it == profiles.end()) {
        Diagnostics pd;
        it = profiles.emplace(name, io::load_profile(name, *cat, pd)).first;
      }
      return it->second;
    };
    const std::string data_dir = ctx.data_dir;
    const auto nkeys = spec->keys().size();
    sweep::Evaluate eval = [&, nkeys](std::int64_t index) {
      std::vector<std::string> cells;
      for (const auto& [key, value] : spec->point_values(index)) cells.push_back(value);
      cells.resize(nkeys + output_columns().size());
      std::string* out = cells.data() + nkeys;
      // feasible, why, method, step, mfu, mem, p50, p90, currency, cheapest, cost50, cost90, costs
      out[2] = o->estimate ? "estimate" : "simulation";
      Diagnostics d;
      auto s = io::sweep_point_scenario(*spec, index, *cat, d);
      if (!s) {
        out[0] = "no";
        out[1] = "invalid: " + first_error(d);
        return cells;
      }
      const auto prof = profile_for(!o->profile.empty() ? o->profile : s->calibration);
      if (!prof) {
        out[0] = "no";
        out[1] = "invalid: calibration profile '" + s->calibration + "' cannot be loaded";
        return cells;
      }
      app::SimReport r =
          app::make_report(*s, *prof, o->estimate ? app::StepEngine::Estimate : app::StepEngine::Simulation);
      r.scenario = &*s;
      out[3] = num(r.est.step.seconds(), 6);
      out[4] = num(r.est.mfu, 4);
      out[5] = num(r.est.memory.total().value / 1073741824.0, 2);
      if (!r.fits_memory) {
        out[0] = "no";
        out[1] =
            fmt::format("needs {:.1f} GiB per GPU, the {} has {:.1f} GiB", r.est.memory.total().value / 1073741824.0,
                        s->cluster.gpu.name, r.est.memory.capacity.value / 1073741824.0);
        return cells;
      }
      Diagnostics wd;
      if (!app::add_whole_run(r, data_dir, wd)) {
        out[0] = "no";
        out[1] = "invalid: " + first_error(wd);
        return cells;
      }
      out[0] = "yes";
      if (r.run && !r.run->ok()) {
        out[0] = "no";
        out[1] = "whole run: " + r.run->errors.front();
      } else if (r.run) {
        out[6] = num(r.run->result.wall_p50.days(), 3);
        out[7] = num(r.run->result.wall_p90.days(), 3);
      }
      if (r.bills) {
        const auto& cmp = r.bills->comparison;
        out[8] = cmp.currency.str();
        std::string costs;
        for (const auto& row : cmp.rows) {
          if (!row.p50.ok() || !row.p90.ok()) continue;
          costs += (costs.empty() ? "" : ";") + row.option.id + "=" + num(row.p50.total.major(), 2) + "/" +
                   num(row.p90.total.major(), 2);
        }
        out[12] = costs;
        if (cmp.cheapest) {
          const auto& row = cmp.rows[*cmp.cheapest];
          out[9] = row.option.id;
          out[10] = num(row.p50.total.major(), 2);
          out[11] = num(row.p90.total.major(), 2);
        } else if (out[1].empty()) {
          out[1] = "no price plan of the catalog bills this GPU";
        }
      }
      return cells;
    };
    sweep::RunOptions ro;
    ro.threads = o->threads;
    ro.shard = k;
    ro.shards = n;
    ro.resume = o->resume;
    ro.force = o->force;
    ro.stop_after = o->stop_after;
    ro.progress = ::isatty(2) == 1;
    // The id ties the output to the sweep file's axes, so --resume and merge refuse another sweep.
    std::string id_src;
    for (const auto& a : spec->axes)
      for (std::size_t i = 0; i < a.keys.size(); ++i) {
        id_src += a.keys[i] + "=";
        for (const auto& v : a.values) id_src += v[i] + ",";
      }
    id_src += spec->base_text;
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64
    for (const unsigned char c : id_src) h = (h ^ c) * 1099511628211ull;
    const std::string id = fmt::format("{:016x}", h);
    const auto st = sweep::run_sweep(o->out, id, spec->points(), cols, eval, ro, &ctx.err);
    if (!st.ok()) {
      for (const auto& e : st.errors) ctx.err << "error: " << e << "\n";
      ctx.exit_code = kIoError;
      return;
    }
    ctx.err << fmt::format("sweep: {} points, shard {}/{} has {}; {} resumed{}, {} written in {:.2f} s -> {}\n",
                           st.points, k, n, st.in_shard, st.resumed,
                           st.torn_line_dropped ? " (a torn last row dropped)" : "", st.written, st.seconds, o->out);
    if (st.stopped) {
      ctx.err << "sweep: stopped after " << st.written << " rows (--stop-after); continue with --resume\n";
      return;
    }
    if (!o->check.empty()) run_check(ctx, o->out, o->check, *tol);
  });
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
  cmd->add_option("--out,-o", o->out, "Merged file (same format)")->required();
  cmd->add_flag("--force", o->force, "Overwrite --out");
  cmd->add_option("--check", o->check, "Baseline CSV/JSONL to compare the merged figures with; exit 6 on a regression");
  cmd->add_option("--tolerance", o->tolerance, "Relative tolerance of --check, e.g. 2% or 0.02 (default 2%)");
  cmd->callback([&ctx, o] {
    const auto tol = parse_tolerance(o->tolerance);
    if (!tol) {
      ctx.err << "error: --tolerance '" << o->tolerance << "': expected a percentage (2%) or a fraction (0.02)\n";
      ctx.exit_code = kUsage;
      return;
    }
    const auto errors = sweep::merge_shards(o->inputs, o->out, o->force);
    for (const auto& e : errors) ctx.err << "error: " << e << "\n";
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

#include "flopcast/app/log_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "flopcast/io/scenario_loader.hpp"

namespace flopcast::app {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/// The median of one optional figure over the kept intervals, when every kept interval has it.
std::optional<double> median_of(const std::vector<io::LoggedInterval>& all, const std::vector<std::size_t>& kept,
                                std::optional<double> io::LoggedInterval::*figure) {
  std::vector<double> v;
  for (auto i : kept)
    if (const auto& f = all[i].*figure) v.push_back(*f);
  if (v.empty() || v.size() != kept.size()) return std::nullopt;
  return median(v);
}

/// An id from the log's file name: lower case, letters, digits, '-', '_' and '.'.
std::string id_of(const std::string& path, std::set<std::string>& taken) {
  std::string base;
  for (char c : std::filesystem::path(path).stem().string()) {
    const auto u = static_cast<unsigned char>(c);
    base += std::isalnum(u) || c == '-' || c == '_' || c == '.' ? static_cast<char>(std::tolower(u)) : '-';
  }
  if (base.empty()) base = "run";
  std::string id = base;
  for (int n = 2; taken.count(id); ++n) id = base + "-" + std::to_string(n);
  taken.insert(id);
  return id;
}

/// The catalog GPU of one run: the request's, else the one the log names.
bool resolve_gpu(const ImportRequest& request, const io::Catalog& catalog, ImportedRun& run, ImportResult& result) {
  const auto* named = run.log.device_name.empty() ? nullptr : catalog.find_gpu(run.log.device_name);
  if (!request.gpu.empty()) {
    run.gpu = catalog.find_gpu(request.gpu)->name;
    if (named && named->name != run.gpu)
      result.diags.warning({run.file, run.log.device_line, 0}, "cluster.gpu",
                           "the log names " + run.log.device_name + " (" + named->name + ") but --gpu says " + run.gpu +
                               ": writing " + run.gpu,
                           "drop --gpu to write the GPU the log names");
    return true;
  }
  if (named) {
    run.gpu = named->name;
    return true;
  }
  result.problem = ImportProblem::NoGpu;
  result.message = run.log.device_name.empty()
                       ? run.file + " does not name its GPU type: give --gpu NAME (flopcast catalog gpus lists them)"
                       : run.file + ":" + std::to_string(run.log.device_line) + " names GPU '" + run.log.device_name +
                             "', which the catalog does not know: give --gpu NAME (flopcast catalog gpus lists them)";
  return false;
}

/// The steady state, or an error naming file:line.
bool find_steady_state(ImportedRun& run, scenario::Diagnostics& diags) {
  const auto& log = run.log;
  run.steady = steady_state(log.intervals, log.global_batch);
  if (!run.steady.empty()) return true;
  const bool megatron = log.framework == io::LogFramework::MegatronLm;
  if (log.intervals.empty()) {
    diags.error({run.file, log.lines, 0}, "",
                std::string("no steady iteration: the log ends at line ") + std::to_string(log.lines) +
                    " before its first logged iteration (" +
                    (megatron ? "\"elapsed time per iteration (ms)\"" : "\"step: N ... tps: ...\"") + ")",
                "import the log of a job that ran past its first iterations");
    return false;
  }
  const auto& last = log.intervals.back();
  diags.error({run.file, last.line, 0}, "",
              "no steady iteration: the log's " + std::to_string(log.intervals.size()) + " logged interval(s) (lines " +
                  std::to_string(log.intervals.front().line) + "-" + std::to_string(last.line) + ") are all warm-up" +
                  (run.steady.ramp_up ? " or batch ramp-up" : ""),
              "a steady state needs a logged interval after the first " +
                  std::to_string(SteadyState::kWarmupIntervals) + ": run longer or lower " + log.log_interval_setting);
  return false;
}

std::string fmt_gib(double v) { return fmt::format("{:.1f} GiB", v); }

/// The entry: id, source, the log's keys, the cluster, measured, notes.
void compose_entry(const ImportRequest& request, ImportedRun& run) {
  const auto& log = run.log;
  const auto& s = run.steady;
  auto& e = run.entry;
  const bool megatron = log.framework == io::LogFramework::MegatronLm;
  e.set_text("id", run.id);
  e.set_text("source", std::string(io::to_string(log.framework)) + " training log " + run.file);
  e.set_raw("kind", "training_log");
  e.set_raw("reliability", "A");
  e.set_text("cluster.gpu", run.gpu);
  for (const auto& k : log.draft.keys()) {
    if (k.pending)
      e.set_pending(k.path, k.value);
    else
      e.set_raw(k.path, k.value);
  }
  if (request.gpus_per_node > 0) e.set("cluster.gpus_per_node", static_cast<std::int64_t>(request.gpus_per_node));
  if (!request.fabric.empty()) e.set_text("cluster.fabric", request.fabric);
  if (megatron)
    e.set("measured.iteration_time_s", s.seconds);
  else if (s.tokens_per_gpu_s)
    e.set("measured.tokens_per_gpu_s", *s.tokens_per_gpu_s);
  if (log.memory) {
    e.set("measured.memory_gib", log.memory->gib);
    e.set_raw("measured.memory_kind", log.memory->kind);
  }
  // The log's own TFLOP/s and MFU, with how it counts FLOPs: validate converts them to flopcast's count.
  if (s.tflops_per_gpu) e.set("measured.tflops_per_gpu", *s.tflops_per_gpu);
  if (s.mfu) e.set("measured.mfu", *s.mfu);
  if (s.tflops_per_gpu || s.mfu) e.set_raw("measured.flops_convention", log.flops_convention);

  const auto& first = log.intervals[s.kept.front()];
  const auto& last = log.intervals[s.kept.back()];
  std::string dropped;
  auto add = [&](int n, const char* what) {
    if (n) dropped += (dropped.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  add(s.warmup, "at the start");
  add(s.ramp_up, "in the batch ramp-up");
  add(s.slow, "slower than 1.5x the median");
  e.add_note(fmt::format(
      "steady state: median of {} logged interval(s), iterations {}-{} (lines {}-{}), {:.4g} s per "
      "iteration, spread {:.4g}-{:.4g} s ({:.1f}%){}",
      s.kept.size(), first.iteration, last.iteration, first.line, last.line, s.seconds, s.min_seconds, s.max_seconds,
      (s.max_seconds - s.min_seconds) / s.seconds * 100.0, dropped.empty() ? "" : "; dropped " + dropped));
  if (!megatron && s.tokens_per_gpu_s)
    e.add_note(
        fmt::format("the iteration time follows from tps: {} sequences x {} tokens / ({:.4g} tokens/s x {} GPUs)",
                    log.global_batch, log.seq_len, *s.tokens_per_gpu_s, log.gpus));
  if (log.memory) {
    std::string m = fmt::format("memory_gib: the highest peak {} memory of {} report(s) (line {})", log.memory->kind,
                                log.memory->reports, log.memory->line);
    if (log.memory->allocated_gib) m += "; highest peak allocated " + fmt_gib(*log.memory->allocated_gib);
    e.add_note(m);
  }
  if (s.tflops_per_gpu)
    e.add_note(fmt::format("the log's throughput: {:.4g} TFLOP/s per GPU (median), counted {}", *s.tflops_per_gpu,
                           megatron ? "by Megatron-LM's num_floating_point_operations"
                                    : "by torchtitan (6N plus full, not causal, attention)"));
  e.add_note(request.gpu.empty() ? "cluster.gpu: " + run.gpu + ", as the log names it (" + log.device_name + ", line " +
                                       std::to_string(log.device_line) + ")"
                                 : "cluster.gpu: " + run.gpu + ", given on import (the log does not say)");
  for (const auto& n : log.draft.notes()) e.add_note(n);
}

}  // namespace

SteadyState steady_state(const std::vector<io::LoggedInterval>& intervals, std::int64_t global_batch) {
  SteadyState s;
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    if (static_cast<int>(i) < SteadyState::kWarmupIntervals) {
      ++s.warmup;
    } else if (global_batch > 0 && intervals[i].global_batch > 0 && intervals[i].global_batch != global_batch) {
      ++s.ramp_up;
    } else {
      candidates.push_back(i);
    }
  }
  if (candidates.empty()) return s;
  std::vector<double> times;
  for (auto i : candidates) times.push_back(intervals[i].seconds);
  const double limit = SteadyState::kSlowFactor * median(times);
  times.clear();
  for (auto i : candidates) {
    if (intervals[i].seconds > limit) {
      ++s.slow;
      continue;
    }
    s.kept.push_back(i);
    times.push_back(intervals[i].seconds);
  }
  s.seconds = median(times);
  s.min_seconds = *std::min_element(times.begin(), times.end());
  s.max_seconds = *std::max_element(times.begin(), times.end());
  s.tokens_per_gpu_s = median_of(intervals, s.kept, &io::LoggedInterval::tokens_per_gpu_s);
  s.tflops_per_gpu = median_of(intervals, s.kept, &io::LoggedInterval::tflops_per_gpu);
  s.mfu = median_of(intervals, s.kept, &io::LoggedInterval::mfu);
  return s;
}

ImportResult import_logs(const ImportRequest& request, const io::Catalog& catalog) {
  ImportResult result;
  auto flag_problem = [&](ImportProblem p, const std::string& flag, const std::string& name,
                          const std::vector<std::string>& known) {
    result.problem = p;
    result.message = flag + ": unknown " + (p == ImportProblem::UnknownGpu ? "GPU" : "fabric") + " '" + name +
                     "' (known: " + fmt::format("{}", fmt::join(known, ", ")) + ")";
    return result;
  };
  if (!request.gpu.empty() && !catalog.find_gpu(request.gpu))
    return flag_problem(ImportProblem::UnknownGpu, "--gpu", request.gpu, catalog.gpu_names());
  if (!request.fabric.empty() && !catalog.find_fabric(request.fabric))
    return flag_problem(ImportProblem::UnknownFabric, "--fabric", request.fabric, catalog.fabric_names());
  io::TrainingLogOptions options;
  options.torchtitan_config = request.torchtitan_config;
  std::set<std::string> taken;
  for (const auto& file : request.logs) {
    scenario::Diagnostics diags;
    auto log = io::read_training_log(file, options, diags);
    ImportedRun run;
    run.file = file;
    if (log) {
      run.log = std::move(*log);
      if (find_steady_state(run, diags)) {
        run.id = id_of(file, taken);
        result.runs.push_back(std::move(run));
      }
    }
    if (io::any_unreadable_file(diags)) result.problem = ImportProblem::Unreadable;
    if (diags.has_errors() && result.problem == ImportProblem::None) result.problem = ImportProblem::BadLog;
    result.diags.append(diags);
  }
  if (!result.ok()) return result;
  const bool titan = std::any_of(result.runs.begin(), result.runs.end(),
                                 [](const auto& r) { return r.log.framework == io::LogFramework::Torchtitan; });
  if (!request.torchtitan_config.empty() && !titan)
    result.diags.warning({request.torchtitan_config, 0, 0}, "",
                         "not read: --config is a torchtitan job config and none of the logs is torchtitan's",
                         "drop --config");
  for (auto& run : result.runs)
    if (!resolve_gpu(request, catalog, run, result)) return result;
  std::string yaml =
      "# Measured runs read from training logs by `flopcast import` (docs/run-schema.md). Check them with\n"
      "# `flopcast validate FILE`; fit a profile with `flopcast calibrate FILE -o PROFILE.yaml`.\n"
      "# A commented \"# key: value\" is a key of the newest run schema this version does not read yet.\n";
  for (auto& run : result.runs) {
    compose_entry(request, run);
    yaml += "\n" + run.entry.yaml();
  }
  result.yaml = yaml;
  return result;
}

std::string import_summary(const ImportedRun& run) {
  const auto& d = run.log.draft;
  std::string s = fmt::format("{}: {}, {} layers x {}, {} x {} (tp {}, pp {}, dp {}", run.id,
                              io::to_string(run.log.framework), d.get("model.layers"), d.get("model.hidden"),
                              run.log.gpus, run.gpu, d.get("parallel.tp"), d.get("parallel.pp"), d.get("parallel.dp"));
  if (d.get("parallel.cp") != "1" && !d.get("parallel.cp").empty()) s += ", cp " + d.get("parallel.cp");
  s += fmt::format("), {:.4g} s per iteration (median of {})", run.steady.seconds, run.steady.kept.size());
  if (run.log.memory) s += ", peak " + fmt_gib(run.log.memory->gib) + " " + run.log.memory->kind;
  return s;
}

}  // namespace flopcast::app

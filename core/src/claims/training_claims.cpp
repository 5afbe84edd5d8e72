// Training claims: a figure of a scenario's `claimed:` block, judged by the check `flopcast
// simulate` runs (reached through the scenario runner, never re-implemented here).
#include <fmt/format.h>

#include "claim_checks.hpp"
#include "claim_format.hpp"

namespace flopcast::claims::detail {
namespace {

/// "1.2T", "5.31B", "650M".
std::string count(double v) {
  if (v >= 1e12) return fmt::format("{:.3g}T", v / 1e12);
  if (v >= 1e9) return fmt::format("{:.3g}B", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  return fmt::format("{:.3g}", v);
}

/// The figure in its own units: MFU and fractions as percentages, memory in GB, and so on.
std::string figure_text(const std::string& figure, double v) {
  if (figure == "mfu" || figure == "bubble_fraction") return percent(v, 1);
  if (figure == "memory_gb") return fmt::format("{:.1f} GB per GPU", v);
  if (figure == "days") return grouped(v, v >= 100 ? 0 : 1) + " days";
  if (figure == "tokens_per_day") return count(v) + " tokens/day";
  if (figure == "step_time_s") return fmt::format("{:.3f} s per step", v);
  if (figure == "tflops_per_gpu") return fmt::format("{:.1f} TFLOP/s per GPU", v);
  if (figure == "gpu_hours") return grouped(v, 0) + " GPU-hours";
  return fmt::format("{:.4g}", v);
}

std::string unit_of(const std::string& figure) {
  if (figure == "mfu" || figure == "bubble_fraction") return "%";
  if (figure == "memory_gb") return "GB";
  if (figure == "days") return "days";
  if (figure == "tokens_per_day") return "tokens/day";
  if (figure == "step_time_s") return "s";
  if (figure == "tflops_per_gpu") return "TFLOP/s";
  if (figure == "gpu_hours") return "GPU-hours";
  return "";
}

/// How `simulate` obtains the figure, in one line.
std::string how_of(const std::string& figure, const ScenarioOutcome& o, const std::string& file) {
  const std::string run =
      fmt::format("{} of {} ({} x {}, step {})", o.engine, file, o.gpus, o.gpu, duration(o.step_time));
  if (figure == "mfu") return "MFU = model FLOPs per step / (step time x GPUs x dense peak), " + run;
  if (figure == "memory_gb")
    return "peak memory per GPU (weights, gradients, optimizer state, activations, workspace), " + run;
  if (figure == "days") return "steps x step time for training.tokens, failure-free, " + run;
  if (figure == "tokens_per_day") return "tokens per second x 86,400 s, " + run;
  if (figure == "bubble_fraction") return "pipeline bubble / step time, " + run;
  if (figure == "gpu_hours") return "failure-free training time x GPUs, " + run;
  return run;
}

}  // namespace

Verdict judge_training(const Claim& c, const TrainingNeeds& n, EvalContext& ctx, std::string& claimed_text) {
  const ScenarioOutcome& o = ctx.run(n.scenario);
  const std::string& file = n.scenario.name;
  if (o.status == ScenarioOutcome::Status::BadInput) {
    Verdict v = cannot_judge("scenario " + file + " cannot be read: " +
                             (o.problems.empty() ? std::string("unknown problem") : o.problems.front()));
    v.notes.assign(o.problems.begin() + (o.problems.empty() ? 0 : 1), o.problems.end());
    return v;
  }
  if (const auto it = o.claimed.find(c.figure); it != o.claimed.end()) claimed_text = figure_text(c.figure, it->second);
  if (o.status == ScenarioOutcome::Status::Inconsistent) {
    Verdict v;
    v.kind = VerdictKind::Impossible;
    v.reason = "the claimed setup does not add up: " +
               (o.problems.empty() ? std::string("the scenario's checks fail") : o.problems.front());
    v.how = "the scenario checks of " + file + " (the run cannot be set up, so nothing is simulated)";
    if (o.plan_gpus > 0 && o.plan_gpus != o.gpus) {
      v.figure = {true, static_cast<double>(o.plan_gpus), "GPUs",
                  grouped(static_cast<double>(o.plan_gpus), 0) + " GPUs for the plan"};
      v.how = fmt::format("tp x pp x dp x cp of the plan in {} = {} GPUs, against cluster.gpus {}", file,
                          grouped(static_cast<double>(o.plan_gpus), 0), grouped(static_cast<double>(o.gpus), 0));
    }
    v.notes.assign(o.problems.begin() + (o.problems.empty() ? 0 : 1), o.problems.end());
    return v;
  }
  const TrainingCheck* check = nullptr;
  for (const TrainingCheck& t : o.checks)
    if (t.figure == c.figure) check = &t;
  if (check == nullptr)
    return cannot_judge("scenario " + file + " has no claimed figure '" + c.figure +
                        "' (add it to its claimed: block)");
  claimed_text = figure_text(c.figure, check->claimed);
  // simulate's own verdict (app/evaluation.cpp, compare() at kTolerance), with the figure and how added.
  Verdict v = check->verdict;
  v.figure = {true, c.figure == "mfu" || c.figure == "bubble_fraction" ? check->simulated * 100 : check->simulated,
              unit_of(c.figure), figure_text(c.figure, check->simulated)};
  v.how = how_of(c.figure, o, file);
  if (v.kind == VerdictKind::Impossible) {
    if (!o.fits_memory && v.reason != o.memory_problem)
      v.notes.push_back(o.memory_problem);
    else if (!o.fits_memory)
      v.notes.push_back("the figure is what the plan would reach if it fitted");
  } else if (v.kind == VerdictKind::CannotJudge) {
    v.reason = "simulate could not check it: " + v.reason;
  }
  settle(v, c, "the simulated figure (" + v.figure.text + ") disagrees with the claimed " + claimed_text);
  return v;
}

}  // namespace flopcast::claims::detail

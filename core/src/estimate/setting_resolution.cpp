#include "flopcast/estimate/setting_resolution.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::estimate {
namespace {

constexpr const char* kResolvedMark = " (resolved: ";

std::vector<std::int64_t> divisors_up_to(std::int64_t n, std::int64_t cap) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 1; d <= n && d <= cap; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

/// One combination of choices applied to the plan and the training state's dtypes.
struct Candidate {
  parallel::ParallelPlan plan;
  scenario::GradReduce grad_reduce = scenario::GradReduce::Default;
  bool fp8_params = false;
  units::Time step{0};
  units::Bytes memory;
};

/// One choice of the training state's dtypes (grad_reduce, fp8_params).
struct StateChoice {
  scenario::GradReduce grad_reduce;
  bool fp8_params;
};

std::vector<StateChoice> state_choices(const SettingChoices& c) {
  std::vector<StateChoice> out;
  for (const scenario::GradReduce g : c.grad_reduce)
    for (const bool f : c.fp8_params) out.push_back({g, f});
  return out;
}

/// `base` with one combination of choices. An open vpp brings its schedule: interleaved above 1,
/// else the stated schedule or 1F1B; a stated vpp keeps the stated schedule.
parallel::ParallelPlan apply(const parallel::ParallelPlan& base, const parallel::OpenSettings& open, std::int64_t mb,
                             int vpp, int zero, bool sp, parallel::Recompute rc, bool tp_overlap, bool ep_overlap,
                             std::optional<parallel::MoeDispatcher> dispatcher) {
  parallel::ParallelPlan p = base;
  p.micro_batch = mb;
  p.vpp = vpp;
  if (open.vpp)
    p.schedule = vpp > 1 ? parallel::Schedule::Interleaved
                         : (open.schedule_stated ? base.schedule : parallel::Schedule::OneFOneB);
  p.zero = zero;
  p.sequence_parallel = sp;
  p.recompute = rc;
  p.overlap_tp_comm = tp_overlap;
  p.overlap_ep_comm = ep_overlap;
  p.moe_dispatcher = dispatcher;
  return p;
}

/// The search over every combination; `best` is the fastest that fits, `leanest` the one
/// needing the least memory.
struct Search {
  std::optional<Candidate> best, leanest;
  std::size_t candidates = 0;
  std::vector<double> fitting_steps;  ///< step time of every choice that fits, seconds
};

Search search(const scenario::Scenario& s, const SettingChoices& choices, const compute::ComputeProfile& profile) {
  const auto& open = s.open_settings;
  Search out;
  scenario::Scenario trial = s;
  const auto states = state_choices(choices);
  for (const std::int64_t mb : choices.micro_batch) {
    bool any_fits = false;
    for (const int v : choices.vpp)
      for (const int z : choices.zero)
        for (const bool sp : choices.sequence_parallel)
          for (const parallel::Recompute rc : choices.recompute)
            for (const bool ov : choices.overlap_tp_comm)
              for (const bool ep_ov : choices.overlap_ep_comm)
                for (const auto& dispatcher : choices.moe_dispatcher)
                  for (const StateChoice& st : states) {
                    // Megatron-LM: "Tensor parallel communication/GEMM overlap can happen only when
                    // sequence parallelism is enabled" (arguments.py).
                    if (ov && !sp) continue;
                    trial.plan = apply(s.plan, open, mb, v, z, sp, rc, ov, ep_ov, dispatcher);
                    if (ep_ov && !parallel::ep_overlap_allowed(trial.plan)) continue;
                    trial.grad_reduce = st.grad_reduce;
                    trial.fp8_params = st.fp8_params;
                    // Megatron's interleaved schedule needs the micro-batches to be a multiple of pp.
                    if ((open.micro_batch || open.vpp) && trial.plan.schedule == parallel::Schedule::Interleaved &&
                        trial.plan.microbatches() % trial.plan.pp != 0)
                      continue;
                    // DualPipe needs an even number of at least 2 pp micro-batches, DualPipeV at least
                    // 2 pp (deepseek-ai/DualPipe dualpipe.py, dualpipev.py).
                    if (open.micro_batch && parallel::is_dual_pipe(trial.plan.schedule) &&
                        (trial.plan.microbatches() < 2 * trial.plan.pp ||
                         (trial.plan.schedule == parallel::Schedule::DualPipe && trial.plan.microbatches() % 2 != 0)))
                      continue;
                    ++out.candidates;
                    const units::Bytes mem = workload::memory_per_gpu(trial, profile).total();
                    if (!out.leanest || mem.value < out.leanest->memory.value)
                      out.leanest = Candidate{trial.plan, st.grad_reduce, st.fp8_params, units::Time{0}, mem};
                    if (mem.value > s.cluster.gpu.hbm.value) continue;
                    any_fits = true;
                    const units::Time step = estimate_step(trial, profile).step;
                    out.fitting_steps.push_back(step.seconds());
                    if (!out.best || step < out.best->step)
                      out.best = Candidate{trial.plan, st.grad_reduce, st.fp8_params, step, mem};
                  }
    // Memory grows with the micro-batch: once none of a micro-batch's choices fits, no larger one will.
    if (!any_fits && out.best) break;
  }
  return out;
}

std::string bool_text(bool b) { return b ? "true" : "false"; }

/// The q-quantile of `v` by linear interpolation between order statistics.
double quantile_of(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

std::string grad_reduce_text(hardware::Precision p, scenario::GradReduce g) {
  if (workload::grad_bytes(p, g) >= 4) return "fp32";
  return p == hardware::Precision::FP16 ? "fp16" : "bf16";
}

SettingChoices setting_choices(const scenario::Scenario& s) {
  const auto& p = s.plan;
  const auto& open = s.open_settings;
  SettingChoices c;
  if (open.micro_batch && p.dp > 0 && p.global_batch % p.dp == 0)
    c.micro_batch = divisors_up_to(p.global_batch / p.dp, kMaxResolvedMicroBatch);
  if (c.micro_batch.empty()) c.micro_batch = {p.micro_batch};
  if (open.vpp) {
    const bool only_interleaved = open.schedule_stated && p.schedule == parallel::Schedule::Interleaved;
    const bool only_flat = open.schedule_stated && p.schedule != parallel::Schedule::Interleaved;
    if (!only_interleaved) c.vpp.push_back(1);
    if (!only_flat && p.pp > 1 && !parallel::is_dual_pipe(p.schedule))
      for (int v = 2; p.pp * v <= s.model.layers + 2; ++v) {
        // With a pipeline_layout, the virtual stages its split allows (Megatron-LM's rules).
        const bool splits = p.pipeline_layout
                                ? workload::pipeline_layout_splits(s.model.layers, p.pp, v, *p.pipeline_layout)
                                : p.pp * v <= s.model.layers && s.model.layers % (p.pp * v) == 0;
        if (splits) c.vpp.push_back(v);
      }
  }
  if (c.vpp.empty()) c.vpp = {p.vpp};
  const bool sharded = p.dp * p.cp > 1 || p.expert_dp() > 1;
  if (open.zero && sharded)
    c.zero = p.pp > 1 ? std::vector<int>{0, 1} : std::vector<int>{0, 1, 2, 3};
  else if (open.zero)
    c.zero = {0};
  else
    c.zero = {p.zero};
  if (open.sequence_parallel)
    c.sequence_parallel = p.tp > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false};
  else
    c.sequence_parallel = {p.sequence_parallel};
  if (open.recompute)
    c.recompute = {parallel::Recompute::None, parallel::Recompute::Selective, parallel::Recompute::Full};
  else
    c.recompute = {p.recompute};
  // The framework default first (Megatron-LM: fp32 for bf16 and FP8, fp16 for fp16), so that it
  // wins a tie (no data parallelism: nothing to reduce, and both fit).
  if (open.grad_reduce && workload::grad_bytes(s.precision, scenario::GradReduce::Default) < 4)
    c.grad_reduce = {scenario::GradReduce::Half, scenario::GradReduce::FP32};
  else if (open.grad_reduce)
    c.grad_reduce = {scenario::GradReduce::FP32, scenario::GradReduce::Half};
  else
    c.grad_reduce = {s.grad_reduce};
  if (open.fp8_params)
    c.fp8_params = {false, true};
  else
    c.fp8_params = {s.fp8_params};
  if (open.overlap_tp_comm && p.tp > 1)
    c.overlap_tp_comm = {false, true};
  else
    c.overlap_tp_comm = {p.overlap_tp_comm};
  if (open.overlap_ep_comm && p.ep > 1)
    c.overlap_ep_comm = {false, true};
  else
    c.overlap_ep_comm = {p.overlap_ep_comm};
  // The dispatchers performance recipes choose among (Megatron-Bridge docs/training/moe-optimization.md:
  // alltoall, or the flex dispatcher with DeepEP or HybridEP); allgather is not one of them.
  // A quantized dispatch runs on DeepEP's or Hybrid-EP's kernels only.
  if (open.moe_dispatcher && p.ep > 1) {
    c.moe_dispatcher = {parallel::MoeDispatcher::DeepEP, parallel::MoeDispatcher::HybridEP};
    if (p.dispatch_dtype == parallel::DispatchDtype::BF16)
      c.moe_dispatcher.push_back(parallel::MoeDispatcher::AllToAll);
  } else {
    c.moe_dispatcher = {p.moe_dispatcher};
  }
  return c;
}

const parallel::ResolvedSettings& resolve_open_settings(scenario::Scenario& s, const compute::ComputeProfile& profile) {
  if (!s.open_settings.any()) {
    workload::convert_measured_flops(s);
    return s.resolved_settings;
  }
  const auto& open = s.open_settings;
  const Search found = search(s, setting_choices(s), profile);
  parallel::ResolvedSettings out;
  out.resolved = true;
  out.candidates = found.candidates;
  out.fits = found.best.has_value();
  if (const auto& chosen = found.best ? found.best : found.leanest) {
    s.plan = chosen->plan;
    s.grad_reduce = chosen->grad_reduce;
    s.fp8_params = chosen->fp8_params;
  }
  if (found.best && found.best->step.ns > 0 && found.fitting_steps.size() > 1) {
    const double best = found.best->step.seconds();
    out.spread_p50 = quantile_of(found.fitting_steps, 0.5) / best;
    out.spread_p90 = quantile_of(found.fitting_steps, 0.9) / best;
  }
  out.memory_gib = workload::memory_per_gpu(s, profile).total().gib();
  out.capacity_gib = s.cluster.gpu.hbm.gib();
  if (!found.leanest) out.fits = out.memory_gib <= out.capacity_gib;  // no valid combination: as written
  const auto& p = s.plan;
  if (open.micro_batch) out.chosen.push_back({"parallel.micro_batch", std::to_string(p.micro_batch)});
  if (open.vpp) {
    out.chosen.push_back({"parallel.vpp", std::to_string(p.vpp)});
    if (!open.schedule_stated) out.chosen.push_back({"parallel.schedule", to_string(p.schedule)});
  }
  if (open.zero) out.chosen.push_back({"parallel.zero", std::to_string(p.zero)});
  if (open.sequence_parallel) out.chosen.push_back({"parallel.sequence_parallel", bool_text(p.sequence_parallel)});
  if (open.recompute) out.chosen.push_back({"parallel.recompute", to_string(p.recompute)});
  if (open.grad_reduce) out.chosen.push_back({"grad_reduce", grad_reduce_text(s.precision, s.grad_reduce)});
  if (open.fp8_params) out.chosen.push_back({"fp8_params", bool_text(s.fp8_params)});
  if (open.overlap_tp_comm) out.chosen.push_back({"parallel.overlap_tp_comm", bool_text(p.overlap_tp_comm)});
  if (open.overlap_ep_comm) out.chosen.push_back({"parallel.overlap_ep_comm", bool_text(p.overlap_ep_comm)});
  if (open.moe_dispatcher && p.moe_dispatcher)
    out.chosen.push_back({"parallel.moe_dispatcher", to_string(*p.moe_dispatcher)});
  auto& defaults = s.defaults_applied;
  defaults.erase(std::remove_if(defaults.begin(), defaults.end(),
                                [](const std::string& d) { return d.find(kResolvedMark) != std::string::npos; }),
                 defaults.end());
  const std::string why = out.fits ? "the fastest choice that fits)" : "no choice fits; the leanest)";
  for (const auto& [key, value] : out.chosen) defaults.push_back(key + " = " + value + kResolvedMark + why);
  s.resolved_settings = std::move(out);
  // A run's TFLOP/s or MFU in its source's count, converted for the plan as resolved (a hardware
  // count depends on the recompute chosen).
  workload::convert_measured_flops(s);
  return s.resolved_settings;
}

}  // namespace flopcast::estimate

#include "flopcast/calibrate/validation.hpp"

#include <algorithm>
#include <cmath>

#include "flopcast/comm/comm_model.hpp"
#include "flopcast/comm/profile_efficiency.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::calibrate {

double predicted_figure(const scenario::Scenario& s, const estimate::StepEstimate& e, const std::string& figure) {
  const double gpus = static_cast<double>(s.cluster.gpus);
  if (figure == "iteration_time_s") return e.step.seconds();
  if (figure == "tokens_per_gpu_s") return e.tokens_per_s / gpus;
  if (figure == "mfu") return e.mfu;
  if (figure == "tflops_per_gpu") return e.model_flops.value / e.step.seconds() / gpus / 1e12;
  if (figure == "memory_gib") return e.memory.total().gib();
  return std::nan("");
}

const std::vector<std::string>& time_figures() {
  static const std::vector<std::string> figures = {"iteration_time_s", "tokens_per_gpu_s", "mfu", "tflops_per_gpu"};
  return figures;
}

std::string primary_figure(const scenario::Scenario& s) {
  for (const auto& f : time_figures())
    if (s.measured.count(f)) return f;
  return "";
}

std::vector<FigureComparison> compare_run(const scenario::Scenario& s, const estimate::StepEstimate& e) {
  std::vector<FigureComparison> out;
  for (const char* fig : {"iteration_time_s", "tokens_per_gpu_s", "mfu", "tflops_per_gpu", "memory_gib"}) {
    auto it = s.measured.find(fig);
    if (it == s.measured.end()) continue;
    FigureComparison c;
    c.id = s.id;
    c.figure = fig;
    c.measured = it->second;
    c.predicted = predicted_figure(s, e, fig);
    c.error_pct = (c.predicted - c.measured) / c.measured * 100.0;
    out.push_back(c);
  }
  return out;
}

std::vector<FigureComparison> compare_collective(const MeasuredCollective& pt, const compute::ComputeProfile& profile,
                                                 std::string& error) {
  // A large-message plateau (message_bytes: null) is evaluated at nccl-tests' -e 8G.
  constexpr double kPlateauBytes = 8.0 * 1073741824.0;
  comm::CommOptions opts;
  opts.efficiency = comm::comm_efficiency(profile, pt.gpu.arch);
  const comm::CommModel model(pt.gpu, pt.fabric, pt.gpus, opts);
  // Send/recv pairs two GPUs: in one node, or (more GPUs than a node) in two.
  const topology::GroupShape shape =
      pt.op == comm::Collective::SendRecv
          ? topology::GroupShape{2, pt.gpus > pt.gpus_per_node ? 1 : 2, 1}
          : topology::GroupShape{pt.gpus, static_cast<int>(std::min<std::int64_t>(pt.gpus, pt.gpus_per_node)), 1};
  error = model.check(pt.op, shape);
  if (!error.empty()) return {};
  comm::CommOverride force;
  if (pt.force_ring) force.algorithm = comm::CommAlgorithm::Ring;
  const auto c = model.cost(pt.op, shape, units::Bytes{pt.message_bytes.value_or(kPlateauBytes)}, 1, force);
  std::vector<FigureComparison> out;
  for (const auto& [figure, measured] : pt.measured) {
    double predicted = 0;
    if (figure == "busbw_gbytes_s")
      predicted = c.busbw.gbytes_per_s();
    else if (figure == "algbw_gbytes_s")
      predicted = c.algbw.gbytes_per_s();
    else if (figure == "time_us")
      predicted = c.time.us();
    out.push_back({pt.id, figure, measured, predicted, (predicted - measured) / measured * 100.0});
  }
  return out;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

std::vector<FigureSummary> summarize(const std::vector<FigureComparison>& rows) {
  std::vector<FigureSummary> out;
  std::vector<std::vector<double>> errs;
  for (const auto& r : rows) {
    auto it = std::find_if(out.begin(), out.end(), [&](const FigureSummary& s) { return s.figure == r.figure; });
    if (it == out.end()) {
      out.push_back({r.figure, 0, 0, 0, 0});
      errs.emplace_back();
      it = out.end() - 1;
    }
    errs[static_cast<std::size_t>(it - out.begin())].push_back(std::fabs(r.error_pct));
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& e = errs[i];
    out[i].count = e.size();
    out[i].median_abs_error_pct = quantile(e, 0.5);
    out[i].p90_abs_error_pct = quantile(e, 0.9);
    double sum = 0;
    for (double x : e) sum += x;
    out[i].mean_abs_error_pct = e.empty() ? 0 : sum / static_cast<double>(e.size());
  }
  return out;
}

}  // namespace flopcast::calibrate

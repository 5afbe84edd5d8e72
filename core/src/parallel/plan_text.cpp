#include "flopcast/parallel/plan_text.hpp"

#include <fmt/format.h>

namespace flopcast::parallel {

std::string plan_degrees(const ParallelPlan& p) {
  std::string s = fmt::format("TP{} PP{} DP{}", p.tp, p.pp, p.dp);
  if (p.cp > 1) s += fmt::format(" CP{}", p.cp);
  if (p.ep > 1) s += fmt::format(" EP{}", p.ep);
  if (p.vpp > 1) s += fmt::format(" VPP{}", p.vpp);
  return s;
}

std::string plan_label(const ParallelPlan& p) {
  std::string s = plan_degrees(p) + fmt::format(" mb{}", p.micro_batch);
  if (p.sequence_parallel) s += " SP";
  s += fmt::format(" ZeRO-{} rc-{}", p.zero, to_string(p.recompute));
  if (p.pp > 1) s += fmt::format(" {}", to_string(p.schedule));
  return s;
}

std::string plan_summary(const ParallelPlan& p) {
  std::string s = fmt::format("{}{}, ZeRO-{}, micro-batch {}, global batch {}, recompute {}, {}", plan_degrees(p),
                              p.sequence_parallel ? " +SP" : "", p.zero, p.micro_batch, p.global_batch,
                              to_string(p.recompute), to_string(p.schedule));
  if (const std::string d = dispatch_text(p); !d.empty()) s += ", " + d;
  return s;
}

std::string dispatch_text(const ParallelPlan& p) {
  if (p.dispatch_dtype == DispatchDtype::BF16) return "";
  return fmt::format("MoE dispatch in {} (combine bf16)", to_string(p.dispatch_dtype));
}

}  // namespace flopcast::parallel

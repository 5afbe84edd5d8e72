#include "flopcast/parallel/parallel_plan.hpp"

namespace flopcast::parallel {

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::None:
      return "none";
    case Recompute::Selective:
      return "selective";
    case Recompute::Full:
      return "full";
  }
  return "?";
}

const char* to_string(Schedule s) {
  switch (s) {
    case Schedule::GPipe:
      return "gpipe";
    case Schedule::OneFOneB:
      return "1f1b";
    case Schedule::Interleaved:
      return "interleaved";
    case Schedule::ZeroBubble:
      return "zero-bubble";
    case Schedule::DualPipe:
      return "dualpipe";
    case Schedule::DualPipeV:
      return "dualpipev";
  }
  return "?";
}

const char* to_string(MoeDispatcher d) {
  switch (d) {
    case MoeDispatcher::AllToAll:
      return "alltoall";
    case MoeDispatcher::AllGather:
      return "allgather";
    case MoeDispatcher::DeepEP:
      return "deepep";
    case MoeDispatcher::HybridEP:
      return "hybridep";
  }
  return "?";
}

const char* to_string(DispatchDtype d) {
  switch (d) {
    case DispatchDtype::BF16:
      return "bf16";
    case DispatchDtype::FP8:
      return "fp8";
    case DispatchDtype::MXFP8:
      return "mxfp8";
  }
  return "?";
}

std::optional<Recompute> parse_recompute(std::string_view s) {
  for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
    if (s == to_string(r)) return r;
  return std::nullopt;
}

std::optional<Schedule> parse_schedule(std::string_view s) {
  for (Schedule x : {Schedule::GPipe, Schedule::OneFOneB, Schedule::Interleaved, Schedule::ZeroBubble,
                     Schedule::DualPipe, Schedule::DualPipeV})
    if (s == to_string(x)) return x;
  return std::nullopt;
}

std::optional<MoeDispatcher> parse_moe_dispatcher(std::string_view s) {
  for (MoeDispatcher x :
       {MoeDispatcher::AllToAll, MoeDispatcher::AllGather, MoeDispatcher::DeepEP, MoeDispatcher::HybridEP})
    if (s == to_string(x)) return x;
  return std::nullopt;
}

std::optional<DispatchDtype> parse_dispatch_dtype(std::string_view s) {
  for (DispatchDtype x : {DispatchDtype::BF16, DispatchDtype::FP8, DispatchDtype::MXFP8})
    if (s == to_string(x)) return x;
  return std::nullopt;
}

double dispatch_bytes_per_value(DispatchDtype d) {
  switch (d) {
    case DispatchDtype::FP8:
      return 1.0 + 4.0 / 128;  // E4M3 and an FP32 scale per 1 x 128 tile (DeepSeek-V3 §3.3.2)
    case DispatchDtype::MXFP8:
      return 1.0 + 1.0 / 32;  // E4M3 and an E8M0 scale per 32 (OCP Microscaling v1.0)
    case DispatchDtype::BF16:
      break;
  }
  return 2.0;
}

const char* quantized_dispatch_refusal(MoeDispatcher d) {
  if (d == MoeDispatcher::AllToAll || d == MoeDispatcher::AllGather)
    return "the alltoall and allgather dispatchers move 16-bit tokens (Megatron-core sends quantized tokens only "
           "through its flex dispatcher)";
  return nullptr;
}

const char* ep_overlap_refusal(const ParallelPlan& p) {
  if (p.ep <= 1) return "it needs expert parallelism (ep > 1)";
  if (p.moe_dispatcher == MoeDispatcher::AllGather)
    return "it runs with the alltoall, DeepEP or HybridEP dispatcher only";
  if (p.recompute == Recompute::Full) return "it is refused with full recompute";
  if (is_dual_pipe(p.schedule)) return "DualPipe overlaps its own forward and backward pairs";
  if (p.pp > 1 && p.vpp <= 1) return "with pipeline parallelism it needs a virtual pipeline (vpp > 1)";
  return nullptr;
}

}  // namespace flopcast::parallel

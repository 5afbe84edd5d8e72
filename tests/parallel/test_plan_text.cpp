// A parallel plan as text (parallel/plan_text.hpp): the one formatter of the planner's tables,
// `simulate`'s header, quotes and the GUI. Each expected string is the plan's fields written in
// the format the header documents.
#include <doctest/doctest.h>

#include "flopcast/parallel/plan_text.hpp"

namespace flopcast {
namespace {

/// The quickstart's plan (scenarios/quickstart.yaml): tp 2, pp 1, dp 32, micro_batch 1, global
/// batch 512, sequence parallelism, ZeRO-1, selective recompute, 1F1B.
parallel::ParallelPlan quickstart() {
  parallel::ParallelPlan p;
  p.tp = 2;
  p.dp = 32;
  p.micro_batch = 1;
  p.global_batch = 512;
  p.sequence_parallel = true;
  p.zero = 1;
  p.recompute = parallel::Recompute::Selective;
  p.schedule = parallel::Schedule::OneFOneB;
  return p;
}

}  // namespace

TEST_CASE("plan text: degrees of 1 beyond TP, PP and DP are left out, the others follow in a fixed order") {
  parallel::ParallelPlan p = quickstart();
  CHECK(parallel::plan_degrees(p) == "TP2 PP1 DP32");
  p.pp = 4;
  p.cp = 2;
  p.ep = 8;
  p.vpp = 3;
  CHECK(parallel::plan_degrees(p) == "TP2 PP4 DP32 CP2 EP8 VPP3");
}

TEST_CASE("plan text: the label is one table cell, the schedule named only with a pipeline") {
  parallel::ParallelPlan p = quickstart();
  CHECK(parallel::plan_label(p) == "TP2 PP1 DP32 mb1 SP ZeRO-1 rc-selective");
  p.pp = 4;
  p.vpp = 2;
  p.schedule = parallel::Schedule::Interleaved;
  p.sequence_parallel = false;
  p.micro_batch = 2;
  p.zero = 0;
  p.recompute = parallel::Recompute::Full;
  CHECK(parallel::plan_label(p) == "TP2 PP4 DP32 VPP2 mb2 ZeRO-0 rc-full interleaved");
}

TEST_CASE("plan text: the summary is a sentence with the batch, the recompute mode and the schedule") {
  parallel::ParallelPlan p = quickstart();
  CHECK(parallel::plan_summary(p) ==
        "TP2 PP1 DP32 +SP, ZeRO-1, micro-batch 1, global batch 512, recompute selective, 1f1b");
  p.sequence_parallel = false;
  p.cp = 4;
  p.dp = 8;
  p.micro_batch = 2;
  p.zero = 3;
  p.recompute = parallel::Recompute::None;
  p.schedule = parallel::Schedule::ZeroBubble;
  CHECK(parallel::plan_summary(p) ==
        "TP2 PP1 DP8 CP4, ZeRO-3, micro-batch 2, global batch 512, recompute none, zero-bubble");
}

}  // namespace flopcast

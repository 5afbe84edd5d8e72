// The parallel plan itself (parallel/parallel_plan.hpp): its names, its derived counts and the
// GPU product that must never wrap.
#include <doctest/doctest.h>

#include <limits>

#include "flopcast/parallel/parallel_plan.hpp"

namespace flopcast {

TEST_CASE("parallel plan: recompute modes and schedules parse back from their names, other words do not") {
  for (parallel::Recompute r : {parallel::Recompute::None, parallel::Recompute::Selective, parallel::Recompute::Full})
    CHECK(parallel::parse_recompute(to_string(r)) == r);
  for (parallel::Schedule s : {parallel::Schedule::GPipe, parallel::Schedule::OneFOneB, parallel::Schedule::Interleaved,
                               parallel::Schedule::ZeroBubble})
    CHECK(parallel::parse_schedule(to_string(s)) == s);
  CHECK_FALSE(parallel::parse_recompute("partial").has_value());
  CHECK_FALSE(parallel::parse_schedule("1F1B").has_value());  // names are lower case, as scenarios write them
}

TEST_CASE("parallel plan: micro-batches per step, expert groups under folding, and a GPU product that saturates") {
  parallel::ParallelPlan p;
  p.tp = 8;
  p.pp = 4;
  p.dp = 16;
  p.micro_batch = 2;
  p.global_batch = 1024;
  CHECK(p.microbatches() == 1024 / (2 * 16));
  CHECK(p.gpus() == 8 * 4 * 16);
  // Without etp the experts take the dense layers' tp: expert dp = tp*dp*cp / (tp*ep) = 16 / 4.
  p.ep = 4;
  CHECK(p.expert_tp() == 8);
  CHECK(p.expert_dp() == 4);
  // Folding: etp 1 x ep 4 out of 128 stage GPUs leaves 32 expert-data-parallel groups.
  p.etp = 1;
  CHECK(p.expert_dp() == 128 / 4);
  // 10^6 in each of the four degrees is 10^24 GPUs: no int64 holds it, so gpus() saturates.
  parallel::ParallelPlan huge;
  huge.tp = huge.pp = huge.cp = 1'000'000;
  huge.dp = 1'000'000;
  CHECK_FALSE(huge.gpus_checked().has_value());
  CHECK(huge.gpus() == std::numeric_limits<std::int64_t>::max());
}

}  // namespace flopcast

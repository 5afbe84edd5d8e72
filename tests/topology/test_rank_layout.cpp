#include <doctest/doctest.h>

#include "flopcast/topology/group_shape.hpp"
#include "flopcast/topology/rank_layout.hpp"

using namespace flopcast;

namespace {
parallel::ParallelPlan plan(int tp, int pp, std::int64_t dp, int cp = 1, int ep = 1) {
  parallel::ParallelPlan p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.cp = cp;
  p.ep = ep;
  return p;
}
using Ranks = std::vector<std::int64_t>;
}  // namespace

TEST_CASE("topology: Megatron order puts TP innermost, then DP, then PP") {
  // tp-cp-ep-dp-pp with tp 8, dp 4, pp 2 on 64 ranks: rank = tp + 8 dp + 32 pp.
  const auto l = topology::RankLayout::create(plan(8, 2, 4));
  REQUIRE(l);
  CHECK(l->world_size() == 64);
  CHECK(l->group(topology::ParallelDim::TP, 0) == Ranks{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(l->group(topology::ParallelDim::DP, 0) == Ranks{0, 8, 16, 24});
  CHECK(l->group(topology::ParallelDim::DP, 37) == Ranks{37, 45, 53, 61});
  CHECK(l->group(topology::ParallelDim::PP, 3) == Ranks{3, 35});
  CHECK(l->group_count(topology::ParallelDim::DP) == 16);
  CHECK(l->coordinate(topology::ParallelDim::PP, 40) == 1);
  // On 8-GPU nodes: TP fills a node; DP has one GPU per node on consecutive nodes; PP stages
  // are 4 nodes apart.
  CHECK(l->shape(topology::ParallelDim::TP, 8) == topology::GroupShape{8, 8, 1});
  CHECK(l->shape(topology::ParallelDim::DP, 8) == topology::GroupShape{4, 1, 1});
  CHECK(l->shape(topology::ParallelDim::PP, 8) == topology::GroupShape{2, 1, 4});
}

TEST_CASE("topology: small TP leaves several DP ranks on one node") {
  // tp 2, dp 8: DP group of rank 0 = even ranks; 4 per node.
  const auto l = topology::RankLayout::create(plan(2, 1, 8));
  REQUIRE(l);
  CHECK(l->group(topology::ParallelDim::DP, 0) == Ranks{0, 2, 4, 6, 8, 10, 12, 14});
  CHECK(l->shape(topology::ParallelDim::DP, 8) == topology::GroupShape{8, 4, 1});
}

TEST_CASE("topology: CP sits between TP and DP, so DP strides over TP x CP") {
  // tp 8, cp 2, dp 2: rank = tp + 8 cp + 16 dp. DP members 16 ranks = 2 nodes apart.
  const auto l = topology::RankLayout::create(plan(8, 1, 2, 2));
  REQUIRE(l);
  CHECK(l->group(topology::ParallelDim::CP, 0) == Ranks{0, 8});
  CHECK(l->group(topology::ParallelDim::DP, 0) == Ranks{0, 16});
  CHECK(l->shape(topology::ParallelDim::DP, 8) == topology::GroupShape{2, 1, 2});
}

TEST_CASE("topology: a configurable order moves DP outside PP") {
  // tp-pp-dp: rank = tp + 8 pp + 64 dp with tp 8, pp 8, dp 2: DP members are 8 nodes apart.
  const auto l = topology::RankLayout::create(plan(8, 8, 2), "tp-pp-dp-cp");
  REQUIRE(l);
  CHECK(l->order() == "tp-pp-dp-cp");
  CHECK(l->group(topology::ParallelDim::DP, 0) == Ranks{0, 64});
  CHECK(l->shape(topology::ParallelDim::DP, 8) == topology::GroupShape{2, 1, 8});
  CHECK(l->group(topology::ParallelDim::PP, 0) == Ranks{0, 8, 16, 24, 32, 40, 48, 56});
}

TEST_CASE("topology: expert-parallel groups are carved out of the DP ranks") {
  // tp 1, dp 8, ep 4. "ep" before "dp": EP members are consecutive DP ranks.
  const auto inner = topology::RankLayout::create(plan(1, 1, 8, 1, 4), "tp-cp-ep-dp-pp");
  REQUIRE(inner);
  CHECK(inner->group(topology::ParallelDim::EP, 0) == Ranks{0, 1, 2, 3});
  CHECK(inner->group(topology::ParallelDim::EP, 5) == Ranks{4, 5, 6, 7});
  // "ep" after "dp": one member per block of dp/ep = 2.
  const auto outer = topology::RankLayout::create(plan(1, 1, 8, 1, 4), "tp-cp-dp-ep-pp");
  REQUIRE(outer);
  CHECK(outer->group(topology::ParallelDim::EP, 0) == Ranks{0, 2, 4, 6});
  // With CP just inside DP, EP spans CP x DP (Megatron folds CP into expert data parallelism).
  const auto folded = topology::RankLayout::create(plan(1, 1, 2, 2, 4));
  REQUIRE(folded);
  CHECK(folded->group(topology::ParallelDim::EP, 0) == Ranks{0, 1, 2, 3});
}

TEST_CASE("topology: malformed rank orders are rejected with a message") {
  std::string err;
  CHECK_FALSE(topology::RankLayout::create(plan(2, 1, 2), "tp-dp-pp", &err));
  CHECK(err == "rank order 'tp-dp-pp': missing 'cp'");
  CHECK_FALSE(topology::RankLayout::create(plan(2, 1, 2), "tp-cp-dp-pp-tp", &err));
  CHECK(err == "rank order 'tp-cp-dp-pp-tp': 'tp' appears twice");
  CHECK_FALSE(topology::RankLayout::create(plan(2, 1, 2), "tp-cp-dp-px", &err));
  CHECK(err.find("unknown dimension 'px'") != std::string::npos);
  CHECK_FALSE(topology::RankLayout::create(plan(1, 1, 6, 1, 4), topology::kMegatronRankOrder, &err));
  CHECK(err == "ep 4 must divide dp 6");
  CHECK_FALSE(topology::RankLayout::create(plan(1, 1, 4, 1, 2), "ep-tp-cp-dp-pp", &err));
  CHECK(err.find("'ep' must be next to 'dp'") != std::string::npos);
}

TEST_CASE("topology: canonical placement of concurrent groups matches Megatron's layout") {
  // TP 8: DP group i (i = tp rank) is {i, i+8, i+16, i+24}; place_group lays group i out the same.
  const auto l = topology::RankLayout::create(plan(8, 1, 4));
  REQUIRE(l);
  const topology::GroupShape dp = l->shape(topology::ParallelDim::DP, 8);
  for (std::int64_t i = 0; i < 8; ++i)
    CHECK(topology::place_group(dp, i, 8, 32) == l->group(topology::ParallelDim::DP, i));
  CHECK(topology::max_concurrent_groups(dp, 8, 32) == 8);
  // Stride 8 nodes on 16 nodes: blocks interleave, group 8 starts on node 1.
  const topology::GroupShape strided{2, 1, 8};
  CHECK(topology::place_group(strided, 0, 8, 128) == Ranks{0, 64});
  CHECK(topology::place_group(strided, 1, 8, 128) == Ranks{1, 65});
  CHECK(topology::place_group(strided, 8, 8, 128) == Ranks{8, 72});
  CHECK(topology::max_concurrent_groups(strided, 8, 128) == 64);
  CHECK(topology::place_group(strided, 64, 8, 128).empty());
}

TEST_CASE("topology: group shapes that cannot exist are explained") {
  CHECK(topology::check_group_shape({8, 8, 1}, 8, 16).empty());
  CHECK(topology::check_group_shape({8, 16, 1}, 8, 16) == "ranks_per_node 16 exceeds the node's 8 GPUs");
  CHECK(topology::check_group_shape({6, 4, 1}, 8, 16) == "ranks_per_node 4 does not divide ranks 6");
  CHECK(topology::check_group_shape({32, 8, 1}, 8, 16) == "the group's 32 ranks exceed the cluster's 16 GPUs");
  CHECK(topology::check_group_shape({2, 1, 4}, 8, 16) ==
        "a group of 2 ranks, 1 per node, node stride 4 does not fit 16 GPUs");
}

TEST_CASE("topology: the group layout repeats every period, moved by the period's nodes") {
  // group_period(): group i + groups is group i with every member period.nodes nodes on, for
  // every shape (several ranks per node, strides, groups of one node).
  const int gpn = 8;
  const std::int64_t total = 4096;
  int checked = 0;
  for (const std::int64_t ranks : {1, 2, 4, 8, 16, 24, 64})
    for (const int per_node : {1, 2, 4, 8})
      for (const std::int64_t stride : {1, 2, 3, 7}) {
        const topology::GroupShape s{ranks, per_node, stride};
        if (!topology::check_group_shape(s, gpn, total).empty()) continue;
        const topology::GroupPeriod p = topology::group_period(s, gpn);
        CAPTURE(ranks);
        CAPTURE(per_node);
        CAPTURE(stride);
        REQUIRE(p.groups >= 1);
        REQUIRE(p.nodes >= 1);
        for (std::int64_t i = 0; i < 3 * p.groups; ++i) {
          const Ranks a = topology::place_group(s, i, gpn, total);
          const Ranks b = topology::place_group(s, i + p.groups, gpn, total);
          if (a.empty() || b.empty()) break;
          REQUIRE(a.size() == b.size());
          for (std::size_t k = 0; k < a.size(); ++k) CHECK(b[k] == a[k] + p.nodes * gpn);
          ++checked;
        }
        // The period is the shortest: the groups of one period occupy p.nodes nodes.
        std::int64_t lo = total, hi = -1;
        for (std::int64_t i = 0; i < p.groups; ++i)
          for (const std::int64_t gpu : topology::place_group(s, i, gpn, total)) {
            lo = std::min(lo, gpu / gpn);
            hi = std::max(hi, gpu / gpn);
          }
        if (hi >= 0) CHECK(hi - lo + 1 == p.nodes);
      }
  CHECK(checked > 500);
}

// The tensor-parallel collectives of LoRA adapters (cost/fine_tuning_cost.hpp, adapter_tp_comm),
// checked collective by collective on a small dense model, and their share of a stage's TP time.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/cost/fine_tuning_cost.hpp"
#include "flopcast/cost/stage_cost.hpp"
#include "flopcast/io/scenario_loader.hpp"

using namespace flopcast;

namespace {

/// LoRA on a 2-layer model (hidden 1024, ffn 4096, seq 2048) on 8 H100 with TP `tp`.
scenario::Scenario lora(int tp, bool sequence_parallel, bool overlap, const std::string& targets) {
  const std::string text =
      "model:\n  layers: 2\n  hidden: 1024\n  heads: 8\n  ffn: 4096\n  vocab: 4096\n  seq_len: 2048\n"
      "cluster:\n  gpu: H100\n  gpus: 8\nparallel:\n  tp: " +
      std::to_string(tp) + "\n  dp: " + std::to_string(8 / tp) +
      "\n  micro_batch: 1\n  global_batch: 64\n  recompute: none\n  sequence_parallel: " +
      (sequence_parallel ? "true" : "false") + "\n  overlap_tp_comm: " + (overlap ? "true" : "false") +
      "\nprecision: bf16\ntraining:\n  tokens: 1B\n  method: lora\n  lora:\n    rank: 16\n    targets: [" + targets +
      "]\n";
  scenario::Diagnostics d;
  auto s = io::parse_scenario(text, "test.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s.has_value(), d.str());
  return *s;
}

struct Call {
  cost::CollectiveKind op;
  double bytes;
};

/// adapter_tp_comm with a recorder for `coll`: each collective costs 1 us, so the times count calls.
std::vector<Call> record(const scenario::Scenario& s, bool sequence_parallel, cost::AdapterTpComm& out) {
  std::vector<Call> calls;
  out = cost::adapter_tp_comm(s, 0, 2048, 2, sequence_parallel, [&](cost::CollectiveKind op, units::Bytes b) {
    calls.push_back({op, b.value});
    return units::Time::from_us(1);
  });
  return calls;
}

double bytes_of(const std::vector<Call>& calls, cost::CollectiveKind op) {
  double sum = 0;
  for (const auto& c : calls)
    if (c.op == op) sum += c.bytes;
  return sum;
}

constexpr double kLowRank = 2048.0 * 16 * 2;   // tokens x r x 2 B
constexpr double kHidden = 2048.0 * 1024 * 2;  // tokens x hidden x 2 B

}  // namespace

TEST_CASE("adapter TP collectives: none without tensor parallelism") {
  cost::AdapterTpComm c;
  CHECK(record(lora(1, false, false, "qkv, proj, fc1, fc2"), false, c).empty());
  CHECK(c.fwd.ns == 0);
  CHECK(c.bwd.ns == 0);
}

TEST_CASE("adapter TP collectives without sequence parallelism: a column adapter all-reduces its input gradient") {
  cost::AdapterTpComm c;
  // qkv (column): forward all-gather of A's output; backward all-reduces of B's and of the input's gradient.
  const auto col = record(lora(4, false, false, "qkv"), false, c);
  CHECK(c.calls_f == 1);
  CHECK(c.calls_b == 2);
  CHECK(bytes_of(col, cost::CollectiveKind::AllGather) == doctest::Approx(kLowRank));
  CHECK(bytes_of(col, cost::CollectiveKind::AllReduce) == doctest::Approx(kLowRank + kHidden));
  // fc2 (row, output = hidden): all-reduce of A's output and all-gather of B's forward; all-reduce of B's input
  // gradient backward.
  const auto row = record(lora(4, false, false, "fc2"), false, c);
  CHECK(c.calls_f == 2);
  CHECK(c.calls_b == 1);
  CHECK(bytes_of(row, cost::CollectiveKind::AllGather) == doctest::Approx(kHidden));
  CHECK(bytes_of(row, cost::CollectiveKind::AllReduce) == doctest::Approx(2 * kLowRank));
  CHECK(c.fwd.us() == doctest::Approx(2));
  CHECK(c.bwd.us() == doctest::Approx(1));
}

TEST_CASE("adapter TP collectives with sequence parallelism: the row adapter's output gradient is gathered") {
  cost::AdapterTpComm c;
  // Column: the input's gradient joins the base layer's reduce-scatter, so only the low-rank pair is left.
  const auto col = record(lora(4, true, false, "qkv"), true, c);
  CHECK(c.calls_f + c.calls_b == 2);
  CHECK(bytes_of(col, cost::CollectiveKind::AllReduce) == doctest::Approx(kLowRank));
  // Row: scattering the output along the sequence gathers its gradient backward.
  const auto row = record(lora(4, true, false, "proj"), true, c);
  CHECK(c.calls_b == 2);
  CHECK(bytes_of(row, cost::CollectiveKind::AllGather) == doctest::Approx(2 * kHidden));
  // Under comm-GEMM overlap a column adapter gathers the sequence itself and reduce-scatters its gradient.
  const auto overlap = record(lora(4, true, true, "fc1"), true, c);
  CHECK(c.calls_f == 2);
  CHECK(c.calls_b == 2);
  CHECK(bytes_of(overlap, cost::CollectiveKind::AllGather) == doctest::Approx(kLowRank + kHidden));
  CHECK(bytes_of(overlap, cost::CollectiveKind::ReduceScatter) == doctest::Approx(kHidden));
}

TEST_CASE("adapter TP collectives add to the stage's exposed TP time, layer by layer") {
  const compute::ComputeProfile prof;
  auto tp_comm = [&](const std::string& targets) {
    return cost::stage_costs(lora(4, false, false, targets), prof).front().tp_comm;
  };
  // Adding an fc2 adapter adds its collectives, priced on the cluster, once per layer (2 layers).
  const scenario::Scenario with_fc2 = lora(4, false, false, "fc2");
  const cost::ClusterCollectives coll(with_fc2, prof);
  const cost::AdapterTpComm fc2 = cost::adapter_tp_comm(
      with_fc2, 0, 2048, 2, false, [&](cost::CollectiveKind op, units::Bytes b) { return coll(op, 4, 1, b); });
  CHECK(fc2.fwd.ns > 0);
  const units::Time added = tp_comm("qkv, fc2") - tp_comm("qkv");
  CHECK(added.seconds() == doctest::Approx(2 * (fc2.fwd + fc2.bwd).seconds()).epsilon(1e-6));
  // Without tensor parallelism the adapters add no TP time at all.
  CHECK(cost::stage_costs(lora(1, false, false, "qkv, proj, fc1, fc2"), prof).front().tp_comm.ns == 0);
}

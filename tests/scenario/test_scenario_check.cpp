// The scenario's own checks (scenario/scenario_check.hpp) on scenarios changed in code: every
// problem reported at once, each at its key's place in the file. The loader runs the same
// checks; tests/negative/ holds one bad file per kind of mistake with its exact message.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/scenario/scenario_check.hpp"
#include "shipped_catalog.hpp"

namespace flopcast {
namespace {

/// Llama 3 8B (32 heads, 8 KV heads, 32 layers, FFN 14336) on 64 H800 with tp 2, dp 32, as
/// the quickstart runs it.
scenario::Scenario llama8b_on_64() {
  scenario::Diagnostics d;
  const auto s = io::parse_scenario(R"(
model: llama3-8b
cluster: {gpu: H800, gpus: 64}
parallel: {tp: 2, pp: 1, dp: 32, micro_batch: 1, global_batch: 512, sequence_parallel: true, zero: 1}
precision: bf16
)",
                                    "s.yaml", test::shipped_catalog(), d);
  REQUIRE_MESSAGE(s, d.str());
  return *s;
}

bool has(const scenario::Diagnostics& d, const std::string& line) {
  return std::any_of(d.items().begin(), d.items().end(),
                     [&](const scenario::Diagnostic& x) { return x.str() == line; });
}

}  // namespace

TEST_CASE("scenario check: a consistent scenario passes without a word") {
  scenario::Diagnostics d;
  scenario::check_scenario(llama8b_on_64(), d);
  CHECK_MESSAGE(d.empty(), d.str());
}

TEST_CASE("scenario check: tp 3 breaks the GPU product, the heads and the FFN, each reported at its key") {
  scenario::Scenario s = llama8b_on_64();
  s.plan.tp = 3;
  scenario::Diagnostics d;
  scenario::check_scenario(s, d);
  // 3 x 1 x 32 x 1 = 96 GPUs against 64; 64 is no multiple of 3, so no dp is suggested.
  // 32 heads % 3 = 2 and 14336 % 3 = 2; the KV-head check is not reached once the heads fail.
  const std::string tp_at = scenario::locate(s.locations, "parallel.tp").str();
  const std::string plan_at = scenario::locate(s.locations, "parallel").str();
  CHECK(tp_at == "s.yaml:4:16");  // line 4 of the text (it opens with a newline), the value after "parallel: {tp: "
  CHECK_MESSAGE(
      has(d, plan_at + ": error: parallel: tp*pp*dp*cp = 3*1*32*1 = 96 but cluster.gpus is 64 (hint: make the "
                       "product of the degrees equal the GPU count)"),
      d.str());
  CHECK_MESSAGE(has(d, tp_at + ": error: parallel.tp: tp 3 does not divide heads 32 (hint: tensor parallelism splits "
                               "attention heads: choose tp dividing 32)"),
                d.str());
  CHECK_MESSAGE(has(d, tp_at + ": error: parallel.tp: tp 3 does not divide ffn 14336"), d.str());
  CHECK(d.items().size() == 3);
}

TEST_CASE("scenario check: uneven pipeline stages are a warning, not an error") {
  scenario::Scenario s = llama8b_on_64();
  s.plan.pp = 3;                // 32 layers over 3 stages: 11, 11, 10
  s.cluster.gpus = 2 * 3 * 32;  // keep tp*pp*dp*cp equal to the GPU count
  scenario::Diagnostics d;
  scenario::check_scenario(s, d);
  CHECK_FALSE(d.has_errors());
  REQUIRE(d.items().size() == 1);
  CHECK(d.items()[0].key == "parallel.pp");
  CHECK(d.items()[0].message ==
        "layers 32 not divisible by pp*vpp = 3: stages get unequal layer counts (the most-loaded stage sets the pace)");
}

}  // namespace flopcast

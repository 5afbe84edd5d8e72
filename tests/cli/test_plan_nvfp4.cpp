// `flopcast plan --precision bf16,fp8,nvfp4`: NVFP4 candidates exist only on Blackwell, their
// MFU is taken against the dense NVFP4 peak of data/gpus.yaml, and a GPU without NVFP4 is
// refused with an error naming it.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_context.hpp"
#include "cli_runner.hpp"
#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/io/catalog.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;
using nlohmann::json;

namespace {

using test::contains;
using test::run_cli;
using test::scenario_file;

const std::string kPlan70b = scenario_file("plan-70b-1t.yaml");

}  // namespace

TEST_SUITE("cli.plan_nvfp4") {
  TEST_CASE("plan --precision bf16,fp8,nvfp4 over B200 and H100: nvfp4 only on the B200, at its cited dense peak") {
    const auto r = run_cli({"plan", kPlan70b, "--gpu", "B200,H100", "--precision", "bf16,fp8,nvfp4", "--json"});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    const json j = json::parse(r.out);
    int nvfp4 = 0, h100 = 0;
    auto look = [&](const json& e) {
      CAPTURE(e.dump());
      if (e.at("precision") == "nvfp4") {
        ++nvfp4;
        CHECK(e.at("gpu") == "B200");
      }
      if (e.at("gpu") == "H100") {
        ++h100;
        CHECK(e.at("precision") != "nvfp4");
      }
    };
    for (const char* list : {"top", "pareto", "resimulated"})
      for (const json& e : j.at(list)) look(e);
    look(j.at("chosen"));
    CHECK(nvfp4 > 0);  // Blackwell's NVFP4 candidates are searched and kept
    // The one (GPU type, precision) pair left out: H100 x nvfp4 (the H100 has bf16 and fp8 peaks).
    int no_peak = -1;
    for (const json& p : j.at("pruned"))
      if (p.at("reason") == "the GPU has no dense peak for the precision") no_peak = p.at("count").get<int>();
    CHECK(no_peak == 1);
    MESSAGE("nvfp4 entries: " << nvfp4 << ", H100 entries: " << h100);
  }

  TEST_CASE("an NVFP4 plan's MFU is against the B200's dense NVFP4 peak of data/gpus.yaml") {
    const hardware::GpuSpec* b200 = test::shipped_catalog().find_gpu("B200");
    REQUIRE(b200 != nullptr);
    const auto peak = b200->peak(hardware::Precision::NVFP4);
    REQUIRE(peak);
    // GK-B200 / NV-GB200TBL: dense FP4 9,000 TFLOPS per B200 (half the 18 PFLOPS sparse figure).
    CHECK(peak->tflops() == doctest::Approx(9000));
    CHECK(b200->peak(hardware::Precision::BF16)->tflops() == doctest::Approx(2250));

    test::TempDir tmp("plan-nvfp4");
    const auto emitted = tmp.path / "b200-nvfp4.yaml";
    const auto plan =
        run_cli({"plan", kPlan70b, "--gpu", "B200", "--precision", "nvfp4", "--emit-scenario", emitted.string()});
    REQUIRE_MESSAGE(plan.code == cli::kOk, plan.err);
    const auto sim = run_cli({"simulate", emitted.string(), "--json"});
    REQUIRE_MESSAGE(sim.code == cli::kOk, sim.err);
    const json step = json::parse(sim.out).at("step");
    const double mfu = step.at("mfu").get<double>();
    REQUIRE(mfu > 0);
    // MFU = model TFLOPS per GPU / the peak it is measured against.
    CHECK(step.at("model_tflops_per_gpu").get<double>() / mfu == doctest::Approx(peak->tflops()).epsilon(1e-9));
  }

  TEST_CASE("plan --precision nvfp4 on an H100: refused, naming the GPU, the precision and Blackwell") {
    const auto r = run_cli({"plan", kPlan70b, "--gpu", "H100", "--precision", "nvfp4"});
    CHECK(r.code != cli::kOk);
    CHECK(r.out.empty());
    CHECK(contains(r.err, "H100: nvfp4"));
    CHECK(contains(r.err, "Blackwell"));
    CHECK(contains(r.err, "--precision"));
  }
}

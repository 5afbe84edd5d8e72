// app::make_scenario_template (`flopcast init`): the first scenario's plan leaves HBM free.
#include <doctest/doctest.h>

#include "flopcast/app/scenario_template.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "shipped_catalog.hpp"

namespace flopcast::app {

TEST_SUITE("app.scenario_template") {
  TEST_CASE("init's plan leaves at least 8% of HBM free, by the estimate of the file it writes") {
    // Once 'init --gpu H800 --model llama3-70b --gpus 128' wrote a plan at 79.5 of 79.7 GiB:
    // "fits", then out of memory on a real cluster.
    const io::Catalog& cat = test::shipped_catalog();
    struct Case {
      const char* gpu;
      const char* model;
      std::int64_t gpus;
    };
    for (const Case& c : {Case{"H800", "llama3-70b", 128}, Case{"H800", "llama3-8b", 64},
                          Case{"A100-80G", "llama3-70b", 64}, Case{"H100", "llama3-405b", 1024}}) {
      const std::string what = std::string(c.model) + " on " + std::to_string(c.gpus) + " x " + c.gpu;
      CAPTURE(what);
      std::string why;
      const auto t = make_scenario_template(cat, TemplateRequest{c.gpu, c.model, c.gpus}, why);
      REQUIRE_MESSAGE(t, why);
      REQUIRE(t->fits);
      // The written file, read back and estimated as `simulate --estimate` would.
      scenario::Diagnostics d;
      const auto s = io::parse_scenario(template_yaml(*t, cat), "init.yaml", cat, d);
      REQUIRE_MESSAGE(s, d.str());
      const estimate::StepEstimate e = estimate::estimate_step(*s, cat.profile);
      CHECK(e.memory.total().value <= 0.92 * e.memory.capacity.value);
      CHECK(t->memory_gib <= 0.92 * t->capacity_gib);
    }
  }
}

}  // namespace flopcast::app

// app::SweepEvaluator: the cells of one `flopcast sweep` row, and the id that ties an output
// file to its sweep.
#include <doctest/doctest.h>

#include "flopcast/app/sweep_evaluator.hpp"
#include "shipped_catalog.hpp"

namespace flopcast::app {
namespace {

io::SweepSpec load(const std::string& name) {
  scenario::Diagnostics d;
  auto spec = io::load_sweep_file(std::string(FLOPCAST_SCENARIOS_DIR) + "/sweeps/" + name, d);
  REQUIRE_MESSAGE(spec.has_value(), d.str());
  return std::move(*spec);
}

}  // namespace

TEST_SUITE("app.sweep_evaluator") {
  TEST_CASE("a priced point: step, memory, days and the cheapest plan's bills") {
    const io::SweepSpec spec = load("price-list.sweep.yml");
    SweepEvaluator eval(spec, test::shipped_catalog(), "", "", StepEngine::Estimate);
    const auto cols = eval.columns();
    const std::size_t keys = spec.keys().size();
    REQUIRE(cols.size() == keys + sweep_output_columns().size());
    CHECK(cols[keys].name == "feasible");
    const std::vector<std::string> cells = eval.cells(0);
    REQUIRE(cells.size() == cols.size());
    const auto cell = [&](const std::string& name) {
      for (std::size_t i = 0; i < cols.size(); ++i)
        if (cols[i].name == name) return cells[i];
      FAIL("no column " << name);
      return std::string();
    };
    CHECK(cell("method") == "estimate");
    CHECK(cell("feasible") == "true");  // a boolean column: true/false, JSON's words
    CHECK(std::stod(cell("step_time_s")) > 0);
    CHECK(std::stod(cell("tokens_per_s")) > 0);
    CHECK(std::stod(cell("days_p90")) >= std::stod(cell("days_p50")));
    CHECK_FALSE(cell("cheapest_plan").empty());
    CHECK(cell("costs").find(cell("cheapest_plan") + "=") != std::string::npos);
    // The band columns: the step at the profile's band for the point's GPU, and the run there.
    scenario::Diagnostics d;
    std::vector<std::string> used;
    const auto s = io::sweep_point_scenario(spec, 0, test::shipped_catalog(), d, &used);
    REQUIRE(s);
    const compute::PredictionBand band =
        compute::find_band(test::shipped_catalog().profile.bands, s->cluster.gpu.arch, s->model.moe.has_value());
    REQUIRE(band.known);
    const double step = std::stod(cell("step_time_s"));
    CHECK(std::stod(cell("step_p10_s")) == doctest::Approx(step * band.p10).epsilon(1e-5));
    CHECK(std::stod(cell("step_p90_s")) == doctest::Approx(step * band.p90).epsilon(1e-5));
    CHECK(std::stod(cell("days_band_p10")) < std::stod(cell("days_band_p90")));
    CHECK(std::stod(cell("days_band_p90")) > std::stod(cell("days_p50")));
  }

  TEST_CASE("without a band for the GPU the band columns are empty") {
    const io::SweepSpec spec = load("price-list.sweep.yml");
    io::Catalog catalog = test::shipped_catalog();
    catalog.profile.bands.clear();
    SweepEvaluator eval(spec, catalog, "", "", StepEngine::Estimate);
    const auto cols = eval.columns();
    const std::vector<std::string> cells = eval.cells(0);
    int seen = 0;
    for (std::size_t i = 0; i < cols.size(); ++i)
      if (cols[i].name == "step_p10_s" || cols[i].name == "step_p90_s" || cols[i].name == "days_band_p10" ||
          cols[i].name == "days_band_p90") {
        CHECK(cells[i].empty());
        ++seen;
      }
    CHECK(seen == 4);
    CHECK_FALSE(cells[spec.keys().size() + 3].empty());  // step_time_s is still written
  }

  TEST_CASE("the sweep id follows the axes and the base, and nothing else") {
    const io::SweepSpec a = load("price-list.sweep.yml");
    const io::SweepSpec b = load("parallelism.sweep.yml");
    CHECK(sweep_id(a).size() == 16);
    CHECK(sweep_id(a) == sweep_id(load("price-list.sweep.yml")));
    CHECK(sweep_id(a) != sweep_id(b));
  }

  TEST_CASE("swept auto settings are written as the values used: dp and checkpoint_interval") {
    scenario::Diagnostics d;
    const auto spec = io::parse_sweep(
        "scenario:\n  model: llama3-8b\n  cluster: {gpu: H800, gpus: 16}\n"
        "  parallel: {tp: 2, pp: 1, dp: auto, micro_batch: 1, global_batch: 64, recompute: selective, "
        "sequence_parallel: true, zero: 1}\n  precision: bf16\n  training: {tokens: 5B}\n"
        "  reliability: {trials: 5, seed: 3}\n"
        "axes:\n  - key: parallel.dp\n    values: [auto]\n"
        "  - key: reliability.checkpoint_interval\n    values: [auto, young_daly, 2h]\n",
        "auto.sweep.yml", d);
    REQUIRE_MESSAGE(spec, d.str());
    SweepEvaluator eval(*spec, test::shipped_catalog(), "", "", StepEngine::Estimate);
    const auto a = eval.cells(0), y = eval.cells(1), h = eval.cells(2);
    REQUIRE(a.size() > 2);
    CHECK(a[0] == "8");  // 16 GPUs / tp 2
    // The Young/Daly interval the run used, in seconds (a value a scenario accepts), never "auto".
    REQUIRE(a[1].size() > 1);
    CHECK(a[1].back() == 's');
    CHECK(std::stod(a[1]) > 0);
    CHECK(y[1] == a[1]);
    CHECK(h[1] == "2h");
  }

  TEST_CASE("swept open settings (auto micro-batch and ZeRO) are written as the values resolution chose") {
    scenario::Diagnostics d;
    const auto spec = io::parse_sweep(
        "scenario:\n  model: llama3-8b\n  cluster: {gpu: H800, gpus: 16}\n"
        "  parallel: {tp: 2, pp: 1, dp: 8, micro_batch: 1, global_batch: 64, recompute: selective, "
        "sequence_parallel: true, zero: 1}\n  precision: bf16\n  training: {tokens: 5B}\n"
        "  reliability: {trials: 5, seed: 3}\n"
        "axes:\n  - key: parallel.micro_batch\n    values: [auto, 2]\n"
        "  - key: parallel.zero\n    values: [auto]\n",
        "open.sweep.yml", d);
    REQUIRE_MESSAGE(spec, d.str());
    SweepEvaluator eval(*spec, test::shipped_catalog(), "", "", StepEngine::Estimate);
    const auto a = eval.cells(0), b = eval.cells(1);
    REQUIRE(a.size() > 2);
    REQUIRE(b.size() > 2);
    // Digits only: a micro-batch and a ZeRO stage, never "auto" and never empty.
    for (const auto& v : {a[0], a[1], b[1]}) {
      CHECK_FALSE(v.empty());
      CHECK(v.find_first_not_of("0123456789") == std::string::npos);
    }
    CHECK(b[0] == "2");
  }

  TEST_CASE("the sweep identity: id, axes, points, the base scenario's hash and the version") {
    const io::SweepSpec a = load("price-list.sweep.yml");
    const sweep::SweepIdentity id = sweep_identity(a);
    CHECK(id.id == sweep_id(a));
    CHECK(id.points == a.points());
    CHECK(id.axes.size() == a.axes.size());
    CHECK(id.scenario_hash.size() == 16);
    CHECK(id.scenario_hash != sweep_identity(load("parallelism.sweep.yml")).scenario_hash);
    CHECK_FALSE(id.flopcast_version.empty());
  }
}

}  // namespace flopcast::app

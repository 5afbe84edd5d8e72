// app::validate_measurements and app::calibration_inputs: measured runs read with their problems
// kept as text and a status (the last problem read decides, as the CLI's exit status), each run
// predicted, and the reports rendered from the value.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "flopcast/app/calibration.hpp"
#include "flopcast/app/validation.hpp"
#include "shipped_catalog.hpp"
#include "test_files.hpp"

namespace flopcast::app {
namespace {

constexpr const char* kGoodRun = R"(- id: good
  source: test
  model: llama3-8b
  cluster: {gpu: H100, gpus: 8}
  parallel: {tp: 1, pp: 1, dp: 8, micro_batch: 1, global_batch: 64}
  precision: bf16
  measured: {iteration_time_s: 10}
)";

constexpr const char* kBadRun = R"(- id: bad-product
  source: test
  model: llama3-8b
  cluster: {gpu: H100, gpus: 8}
  parallel: {tp: 2, pp: 2, dp: 4, global_batch: 64}
  precision: bf16
  measured: {iteration_time_s: 10}
)";

std::string write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  const auto path = dir.path / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_SUITE("app.validation") {
  TEST_CASE("a good run is predicted, a bad entry is left out, named and counted in the report") {
    test::TempDir tmp("app-validation");
    const auto good = write(tmp, "good.yaml", kGoodRun);
    const auto bad = write(tmp, "bad.yaml", kBadRun);
    const auto& cat = test::shipped_catalog();
    const auto v = validate_measurements({{good, bad}, true}, cat, cat.profile);
    REQUIRE(v.runs.size() == 1);
    CHECK(v.runs[0].id == "good");
    REQUIRE(v.rows.size() == 1);
    CHECK(v.rows[0].figure == "iteration_time_s");
    CHECK(v.rows[0].predicted > 0);
    CHECK(v.problems.status == InputStatus::BadInput);
    REQUIRE(v.problems.errors.size() == 1);
    CHECK(v.problems.errors[0].find("bad-product: ") == 0);
    CHECK(v.problems.text.find("run bad-product:\n") != std::string::npos);
    CHECK(v.problems.text.find(bad + ":5:") != std::string::npos);
    const auto text = validation_text(cat.profile, v, true, false);
    CHECK(text.find("1 runs, 1 entries rejected)") != std::string::npos);
    CHECK(text.find("memory: 1 of 1 runs predicted to fit (100.0%)") != std::string::npos);
    const auto json = validation_json(cat.profile, v, true);
    CHECK(json.find("\"engine\": \"estimate\"") != std::string::npos);
  }

  TEST_CASE("the last problem read decides the status: a missing file after a bad entry, and before it") {
    test::TempDir tmp("app-validation");
    const auto bad = write(tmp, "bad.yaml", kBadRun);
    const auto missing = (tmp.path / "missing.yaml").string();
    const auto& cat = test::shipped_catalog();
    InputProblems bad_then_missing;
    CHECK(load_measured_runs({bad, missing}, cat, bad_then_missing).empty());
    CHECK(bad_then_missing.status == InputStatus::Unreadable);
    InputProblems missing_then_bad;
    CHECK(load_measured_runs({missing, bad}, cat, missing_then_bad).empty());
    CHECK(missing_then_bad.status == InputStatus::BadInput);
    CHECK(missing_then_bad.text.find(missing + ": error: file not found") != std::string::npos);
  }

  TEST_CASE("calibration inputs hold fine-tuning runs out and say so, full-training runs stay") {
    test::TempDir tmp("app-validation");
    const auto good = write(tmp, "good.yaml", kGoodRun);
    const auto& cat = test::shipped_catalog();
    const auto in = calibration_inputs({good, std::string(FLOPCAST_TESTS_DIR) + "/io/data/lora-runs.yaml"}, cat);
    REQUIRE(in.runs.size() == 1);
    CHECK(in.runs[0].id == "good");
    CHECK(in.fine_tuning_held_out > 0);
    CHECK(in.problems.status == InputStatus::Ok);
    CHECK(in.problems.text.find("fine-tuning runs (training.method lora or qlora) held out of the fit") !=
          std::string::npos);
    CHECK_FALSE(in.empty());
  }
}

}  // namespace flopcast::app

// app::import_logs: training logs made into a measured-run file that the run-file loader reads
// as any other; the steady state; the typed problems; one bad log per kind of mistake
// (tests/negative/log-*.log) with its exact message.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>

#include "flopcast/app/log_import.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "shipped_catalog.hpp"
#include "test_files.hpp"

namespace flopcast::app {
namespace {

std::string test_data(const std::string& name) { return std::string(FLOPCAST_TESTS_DIR) + "/io/data/" + name; }
std::string negative(const std::string& name) { return std::string(FLOPCAST_TESTS_DIR) + "/negative/" + name; }

io::LoggedInterval interval(std::int64_t iteration, double seconds, std::int64_t batch = 0) {
  io::LoggedInterval i;
  i.iteration = iteration;
  i.line = static_cast<int>(iteration) + 100;
  i.seconds = seconds;
  i.global_batch = batch;
  return i;
}

/// The one run of `yaml`, loaded as `validate` loads a run file.
scenario::Scenario load_single_run(const std::string& yaml) {
  scenario::Diagnostics diags;
  auto entries = io::parse_run_file(yaml, "runs.yaml", test::shipped_catalog(), diags);
  REQUIRE_MESSAGE(!diags.has_errors(), diags.str());
  REQUIRE(entries.size() == 1);
  REQUIRE_MESSAGE(entries[0].scenario.has_value(), entries[0].diags.str());
  return *entries[0].scenario;
}

}  // namespace

TEST_SUITE("app.log_import") {
  TEST_CASE("the steady state drops the first two intervals, the batch ramp-up and intervals above 1.5x the median") {
    // 1, 2: warm-up; 3: ramp-up (batch 64 of 128); 7: 30 s > 1.5 x median(10, 11, 12, 30, 10.5) = 18 s.
    const std::vector<io::LoggedInterval> v = {interval(1, 40),      interval(2, 19),       interval(3, 9, 64),
                                               interval(4, 10, 128), interval(5, 11, 128),  interval(6, 12, 128),
                                               interval(7, 30, 128), interval(8, 10.5, 128)};
    const auto s = steady_state(v, 128);
    CHECK(s.warmup == 2);
    CHECK(s.ramp_up == 1);
    CHECK(s.slow == 1);
    REQUIRE(s.kept == std::vector<std::size_t>{3, 4, 5, 7});
    CHECK(s.seconds == doctest::Approx(10.75));  // median of 10, 10.5, 11, 12
    CHECK(s.min_seconds == 10);
    CHECK(s.max_seconds == 12);
    CHECK(steady_state({interval(1, 40), interval(2, 19)}, 0).empty());
  }

  TEST_CASE("a Megatron-LM log of a 70B on 64 H100 imports as a run validate loads: shape, plan, time, memory") {
    ImportRequest req;
    req.logs = {test_data("megatron-llama3-70b-h100x64.log")};
    req.gpu = "H100";
    const auto r = import_logs(req, test::shipped_catalog());
    REQUIRE_MESSAGE(r.ok(), (r.diags.str() + r.message));
    REQUIRE(r.runs.size() == 1);
    const scenario::Scenario s = load_single_run(r.yaml);
    CHECK(s.id == "megatron-llama3-70b-h100x64");
    CHECK(s.model.layers == 80);
    CHECK(s.model.hidden == 8192);
    CHECK(s.model.heads == 64);
    CHECK(s.model.kv_heads == 8);
    CHECK(s.model.ffn == 28672);
    CHECK(s.model.vocab == 128256);
    CHECK(s.model.seq_len == 8192);
    CHECK(s.cluster.gpu.name == "H100");
    CHECK(s.cluster.gpus == 64);
    CHECK(s.plan.tp == 8);
    CHECK(s.plan.pp == 4);
    CHECK(s.plan.dp == 2);
    CHECK(s.plan.vpp == 5);
    CHECK(s.plan.zero == 1);
    CHECK(s.plan.micro_batch == 1);
    CHECK(s.plan.global_batch == 128);
    CHECK(s.plan.recompute == parallel::Recompute::Selective);
    CHECK(s.precision == hardware::Precision::BF16);
    // Steady state: iterations 3-30 without 17 (29811.4 ms > 1.5 x the median), 27 intervals;
    // their median, the 14th smallest, is iteration 10's 17476.5 ms (line 254).
    CHECK(r.runs[0].steady.kept.size() == 27);
    CHECK(s.measured.at("iteration_time_s") == doctest::Approx(17.4765));
    // Peak memory: 70114.00 MB max reserved (line 218) = 68.4707 GiB.
    CHECK(s.measured.at("memory_gib") == doctest::Approx(68.4707));
    // The log's TFLOP/s counts FLOPs Megatron-LM's way: kept with its convention, which the loader reads.
    CHECK(s.measured.size() == 3);
    CHECK(s.measured_as_stated.at("tflops_per_gpu") == doctest::Approx(420.1));
    CHECK(s.flops_convention == scenario::FlopsConvention::Megatron);
    CHECK(s.memory_kind == scenario::MemoryKind::Reserved);
    CHECK(test::contains(r.yaml, "    tflops_per_gpu: 420.1\n    flops_convention: megatron\n"));
    CHECK(test::contains(r.yaml, "    memory_kind: reserved\n"));
    CHECK(import_summary(r.runs[0]) ==
          "megatron-llama3-70b-h100x64: Megatron-LM, 80 layers x 8192, 64 x H100 (tp 8, pp 4, dp 2), 17.48 s per "
          "iteration (median of 27), peak 68.5 GiB reserved");
  }

  TEST_CASE("a torchtitan log names its GPU, and its steady tokens per GPU are the median of the kept steps") {
    ImportRequest req;
    req.logs = {test_data("torchtitan-llama3-70b-h100x64.log")};
    const auto r = import_logs(req, test::shipped_catalog());
    REQUIRE_MESSAGE(r.ok(), (r.diags.str() + r.message));
    const scenario::Scenario s = load_single_run(r.yaml);
    CHECK(s.cluster.gpu.name == "H100");  // "CUDA capacity: NVIDIA H100 80GB HBM3", a catalog alias
    CHECK(s.plan.zero == 3);
    // Steps 20-100 but 50 (tps 512: 16 s > 1.5 x 10.45 s): tps 779 781 783 784 785 786 788 790,
    // median (784 + 785) / 2.
    CHECK(s.measured.at("tokens_per_gpu_s") == doctest::Approx(784.5));
    CHECK(s.measured.at("memory_gib") == doctest::Approx(61.38));
    CHECK(test::contains(r.yaml, "    flops_convention: model_full_attention\n"));
    CHECK(s.flops_convention == scenario::FlopsConvention::ModelFullAttention);
  }

  TEST_CASE("a log that names no GPU needs one from the request, and an unknown one is refused") {
    ImportRequest req;
    req.logs = {test_data("megatron-llama3-70b-h100x64.log")};
    auto r = import_logs(req, test::shipped_catalog());
    CHECK(r.problem == ImportProblem::NoGpu);
    CHECK(r.yaml.empty());
    CHECK(r.message == test_data("megatron-llama3-70b-h100x64.log") +
                           " does not name its GPU type: give --gpu NAME (flopcast catalog gpus lists them)");
    req.gpu = "H10O";
    r = import_logs(req, test::shipped_catalog());
    CHECK(r.problem == ImportProblem::UnknownGpu);
    CHECK(test::contains(r.message, "--gpu: unknown GPU 'H10O'"));
  }

  TEST_CASE("one bad log among good ones: nothing is composed, each bad log names file:line") {
    ImportRequest req;
    req.gpu = "H100";
    req.logs = {test_data("megatron-llama3-70b-h100x64.log"), negative("log-world-size-mismatch.log")};
    const auto r = import_logs(req, test::shipped_catalog());
    CHECK(r.problem == ImportProblem::BadLog);
    CHECK(r.yaml.empty());
    req.logs = {test_data("megatron-llama3-70b-h100x64.log"), negative("no-such.log")};
    CHECK(import_logs(req, test::shipped_catalog()).problem == ImportProblem::Unreadable);
  }

  TEST_CASE("every bad log in tests/negative/ is refused with its exact first error") {
    // One kind of mistake each; the message names the file (as given), the line and why.
    const std::map<std::string, std::string> expected = {
        {"log-not-a-training-log.log",
         ":1: error: not a training log: it has no Megatron-LM arguments block (\"------------------------ "
         "arguments ------------------------\") or iteration line (\"elapsed time per iteration (ms):\"), and no "
         "torchtitan log line (\"[titan] ...\") (hint: give the standard output of a Megatron-LM or torchtitan "
         "training job)"},
        {"log-world-size-mismatch.log",
         ":25: error: world_size: the arguments contradict each other: tensor_model_parallel_size 8 x "
         "pipeline_model_parallel_size 4 x data_parallel_size 4 x context_parallel_size 1 = 128, but world_size is "
         "64 (hint: Megatron-LM derives data_parallel_size = world_size / (tp*pp*cp): the log was edited or joins "
         "two jobs)"},
        {"log-no-steady-iteration.log",
         ":30: error: no steady iteration: the log's 2 logged interval(s) (lines 29-30) are all warm-up (hint: a "
         "steady state needs a logged interval after the first 2: run longer or lower --log-interval)"},
    };
    std::size_t on_disk = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::string(FLOPCAST_TESTS_DIR) + "/negative")) {
      if (e.path().extension() != ".log") continue;
      ++on_disk;
      const auto name = e.path().filename().string();
      CAPTURE(name);
      REQUIRE(expected.count(name));
      ImportRequest req;
      req.gpu = "H100";
      req.logs = {negative(name)};
      const auto r = import_logs(req, test::shipped_catalog());
      CHECK(r.problem == ImportProblem::BadLog);
      REQUIRE(r.diags.has_errors());
      CHECK(r.diags.items().front().str() == negative(name) + expected.at(name));
    }
    CHECK(on_disk == expected.size());
  }
}

}  // namespace flopcast::app

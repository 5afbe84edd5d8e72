// `flopcast import` in-process (cli::run): the runs file it writes is read by validate and
// calibrate as any run file; bad logs exit 3 and write nothing; an existing file needs --force.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

using namespace flopcast;
using flopcast::test::run_cli;

namespace {

std::string test_data(const std::string& name) { return std::string(FLOPCAST_TESTS_DIR) + "/io/data/" + name; }
const std::string kMegatron = test_data("megatron-llama3-70b-h100x64.log");
const std::string kTitan = test_data("torchtitan-llama3-70b-h100x64.log");

}  // namespace

TEST_CASE("import: the runs file of two logs is read by validate and calibrate") {
  test::TempDir dir("import");
  const auto runs = (dir.path / "cluster.yaml").string();
  const auto r = run_cli({"import", kMegatron, kTitan, "--gpu", "H100", "-o", runs});
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(test::contains(r.out, "wrote " + runs + ": 2 runs\n"));
  CHECK(test::contains(r.out, "next: flopcast validate " + runs));
  const auto v = run_cli({"validate", runs});
  CAPTURE(v.err);
  CHECK(v.code == 0);
  CHECK(test::contains(v.out, "megatron-llama3-70b-h100x64"));
  CHECK(test::contains(v.out, "torchtitan-llama3-70b-h100x64"));
  // The measured figures each log gives: an iteration time (Megatron-LM), tokens per GPU
  // (torchtitan), and both logs' peak memory.
  CHECK(test::contains(v.out, "iteration_time_s"));
  CHECK(test::contains(v.out, "tokens_per_gpu_s"));
  CHECK(test::contains(v.out, "memory_gib"));
  const auto profile = (dir.path / "cluster-profile.yaml").string();
  const auto c = run_cli({"calibrate", runs, "-o", profile});
  CAPTURE(c.err);
  CHECK(c.code == 0);
  CHECK(test::contains(c.out, "hopper fitted on 2 runs"));
}

TEST_CASE("import: without -o the runs file goes to standard output, and the same logs give the same bytes") {
  const auto a = run_cli({"import", kMegatron, "--gpu", "H100", "--fabric", "dgx-h100-ndr", "--gpus-per-node", "8"});
  CAPTURE(a.err);
  REQUIRE(a.code == 0);
  CHECK(test::contains(a.out, "- id: megatron-llama3-70b-h100x64\n"));
  CHECK(test::contains(a.out,
                       "  cluster:\n    gpu: H100\n    gpus: 64\n    gpus_per_node: 8\n    fabric: dgx-h100-ndr\n"));
  CHECK(run_cli({"import", kMegatron, "--gpu", "H100", "--fabric", "dgx-h100-ndr", "--gpus-per-node", "8"}) == a);
}

TEST_CASE("import: a bad log exits 3 naming file:line and writes nothing, and an existing file needs --force") {
  test::TempDir dir("import");
  const auto runs = (dir.path / "runs.yaml").string();
  const auto bad = std::string(FLOPCAST_TESTS_DIR) + "/negative/log-world-size-mismatch.log";
  const auto r = run_cli({"import", kMegatron, bad, "--gpu", "H100", "-o", runs});
  CHECK(r.code == 3);
  CHECK(test::contains(r.err, bad + ":25: error: world_size: the arguments contradict each other"));
  CHECK(test::contains(r.err, "flopcast import: nothing written"));
  CHECK_FALSE(std::filesystem::exists(runs));

  std::ofstream(runs) << "# mine\n";
  const auto again = run_cli({"import", kMegatron, "--gpu", "H100", "-o", runs});
  CHECK(again.code == 4);
  CHECK(test::read_file(runs) == "# mine\n");
  CHECK(run_cli({"import", kMegatron, "--gpu", "H100", "-o", runs, "--force"}).code == 0);
  CHECK(test::contains(test::read_file(runs), "iteration_time_s: 17.4765"));
}

TEST_CASE("import: a log naming no GPU without --gpu, or an unknown --gpu, is a usage error") {
  const auto r = run_cli({"import", kMegatron});
  CHECK(r.code == 2);
  CHECK(test::contains(r.err, "does not name its GPU type: give --gpu NAME"));
  CHECK(run_cli({"import", kMegatron, "--gpu", "H10O"}).code == 2);
  CHECK(run_cli({"import", std::string(FLOPCAST_TESTS_DIR) + "/io/data/missing.log", "--gpu", "H100"}).code == 4);
}

// Sizes at the planning limits: 10^6 GPUs, 10^16 tokens and models near 10^13
// parameters are computed without overflow, NaN or infinity in the estimate and in the
// `simulate --json` report, and sizes above the limits are refused with a clear message.
// Scenarios are written inline (each limit spelled out next to its check) and run through
// the CLI in-process (cli::run), so the loader, check_scenario, estimate_step and to_json
// are all covered. The 10^6-GPU case runs the flopcast binary under timeout(1) instead, so a
// model that does not scale fails the test in bounded time rather than hanging the suite.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli_context.hpp"
#include "cli_runner.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/workload/workload.hpp"

using namespace flopcast;
using nlohmann::json;

namespace {

using test::contains;
using SimResult = test::CliResult;

/// A temporary folder named flopcast-test-limits-<n>.
struct LimitsTempDir : test::TempDir {
  LimitsTempDir() : test::TempDir("limits") {}
};

/// `flopcast simulate [--json] FILE` in-process on `yaml` written to a temporary file.
SimResult simulate(const std::string& yaml, bool as_json = true) {
  LimitsTempDir tmp;
  const auto file = (tmp.path / "limits.yaml").string();
  std::ofstream(file) << yaml;
  std::vector<std::string> args{"simulate"};
  if (as_json) args.emplace_back("--json");
  args.push_back(file);
  return test::run_cli(args);
}

/// Seconds the flopcast binary gets for one scenario at the limits. The closed-form estimate
/// answers in well under a second even under AddressSanitizer; a minute means it does not scale.
constexpr int kLimitSeconds = 60;

/// `flopcast simulate --json FILE` as a child process bounded by timeout(1): exit 124 when
/// it did not finish within kLimitSeconds.
SimResult simulate_bounded(const std::string& yaml) {
  LimitsTempDir tmp;
  const auto file = tmp.path / "limits.yaml";
  std::ofstream(file) << yaml;
  const std::string cmd = "timeout -k 5 " + std::to_string(kLimitSeconds) +
                          " '" FLOPCAST_CLI_PATH "' simulate --json '" + file.string() + "' > '" +
                          (tmp.path / "out").string() + "' 2> '" + (tmp.path / "err").string() + "'";
  const int status = std::system(cmd.c_str());
  SimResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = test::read_file(tmp.path / "out");
  r.err = test::read_file(tmp.path / "err");
  return r;
}

/// Every number in `j` (recursively) is finite. nlohmann::json writes NaN and infinity as
/// `null`, so a null anywhere in the report counts as a non-finite number too.
void check_all_finite(const json& j, const std::string& path, std::vector<std::string>& bad) {
  if (j.is_null()) {
    bad.push_back(path + " = null");
  } else if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) bad.push_back(path + " = " + j.dump());
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items()) check_all_finite(v, path + "." + k, bad);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) check_all_finite(j[i], path + "[" + std::to_string(i) + "]", bad);
  }
}

/// Runs `yaml` through simulate --json, requires a report (exit 0, or 5 when the plan does
/// not fit memory) and checks every number in it is finite and the step time positive.
json finite_report(const SimResult& r) {
  INFO(r.err);
  REQUIRE_MESSAGE(r.code != 124, "not computed within " << kLimitSeconds << " s");
  REQUIRE((r.code == cli::kOk || r.code == cli::kInfeasible));
  const auto j = json::parse(r.out);
  std::vector<std::string> bad;
  check_all_finite(j, "", bad);
  CHECK_MESSAGE(bad.empty(),
                "non-finite numbers in the report: " << bad.size() << ", first: " << (bad.empty() ? "" : bad[0]));
  CHECK(j["step"]["time_s"].get<double>() > 0);
  // The step breakdown sums to the step time (step_estimate.hpp StepBreakdown), to the
  // nanosecond rounding of each of its ten parts.
  double parts = 0;
  for (const auto& [k, v] : j["breakdown_s"].items()) {
    CHECK(v.get<double>() >= 0);
    parts += v.get<double>();
  }
  CHECK(parts == doctest::Approx(j["step"]["time_s"].get<double>()).epsilon(1e-9));
  CHECK(j["step"]["mfu"].get<double>() > 0);
  CHECK(j["step"]["mfu"].get<double>() <= 1);
  return j;
}

/// A GPT-3-175B-shaped model (Brown et al. 2020, Table 2.1: 96 layers, d_model 12288,
/// 96 heads, 2048 context) on `gpus` H100s with tp 8, pp 8 and dp = gpus / 64.
std::string gpt3_on(std::int64_t gpus, std::int64_t dp, const std::string& tokens) {
  return "name: limits\n"
         "model: {layers: 96, hidden: 12288, heads: 96, vocab: 51200, seq_len: 2048}\n"
         "cluster: {gpu: H100, gpus: " +
         std::to_string(gpus) +
         ", gpus_per_node: 8}\n"
         "parallel: {tp: 8, pp: 8, dp: " +
         std::to_string(dp) + ", micro_batch: 1, global_batch: " + std::to_string(2 * dp) +
         ", recompute: full, sequence_parallel: true, zero: 1}\n"
         "precision: bf16\n"
         "training: {tokens: " +
         tokens + "}\n";
}

/// A dense GeLU model of `layers` layers of hidden 65,536 (512 heads of 128): 12*h^2 + 13*h
/// = 5.154e10 parameters per layer (workload.cpp parameter_count), so 192 layers hold
/// 9.90e12 parameters with the 51,200 x 65,536 tied embedding, 200 layers 1.031e13.
std::string huge_model(int layers, std::int64_t gpus, std::int64_t dp, const std::string& tokens) {
  return "name: limits-huge-model\n"
         "model: {layers: " +
         std::to_string(layers) +
         ", hidden: 65536, heads: 512, vocab: 51200, seq_len: 2048}\n"
         "cluster: {gpu: H100, gpus: " +
         std::to_string(gpus) +
         ", gpus_per_node: 8}\n"
         "parallel: {tp: 8, pp: 8, dp: " +
         std::to_string(dp) + ", micro_batch: 1, global_batch: " + std::to_string(2 * dp) +
         ", recompute: full, sequence_parallel: true, zero: 3}\n"
         "precision: bf16\n"
         "training: {tokens: " +
         tokens + "}\n";
}

}  // namespace

TEST_CASE("limits: 10^6 GPUs, 10^16 tokens and 9.9e12 parameters at once are computed with finite figures") {
  // 10^6 = tp 8 * pp 8 * dp 15,625; global batch 2 * dp = 31,250 sequences of 2,048 tokens.
  const auto j = finite_report(simulate_bounded(huge_model(192, 1'000'000, 15'625, "1e16")));
  CHECK(j["cluster"]["gpus"].get<std::int64_t>() == 1'000'000);
  CHECK(j["cluster"]["nodes"].get<std::int64_t>() == 125'000);
  CHECK(j["parallel"]["dp"].get<std::int64_t>() == 15'625);
  CHECK(j["training"]["tokens"].get<double>() == 1e16);
  CHECK(j["model"]["params"].get<double>() > 9.8e12);
  // steps = ceil(tokens / (global_batch * seq_len)) = ceil(1e16 / (31,250 * 2,048)).
  CHECK(j["training"]["steps"].get<double>() == std::ceil(1e16 / (31'250.0 * 2'048.0)));
}

TEST_CASE("limits: 10^16 training tokens give finite steps, days and GPU-hours") {
  // GPT-3 175B on 1,024 GPUs (tp 8, pp 8, dp 16), global batch 32.
  const auto j = finite_report(simulate(gpt3_on(1'024, 16, "1e16")));
  CHECK(j["training"]["tokens"].get<double>() == 1e16);
  // steps = ceil(tokens / (global_batch * seq_len)) = ceil(1e16 / (32 * 2,048)).
  CHECK(j["training"]["steps"].get<double>() == std::ceil(1e16 / (32.0 * 2'048.0)));
  CHECK(j["training"]["gpu_hours"].get<double>() > 0);
  // gpu_hours = days * 24 * GPUs (report.cpp make_report).
  CHECK(j["training"]["gpu_hours"].get<double>() ==
        doctest::Approx(j["training"]["days"].get<double>() * 24 * 1'024).epsilon(1e-9));
  // Model FLOPs per step >= 6 * params * tokens per step (Kaplan et al. 2020, eq. 2.1; the
  // attention term only adds): 6 * 1.74e11 * 32 * 2,048.
  CHECK(j["step"]["model_flops"].get<double>() >= 6 * 1.74e11 * 32.0 * 2'048.0);
}

TEST_CASE("limits: a 9.9e12-parameter model is computed with finite figures") {
  const auto j = finite_report(simulate(huge_model(192, 1'024, 16, "1T")));
  const double params = j["model"]["params"].get<double>();
  // 192 * (12 * 65536^2 + 13 * 65536) + 51200 * 65536 + 2048 * 65536 + 2 * 65536 (learned
  // positions and LayerNorm: the GeLU defaults), see huge_model().
  const double h = 65'536;
  CHECK(params == doctest::Approx(192 * (12 * h * h + 13 * h) + (51'200 + 2'048 + 2) * h).epsilon(1e-6));
  CHECK(params < 1e13);
  CHECK(params > 9.8e12);
}

TEST_CASE("limits: the text report at 10^16 tokens and 9.9e12 parameters prints no nan or inf") {
  const auto r = simulate(huge_model(192, 1'024, 16, "1e16"), false);
  INFO(r.err);
  REQUIRE((r.code == cli::kOk || r.code == cli::kInfeasible));
  CHECK_FALSE(contains(r.out, "nan"));
  CHECK_FALSE(contains(r.out, "inf "));
  CHECK_FALSE(contains(r.out, "inf%"));
}

TEST_CASE("limits: sizes above the limits are refused with a clear message") {
  SUBCASE("more than 10^6 GPUs") {
    const auto r = simulate(gpt3_on(1'000'064, 15'626, "300B"));
    CHECK(r.code == cli::kBadInput);
    CHECK(r.out.empty());
    CHECK_MESSAGE(contains(r.err, ":3:"), r.err);  // points at the cluster line
    CHECK_MESSAGE(contains(r.err, "error: cluster.gpus: value 1000064 is out of range: expected 1 to 1000000"), r.err);
  }
  SUBCASE("more than 10^16 tokens") {
    const auto r = simulate(gpt3_on(1'024, 16, "2e16"));
    CHECK(r.code == cli::kBadInput);
    CHECK(r.out.empty());
    CHECK_MESSAGE(contains(r.err, "error: training.tokens: value 2e16 is out of range: expected 1 to 1e+16"), r.err);
  }
  SUBCASE("more than 10^13 parameters") {
    // 200 layers: 200 * 5.154e10 + 3.37e9 = 1.031e13 parameters (see huge_model()).
    const auto r = simulate(huge_model(200, 1'024, 16, "1T"));
    CHECK(r.code == cli::kBadInput);
    CHECK(r.out.empty());
    CHECK_MESSAGE(contains(r.err, "error: model: the model has 10.3"), r.err);
    CHECK_MESSAGE(contains(r.err, "T parameters, above the 10^13 limit"), r.err);
  }
  SUBCASE("a tp*pp*dp*cp product beyond 64 bits is refused, not overflowed") {
    // Each degree alone is within the loader's 1..10^6 range; their product 10^24 is not an
    // int64 (ParallelPlan::gpus() must not overflow).
    const auto r = simulate(
        "model: {layers: 96, hidden: 12288, heads: 96, vocab: 51200, seq_len: 2048}\n"
        "cluster: {gpu: H100, gpus: 1000000}\n"
        "parallel: {tp: 1000000, pp: 1000000, dp: 1000000, cp: 1000000, global_batch: 1000000}\n"
        "precision: bf16\n");
    CHECK(r.code == cli::kBadInput);
    CHECK(r.out.empty());
    CHECK_MESSAGE(contains(r.err, ":3:"), r.err);  // points at the parallel line
    CHECK_MESSAGE(contains(r.err, "error: parallel: tp*pp*dp*cp = 1000000*1000000*1000000*1000000 exceeds 2^63"),
                  r.err);
    CHECK_MESSAGE(contains(r.err, "hint: make the product of the degrees equal cluster.gpus (at most 1000000)"), r.err);
  }
  SUBCASE("more than 10^16 tokens in one step (global_batch * seq_len)") {
    const auto r = simulate(
        "model: {layers: 64, hidden: 8192, heads: 64, vocab: 100000, seq_len: 100000000}\n"
        "cluster: {gpu: H100, gpus: 8}\n"
        "parallel: {tp: 8, dp: 1, micro_batch: 1000000000, global_batch: 1000000000}\n"
        "precision: bf16\n");
    CHECK(r.code == cli::kBadInput);
    CHECK(r.out.empty());
    CHECK_MESSAGE(
        contains(r.err,
                 "error: parallel.global_batch: global_batch*seq_len = 1000000000*100000000 = 1e+17 tokens "
                 "per step, above the 10^16 limit (hint: lower global_batch (sequences per step) or model.seq_len)"),
        r.err);
  }
  SUBCASE("a NIC bandwidth that is not finite, or outside 1 to 100000 Gbps") {
    for (const char* nic : {"1e308 Tbps", "1 Mbps", "200 Tbps"}) {
      CAPTURE(nic);
      const auto r = simulate(std::string("model: llama3-8b\n"
                                          "cluster: {gpu: H100, gpus: 16, fabric: {kind: infiniband, nic: \"") +
                              nic +
                              "\", nics_per_node: 8}}\n"
                              "parallel: {global_batch: 64}\n"
                              "precision: bf16\n");
      CHECK(r.code == cli::kBadInput);
      CHECK(r.out.empty());
      CHECK_MESSAGE(contains(r.err, "error: cluster.fabric.nic: "), r.err);
    }
  }
  SUBCASE("nic at both ends of its range is accepted") {
    for (const char* nic : {"1 Gbps", "100 Tbps"}) {
      CAPTURE(nic);
      const auto r = simulate(std::string("model: llama3-8b\n"
                                          "cluster: {gpu: H100, gpus: 16, fabric: {kind: infiniband, nic: \"") +
                              nic +
                              "\", nics_per_node: 8}}\n"
                              "parallel: {global_batch: 64}\n"
                              "precision: bf16\n");
      finite_report(r);
    }
  }
}

TEST_CASE("limits: flopcast collective refuses size sweeps that would not end") {
  auto collective = [](const std::vector<std::string>& args) {
    std::vector<std::string> argv{"collective", "--gpu", "H100", "--gpus", "16"};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_cli(argv);
  };
  SUBCASE("--min 0 never grows by multiplication") {
    const auto r = collective({"--min", "0", "--max", "8"});
    CHECK(r.code == cli::kUsage);
    CHECK_MESSAGE(contains(r.err, "--min must be > 0 bytes (got '0')"), r.err);
  }
  SUBCASE("a tiny step factor over a wide range") {
    const auto r = collective({"--min", "1", "--max", "1e300 B", "--step-factor", "1.0000001"});
    CHECK(r.code == cli::kUsage);
    CHECK_MESSAGE(contains(r.err, "rows, more than 10000"), r.err);
  }
  SUBCASE("a size that overflows to infinity") {
    const auto r = collective({"--min", "8", "--max", "1e308T"});
    CHECK(r.code == cli::kUsage);
    CHECK_MESSAGE(contains(r.err, "--min/--max: expected sizes"), r.err);
  }
}

TEST_CASE("limits: the largest values the loader accepts never reach the report as nan or inf") {
  // vocab and seq_len at the top of their loader range (model_io.cpp), with the largest batch
  // check_scenario accepts: global_batch * seq_len = 10^8 * 10^8 = 10^16 tokens in one step.
  // Either a report with finite numbers or a refusal, never a crash or a non-finite figure.
  const std::string yaml =
      "model: {layers: 64, hidden: 8192, heads: 64, vocab: 100000000, seq_len: 100000000}\n"
      "cluster: {gpu: H100, gpus: 8}\n"
      "parallel: {tp: 8, dp: 1, micro_batch: 100000000, global_batch: 100000000}\n"
      "precision: bf16\n"
      "training: {tokens: 1e16}\n";
  const auto r = simulate(yaml);
  INFO(r.err);
  CHECK((r.code == cli::kOk || r.code == cli::kInfeasible || r.code == cli::kBadInput));
  if (r.code != cli::kBadInput) {
    std::vector<std::string> bad;
    check_all_finite(json::parse(r.out), "", bad);
    CHECK_MESSAGE(bad.empty(),
                  "non-finite numbers in the report: " << bad.size() << ", first: " << (bad.empty() ? "" : bad[0]));
  }
}

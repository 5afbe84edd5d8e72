// Golden tests: every shipped scenario (every file under scenarios/ that `flopcast simulate`
// reads; fleet and sweep files have their own commands) is one test case that
//  1. exits with the code listed below (3 and 5 only where the file is meant to fail, each with
//     the message that says why);
//  2. prints exactly tests/golden/<scenario>.txt: the standard output of `flopcast simulate`,
//     followed, when the run writes to standard error, by a "--- standard error ---" line and
//     that text (paths relative to the repository). The snapshots are reviewed like code;
//  3. gives a `simulate --json` report whose figures obey the model's identities, which hold
//     whatever the calibration: the breakdown sums to the step time; MFU = model FLOPs / (step x
//     GPUs x the catalog's dense peak of the precision); the pipeline bubble follows the
//     schedule's formula; the memory parts sum to the total, and the plan is feasible exactly
//     when that total fits the GPU's HBM.
// After a deliberate change of the model, the calibration or a scenario, rewrite the snapshots
// with
//   FLOPCAST_UPDATE_GOLDEN=1 ctest --preset ci -R golden
// which rewrites every snapshot that differs and then FAILS each rewritten case, so a rewrite is
// never silent: review `git diff tests/golden`, then run the tests again without the variable.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_context.hpp"
#include "cli_runner.hpp"
#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/io/catalog.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// Every shipped scenario, its exit code and, where it must fail, the words that say why.
/// Exit 5 (infeasible): the seed vendor's 65B-on-8-A100 claims need more memory than an A100
/// has (scenarios/README.md). Llama 3 405B as published (TP8 PP16 ZeRO-2 on 80 GB), which Meta
/// did run, fits (71.4 of 79.7 GiB): the activations of Llama-style layers carry no dropout masks
/// and SwiGLU keeps 6f/h, not 8f/h (Megatron-core). Exit 3 (bad input): the 650B claim's TP8 x
/// PP16 x DP128 needs 16,384 GPUs, not 2,048.
#define FLOPCAST_SHIPPED_SCENARIOS(X)                                                               \
  X("finetune-llama2-70b-lora.yaml", cli::kOk, "")                                                  \
  X("finetune-llama2-70b-qlora.yaml", cli::kOk, "")                                                 \
  X("fleets/jobs/llama2-13b-64xa100.yaml", cli::kOk, "")                                            \
  X("fleets/jobs/llama2-70b-128xb200.yaml", cli::kOk, "")                                           \
  X("fleets/jobs/llama2-7b-32xa100.yaml", cli::kOk, "")                                             \
  X("fleets/jobs/llama3-70b-256xh100.yaml", cli::kOk, "")                                           \
  X("fleets/jobs/llama3-8b-64xh100.yaml", cli::kOk, "")                                             \
  X("fleets/jobs/llama3-8b-64xh800.yaml", cli::kOk, "")                                             \
  X("long-context/gpt-oss-120b-32k-256xh100.yaml", cli::kOk, "")                                    \
  X("low-precision/llama3-70b-nvfp4-64xb200.yaml", cli::kOk, "")                                    \
  X("plan-70b-1t.yaml", cli::kOk, "")                                                               \
  X("plan-72b-2t-h800.yaml", cli::kOk, "")                                                          \
  X("published/bloom-176b-384xa100.yaml", cli::kOk, "")                                             \
  X("published/deepseek-v3-2048xh800.yaml", cli::kOk, "")                                           \
  X("published/llama-65b-2048xa100.yaml", cli::kOk, "")                                             \
  X("published/llama2-70b-2048xa100.yaml", cli::kOk, "")                                            \
  X("published/llama3-405b-16384xh100.yaml", cli::kOk, "")                                          \
  X("published/llama3-8b-1024xh100.yaml", cli::kOk, "")                                             \
  X("published/megatron-1t-3072xa100.yaml", cli::kOk, "")                                           \
  X("published/megatron-530b-2240xa100.yaml", cli::kOk, "")                                         \
  X("published/megatron-gpt3-175b-1024xa100.yaml", cli::kOk, "")                                    \
  X("published/mtnlg-530b-3360xa100.yaml", cli::kOk, "")                                            \
  X("quickstart.yaml", cli::kOk, "")                                                                \
  X("rental/llama3-70b-64xh20.yaml", cli::kOk, "")                                                  \
  X("rental/llama3-8b-lora-8xl40s.yaml", cli::kOk, "")                                              \
  X("seed-claims/650b-2048xa100-tp8pp16dp128.yaml", cli::kBadInput,                                 \
    "error: parallel: tp*pp*dp*cp = 8*16*128*1 = 16384 but cluster.gpus is 2048")                   \
  X("seed-claims/65b-1t-tokens-8xa100-30days.yaml", cli::kInfeasible, "impossible: the plan needs") \
  X("seed-claims/65b-8xa100-tp1pp8-zero3.yaml", cli::kInfeasible, "impossible: the plan needs")     \
  X("seed-claims/65b-8xa100-tp2pp4-community.yaml", cli::kInfeasible, "impossible: the plan needs") \
  X("seed-claims/70b-64xh800-zero3.yaml", cli::kOk, "")                                             \
  X("seed-claims/pipeline-16-stage-bubble.yaml", cli::kOk, "")

#define FLOPCAST_SCENARIO_NAME(file, code, message) file,
const char* const kShipped[] = {FLOPCAST_SHIPPED_SCENARIOS(FLOPCAST_SCENARIO_NAME)};

bool updating() {
  const char* v = std::getenv("FLOPCAST_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

/// `text` with the repository's absolute path taken out, so snapshots hold relative paths.
std::string relative_paths(std::string text) {
  const std::string root = std::string(FLOPCAST_SOURCE_DIR) + "/";
  for (auto at = text.find(root); at != std::string::npos; at = text.find(root, at)) text.erase(at, root.size());
  return text;
}

/// The first line where `expected` and `actual` differ, for a readable failure.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  for (int n = 1;; ++n) {
    const bool he = static_cast<bool>(std::getline(e, le)), ha = static_cast<bool>(std::getline(a, la));
    if (!he && !ha) return "identical lines (line endings differ?)";
    if (!he || !ha || le != la)
      return "line " + std::to_string(n) + ":\n  golden: " + (he ? le : "<end>") + "\n  actual: " + (ha ? la : "<end>");
  }
}

/// Compares `actual` with the snapshot of `rel` (scenarios/<rel>.yaml -> tests/golden/<rel>.txt),
/// or, under FLOPCAST_UPDATE_GOLDEN=1, rewrites a snapshot that differs and fails.
void check_snapshot(const std::string& rel, const std::string& actual) {
  const fs::path golden = fs::path(FLOPCAST_TESTS_DIR) / "golden" / fs::path(rel).replace_extension(".txt");
  const std::string expected = test::read_file(golden);
  if (updating()) {
    if (expected == actual) return;
    fs::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary | std::ios::trunc) << actual;
    FAIL_CHECK("rewrote " << golden.string()
                          << ": review `git diff tests/golden`, then run the tests without FLOPCAST_UPDATE_GOLDEN");
    return;
  }
  REQUIRE_MESSAGE(fs::exists(golden), "missing " << golden.string() << " (FLOPCAST_UPDATE_GOLDEN=1 writes it)");
  CHECK_MESSAGE(expected == actual, first_difference(expected, actual)
                                        << "\n(after a deliberate change: FLOPCAST_UPDATE_GOLDEN=1 ctest --preset ci "
                                           "-R golden, then review the diff)");
}

double num(const json& j, const char* key) {
  REQUIRE_MESSAGE(j.contains(key), "no '" << key << "' in " << j.dump().substr(0, 200));
  return j.at(key).get<double>();
}

/// Each part of the breakdown is an integer number of nanoseconds printed as seconds, so the
/// parts sum to the step time up to the rounding of a double (relative 1e-9 is ~1 ns in 1 s).
constexpr double kRoundingRel = 1e-9;

/// The breakdown's ten parts are non-negative and sum to the step time (StepBreakdown::total).
void check_breakdown(const json& j) {
  const double step = num(j["step"], "time_s");
  CHECK(step > 0);
  double sum = 0;
  for (const auto& item : j["breakdown_s"].items()) {
    const std::string part = item.key();  // not a structured binding: CAPTURE's lambda takes it (clang 14)
    const auto& seconds = item.value();
    CAPTURE(part);
    CHECK(seconds.get<double>() >= 0);
    sum += seconds.get<double>();
  }
  CHECK(j["breakdown_s"].size() == 10);
  CHECK(sum == doctest::Approx(step).epsilon(kRoundingRel));
}

/// MFU = model FLOPs / (step x GPUs x dense peak of the precision), with the peak read from the
/// GPU catalog (data/gpus.yaml), not from the report; throughput and model TFLOP/s per GPU from
/// the same figures; hardware FLOPs (recompute counted) are never below model FLOPs.
void check_mfu(const json& j) {
  const auto& cat = test::shipped_catalog();
  const hardware::GpuSpec* gpu = cat.find_gpu(j["cluster"]["gpu"].get<std::string>());
  REQUIRE(gpu != nullptr);
  const auto precision = hardware::parse_precision(j["precision"].get<std::string>());
  REQUIRE(precision.has_value());
  const auto peak = gpu->peak(*precision);
  REQUIRE(peak.has_value());
  const double step = num(j["step"], "time_s"), flops = num(j["step"], "model_flops");
  const double gpus = num(j["cluster"], "gpus");
  CHECK(num(j["step"], "mfu") == doctest::Approx(flops / (step * gpus * peak->flops_per_s)).epsilon(kRoundingRel));
  CHECK(num(j["step"], "mfu") > 0);
  CHECK(num(j["step"], "mfu") <= 1);
  CHECK(num(j["step"], "model_tflops_per_gpu") == doctest::Approx(flops / step / gpus / 1e12).epsilon(kRoundingRel));
  const double tokens = num(j["parallel"], "global_batch") * num(j["model"], "seq_len");
  CHECK(num(j["step"], "tokens_per_s") == doctest::Approx(tokens / step).epsilon(kRoundingRel));
  CHECK(num(j["step"], "hardware_flops") >= flops);
}

/// Slack of the bubble check beyond the stages' imbalance: exposed point-to-point transfers
/// and the communication waits the simulation charges to their own rows, not to the bubble
/// (0.2-1% of the pipeline time in the shipped scenarios).
constexpr double kBubbleSlack = 0.05;

/// The pipeline bubble on the critical stage as a share of the pipelined time (the step less
/// the DP sync, optimizer and host overhead that follow the last micro-batch) against the
/// schedule's formula for equal stages (Narayanan et al. 2021, arXiv 2104.04473, §2.2): GPipe
/// and 1F1B (pp-1)/(m+pp-1), interleaved with v chunks per rank (pp-1)/(v m+pp-1). Stages are
/// not equal (the embedding on the first, the head and loss on the last, layer counts that
/// pp does not divide); the bubble moves with the imbalance e = max |C_i - C_crit| / C_crit of
/// the stages' compute time, so the check allows |share - formula| <= formula (e + 5%).
/// Zero-bubble (ZB-H1, Qi et al. 2024, arXiv 2401.10241) has no closed form that holds for
/// every split of B and W, nor have DualPipe and DualPipeV; their bubble must be below 1F1B's
/// formula. Without a pipeline, none.
void check_bubble(const json& j) {
  const auto& p = j["parallel"];
  const auto& b = j["breakdown_s"];
  const double pp = num(p, "pp"), vpp = num(p, "vpp"), m = num(p, "microbatches");
  if (pp == 1) {
    CHECK(num(b, "bubble") == 0);
    return;
  }
  const double pipelined = num(j["step"], "time_s") - num(b, "dp_comm") - num(b, "optimizer") - num(b, "overhead");
  REQUIRE(pipelined > 0);
  const double share = num(b, "bubble") / pipelined;
  const std::string schedule = p["schedule"].get<std::string>();
  CAPTURE(schedule);
  CAPTURE(share);
  if (schedule == "zero-bubble") {
    CHECK(share < (pp - 1) / (m + pp - 1));
    return;
  }
  // DualPipe and DualPipeV (deepseek-ai/DualPipe README): (PP/2 - 1)(F&B + B - 3W) against 1F1B's
  // (PP - 1)(F + B), below 1F1B's formula.
  if (schedule == "dualpipe" || schedule == "dualpipev") {
    CHECK(share < (pp - 1) / (m + pp - 1));
    return;
  }
  REQUIRE((schedule == "1f1b" || schedule == "gpipe" || schedule == "interleaved"));
  const double formula = (pp - 1) / ((schedule == "interleaved" ? vpp : 1.0) * m + pp - 1);
  const auto& stages = j["stages"];
  REQUIRE(stages.size() == static_cast<std::size_t>(pp));
  const double crit = num(stages.at(j["critical_stage"].get<std::size_t>()), "compute_busy_s");
  REQUIRE(crit > 0);
  double imbalance = 0;
  for (const auto& s : stages) imbalance = std::max(imbalance, std::abs(num(s, "compute_busy_s") - crit) / crit);
  CAPTURE(formula);
  CAPTURE(imbalance);
  CHECK(std::abs(share - formula) <= formula * (imbalance + kBubbleSlack));
}

/// The memory parts sum to the total; capacity is the catalog's HBM; the plan is feasible (and
/// simulate exits 0 rather than 5) exactly when the total fits.
void check_memory(const json& j, int code) {
  const auto& mem = j["memory_per_gpu_gib"];
  double sum = 0;
  for (const char* part :
       {"weights", "gradients", "optimizer", "activations", "logits", "workspace", "fragmentation"}) {
    CAPTURE(part);
    CHECK(num(mem, part) >= 0);
    sum += num(mem, part);
  }
  const double total = num(mem, "total");
  CHECK(sum == doctest::Approx(total).epsilon(kRoundingRel));
  const hardware::GpuSpec* gpu = test::shipped_catalog().find_gpu(j["cluster"]["gpu"].get<std::string>());
  REQUIRE(gpu != nullptr);
  CHECK(num(mem, "capacity") == doctest::Approx(gpu->hbm.value / 1073741824.0).epsilon(kRoundingRel));
  const bool fits = total <= num(mem, "capacity");
  CHECK(mem["fits"].get<bool>() == fits);
  CHECK(j["feasible"].get<bool>() == fits);
  CHECK(code == (fits ? cli::kOk : cli::kInfeasible));
}

/// The invariants of one `simulate --json` report.
void check_invariants(const json& j, int code) {
  check_breakdown(j);
  check_mfu(j);
  check_bubble(j);
  check_memory(j, code);
}

/// One shipped scenario: exit code and message, snapshot, and the invariants of its report.
void check_shipped(const std::string& rel, int code, const std::string& message) {
  const std::string file = test::scenario_file(rel);
  REQUIRE(fs::exists(file));
  const auto text = test::run_cli({"simulate", file});
  CHECK_MESSAGE(text.code == code, text.err);
  const std::string printed = text.out + text.err;
  if (!message.empty()) CHECK_MESSAGE(test::contains(printed, message), printed);
  std::string snapshot = text.out;
  if (!text.err.empty()) snapshot += "--- standard error ---\n" + relative_paths(text.err);
  check_snapshot(rel, snapshot);
  if (code == cli::kBadInput) return;  // no report to check
  const auto report = test::run_cli({"simulate", "--json", file});
  REQUIRE(report.code == text.code);
  check_invariants(json::parse(report.out), report.code);
}

}  // namespace

#define FLOPCAST_GOLDEN_CASE(file, code, message) \
  TEST_CASE("golden: " file) { check_shipped(file, code, message); }
FLOPCAST_SHIPPED_SCENARIOS(FLOPCAST_GOLDEN_CASE)

TEST_CASE("golden: every shipped scenario has a golden case, and every snapshot a scenario") {
  std::vector<std::string> listed(std::begin(kShipped), std::end(kShipped));
  std::sort(listed.begin(), listed.end());
  std::vector<std::string> found;
  for (const auto& f : test::scenario_files())
    found.push_back(fs::relative(f, FLOPCAST_SCENARIOS_DIR).generic_string());
  CHECK(listed == found);
  const fs::path golden_dir = fs::path(FLOPCAST_TESTS_DIR) / "golden";
  for (const auto& e : fs::recursive_directory_iterator(golden_dir)) {
    if (!e.is_regular_file()) continue;
    const auto rel = fs::relative(e.path(), golden_dir).replace_extension(".yaml").generic_string();
    CAPTURE(rel);
    CHECK(std::find(listed.begin(), listed.end(), rel) != listed.end());
  }
}

TEST_CASE("golden: the bubble check holds for the interleaved schedule and fails for a wrong formula") {
  // The shipped scenarios have no interleaved plan: Megatron-LM GPT-3 175B (TP8 PP16, 192
  // micro-batches) with v = 2 and 3 model chunks per rank, the paper's interleaved schedule.
  const std::string base = test::read_file(test::scenario_file("published/megatron-gpt3-175b-1024xa100.yaml"));
  REQUIRE(test::contains(base, "  vpp: 1\n"));
  REQUIRE(test::contains(base, "  schedule: 1f1b\n"));
  test::TempDir tmp("golden");
  for (const int v : {2, 3}) {
    CAPTURE(v);
    std::string yaml = base;
    yaml.replace(yaml.find("  vpp: 1\n"), 9, "  vpp: " + std::to_string(v) + "\n");
    yaml.replace(yaml.find("  schedule: 1f1b\n"), 17, "  schedule: interleaved\n");
    const auto file = (tmp.path / ("vpp" + std::to_string(v) + ".yaml")).string();
    std::ofstream(file) << yaml;
    const auto r = test::run_cli({"simulate", "--json", file});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    auto j = json::parse(r.out);
    CHECK(j["parallel"]["vpp"].get<int>() == v);
    check_invariants(j, r.code);
    // The same report read as 1F1B (no interleaving in the formula) is outside the tolerance:
    // the check can fail.
    const double m = j["parallel"]["microbatches"].get<double>(), pp = 16;
    const double share_1f1b = (pp - 1) / (m + pp - 1);
    const double pipelined = j["step"]["time_s"].get<double>() - j["breakdown_s"]["dp_comm"].get<double>() -
                             j["breakdown_s"]["optimizer"].get<double>() - j["breakdown_s"]["overhead"].get<double>();
    CHECK(std::abs(j["breakdown_s"]["bubble"].get<double>() / pipelined - share_1f1b) > share_1f1b * 0.2);
  }
}

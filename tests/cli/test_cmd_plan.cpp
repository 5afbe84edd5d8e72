// `flopcast plan` end to end (in-process): text, JSON and CSV outputs, exit codes.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_context.hpp"

using namespace flopcast;

namespace {

struct PlanCli {
  int code = -1;
  std::string out, err;
};
PlanCli plan_cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"flopcast", "plan"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  PlanCli r;
  r.code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}
const std::string kQuick = std::string(FLOPCAST_SCENARIOS_DIR) + "/quickstart.yaml";

}  // namespace

TEST_CASE("flopcast plan: text, JSON, CSV and exit codes") {
  const auto t = plan_cli({kQuick, "--gpus-max", "32", "--gpu", "H800,A100-80G", "--deadline", "400d", "-j", "2"});
  REQUIRE_MESSAGE(t.code == cli::kOk, t.err);
  CHECK(t.out.find("Pruned:") != std::string::npos);
  CHECK(t.out.find("does not fit in GPU memory") != std::string::npos);
  CHECK(t.out.find("Evaluated ") != std::string::npos);
  CHECK(t.out.find("plans/s") != std::string::npos);
  CHECK(t.out.find("Time/cost Pareto front") != std::string::npos);
  CHECK(t.out.find("Cheapest plan meeting the deadline and budget (simulated P90 of failures, the step at the model "
                   "band's slow end (") != std::string::npos);
  CHECK(t.out.find("Model band (step at the band's fast and slow ends, x") != std::string::npos);
  CHECK(t.out.find("P10 / P90") == std::string::npos);  // "P90" is the failures' percentile only
  CHECK(t.out.find("Runs on: ") != std::string::npos);
  CHECK(t.out.find("discrete-event simulation, whole-run Monte Carlo") != std::string::npos);  // the DES by default

  const auto j = plan_cli({kQuick, "--gpus-max", "32", "--json", "--deadline", "400d"});
  REQUIRE(j.code == cli::kOk);
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["evaluated"].get<long long>() > 0);
  CHECK(doc["enumerated"].get<long long>() >= doc["evaluated"].get<long long>());
  REQUIRE(doc["pareto"].is_array());
  CHECK(!doc["pareto"].empty());
  CHECK(doc["best"]["meets_deadline"].get<bool>());
  CHECK(doc["confidence"] == "P90");
  CHECK(doc["chosen"]["days_p90"].get<double>() <= 400.0);
  // The deadline is met with the step at the band's P90 factor; the band's ends are given.
  const auto& band = doc["chosen"]["band"];
  REQUIRE(band.is_object());
  CHECK(doc["chosen"]["band_factor"].get<double>() == band["p90"].get<double>());
  CHECK(doc["chosen"]["days"].get<double>() <= 400.0);
  CHECK(doc["chosen"]["days"].get<double>() > doc["chosen"]["days_p90"].get<double>());
  CHECK(doc["chosen"]["band_days"]["p10"].get<double>() < doc["chosen"]["band_days"]["p90"].get<double>());
  CHECK(doc["chosen"]["band_cost"]["p10"].get<double>() <= doc["chosen"]["band_cost"]["p90"].get<double>());

  // A deadline nothing meets: exit 5, the reason printed.
  const auto none = plan_cli({kQuick, "--gpus-max", "16", "--deadline", "1d"});
  CHECK(none.code == cli::kInfeasible);
  CHECK(none.out.find("No plan meets the deadline and budget in simulation") != std::string::npos);
  CHECK(none.out.find("over the deadline") != std::string::npos);
  CHECK(none.out.find("What would make one work:") != std::string::npos);

  // A budget nothing meets.
  const auto poor = plan_cli({kQuick, "--gpus-max", "16", "--budget", "10 CNY"});
  CHECK(poor.code == cli::kInfeasible);
  CHECK(poor.out.find("over the budget") != std::string::npos);
  CHECK(poor.out.find("a budget of ") != std::string::npos);

  // CSV, never overwritten without --force.
  const auto dir = std::filesystem::temp_directory_path() / ("flopcast-plan-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "plans.csv").string();
  REQUIRE(plan_cli({kQuick, "--gpus-max", "16", "--csv", "-o", csv}).code == cli::kOk);
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  CHECK(header.rfind("gpu,gpus,plan,step_time_s", 0) == 0);
  CHECK(plan_cli({kQuick, "--gpus-max", "16", "--csv", "-o", csv}).code == cli::kIoError);
  std::filesystem::remove_all(dir);

  // Usage errors.
  CHECK(plan_cli({kQuick, "--gpu", "Z100"}).code == cli::kUsage);
  CHECK(plan_cli({kQuick, "--deadline", "soon"}).code == cli::kUsage);
  CHECK(plan_cli({kQuick, "--budget", "lots"}).code == cli::kUsage);
  // A deadline or a budget without its unit names the flag and the fix.
  const auto bare = plan_cli({kQuick, "--deadline", "45"});
  CHECK(bare.code == cli::kUsage);
  CHECK(bare.err.find("flopcast plan: error: --deadline: '45' has no unit") != std::string::npos);
  CHECK(bare.err.find("45d") != std::string::npos);
  const auto wan = plan_cli({kQuick, "--budget", "500万"});
  CHECK(wan.code == cli::kUsage);
  CHECK(wan.err.find("flopcast plan: error: --budget: '500万' has no currency") != std::string::npos);
  CHECK(plan_cli({kQuick, "--precision", "fp5"}).code == cli::kUsage);
  CHECK(plan_cli({kQuick, "--tokens", "max"}).code == cli::kUsage);
}

TEST_CASE("flopcast plan --emit-scenario: the recommended plan as a scenario, never overwritten") {
  const auto dir = std::filesystem::temp_directory_path() / ("flopcast-plan-emit-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "chosen.yaml").string();
  const auto r = plan_cli({kQuick, "--gpus-max", "32", "--deadline", "400d", "--emit-scenario", out, "--json"});
  REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
  REQUIRE(std::filesystem::exists(out));
  const auto doc = nlohmann::json::parse(r.out.substr(0, r.out.rfind("wrote ")));
  // The written scenario simulates as the chosen plan: same GPUs and plan label.
  std::vector<const char*> argv{"flopcast", "simulate", out.c_str()};
  std::ostringstream so, se;
  CHECK(cli::run(3, argv.data(), so, se) == cli::kOk);
  CHECK(so.str().find(std::to_string(doc["chosen"]["gpus"].get<long long>()) + " x ") != std::string::npos);
  // Not over a file without --force.
  const auto again = plan_cli({kQuick, "--gpus-max", "32", "--deadline", "400d", "--emit-scenario", out});
  CHECK(again.code == cli::kIoError);
  CHECK(plan_cli({kQuick, "--gpus-max", "32", "--deadline", "400d", "--emit-scenario", out, "--force"}).code ==
        cli::kOk);
  std::filesystem::remove_all(dir);
}

TEST_CASE("every shipped plan example: the recommended plan's simulated P90 meets the deadline asked") {
  for (const char* name : {"plan-70b-1t.yaml", "plan-72b-2t-h800.yaml"}) {
    const std::string path = std::string(FLOPCAST_SCENARIOS_DIR) + "/" + name;
    std::ifstream in(path);
    std::string line;
    int asked = 0;
    while (std::getline(in, line)) {
      const auto at = line.find("flopcast plan ");
      if (line.rfind("#", 0) != 0 || at == std::string::npos) continue;
      // The example command as written, with its arguments after the scenario path.
      std::istringstream words(line.substr(at + 14));
      std::vector<std::string> args;
      std::string w;
      while (words >> std::quoted(w)) args.push_back(w);
      REQUIRE_FALSE(args.empty());
      args.front() = path;
      std::string deadline;
      for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--deadline") deadline = args[i + 1];
      if (deadline.empty()) continue;
      args.insert(args.end(), {"--json", "-j", "2"});
      INFO(line);
      const auto r = plan_cli(args);
      REQUIRE_MESSAGE((r.code == cli::kOk || r.code == cli::kInfeasible), r.err);
      const auto doc = nlohmann::json::parse(r.out);
      if (r.code == cli::kInfeasible) {
        CHECK(doc["chosen"].is_null());
        CHECK_FALSE(doc["remedies"].empty());
        continue;
      }
      ++asked;
      const double days = std::stod(deadline);
      CHECK(doc["chosen"]["days_p90"].get<double>() <= days);
      CHECK_FALSE(doc["chosen"]["frameworks"].get<std::string>().empty());
    }
    CHECK_MESSAGE(asked > 0, name);
  }
}

TEST_CASE("flopcast plan --budget: RMB, 元 and ¥ are CNY, $ is USD, a currency no catalog knows is a usage error") {
  // The same search as with the ISO code: the same header, the same chosen plan and cost.
  const auto iso = plan_cli({kQuick, "--gpus-max", "16", "--budget", "5M CNY", "--json"});
  REQUIRE_MESSAGE(iso.code == cli::kOk, iso.err);
  const auto want = nlohmann::json::parse(iso.out);
  for (const char* written : {"5M RMB", "500万元", "¥5M", "RMB 5,000,000"}) {
    CAPTURE(written);
    const auto r = plan_cli({kQuick, "--gpus-max", "16", "--budget", written, "--json"});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["currency"] == "CNY");
    CHECK(doc["chosen"] == want["chosen"]);
  }
  const auto text = plan_cli({kQuick, "--gpus-max", "16", "--budget", "5M RMB"});
  CHECK(text.out.find("budget 5,000,000.00 CNY") != std::string::npos);
  CHECK(text.out.find("0.00 USD") == std::string::npos);
  const auto dollars = plan_cli({kQuick, "--gpus-max", "16", "--budget", "$1M", "--json"});
  REQUIRE_MESSAGE(dollars.code == cli::kOk, dollars.err);
  CHECK(nlohmann::json::parse(dollars.out)["currency"] == "USD");
  // A word that names no currency, and a code no catalog bills in or converts: exit 2, the fix said.
  const auto word = plan_cli({kQuick, "--budget", "5M dollars"});
  CHECK(word.code == cli::kUsage);
  CHECK(word.err.find("flopcast plan: error: --budget: '5M dollars' names no currency flopcast reads: write an ISO "
                      "code (CNY, USD, EUR) or RMB, 元, ¥ (CNY), $ (USD)") != std::string::npos);
  const auto gbp = plan_cli({kQuick, "--budget", "5M GBP"});
  CHECK(gbp.code == cli::kUsage);
  CHECK(gbp.err.find("--budget: '5M GBP' is in GBP, which no price catalog bills in or states a rate for: write it "
                     "in CNY or USD") != std::string::npos);
  const auto cur = plan_cli({kQuick, "--currency", "RMB", "--gpus-max", "16", "--json"});
  REQUIRE_MESSAGE(cur.code == cli::kOk, cur.err);
  CHECK(nlohmann::json::parse(cur.out)["currency"] == "CNY");
  const auto bad_cur = plan_cli({kQuick, "--currency", "XYZ"});
  CHECK(bad_cur.code == cli::kUsage);
  CHECK(bad_cur.err.find("--currency: 'XYZ' is XYZ, which no price catalog bills in") != std::string::npos);
}

TEST_CASE("flopcast plan: GPU counts as people write them, absurd ones and decimal commas refused with the fix") {
  // 16, 16.0, 1.6e1 and 0.016k are one count: the same search.
  const auto want = plan_cli({kQuick, "--gpus-max", "16", "--json"});
  REQUIRE_MESSAGE(want.code == cli::kOk, want.err);
  for (const char* written : {"1.6e1", "0.016k"}) {
    CAPTURE(written);
    const auto r = plan_cli({kQuick, "--gpus-max", written, "--json"});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    CHECK(nlohmann::json::parse(r.out)["chosen"] == nlohmann::json::parse(want.out)["chosen"]);
  }
  // A negative or zero bound was taken as "the scenario's" without a word; a fraction or a word
  // was CLI11's "Could not convert".
  const auto negative = plan_cli({kQuick, "--gpus-max", "-5"});
  CHECK(negative.code == cli::kUsage);
  CHECK(negative.err.find("--gpus-max: '-5' is outside 1 to 1000000 GPUs") != std::string::npos);
  const auto half = plan_cli({kQuick, "--gpus-min", "2.5"});
  CHECK(half.code == cli::kUsage);
  CHECK(half.err.find("--gpus-min: '2.5' is not a whole number of GPUs (e.g. 2048, 2k or 2,048)") != std::string::npos);
  CHECK(plan_cli({kQuick, "--gpus-max", "2,04"}).code == cli::kUsage);
  // --tokens asks a question (max); a token count is the scenario's.
  const auto tokens = plan_cli({kQuick, "--tokens", "1.5T"});
  CHECK(tokens.code == cli::kUsage);
  CHECK(tokens.err.find("a run's token count is its scenario's training.tokens") != std::string::npos);
  // A decimal comma in a budget is not read ten times larger.
  const auto comma = plan_cli({kQuick, "--budget", "2,5M USD"});
  CHECK(comma.code == cli::kUsage);
  CHECK(comma.err.find("--budget: '2,5M USD' has a comma that does not group thousands: write decimals with a point "
                       "('2.5M USD')") != std::string::npos);
  const auto months = plan_cli({kQuick, "--deadline", "2M"});
  CHECK(months.code == cli::kUsage);
  CHECK(months.err.find("--deadline: '2M' could be minutes or months: write 2min, or 2mo") != std::string::npos);
}

TEST_CASE("flopcast plan: the recommended plan and every note's plan are ones the simulated list shows as meeting") {
  // Two GPU types: once the note on the other type named a plan "meeting the constraints" at its
  // closed-form time (640 x H800, 38.8 days) that the simulated list showed missing the deadline
  // at P90 (51.1 days with the band).
  const std::string scenario = std::string(FLOPCAST_SCENARIOS_DIR) + "/plan-72b-2t-h800.yaml";
  const std::vector<std::string> args{scenario, "--gpu", "H800,B200", "--deadline", "45d", "--gpus-max", "2048"};
  auto json_args = args;
  json_args.push_back("--json");
  const auto r = plan_cli(json_args);
  REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
  const auto doc = nlohmann::json::parse(r.out);
  auto name = [](const nlohmann::json& x) {
    return std::to_string(x["gpus"].get<long long>()) + " x " + x["gpu"].get<std::string>() + " " +
           x["plan"].get<std::string>() + " under " + x["catalog"].get<std::string>() + "/" +
           x["price_option"].get<std::string>();
  };
  auto simulated = [&](const std::string& plan) -> const nlohmann::json* {
    for (const auto& x : doc["resimulated"])
      if (name(x) == plan) return &x;
    return nullptr;
  };
  // The choice is a simulated plan that meets, at the figures the list gives it.
  const auto* chosen = simulated(name(doc["chosen"]));
  REQUIRE(chosen);
  CHECK((*chosen)["meets_deadline"].get<bool>());
  CHECK((*chosen)["meets_budget"].get<bool>());
  CHECK((*chosen)["days"] == doc["chosen"]["days"]);
  int named = 0;
  for (const auto& n : doc["notes"]) {
    const std::string note = n.get<std::string>();
    const auto at = note.find("meeting the constraints, ");
    if (at == std::string::npos) continue;
    const auto from = at + std::string("meeting the constraints, ").size();
    const std::string plan = note.substr(from, note.find(", costs ", from) - from);
    CAPTURE(note);
    const auto* x = simulated(plan);
    REQUIRE(x);
    CHECK((*x)["meets_deadline"].get<bool>());
    CHECK((*x)["meets_budget"].get<bool>());
    // The days the note gives are the simulated ones the deadline was checked on.
    char days[32];
    std::snprintf(days, sizeof days, "takes %.1f days", (*x)["days"].get<double>());
    CHECK(note.find(days) != std::string::npos);
    ++named;
  }
  CHECK(named == 1);  // the H800's
  // The text says the same: the note's plan is not one the list shows missing.
  const auto text = plan_cli(args);
  REQUIRE(text.code == cli::kOk);
  std::istringstream lines(text.out);
  std::string line;
  std::vector<std::string> misses;
  while (std::getline(lines, line))
    if (line.find("misses the deadline") != std::string::npos || line.find("over the budget") != std::string::npos)
      misses.push_back(line.substr(2, line.find(": step ") - 2));
  REQUIRE_FALSE(misses.empty());
  for (const auto& n : doc["notes"])
    for (const auto& m : misses) CHECK_MESSAGE(n.get<std::string>().find(m + ",") == std::string::npos, m);
}

TEST_CASE("flopcast plan of a LoRA job: plans are judged by the frameworks' fine-tuning routes") {
  // Once a LoRA plan was named "torchtitan (FSDP2)", which has no adapters, and QLoRA plans with
  // tensor parallelism "Megatron-core", whose NF4 layers have none.
  const auto r = plan_cli({std::string(FLOPCAST_SCENARIOS_DIR) + "/finetune-llama2-70b-lora.yaml", "--gpus-max", "16"});
  REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
  CHECK(r.out.find("plans: no fine-tuning framework runs the combination (NeMo, DeepSpeed with Hugging Face PEFT, "
                   "torchtune)") != std::string::npos);
  CHECK(r.out.find("Runs on: ") != std::string::npos);
  CHECK(r.out.find("torchtitan (FSDP2)") == std::string::npos);
}

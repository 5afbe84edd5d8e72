// `flopcast plan` end to end (in-process): text, JSON and CSV outputs, exit codes.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
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
  CHECK(t.out.find("Cheapest plan meeting the deadline and budget:") != std::string::npos);
  CHECK(t.out.find("Re-simulated (discrete-event simulation)") != std::string::npos);  // the DES by default

  const auto j = plan_cli({kQuick, "--gpus-max", "32", "--json", "--deadline", "400d"});
  REQUIRE(j.code == cli::kOk);
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["evaluated"].get<long long>() > 0);
  CHECK(doc["enumerated"].get<long long>() >= doc["evaluated"].get<long long>());
  REQUIRE(doc["pareto"].is_array());
  CHECK(!doc["pareto"].empty());
  CHECK(doc["best"]["meets_deadline"].get<bool>());
  CHECK(doc["best"]["wall_days"].get<double>() <= 400.0);

  // A deadline nothing meets: exit 5, the reason printed.
  const auto none = plan_cli({kQuick, "--gpus-max", "16", "--deadline", "1d"});
  CHECK(none.code == cli::kInfeasible);
  CHECK(none.out.find("No plan meets the deadline and budget.") != std::string::npos);
  CHECK(none.out.find("over the deadline") != std::string::npos);

  // A budget nothing meets.
  const auto poor = plan_cli({kQuick, "--gpus-max", "16", "--budget", "10 CNY"});
  CHECK(poor.code == cli::kInfeasible);
  CHECK(poor.out.find("over the budget") != std::string::npos);

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
}

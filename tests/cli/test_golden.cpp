// Golden tests (STYLE.md): `flopcast simulate` text output for a few scenarios, compared byte
// for byte with tests/golden/<name>.txt, which are reviewed like code. After a deliberate change
// of the model or of the calibration profile, refresh them with
//   FLOPCAST_UPDATE_GOLDEN=1 build/tests/tests/flopcast_tests -ts=golden
// and review the diff.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_context.hpp"

using namespace flopcast;

namespace {

struct Golden {
  const char* scenario;  ///< under scenarios/
  const char* golden;    ///< under tests/golden/
};

const Golden kGolden[] = {
    {"quickstart.yaml", "quickstart.txt"},
    {"published/megatron-gpt3-175b-1024xa100.yaml", "megatron-gpt3-175b-1024xa100.txt"},
    {"published/llama3-8b-1024xh100.yaml", "llama3-8b-1024xh100.txt"},
};

bool updating() {
  const char* v = std::getenv("FLOPCAST_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The first line where `a` and `b` differ, for a readable failure.
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

}  // namespace

TEST_SUITE("golden") {
  TEST_CASE("simulate text output matches tests/golden/") {
    for (const auto& g : kGolden) {
      const std::string scenario = g.scenario;
      CAPTURE(scenario);
      const std::string path = std::string(FLOPCAST_SCENARIOS_DIR) + "/" + g.scenario;
      const std::string golden_path = std::string(FLOPCAST_TESTS_DIR) + "/golden/" + g.golden;
      const char* argv[] = {"flopcast", "simulate", path.c_str()};
      std::ostringstream out, err;
      const int code = cli::run(3, argv, out, err);
      CHECK_MESSAGE(code == cli::kOk, err.str());
      CHECK(!out.str().empty());
      if (updating()) {
        std::ofstream(golden_path, std::ios::binary | std::ios::trunc) << out.str();
        MESSAGE("rewrote " << golden_path);
      }
      const std::string expected = read_file(golden_path);
      REQUIRE_MESSAGE(!expected.empty(),
                      "missing " << golden_path << " (run with FLOPCAST_UPDATE_GOLDEN=1 to create it)");
      const bool same = out.str() == expected;
      const std::string why = same ? std::string() : first_difference(expected, out.str());
      CHECK_MESSAGE(
          same, why << "\n(after a deliberate change: FLOPCAST_UPDATE_GOLDEN=1 ... -ts=golden, then review the diff)");
    }
  }
}

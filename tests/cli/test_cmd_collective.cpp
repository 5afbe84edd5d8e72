// `flopcast collective` run in-process (cli::run) on the built-in catalogs.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_context.hpp"

using namespace flopcast;

namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

Result run(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"flopcast", "collective"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  Result r;
  r.code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("comm: flopcast collective prints an nccl-tests style table") {
  const auto r = run({"--gpu", "H800", "--gpus", "16", "--op", "all_reduce", "--min", "8", "--max", "8G"});
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "# flopcast collective: all_reduce on 16 x H800"));
  CHECK(contains(r.out, "NCCL master 5067397c"));
  CHECK(contains(r.out, "algo/proto"));
  // 8 B .. 8 GiB by factors of 2: 31 rows, the first and last as nccl-tests prints them.
  std::istringstream lines(r.out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line))
    if (!line.empty() && line[0] != '#') ++rows;
  CHECK(rows == 31);
  CHECK(contains(r.out, "           8             2     float"));
  CHECK(contains(r.out, "  8589934592    2147483648     float"));
}

TEST_CASE("comm: flopcast collective --json reports the group and every row") {
  const auto r =
      run({"--gpu", "H100", "--gpus", "8", "--op", "all_gather", "--min", "1M", "--max", "1G", "-f", "4", "--json"});
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["collective"] == "all_gather");
  CHECK(doc["group"]["ranks"] == 8);
  CHECK(doc["group"]["nodes"] == 1);
  REQUIRE(doc["rows"].size() == 6);  // 1M, 4M, 16M, 64M, 256M, 1G
  // nccl-tests counts all-gather elements per rank: 1 MiB of float over 8 ranks = 32768.
  CHECK(doc["rows"][0]["count"] == 32768);
  CHECK(doc["rows"][5]["algorithm"] == "Ring");
  CHECK(doc["rows"][5]["busbw_gbytes_s"].get<double>() > 330.0);  // ~370 (ISS nccl-tests#212)
}

TEST_CASE("comm: flopcast collective rejects bad flags with usage errors") {
  CHECK(run({"--gpu", "H800", "--gpus", "16", "--op", "gather"}).code == cli::kUsage);
  CHECK(run({"--gpu", "Z900", "--gpus", "16"}).code == cli::kUsage);
  CHECK(contains(run({"--gpu", "Z900", "--gpus", "16"}).err, "unknown GPU 'Z900'"));
  CHECK(run({"--gpu", "H800", "--gpus", "16", "--min", "8G", "--max", "1K"}).code == cli::kUsage);
  CHECK(run({"--gpu", "H800"}).code == cli::kUsage);
  const auto r = run({"--gpu", "H800", "--gpus", "16", "--ranks", "12", "--ranks-per-node", "8"});
  CHECK(r.code == cli::kUsage);
  CHECK(contains(r.err, "ranks_per_node 8 does not divide ranks 12"));
}

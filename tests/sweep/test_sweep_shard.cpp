// --shard k/N and --shard auto (sweep_shard.hpp): the shard from a Slurm job array's or a
// Kubernetes Indexed Job's variables, each mistake refused with the variables and the fix. The
// environment is a map here; `flopcast sweep --shard auto` end to end: cli/test_cmd_sweep.cpp.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "flopcast/sweep/sweep_shard.hpp"

using namespace flopcast;

namespace {

using Env = std::map<std::string, std::string>;

/// parse_shard with `env` as the environment; `error` receives the message.
std::optional<sweep::ShardChoice> shard_of(const std::string& text, int shards, const Env& env, std::string& error) {
  return sweep::parse_shard(
      text, shards,
      [&env](const char* name) {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      error);
}

/// Slurm's variables for task `id` of `sbatch --array=MIN-MAX` (sbatch(1)).
Env slurm(int id, int min, int max) {
  return {{"SLURM_ARRAY_JOB_ID", "4242"},
          {"SLURM_ARRAY_TASK_ID", std::to_string(id)},
          {"SLURM_ARRAY_TASK_MIN", std::to_string(min)},
          {"SLURM_ARRAY_TASK_MAX", std::to_string(max)},
          {"SLURM_ARRAY_TASK_COUNT", std::to_string(max - min + 1)},
          {"SLURM_ARRAY_TASK_STEP", "1"}};
}

}  // namespace

TEST_CASE("--shard k/N is 1-based, and 0/N says that shards count from 1") {
  std::string e;
  const auto two = shard_of("2/4", 0, {}, e);
  REQUIRE(two);
  CHECK(two->shard == 2);
  CHECK(two->shards == 4);
  CHECK(two->source.empty());
  CHECK_FALSE(shard_of("0/3", 0, {}, e));
  CHECK(e ==
        "--shard '0/3': shards count from 1 (--shard 1/3 is the first, 3/3 the last); for a 0-based index such as "
        "Kubernetes' JOB_COMPLETION_INDEX write --shard auto --shards 3");
  for (const char* bad : {"3/2", "2", "a/b", "-1/3", "1/0", "2/4x", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(shard_of(bad, 0, {}, e));
    CHECK(e ==
          "--shard '" + std::string(bad) + "': expected k/N with 1 <= k <= N, e.g. 2/4, or auto (a job array's index)");
  }
  CHECK_FALSE(shard_of("2/4", 4, {}, e));
  CHECK(e.rfind("--shards 4 goes with --shard auto", 0) == 0);
}

TEST_CASE("--shard auto in a Slurm job array: task ID - MIN + 1 of COUNT, for --array=1-N and --array=0-(N-1)") {
  std::string e;
  for (int id = 1; id <= 3; ++id) {
    const auto c = shard_of("auto", 0, slurm(id, 1, 3), e);
    REQUIRE_MESSAGE(c, e);
    CHECK(c->shard == id);
    CHECK(c->shards == 3);
    CHECK(c->source == "SLURM_ARRAY_TASK_ID=" + std::to_string(id));
  }
  const auto zero = shard_of("auto", 0, slurm(0, 0, 2), e);  // --array=0-2: task 0 is shard 1
  REQUIRE(zero);
  CHECK(zero->shard == 1);
  CHECK(zero->shards == 3);
  CHECK(shard_of("auto", 3, slurm(2, 1, 3), e)->shard == 2);  // --shards agreeing with the array is fine
  CHECK_FALSE(shard_of("auto", 4, slurm(2, 1, 3), e));
  CHECK(e == "--shards 4, but the Slurm array has 3 tasks (SLURM_ARRAY_TASK_COUNT=3): leave --shards out under Slurm");
}

TEST_CASE("--shard auto in a Slurm job array with a step, a list or a missing variable is refused, naming them") {
  std::string e;
  Env stepped = slurm(3, 1, 5);  // --array=1-5:2: tasks 1, 3, 5
  stepped["SLURM_ARRAY_TASK_COUNT"] = "3";
  stepped["SLURM_ARRAY_TASK_STEP"] = "2";
  CHECK_FALSE(shard_of("auto", 0, stepped, e));
  CHECK(e ==
        "--shard auto: the Slurm array's task ids do not number its tasks one after another (SLURM_ARRAY_TASK_ID=3, "
        "SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_STEP=2, SLURM_ARRAY_TASK_MAX=5): submit "
        "it as --array=1-N, without a step or a list, or give --shard k/N");
  Env list = slurm(7, 1, 7);  // --array=1,4,7: no step variable, MAX - MIN + 1 != COUNT
  list["SLURM_ARRAY_TASK_COUNT"] = "3";
  list.erase("SLURM_ARRAY_TASK_STEP");
  CHECK_FALSE(shard_of("auto", 0, list, e));
  CHECK(e.find("do not number its tasks one after another") != std::string::npos);
  Env partial = slurm(2, 1, 3);
  partial.erase("SLURM_ARRAY_TASK_COUNT");
  CHECK_FALSE(shard_of("auto", 0, partial, e));
  CHECK(e ==
        "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: a Slurm job array sets all three "
        "of SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN (sbatch --array=1-N)");
  Env garbled = slurm(2, 1, 3);
  garbled["SLURM_ARRAY_TASK_ID"] = "two";
  CHECK_FALSE(shard_of("auto", 0, garbled, e));
  CHECK(e == "--shard auto: SLURM_ARRAY_TASK_ID='two' is not a whole number from 0 to 10000000");
}

TEST_CASE("--shard auto in a Kubernetes Indexed Job: JOB_COMPLETION_INDEX is 0-based, --shards gives the count") {
  std::string e;
  for (int index = 0; index <= 2; ++index) {
    const auto c = shard_of("auto", 3, {{"JOB_COMPLETION_INDEX", std::to_string(index)}}, e);
    REQUIRE_MESSAGE(c, e);
    CHECK(c->shard == index + 1);
    CHECK(c->shards == 3);
    CHECK(c->source == "JOB_COMPLETION_INDEX=" + std::to_string(index));
  }
  CHECK_FALSE(shard_of("auto", 0, {{"JOB_COMPLETION_INDEX", "1"}}, e));
  CHECK(e ==
        "--shard auto: JOB_COMPLETION_INDEX=1 (a Kubernetes Indexed Job) does not say how many shards there are: give "
        "--shards N, the Job's completions");
  CHECK_FALSE(shard_of("auto", 3, {{"JOB_COMPLETION_INDEX", "3"}}, e));
  CHECK(e ==
        "--shard auto: JOB_COMPLETION_INDEX=3 is not below --shards 3 (indexes run from 0 to 2): give the Job's "
        "completions as --shards");
}

TEST_CASE("--shard auto with no job array in the environment names the variables it reads") {
  std::string e;
  CHECK_FALSE(shard_of("auto", 0, {{"GITHUB_ACTIONS", "true"}}, e));
  CHECK(e ==
        "--shard auto: no job array index in the environment: a Slurm job array sets SLURM_ARRAY_TASK_ID, "
        "SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN (sbatch --array=1-N), a Kubernetes Indexed Job sets "
        "JOB_COMPLETION_INDEX (give --shards N, the Job's completions); elsewhere (a CI matrix) give --shard k/N");
  Env both = slurm(1, 1, 3);
  both["JOB_COMPLETION_INDEX"] = "0";
  CHECK_FALSE(shard_of("auto", 3, both, e));
  CHECK(e == "--shard auto: both SLURM_ARRAY_TASK_ID (1) and JOB_COMPLETION_INDEX (0) are set: give --shard k/N");
}

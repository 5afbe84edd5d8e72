#include "flopcast/sweep/sweep_shard.hpp"

#include <cstdint>

#include <fmt/format.h>

namespace flopcast::sweep {
namespace {

/// The most shards (and the highest array index) read: far above any job array a scheduler
/// runs (Slurm's MaxArraySize defaults to 1001, slurm.conf(5)), within an int.
constexpr std::int64_t kMaxShards = 10'000'000;

/// A whole number 0..kMaxShards written in full; nullopt otherwise.
std::optional<int> whole(const std::string& t) {
  if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const std::int64_t v = std::stoll(t);
  if (v > kMaxShards) return std::nullopt;
  return static_cast<int>(v);
}

const char* const kNoArray =
    "--shard auto: no job array index in the environment: a Slurm job array sets SLURM_ARRAY_TASK_ID, "
    "SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN (sbatch --array=1-N), a Kubernetes Indexed Job sets "
    "JOB_COMPLETION_INDEX (give --shards N, the Job's completions); elsewhere (a CI matrix) give --shard k/N";

/// --shard auto under a Slurm job array.
std::optional<ShardChoice> from_slurm(int shards_flag, const Environment& env, std::string& error) {
  const char* names[] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN"};
  int v[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    const char* raw = env(names[i]);
    if (!raw || !*raw) {
      error = fmt::format(
          "--shard auto: {} is set but {} is not: a Slurm job array sets all three of "
          "SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN (sbatch --array=1-N)",
          names[0], names[i]);
      return std::nullopt;
    }
    const auto n = whole(raw);
    if (!n) {
      error = fmt::format("--shard auto: {}='{}' is not a whole number from 0 to {}", names[i], raw, kMaxShards);
      return std::nullopt;
    }
    v[i] = *n;
  }
  const int id = v[0], count = v[1], min = v[2];
  const char* step = env("SLURM_ARRAY_TASK_STEP");
  const char* max = env("SLURM_ARRAY_TASK_MAX");
  const bool stepped = step && *step && std::string(step) != "1";
  const bool gaps = max && *max && whole(max) && *whole(max) != min + count - 1;
  if (count < 1 || stepped || gaps || id < min || id > min + count - 1) {
    error = fmt::format(
        "--shard auto: the Slurm array's task ids do not number its tasks one after another (SLURM_ARRAY_TASK_ID={}, "
        "SLURM_ARRAY_TASK_MIN={}, SLURM_ARRAY_TASK_COUNT={}{}{}): submit it as --array=1-N, without a step or a list, "
        "or give --shard k/N",
        id, min, count, step ? fmt::format(", SLURM_ARRAY_TASK_STEP={}", step) : "",
        max ? fmt::format(", SLURM_ARRAY_TASK_MAX={}", max) : "");
    return std::nullopt;
  }
  if (shards_flag > 0 && shards_flag != count) {
    error = fmt::format(
        "--shards {}, but the Slurm array has {} tasks (SLURM_ARRAY_TASK_COUNT={}): leave --shards out "
        "under Slurm",
        shards_flag, count, count);
    return std::nullopt;
  }
  ShardChoice c{id - min + 1, count, ""};
  c.source = fmt::format("SLURM_ARRAY_TASK_ID={}", id);
  return c;
}

/// --shard auto under a Kubernetes Indexed Job.
std::optional<ShardChoice> from_kubernetes(const char* raw, int shards_flag, std::string& error) {
  const auto index = whole(raw);
  if (!index) {
    error = fmt::format("--shard auto: JOB_COMPLETION_INDEX='{}' is not a whole number from 0 to {}", raw, kMaxShards);
    return std::nullopt;
  }
  if (shards_flag < 1) {
    error = fmt::format(
        "--shard auto: JOB_COMPLETION_INDEX={} (a Kubernetes Indexed Job) does not say how many shards "
        "there are: give --shards N, the Job's completions",
        *index);
    return std::nullopt;
  }
  if (*index >= shards_flag) {
    error = fmt::format(
        "--shard auto: JOB_COMPLETION_INDEX={} is not below --shards {} (indexes run from 0 to {}): "
        "give the Job's completions as --shards",
        *index, shards_flag, shards_flag - 1);
    return std::nullopt;
  }
  ShardChoice c{*index + 1, shards_flag, ""};
  c.source = fmt::format("JOB_COMPLETION_INDEX={}", *index);
  return c;
}

}  // namespace

std::optional<ShardChoice> parse_shard(const std::string& text, int shards_flag, const Environment& env,
                                       std::string& error) {
  if (text == "auto") {
    const char* slurm = env("SLURM_ARRAY_TASK_ID");
    const char* k8s = env("JOB_COMPLETION_INDEX");
    const bool in_slurm = slurm && *slurm, in_k8s = k8s && *k8s;
    if (in_slurm && in_k8s) {
      error = fmt::format(
          "--shard auto: both SLURM_ARRAY_TASK_ID ({}) and JOB_COMPLETION_INDEX ({}) are set: give "
          "--shard k/N",
          slurm, k8s);
      return std::nullopt;
    }
    if (in_slurm) return from_slurm(shards_flag, env, error);
    if (in_k8s) return from_kubernetes(k8s, shards_flag, error);
    error = kNoArray;
    return std::nullopt;
  }
  if (shards_flag > 0) {
    error = fmt::format(
        "--shards {} goes with --shard auto (a 0-based index); --shard '{}' gives the shard itself: "
        "leave --shards out",
        shards_flag, text);
    return std::nullopt;
  }
  const auto slash = text.find('/');
  const auto k = whole(text.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : whole(text.substr(slash + 1));
  if (!k || !n || *n < 1 || *k > *n) {
    error = "--shard '" + text + "': expected k/N with 1 <= k <= N, e.g. 2/4, or auto (a job array's index)";
    return std::nullopt;
  }
  if (*k == 0) {
    error = fmt::format(
        "--shard '{}': shards count from 1 (--shard 1/{} is the first, {}/{} the last); for a 0-based "
        "index such as Kubernetes' JOB_COMPLETION_INDEX write --shard auto --shards {}",
        text, *n, *n, *n, *n);
    return std::nullopt;
  }
  return ShardChoice{*k, *n, ""};
}

}  // namespace flopcast::sweep

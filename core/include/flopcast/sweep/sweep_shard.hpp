#pragma once
/// Which shard of a sweep a run computes (`flopcast sweep --shard k/N`, or `--shard auto` inside a
/// job array): k/N as written, or from the index a scheduler gives each task of an array.
///
///   Slurm job array (sbatch --array=1-N):  SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT and
///     SLURM_ARRAY_TASK_MIN (sbatch(1), "OUTPUT ENVIRONMENT VARIABLES"): shard ID - MIN + 1 of COUNT,
///     so --array=1-N and --array=0-(N-1) both number the shards 1..N.
///   Kubernetes Indexed Job (completionMode: Indexed): JOB_COMPLETION_INDEX, 0-based (Kubernetes
///     docs, "Indexed Job for Parallel Processing with Static Work Assignment"); the Job's
///     completions are not in the environment, so --shards N gives the count: shard INDEX + 1 of N.
#include <functional>
#include <optional>
#include <string>

namespace flopcast::sweep {

/// A shard of a sweep: points with index % shards == shard - 1.
struct ShardChoice {
  int shard = 1;  ///< 1-based
  int shards = 1;
  /// The variable `auto` read it from ("SLURM_ARRAY_TASK_ID=2", "JOB_COMPLETION_INDEX=1"); "" for k/N.
  std::string source;
};

/// An environment variable's value; nullptr when it is not set (std::getenv, or a map in tests).
using Environment = std::function<const char*(const char* name)>;

/// The shard `--shard TEXT` names, with `--shards N` (`shards_flag`, 0 when not given): TEXT is
/// "k/N" (1 <= k <= N) or "auto" (the job array's index from `env`: Slurm's, else Kubernetes'
/// with --shards). nullopt with `error` when TEXT, the flags or the variables do not name one
/// shard: the message names the flag or the variables and their values, and the fix (shards
/// count from 1; the variables auto reads when none is set; a Slurm array with a step or gaps).
std::optional<ShardChoice> parse_shard(const std::string& text, int shards_flag, const Environment& env,
                                       std::string& error);

}  // namespace flopcast::sweep

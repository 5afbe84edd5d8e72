// `flopcast sweep` and `flopcast merge` end to end (in-process): -j2 equals -j1, shards merged
// equal the unsharded run (--shard k/N, and --shard auto under Slurm's and Kubernetes' variables),
// killed and resumed equals uninterrupted, a typo in a swept key, --check (a changed base, a CRLF
// baseline), exit codes; and Ctrl-C / SIGTERM on the program itself (FLOPCAST_CLI_PATH).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cli_context.hpp"
#include "cli_runner.hpp"

using namespace flopcast;

namespace {

/// A temporary folder; `t / "name"` is the path of a file in it.
struct TempDir : test::TempDir {
  TempDir() : test::TempDir("sweep") {}
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

void spit(const std::string& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string slurp(const std::string& p) { return test::read_file(p); }

using test::run_cli;

/// `flopcast ARGS...` as a process of its own (the program itself, FLOPCAST_CLI_PATH), its
/// standard error to `err_file`; returns its pid.
pid_t spawn_cli(const std::vector<std::string>& args, const std::string& err_file) {
  std::vector<char*> argv{const_cast<char*>(FLOPCAST_CLI_PATH)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    ::execv(FLOPCAST_CLI_PATH, argv.data());
    ::_exit(127);
  }
  return pid;
}

/// Sets environment variables for its lifetime (the in-process CLI reads them with getenv), a
/// nullopt value unsetting one; the former values come back with the destructor.
struct ScopedEnv {
  using Vars = std::vector<std::pair<std::string, std::optional<std::string>>>;
  explicit ScopedEnv(const Vars& vars) {
    for (const auto& [k, v] : vars) {
      const char* was = std::getenv(k.c_str());
      saved.emplace_back(k, was ? std::optional<std::string>(was) : std::nullopt);
      if (v)
        ::setenv(k.c_str(), v->c_str(), 1);
      else
        ::unsetenv(k.c_str());
    }
  }
  ~ScopedEnv() {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second)
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        ::unsetenv(it->first.c_str());
    }
  }
  Vars saved;
};

/// No job array around the test, whatever runs it (CI inside a Slurm job or a Kubernetes pod).
ScopedEnv::Vars no_job_array() {
  ScopedEnv::Vars v;
  for (const char* name :
       {"SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX"})
    v.emplace_back(name, std::nullopt);
  return v;
}

std::int64_t lines_in(const std::string& p) {
  const std::string text = test::read_file(p);
  return std::count(text.begin(), text.end(), '\n');
}

}  // namespace

TEST_CASE("flopcast sweep and merge end to end") {
  TempDir t;
  spit(t / "s.sweep.yml", R"(
scenario:
  model: llama3-8b
  cluster: {gpu: H800, gpus: 16}
  parallel: {tp: 2, pp: 1, dp: auto, micro_batch: 1, global_batch: 64, recompute: selective, sequence_parallel: true, zero: 1}
  precision: bf16
  training: {tokens: 5B}
  reliability: {trials: 20, seed: 3}
  pricing: {catalog: seed-vendor}
axes:
  - key: cluster.gpus
    values: [8, 16, 24, 1]
  - key: parallel.micro_batch
    values: [1, 2]
)");
  const auto a = run_cli({"sweep", t / "s.sweep.yml", "-j", "1", "--out", t / "j1.csv"});
  REQUIRE_MESSAGE(a.code == 0, a.err);
  const auto b = run_cli({"sweep", t / "s.sweep.yml", "-j", "2", "--out", t / "j2.csv"});
  REQUIRE(b.code == 0);
  const auto j1 = slurp(t / "j1.csv");
  CHECK(j1 == slurp(t / "j2.csv"));
  CHECK(j1.find("cluster.gpus,parallel.micro_batch,feasible") != std::string::npos);
  CHECK(j1.find("dp auto needs tp*pp*cp = 2 to divide cluster.gpus = 1") != std::string::npos);  // the 1-GPU point
  CHECK(j1.find(",true,") != std::string::npos);
  // Plain CSV: the header row first; the identity in the sidecar.
  CHECK(j1.rfind("point,cluster.gpus,", 0) == 0);
  CHECK(slurp(t / "j1.csv.meta.json").find("\"points\": 8") != std::string::npos);
  // Shards + merge == unsharded.
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--shard", "1/2", "--out", t / "p1.csv"}).code == 0);
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--shard", "2/2", "--out", t / "p2.csv"}).code == 0);
  const auto m = run_cli({"merge", t / "p1.csv", t / "p2.csv", "--out", t / "m.csv"});
  REQUIRE_MESSAGE(m.code == 0, m.err);
  CHECK(slurp(t / "m.csv") == j1);
  // Killed (--stop-after) and resumed == uninterrupted.
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--out", t / "r.csv", "--stop-after", "3"}).code == 0);
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--out", t / "r.csv", "--resume", "-j", "2"}).code == 0);
  CHECK(slurp(t / "r.csv") == j1);
  // No overwrite without --force; --check against itself passes, against a changed baseline fails.
  CHECK(run_cli({"sweep", t / "s.sweep.yml", "--out", t / "j1.csv"}).code == cli::kIoError);
  const auto ok = run_cli({"sweep", t / "s.sweep.yml", "--out", t / "c.csv", "--check", t / "j1.csv"});
  CHECK(ok.code == 0);
  CHECK(ok.out.find("0 regressions, 0 improvements") != std::string::npos);
  std::string changed = j1;
  const auto p = changed.find(",true,");
  REQUIRE(p != std::string::npos);
  changed.replace(p, 6, ",false,");
  spit(t / "changed.csv", changed);
  spit(t / "changed.csv.meta.json", slurp(t / "j1.csv.meta.json"));
  const auto bad =
      run_cli({"sweep", t / "s.sweep.yml", "--out", t / "c2.csv", "--check", t / "changed.csv", "--tolerance", "2%"});
  // The baseline did not fit where this run fits: an improvement, not a regression.
  CHECK(bad.code == 0);
  CHECK(bad.out.find("improvement: point") != std::string::npos);
  CHECK(bad.out.find("(the plan fits now)") != std::string::npos);
  CHECK(bad.out.find("regression: point") == std::string::npos);
  // Bad sweep file: exit 3 with file:line.
  spit(t / "bad.sweep.yml", "scenario: {model: llama3-8b}\naxes:\n  - key: parallel.tp\n");
  const auto e = run_cli({"sweep", t / "bad.sweep.yml", "--out", t / "x.csv"});
  CHECK(e.code == cli::kBadInput);
  CHECK(e.err.find("bad.sweep.yml:3") != std::string::npos);
  // Usage errors.
  CHECK(run_cli({"sweep", t / "s.sweep.yml", "--out", t / "y.csv", "--shard", "3/2"}).code == cli::kUsage);
}

TEST_CASE("flopcast sweep --check: exit 6 only for regressions, tolerance flags, another sweep or no sidecar refused") {
  TempDir t;
  const std::string base_scenario = R"(
scenario:
  model: llama3-8b
  cluster: {gpu: H800, gpus: 16}
  parallel: {tp: 2, pp: 1, dp: auto, micro_batch: 1, global_batch: 64, recompute: selective, sequence_parallel: true, zero: 1}
  precision: bf16
  training: {tokens: 5B}
  reliability: {trials: 20, seed: 3}
  pricing: {catalog: seed-vendor}
axes:
)";
  spit(t / "s.sweep.yml", base_scenario + "  - key: cluster.gpus\n    values: [8, 16]\n");
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--estimate", "--out", t / "base.jsonl"}).code == 0);
  // The baseline's point 0 was 10% faster than this run: this run's step time is a regression.
  std::string text = slurp(t / "base.jsonl");
  const std::string key = "\"step_time_s\":";
  const auto at = text.find(key) + key.size();
  const auto end = text.find(',', at);
  const double step = std::stod(text.substr(at, end - at));
  text.replace(at, end - at, std::to_string(step * 0.9));
  spit(t / "fast.jsonl", text);
  spit(t / "fast.jsonl.meta.json", slurp(t / "base.jsonl.meta.json"));
  auto check = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"sweep", t / "s.sweep.yml", "--estimate", "--force", "--out", t / "now.jsonl"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  const auto reg = check({"--check", t / "fast.jsonl"});
  CHECK(reg.code == cli::kCheckFailed);
  CHECK(reg.out.find("regression: point 0 (cluster.gpus=8): step_time_s baseline") != std::string::npos);
  CHECK(reg.out.find("(+11.1%, lower is better)") != std::string::npos);
  CHECK(reg.out.find("1 regression,") != std::string::npos);
  // The other way round (this run faster than its baseline): an improvement, signed '-', exit 0.
  spit(t / "slow.jsonl", slurp(t / "now.jsonl"));
  spit(t / "slow.jsonl.meta.json", slurp(t / "now.jsonl.meta.json"));
  const auto imp = run_cli({"merge", t / "fast.jsonl", "--out", t / "fast-merged.jsonl", "--check", t / "slow.jsonl"});
  CHECK(imp.code == 0);
  CHECK(imp.out.find("improvement: point 0 (cluster.gpus=8): step_time_s") != std::string::npos);
  CHECK(imp.out.find("(-10.0%, lower is better)") != std::string::npos);
  CHECK(imp.out.find("passes (no regression)") != std::string::npos);
  // --tolerance needs a '%': a bare number is refused naming the flag and both fixes.
  const auto bare = check({"--check", t / "fast.jsonl", "--tolerance", "2"});
  CHECK(bare.code == cli::kUsage);
  CHECK(bare.err.find("--tolerance '2': a bare number is ambiguous") != std::string::npos);
  CHECK(bare.err.find("--tolerance 2% for 2 percent, or --rtol 2") != std::string::npos);
  CHECK(check({"--check", t / "fast.jsonl", "--rtol", "2%"}).code == cli::kUsage);
  CHECK(check({"--check", t / "fast.jsonl", "--rtol", "0.02", "--tolerance", "2%"}).code == cli::kUsage);
  // 12% and a fraction of 0.12 both cover the 11.1% difference; 11% does not.
  CHECK(check({"--check", t / "fast.jsonl", "--tolerance", "12%"}).code == 0);
  CHECK(check({"--check", t / "fast.jsonl", "--rtol", "0.12"}).code == 0);
  CHECK(check({"--check", t / "fast.jsonl", "--tolerance", "11%"}).code == cli::kCheckFailed);
  // A baseline of another sweep (other axes, 3 points instead of 2) is refused before the run, saying why.
  spit(t / "other.sweep.yml", base_scenario + "  - key: cluster.gpus\n    values: [8, 16, 24]\n");
  REQUIRE(run_cli({"sweep", t / "other.sweep.yml", "--estimate", "--out", t / "other.jsonl"}).code == 0);
  const auto other = check({"--check", t / "other.jsonl"});
  CHECK(other.code == cli::kBadInput);
  CHECK(other.err.find("other.jsonl: a baseline of another sweep:") != std::string::npos);
  CHECK(other.err.find("3 points there, 2 here") != std::string::npos);
  CHECK(other.out.empty());
  // A baseline without its sidecar: an I/O error naming the sidecar.
  spit(t / "bare.jsonl", slurp(t / "base.jsonl"));
  const auto nometa = check({"--check", t / "bare.jsonl"});
  CHECK(nometa.code == cli::kIoError);
  CHECK(nometa.err.find("bare.jsonl.meta.json") != std::string::npos);
}

TEST_CASE("flopcast sweep: a typo in an axis key is bad input, refused before any point runs") {
  TempDir t;
  const std::string head = R"(scenario:
  model: llama3-8b
  cluster: {gpu: H800, gpus: 16}
  parallel: {tp: 2, pp: 1, dp: auto, micro_batch: 1, global_batch: 64, zero: 1}
  precision: bf16
axes:
)";
  // Once every row read "infeasible: ... unknown key" and the sweep exited 0: a CI gate stayed green.
  spit(t / "typo.sweep.yml",
       head + "  - key: cluster.gpus\n    values: [8, 16]\n  - key: parallel.micro_bacth\n    values: [1, 2]\n");
  const auto r = run_cli({"sweep", t / "typo.sweep.yml", "--estimate", "--out", t / "typo.csv"});
  CHECK(r.code == cli::kBadInput);
  CHECK_MESSAGE(r.err.find("typo.sweep.yml:9:10: error: axes[1].key: unknown scenario key 'parallel.micro_bacth' "
                           "(hint: did you mean 'parallel.micro_batch'?)") != std::string::npos,
                r.err);
  CHECK_FALSE(std::filesystem::exists(t / "typo.csv"));  // no point ran, nothing written
  // A typo in the section's name, and one in a zipped key.
  spit(t / "top.sweep.yml", head + "  - key: paralel.tp\n    values: [1, 2]\n");
  const auto top = run_cli({"sweep", t / "top.sweep.yml", "--estimate", "--out", t / "top.csv"});
  CHECK(top.code == cli::kBadInput);
  CHECK_MESSAGE(top.err.find("top.sweep.yml:7:10: error: axes[0].key: unknown scenario key 'paralel.tp' (hint: did "
                             "you mean 'parallel.tp'?)") != std::string::npos,
                top.err);
  spit(t / "zip.sweep.yml",
       head + "  - zip:\n      parallel.tp: [1, 2]\n      parallel.sequence_paralel: [false, true]\n");
  const auto zip = run_cli({"sweep", t / "zip.sweep.yml", "--estimate", "--out", t / "zip.csv"});
  CHECK(zip.code == cli::kBadInput);
  CHECK_MESSAGE(zip.err.find("zip.sweep.yml:9:7: error: axes[0].zip: unknown scenario key 'parallel.sequence_paralel' "
                             "(hint: did you mean 'parallel.sequence_parallel'?)") != std::string::npos,
                zip.err);
  // A key the scenario knows still sweeps.
  spit(t / "ok.sweep.yml", head + "  - key: parallel.micro_batch\n    values: [1, 2]\n");
  CHECK(run_cli({"sweep", t / "ok.sweep.yml", "--estimate", "--out", t / "ok.csv"}).code == 0);
}

TEST_CASE("flopcast sweep --check: a comment edit of the base passes, a real change is reported as what changed") {
  TempDir t;
  const std::string base = R"(# The base scenario of a CI gate.
model: llama3-8b
cluster: {gpu: H800, gpus: 16}
parallel: {tp: 2, pp: 1, dp: auto, micro_batch: 1, global_batch: 64, recompute: selective, sequence_parallel: true, zero: 1}
precision: bf16
training: {tokens: 5B}
reliability: {trials: 20, seed: 3}
pricing: {catalog: seed-vendor}
)";
  spit(t / "base.yaml", base);
  spit(t / "s.sweep.yml", "base: base.yaml\naxes:\n  - key: cluster.gpus\n    values: [8, 16]\n");
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--estimate", "--out", t / "baseline.csv"}).code == 0);
  auto check = [&] {
    return run_cli(
        {"sweep", t / "s.sweep.yml", "--estimate", "--force", "--out", t / "now.csv", "--check", t / "baseline.csv"});
  };
  // A comment, the key order, flow or block style, quoting, a name: the same scenario. Once refused as "a
  // baseline of another sweep" (exit 3): the check compared a hash of the file's text.
  spit(t / "base.yaml", R"(# The base scenario of a CI gate (reviewed).
name: CI gate, 8B on H800
model: "llama3-8b"
precision: bf16   # Hopper's dense bf16 path
cluster:
  gpus: 16
  gpu: H800
parallel: {tp: 2, pp: 1, dp: auto, micro_batch: 1, global_batch: 64, recompute: selective, sequence_parallel: true, zero: 1}
training: {tokens: 5B}
reliability: {trials: 20, seed: 3}
pricing: {catalog: seed-vendor}
)");
  const auto same = check();
  CHECK_MESSAGE(same.code == 0, same.err);
  CHECK(same.out.find("0 regressions, 0 improvements") != std::string::npos);
  CHECK(same.out.find("base scenario") == std::string::npos);
  // cluster.gpus is swept: its value in the base is never used, so changing it changes nothing.
  std::string regpus = base;
  regpus.replace(regpus.find("gpus: 16"), 8, "gpus: 64");
  spit(t / "base.yaml", regpus);
  CHECK(check().code == 0);
  // Twice the tokens: the check runs, lists what changed in the base, and the longer runs are
  // regressions (exit 6), not a refusal (exit 3).
  std::string tokens = base;
  tokens.replace(tokens.find("tokens: 5B"), 10, "tokens: 10B");
  tokens.replace(tokens.find("{trials: 20, seed: 3}"), 21, "{trials: 20}");
  spit(t / "base.yaml", tokens);
  const auto changed = check();
  CHECK_MESSAGE(changed.code == cli::kCheckFailed, changed.err);
  CHECK_MESSAGE(changed.out.find("base scenario: training.tokens baseline 5B now 10B\n") != std::string::npos,
                changed.out);
  CHECK(changed.out.find("base scenario: reliability.seed baseline 3 now absent\n") != std::string::npos);
  CHECK(changed.out.find("regression: point 0 (cluster.gpus=8): days_p50") != std::string::npos);
  CHECK(changed.out.find("2 points compared") != std::string::npos);
}

TEST_CASE("flopcast sweep --check: a baseline CSV with CRLF line ends (RFC 4180, Python's csv) is read") {
  TempDir t;
  spit(t / "s.sweep.yml", R"(
scenario:
  model: llama3-8b
  cluster: {gpu: H800, gpus: 16}
  parallel: {tp: 1, pp: 1, dp: auto, micro_batch: 1, global_batch: 64, zero: 1}
  precision: bf16
  training: {tokens: 5B}
  reliability: {trials: 20, seed: 3}
  pricing: {catalog: seed-vendor}
axes:
  - key: cluster.gpus
    values: [8, 16, 1]
)");
  REQUIRE(run_cli({"sweep", t / "s.sweep.yml", "--estimate", "--out", t / "lf.csv"}).code == 0);
  // The file as Python's csv.writer writes it back: every record ends in CRLF; the quoted 'why'
  // of the 1-GPU point (8B parameters with their optimizer state do not fit one GPU: "needs ...
  // per GPU, the H800 has ...") stays one field.
  std::string crlf;
  for (const char c : slurp(t / "lf.csv")) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  REQUIRE(crlf.find("\"") != std::string::npos);
  spit(t / "crlf.csv", crlf);
  spit(t / "crlf.csv.meta.json", slurp(t / "lf.csv.meta.json"));
  const auto r = run_cli({"sweep", t / "s.sweep.yml", "--estimate", "--out", t / "now.csv", "--check", t / "crlf.csv"});
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("3 points compared at 2% tolerance: 0 regressions, 0 improvements, 0 new figures, 0 changes") !=
        std::string::npos);
}

TEST_CASE("flopcast sweep: Ctrl-C or SIGTERM says what was written and that --resume continues it") {
  TempDir t;
  // 100,000 points (about 0.1 ms each with --estimate, seconds in all): still running when the
  // signal comes.
  spit(t / "long.sweep.yml", R"(
scenario:
  model: llama3-8b
  cluster: {gpu: H800, gpus: 8}
  parallel: {tp: 1, pp: 1, dp: auto, micro_batch: 1, global_batch: 64, zero: 1}
  precision: bf16
  training: {tokens: 1B}
  reliability: {trials: 2}
axes:
  - key: reliability.seed
    range: {from: 1, to: 2000, step: 1}
  - key: training.tokens
    range: {from: 1e9, to: 5e10, step: 1e9}
)");
  for (const int sig : {SIGINT, SIGTERM}) {
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    CAPTURE(name);
    const std::string out = t / ("long-" + name + ".csv"), err = t / ("err-" + name + ".txt");
    const pid_t pid = spawn_cli({"sweep", t / "long.sweep.yml", "--estimate", "-o", out}, err);
    REQUIRE(pid > 0);
    // Signalled once it has written a few rows (at most a minute's wait).
    for (int i = 0; i < 3000 && (!std::filesystem::exists(out) || lines_in(out) < 6); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(pid, sig);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    // Ended by the signal, as a shell expects (exit status 130 for SIGINT, 143 for SIGTERM).
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    const std::int64_t rows = lines_in(out) - 1;  // whole rows after the header
    CHECK(rows >= 5);
    CHECK(rows < 100000);
    const std::string said = slurp(err);
    CHECK_MESSAGE(
        said.find(fmt::format("sweep: interrupted by {}: {} of the 100000 rows are in {} ({} written now, 0 "
                              "resumed); continue with: {} sweep {} --estimate --out {} --resume\n",
                              name, rows, out, rows, "flopcast", t / "long.sweep.yml", out)) != std::string::npos,
        said);
  }
  // That command continues the file where it stopped, byte for byte an uninterrupted run.
  const std::string out = t / "long-SIGINT.csv";
  const std::int64_t rows = lines_in(out) - 1;
  const auto resumed =
      run_cli({"sweep", t / "long.sweep.yml", "--estimate", "--out", out, "--resume", "--stop-after", "3"});
  REQUIRE_MESSAGE(resumed.code == 0, resumed.err);
  CHECK(resumed.err.find(fmt::format("{} resumed, 3 written", rows)) != std::string::npos);
  REQUIRE(run_cli({"sweep", t / "long.sweep.yml", "--estimate", "--out", t / "ref.csv", "--stop-after",
                   std::to_string(rows + 3)})
              .code == 0);
  CHECK(slurp(out) == slurp(t / "ref.csv"));
}

TEST_CASE("flopcast sweep --shard auto: Slurm array tasks 1..3 and Kubernetes indexes 0..2, merged, equal the whole") {
  TempDir t;
  const ScopedEnv clean(no_job_array());
  const std::string sweep = std::string(FLOPCAST_SCENARIOS_DIR) + "/sweeps/parallelism.sweep.yml";
  REQUIRE(run_cli({"sweep", sweep, "--estimate", "-j", "2", "--out", t / "whole.csv"}).code == 0);
  const std::string whole = slurp(t / "whole.csv");
  // sbatch --array=1-3: each task's variables as Slurm sets them (sbatch(1)).
  std::vector<std::string> parts;
  for (int id = 1; id <= 3; ++id) {
    const ScopedEnv env({{"SLURM_ARRAY_JOB_ID", "77"},
                         {"SLURM_ARRAY_TASK_ID", std::to_string(id)},
                         {"SLURM_ARRAY_TASK_COUNT", "3"},
                         {"SLURM_ARRAY_TASK_MIN", "1"},
                         {"SLURM_ARRAY_TASK_MAX", "3"},
                         {"SLURM_ARRAY_TASK_STEP", "1"}});
    parts.push_back(t / ("slurm-" + std::to_string(id) + ".csv"));
    const auto r = run_cli({"sweep", sweep, "--estimate", "--shard", "auto", "--out", parts.back()});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(r.err.find(fmt::format("shard {}/3 (SLURM_ARRAY_TASK_ID={}) has 36", id, id)) != std::string::npos);
  }
  REQUIRE(run_cli({"merge", parts[2], parts[0], parts[1], "--out", t / "slurm.csv"}).code == 0);
  CHECK(slurp(t / "slurm.csv") == whole);
  CHECK(slurp(t / "slurm.csv.meta.json") == slurp(t / "whole.csv.meta.json"));
  // A Kubernetes Indexed Job of 3 completions: JOB_COMPLETION_INDEX 0, 1, 2 with --shards 3.
  parts.clear();
  for (int index = 0; index <= 2; ++index) {
    const ScopedEnv env({{"JOB_COMPLETION_INDEX", std::to_string(index)}});
    parts.push_back(t / ("k8s-" + std::to_string(index) + ".csv"));
    const auto r = run_cli({"sweep", sweep, "--estimate", "--shard", "auto", "--shards", "3", "--out", parts.back()});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(r.err.find(fmt::format("shard {}/3 (JOB_COMPLETION_INDEX={})", index + 1, index)) != std::string::npos);
  }
  REQUIRE(run_cli({"merge", parts[0], parts[1], parts[2], "--out", t / "k8s.csv"}).code == 0);
  CHECK(slurp(t / "k8s.csv") == whole);
  CHECK(slurp(t / "k8s.csv.meta.json") == slurp(t / "whole.csv.meta.json"));
  // No job array: exit 2, naming the variables; --shard 0/3 says shards count from 1.
  const auto none = run_cli({"sweep", sweep, "--estimate", "--shard", "auto", "--out", t / "x.csv"});
  CHECK(none.code == cli::kUsage);
  CHECK(none.err.find("flopcast sweep: error: --shard auto: no job array index in the environment: a Slurm job array "
                      "sets SLURM_ARRAY_TASK_ID") != std::string::npos);
  const auto zero = run_cli({"sweep", sweep, "--estimate", "--shard", "0/3", "--out", t / "x.csv"});
  CHECK(zero.code == cli::kUsage);
  CHECK(zero.err.find("--shard '0/3': shards count from 1 (--shard 1/3 is the first") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(t / "x.csv"));
}

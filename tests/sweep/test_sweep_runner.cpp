// The sweep runner and merge (sweep_runner.hpp) on a synthetic sweep: the output is plain CSV (a
// header row first, no comment line) or plain JSONL (typed values, null for an empty cell), with
// the sweep's identity in the sidecar FILE.meta.json; -j2 == -j1 byte for byte; shards merged ==
// the unsharded run (sidecar included); killed and resumed == uninterrupted; --resume and merge
// read the sidecar and refuse another sweep, a missing sidecar, a missing or doubled shard.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "flopcast/sweep/sweep_meta.hpp"
#include "flopcast/sweep/sweep_runner.hpp"
#include "sweep_fixtures.hpp"

using namespace flopcast;
using namespace flopcast::test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool mentions(const std::vector<std::string>& errors, const std::string& what) {
  return std::any_of(errors.begin(), errors.end(), [&](const auto& e) { return contains(e, what); });
}

}  // namespace

TEST_CASE("sweep output: plain CSV, the header row first, the identity in FILE.meta.json") {
  SweepDir t;
  REQUIRE(run_fake(t / "s.csv", 1).ok());
  const auto lines = lines_of(slurp(t / "s.csv"));
  REQUIRE(lines.size() == 1 + 101);
  // What csv.DictReader and pandas take as the header by default: the first line.
  CHECK(lines[0] == "point,a,feasible,why,step_time_s,mfu");
  CHECK(lines[1] == "0,0,false,\"why, \"\"quoted\"\"\",0.000000,");
  CHECK(lines[2] == "1,7,true,,1.500000,0.5");
  // The sidecar: the identity, the shard and each column's type and direction.
  const auto meta = nlohmann::json::parse(slurp(t / "s.csv.meta.json"));
  const auto& m = meta.at("flopcast_sweep");
  CHECK(m.at("id") == "00000000000000aa");
  CHECK(m.at("scenario_hash") == "00000000000000bb");
  CHECK(m.at("flopcast_version") == "0.1.0");
  CHECK(m.at("points") == 101);
  CHECK(m.at("shard") == 1);
  CHECK(m.at("shards") == 1);
  CHECK(m.at("format") == "csv");
  CHECK(m.at("axes").at(0).at("keys") == nlohmann::json::array({"a"}));
  CHECK(m.at("axes").at(0).at("values").size() == 101);
  CHECK(m.at("columns").at(0) == nlohmann::json({{"name", "point"}, {"type", "integer"}}));
  CHECK(m.at("columns").at(4) ==
        nlohmann::json({{"name", "step_time_s"}, {"type", "number"}, {"better", "lower"}, {"compare", true}}));
  // read_meta gives it back as written.
  std::string err;
  const auto back = sweep::read_meta(t / "s.csv", err);
  REQUIRE_MESSAGE(back, err);
  CHECK(sweep::other_sweep_reason(back->identity, fake_identity()).empty());
  CHECK(back->columns.size() == fake_columns().size());
  CHECK(back->columns[3].better == sweep::Better::Lower);
  CHECK(sweep::meta_json(*back) == slurp(t / "s.csv.meta.json"));
}

TEST_CASE("sweep output: JSONL rows are typed, with null for an empty cell and no header line") {
  SweepDir t;
  REQUIRE(run_fake(t / "s.jsonl", 2).ok());
  const auto lines = lines_of(slurp(t / "s.jsonl"));
  REQUIRE(lines.size() == 101);
  const auto r0 = nlohmann::json::parse(lines[0]);
  CHECK(r0.at("point") == 0);
  CHECK(r0.at("a").is_number_integer());
  CHECK(r0.at("feasible") == false);
  CHECK(r0.at("why") == "why, \"quoted\"");
  CHECK(r0.at("step_time_s").is_number_float());
  CHECK(r0.at("mfu").is_null());
  const auto r1 = nlohmann::json::parse(lines[1]);
  CHECK(r1.at("a") == 7);
  CHECK(r1.at("feasible") == true);
  CHECK(r1.at("why").is_null());
  CHECK(r1.at("step_time_s") == 1.5);
  CHECK(r1.at("mfu") == 0.5);
  CHECK(nlohmann::json::parse(slurp(t / "s.jsonl.meta.json")).at("flopcast_sweep").at("format") == "jsonl");
}

TEST_CASE("sweep runner: -j2 equals -j1 byte for byte") {
  SweepDir t;
  REQUIRE(run_fake(t / "j1.csv", 1).ok());
  REQUIRE(run_fake(t / "j2.csv", 2).ok());
  REQUIRE(run_fake(t / "j4.jsonl", 4).ok());
  REQUIRE(run_fake(t / "j1.jsonl", 1).ok());
  CHECK(slurp(t / "j1.csv") == slurp(t / "j2.csv"));
  CHECK(slurp(t / "j1.jsonl") == slurp(t / "j4.jsonl"));
  CHECK(slurp(t / "j1.csv.meta.json") == slurp(t / "j2.csv.meta.json"));
}

TEST_CASE("sweep merge: three shards merged equal the unsharded run, sidecar included (CSV and JSONL)") {
  SweepDir t;
  for (const std::string ext : {".csv", ".jsonl"}) {
    CAPTURE(ext);
    REQUIRE(run_fake(t / ("all" + ext), 2).ok());
    REQUIRE(run_fake(t / ("s1" + ext), 1, 1, 3).ok());
    REQUIRE(run_fake(t / ("s2" + ext), 2, 2, 3).ok());
    REQUIRE(run_fake(t / ("s3" + ext), 1, 3, 3).ok());
    // Each shard's sidecar names its shard.
    std::string err;
    CHECK(sweep::read_meta(t / ("s2" + ext), err)->shard == 2);
    CHECK(sweep::read_meta(t / ("s2" + ext), err)->shards == 3);
    const auto errs =
        sweep::merge_shards({t / ("s3" + ext), t / ("s1" + ext), t / ("s2" + ext)}, t / ("merged" + ext), false);
    REQUIRE_MESSAGE(errs.empty(), errs.front());
    CHECK(slurp(t / ("merged" + ext)) == slurp(t / ("all" + ext)));
    CHECK(slurp(t / ("merged" + ext + ".meta.json")) == slurp(t / ("all" + ext + ".meta.json")));
    // A missing shard is named.
    const auto missing = sweep::merge_shards({t / ("s1" + ext), t / ("s3" + ext)}, t / ("m2" + ext), false);
    CHECK(mentions(missing, "shard 2/3 is missing (no file of it among the 2 given)"));
    // The same shard twice.
    const auto twice = sweep::merge_shards({t / ("s1" + ext), t / ("s1" + ext), t / ("s2" + ext), t / ("s3" + ext)},
                                           t / ("m3" + ext), false);
    CHECK(mentions(twice, "shard 1/3 is given twice"));
    // The merged file is not overwritten without force.
    CHECK(mentions(
        sweep::merge_shards({t / ("s1" + ext), t / ("s2" + ext), t / ("s3" + ext)}, t / ("merged" + ext), false),
        "exists"));
  }
}

TEST_CASE("sweep merge: reads each shard's sidecar and refuses a shard of another sweep or without one") {
  SweepDir t;
  REQUIRE(run_fake(t / "s1.csv", 1, 1, 3).ok());
  REQUIRE(run_fake(t / "s2.csv", 1, 2, 3).ok());
  // Shard 3 of a sweep with other axis values (and so another id).
  auto other = fake_identity(101, "00000000000000cc");
  other.axes[0].values[5] = {"five"};
  REQUIRE(run_fake(t / "s3.csv", 1, 3, 3, -1, false, other).ok());
  const auto e = sweep::merge_shards({t / "s1.csv", t / "s2.csv", t / "s3.csv"}, t / "m.csv", false);
  CHECK(mentions(e, "s3.csv: from another sweep than"));
  CHECK(mentions(e, "axis a has the values"));
  CHECK_FALSE(std::filesystem::exists(t / "m.csv"));
  // Shard 3 without its sidecar (an artifact that lost it).
  REQUIRE(run_fake(t / "s3.csv", 1, 3, 3).ok());
  std::filesystem::remove(t / "s3.csv.meta.json");
  const auto e2 = sweep::merge_shards({t / "s1.csv", t / "s2.csv", t / "s3.csv"}, t / "m.csv", false);
  CHECK(mentions(e2, "s3.csv.meta.json: cannot read the sweep's sidecar"));
  CHECK(mentions(e2, "keep the two files together"));
  // A shard stopped early is incomplete.
  REQUIRE(run_fake(t / "s3.csv", 1, 3, 3, 5).ok());
  const auto e3 = sweep::merge_shards({t / "s1.csv", t / "s2.csv", t / "s3.csv"}, t / "m.csv", false);
  CHECK(mentions(e3, "holds 5 of its 33 rows"));
}

TEST_CASE("sweep runner: killed midway and resumed equals an uninterrupted run") {
  SweepDir t;
  REQUIRE(run_fake(t / "full.csv", 1).ok());
  const auto full = slurp(t / "full.csv");
  // Stopped after 37 rows (the test hook), then resumed with another thread count.
  const auto st = run_fake(t / "part.csv", 2, 1, 1, 37);
  REQUIRE(st.ok());
  CHECK(st.stopped);
  CHECK(st.written == 37);
  CHECK(slurp(t / "part.csv").size() < full.size());
  const auto st2 = run_fake(t / "part.csv", 3, 1, 1, -1, true);
  REQUIRE_MESSAGE(st2.ok(), st2.errors.front());
  CHECK(st2.resumed == 37);
  CHECK(st2.written == 101 - 37);
  CHECK(slurp(t / "part.csv") == full);
  // A torn last line (a crash mid-write): dropped, then redone.
  std::string torn = full.substr(0, full.find('\n', full.size() / 2) + 1);
  torn += "58,2,true,,8";  // half a row, no newline
  spit(t / "torn.csv", torn);
  spit(t / "torn.csv.meta.json", slurp(t / "full.csv.meta.json"));
  const auto st3 = run_fake(t / "torn.csv", 2, 1, 1, -1, true);
  REQUIRE(st3.ok());
  CHECK(st3.torn_line_dropped);
  CHECK(slurp(t / "torn.csv") == full);
  // Resuming a complete file writes nothing.
  const auto st4 = run_fake(t / "torn.csv", 2, 1, 1, -1, true);
  CHECK(st4.written == 0);
  CHECK(slurp(t / "torn.csv") == full);
  // Sharded resume (JSONL: no header line).
  REQUIRE(run_fake(t / "sh.jsonl", 1, 2, 2, 10).ok());
  REQUIRE(run_fake(t / "sh.jsonl", 2, 2, 2, -1, true).ok());
  REQUIRE(run_fake(t / "sh-full.jsonl", 1, 2, 2).ok());
  CHECK(slurp(t / "sh.jsonl") == slurp(t / "sh-full.jsonl"));
}

TEST_CASE("sweep runner: resume reads the sidecar and refuses another sweep's file, no overwrite without force") {
  SweepDir t;
  REQUIRE(run_fake(t / "a.csv", 1, 1, 1, 5).ok());
  // Other shard layout: refused, saying so.
  const auto st = run_fake(t / "a.csv", 1, 1, 2, -1, true);
  REQUIRE(!st.ok());
  CHECK(contains(st.errors.front(), "its sidecar says shard 1/1, this run is shard 1/2"));
  // Other points (another sweep): refused with the reason.
  const auto st2 = run_fake(t / "a.csv", 1, 1, 1, -1, true, fake_identity(50));
  REQUIRE(!st2.ok());
  CHECK(contains(st2.errors.front(), "another sweep: axis a has the values"));
  CHECK(contains(st2.errors.front(), "101 points there, 50 here"));
  // Another flopcast version: rows of two versions would mix.
  auto newer = fake_identity();
  newer.flopcast_version = "0.2.0";
  const auto st3 = run_fake(t / "a.csv", 1, 1, 1, -1, true, newer);
  REQUIRE(!st3.ok());
  CHECK(contains(st3.errors.front(), "rows of flopcast 0.1.0, this is flopcast 0.2.0"));
  // Without its sidecar: a clear error and what to do.
  std::filesystem::remove(t / "a.csv.meta.json");
  const auto st4 = run_fake(t / "a.csv", 1, 1, 1, -1, true);
  REQUIRE(!st4.ok());
  CHECK(contains(st4.errors.front(), "a.csv.meta.json: cannot read the sweep's sidecar"));
  CHECK(contains(st4.errors.front(), "run without --resume and with --force to start afresh"));
  // Fresh run over an existing file without force.
  sweep::RunOptions o;
  const auto st5 = sweep::run_sweep(t / "a.csv", fake_identity(), fake_columns(), fake_eval, o, nullptr);
  REQUIRE(!st5.ok());
  CHECK(contains(st5.errors.front(), "--force"));
}

TEST_CASE("sweep output: an older file with the identity in a comment line is named as such") {
  SweepDir t;
  spit(t / "old.csv", "# flopcast-sweep id=723603e1e344fa42 points=2 shard=1/1\npoint,a\n0,1\n1,2\n");
  REQUIRE(run_fake(t / "new.csv", 1).ok());
  spit(t / "old.csv.meta.json", slurp(t / "new.csv.meta.json"));
  const auto st = run_fake(t / "old.csv", 1, 1, 1, -1, true);
  REQUIRE(!st.ok());
  CHECK(contains(st.errors.front(), "old.csv:1: written by an older flopcast"));
}

TEST_CASE("sweep merge: a missing or unfinished shard is named with the command that computes it") {
  SweepDir t;
  sweep::RunOptions o;
  o.shards = 3;
  o.command = {"flopcast", "sweep", "my sweeps/s.sweep.yml", "--estimate"};
  auto run = [&](int shard, const std::string& out, std::int64_t stop) {
    o.shard = shard;
    o.stop_after = stop;
    o.resume = true;
    return sweep::run_sweep(out, fake_identity(), fake_columns(), fake_eval, o, nullptr);
  };
  REQUIRE(run(1, t / "part-1.csv", -1).ok());
  REQUIRE(run(3, t / "part-3.csv", -1).ok());
  // Shard 2's task failed before writing anything: its file is not there. The message names the
  // shard and the whole command, with the file name its siblings' names give, quoted for the shell.
  const auto missing = sweep::merge_shards({t / "part-1.csv", t / "part-3.csv"}, t / "all.csv", false);
  REQUIRE(missing.size() == 1);
  CHECK(missing[0] ==
        "shard 2/3 is missing (no file of it among the 2 given): compute it with `flopcast sweep 'my "
        "sweeps/s.sweep.yml' --estimate --shard 2/3 --out " +
            t / "part-2.csv" + " --resume`, then merge again with its file");
  // Shard 2's task was killed after 7 rows (a node lost, a time limit): what it wrote stays, and
  // the message says how to finish it.
  REQUIRE(run(2, t / "part-2.csv", 7).stopped);
  const auto part = sweep::merge_shards({t / "part-1.csv", t / "part-2.csv", t / "part-3.csv"}, t / "all.csv", false);
  REQUIRE(part.size() == 1);
  CHECK(part[0] == t / "part-2.csv" +
                       ": shard 2/3 holds 7 of its 34 rows (the run stopped early); finish it with `flopcast sweep 'my "
                       "sweeps/s.sweep.yml' --estimate --shard 2/3 --out " +
                       t / "part-2.csv" + " --resume`, then merge again");
  // That command continues the shard; merged, the shards equal the unsharded run.
  REQUIRE(run(2, t / "part-2.csv", -1).resumed == 7);
  REQUIRE(sweep::merge_shards({t / "part-1.csv", t / "part-2.csv", t / "part-3.csv"}, t / "all.csv", false).empty());
  o.shards = 1;
  REQUIRE(run(1, t / "whole.csv", -1).ok());
  CHECK(slurp(t / "all.csv") == slurp(t / "whole.csv"));
  CHECK(slurp(t / "all.csv.meta.json") == slurp(t / "whole.csv.meta.json"));
  // Files named by a 0-based index (Kubernetes' JOB_COMPLETION_INDEX: shard-0.csv is shard 1/3):
  // the missing shard 3/3 is shard-2.csv.
  std::filesystem::copy_file(t / "part-1.csv", t / "shard-0.csv");
  std::filesystem::copy_file(t / "part-1.csv.meta.json", t / "shard-0.csv.meta.json");
  std::filesystem::copy_file(t / "part-2.csv", t / "shard-1.csv");
  std::filesystem::copy_file(t / "part-2.csv.meta.json", t / "shard-1.csv.meta.json");
  CHECK(mentions(sweep::merge_shards({t / "shard-0.csv", t / "shard-1.csv"}, t / "k.csv", false),
                 "--shard 3/3 --out " + t / "shard-2.csv" + " --resume`"));
  // Shards computed with other flags (one without --estimate) are not merged.
  o.shards = 3;
  o.command = {"flopcast", "sweep", "my sweeps/s.sweep.yml"};
  o.resume = false;
  o.force = true;
  o.shard = 3;
  o.stop_after = -1;
  REQUIRE(sweep::run_sweep(t / "part-3.csv", fake_identity(), fake_columns(), fake_eval, o, nullptr).ok());
  CHECK(mentions(sweep::merge_shards({t / "part-1.csv", t / "part-2.csv", t / "part-3.csv"}, t / "x.csv", false),
                 "part-3.csv: computed by `flopcast sweep 'my sweeps/s.sweep.yml'`, "));
}

// --check (sweep_check.hpp): signed differences, each figure's direction (lower step time is
// better, higher MFU; a plan that stops fitting is a regression, one that starts fitting an
// improvement), an empty baseline cell is new (never +100%), the tolerance, a baseline of another
// sweep refused with the reason, a missing sidecar, a shard against a whole baseline; and the
// report's lines (app/sweep_check_report.hpp).
#include <doctest/doctest.h>

#include <functional>

#include "flopcast/app/sweep_check_report.hpp"
#include "flopcast/sweep/sweep_check.hpp"
#include "sweep_fixtures.hpp"

using namespace flopcast;
using namespace flopcast::test;
using sweep::Change;

namespace {

/// The synthetic sweep with point `p`'s cells changed by `edit` (baseline: unedited).
sweep::RunStats run_edited(const std::string& out,
                           const std::function<void(std::int64_t, std::vector<std::string>&)>& edit, int shard = 1,
                           int shards = 1) {
  sweep::RunOptions o;
  o.force = true;
  o.shard = shard;
  o.shards = shards;
  const sweep::Evaluate eval = [&](std::int64_t i) {
    auto cells = fake_eval(i);
    edit(i, cells);
    return cells;
  };
  return sweep::run_sweep(out, fake_identity(), fake_columns(), eval, o, nullptr);
}

// Cells of fake_eval: 0 a, 1 feasible, 2 why, 3 step_time_s (lower is better), 4 mfu (higher).
constexpr std::size_t kFeasible = 1, kStep = 3, kMfu = 4;

const sweep::CheckFinding* finding(const sweep::CheckResult& cr, std::int64_t point, const std::string& column) {
  for (const auto& f : cr.findings)
    if (f.point == point && f.column == column) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("check: differences are signed and judged by each figure's direction") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());
  REQUIRE(run_edited(t / "now.csv", [](std::int64_t i, std::vector<std::string>& c) {
            if (i == 4) c[kStep] = "6.18";   // 6 -> 6.18: +3%, slower: a regression
            if (i == 7) c[kStep] = "9.975";  // 10.5 -> 9.975: -5%, faster: an improvement
            if (i == 8) c[kMfu] = "0.4";     // 0.5 -> 0.4: -20%, a regression
            if (i == 9) c[kMfu] = "0.6";     // +20%, an improvement
          }).ok());
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.02);
  REQUIRE(cr.errors.empty());
  CHECK(cr.compared == 101);
  REQUIRE(cr.findings.size() == 4);
  const auto* slower = finding(cr, 4, "step_time_s");
  REQUIRE(slower);
  CHECK(slower->change == Change::Regression);
  CHECK(*slower->relative == doctest::Approx(0.03));
  CHECK(slower->where == "a=2");  // point 4's swept value: 4*7 % 13
  const auto* faster = finding(cr, 7, "step_time_s");
  REQUIRE(faster);
  CHECK(faster->change == Change::Improvement);
  CHECK(*faster->relative == doctest::Approx(-0.05));
  const auto* lower_mfu = finding(cr, 8, "mfu");
  REQUIRE(lower_mfu);
  CHECK(lower_mfu->change == Change::Regression);
  CHECK(*lower_mfu->relative == doctest::Approx(-0.2));
  CHECK(finding(cr, 9, "mfu")->change == Change::Improvement);
  CHECK(cr.count(Change::Regression) == 2);
  CHECK(cr.failed());
  // At 6% the slower step and the faster one are within; the MFU changes (20%) are not.
  const auto wide = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.06);
  CHECK(wide.findings.size() == 2);
  // Improvements alone do not fail a check.
  REQUIRE(run_edited(t / "better.csv", [](std::int64_t i, std::vector<std::string>& c) {
            if (i == 7) c[kStep] = "9.975";
          }).ok());
  const auto better = sweep::check_against_baseline(t / "better.csv", t / "base.csv", 0.02);
  CHECK(better.count(Change::Improvement) == 1);
  CHECK_FALSE(better.failed());
}

TEST_CASE("check: a plan that stops fitting is a regression, one that starts fitting an improvement") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());
  REQUIRE(run_edited(t / "now.csv", [](std::int64_t i, std::vector<std::string>& c) {
            if (i == 3) c[kFeasible] = "false";  // fitted, no longer
            if (i == 5) c[kFeasible] = "true";   // did not fit, fits now
          }).ok());
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.02);
  REQUIRE(cr.errors.empty());
  CHECK(finding(cr, 3, "feasible")->change == Change::Regression);
  CHECK(finding(cr, 5, "feasible")->change == Change::Improvement);
  CHECK_FALSE(finding(cr, 5, "feasible")->relative.has_value());
}

TEST_CASE("check: an empty baseline cell is new (never +100%), a figure that is gone a regression") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());
  REQUIRE(run_edited(t / "now.csv", [](std::int64_t i, std::vector<std::string>& c) {
            if (i == 10) c[kMfu] = "0.45";  // empty in the baseline (point 10 did not fit)
            if (i == 11) c[kMfu] = "";      // 0.5 in the baseline
          }).ok());
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.02);
  const auto* added = finding(cr, 10, "mfu");
  REQUIRE(added);
  CHECK(added->change == Change::New);
  CHECK_FALSE(added->relative.has_value());
  CHECK(finding(cr, 11, "mfu")->change == Change::Regression);
  const std::string text = app::sweep_check_text(cr, "now.csv", "base.csv");
  CHECK(contains(text, "new: point 10 (a=5): mfu now 0.45 (empty in the baseline)\n"));
  CHECK(contains(text, "regression: point 11 (a=12): mfu baseline 0.5 now empty (the figure is gone)\n"));
  CHECK_FALSE(contains(text, "100.0%"));
}

TEST_CASE("check: a baseline of 0 is a difference without a percentage") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());  // point 0: step time 0.000000
  REQUIRE(run_edited(t / "now.csv", [](std::int64_t i, std::vector<std::string>& c) {
            if (i == 0) c[kStep] = "0.25";
          }).ok());
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.02);
  const auto* f = finding(cr, 0, "step_time_s");
  REQUIRE(f);
  CHECK(f->change == Change::Regression);
  CHECK_FALSE(f->relative.has_value());
  CHECK(contains(app::sweep_check_text(cr, "now.csv", "base.csv"),
                 "step_time_s baseline 0.000000 now 0.25 (from 0, "
                 "lower is better)"));
}

TEST_CASE("check: the same figures in CSV and JSONL, written differently, are no difference") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());
  REQUIRE(run_fake(t / "now.jsonl", 2).ok());  // JSON writes 1.500000 as 1.500000, read back as 1.5
  const auto cr = sweep::check_against_baseline(t / "now.jsonl", t / "base.csv", 0);
  REQUIRE(cr.errors.empty());
  CHECK(cr.compared == 101);
  CHECK(cr.findings.empty());
}

TEST_CASE("check: a baseline of another sweep is refused, saying why") {
  SweepDir t;
  auto other = fake_identity(36, "00000000000000dd");
  REQUIRE(run_fake(t / "other.csv", 1, 1, 1, -1, false, other).ok());
  REQUIRE(run_fake(t / "now.csv", 1).ok());
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "other.csv", 0.02);
  REQUIRE(cr.errors.size() == 1);
  CHECK(contains(cr.errors[0], "other.csv: a baseline of another sweep: axis a has the values"));
  CHECK(contains(cr.errors[0], "36 points there, 101 here"));
  CHECK(contains(cr.errors[0], "write a new baseline"));
  CHECK(cr.findings.empty());
  CHECK_FALSE(cr.unreadable);
  // The same question before a sweep runs.
  bool unreadable = false;
  CHECK(sweep::baseline_refusal(t / "other.csv", fake_identity(), unreadable) == cr.errors[0]);
  CHECK(sweep::baseline_refusal(t / "now.csv", fake_identity(), unreadable).empty());
}

TEST_CASE("check: a baseline with another base scenario is compared, and what changed is listed") {
  SweepDir t;
  auto before = fake_identity();
  before.base = {{"model", "llama3-8b"}, {"reliability.seed", "3"}, {"training.tokens", "5B"}};
  auto after = fake_identity();
  after.base = {{"model", "llama3-8b"}, {"precision", "fp8"}, {"training.tokens", "10B"}};
  after.id = "00000000000000ab";  // the id covers the base's content
  REQUIRE(run_fake(t / "base.csv", 1, 1, 1, -1, false, before).ok());
  REQUIRE(run_fake(t / "now.csv", 1, 1, 1, -1, false, after).ok());
  bool unreadable = false;
  CHECK(sweep::baseline_refusal(t / "base.csv", after, unreadable).empty());
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.02);
  REQUIRE(cr.errors.empty());
  CHECK(cr.compared == 101);
  const std::string text = app::sweep_check_text(cr, "now.csv", "base.csv");
  CHECK(text.rfind("base scenario: precision baseline absent now fp8\n"
                   "base scenario: reliability.seed baseline 3 now absent\n"
                   "base scenario: training.tokens baseline 5B now 10B\n"
                   "check: now.csv against base.csv: 101 points compared",
                   0) == 0);
  // --resume and merge still refuse rows of another base scenario: they would mix.
  CHECK(sweep::other_sweep_reason(before, after) ==
        "its base scenario differs: precision absent there, fp8 here; reliability.seed 3 there, absent here; "
        "training.tokens 5B there, 10B here");
}

TEST_CASE("check: a baseline whose sidecar has format 1 (a hash of the base's text) is compared, with a note") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());
  REQUIRE(run_fake(t / "now.csv", 1).ok());
  // The sidecar an older flopcast wrote: format 1, no base content, no command.
  std::string meta = slurp(t / "base.csv.meta.json");
  meta.replace(meta.find("\"format_version\": 2"), 19, "\"format_version\": 1");
  const auto cut = [&](const std::string& from, const std::string& to) {
    const auto a = meta.find(from);
    meta.erase(a, meta.find(to, a) - a);
  };
  cut("  \"command\"", "  \"axes\"");
  cut("  \"base\"", "  \"columns\"");
  spit(t / "base.csv.meta.json", meta);
  std::string err;
  REQUIRE_MESSAGE(sweep::read_meta(t / "base.csv", err), err);
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.02);
  REQUIRE(cr.errors.empty());
  CHECK(cr.compared == 101);
  REQUIRE(cr.notes.size() == 1);
  CHECK(contains(cr.notes[0], "the baseline's sidecar (format 1, an older flopcast) records only a hash"));
}

TEST_CASE("check: a CSV baseline with CRLF line ends and a byte order mark is read as RFC 4180 reads it") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());
  REQUIRE(run_fake(t / "now.csv", 1).ok());
  std::string crlf = "\xEF\xBB\xBF";  // Excel's "CSV UTF-8"
  for (const char c : slurp(t / "base.csv")) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  // A line break inside a quoted field is part of the field (point 0's why), not a record's end:
  // read as one, the file would have a row that is not a sweep's and the check would fail.
  const auto q = crlf.find("why, \"\"quoted\"\"");
  REQUIRE(q != std::string::npos);
  crlf.insert(q + 4, "\r\n");
  spit(t / "base.csv", crlf);
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.02);
  REQUIRE_MESSAGE(cr.errors.empty(), cr.errors.front());
  CHECK(cr.compared == 101);
  CHECK(cr.findings.empty());  // `why` is not compared; every figure reads as written
}

TEST_CASE("check: a baseline without its sidecar is an error saying what to do") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());
  REQUIRE(run_fake(t / "now.csv", 1).ok());
  std::filesystem::remove(t / "base.csv.meta.json");
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.02);
  REQUIRE(cr.errors.size() == 1);
  CHECK(contains(cr.errors[0], "base.csv.meta.json: cannot read the sweep's sidecar"));
  CHECK(cr.unreadable);
}

TEST_CASE("check: a shard's output against the whole baseline compares that shard's points") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());
  REQUIRE(run_edited(
              t / "s2.csv",
              [](std::int64_t i, std::vector<std::string>& c) {
                if (i == 4 || i == 5) c[kStep] = "99";  // 4 is in shard 2 of 3 (4 % 3 == 1), 5 is not
              },
              2, 3)
              .ok());
  const auto cr = sweep::check_against_baseline(t / "s2.csv", t / "base.csv", 0.02);
  REQUIRE(cr.errors.empty());
  CHECK(cr.compared == 34);  // points 1, 4, ..., 100
  REQUIRE(cr.findings.size() == 1);
  CHECK(cr.findings[0].point == 4);
}

TEST_CASE("check report: one line per finding starting with its kind, signed, and a summary") {
  SweepDir t;
  REQUIRE(run_fake(t / "base.csv", 1).ok());
  // The figures: MFU 0.5106 -> 0.4159 was printed "+18.5%" and called a regression like
  // every other difference.
  REQUIRE(run_edited(t / "now.csv", [](std::int64_t i, std::vector<std::string>& c) {
            if (i == 1) c[kMfu] = "0.4159";
            if (i == 2) c[kMfu] = "0.6";
            if (i == 3) c[kStep] = "4.05";
          }).ok());
  REQUIRE(run_edited(t / "base.csv", [](std::int64_t i, std::vector<std::string>& c) {
            if (i == 1) c[kMfu] = "0.5106";
          }).ok());
  const auto cr = sweep::check_against_baseline(t / "now.csv", t / "base.csv", 0.02);
  const std::string text = app::sweep_check_text(cr, "now.csv", "base.csv");
  CHECK(text ==
        "regression: point 1 (a=7): mfu baseline 0.5106 now 0.4159 (-18.5%, higher is better)\n"
        "improvement: point 2 (a=1): mfu baseline 0.5 now 0.6 (+20.0%, higher is better)\n"
        "improvement: point 3 (a=8): step_time_s baseline 4.500000 now 4.05 (-10.0%, lower is better)\n"
        "check: now.csv against base.csv: 101 points compared at 2% tolerance: 1 regression, 2 improvements, 0 new "
        "figures, 0 changes -> fails (regressions beyond the tolerance)\n");
}

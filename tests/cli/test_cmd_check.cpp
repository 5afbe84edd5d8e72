// `flopcast check`: the verdict on every claim of scenarios/seed-claims/claims.yaml (the verdict
// word and the figure flopcast computes, each figure derived by hand beside it), the report
// formats, the exit codes, and that training claims and collectives go through the same code
// as `simulate` and `collective`.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli_runner.hpp"
#include "flopcast/app/claims_check.hpp"
#include "flopcast/io/claims_render.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;
using namespace flopcast::test;

namespace {

const claims::ClaimsReport& seed_report() {
  static const claims::ClaimsReport report = [] {
    scenario::Diagnostics d;
    auto r = app::check_claims_file(scenario_file("seed-claims/claims.yaml"), shipped_catalog(), "", d);
    REQUIRE_MESSAGE(r.has_value(), d.str());
    return *r;
  }();
  return report;
}

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

/// One seed claim: its verdict word, and the figure flopcast computes (in the figure's unit)
/// within a relative tolerance `tol` (kUnknown: nothing can be computed).
struct Expect {
  const char* id;
  const char* word;
  double figure;
  double tol;
};

// The hand derivations (SEED prices from data/prices/seed-vendor.yaml, 1 USD = 7.2 CNY as it
// states; GPU figures from data/gpus.yaml; 10% tolerance for "holds"):
const Expect kSeed[] = {
    // 8 GPU x 1 h x 6.80 = 54.40 CNY over 8 GPU-hours; $1.89 x 7.2 = 13.608 CNY, 2.0x: two prices.
    {"a100-hourly-price", "contradicts a100-hourly-usd-price", 6.80, 1e-9},
    {"a100-hourly-usd-price", "contradicts a100-hourly-price", 1.89, 1e-9},
    // 8 x 720 x 1.89 = 10,886.40 USD; the claimed 10,900 is 0.12% above.
    {"a100-5760h-estimate", "holds", 10886.40, 1e-9},
    {"a100-node-month-price", "holds", 57600.00, 1e-9},
    // A node-month: 57,600 monthly against 8 x 720 x 6.80 = 39,168 hourly: 1 - 57,600/39,168 = -47.06%.
    {"monthly-38pct-cheaper", "contradicts a100-node-month-price, a100-hourly-price", -47.06, 1e-3},
    {"a100-day-price", "holds", 1200.00, 1e-9},
    // A third party's price the vendor reports (kind: competitor): nothing independent to hold it against.
    {"a100-lab-card-month", "cannot be judged", 12000.00, 1e-9},
    {"h100-hourly-price", "holds", 28.00, 1e-9},
    {"h800-day-price", "holds", 680.00, 1e-9},
    {"debug-instance-price", "holds", 0.40, 1e-9},
    // 8 h: 8 x 0.40 = 3.20 CNY against 8 GPU x 8 h x 6.80 = 435.20 CNY: 1 - 3.20/435.20 = 99.26% cheaper.
    {"debug-90pct-less", "contradicts debug-instance-price, a100-hourly-price", 99.265, 1e-4},
    // 10 CNY / (8 x 6.80 CNY/h) = 0.1838 h.
    {"credit-8xa100", "contradicts a100-hourly-price", 0.18382, 1e-4},
    // No RTX 4090 plan; the claim implies 10 / 25 = 0.40 CNY per GPU-hour.
    {"credit-rtx4090", "cannot be judged", 0.40, 1e-9},
    {"idc-competitor-price", "cannot be judged", 96000.00, 1e-9},
    {"big-cloud-competitor-price", "cannot be judged", 85000.00, 1e-9},
    {"b200-card-price", "cannot be judged", kUnknown, 0},
    // Checked against the simulated step in the test case below.
    {"b200-65b-run-cost", "optimistic by 121%", 263340.00, 0.02},
    {"a100-65b-run-cost", "impossible", 1365139.44, 0.02},
    // 1,000 GPU x 365 days x 680 CNY = 248,200,000 CNY: the rent itself, no baseline to save against.
    {"h800-rent-saving", "cannot be judged", 248200000.00, 1e-9},
    // 1,000 x 700 W + 125 nodes x (10.2 - 8 x 0.7) kW = 1,275 kW x 8,760 h x PUE 1.58 x 0.65 CNY/kWh.
    {"h800-electricity-saving", "cannot be judged", 1275.0 * 8760 * 1.58 * 0.65, 1e-6},
    // NCCL's ring LL base latency 6.6 us + 2 network hops x 5.0 us (NCCL src/graph/tuning.cc) = 16.6 us;
    // 16.6 / 3 = 5.53x.
    {"allreduce-latency-3us", "optimistic by 453%", 16.6, 1e-3},
    // One 200 Gb/s NIC at NCCL's achievable 0.96 of line rate: 24.00 GB/s = 192.0 Gb/s.
    {"allreduce-190gbps", "holds", 192.0, 1e-3},
    // 108 SMs x 4 tensor cores x 512 FLOP/clk x 1.41 GHz = 311.9 TFLOP/s dense; 1,075 / 312 = 3.45x.
    {"a100-fp16-1075", "optimistic by 245%", 312.0, 1e-9},
    {"h800-989", "holds", 989.4, 1e-9},
    // 989.4 / 312 = 3.171x, i.e. +217%; the claim's 0.92x is 0.92 / 3.171 = 29% of it.
    {"h800-8pct-lower", "pessimistic by 71%", 217.1, 1e-3},
    // NVLink3 12 links: 600 GB/s both ways, 300 one way.
    {"a100-nvlink-600", "optimistic by 100%", 300.0, 1e-9},
    // 79.65 GiB = 85.5 GB; 80 / 85.5 = 0.94: within 10%.
    {"h800-80g", "holds", 79.65, 1e-9},
    {"roce-200g", "cannot be judged", 200.0, 1e-9},
    {"a100-400w", "holds", 400.0, 1e-9},
    // 700 / 330 = 2.12x.
    {"h800-330w", "optimistic by 112%", 700.0, 1e-9},
    {"software-stack", "cannot be judged", kUnknown, 0},
    // LLaMA 65B: 65.29e9 parameters x 14 B = 914.0 GB; / 5 GB/s = 182.8 s; / 3.2 GB/s = 285.6 s.
    {"persistent-disk-5gbps", "cannot be judged", 182.8, 1e-3},
    {"nvme-40pct-faster", "cannot be judged", 285.6, 1e-3},
    {"async-checkpoint-30min", "holds", 182.8, 1e-3},
    // Reloading 914.0 GB at 5 GB/s takes 182.8 s; 182.8 / 90 = 2.03x.
    {"restart-90s", "optimistic by 103%", 182.8, 1e-3},
    // Half the 30 min interval plus the 182.8 s write window: 900 + 182.8 = 1,082.8 s.
    {"restart-from-last-step", "contradicts async-checkpoint-30min", 1082.8, 1e-3},
    // Training: simulate's figures (the same check); the hand bounds are in the case below.
    {"65b-tp1pp8-mfu", "impossible", 52.06, 0.01},
    {"65b-tp1pp8-memory", "optimistic by 129%", 170.5, 0.01},
    {"65b-community-mfu", "impossible", 50.24, 0.01},
    {"65b-community-memory", "optimistic by 110%", 164.4, 0.01},
    {"65b-1t-tokens-30-days", "impossible", 3762.0, 0.01},
    // 8 x 16 x 128 = 16,384 GPUs, not 2,048.
    {"650b-2048-a100", "impossible", 16384.0, 1e-9},
    {"70b-1.2t-tokens-per-day", "impossible", 5.2740e9, 0.01},
    {"pipeline-bubble-6pct", "pessimistic by 11%", 5.35, 0.01},
};

const claims::ClaimResult& result(const std::string& id) {
  const auto* r = seed_report().find(id);
  REQUIRE_MESSAGE(r != nullptr, "no verdict for " << id);
  return *r;
}

}  // namespace

TEST_CASE("check: every seed claim gets its verdict and figure") {
  const auto& report = seed_report();
  CHECK(report.errors.empty());
  CHECK(report.results.size() == std::size(kSeed));
  for (const Expect& e : kSeed) {
    CAPTURE(e.id);
    const auto& r = result(e.id);
    CHECK(r.verdict.word() == std::string(e.word));
    if (std::isnan(e.figure)) {
      CHECK_FALSE(r.verdict.figure.known);
    } else {
      REQUIRE(r.verdict.figure.known);
      CHECK(r.verdict.figure.value == doctest::Approx(e.figure).epsilon(e.tol));
      CHECK_FALSE(r.verdict.how.empty());
    }
    // A verdict that is not "holds" says why (or, for optimistic/pessimistic, by how much).
    if (r.verdict.kind == claims::VerdictKind::Contradicts || r.verdict.kind == claims::VerdictKind::Impossible ||
        r.verdict.kind == claims::VerdictKind::CannotJudge)
      CHECK_FALSE(r.verdict.reason.empty());
  }
}

TEST_CASE("check: the seed file holds a claim of every kind and the training claims point at all six scenarios") {
  std::set<std::string> kinds, scenarios;
  for (const auto& r : seed_report().results) {
    kinds.insert(to_string(r.kind));
    if (r.kind == claims::ClaimKind::Training) scenarios.insert(r.verdict.how);
  }
  CHECK(kinds == std::set<std::string>{"training", "price", "collective", "hardware", "energy", "checkpoint"});
  for (const char* file :
       {"65b-8xa100-tp1pp8-zero3.yaml", "65b-8xa100-tp2pp4-community.yaml", "65b-1t-tokens-8xa100-30days.yaml",
        "650b-2048xa100-tp8pp16dp128.yaml", "70b-64xh800-zero3.yaml", "pipeline-16-stage-bubble.yaml"}) {
    CAPTURE(file);
    bool named = false;
    for (const auto& how : scenarios) named |= contains(how, file);
    CHECK(named);
  }
}

TEST_CASE("check: training verdicts are simulate's own check, figure for figure") {
  // simulate prints "memory_gb  claimed 74.5  simulated 170.5  optimistic by 129%" for this scenario.
  const auto sim = run_cli({"simulate", scenario_file("seed-claims/65b-8xa100-tp1pp8-zero3.yaml")});
  REQUIRE(contains(sim.out, "optimistic by 129%"));
  CHECK(result("65b-tp1pp8-memory").verdict.word() == "optimistic by 129%");
  CHECK(contains(sim.out, "impossible: the plan needs 158.8 GiB per GPU but the A100-80G has 80.0 GiB"));
  CHECK(result("65b-tp1pp8-mfu").verdict.reason == "the plan needs 158.8 GiB per GPU but the A100-80G has 80.0 GiB");
  // Hand bound for the 30-day claim: 6 x 65.29e9 x 1e12 FLOPs (KAPLAN) on 8 x 312 TFLOP/s at the
  // simulated 56.4% MFU take 3,218 days; attention FLOPs (not in 6N) add the rest of the 3,469.
  const double mfu = result("65b-tp1pp8-mfu").verdict.figure.value / 100;
  const double kaplan_days = 6 * 65.29e9 * 1e12 / (8 * 312e12 * mfu) / 86400;
  const double days = result("65b-1t-tokens-30-days").verdict.figure.value;
  CHECK(days > kaplan_days);
  CHECK(days < kaplan_days * 1.10);
  // 70B at 1.2T tokens/day: 6 x 69e9 x tokens/day / 86,400 s needs 5.75e18 FLOP/s; 64 x 989.4e12 at
  // 100% MFU give 6.33e16: at most 1.32e10 tokens/day, so the simulated figure is below that.
  const double bound = 64 * 989.4e12 * 86400 / (6 * 69e9);
  CHECK(result("70b-1.2t-tokens-per-day").verdict.figure.value < bound);
  // 1F1B bubble (p-1)/(m+p-1) = 15/271 = 5.5% ideal (MEG21); the simulation is within 5% of it.
  CHECK(result("pipeline-bubble-6pct").verdict.figure.value == doctest::Approx(100.0 * 15 / 271).epsilon(0.05));
}

TEST_CASE("check: a run cost is the simulated run billed under the cheapest plan named") {
  claims::ScenarioRef ref;
  ref.path = scenario_file("seed-claims/65b-1t-tokens-8xa100-30days.yaml");
  ref.set = {{"cluster.gpu", "B200"}, {"cluster.fabric", "dgx-b200-ndr"}};
  const auto o = app::run_scenario_for_claims(ref, shipped_catalog());
  REQUIRE(o.status == claims::ScenarioOutcome::Status::Simulated);
  CHECK(o.gpus == 8);
  CHECK(o.fits_memory);
  // Started hours billed whole: ceil(train time / 1 h) x 8 GPU x 2.25 USD (spheron-b200-spot,
  // the cheapest of the three B200 plans named: 2.25, 6.03, 5.98 USD/GPU-hour).
  const double billed = std::ceil(o.train_seconds / 3600) * 8 * 2.25;
  CHECK(result("b200-65b-run-cost").verdict.figure.value == doctest::Approx(billed).epsilon(1e-9));
  CHECK(contains(result("b200-65b-run-cost").verdict.how, "spheron-b200-spot"));
  // At 100% MFU the run would still need 6 x 65.29e9 x 1e12 / 2.25e15 / 3600 = 48,360 GPU-hours.
  CHECK(o.gpu_hours > 48'360);
}

TEST_CASE("check: a collective claim's figure is what flopcast collective prints") {
  const auto r = run_cli({"collective", "--gpu", "H800", "--gpus", "16", "--fabric", "hgx-h800-roce200", "--ranks", "2",
                          "--ranks-per-node", "1", "--op", "all_reduce", "--json"});
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& rows = doc["rows"];
  CHECK(result("allreduce-latency-3us").verdict.figure.value ==
        doctest::Approx(rows.front()["time_us"].get<double>()).epsilon(1e-9));
  CHECK(result("allreduce-190gbps").verdict.figure.value ==
        doctest::Approx(rows.back()["busbw_gbytes_s"].get<double>() * 8).epsilon(1e-9));
}

TEST_CASE("check: the report is byte-identical run to run, in every format") {
  const std::string file = scenario_file("seed-claims/claims.yaml");
  for (const char* format : {"text", "json", "md", "html"}) {
    CAPTURE(format);
    const auto a = run_cli({"check", file, "--format", format});
    const auto b = run_cli({"check", file, "--format", format});
    CHECK(a.code == 0);
    CHECK(a.err.empty());
    CHECK(a == b);
  }
  CHECK(run_cli({"check", file, "--json"}).out == run_cli({"check", file, "--format", "json"}).out);
}

TEST_CASE("check: JSON has stable keys and typed numbers") {
  const auto r = run_cli({"check", scenario_file("seed-claims/claims.yaml"), "--json"});
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::ordered_json::parse(r.out);  // keeps the printed key order
  CHECK(doc["summary"]["claims"].get<int>() == static_cast<int>(std::size(kSeed)));
  CHECK(doc["tolerance"].get<double>() == 0.10);
  const auto& first = doc["claims"].front();
  std::vector<std::string> keys;
  for (const auto& [k, v] : first.items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"id", "kind", "figure", "quote", "source", "claimed", "reading", "location",
                                         "verdict", "computed", "how", "notes"});
  CHECK(first["computed"]["value"].is_number());
  for (const auto& c : doc["claims"]) {
    CAPTURE(c["id"].get<std::string>());
    if (c["verdict"]["kind"] == "optimistic" || c["verdict"]["kind"] == "pessimistic")
      CHECK(c["verdict"]["percent"].is_number());
    else
      CHECK(c["verdict"]["percent"].is_null());
  }
}

TEST_CASE("check: the HTML page is self-contained") {
  const auto r = run_cli({"check", scenario_file("seed-claims/claims.yaml"), "--format", "html"});
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(r.out, "<style>"));
  for (const char* external : {"<script", "<link", "src=", "http://", "https://", "url("}) {
    CAPTURE(external);
    CHECK_FALSE(contains(r.out, external));
  }
}

TEST_CASE("check: -o writes the report and refuses to overwrite it without --force") {
  TempDir tmp("check");
  const auto out = (tmp.path / "report.md").string();
  const std::string file = scenario_file("seed-claims/claims.yaml");
  const auto first = run_cli({"check", file, "--format", "md", "-o", out});
  CHECK(first.code == cli::kOk);
  CHECK(contains(read_file(out), "| claim | kind | claimed | verdict | flopcast's figure | how |"));
  const auto again = run_cli({"check", file, "--format", "md", "-o", out});
  CHECK(again.code == cli::kIoError);
  CHECK(contains(again.err, "--force"));
  CHECK(run_cli({"check", file, "--format", "md", "-o", out, "--force"}).code == cli::kOk);
}

TEST_CASE("check: exit codes") {
  // A missing file is an I/O error; a file with bad claims is bad input (3), the rest still judged.
  CHECK(run_cli({"check", "/nonexistent/flopcast/claims.yaml"}).code == cli::kIoError);
  CHECK(run_cli({"check", scenario_file("seed-claims/claims.yaml"), "--json", "--format", "md"}).code == cli::kUsage);
  const auto bad = run_cli({"check", std::string(FLOPCAST_TESTS_DIR) + "/negative/claims-unknown-kind.yaml"});
  CHECK(bad.code == cli::kBadInput);
  CHECK(contains(bad.err, "claims-unknown-kind.yaml:"));
  CHECK(contains(bad.out, "1 claim judged"));
}

// `flopcast simulate`'s whole-run and bill sections and `flopcast quote`, run in-process
// (cli::run). scenarios/quickstart.yaml has a reliability: block and prices under the seed
// vendor's catalog (data/prices/seed-vendor.yaml), so it exercises every section.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_context.hpp"
#include "cli_runner.hpp"

using namespace flopcast;
using nlohmann::json;

namespace {

using test::CliResult;
using test::contains;
using test::read_file;
using test::run_cli;
using test::scenario_file;

const std::string kQuickstart = scenario_file("quickstart.yaml");

/// The text from the line starting with `title` to the next blank line.
std::string section(const std::string& text, const std::string& title) {
  const auto start = text.find("\n" + title);
  if (start == std::string::npos) return {};
  const auto end = text.find("\n\n", start + 1);
  return text.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}

/// The quote id ("Q-" + 16 upper-case hex digits) first named in `text`, or "".
std::string quote_id_in(const std::string& text) {
  static const std::regex id("Q-[0-9A-F]{16}");
  std::smatch m;
  return std::regex_search(text, m, id) ? m.str() : std::string();
}

/// A temporary folder named flopcast-test-quote-<n>.
struct TempDir : test::TempDir {
  TempDir() : test::TempDir("quote") {}
};

#if FLOPCAST_TEST_HAS_PDF
/// `pdfinfo FILE`'s "Pages:" figure; -1 when pdfinfo (poppler-utils) is not installed.
int pdfinfo_pages(const std::string& file) {
  if (std::system("command -v pdfinfo > /dev/null 2>&1") != 0) return -1;
  const std::string cmd = "pdfinfo '" + file + "' 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return -1;
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) text += buf;
  pclose(pipe);
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("Pages:\\s+(\\d+)"))) return 0;
  return std::stoi(m[1].str());
}
#endif

}  // namespace

TEST_SUITE("cli-quote") {
  TEST_CASE("simulate quickstart: the whole-run block and the bill under each plan, one marked cheapest") {
    const auto r = run_cli({"simulate", kQuickstart});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    // The step report comes first, unchanged; the new sections follow it.
    CHECK(r.out.find("Training 1T tokens") < r.out.find("Whole run"));
    const std::string run = section(r.out, "Whole run");
    REQUIRE(!run.empty());
    CHECK(contains(run, "200 trials, seed 1; reliability: scenario"));
    for (const std::string row : {"wall time            P50 ", "paid GPU time        P50 ", "GPU-hours            P50 ",
                                  "goodput ", "failures expected ", "checkpoint ", "Young/Daly ", "energy "}) {
      CAPTURE(row);
      CHECK(contains(run, "\n  " + row));
    }
    CHECK(contains(run, "1.97e-05 per GPU-hour"));  // the scenario's rate (Llama 3 405B, L3 Table 5)
    CHECK(contains(run, "(14 B/param), async"));
    CHECK(contains(run, "x PUE 1.58"));           // the seed vendor catalog's PUE
    CHECK(contains(run, "CNY at 0.65 CNY/kWh"));  // and its electricity price

    const std::string bills = section(r.out, "Bills under 'seed-vendor'");
    REQUIRE(!bills.empty());
    CHECK(contains(bills, "for 64 x H800, in CNY"));
    // The H800 plan and the two any-GPU node plans of the catalog; exactly one starred row.
    CHECK(contains(bills, "h800-daily"));
    CHECK(contains(bills, "idc-node-monthly"));
    CHECK(contains(bills, "big-cloud-node-monthly"));
    CHECK(!contains(bills, "a100-80g"));  // plans for another GPU are not billed
    int starred = 0;
    std::istringstream lines(bills);
    for (std::string line; std::getline(lines, line);) starred += line.rfind("* ", 0) == 0 ? 1 : 0;
    CHECK(starred == 1);
    CHECK(contains(bills, "  * cheapest: "));
  }

  TEST_CASE("simulate: a scenario without reliability: or pricing: uses the defaults and prints no bill") {
    const auto r = run_cli({"simulate", scenario_file("published/llama3-8b-1024xh100.yaml")});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    CHECK(contains(r.out, "reliability: defaults"));
    CHECK(contains(r.out, "USD at 0.08 USD/kWh"));  // EnergySpec's default price (EIA)
    CHECK(!contains(r.out, "Bills under"));
    const auto j =
        json::parse(run_cli({"simulate", "--json", scenario_file("published/llama3-8b-1024xh100.yaml")}).out);
    CHECK(j["whole_run"]["reliability"] == "defaults");
    CHECK(!j.contains("bills"));
  }

  TEST_CASE("simulate --json: whole_run and bills, consistent with each other, byte-identical on a second run") {
    const auto a = run_cli({"simulate", "--json", kQuickstart});
    const auto b = run_cli({"simulate", "--json", kQuickstart});
    REQUIRE_MESSAGE(a.code == cli::kOk, a.err);
    CHECK(a.out == b.out);
    const auto j = json::parse(a.out);
    // New sections come after the existing keys (ordered_json keeps the document's order).
    const auto ordered = nlohmann::ordered_json::parse(a.out);
    std::vector<std::string> keys;
    for (const auto& [k, v] : ordered.items()) keys.push_back(k);
    REQUIRE(keys.size() >= 3);
    CHECK(keys[keys.size() - 3] == "feasible");
    CHECK(keys[keys.size() - 2] == "whole_run");
    CHECK(keys.back() == "bills");

    const auto& w = j["whole_run"];
    CHECK(w["trials"] == 200);
    CHECK(w["seed"] == 1);
    // steps = ceil(1e12 tokens / (512 sequences x 8,192 tokens)) = ceil(238,418.58) = 238,419.
    CHECK(w["steps"] == 238419);
    CHECK(w["steps"] == j["training"]["steps"]);
    const double p50 = w["gpu_span_days"]["p50"].get<double>(), p90 = w["gpu_span_days"]["p90"].get<double>();
    CHECK(p50 >= w["failure_free_days"].get<double>());
    CHECK(p90 >= p50);
    // GPU-hours = 64 GPUs x the GPU span.
    CHECK(w["gpu_hours"]["p50"].get<double>() == doctest::Approx(64 * 24 * p50).epsilon(1e-9));
    CHECK(w["goodput"].get<double>() > 0.9);
    CHECK(w["goodput"].get<double>() <= 1.0);
    // Checkpoint: 8.03e9 parameters x 14 B = 112.4 GB.
    CHECK(w["checkpoint"]["size_gb"].get<double>() == doctest::Approx(112.4).epsilon(0.001));
    CHECK(w["energy"]["facility_kwh"].get<double>() ==
          doctest::Approx(w["energy"]["it_kwh"].get<double>() * 1.58).epsilon(1e-9));
    CHECK(w["energy"]["cost"]["currency"] == "CNY");

    const auto& bills = j["bills"];
    CHECK(bills["currency"] == "CNY");
    CHECK(bills["catalog"]["name"] == "seed-vendor");
    REQUIRE(bills["plans"].size() >= 2);
    int cheapest = 0;
    std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
    for (const auto& row : bills["plans"]) {
      CAPTURE(row["id"].get<std::string>());
      cheapest += row["cheapest"].get<bool>() ? 1 : 0;
      for (const char* at : {"p50", "p90"}) {
        const auto& bill = row[at];
        REQUIRE(bill["ok"].get<bool>());
        CHECK(bill["total"]["currency"] == "CNY");
        // The total adds up the lines in it; a refundable deposit is not one of them.
        std::int64_t sum = 0;
        for (const auto& item : bill["items"])
          if (item["in_total"].get<bool>()) sum += item["amount"]["minor"].get<std::int64_t>();
        CHECK(sum == bill["total"]["minor"].get<std::int64_t>());
      }
      CHECK(row["p90"]["total"]["minor"].get<std::int64_t>() >= row["p50"]["total"]["minor"].get<std::int64_t>());
      lowest = std::min(lowest, row["p50"]["total"]["minor"].get<std::int64_t>());
    }
    CHECK(cheapest == 1);
    for (const auto& row : bills["plans"])
      if (row["cheapest"].get<bool>()) {
        CHECK(row["id"] == bills["cheapest"]);
        CHECK(row["p50"]["total"]["minor"].get<std::int64_t>() == lowest);
      }
  }

  TEST_CASE("simulate: an unknown price catalog is a bad-input error at the scenario's pricing.catalog line") {
    TempDir tmp;
    std::string text = read_file(kQuickstart);
    const auto at = text.find("catalog: seed-vendor");
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string("catalog: seed-vendor").size(), "catalog: seed-vendr");
    const auto file = tmp.path / "typo.yaml";
    std::ofstream(file) << text;
    const auto r = run_cli({"simulate", file.string()});
    CHECK(r.code == cli::kBadInput);
    CHECK(r.out.empty());
    CHECK(contains(r.err, file.string() + ":"));
    CHECK(contains(r.err, "unknown price catalog 'seed-vendr'"));
    CHECK(contains(r.err, "did you mean 'seed-vendor'?"));
  }

  TEST_CASE("quote md and html: the quote id, the recommended total and the validity date, same inputs, same bytes") {
    const auto sim = json::parse(run_cli({"simulate", "--json", kQuickstart}).out);
    std::string total;
    // The quote recommends the provider's cheapest own plan, not a competitor's price.
    const std::string offered = sim["bills"]["cheapest_offered"].get<std::string>();
    CHECK(offered != sim["bills"]["cheapest"].get<std::string>());  // quickstart: a competitor is cheaper
    for (const auto& row : sim["bills"]["plans"])
      if (row["id"].get<std::string>() == offered) {
        CHECK_FALSE(row["competitor"].get<bool>());
        total = row["p50"]["total"]["amount"].get<std::string>();
      }
    REQUIRE(!total.empty());

    const std::vector<std::string> base{"quote", kQuickstart, "--customer", "Acme AI Lab", "--date", "2026-07-01"};
    auto args = [&](const std::string& format) {
      auto a = base;
      a.insert(a.end(), {"--format", format});
      return a;
    };
    const auto md = run_cli(args("md"));
    REQUIRE_MESSAGE(md.code == cli::kOk, md.err);
    const std::string id = quote_id_in(md.out);
    REQUIRE(!id.empty());
    CHECK(md.out.rfind("# Training quote " + id, 0) == 0);
    CHECK(contains(md.out, "| Customer | Acme AI Lab |"));
    CHECK(contains(md.out, "| Valid until | 2026-07-31 |"));  // 2026-07-01 + 30 days
    CHECK(contains(md.out, "| Total before tax (P50) |  |  | " + total + " |  |"));
    CHECK(contains(md.out, "| VAT 6% |"));  // the seed vendor's catalog states China's 6% VAT
    CHECK(contains(md.out, "Llama 3 8B"));
    CHECK(contains(md.out, "64 x H800"));

    const auto html = run_cli(args("html"));
    REQUIRE_MESSAGE(html.code == cli::kOk, html.err);
    CHECK(html.out.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(quote_id_in(html.out) == id);  // the format does not change the quote
    CHECK(contains(html.out, "<td>2026-07-31</td>"));
    CHECK(contains(html.out, "<td class=\"num\" align=\"right\">" + total + "</td>"));

    // Same inputs, same quote, byte for byte; the default format is md.
    CHECK(run_cli(args("md")).out == md.out);
    CHECK(run_cli(args("html")).out == html.out);
    CHECK(run_cli(base).out == md.out);
    // Another customer or another date is another quote.
    CHECK(quote_id_in(run_cli({"quote", kQuickstart, "--customer", "Other", "--date", "2026-07-01"}).out) != id);
    CHECK(quote_id_in(run_cli({"quote", kQuickstart, "--customer", "Acme AI Lab", "--date", "2026-07-02"}).out) != id);
    // Without --date the quote is dated today: still a valid quote.
    const auto today = run_cli({"quote", kQuickstart});
    CHECK(today.code == cli::kOk);
    CHECK(contains(today.out, "| Valid until | 20"));
  }

  TEST_CASE("quote: a scenario's claimed figures appear with the verdicts simulate prints") {
    // The seed vendor's 70B claim (1.2T tokens per day on 64 H800), priced under its catalog.
    TempDir tmp;
    const auto file = tmp.path / "claim.yaml";
    std::ofstream(file) << read_file(scenario_file("seed-claims/70b-64xh800-zero3.yaml"))
                        << "\npricing: {catalog: seed-vendor}\n";
    const auto sim = run_cli({"simulate", file.string()});
    REQUIRE_MESSAGE(sim.code == cli::kOk, sim.err);
    const auto q = run_cli({"quote", file.string(), "--date", "2026-07-01"});
    REQUIRE_MESSAGE(q.code == cli::kOk, q.err);
    REQUIRE(contains(q.out, "## Claimed vs simulated"));
    CHECK(contains(q.out, "- tokens_per_day: claimed 1.2e+12, simulated "));
    // The same verdict as simulate's "Claims vs simulation" line.
    const auto verdict = sim.out.find("impossible: ");
    REQUIRE(verdict != std::string::npos);
    CHECK(contains(q.out, sim.out.substr(verdict, sim.out.find('\n', verdict) - verdict)));
  }

  TEST_CASE("quote -o: writes the file, an existing file is never overwritten without --force") {
    TempDir tmp;
    const auto file = tmp.path / "quote.md";
    const std::vector<std::string> base{"quote", kQuickstart, "--date", "2026-07-01", "-o", file.string()};
    const auto first = run_cli(base);
    REQUIRE_MESSAGE(first.code == cli::kOk, first.err);
    const std::string written = read_file(file);
    CHECK(written.rfind("# Training quote Q-", 0) == 0);
    CHECK(contains(first.out, "wrote " + file.string() + ": quote " + quote_id_in(written)));

    // An existing file: exit 4, a message naming --force, the file untouched, no stray temp file.
    const std::string before = "# someone's notes: must survive\n";
    std::ofstream(file, std::ios::trunc) << before;
    auto html = base;
    html.insert(html.end(), {"--format", "html"});
    const auto refused = run_cli(html);
    CHECK(refused.code == cli::kIoError);
    CHECK(contains(refused.err, "flopcast quote: error: " + file.string() + " already exists; pass --force"));
    CHECK(read_file(file) == before);
    CHECK(std::distance(std::filesystem::directory_iterator(tmp.path), std::filesystem::directory_iterator{}) == 1);

    html.push_back("--force");
    const auto forced = run_cli(html);
    CHECK_MESSAGE(forced.code == cli::kOk, forced.err);
    CHECK(read_file(file).rfind("<!DOCTYPE html>", 0) == 0);
  }

  TEST_CASE("quote: the customer's requirements, met or missed (exit 5 unless --allow-miss)") {
    const std::vector<std::string> base{"quote", kQuickstart, "--customer", "Acme AI Lab", "--date", "2026-07-01"};
    auto with = [&](std::vector<std::string> extra) {
      auto a = base;
      a.insert(a.end(), extra.begin(), extra.end());
      return run_cli(a);
    };
    const auto met = with({"--deadline", "400d", "--budget", "1亿 CNY"});
    REQUIRE_MESSAGE(met.code == cli::kOk, met.err);
    CHECK(contains(met.out, "| Deadline | 400.0 days |"));
    CHECK(contains(met.out, "| Budget (before tax) | 100,000,000.00 CNY |"));
    CHECK_FALSE(contains(met.out, "does not meet"));
    CHECK_FALSE(contains(met.out, "seed-vendor"));  // no catalog key in a customer's quote
    CHECK_FALSE(contains(met.out, "SEED"));
    const auto missed = with({"--deadline", "1h"});
    CHECK(missed.code == cli::kInfeasible);
    CHECK(contains(missed.out, "This plan does not meet every requirement. Deadline: asked 1.0 h"));
    CHECK(contains(missed.err, "--allow-miss"));
    CHECK(with({"--deadline", "1h", "--allow-miss"}).code == cli::kOk);
    // Units required.
    const auto bare = with({"--deadline", "45"});
    CHECK(bare.code == cli::kUsage);
    CHECK(contains(bare.err, "--deadline: '45' has no unit"));
    const auto wan = with({"--budget", "500万"});
    CHECK(wan.code == cli::kUsage);
    CHECK(contains(wan.err, "--budget: '500万' has no currency"));
    // How Chinese sales teams write a budget: RMB, 元 and ¥ are CNY, read as the ISO code is.
    for (const char* written : {"1亿 RMB", "1亿元", "¥100M"}) {
      CAPTURE(written);
      const auto r = with({"--deadline", "400d", "--budget", written});
      REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
      CHECK(r.out == met.out);
    }
    const auto word = with({"--budget", "5M kuai"});
    CHECK(word.code == cli::kUsage);
    CHECK(contains(word.err, "--budget: '5M kuai' names no currency flopcast reads"));
  }

  TEST_CASE("quote: a plan no modelled framework runs says so, in both languages") {
    // DeepSeek-V3's DualPipe schedule is its own framework's: Megatron-core, DeepSpeed and
    // torchtitan have no such schedule. "Runs on: none" read as if nothing could run it.
    const std::string f = scenario_file("published/deepseek-v3-2048xh800.yaml");
    const auto en = run_cli({"quote", f, "--date", "2026-12-01"});
    REQUIRE_MESSAGE(en.code == cli::kOk, en.err);
    CHECK(contains(en.out,
                   "- Runs on: none of Megatron-core, DeepSpeed, torchtitan (FSDP2) runs this parallel plan as "
                   "stated; the estimate assumes a framework that runs it as simulated (the customer's own)."));
    CHECK_FALSE(contains(en.out, "Runs on: none\n"));
    const auto zh = run_cli({"quote", f, "--date", "2026-12-01", "--lang", "zh-CN"});
    REQUIRE_MESSAGE(zh.code == cli::kOk, zh.err);
    CHECK(contains(zh.out, "- 训练框架：Megatron-core、DeepSpeed、torchtitan (FSDP2) 均不能按所述方式运行该并行方案"));
  }

  TEST_CASE("quote --plan best: plans and quotes in one step") {
    const auto r = run_cli({"quote", scenario_file("plan-72b-2t-h800.yaml"), "--plan", "best", "--deadline", "45d",
                            "--gpu", "H800", "--gpus-max", "2048", "--date", "2026-12-01", "--customer", "Acme AI"});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    CHECK(contains(r.out, "| Deadline | 45.0 days |"));
    CHECK(contains(r.out, "| yes |"));
    CHECK(contains(r.out, "Runs on: "));
    CHECK_FALSE(contains(r.out, "512 x H800 (64 nodes"));  // not the scenario's starting plan
    // The customer's budget cannot buy it: no plan, exit 5 with what would.
    const auto poor = run_cli({"quote", scenario_file("plan-72b-2t-h800.yaml"), "--plan", "best", "--deadline", "45d",
                               "--budget", "5M CNY", "--gpu", "H800", "--gpus-max", "2048", "--date", "2026-12-01"});
    CHECK(poor.code == cli::kInfeasible);
    CHECK(contains(poor.err, "what would make one work: a budget of "));
    // --allow-miss quotes the closest plan, saying what it misses, with exit 0 (it was ignored).
    const auto miss =
        run_cli({"quote", scenario_file("plan-72b-2t-h800.yaml"), "--plan", "best", "--deadline", "45d", "--budget",
                 "5M CNY", "--gpu", "H800", "--gpus-max", "2048", "--date", "2026-12-01", "--allow-miss"});
    CHECK(miss.code == cli::kOk);
    CHECK(contains(miss.out, "This plan does not meet every requirement. Deadline: asked 45.0 days"));
    CHECK(contains(miss.out, "| **Budget (before tax)** | **5,000,000.00 CNY** |"));
    CHECK(contains(miss.err, "quoting the closest"));
    CHECK(contains(miss.err, "what would make one work: a budget of "));
    // The same budget in RMB: the same search (never "no price plan" and a budget of 0.00 USD).
    const auto rmb = run_cli({"quote", scenario_file("plan-72b-2t-h800.yaml"), "--plan", "best", "--deadline", "45d",
                              "--budget", "5M RMB", "--gpu", "H800", "--gpus-max", "2048", "--date", "2026-12-01"});
    CHECK(rmb == poor);
  }

  TEST_CASE("quote: the requirement's P90 with the model band is the band column's slow end, the fast end shown") {
    // Once the requirements row said "82.7 days at P90, model uncertainty included" while the
    // duration table's P90 was 75.6 days and the bill's P90 column equalled its P50: one name
    // for two figures, and the band's low end nowhere.
    const auto r = run_cli({"quote", scenario_file("plan-72b-2t-h800.yaml"), "--date", "2026-01-10", "--deadline",
                            "90d", "--budget", "20M CNY", "--allow-miss"});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    CHECK_FALSE(contains(r.out, "model uncertainty included"));
    std::smatch m;
    REQUIRE(std::regex_search(
        r.out, m,
        std::regex(
            R"(\| Deadline \| 90\.0 days \| ([0-9.]+ days) at P90, slow end of the model band \(x([0-9.]+)\) \|)")));
    const std::string days = m[1].str(), factor = m[2].str();
    REQUIRE(
        std::regex_search(r.out, m,
                          std::regex(R"(\| Calendar time \| [^|]+ \| ([0-9.]+) days \([^|]+\) \| ([0-9.]+) days to )" +
                                     std::regex_replace(days, std::regex(R"(\.)"), R"(\.)") + R"( \|)")));
    // The fast end is below the P90 of the point prediction, the slow end above it.
    CHECK(std::stod(m[2].str()) < std::stod(m[1].str()));
    CHECK(std::stod(days) > std::stod(m[1].str()));
    CHECK(contains(r.out, "|  | P50 | P90 | Model band at P90 |"));
    CHECK(contains(r.out, "fast and slow ends of the model's 80% interval (x"));
    CHECK(contains(r.out, " and x" + factor + ")."));
    // The budget's figure is the bill's band column, named as such.
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(gives ([0-9,.]+) CNY at P90, slow end of the model band)")));
    const std::string total = m[1].str();
    CHECK(contains(r.out, "|  | P50 (CNY) | P90 (CNY) | Model band at P90 (CNY) |"));
    REQUIRE(std::regex_search(r.out, m,
                              std::regex(R"(\| Total before tax \| [0-9,.]+ \| [0-9,.]+ \| ([0-9,.]+) to )" +
                                         std::regex_replace(total, std::regex(R"(\.)"), R"(\.)") + " \\|")));
    CHECK(contains(r.out, "Over the model band at P90: " + m[1].str() + " CNY to " + total + " CNY."));
  }

  TEST_CASE(
      "the shipped MoE, LoRA, QLoRA, NVFP4 and long-context scenarios: simulated, planned, quoted, the band "
      "naming its regime") {
    const std::pair<const char*, const char*> shipped[] = {
        {"low-precision/llama3-70b-nvfp4-64xb200.yaml", "blackwell, dense, full training, 4-bit GEMMs, Megatron-core"},
        {"long-context/gpt-oss-120b-32k-256xh100.yaml", "hopper, MoE, full training, 16-bit GEMMs, Megatron-core"},
        {"published/deepseek-v3-2048xh800.yaml", "hopper, MoE, full training, 8-bit GEMMs"},
        {"finetune-llama2-70b-lora.yaml", "hopper, dense, fine-tuning, 16-bit GEMMs, Megatron-core"},
        {"finetune-llama2-70b-qlora.yaml", "hopper, dense, fine-tuning, 16-bit GEMMs, Megatron-core"}};
    for (const auto& entry : shipped) {
      const char* name = entry.first;  // not a structured binding: clang 14 cannot capture one (CAPTURE)
      const char* regime = entry.second;
      CAPTURE(name);
      const auto sim = run_cli({"simulate", "--json", scenario_file(name)});
      REQUIRE_MESSAGE(sim.code == cli::kOk, sim.err);
      const json band = json::parse(sim.out)["prediction_band"];
      CHECK(band["known"].get<bool>());
      CHECK(band["p10_factor"].get<double>() < 1.0);
      CHECK(band["p90_factor"].get<double>() > 1.0);
      CHECK(contains(band["basis"].get<std::string>(), regime));
      const auto plan = run_cli({"plan", scenario_file(name)});
      REQUIRE_MESSAGE(plan.code == cli::kOk, plan.err);
      CHECK(std::regex_search(plan.out, std::regex(R"(Top [0-9]+ plans by expected GPU-hours:)")));
      CHECK(contains(plan.out, "Cheapest plan meeting the deadline and budget"));
      const auto q = run_cli({"quote", scenario_file(name), "--date", "2026-01-10"});
      REQUIRE_MESSAGE(q.code == cli::kOk, q.err);
      CHECK(contains(q.out, std::string("cross-validated on ") + regime));
    }
  }

  TEST_CASE("simulate and quote: the plan a quote recommends is the one simulate's bills name for it") {
    for (const char* name : {"quickstart.yaml", "plan-72b-2t-h800.yaml", "plan-70b-1t.yaml",
                             "finetune-llama2-70b-lora.yaml", "finetune-llama2-70b-qlora.yaml"}) {
      CAPTURE(name);
      const auto sim = run_cli({"simulate", scenario_file(name)});
      REQUIRE_MESSAGE(sim.code == cli::kOk, sim.err);
      const auto q = run_cli({"quote", scenario_file(name), "--date", "2026-01-10"});
      REQUIRE_MESSAGE(q.code == cli::kOk, q.err);
      std::smatch m;
      // simulate: the provider's own cheapest plan, on its own line when a competitor's is cheaper.
      std::string own;
      if (std::regex_search(
              sim.out, m,
              std::regex(
                  R"(cheapest of the provider's own plans \(what its quote recommends\): (.*): [0-9,.]+ [A-Z]{3} at P50)")))
        own = m[1].str();
      else if (std::regex_search(sim.out, m, std::regex(R"(\* cheapest: (.*): [0-9,.]+ [A-Z]{3} at P50)")))
        own = m[1].str();
      REQUIRE_FALSE(own.empty());
      CHECK(contains(q.out, "## Recommended plan\n\n" + own + ": "));
      // The quote's comparison marks the same plan recommended, when it lists others.
      if (contains(q.out, "## Other plans")) CHECK(contains(q.out, "| **" + own + " (recommended)** |"));
    }
  }

  TEST_CASE("quote --plan best over several GPU types: each other type's cheapest simulated plan, as plan finds it") {
    // Once the quote listed the winning type's plans only: the customer's preferred H800 was nowhere.
    const std::vector<std::string> search{
        scenario_file("plan-70b-1t.yaml"), "--gpu", "A100-80G,H800,B200", "--gpus-max", "1024", "--deadline", "60d"};
    std::vector<std::string> quote{"quote", "--plan", "best", "--date", "2026-01-10"};
    quote.insert(quote.end(), search.begin(), search.end());
    const auto q = run_cli(quote);
    REQUIRE_MESSAGE(q.code == cli::kOk, q.err);
    std::vector<std::string> plan{"plan", "--json"};
    plan.insert(plan.end(), search.begin(), search.end());
    const auto p = run_cli(plan);
    REQUIRE_MESSAGE(p.code == cli::kOk, p.err);
    const json doc = json::parse(p.out);
    const std::string chosen = doc["chosen"]["gpu"];
    CHECK(contains(q.out, "## Other GPU types considered"));
    int rows = 0;
    for (const char* gpu : {"A100-80G", "H800", "B200"}) {
      if (gpu == chosen) continue;
      // The type's cheapest simulated plan that meets, as `plan --json` lists it.
      const json* best = nullptr;
      for (const auto& x : doc["resimulated"])
        if (x["gpu"] == gpu && x["meets_deadline"].get<bool>() && x["meets_budget"].get<bool>() &&
            (!best || x["cost"].get<double>() < (*best)["cost"].get<double>()))
          best = &x;
      REQUIRE(best);
      CAPTURE(gpu);
      char days[32];
      std::snprintf(days, sizeof days, "%.1f days", (*best)["days"].get<double>());
      CHECK(contains(q.out, "| " + std::string(gpu) + " | " + std::to_string((*best)["gpus"].get<long long>()) + " x " +
                                gpu + ", " + (*best)["plan"].get<std::string>() + ", "));
      CHECK(contains(q.out, " | " + std::string(days) + " | "));
      ++rows;
    }
    CHECK(rows == 2);
    CHECK(contains(q.out, "| yes |"));
  }

  TEST_CASE("quote: the model named and its shape stated, a mixture of experts with its experts") {
    TempDir tmp;
    std::string text = read_file(kQuickstart);
    // An inline model without a name (the scenario calls it "custom").
    std::string custom = text;
    custom.replace(custom.find("model: llama3-8b"), 16,
                   "model:\n  layers: 32\n  hidden: 4096\n  heads: 32\n  kv_heads: 8\n  ffn: 14336\n  ffn_kind: "
                   "swiglu\n  vocab: 128256\n  seq_len: 8192");
    const auto custom_file = tmp.path / "custom.yaml";
    std::ofstream(custom_file) << custom;
    const auto c = run_cli({"quote", custom_file.string(), "--date", "2026-01-10"});
    REQUIRE_MESSAGE(c.code == cli::kOk, c.err);
    CHECK(contains(c.out, "- Model: custom model (8.03 B parameters)\n"));
    CHECK(contains(c.out,
                   "- Shape: 32 layers, hidden size 4096, 32 attention heads (8 key/value), sequence 8192 "
                   "tokens\n"));
    // Mixtral 8x7B (data/models.yaml): 8 experts, 2 per token; 46.70 B parameters and 12.88 B active as
    // workload's parameter_count gives them (arXiv 2401.04088 states 47B and 13B).
    std::string moe = text;
    moe.replace(moe.find("model: llama3-8b"), 16, "model: mixtral-8x7b");
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"  tp: 2\n", "  tp: 8\n"},
                                                          {"  dp: 32\n", "  dp: 8\n"},
                                                          {"  ep: 1\n", "  ep: 8\n"},
                                                          {"  recompute: selective\n", "  recompute: full\n"}})
      moe.replace(moe.find(from), from.size(), to);
    const auto moe_file = tmp.path / "moe.yaml";
    std::ofstream(moe_file) << moe;
    const auto m = run_cli({"quote", moe_file.string(), "--date", "2026-01-10"});
    REQUIRE_MESSAGE(m.code == cli::kOk, m.err);
    CHECK(contains(m.out, "- Model: Mixtral 8x7B (46.70 B parameters)\n"));
    CHECK(contains(m.out, "; mixture of experts: 8 experts, 2 per token, 12.88 B parameters active per token\n"));
    const auto zh = run_cli({"quote", moe_file.string(), "--date", "2026-01-10", "--lang", "zh-CN"});
    REQUIRE_MESSAGE(zh.code == cli::kOk, zh.err);
    CHECK(contains(zh.out, "；混合专家：8 个专家，每词元使用 2 个，每词元激活 12.88 B 参数"));
  }

  TEST_CASE("quote: usage and input errors") {
    // PDF never goes to the terminal.
    const auto pdf_stdout = run_cli({"quote", kQuickstart, "--format", "pdf", "--date", "2026-07-01"});
    CHECK(pdf_stdout.code == cli::kUsage);
    CHECK(pdf_stdout.out.empty());
    CHECK(run_cli({"quote", kQuickstart, "--format", "docx"}).code == cli::kUsage);
    const auto bad_date = run_cli({"quote", kQuickstart, "--date", "2026-02-30"});
    CHECK(bad_date.code == cli::kUsage);
    CHECK(contains(bad_date.err, "--date '2026-02-30' is not a calendar date"));
    // No pricing: block: nothing to quote.
    const auto unpriced =
        run_cli({"quote", scenario_file("published/llama3-8b-1024xh100.yaml"), "--date", "2026-07-01"});
    CHECK(unpriced.code == cli::kBadInput);
    CHECK(unpriced.out.empty());
    CHECK(contains(unpriced.err, "no pricing: block"));
    // A plan that does not fit memory is not quoted.
    const auto infeasible =
        run_cli({"quote", scenario_file("seed-claims/65b-8xa100-tp1pp8-zero3.yaml"), "--date", "2026-07-01"});
    CHECK(infeasible.code == cli::kInfeasible);
    CHECK(contains(infeasible.err, "does not fit"));
  }

  TEST_CASE("quote --format pdf: an A4 PDF that pdfinfo opens, or a clear 'no PDF support' in builds without Qt") {
    TempDir tmp;
    const auto file = tmp.path / "quote.pdf";
    const auto r = run_cli({"quote", kQuickstart, "--date", "2026-07-01", "--customer", "Acme AI Lab", "--format",
                            "pdf", "-o", file.string()});
#if FLOPCAST_TEST_HAS_PDF
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    CHECK(r.err.empty());  // Qt's platform chatter is not printed
    const std::string pdf = read_file(file);
    CHECK(pdf.rfind("%PDF", 0) == 0);
    CHECK(contains(r.out, "wrote " + file.string()));
    const int pages = pdfinfo_pages(file.string());
    if (pages < 0) {
      MESSAGE("pdfinfo (poppler-utils) is not installed: page count not checked");
    } else {
      CHECK(pages >= 1);
    }
    // Again without --force: refused, the PDF untouched.
    const auto again = run_cli({"quote", kQuickstart, "--date", "2026-07-01", "--format", "pdf", "-o", file.string()});
    CHECK(again.code == cli::kIoError);
    CHECK(read_file(file) == pdf);
#else
    CHECK(r.code == cli::kUsage);
    CHECK(contains(r.err, "this build has no PDF support"));
    CHECK(!std::filesystem::exists(file));
#endif
  }

  TEST_CASE(
      "quote --lang zh-CN: the quote in Chinese, the same bytes twice, --lang fr refused with the accepted values") {
    const std::vector<std::string> base{"quote",       scenario_file("plan-72b-2t-h800.yaml"),
                                        "--customer",  "Acme AI",
                                        "--date",      "2026-12-01",
                                        "--deadline",  "45d",
                                        "--budget",    "5M CNY",
                                        "--allow-miss"};
    auto with = [&](std::vector<std::string> extra) {
      auto a = base;
      a.insert(a.end(), extra.begin(), extra.end());
      return run_cli(a);
    };
    const auto zh = with({"--lang", "zh-CN"});
    REQUIRE_MESSAGE(zh.code == cli::kOk, zh.err);
    const std::string id = quote_id_in(zh.out);
    CHECK(contains(zh.out, "# 训练报价单 " + id));
    CHECK(contains(zh.out, "| 服务商 | 星宇智算 |"));  // the seed vendor's Chinese name from its price list
    CHECK(contains(zh.out, "| 日期 | 2026年12月1日 |"));
    CHECK(contains(zh.out, "| 增值税 6% |  |  | ¥"));
    CHECK(contains(zh.out, "本方案未满足全部要求。截止日期：要求 45.0 天，本方案为 "));
    CHECK(contains(zh.out, "预算（税前）：要求 ¥5,000,000.00，本方案为 ¥"));
    CHECK(contains(zh.out, "| 盖章 |  |  |"));
    CHECK_FALSE(contains(zh.out, "Training quote"));
    CHECK(with({"--lang", "zh-CN"}).out == zh.out);
    CHECK(with({"--lang", "zh_CN"}).out == zh.out);
    const auto en = with({});
    CHECK(quote_id_in(en.out) == id);  // the same offer in either language
    CHECK(with({"--lang", "en"}).out == en.out);
    const auto html = with({"--lang", "zh-CN", "--format", "html"});
    CHECK(contains(html.out, "<html lang=\"zh-CN\">"));
    CHECK(with({"--lang", "zh-CN", "--format", "html"}).out == html.out);

    const auto fr = with({"--lang", "fr"});
    CHECK(fr.code == cli::kUsage);
    CHECK(contains(fr.err, "--lang: 'fr' is not a quote language: use en or zh-CN (did you mean en?)"));
    CHECK(fr.out.empty());
    const auto zh_only = with({"--lang", "zh"});
    CHECK(contains(zh_only.err, "(did you mean zh-CN?)"));
  }

#if FLOPCAST_TEST_HAS_PDF
  TEST_CASE("quote --format pdf --lang zh-CN: a CJK font embedded, two runs give the same bytes") {
    TempDir tmp;
    auto pdf_of = [&](const std::string& name, const std::string& lang) {
      const auto file = tmp.path / name;
      const auto r = run_cli({"quote", kQuickstart, "--date", "2026-07-01", "--customer", "Acme AI Lab", "--lang", lang,
                              "--format", "pdf", "-o", file.string()});
      REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
      return read_file(file);
    };
    const std::string a = pdf_of("a.pdf", "zh-CN");
    CHECK(a.rfind("%PDF", 0) == 0);
    CHECK(a == pdf_of("b.pdf", "zh-CN"));
    CHECK(contains(a, "/CreationDate (D:20260701000000Z)"));  // the issue date, not the clock
    CHECK((contains(a, "WenQuanYi") || contains(a, "NotoSansCJK")));
    const std::string en = pdf_of("en.pdf", "en");
    CHECK(en == pdf_of("en2.pdf", "en"));
    CHECK(en != a);
  }

  TEST_CASE("quote --format pdf --lang zh-CN without a CJK font: an error naming the Debian package, no file") {
    // A separate process whose fontconfig sees no font at all (an empty configuration).
    TempDir tmp;
    const auto conf = tmp.path / "fonts.conf";
    {
      std::ofstream f(conf);
      f << "<?xml version=\"1.0\"?>\n<fontconfig></fontconfig>\n";
    }
    const auto file = tmp.path / "quote.pdf";
    const auto log = tmp.path / "err.txt";
    const std::string cmd = "FONTCONFIG_FILE='" + conf.string() +
                            "' QT_QPA_PLATFORM=offscreen '" FLOPCAST_CLI_PATH "' quote '" + kQuickstart +
                            "' --date 2026-07-01 --lang zh-CN --format pdf -o '" + file.string() + "' 2> '" +
                            log.string() + "'";
    CHECK(std::system(cmd.c_str()) != 0);
    const std::string err = read_file(log);
    CHECK_MESSAGE(contains(err,
                           "a Chinese quote needs a CJK font (WenQuanYi Micro Hei or Noto Sans CJK SC) and none "
                           "is installed: install the Debian package fonts-wqy-microhei"),
                  err);
    CHECK_FALSE(std::filesystem::exists(file));
  }
#endif

  TEST_CASE("quote of a LoRA job: method, rank, targets and the model-FLOPs convention, in English and Chinese") {
    const std::string file = scenario_file("finetune-llama2-70b-lora.yaml");
    const auto en = run_cli({"quote", file, "--date", "2026-12-01"});
    REQUIRE_MESSAGE(en.code == 0, en.err);
    CHECK(contains(en.out, ", LoRA rank 16"));
    CHECK(contains(en.out,
                   "Fine-tuning: LoRA rank 16 on qkv, proj (44.6M adapter parameters), frozen bf16 base weights, "
                   "dropout 0.1 on the adapters' inputs;"));
    CHECK(contains(en.out, "4 FLOPs per parameter per token, not 6"));
    // The checkpoint holds the adapters' state: 44,564,480 x 14 B = 0.6 GB, 14 B per trained parameter.
    CHECK(contains(en.out, "0.6 GB each (14 B per parameter"));
    const auto zh = run_cli({"quote", file, "--date", "2026-12-01", "--lang", "zh-CN"});
    REQUIRE_MESSAGE(zh.code == 0, zh.err);
    CHECK(contains(zh.out, "微调：LoRA，秩 16，适配器位于 qkv, proj"));
    CHECK(contains(zh.out, "基座权重冻结（bf16），适配器输入的 dropout 为 0.1；"));
    CHECK_FALSE(contains(zh.out, "Fine-tuning:"));
  }

  TEST_CASE("quote on a compilation of public prices: no issuer unless --issuer names one") {
    // public-cloud lists other providers' prices (issues_quotes: false): the list is nobody's offer to sign.
    const std::string file = scenario_file("finetune-llama2-70b-lora.yaml");
    const auto none = run_cli({"quote", file, "--date", "2026-12-01"});
    REQUIRE_MESSAGE(none.code == 0, none.err);
    CHECK(contains(none.out, "| Issued by | - |"));
    CHECK(contains(none.out, "For the provider"));
    // The prices are still said to be that list's.
    CHECK(contains(none.out, "- Prices: the price list of Public GPU clouds ("));
    const auto named = run_cli({"quote", file, "--date", "2026-12-01", "--issuer", "Example Compute Ltd"});
    REQUIRE_MESSAGE(named.code == 0, named.err);
    CHECK(contains(named.out, "| Issued by | Example Compute Ltd |"));
    CHECK(contains(named.out, "For Example Compute Ltd"));
    // The issuer is part of what is quoted: another issuer, another quote id.
    CHECK(none.out.substr(0, 40) != named.out.substr(0, 40));
  }
}

// The conventions every command shares (docs/cli.md): help and did-you-mean, -j/--jobs,
// -o/--out with --json/--csv switches and the former spellings, one message prefix, one exit
// code per cause (a folder or a missing file is 4), unit strings, the load warnings, `init`,
// `catalog prices|--json`, and the man page and completions generated from the command line.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "cli_context.hpp"
#include "cli_reference.hpp"
#include "cli_runner.hpp"
#include "flopcast/io/price_catalog_io.hpp"

using namespace flopcast;
using nlohmann::json;

namespace {

using test::contains;
using test::read_file;
using test::run_cli;
using test::scenario_file;
using test::TempDir;

void spit(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

const std::string kFleet = scenario_file("fleets/provider-month.yaml");

/// A small scenario with `cluster` and `extra` filled in (64 H800 unless `cluster` says otherwise).
std::string small_scenario(const std::string& cluster, const std::string& extra = "training: {tokens: 1B}\n") {
  return "name: conventions\nmodel: llama3-8b\ncluster:\n" + cluster +
         "parallel: {tp: 1, pp: 1, dp: 64, zero: 3, micro_batch: 1, global_batch: 512, recompute: full}\nprecision: bf16\n" +
         extra;
}
const std::string kCluster64 = "  gpu: H800\n  gpus: 64\n";

}  // namespace

TEST_CASE("help and init are commands and never 'A subcommand is required'") {
  const auto help = run_cli({"help"});
  CHECK_MESSAGE(help.code == cli::kOk, help.err);
  CHECK(!contains(help.out + help.err, "A subcommand is required"));
  for (const char* c : {"init", "simulate", "plan", "sweep", "fleet", "catalog", "check", "help"})
    CHECK_MESSAGE(contains(help.out, std::string("  ") + c + " "), c);
  CHECK(!contains(help.out, "reference"));  // the hidden generator is not advertised

  const auto one = run_cli({"help", "simulate"});
  CHECK(one.code == cli::kOk);
  CHECK(one.out == run_cli({"simulate", "--help"}).out);
  CHECK(contains(one.out, "--trace"));

  const auto init = run_cli({"init"});
  CHECK_MESSAGE(init.code == cli::kOk, init.err);
  CHECK(contains(init.out, "cluster:"));

  const auto none = run_cli({});
  CHECK(none.code == cli::kUsage);
  CHECK(contains(none.err, "flopcast: error: no command given"));
}

TEST_CASE("a mistyped command or flag: did you mean and exit 2") {
  const auto cmd = run_cli({"simulat", "x.yaml"});
  CHECK(cmd.code == cli::kUsage);
  CHECK_MESSAGE(contains(cmd.err, "flopcast: error: unknown command 'simulat' (did you mean 'simulate'?)"), cmd.err);
  CHECK(!contains(cmd.err, "A subcommand is required"));

  const auto far = run_cli({"frobnicate"});
  CHECK(far.code == cli::kUsage);
  CHECK_MESSAGE(contains(far.err, "unknown command 'frobnicate' (the commands: init, simulate"), far.err);

  const auto flag = run_cli({"simulate", scenario_file("quickstart.yaml"), "--jsn"});
  CHECK(flag.code == cli::kUsage);
  CHECK_MESSAGE(contains(flag.err, "flopcast simulate: error: unknown flag '--jsn' (did you mean '--json'?)"),
                flag.err);

  const auto help = run_cli({"help", "simulat"});
  CHECK(help.code == cli::kUsage);
  CHECK(contains(help.err, "unknown command 'simulat' (did you mean 'simulate'?)"));
}

TEST_CASE("-j and --jobs on every threaded command: --threads kept one release with a warning") {
  const auto a = run_cli({"fleet", kFleet, "--seeds", "2", "--json", "--no-what-if", "-j", "2"});
  REQUIRE_MESSAGE(a.code == cli::kOk, a.err);
  const auto b = run_cli({"fleet", kFleet, "--seeds", "2", "--json", "--no-what-if", "--jobs", "1"});
  CHECK(a.out == b.out);
  CHECK(!contains(a.err, "deprecated"));
  const auto old = run_cli({"fleet", kFleet, "--seeds", "2", "--json", "--no-what-if", "--threads", "2"});
  CHECK(old.out == a.out);
  CHECK_MESSAGE(contains(old.err, "flopcast fleet: warning: '--threads' is deprecated: write '-j, --jobs'"), old.err);
  // plan and sweep take the long spelling too (they had -j only as '-j,--threads').
  CHECK(contains(run_cli({"help", "plan"}).out, "-j,--jobs"));
  CHECK(contains(run_cli({"help", "sweep"}).out, "-j,--jobs"));
  CHECK(!contains(run_cli({"help", "fleet"}).out, "--threads"));  // hidden: not suggested to new users
}

TEST_CASE("-o and --out for every primary output: --csv and --json are format switches") {
  TempDir t;
  const std::string q = scenario_file("quickstart.yaml");
  // quote and check had -o,--output: -o and --out now, --output warns.
  const auto quote = run_cli({"quote", q, "--date", "2026-01-05", "--out", (t.path / "q.md").string()});
  CHECK_MESSAGE(quote.code == cli::kOk, quote.err);
  CHECK(contains(read_file(t.path / "q.md"), "quote"));
  const auto old = run_cli({"quote", q, "--date", "2026-01-05", "--output", (t.path / "q2.md").string()});
  CHECK(old.code == cli::kOk);
  CHECK(contains(old.err, "flopcast quote: warning: '--output' is deprecated: write '-o, --out'"));
  CHECK(read_file(t.path / "q2.md") == read_file(t.path / "q.md"));

  // plan --csv prints the CSV (to -o when given) instead of the report.
  const auto csv = run_cli({"plan", q, "--gpus-max", "16", "--csv"});
  CHECK_MESSAGE(csv.code == cli::kOk, csv.err);
  CHECK(csv.out.rfind("gpu,gpus,plan,step_time_s", 0) == 0);
  const auto to_file = run_cli({"plan", q, "--gpus-max", "16", "--csv", "-o", (t.path / "p.csv").string()});
  CHECK(to_file.code == cli::kOk);
  CHECK(read_file(t.path / "p.csv") == csv.out);
  // The former '--csv FILE' is refused with the new spelling, not read as a second scenario.
  const auto former = run_cli({"plan", q, "--gpus-max", "16", "--csv", (t.path / "x.csv").string()});
  CHECK(former.code == cli::kUsage);
  CHECK_MESSAGE(contains(former.err, "--csv now picks the format; write '--csv -o "), former.err);
  CHECK(!std::filesystem::exists(t.path / "x.csv"));
  CHECK(run_cli({"plan", q, "--csv", "--json"}).code == cli::kUsage);

  // simulate -o writes the report; an existing file needs --force and is left untouched.
  const auto path = (t.path / "report.txt").string();
  REQUIRE(run_cli({"simulate", q, "-o", path}).code == cli::kOk);
  const std::string first = read_file(path);
  CHECK(contains(first, "MFU"));
  spit(path, "mine");
  const auto again = run_cli({"simulate", q, "-o", path});
  CHECK(again.code == cli::kIoError);
  CHECK(contains(again.err, "flopcast simulate: error: " + path + " already exists; pass --force"));
  CHECK(read_file(path) == "mine");
  CHECK(run_cli({"simulate", q, "-o", path, "--force"}).code == cli::kOk);
  CHECK(read_file(path) == first);
}

TEST_CASE("one message prefix: flopcast CMD: error:") {
  const auto plan = run_cli({"plan", scenario_file("quickstart.yaml"), "--deadline", "soon"});
  CHECK(plan.code == cli::kUsage);
  CHECK_MESSAGE(plan.err.rfind("flopcast plan: error: --deadline: 'soon'", 0) == 0, plan.err);
  const auto fleet = run_cli({"fleet", kFleet, "--horizon", "soon"});
  CHECK(fleet.err.rfind("flopcast fleet: error: --horizon 'soon'", 0) == 0);
  const auto sweep = run_cli({"sweep", "s.yml", "-o", "x.csv", "--shard", "3/2"});
  CHECK(sweep.err.rfind("flopcast sweep: error: --shard '3/2'", 0) == 0);
  const auto quote = run_cli({"quote", scenario_file("quickstart.yaml"), "--date", "soon"});
  CHECK(quote.err.rfind("flopcast quote: error: --date 'soon'", 0) == 0);
}

TEST_CASE("a folder given as input or a missing file is exit 4 on every command") {
  TempDir t;
  const std::string dir = t.path.string();
  const std::string missing = (t.path / "none.yaml").string();
  const std::vector<std::vector<std::string>> commands = {
      {"simulate"}, {"plan"},     {"quote"},  {"fleet"},
      {"check"},    {"validate"}, {"import"}, {"sweep", "-o", dir + "/o.csv"}};
  for (const auto& base : commands) {
    for (const auto& input : {dir, missing}) {
      auto args = base;
      args.insert(args.begin() + 1, input);
      const auto r = run_cli(args);
      CAPTURE(base.front());
      CAPTURE(input);
      CHECK_MESSAGE(r.code == cli::kIoError, r.err);
      CHECK(contains(r.err, input + ": error: "));
    }
  }
}

TEST_CASE("-o naming a folder: exit 4 and 'it is a folder' with or without --force") {
  TempDir t;
  const std::string dir = t.path.string();
  const std::string q = scenario_file("quickstart.yaml");
  for (const auto& args : std::vector<std::vector<std::string>>{{"simulate", q, "-o", dir},
                                                                {"simulate", q, "-o", dir, "--force"},
                                                                {"init", "-o", dir, "--force"},
                                                                {"catalog", "gpus", "-o", dir}}) {
    const auto r = run_cli(args);
    CAPTURE(args.front());
    CHECK(r.code == cli::kIoError);
    CHECK_MESSAGE(contains(r.err, "cannot write " + dir + ": it is a folder; name a file inside it"), r.err);
    CHECK(!contains(r.err, "already exists"));
  }
  CHECK(std::filesystem::is_directory(t.path));
}

TEST_CASE("unit strings: nic_gbps \"400 Gbps\" is 400 and a wrong kind names the kind expected") {
  TempDir t;
  auto with_nic = [&](const std::string& nic) {
    const auto p = t.path / ("nic-" + std::to_string(std::hash<std::string>{}(nic)) + ".yaml");
    spit(p, small_scenario(kCluster64 + "  fabric: {preset: hgx-h800-roce200, nic_gbps: " + nic + "}\n"));
    return run_cli({"simulate", "--estimate", p.string()});
  };
  for (const std::string nic : {"400", "400 Gbps", "\"50 GB/s\""}) {  // 50 GB/s = 400 Gb/s
    CAPTURE(nic);
    const auto r = with_nic(nic);
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    CHECK(contains(r.out, "custom: 8 x 400 Gb/s roce"));
  }
  CHECK(contains(with_nic("200").out, "custom: 8 x 200 Gb/s roce"));  // the value is the one used

  const auto wrong = with_nic("400 GiB");
  CHECK(wrong.code == cli::kBadInput);
  CHECK_MESSAGE(contains(wrong.err, "error: cluster.fabric.nic_gbps: expected a bandwidth: 400 Gbps, 50 GB/s"),
                wrong.err);

  // The catalogs take them too (--data-dir): hbm_gib "80 GiB" is 80.
  const auto data = t.path / "data";
  std::filesystem::copy(test::data(""), data, std::filesystem::copy_options::recursive);
  std::string gpus = read_file(data / "gpus.yaml");
  const auto at = gpus.find("hbm_gib: 80.0\n");
  REQUIRE(at != std::string::npos);
  gpus.replace(at, 14, "hbm_gib: 80 GiB\n");
  spit(data / "gpus.yaml", gpus);
  const auto cat = run_cli({"--data-dir", data.string(), "catalog", "gpus", "--json"});
  REQUIRE_MESSAGE(cat.code == cli::kOk, cat.err);
  CHECK(cat.out == run_cli({"catalog", "gpus", "--json"}).out);
}

TEST_CASE("warnings: GPUs not a multiple of gpus_per_node and no training.tokens") {
  TempDir t;
  const auto odd = t.path / "odd.yaml";
  spit(
      odd,
      "name: odd\nmodel: llama3-8b\ncluster:\n  gpu: H800\n  gpus: 60\n  gpus_per_node: 8\n"
      "parallel: {tp: 1, pp: 1, dp: 60, zero: 3, micro_batch: 1, global_batch: 480, recompute: full}\nprecision: bf16\n"
      "training: {tokens: 1B}\n");
  const auto r = run_cli({"simulate", "--estimate", odd.string()});
  CHECK_MESSAGE(r.code == cli::kOk, r.err);
  CHECK_MESSAGE(contains(r.err, "odd.yaml:5:9: warning: cluster.gpus: 60 GPUs are not a multiple of gpus_per_node 8"),
                r.err);
  CHECK(contains(r.err, "use whole nodes, e.g. gpus: 56 or 64"));

  const auto whole = t.path / "whole.yaml";
  spit(whole, small_scenario(kCluster64));
  CHECK(run_cli({"simulate", "--estimate", whole.string()}).err.empty());

  const auto no_tokens = t.path / "no-tokens.yaml";
  spit(no_tokens, small_scenario(kCluster64, ""));
  const auto n = run_cli({"simulate", "--estimate", no_tokens.string()});
  CHECK(n.code == cli::kOk);
  CHECK_MESSAGE(contains(n.err,
                         "flopcast simulate: warning: no whole-run figures (days, GPU-hours, bills): set "
                         "training.tokens"),
                n.err);
}

TEST_CASE("init writes a commented scenario that loads and simulates and never overwrites without --force") {
  TempDir t;
  const auto path = (t.path / "first.yaml").string();
  const auto w = run_cli({"init", "--gpu", "H800", "--model", "llama3-70b", "--gpus", "128", "-o", path});
  REQUIRE_MESSAGE(w.code == cli::kOk, w.err);
  CHECK(contains(w.out, "next: flopcast simulate " + path));
  const std::string text = read_file(path);
  CHECK(contains(text, "model: llama3-70b"));
  CHECK(contains(text, "gpus: 128"));
  CHECK(contains(text, "# tensor parallel"));  // commented key by key
  const auto sim = run_cli({"simulate", "--estimate", path});
  CHECK_MESSAGE(sim.code == cli::kOk, sim.err);
  CHECK(sim.err.empty());  // no warning: whole nodes, tokens set
  CHECK(contains(sim.out, ": fits"));
  CHECK(contains(sim.out, "128 x H800"));

  spit(path, "mine");
  const auto again = run_cli({"init", "-o", path});
  CHECK(again.code == cli::kIoError);
  CHECK(read_file(path) == "mine");
  CHECK(run_cli({"init", "-o", path, "--force"}).code == cli::kOk);
  CHECK(read_file(path) != "mine");

  const auto typo = run_cli({"init", "--gpu", "H800x"});
  CHECK(typo.code == cli::kUsage);
  CHECK_MESSAGE(contains(typo.err, "flopcast init: error: --gpu: unknown GPU 'H800x' (did you mean 'H800'?"), typo.err);
  // Another part number is not "meant": H80 is not the H800 (nor H20 the H200), and the message
  // says how to add a GPU instead.
  const auto other = run_cli({"init", "--gpu", "H80"});
  CHECK(other.code == cli::kUsage);
  CHECK_FALSE(contains(other.err, "did you mean"));
  CHECK_MESSAGE(contains(other.err, "--data-dir"), other.err);
}

TEST_CASE("catalog: prices and --json for every catalog") {
  const auto prices = run_cli({"catalog", "prices"});
  REQUIRE_MESSAGE(prices.code == cli::kOk, prices.err);
  CHECK(contains(prices.out, "seed-vendor/h800-daily"));
  CHECK(contains(prices.out, "680.00 CNY gpu-day"));
  const auto pj = json::parse(run_cli({"catalog", "prices", "--json"}).out);
  REQUIRE(pj.is_array());
  REQUIRE(!pj.empty());
  for (const auto& e : pj)
    for (const char* k : {"catalog", "plan", "kind", "price", "currency", "per", "source"})
      CHECK_MESSAGE(e.contains(k), k);
  // Each plan's kind as its catalog records it (once offers read "claim" and an assumption "list").
  for (const char* name : {"seed-vendor", "public-cloud"}) {
    scenario::Diagnostics d;
    const auto cat = io::load_price_catalog(name, "", d);
    REQUIRE_MESSAGE(cat, d.str());
    for (const pricing::Plan& p : cat->plans) {
      CAPTURE(p.id);
      const auto e =
          std::find_if(pj.begin(), pj.end(), [&](const json& x) { return x["catalog"] == name && x["plan"] == p.id; });
      REQUIRE(e != pj.end());
      CHECK((*e)["kind"] == to_string(p.kind));
      CHECK((*e)["claimed"] == p.claim);
    }
  }
  CHECK(std::regex_search(prices.out, std::regex("\npublic-cloud/deepseek-h800-assumption +assumption ")));
  CHECK(std::regex_search(prices.out, std::regex("\nseed-vendor/h800-daily +offer, claimed ")));
  for (const char* what : {"gpus", "fabrics", "models"}) {
    const auto r = run_cli({"catalog", what, "--json"});
    REQUIRE_MESSAGE(r.code == cli::kOk, r.err);
    const auto doc = json::parse(r.out);
    CHECK(doc.is_array());
    CHECK(!doc.empty());
  }
}

TEST_CASE("the man page and the completions list every command and flag the program accepts") {
  std::ostringstream out, err;
  cli::CliContext ctx(out, err);
  const auto app = cli::make_cli_app(ctx);
  REQUIRE(ctx.catalog());
  const cli::CompletionNames names{ctx.catalog()->gpu_names(), ctx.catalog()->model_names()};
  const std::string man = cli::man_page(*app), bash = cli::bash_completion(*app, names),
                    zsh = cli::zsh_completion(*app, names);
  CHECK(man.rfind(".\\\"", 0) == 0);
  CHECK(contains(man, ".TH FLOPCAST 1"));
  CHECK(contains(zsh, "#compdef flopcast"));
  std::size_t flags = 0;
  for (const CLI::App* cmd : cli::visible_commands(*app)) {
    CAPTURE(cmd->get_name());
    CHECK(contains(man, cmd->get_name()));
    CHECK(contains(bash, cmd->get_name()));
    CHECK(contains(zsh, cmd->get_name()));
    for (const auto& a : cli::arguments_of(*cmd))
      for (const auto& s : a.spellings) {
        ++flags;
        CAPTURE(s);
        CHECK(contains(bash, s));
        CHECK(contains(zsh, s));
        std::string roff;  // the man page escapes dashes
        for (char c : s) roff += c == '-' ? std::string("\\-") : std::string(1, c);
        CHECK(contains(man, roff));
      }
  }
  CHECK(flags > 50);
  CHECK(!contains(bash, "--threads"));  // former spellings are not completed
  // `flopcast reference` prints them (the build runs it); it is hidden from the help.
  CHECK(run_cli({"reference", "man"}).out == man);
  CHECK(run_cli({"reference", "bash"}).out == bash);
  CHECK(run_cli({"reference", "zsh"}).out == zsh);
  CHECK(contains(zsh, "_sequence compadd - A100-40G"));  // plan --gpu: a list of the catalog's GPUs
}

namespace {

/// What bash's completion offers for the words `line` (the last one being completed) with the
/// script `script` loaded, in the folder `dir`: COMPREPLY, one per line, then "files" when the
/// completion falls back to file names (complete -o default), as bash would.
std::string complete_in_bash(const std::string& script, const std::filesystem::path& dir, const std::string& line) {
  const auto file = dir / "flopcast.bash";
  std::ofstream(file) << script;
  const std::string cmd = "cd '" + dir.string() + "' && bash -c 'source ./flopcast.bash; COMP_WORDS=(" + line +
                          "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); [[ \"" + line +
                          "\" == *\" \" ]] && { COMP_WORDS+=(\"\"); COMP_CWORD=$((COMP_CWORD + 1)); }; _flopcast; "
                          "printf \"%s\\n\" \"${COMPREPLY[@]}\"; complete -p flopcast' 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  pclose(pipe);
  return out;
}

}  // namespace

TEST_CASE("bash completion: GPU names for --gpu, languages for --lang, never file names for them") {
  const std::string bash = run_cli({"reference", "bash"}).out;
  TempDir t;
  spit(t.path / "H100-notes.txt", "a file whose name a GPU prefix matches");
  spit(t.path / "zh-draft.yaml", "a file whose name a language prefix matches");
  // Bash falls back to file names when a completion offers nothing, unless told not to.
  const std::string plan = complete_in_bash(bash, t.path, "flopcast plan s.yaml --gpu H1");
  CHECK(contains(plan, "H100\n"));
  CHECK_FALSE(contains(plan, "H100-notes.txt"));
  CHECK_FALSE(contains(plan, "-o default"));
  // A list: the last name after the comma.
  CHECK(contains(complete_in_bash(bash, t.path, "flopcast plan s.yaml --gpu A100-80G,H8"), "A100-80G,H800\n"));
  CHECK(contains(complete_in_bash(bash, t.path, "flopcast init --gpu B2"), "B200\n"));
  CHECK(contains(complete_in_bash(bash, t.path, "flopcast init --model llama3-8"), "llama3-8b\n"));
  const std::string lang = complete_in_bash(bash, t.path, "flopcast quote s.yaml --lang z");
  CHECK(contains(lang, "zh-CN\n"));
  CHECK_FALSE(contains(lang, "zh-draft.yaml"));
  // A count offers nothing, not file names; a scenario still completes file names.
  CHECK_FALSE(contains(complete_in_bash(bash, t.path, "flopcast init --gpus H"), "H100-notes.txt"));
  CHECK(contains(complete_in_bash(bash, t.path, "flopcast simulate zh"), "zh-draft.yaml\n"));
}

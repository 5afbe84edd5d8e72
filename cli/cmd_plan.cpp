// flopcast plan: search every plan of a job for the cheapest one meeting a deadline and budget.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <thread>

#include "cli_context.hpp"
#include "flopcast/app/evaluation.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/units_parse.hpp"
#include "flopcast/search/planner.hpp"
#include "flopcast/units/format.hpp"
#include "plan_support.hpp"

namespace flopcast::cli {
namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

nlohmann::ordered_json candidate_json(const search::PlanCandidate& c) {
  nlohmann::ordered_json j;
  j["gpu"] = c.gpu;
  j["gpus"] = c.gpus;
  j["plan"] = search::plan_label(c.plan);
  j["tp"] = c.plan.tp;
  j["pp"] = c.plan.pp;
  j["dp"] = c.plan.dp;
  j["cp"] = c.plan.cp;
  j["ep"] = c.plan.ep;
  j["vpp"] = c.plan.vpp;
  j["micro_batch"] = c.plan.micro_batch;
  j["sequence_parallel"] = c.plan.sequence_parallel;
  j["zero"] = c.plan.zero;
  j["recompute"] = to_string(c.plan.recompute);
  j["schedule"] = to_string(c.plan.schedule);
  j["step_time_s"] = c.step.seconds();
  j["mfu"] = c.mfu;
  j["memory_gib"] = c.memory.value / 1073741824.0;
  j["wall_days"] = c.wall.days();
  j["gpu_hours"] = c.gpu_hours;
  return j;
}

nlohmann::ordered_json priced_json(const search::PricedPlan& p) {
  auto j = candidate_json(p.candidate);
  j["catalog"] = p.catalog;
  j["price_option"] = p.price_option;
  j["cost"] = p.cost.major();
  j["currency"] = p.cost.currency.str();
  j["meets_deadline"] = p.meets_deadline;
  j["meets_budget"] = p.meets_budget;
  return j;
}

std::string row_text(const search::PricedPlan& p) {
  const auto& c = p.candidate;
  return fmt::format("{:>9.1f} d  {:>16}  {:>5} x {:<9} {:<46} {:>7.3f} s  MFU {:>4.1f}%  {}/{}", c.wall.days(),
                     p.cost.str(), c.gpus, c.gpu, search::plan_label(c.plan), c.step.seconds(), 100 * c.mfu, p.catalog,
                     p.price_option);
}

}  // namespace

void register_plan(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::string scenario, profile, deadline, budget, gpus, catalogs, currency, csv;
    std::int64_t gpus_max = 0, gpus_min = 1;
    int top = 10;
    int threads = 0;
    bool json = false, force = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("plan",
                                 "Search every plan of a job: the time/cost Pareto front and the cheapest plan "
                                 "meeting a deadline and budget");
  cmd->add_option("scenario", o->scenario, "Scenario YAML (model, global batch, training tokens, reliability, pricing)")
      ->required();
  cmd->add_option("--deadline", o->deadline, "Longest wall time of the whole run, e.g. 30d");
  cmd->add_option("--budget", o->budget, "Largest bill, e.g. '2.5M USD' or 1500000 (in --currency)");
  cmd->add_option("--gpus-max", o->gpus_max, "Most GPUs (default: the scenario's cluster.gpus)");
  cmd->add_option("--gpus-min", o->gpus_min, "Fewest GPUs (default 1)");
  cmd->add_option("--gpu", o->gpus, "GPU types to compare, e.g. A100-80G,H800,B200 (default: the scenario's)");
  cmd->add_option("--catalog", o->catalogs,
                  "Price catalogs, comma-separated (default: the scenario's pricing.catalog and every shipped one)");
  cmd->add_option("--currency", o->currency, "Currency of every cost (default: the first catalog's)");
  cmd->add_option("--top", o->top, "Plans in the top list (default 10)")->check(CLI::Range(0, 1000));
  cmd->add_option("-j,--threads", o->threads, "Worker threads (default: all cores; results do not depend on it)")
      ->check(CLI::Range(0, 256));
  cmd->add_option("--csv", o->csv, "Also write each GPU count's fastest plan, priced, to this CSV");
  cmd->add_flag("--force", o->force, "Overwrite the --csv file");
  cmd->add_flag("--json", o->json, "Print the result as one JSON document");
  cmd->add_option("--profile", o->profile, "Calibration profile (file or name) instead of the scenario's");
  cmd->callback([&ctx, o] {
    auto loaded = load_scenario_for_command(ctx, o->scenario, o->profile);
    if (!loaded) return;
    const Scenario& s = loaded->scenario;
    const io::Catalog* cat = ctx.catalog();
    if (!cat) return;
    search::PlanSpace space;
    space.gpus_max = o->gpus_max;
    space.gpus_min = o->gpus_min;
    std::string why;
    if (!plan_clusters(*cat, s, split_list(o->gpus), space.clusters, why)) {
      ctx.err << "error: --gpu: " << why << "\n";
      ctx.exit_code = kUsage;
      return;
    }
    search::PlannerOptions opt;
    opt.top_k = o->top;
    opt.threads = o->threads > 0 ? o->threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    opt.currency = !o->currency.empty() ? o->currency : s.has_pricing ? s.pricing.currency : std::string();
    if (!o->deadline.empty()) {
      const auto d = io::parse_duration(o->deadline);
      if (!d || d->ns <= 0) {
        ctx.err << "error: --deadline '" << o->deadline << "' is not a duration (e.g. 30d, 720h)\n";
        ctx.exit_code = kUsage;
        return;
      }
      opt.deadline = *d;
    }
    // Catalogs.
    std::vector<std::string> names = split_list(o->catalogs);
    if (names.empty()) {
      // The scenario's catalog first (its currency is the default), then every shipped one.
      if (s.has_pricing && !s.pricing.catalog.empty()) names.push_back(s.pricing.catalog);
      for (const auto& n : io::price_catalog_names())
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    for (const auto& n : names) {
      Diagnostics d;
      auto pc = io::load_price_catalog(n, ctx.data_dir, d);
      if (!pc) {
        ctx.err << d.str();
        ctx.exit_code = kBadInput;
        return;
      }
      opt.catalogs.push_back(std::make_shared<const PriceCatalog>(std::move(*pc)));
    }
    if (!o->budget.empty()) {
      const auto b =
          parse_budget(o->budget, o->currency, opt.catalogs.empty() ? "USD" : opt.catalogs.front()->currency.str());
      if (!b) {
        ctx.err << "error: --budget '" << o->budget << "' is not an amount (e.g. '2.5M USD', 1500000)\n";
        ctx.exit_code = kUsage;
        return;
      }
      opt.budget = *b;
      if (o->currency.empty()) opt.currency = b->currency.str();
    }
    const auto search = search::search_plans(s, loaded->profile, space, opt);
    if (!search.ok()) {
      for (const auto& e : search.errors) ctx.err << "error: " << e << "\n";
      ctx.exit_code = kBadInput;
      return;
    }
    const auto& r = search.result;
    const double total_s = r.seconds + r.resimulate_seconds;
    const double rate = total_s > 0 ? static_cast<double>(r.estimated) / total_s : 0;
    if (!o->csv.empty()) {
      std::string text =
          "gpu,gpus,plan,step_time_s,mfu,memory_gib,wall_days,gpu_hours,catalog,price_option,cost,currency,"
          "meets_deadline,meets_budget,pareto\n";
      for (const auto& p : r.fastest_per_count) {
        const bool on_front = std::any_of(r.pareto.begin(), r.pareto.end(), [&](const search::PricedPlan& f) {
          return f.candidate.index == p.candidate.index && f.price_option == p.price_option && f.catalog == p.catalog;
        });
        const auto& c = p.candidate;
        text +=
            fmt::format("{},{},{},{:.6f},{:.4f},{:.2f},{:.3f},{:.1f},{},{},{:.2f},{},{},{},{}\n", c.gpu, c.gpus,
                        search::plan_label(c.plan), c.step.seconds(), c.mfu, c.memory.value / 1073741824.0,
                        c.wall.days(), c.gpu_hours, p.catalog, p.price_option, p.cost.major(), p.cost.currency.str(),
                        p.meets_deadline ? "yes" : "no", p.meets_budget ? "yes" : "no", on_front ? "yes" : "no");
      }
      std::string err;
      if (!io::write_file_atomically(o->csv, text, o->force, err)) {
        ctx.err << "error: " << err << "\n";
        ctx.exit_code = kIoError;
        return;
      }
    }
    if (o->json) {
      nlohmann::ordered_json j;
      j["scenario"] = s.name;
      j["enumerated"] = r.enumerated;
      j["evaluated"] = r.estimated;
      j["seconds"] = total_s;
      j["plans_per_s"] = rate;
      j["threads"] = opt.threads;
      auto& pr = j["pruned"] = nlohmann::ordered_json::array();
      for (const auto& p : r.pruned) pr.push_back({{"reason", p.reason}, {"count", p.count}, {"unit", p.unit}});
      j["currency"] = r.currency;
      auto& top = j["top"] = nlohmann::ordered_json::array();
      for (const auto& c : r.top) top.push_back(candidate_json(c));
      auto& front = j["pareto"] = nlohmann::ordered_json::array();
      for (const auto& p : r.pareto) front.push_back(priced_json(p));
      j["best"] = r.best ? priced_json(*r.best) : nlohmann::ordered_json();
      j["runner_up"] = r.runner_up ? priced_json(*r.runner_up) : nlohmann::ordered_json();
      j["why_runner_up_lost"] = r.why_runner_up_lost;
      auto& rs = j["resimulated"] = nlohmann::ordered_json::array();
      for (const auto& x : r.resimulated) {
        nlohmann::ordered_json e = priced_json(x.plan);
        e["method"] = x.step.method;
        e["step_time_s"] = x.step.step.seconds();
        if (x.run_ok) {
          e["days_p50"] = x.wall_p50.days();
          e["days_p90"] = x.wall_p90.days();
          e["cost_p50"] = x.cost_p50.major();
          e["cost_p90"] = x.cost_p90.major();
          e["p90_meets_deadline"] = x.p90_meets_deadline;
        }
        e["errors"] = x.errors;
        rs.push_back(e);
      }
      j["infeasible"] = r.infeasible;
      j["notes"] = r.notes;
      ctx.out << j.dump(2) << "\n";
    } else {
      auto& out = ctx.out;
      out << "Plan search: " << s.name << "\n";
      out << fmt::format("  {} tokens, global batch {} x {} tokens; deadline {}; budget {}\n",
                         format_count(s.training.tokens), s.plan.global_batch, s.model.seq_len,
                         opt.deadline ? format_duration(*opt.deadline) : "none",
                         opt.budget ? opt.budget->str() : "none");
      std::string gpus;
      for (const auto& c : space.clusters) gpus += (gpus.empty() ? "" : ", ") + c.gpu.name + " (" + c.fabric.name + ")";
      out << "  GPU types: " << gpus << "; up to " << (o->gpus_max > 0 ? o->gpus_max : s.cluster.gpus) << " GPUs\n";
      out << "Pruned:\n";
      for (const auto& p : r.pruned) out << fmt::format("  {:>12} {}: {}\n", p.count, p.unit, p.reason);
      out << fmt::format(
          "Evaluated {} plans in {:.2f} s ({:.0f} plans/s, {} threads; {} plans enumerated, re-simulation "
          "included)\n",
          r.estimated, total_s, rate, opt.threads, r.enumerated);
      if (!r.top.empty()) {
        out << fmt::format("Top {} plans by expected GPU-hours:\n", r.top.size());
        for (const auto& c : r.top)
          out << fmt::format(
              "  {:>5} x {:<9} {:<46} step {:>7.3f} s  MFU {:>4.1f}%  {:>5.1f} GiB  {:>7.1f} days  {:>10.0f} "
              "GPU-h\n",
              c.gpus, c.gpu, search::plan_label(c.plan), c.step.seconds(), 100 * c.mfu, c.memory.value / 1073741824.0,
              c.wall.days(), c.gpu_hours);
      }
      if (!r.pareto.empty()) {
        out << "Time/cost Pareto front (expected wall time, bill at the expected span, " << r.currency << "):\n";
        for (const auto& p : r.pareto) out << "  " << row_text(p) << "\n";
      }
      if (r.best) {
        out << "Cheapest plan meeting the deadline and budget:\n  " << row_text(*r.best) << "\n";
        if (!r.why_runner_up_lost.empty()) out << "  Why not the runner-up: " << r.why_runner_up_lost << "\n";
      } else {
        out << "No plan meets the deadline and budget.\n";
      }
      for (const auto& x : r.resimulated) {
        out << fmt::format("Re-simulated ({}): {} x {} {} under {}: step {:.3f} s", x.step.method,
                           x.plan.candidate.gpus, x.plan.candidate.gpu, search::plan_label(x.plan.candidate.plan),
                           x.plan.price_option, x.step.step.seconds());
        if (x.run_ok)
          out << fmt::format(", {:.1f} / {:.1f} days P50/P90, {} / {} P50/P90{}", x.wall_p50.days(), x.wall_p90.days(),
                             x.cost_p50.str(), x.cost_p90.str(),
                             x.p90_meets_deadline ? "" : " (P90 misses the deadline)");
        for (const auto& e : x.errors) out << "; " << e;
        out << "\n";
        for (const auto& d : x.step.details) out << "    " << d << "\n";
      }
      if (!r.infeasible.empty()) {
        out << "Infeasible choices:\n";
        for (const auto& i : r.infeasible) out << "  " << i << "\n";
      }
      for (const auto& n : r.notes) out << "Note: " << n << "\n";
    }
    if (!r.best) ctx.exit_code = kInfeasible;
  });
}

}  // namespace flopcast::cli

#include "flopcast/app/plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "flopcast/units/format.hpp"

namespace flopcast::app {
namespace {

using J = nlohmann::ordered_json;

J candidate_json(const search::PlanCandidate& c) {
  J j;
  j["gpu"] = c.gpu;
  j["gpus"] = c.gpus;
  j["plan"] = parallel::plan_label(c.plan);
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
  j["precision"] = to_string(c.precision);
  j["frameworks"] = c.frameworks.str();
  j["wall_days"] = c.wall.days();
  j["gpu_hours"] = c.gpu_hours;
  return j;
}

J priced_json(const search::PricedPlan& p) {
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
                     p.cost.str(), c.gpus, c.gpu, parallel::plan_label(c.plan), c.step.seconds(), 100 * c.mfu,
                     p.catalog, p.price_option);
}

/// Wall time of the search, re-simulation included, and plans estimated per second.
double search_seconds(const search::PlanResult& r) { return r.seconds + r.resimulate_seconds; }
double plans_per_second(const search::PlanResult& r) {
  const double total_s = search_seconds(r);
  return total_s > 0 ? static_cast<double>(r.estimated) / total_s : 0;
}

void print_header(const PlanReport& rep, std::ostream& out) {
  const scenario::Scenario& s = *rep.scenario;
  const search::PlannerOptions& opt = *rep.options;
  const search::PlanResult& r = *rep.result;
  out << "Plan search: " << s.name << "\n";
  out << fmt::format("  {} tokens, global batch {} x {} tokens; deadline {}; budget {}\n",
                     units::format_count(s.training.tokens), s.plan.global_batch, s.model.seq_len,
                     opt.deadline ? units::format_duration(*opt.deadline) : "none",
                     opt.budget ? opt.budget->str() : "none");
  std::string gpus;
  for (const auto& c : rep.space->clusters)
    gpus += (gpus.empty() ? "" : ", ") + c.gpu.name + " (" + c.fabric.name + ")";
  out << "  GPU types: " << gpus << "; up to " << (rep.space->gpus_max > 0 ? rep.space->gpus_max : s.cluster.gpus)
      << " GPUs\n";
  out << "Pruned:\n";
  for (const auto& p : r.pruned) out << fmt::format("  {:>12} {}: {}\n", p.count, p.unit, p.reason);
  out << fmt::format(
      "Evaluated {} plans in {:.2f} s ({:.0f} plans/s, {} threads; {} plans enumerated, re-simulation "
      "included)\n",
      r.estimated, search_seconds(r), plans_per_second(r), opt.threads, r.enumerated);
}

void print_ranked(const search::PlanResult& r, std::ostream& out) {
  if (!r.top.empty()) {
    out << fmt::format("Top {} plans by expected GPU-hours:\n", r.top.size());
    for (const auto& c : r.top)
      out << fmt::format(
          "  {:>5} x {:<9} {:<46} step {:>7.3f} s  MFU {:>4.1f}%  {:>5.1f} GiB  {:>7.1f} days  {:>10.0f} "
          "GPU-h\n",
          c.gpus, c.gpu, parallel::plan_label(c.plan), c.step.seconds(), 100 * c.mfu, c.memory.value / 1073741824.0,
          c.wall.days(), c.gpu_hours);
  }
  if (!r.pareto.empty()) {
    out << "Time/cost Pareto front (expected wall time, bill at the expected span, " << r.currency << "):\n";
    for (const auto& p : r.pareto) out << "  " << row_text(p) << "\n";
  }
}

const char* objective_words(const search::PlannerOptions& o) {
  switch (o.objective) {
    case search::Objective::Fastest:
      return "Fastest plan within the budget";
    case search::Objective::MostTokens:
      return "Plan that trains the most tokens for the budget";
    case search::Objective::Cheapest:
      break;
  }
  return "Cheapest plan meeting the deadline and budget";
}

/// One simulated plan: its figures at P50 and P90 and the constraint it misses.
std::string simulated_line(const search::PlannerOptions& o, const search::Resimulated& x) {
  const auto& c = x.plan.candidate;
  std::string line =
      fmt::format("{} x {} {}{} under {}/{}: step {:.3f} s; {:.1f} / {:.1f} days, {} / {} P50/P90", c.gpus, c.gpu,
                  parallel::plan_label(c.plan),
                  c.precision == hardware::Precision::BF16 ? "" : std::string(" ") + to_string(c.precision),
                  x.plan.catalog, x.plan.price_option, x.step.step.seconds(), x.wall_p50.days(), x.wall_p90.days(),
                  x.cost_p50.str(), x.cost_p90.str());
  if (x.spot) line += " (spot: its interruptions simulated)";
  if (x.band_factor != 1)
    line += fmt::format("; with the step at the band's x{:.2f}: {:.1f} days, {} at {}", x.band_factor, x.wall.days(),
                        x.cost.str(), to_string(o.confidence));
  if (o.objective == search::Objective::MostTokens) line += fmt::format("; {} tokens", units::format_count(x.tokens));
  if (!x.meets_deadline) line += fmt::format("; misses the deadline at {}", to_string(o.confidence));
  if (!x.meets_budget) line += fmt::format("; over the budget at {}", to_string(o.confidence));
  return line;
}

void print_chosen(const search::PlannerOptions& o, const search::PlanResult& r, std::ostream& out) {
  const char* pct = to_string(o.confidence);
  if (r.chosen) {
    const auto& x = *r.chosen;
    out << objective_words(o) << " (simulated " << search::confidence_words(o.confidence, x.band, x.arch)
        << (o.model_uncertainty > 0 ? fmt::format(", stretched by a further {:.0f}%", 100 * o.model_uncertainty)
                                    : std::string())
        << "):\n  " << simulated_line(o, x) << "\n";
    if (x.band_ends)
      out << fmt::format(
          "  Model band (step at the band's fast and slow ends, x{:.2f} and x{:.2f}; failures at P50): {:.1f} to "
          "{:.1f} days{}\n",
          x.band.p10, x.band.p90, x.band_wall_p10.days(), x.band_wall_p90.days(),
          x.band_cost_p90.minor > 0 ? ", " + x.band_cost_p10.str() + " to " + x.band_cost_p90.str() : std::string());
    out << "  Runs on: " << x.plan.candidate.frameworks.str() << "\n";
    for (const auto& d : x.step.details) out << "  " << d << "\n";
    if (!r.why_runner_up_lost.empty()) out << "  Why not the runner-up: " << r.why_runner_up_lost << "\n";
    return;
  }
  out << "No plan meets the deadline and budget in simulation (" << pct << ", " << r.resimulated.size()
      << " candidates simulated in " << r.rounds << (r.rounds == 1 ? " round" : " rounds") << ").\n";
  if (!r.closest.empty()) {
    out << "Closest plans:\n";
    for (const auto& x : r.closest)
      out << "  " << simulated_line(o, x) << "; runs on " << x.plan.candidate.frameworks.str() << "\n";
  }
  if (!r.remedies.empty()) {
    out << "What would make one work:\n";
    for (const auto& m : r.remedies) out << "  " << m << "\n";
  }
}

void print_checked(const PlanReport& rep, std::ostream& out) {
  const search::PlanResult& r = *rep.result;
  print_chosen(*rep.options, r, out);
  if (!r.resimulated.empty()) {
    const std::size_t shown = std::min<std::size_t>(r.resimulated.size(), 10);
    out << fmt::format("Simulated candidates ({} of {} shown; {}, whole-run Monte Carlo):\n", shown,
                       r.resimulated.size(), r.resimulated.front().step.method);
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& x = r.resimulated[i];
      if (!x.run_ok) {
        std::string why;
        for (const auto& e : x.errors) why += (why.empty() ? "" : "; ") + e;
        out << "  " << x.plan.candidate.gpus << " x " << x.plan.candidate.gpu << " "
            << parallel::plan_label(x.plan.candidate.plan) << ": not simulated: " << why << "\n";
        continue;
      }
      out << "  " << simulated_line(*rep.options, x) << "\n";
    }
  }
  if (!r.infeasible.empty()) {
    out << "Infeasible choices:\n";
    for (const auto& i : r.infeasible) out << "  " << i << "\n";
  }
  for (const auto& n : r.notes) out << "Note: " << n << "\n";
}

J simulated_json(const search::Resimulated& x) {
  J e = priced_json(x.plan);
  e["method"] = x.step.method;
  e["step_time_s"] = x.step.step.seconds();
  if (x.run_ok) {
    e["days_p50"] = x.wall_p50.days();
    e["days_p90"] = x.wall_p90.days();
    e["cost_p50"] = x.cost_p50.major();
    e["cost_p90"] = x.cost_p90.major();
    e["days"] = x.wall.days();
    e["band_factor"] = x.band_factor;
    if (x.band.known)
      e["band"] = {{"generation", to_string(x.arch)},
                   {"p10", x.band.p10},
                   {"p50", x.band.p50},
                   {"p90", x.band.p90},
                   {"basis", x.band.basis}};
    if (x.band_ends) {
      e["band_days"] = {{"p10", x.band_wall_p10.days()}, {"p90", x.band_wall_p90.days()}};
      if (x.band_cost_p90.minor > 0)
        e["band_cost"] = {{"p10", x.band_cost_p10.major()}, {"p90", x.band_cost_p90.major()}};
    }
    e["spot"] = x.spot;
    e["tokens"] = x.tokens;
    e["p90_meets_deadline"] = x.p90_meets_deadline;
  }
  e["errors"] = x.errors;
  return e;
}

J resimulated_json(const search::PlanResult& r) {
  J rs = J::array();
  for (const auto& x : r.resimulated) rs.push_back(simulated_json(x));
  return rs;
}

}  // namespace

void print_plan_text(const PlanReport& r, std::ostream& out) {
  print_header(r, out);
  print_ranked(*r.result, out);
  print_checked(r, out);
}

J plan_to_json(const PlanReport& rep) {
  const search::PlanResult& r = *rep.result;
  J j;
  j["scenario"] = rep.scenario->name;
  j["enumerated"] = r.enumerated;
  j["evaluated"] = r.estimated;
  j["seconds"] = search_seconds(r);
  j["plans_per_s"] = plans_per_second(r);
  j["threads"] = rep.options->threads;
  auto& pr = j["pruned"] = J::array();
  for (const auto& p : r.pruned) pr.push_back({{"reason", p.reason}, {"count", p.count}, {"unit", p.unit}});
  j["currency"] = r.currency;
  auto& top = j["top"] = J::array();
  for (const auto& c : r.top) top.push_back(candidate_json(c));
  auto& front = j["pareto"] = J::array();
  for (const auto& p : r.pareto) front.push_back(priced_json(p));
  j["best"] = r.best ? priced_json(*r.best) : J();
  j["runner_up"] = r.runner_up ? priced_json(*r.runner_up) : J();
  j["why_runner_up_lost"] = r.why_runner_up_lost;
  j["confidence"] = to_string(rep.options->confidence);
  j["chosen"] = r.chosen ? simulated_json(*r.chosen) : J();
  j["resimulated"] = resimulated_json(r);
  auto& closest = j["closest"] = J::array();
  for (const auto& x : r.closest) closest.push_back(simulated_json(x));
  j["remedies"] = r.remedies;
  j["infeasible"] = r.infeasible;
  j["notes"] = r.notes;
  return j;
}

std::string plan_csv(const search::PlanResult& r) {
  std::string text =
      "gpu,gpus,plan,step_time_s,mfu,memory_gib,wall_days,gpu_hours,catalog,price_option,cost,currency,"
      "meets_deadline,meets_budget,pareto\n";
  for (const auto& p : r.fastest_per_count) {
    const bool on_front = std::any_of(r.pareto.begin(), r.pareto.end(), [&](const search::PricedPlan& f) {
      return f.candidate.index == p.candidate.index && f.price_option == p.price_option && f.catalog == p.catalog;
    });
    const auto& c = p.candidate;
    text += fmt::format("{},{},{},{:.6f},{:.4f},{:.2f},{:.3f},{:.1f},{},{},{:.2f},{},{},{},{}\n", c.gpu, c.gpus,
                        parallel::plan_label(c.plan), c.step.seconds(), c.mfu, c.memory.value / 1073741824.0,
                        c.wall.days(), c.gpu_hours, p.catalog, p.price_option, p.cost.major(), p.cost.currency.str(),
                        p.meets_deadline ? "yes" : "no", p.meets_budget ? "yes" : "no", on_front ? "yes" : "no");
  }
  return text;
}

}  // namespace flopcast::app

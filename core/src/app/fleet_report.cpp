#include "flopcast/app/fleet_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "flopcast/units/format.hpp"

namespace flopcast::app {
namespace {

using fleet::Percentiles;

double hours(Time t) { return std::round(t.hours() * 1000.0) / 1000.0; }

nlohmann::ordered_json pj(const Percentiles& p) {
  return {{"p50_h", hours(p.p50)}, {"p90_h", hours(p.p90)}, {"mean_h", hours(p.mean)}, {"count", p.count}};
}

nlohmann::ordered_json money_json(const Money& m) {
  return {{"amount", m.amount_str()}, {"currency", m.currency.str()}, {"minor", m.minor}};
}

std::string money_list(const std::vector<Money>& v) {
  std::string s;
  for (const auto& m : v) s += (s.empty() ? "" : " + ") + m.str();
  return s.empty() ? "0" : s;
}

std::string policy_str(const fleet::Policy& p) {
  return fmt::format("{}, backfill {}, gang {}, preemption {}", to_string(p.order), to_string(p.backfill),
                     p.gang ? "on" : "off", p.preemption ? "on" : "off");
}

nlohmann::ordered_json summary_json(const fleet::FleetSummary& s) {
  nlohmann::ordered_json j;
  j["jobs_per_seed"] = s.jobs;
  j["wait"] = pj(s.wait);
  j["wait_p90_over_seeds"] = pj(s.wait_p90_over_seeds);
  j["run"] = pj(s.run);
  j["utilisation"] = std::round(s.utilisation * 1e6) / 1e6;
  j["deadline_misses_per_seed"] = s.deadline_misses;
  j["unfinished_per_seed"] = s.unfinished;
  j["preemptions_per_seed"] = s.preemptions;
  j["cost"] = nlohmann::ordered_json::array();
  for (const auto& m : s.cost) j["cost"].push_back(money_json(m));
  if (s.revenue) j["revenue"] = money_json(*s.revenue);
  return j;
}

nlohmann::ordered_json costs_json(const std::vector<fleet::PoolCost>& costs) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& c : costs) {
    nlohmann::ordered_json j;
    j["pool"] = c.pool;
    j["kind"] = to_string(c.kind);
    j["utilisation"] = std::round(c.utilisation * 1e6) / 1e6;
    j["busy_gpu_hours"] = std::round(c.busy_gpu_hours * 10) / 10;
    if (c.kind == fleet::PoolKind::Owned) {
      j["energy_kwh"] = std::round(c.energy_kwh);
      j["energy"] = money_json(c.energy);
      j["capex_amortised"] = money_json(c.capex);
    } else {
      j["plan"] = c.plan;
      j["billing"] = to_string(c.billing);
      j["bill"] = money_json(c.bill);
      j["plan_bills"] = nlohmann::ordered_json::array();
      for (const auto& [plan, m] : c.plan_bills) j["plan_bills"].push_back({{"plan", plan}, {"bill", money_json(m)}});
    }
    j["total"] = money_json(c.total);
    j["notes"] = c.notes;
    a.push_back(j);
  }
  return a;
}

void print_costs(const std::vector<fleet::PoolCost>& costs, std::ostream& o) {
  for (const auto& c : costs) {
    if (c.kind == fleet::PoolKind::Owned)
      o << fmt::format("  {:<16} owned   util {:>6}  energy {:>10.0f} kWh = {}, capex (amortised) {}, total {}\n",
                       c.pool, format_percent(c.utilisation, 1), c.energy_kwh, c.energy.str(), c.capex.str(),
                       c.total.str());
    else {
      o << fmt::format("  {:<16} rented  util {:>6}  plan {} ({}): {}\n", c.pool, format_percent(c.utilisation, 1),
                       c.plan, to_string(c.billing), c.bill.str());
      std::string others;
      for (const auto& [plan, m] : c.plan_bills)
        if (plan != c.plan) others += (others.empty() ? "" : "; ") + plan + " " + m.str();
      if (!others.empty()) o << "                   same usage under: " << others << "\n";
    }
  }
}

}  // namespace

void print_fleet_text(const FleetReport& r, std::ostream& o) {
  const auto& res = r.result;
  const auto& s = res.summary;
  o << fmt::format("Fleet {} ({}): horizon {}, {} seeds from {}, policy {}\n", res.name, r.file,
                   format_duration_brief(res.horizon), res.seeds, res.seed, policy_str(res.policy));
  o << fmt::format(
      "  jobs per seed {}, utilisation {}, deadline misses {:.2f}/seed, unfinished {:.2f}/seed, preemptions {:.2f}/seed\n",
      s.jobs, format_percent(s.utilisation, 1), s.deadline_misses, s.unfinished, s.preemptions);
  o << fmt::format("  wait P50 {}, P90 {}, mean {} (all jobs, all seeds); P90 wait over seeds: P50 {}, P90 {}\n",
                   format_duration_brief(s.wait.p50), format_duration_brief(s.wait.p90),
                   format_duration_brief(s.wait.mean), format_duration_brief(s.wait_p90_over_seeds.p50),
                   format_duration_brief(s.wait_p90_over_seeds.p90));
  o << fmt::format("  run P50 {}, P90 {}\n", format_duration_brief(s.run.p50), format_duration_brief(s.run.p90));
  o << "\nPools (costs over the horizon, mean over seeds)\n";
  print_costs(res.costs, o);
  o << "  total: " << money_list(s.cost) << "\n";
  if (res.revenue) {
    o << "\nRevenue (jobs billed under the catalog): mean " << res.revenue->total.mean.str() << ", P50 "
      << res.revenue->total.p50.str() << "\n";
    for (const auto& [plan, m] : res.revenue->per_plan) o << fmt::format("  {:<28} {}\n", plan, m.str());
    for (const auto& n : res.revenue->notes) o << "  note: " << n << "\n";
  }
  o << "\nJob classes\n";
  for (std::size_t i = 0; i < res.classes.size(); ++i) {
    const auto& c = res.classes[i];
    o << fmt::format(
        "  {:<22} jobs {:>6}  wait P50 {:>8} P90 {:>8}  run P50 {:>8} P90 {:>8}  deadline miss {:>6}  re-planned {:>6}\n",
        c.name, c.jobs, format_duration_brief(c.wait.p50), format_duration_brief(c.wait.p90),
        format_duration_brief(c.run.p50), format_duration_brief(c.run.p90), format_percent(c.deadline_miss_rate, 1),
        format_percent(c.replanned_rate, 1));
    if (i < r.class_variants.size()) o << "    runs as: " << r.class_variants[i] << "\n";
  }
  if (!res.jobs.empty()) {
    o << "\nJobs (P50 / P90 over seeds)\n";
    for (const auto& j : res.jobs)
      o << fmt::format(
          "  {:<20} {:<18} prio {:>3}  arrives {:>8}  wait {:>8} / {:>8}  run {:>8} / {:>8}  finish {:>8} / {:>8}{}\n",
          j.name, j.job_class, j.priority, format_duration_brief(j.arrival), format_duration_brief(j.wait.p50),
          format_duration_brief(j.wait.p90), format_duration_brief(j.run.p50), format_duration_brief(j.run.p90),
          format_duration_brief(j.finish.p50), format_duration_brief(j.finish.p90),
          j.deadline ? fmt::format("  deadline {} missed {}", format_duration_brief(*j.deadline),
                                   format_percent(j.deadline_miss_rate, 1))
                     : "");
  }
  if (!res.what_ifs.empty()) {
    o << "\nWhat if\n";
    for (const auto& w : res.what_ifs)
      o << fmt::format(
          "  {:<32} wait P90 {:>8} (base {}), utilisation {} (base {}), deadline misses {:.2f} (base {:.2f}), cost {} (base {}){}\n",
          w.what_if.label, format_duration_brief(w.summary.wait.p90), format_duration_brief(s.wait.p90),
          format_percent(w.summary.utilisation, 1), format_percent(s.utilisation, 1), w.summary.deadline_misses,
          s.deadline_misses, money_list(w.summary.cost), money_list(s.cost),
          w.summary.revenue ? ", revenue " + w.summary.revenue->str() : "");
  }
  if (r.sweep) {
    const auto& sw = *r.sweep;
    o << fmt::format("\nSize sweep of pool {} for P90 wait <= {}: ", sw.pool,
                     format_duration_brief(sw.target_p90_wait));
    if (sw.nodes)
      o << *sw.nodes << " nodes\n";
    else
      o << "not met up to the largest size tried\n";
    for (const auto& p : sw.tried)
      o << fmt::format("  {:>6} nodes  wait P90 {:>8}  utilisation {:>6}  {}\n", p.nodes,
                       format_duration_brief(p.wait_p90), format_percent(p.utilisation, 1),
                       p.meets_target ? "meets" : "misses");
  }
  for (const auto& n : r.notes) o << "note: " << n << "\n";
  for (const auto& w : res.warnings) o << "warning: " << w << "\n";
  o << fmt::format("({} jobs and {} events simulated; time series: {} bins of {}, in --json and --csv)\n",
                   res.simulated_jobs, res.events, res.series.bin_start.size(),
                   format_duration_brief(res.series.interval));
}

nlohmann::ordered_json fleet_to_json(const FleetReport& r) {
  const auto& res = r.result;
  nlohmann::ordered_json j;
  j["fleet"] = res.name;
  j["file"] = r.file;
  j["horizon_h"] = hours(res.horizon);
  j["seeds"] = res.seeds;
  j["seed"] = res.seed;
  j["policy"] = {{"order", to_string(res.policy.order)},
                 {"backfill", to_string(res.policy.backfill)},
                 {"gang", res.policy.gang},
                 {"preemption", res.policy.preemption}};
  j["summary"] = summary_json(res.summary);
  j["pools"] = costs_json(res.costs);
  if (res.revenue) {
    nlohmann::ordered_json rv;
    rv["mean"] = money_json(res.revenue->total.mean);
    rv["p50"] = money_json(res.revenue->total.p50);
    rv["per_plan"] = nlohmann::ordered_json::array();
    for (const auto& [plan, m] : res.revenue->per_plan)
      rv["per_plan"].push_back({{"plan", plan}, {"mean", money_json(m)}});
    rv["notes"] = res.revenue->notes;
    j["revenue"] = rv;
  }
  j["classes"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < res.classes.size(); ++i) {
    const auto& c = res.classes[i];
    j["classes"].push_back({{"name", c.name},
                            {"jobs", c.jobs},
                            {"wait", pj(c.wait)},
                            {"run", pj(c.run)},
                            {"deadline_miss_rate", c.deadline_miss_rate},
                            {"replanned_rate", c.replanned_rate},
                            {"runs_as", i < r.class_variants.size() ? r.class_variants[i] : ""}});
  }
  j["jobs"] = nlohmann::ordered_json::array();
  for (const auto& jb : res.jobs) {
    nlohmann::ordered_json x{
        {"name", jb.name}, {"class", jb.job_class}, {"priority", jb.priority}, {"arrival_h", hours(jb.arrival)}};
    if (jb.deadline) x["deadline_h"] = hours(*jb.deadline);
    x["wait"] = pj(jb.wait);
    x["run"] = pj(jb.run);
    x["finish"] = pj(jb.finish);
    x["deadline_miss_rate"] = jb.deadline_miss_rate;
    x["unfinished_rate"] = jb.unfinished_rate;
    j["jobs"].push_back(x);
  }
  const auto& ts = res.series;
  nlohmann::ordered_json series;
  series["interval_h"] = hours(ts.interval);
  std::vector<double> t;
  for (Time b : ts.bin_start) t.push_back(hours(b));
  series["bin_start_h"] = t;
  const auto r4 = [](const std::vector<double>& v) {
    std::vector<double> o;
    for (double x : v) o.push_back(std::round(x * 1e4) / 1e4);
    return o;
  };
  series["utilisation"] = nlohmann::ordered_json::object();
  for (std::size_t p = 0; p < ts.pools.size(); ++p) series["utilisation"][ts.pools[p]] = r4(ts.utilisation[p]);
  series["queue_length"] = r4(ts.queue_length);
  series["queue_length_p90"] = r4(ts.queue_length_p90);
  series["running_jobs"] = r4(ts.running_jobs);
  j["series"] = series;
  j["what_if"] = nlohmann::ordered_json::array();
  for (const auto& w : res.what_ifs)
    j["what_if"].push_back(
        {{"label", w.what_if.label}, {"summary", summary_json(w.summary)}, {"pools", costs_json(w.costs)}});
  if (r.sweep) {
    nlohmann::ordered_json sw{{"pool", r.sweep->pool}, {"target_p90_wait_h", hours(r.sweep->target_p90_wait)}};
    sw["nodes"] = r.sweep->nodes ? nlohmann::ordered_json(*r.sweep->nodes) : nlohmann::ordered_json(nullptr);
    sw["tried"] = nlohmann::ordered_json::array();
    for (const auto& p : r.sweep->tried)
      sw["tried"].push_back({{"nodes", p.nodes},
                             {"wait_p90_h", hours(p.wait_p90)},
                             {"utilisation", p.utilisation},
                             {"meets", p.meets_target}});
    j["size_sweep"] = sw;
  }
  j["notes"] = r.notes;
  j["warnings"] = res.warnings;
  j["simulated_jobs"] = res.simulated_jobs;
  j["events"] = res.events;
  return j;
}

std::string fleet_series_csv(const fleet::FleetResult& r) {
  const auto& ts = r.series;
  std::string out = "bin_start_h";
  for (const auto& p : ts.pools) out += ",utilisation_" + p;
  out += ",queue_length,queue_length_p90,running_jobs\n";
  for (std::size_t b = 0; b < ts.bin_start.size(); ++b) {
    out += fmt::format("{:.3f}", ts.bin_start[b].hours());
    for (std::size_t p = 0; p < ts.pools.size(); ++p) out += fmt::format(",{:.4f}", ts.utilisation[p][b]);
    out += fmt::format(",{:.4f},{:.4f},{:.4f}\n", ts.queue_length[b], ts.queue_length_p90[b], ts.running_jobs[b]);
  }
  return out;
}

}  // namespace flopcast::app

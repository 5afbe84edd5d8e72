#include "flopcast/app/fleet_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "flopcast/units/format.hpp"
#include "flopcast/units/money.hpp"

namespace flopcast::app {
namespace {

using fleet::Percentiles;

double hours(units::Time t) { return std::round(t.hours() * 1000.0) / 1000.0; }

nlohmann::ordered_json pj(const Percentiles& p) {
  nlohmann::ordered_json j{
      {"p50_h", hours(p.p50)}, {"p90_h", hours(p.p90)}, {"mean_h", hours(p.mean)}, {"count", p.count}};
  if (p.censored > 0) {
    j["censored"] = p.censored;
    j["p50_lower_bound"] = p.p50_lower_bound;
    j["p90_lower_bound"] = p.p90_lower_bound;
    j["mean_lower_bound"] = p.mean_lower_bound;
  }
  return j;
}

nlohmann::ordered_json money_json(const units::Money& m) {
  return {{"amount", m.amount_str()}, {"currency", m.currency.str()}, {"minor", m.minor}};
}

nlohmann::ordered_json opt_money_json(const std::optional<units::Money>& m) {
  return m ? money_json(*m) : nlohmann::ordered_json(nullptr);
}

/// A duration, ">=" in front when it is a lower bound (censored waits at or below its rank).
std::string bound(units::Time t, bool lower_bound) {
  return (lower_bound ? ">=" : "") + units::format_duration_brief(t);
}

std::string policy_str(const fleet::Policy& p) {
  return fmt::format("{}, backfill {}, gang {}, preemption {}", to_string(p.order), to_string(p.backfill),
                     p.gang ? "on" : "off", p.preemption ? "on" : "off");
}

/// "the month", "the quarter", "the 45-day horizon": what a total is over.
std::string horizon_phrase(units::Time h) {
  const double d = h.days();
  if (std::abs(d - 7) < 0.5) return "the week";
  if (d >= 28 && d <= 31.5) return "the month";
  if (d >= 89 && d <= 92.5) return "the quarter";
  if (d >= 364.5 && d <= 366.5) return "the year";
  return "the " + units::format_decimal(d, 1) + "-day horizon";
}

/// One sentence: what the fleet earns or loses over the horizon.
std::string verdict(const fleet::FleetSummary& s, units::Time horizon) {
  const std::string over = horizon_phrase(horizon);
  if (!s.margin) return over + " costs " + s.cost.str() + " (the fleet file has no revenue: costs only)";
  const std::string parts = " (revenue " + s.revenue->str() + " - cost " + s.cost.str() + ")";
  if (s.margin->minor < 0) return over + " loses " + (-*s.margin).str() + parts;
  if (s.margin->minor == 0) return over + " breaks even" + parts;
  return over + " earns a margin of " + s.margin->str() + parts;
}

nlohmann::ordered_json summary_json(const fleet::FleetSummary& s) {
  nlohmann::ordered_json j;
  j["jobs_per_seed"] = s.jobs;
  j["wait"] = pj(s.wait);
  j["wait_p90_over_seeds"] = pj(s.wait_p90_over_seeds);
  j["run"] = pj(s.run);
  j["utilisation"] = std::round(s.utilisation * 1e6) / 1e6;
  j["deadline_misses_per_seed"] = s.deadline_misses;
  j["unstarted_per_seed"] = s.unstarted;
  j["unfinished_per_seed"] = s.unfinished;
  j["preemptions_per_seed"] = s.preemptions;
  j["cost"] = money_json(s.cost);
  j["revenue"] = opt_money_json(s.revenue);
  j["margin"] = opt_money_json(s.margin);
  return j;
}

nlohmann::ordered_json costs_json(const std::vector<fleet::PoolCost>& costs) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& c : costs) {
    nlohmann::ordered_json j;
    j["pool"] = c.pool;
    j["kind"] = to_string(c.kind);
    j["internal"] = c.internal;
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
    j["cost"] = money_json(c.cost);
    j["revenue_plan"] =
        c.revenue_plan.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.revenue_plan);
    j["revenue"] = opt_money_json(c.revenue);
    j["margin"] = opt_money_json(c.margin);
    j["notes"] = c.notes;
    a.push_back(j);
  }
  return a;
}

/// `m` as billed, and in the reporting currency when that differs: "82,083.20 USD = 591,000.00 CNY".
std::string as_billed(const units::Money& m, const fleet::FleetResult& r) {
  const auto converted = fleet::convert_money(m, r.currency, r.fx);
  if (m.currency == r.currency || !converted) return m.str();
  return m.str() + " = " + converted->str();
}

void print_pool_details(const fleet::FleetResult& r, std::ostream& o) {
  o << "\nPools (as billed, mean over seeds)\n";
  for (const auto& c : r.costs) {
    if (c.kind == fleet::PoolKind::Owned) {
      o << fmt::format("  {:<16} owned   energy {} kWh = {}, capex (amortised) {}\n", c.pool,
                       units::format_grouped(std::llround(c.energy_kwh)), as_billed(c.energy, r),
                       as_billed(c.capex, r));
    } else {
      o << fmt::format("  {:<16} rented  plan {} ({}): {}\n", c.pool, c.plan, to_string(c.billing),
                       as_billed(c.bill, r));
      std::string others;
      for (const auto& [plan, m] : c.plan_bills)
        if (plan != c.plan) others += (others.empty() ? "" : "; ") + plan + " " + m.str();
      if (!others.empty()) o << "                   same usage under: " << others << "\n";
    }
    for (const auto& n : c.notes) o << "                   " << n << "\n";
  }
}

void print_money(const FleetReport& rep, std::ostream& o) {
  const auto& r = rep.result;
  const auto& s = r.summary;
  std::string rates;
  for (const auto& q : r.fx) rates += "; " + q.str();
  o << "\nMoney over the horizon in " << r.currency.str() << " (mean over seeds" << rates << ")\n";
  if (s.revenue) {
    o << fmt::format("  {:<16} {:>6}  {:>16}  {:>16}  {:>16}  {}\n", "pool", "util", "cost", "revenue", "margin",
                     "revenue plan");
    for (const auto& c : r.costs)
      o << fmt::format("  {:<16} {:>6}  {:>16}  {:>16}  {:>16}  {}\n", c.pool, units::format_percent(c.utilisation, 1),
                       c.cost.amount_str(), c.revenue ? c.revenue->amount_str() : "-",
                       c.margin ? c.margin->amount_str() : "-",
                       c.internal ? std::string("internal: earns nothing") : c.revenue_plan);
    o << fmt::format("  {:<16} {:>6}  {:>16}  {:>16}  {:>16}\n", "total", units::format_percent(s.utilisation, 1),
                     s.cost.amount_str(), s.revenue->amount_str(), s.margin->amount_str());
  } else {
    o << fmt::format("  {:<16} {:>6}  {:>16}\n", "pool", "util", "cost");
    for (const auto& c : r.costs)
      o << fmt::format("  {:<16} {:>6}  {:>16}\n", c.pool, units::format_percent(c.utilisation, 1),
                       c.cost.amount_str());
    o << fmt::format("  {:<16} {:>6}  {:>16}\n", "total", units::format_percent(s.utilisation, 1), s.cost.amount_str());
  }
  o << "  " << verdict(s, r.horizon) << "\n";
  if (r.revenue) {
    o << "  revenue P50 over seeds " << r.revenue->total.p50.str() << "\n";
    for (const auto& n : r.revenue->notes) o << "  note: " << n << "\n";
  }
}

void print_classes(const FleetReport& r, std::ostream& o) {
  o << "\nJob classes (waits: >= marks a lower bound, set by jobs that never start)\n";
  for (std::size_t i = 0; i < r.result.classes.size(); ++i) {
    const auto& c = r.result.classes[i];
    o << fmt::format(
        "  {:<22} jobs {:>6}  wait P50 {:>10} P90 {:>10}  run P50 {:>8} P90 {:>8}  deadline miss {:>6}  re-planned {:>6}\n",
        c.name, c.jobs, bound(c.wait.p50, c.wait.p50_lower_bound), bound(c.wait.p90, c.wait.p90_lower_bound),
        units::format_duration_brief(c.run.p50), units::format_duration_brief(c.run.p90),
        units::format_percent(c.deadline_miss_rate, 1), units::format_percent(c.replanned_rate, 1));
    if (i < r.class_variants.size()) o << "    runs as: " << r.class_variants[i] << "\n";
    if (c.unstarted > 0)
      o << "    " << units::format_decimal(c.unstarted, 2) << " jobs per seed never start within the horizon"
        << (c.never_started > 0
                ? fmt::format(" ({} never start at all: waits censored)", units::format_decimal(c.never_started, 2))
                : std::string())
        << "\n";
  }
}

void print_jobs(const fleet::FleetResult& res, std::ostream& o) {
  if (res.jobs.empty()) return;
  o << "\nJobs (P50 / P90 over seeds)\n";
  for (const auto& j : res.jobs)
    o << fmt::format(
        "  {:<20} {:<18} prio {:>3}  arrives {:>8}  wait {:>10} / {:>10}  run {:>8} / {:>8}  finish {:>8} / {:>8}{}{}\n",
        j.name, j.job_class, j.priority, units::format_duration_brief(j.arrival),
        bound(j.wait.p50, j.wait.p50_lower_bound), bound(j.wait.p90, j.wait.p90_lower_bound),
        units::format_duration_brief(j.run.p50), units::format_duration_brief(j.run.p90),
        units::format_duration_brief(j.finish.p50), units::format_duration_brief(j.finish.p90),
        j.deadline ? fmt::format("  deadline {} missed {}", units::format_duration_brief(*j.deadline),
                                 units::format_percent(j.deadline_miss_rate, 1))
                   : "",
        j.unstarted_rate > 0 ? "  unstarted in " + units::format_percent(j.unstarted_rate, 0) + " of seeds" : "");
}

/// "3/seed (llama3-70b 3)": jobs per seed not started within the horizon, by class.
std::string unstarted_str(const fleet::FleetSummary& s, const fleet::FleetResult& res) {
  std::string by_class;
  for (std::size_t c = 0; c < s.class_unstarted.size() && c < res.classes.size(); ++c)
    if (s.class_unstarted[c] > 0)
      by_class +=
          (by_class.empty() ? "" : ", ") + res.classes[c].name + " " + units::format_decimal(s.class_unstarted[c], 2);
  return units::format_decimal(s.unstarted, 2) + "/seed" + (by_class.empty() ? "" : " (" + by_class + ")");
}

void print_what_ifs(const fleet::FleetResult& res, std::ostream& o) {
  if (res.what_ifs.empty()) return;
  const auto& s = res.summary;
  const auto opt = [](const std::optional<units::Money>& m) { return m ? m->str() : std::string("-"); };
  o << "\nWhat if\n";
  for (const auto& w : res.what_ifs) {
    const auto& ws = w.summary;
    o << fmt::format(
        "  {:<32} wait P90 {:>10} (base {}), mean {} (base {}), utilisation {} (base {}), deadline misses {:.2f} "
        "(base {:.2f}), unstarted {} (base {})\n",
        w.what_if.label, bound(ws.wait.p90, ws.wait.p90_lower_bound), bound(s.wait.p90, s.wait.p90_lower_bound),
        bound(ws.wait.mean, ws.wait.mean_lower_bound), bound(s.wait.mean, s.wait.mean_lower_bound),
        units::format_percent(ws.utilisation, 1), units::format_percent(s.utilisation, 1), ws.deadline_misses,
        s.deadline_misses, unstarted_str(ws, res), unstarted_str(s, res));
    o << fmt::format("  {:<32} cost {} (base {})", "", ws.cost.str(), s.cost.str());
    if (ws.revenue)
      o << fmt::format(", revenue {} (base {}), margin {} (base {})", opt(ws.revenue), opt(s.revenue), opt(ws.margin),
                       opt(s.margin));
    o << "\n";
  }
}

void print_sweep(const fleet::SizeSweepResult& sw, std::ostream& o) {
  const std::string whose = sw.job_class ? "the jobs of " + sw.classes[*sw.job_class] : std::string("all jobs");
  o << fmt::format("\nSize sweep of pool {} (today {} nodes) for a P90 wait <= {} over {}\n", sw.pool, sw.today_nodes,
                   units::format_duration_brief(sw.target_p90_wait), whose);
  std::string head = fmt::format("  {:>12}  {:>10}", "nodes", "P90 wait");
  for (const auto& c : sw.classes) head += fmt::format("  {:>10}", c.size() > 10 ? c.substr(0, 10) : c);
  head += fmt::format("  {:>9}  {:>16}  {:>16}  {:>16}", "unstarted", "cost", "revenue", "margin");
  o << head << "\n";
  for (const auto& p : sw.tried) {
    std::string line =
        fmt::format("  {:>12}  {:>10}", std::to_string(p.nodes) + (p.nodes == sw.today_nodes ? " today" : ""),
                    bound(p.wait.p90, p.wait.p90_lower_bound));
    for (const auto& w : p.summary.class_wait) line += fmt::format("  {:>10}", bound(w.p90, w.p90_lower_bound));
    line += fmt::format("  {:>9}  {:>16}  {:>16}  {:>16}  {}", units::format_decimal(p.summary.unstarted, 2),
                        p.summary.cost.str(), p.summary.revenue ? p.summary.revenue->str() : "-",
                        p.summary.margin ? p.summary.margin->str() : "-", p.meets_target ? "meets" : "misses");
    o << line << "\n";
  }
  const auto largest = sw.tried.empty() ? std::int64_t{0} : sw.tried.back().nodes;
  std::string others;
  double share = 0;
  for (const auto& x : sw.other_pools_over) {
    others += (others.empty() ? "" : ", ") + x.job_class + " " + units::format_percent(x.share, 1);
    share += x.share;
  }
  switch (sw.verdict) {
    case fleet::SizeSweepVerdict::Met: {
      o << "  answer: " << *sw.nodes << " nodes";
      const auto d = *sw.nodes - sw.today_nodes;
      o << (d == 0 ? " (today's size)" : fmt::format(" ({} {} than today)", std::abs(d), d > 0 ? "more" : "fewer"));
      o << "\n";
      for (const auto& p : sw.tried)
        if (p.nodes == *sw.nodes && !p.p90_class.empty() && !p.p90_class_runs_on_pool)
          o << "  note: at " << p.nodes << " nodes the P90 is the wait of a " << p.p90_class
            << " job, a class that never runs on " << sw.pool
            << ": more nodes help it only by taking other jobs off its pool\n";
      break;
    }
    case fleet::SizeSweepVerdict::NotMet:
      o << "  not met up to " << largest << " nodes, the largest size tried (--max-nodes N tries larger ones)\n";
      break;
    case fleet::SizeSweepVerdict::SetByOtherPools:
      o << "  cannot be met by resizing " << sw.pool << ": at " << largest << " nodes "
        << units::format_percent(share, 1) << " of " << whose << " wait longer than "
        << units::format_duration_brief(sw.target_p90_wait) << " in classes that never run on it (" << others
        << "), more than the " << units::format_percent(sw.allowed_share, 1)
        << " a P90 allows; resize their pools, or target one class with --class\n";
      break;
  }
}

}  // namespace

void print_fleet_text(const FleetReport& r, std::ostream& o) {
  const auto& res = r.result;
  const auto& s = res.summary;
  o << fmt::format("Fleet {} ({}): horizon {}, {} seeds from {}, policy {}\n", res.name, r.file,
                   units::format_duration_brief(res.horizon), res.seeds, res.seed, policy_str(res.policy));
  o << fmt::format(
      "  jobs per seed {}, utilisation {}, deadline misses {:.2f}/seed, unstarted {:.2f}/seed (not started within "
      "the horizon), unfinished {:.2f}/seed, preemptions {:.2f}/seed\n",
      s.jobs, units::format_percent(s.utilisation, 1), s.deadline_misses, s.unstarted, s.unfinished, s.preemptions);
  o << fmt::format("  wait P50 {}, P90 {}, mean {} (all jobs, all seeds); P90 wait over seeds: P50 {}, P90 {}\n",
                   bound(s.wait.p50, s.wait.p50_lower_bound), bound(s.wait.p90, s.wait.p90_lower_bound),
                   bound(s.wait.mean, s.wait.mean_lower_bound), units::format_duration_brief(s.wait_p90_over_seeds.p50),
                   units::format_duration_brief(s.wait_p90_over_seeds.p90));
  o << fmt::format("  run P50 {}, P90 {}\n", units::format_duration_brief(s.run.p50),
                   units::format_duration_brief(s.run.p90));
  print_money(r, o);
  print_pool_details(res, o);
  print_classes(r, o);
  print_jobs(res, o);
  print_what_ifs(res, o);
  if (r.sweep) print_sweep(*r.sweep, o);
  for (const auto& n : r.notes) o << "note: " << n << "\n";
  for (const auto& w : res.warnings) o << "warning: " << w << "\n";
  o << fmt::format("({} jobs and {} events simulated; time series: {} bins of {}, in --json and --csv)\n",
                   res.simulated_jobs, res.events, res.series.bin_start.size(),
                   units::format_duration_brief(res.series.interval));
}

namespace {

nlohmann::ordered_json sweep_json(const fleet::SizeSweepResult& sw) {
  nlohmann::ordered_json j{
      {"pool", sw.pool},
      {"today_nodes", sw.today_nodes},
      {"target_p90_wait_h", hours(sw.target_p90_wait)},
      {"class", sw.job_class ? nlohmann::ordered_json(sw.classes[*sw.job_class]) : nlohmann::ordered_json(nullptr)},
      {"verdict", to_string(sw.verdict)}};
  j["nodes"] = sw.nodes ? nlohmann::ordered_json(*sw.nodes) : nlohmann::ordered_json(nullptr);
  j["allowed_share"] = sw.allowed_share;
  j["other_pools_over"] = nlohmann::ordered_json::array();
  for (const auto& x : sw.other_pools_over)
    j["other_pools_over"].push_back({{"class", x.job_class}, {"share", x.share}});
  j["tried"] = nlohmann::ordered_json::array();
  for (const auto& p : sw.tried) {
    nlohmann::ordered_json t{{"nodes", p.nodes}, {"wait", pj(p.wait)}, {"meets", p.meets_target}};
    t["p90_class"] = p.p90_class;
    t["class_wait"] = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < p.summary.class_wait.size() && c < sw.classes.size(); ++c)
      t["class_wait"][sw.classes[c]] = pj(p.summary.class_wait[c]);
    t["summary"] = summary_json(p.summary);
    j["tried"].push_back(t);
  }
  return j;
}

nlohmann::ordered_json series_json(const fleet::TimeSeries& ts) {
  nlohmann::ordered_json series;
  series["interval_h"] = hours(ts.interval);
  std::vector<double> t;
  for (units::Time b : ts.bin_start) t.push_back(hours(b));
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
  return series;
}

}  // namespace

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
  j["currency"] = res.currency.str();
  j["fx"] = nlohmann::ordered_json::array();
  for (const auto& q : res.fx)
    j["fx"].push_back({{"from", q.rate.from.str()},
                       {"to", q.rate.to.str()},
                       {"rate", units::format_micro(q.rate.micro, 0)},
                       {"catalog", q.catalog},
                       {"note", q.rate.note}});
  j["summary"] = summary_json(res.summary);
  j["pools"] = costs_json(res.costs);
  if (res.revenue) {
    nlohmann::ordered_json rv;
    rv["mean"] = money_json(res.revenue->total.mean);
    rv["p50"] = money_json(res.revenue->total.p50);
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
                            {"unstarted_per_seed", c.unstarted},
                            {"never_started_per_seed", c.never_started},
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
    x["unstarted_rate"] = jb.unstarted_rate;
    j["jobs"].push_back(x);
  }
  j["series"] = series_json(res.series);
  j["what_if"] = nlohmann::ordered_json::array();
  for (const auto& w : res.what_ifs)
    j["what_if"].push_back(
        {{"label", w.what_if.label}, {"summary", summary_json(w.summary)}, {"pools", costs_json(w.costs)}});
  if (r.sweep) j["size_sweep"] = sweep_json(*r.sweep);
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

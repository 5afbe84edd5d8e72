// Energy claims: a fleet's electricity over a period from core/job's whole-run energy model
// (GPU boards at a fraction of TDP plus the rest of each node, times the PUE, at a tariff),
// run as one failure-free trial of `period` hours.
#include <fmt/format.h>

#include <cmath>

#include "claim_checks.hpp"
#include "claim_format.hpp"
#include "flopcast/job/job_simulation.hpp"

namespace flopcast::claims::detail {
namespace {

struct FleetEnergy {
  bool ok = false;
  std::string error;
  job::EnergyResult energy;
  std::string how;
};

FleetEnergy energy_of(const FleetPower& f, const EnergyNeeds& n) {
  FleetEnergy out;
  constexpr std::int64_t kHourNs = 3'600'000'000'000;
  job::JobInput in;
  in.step_time = units::Time{kHourNs};  // one "step" per hour of the period
  in.steps = std::max<std::int64_t>(1, n.period.ns / kHourNs);
  in.gpus = f.gpus;
  in.gpus_per_node = f.fabric.gpus_per_node;
  in.params = 0;  // no checkpoints: the fleet's power only
  in.gpu_tdp_w = f.gpu.tdp_w;
  in.node_power_w = f.fabric.node_power_kw * 1000.0;
  in.gpu_utilisation = n.utilisation;
  in.energy.pue = n.pue;
  in.energy.price_per_kwh = n.tariff;
  in.reliability.failures_per_gpu_hour = 0.0;
  in.reliability.trials = 1;
  job::JobSimOptions opt;
  opt.threads = 1;
  job::JobOutcome o = job::simulate_job(in, opt);
  if (!o.ok()) {
    out.error = o.errors.front();
    return out;
  }
  out.energy = o.result.energy;
  out.ok = true;
  const std::int64_t nodes = (f.gpus + in.gpus_per_node - 1) / std::max(1, in.gpus_per_node);
  const double gpu_kw = static_cast<double>(f.gpus) * f.gpu.tdp_w * n.utilisation / 1000.0;
  const double gpus_per_node_kw = in.gpus_per_node * f.gpu.tdp_w / 1000.0;
  const std::string node_part =
      f.fabric.node_power_kw > 0
          ? fmt::format("{} nodes x {:.1f} kW for the rest of each {:.1f} kW {} node", nodes,
                        std::max(0.0, f.fabric.node_power_kw - gpus_per_node_kw), f.fabric.node_power_kw, f.fabric.name)
          : fmt::format("{} nodes x {:.1f} kW for the rest of each node (0.8 x its GPUs' TDP: node power unknown)",
                        nodes, job::kNodeOverheadFraction * gpus_per_node_kw);
  out.how = fmt::format(
      "{} x {} at {:.0f} W ({:.0f}% of TDP) = {:.0f} kW, plus {} = {} kW IT x {} h = {} kWh x PUE {:g} = {} kWh x "
      "{}/kWh = {}",
      f.gpus, f.gpu.name, f.gpu.tdp_w, n.utilisation * 100, gpu_kw, node_part, grouped(out.energy.avg_it_power_kw, 0),
      grouped(static_cast<double>(in.steps), 0), grouped(out.energy.it_kwh, 0), n.pue,
      grouped(out.energy.facility_kwh, 0), n.tariff.str(), out.energy.cost.str());
  return out;
}

}  // namespace

Verdict judge_energy(const Claim& c, const EnergyNeeds& n) {
  const FleetEnergy fleet = energy_of(n.fleet, n);
  if (!fleet.ok) return cannot_judge(fleet.error);
  const units::Money cost = fleet.energy.cost;
  const std::string tariff = fmt::format("tariff {}/kWh and PUE {:g} from {}", n.tariff.str(), n.pue, n.tariff_from);
  const std::string per = n.period.ns == 8760 * 3'600'000'000'000 ? "year" : duration(n.period);
  if (n.figure == "cost") {
    Verdict v = compare(c.claimed->money->major(), cost.major(), Better::Lower, c.claimed->bound);
    v.figure = {true, cost.major(), cost.currency.str(), cost.str() + " per " + per};
    v.how = fleet.how + " (" + tariff + ")";
    settle(v, c, "the fleet's electricity costs " + cost.str() + ", not " + c.claimed->text);
    return v;
  }
  if (!n.baseline) {
    Verdict v = cannot_judge("the claim does not say what the saving is compared with (no baseline fleet)");
    v.figure = {true, cost.major(), cost.currency.str(), cost.str() + " per " + per};
    v.how = "the fleet's whole electricity bill: " + fleet.how + " (" + tariff + ")";
    if (cost.minor > 0)
      v.notes.push_back(fmt::format("the claimed saving of {} is {} of the fleet's whole electricity bill",
                                    c.claimed->text, percent(c.claimed->money->major() / cost.major())));
    return v;
  }
  const FleetEnergy base = energy_of(*n.baseline, n);
  if (!base.ok) return cannot_judge(base.error);
  const units::Money saving = base.energy.cost - cost;
  Verdict v = compare(c.claimed->money->major(), saving.major(), Better::Higher, c.claimed->bound);
  v.figure = {true, saving.major(), saving.currency.str(), saving.str() + " per " + per};
  v.how = "baseline: " + base.how + "; claimed fleet: " + fleet.how + "; saving = " + base.energy.cost.amount_str() +
          " - " + cost.amount_str() + " (" + tariff + ")";
  settle(v, c, "the baseline fleet's electricity minus this fleet's is " + saving.str() + ", not " + c.claimed->text);
  if (v.kind == VerdictKind::Impossible && v.reason.empty())
    v.reason =
        "the fleet uses no less electricity than the baseline: " + cost.str() + " against " + base.energy.cost.str();
  return v;
}

}  // namespace flopcast::claims::detail

#include "report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

namespace flopcast::cli {

std::string format_time(Time t) {
  const double s = t.seconds();
  if (std::fabs(s) >= 86400 * 2) return fmt::format("{:.1f} days", s / 86400);
  if (std::fabs(s) >= 3600) return fmt::format("{:.1f} h", s / 3600);
  if (std::fabs(s) >= 1) return fmt::format("{:.3f} s", s);
  if (std::fabs(s) >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

std::string format_gib(Bytes b) { return fmt::format("{:.1f} GiB", b.gib()); }

std::string format_count(double v) {
  const double a = std::fabs(v);
  if (a >= 1e12) return fmt::format("{:.3g}T", v / 1e12);
  if (a >= 1e9) return fmt::format("{:.3g}B", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e3) return fmt::format("{:.3g}K", v / 1e3);
  return fmt::format("{:.3g}", v);
}

namespace {

std::string pct(double x) { return fmt::format("{:.0f}%", x * 100); }

ClaimCheck check(const std::string& figure, double claimed, double simulated, bool higher_is_better,
                 const std::string& impossible) {
  ClaimCheck c{figure, claimed, simulated, ""};
  if (!impossible.empty()) {
    c.verdict = "impossible: " + impossible;
    return c;
  }
  if (simulated <= 0) {
    c.verdict = "not checkable";
    return c;
  }
  // ratio > 1 means the claim is better than what the simulation supports.
  const double ratio = higher_is_better ? claimed / simulated : simulated / claimed;
  if (ratio > 1.10) c.verdict = "optimistic by " + pct(ratio - 1);
  else if (ratio < 0.90) c.verdict = "conservative by " + pct(1 - ratio);
  else c.verdict = "consistent (within 10%)";
  return c;
}

}  // namespace

SimReport make_report(const Scenario& s, const ComputeProfile& profile) {
  SimReport r;
  r.scenario = &s;
  r.profile_name = profile.name;
  r.est = estimate_step(s, profile);
  r.fits_memory = r.est.memory.fits();
  const double tokens_per_step = static_cast<double>(s.plan.global_batch) * static_cast<double>(s.model.seq_len);
  if (s.training.tokens > 0 && r.est.step.ns > 0) {
    r.steps = std::ceil(s.training.tokens / tokens_per_step);
    r.train_seconds = r.steps * r.est.step.seconds();
    r.gpu_hours = r.train_seconds / 3600 * static_cast<double>(s.cluster.gpus);
    r.node_hours = r.train_seconds / 3600 * static_cast<double>(s.cluster.nodes());
  }
  const std::string no_fit =
      r.fits_memory ? "" : "the plan needs " + format_gib(r.est.memory.total()) + " per GPU but the " + s.cluster.gpu.name +
                               " has " + format_gib(r.est.memory.capacity);
  const double peak = s.cluster.gpu.peak(s.precision) ? s.cluster.gpu.peak(s.precision)->flops_per_s : 0;
  const double flops_per_token = r.est.model_flops.value / tokens_per_step;
  for (const auto& [fig, claimed] : s.claimed.figures) {
    if (fig == "mfu") {
      std::string imp = claimed > 1 ? "MFU above 100%" : no_fit;
      r.claims.push_back(check(fig, claimed, r.est.mfu, true, imp));
    } else if (fig == "days") {
      std::string imp = no_fit;
      if (imp.empty() && s.training.tokens > 0 && peak > 0) {
        const double needed_mfu = s.training.tokens * flops_per_token / (claimed * 86400 * static_cast<double>(s.cluster.gpus) * peak);
        if (needed_mfu > 1) imp = fmt::format("{:.3g} tokens in {:g} days on {} GPUs needs {:.0f}% MFU", s.training.tokens, claimed,
                                              s.cluster.gpus, needed_mfu * 100);
      }
      r.claims.push_back(check(fig, claimed, r.train_seconds / 86400, false, imp));
    } else if (fig == "tokens_per_day") {
      std::string imp = no_fit;
      if (imp.empty() && peak > 0) {
        const double needed_mfu = claimed / 86400 * flops_per_token / (static_cast<double>(s.cluster.gpus) * peak);
        if (needed_mfu > 1) imp = fmt::format("{} tokens/day on {} GPUs needs {:.0f}% MFU", format_count(claimed), s.cluster.gpus,
                                              needed_mfu * 100);
      }
      r.claims.push_back(check(fig, claimed, r.est.tokens_per_s * 86400, true, imp));
    } else if (fig == "memory_gb") {
      // Claimed memory is checked as "needs no more than": a lower claim is the optimistic one.
      const double sim_gb = r.est.memory.total().value / 1e9;
      r.claims.push_back(check(fig, claimed, sim_gb, false, ""));
    } else if (fig == "bubble_fraction") {
      const double sim = r.est.step.ns > 0 ? r.est.breakdown.bubble.seconds() / r.est.step.seconds() : 0;
      const double p = s.plan.pp;
      const double m_needed = p > 1 && claimed > 0 ? (p - 1) * (1 - claimed) / claimed : 0;
      ClaimCheck c = check(fig, claimed, sim, false, "");
      if (c.verdict.rfind("optimistic", 0) == 0)
        c.verdict += fmt::format(" ((p-1)/(m+p-1) = {:g} with p = {:g} needs m >= {:.0f} micro-batches; the plan has {})",
                                 claimed, p, std::ceil(m_needed), s.plan.microbatches());
      r.claims.push_back(c);
    } else if (fig == "step_time_s") {
      r.claims.push_back(check(fig, claimed, r.est.step.seconds(), false, no_fit));
    } else if (fig == "tflops_per_gpu") {
      const double sim = r.est.model_flops.value / r.est.step.seconds() / static_cast<double>(s.cluster.gpus) / 1e12;
      std::string imp = claimed * 1e12 > peak && peak > 0 ? fmt::format("above the dense peak of {:.0f} TFLOP/s", peak / 1e12) : no_fit;
      r.claims.push_back(check(fig, claimed, sim, true, imp));
    } else if (fig == "gpu_hours") {
      r.claims.push_back(check(fig, claimed, r.gpu_hours, false, no_fit));
    }
  }
  return r;
}

void print_text(const SimReport& r, std::ostream& o) {
  const auto& s = *r.scenario;
  const auto& e = r.est;
  const auto& p = s.plan;
  const auto pc = parameter_count(s.model);
  if (!s.name.empty()) o << s.name << "\n\n";
  o << fmt::format("Model       {} ({} params, {} layers, hidden {}, heads {}/{} kv, seq {})\n", s.model.display,
                   format_count(pc.total), s.model.layers, s.model.hidden, s.model.heads, s.model.kv_heads, s.model.seq_len);
  if (s.model.moe) o << fmt::format("            MoE: {} active params per token\n", format_count(pc.active));
  o << fmt::format("Cluster     {} x {} ({} nodes of {}), {}: {} x {:g} Gb/s {}\n", s.cluster.gpus, s.cluster.gpu.name,
                   s.cluster.nodes(), s.cluster.gpus_per_node, s.cluster.fabric.name, s.cluster.fabric.nics_per_node,
                   s.cluster.fabric.nic_gbps, to_string(s.cluster.fabric.kind));
  o << fmt::format("Plan        tp {} pp {} dp {} cp {} ep {} vpp {}{}, ZeRO-{}, micro-batch {}, global batch {} ({} micro-batches), "
                   "recompute {}, {}, {}\n",
                   p.tp, p.pp, p.dp, p.cp, p.ep, p.vpp, p.sequence_parallel ? " +SP" : "", p.zero, p.micro_batch, p.global_batch,
                   p.microbatches(), to_string(p.recompute), to_string(p.schedule), to_string(s.precision));
  o << fmt::format("Profile     {}\n", r.profile_name);
  if (!s.defaults_applied.empty()) {
    o << "Defaults    ";
    for (std::size_t i = 0; i < s.defaults_applied.size(); ++i) o << (i ? "; " : "") << s.defaults_applied[i];
    o << "\n";
  }
  o << "\nStep\n";
  const double gpus = static_cast<double>(s.cluster.gpus);
  o << fmt::format("  step time            {}\n", format_time(e.step));
  o << fmt::format("  tokens/s             {:.0f} total, {:.1f} per GPU\n", e.tokens_per_s, e.tokens_per_s / gpus);
  o << fmt::format("  model TFLOP/s/GPU    {:.1f}\n", e.model_flops.value / e.step.seconds() / gpus / 1e12);
  o << fmt::format("  MFU                  {:.1f}%\n", e.mfu * 100);
  o << fmt::format("  HFU                  {:.1f}%\n", e.hfu * 100);
  o << "\nMemory per GPU (stage " << e.memory.stage << ", " << fmt::format("{:g}", e.memory.in_flight)
    << " micro-batches in flight)\n";
  const auto& m = e.memory;
  const std::pair<const char*, Bytes> parts[] = {{"weights", m.weights},        {"gradients", m.gradients},
                                                 {"optimizer", m.optimizer},    {"activations", m.activations},
                                                 {"logits", m.logits},          {"workspace", m.workspace},
                                                 {"fragmentation", m.fragmentation}};
  for (const auto& [name, b] : parts) o << fmt::format("  {:<20} {:>10}\n", name, format_gib(b));
  o << fmt::format("  {:<20} {:>10} of {} HBM: {}\n", "total", format_gib(m.total()), format_gib(m.capacity),
                   r.fits_memory ? "fits" : "DOES NOT FIT");
  o << "\nWhere the step time goes\n";
  const auto& b = e.breakdown;
  const std::pair<const char*, Time> rows[] = {
      {"compute", b.compute},     {"recompute", b.recompute}, {"TP comm (exposed)", b.tp_comm},
      {"CP comm (exposed)", b.cp_comm}, {"EP comm (exposed)", b.ep_comm}, {"PP comm (exposed)", b.pp_comm},
      {"DP comm (exposed)", b.dp_comm}, {"pipeline bubble", b.bubble},  {"optimizer", b.optimizer},
      {"host overhead", b.overhead}};
  for (const auto& [name, t] : rows)
    o << fmt::format("  {:<20} {:>12} {:>6.1f}%\n", name, format_time(t), 100.0 * t.seconds() / e.step.seconds());
  if (s.training.tokens > 0) {
    o << fmt::format("\nTraining {} tokens (failure-free)\n", format_count(s.training.tokens));
    o << fmt::format("  steps                {:.0f}\n", r.steps);
    o << fmt::format("  time                 {:.1f} days\n", r.train_seconds / 86400);
    o << fmt::format("  GPU-hours            {:.0f}\n", r.gpu_hours);
    o << fmt::format("  node-hours           {:.0f}\n", r.node_hours);
  }
  if (!r.claims.empty()) {
    o << "\nClaims vs simulation\n";
    for (const auto& c : r.claims)
      o << fmt::format("  {:<16} claimed {:<12.4g} simulated {:<12.4g} {}\n", c.figure, c.claimed, c.simulated, c.verdict);
    if (!s.claimed.note.empty()) o << "  (" << s.claimed.note << ")\n";
  }
  if (!r.fits_memory) {
    o << "\nInfeasible: the plan needs " << format_gib(m.total()) << " per GPU, more than the " << format_gib(m.capacity)
      << " of HBM. Try more ZeRO sharding, recompute, a smaller micro-batch, or more tp/pp.\n";
  }
}

nlohmann::ordered_json to_json(const SimReport& r) {
  using J = nlohmann::ordered_json;
  const auto& s = *r.scenario;
  const auto& e = r.est;
  const auto pc = parameter_count(s.model);
  const double gpus = static_cast<double>(s.cluster.gpus);
  J j;
  j["scenario"] = s.name;
  j["model"] = {{"name", s.model.display}, {"params", pc.total}, {"active_params", pc.active}, {"layers", s.model.layers},
                {"hidden", s.model.hidden}, {"heads", s.model.heads}, {"kv_heads", s.model.kv_heads}, {"seq_len", s.model.seq_len}};
  j["cluster"] = {{"gpu", s.cluster.gpu.name}, {"gpus", s.cluster.gpus}, {"gpus_per_node", s.cluster.gpus_per_node},
                  {"nodes", s.cluster.nodes()}, {"fabric", s.cluster.fabric.name}};
  const auto& p = s.plan;
  j["parallel"] = {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"cp", p.cp}, {"ep", p.ep}, {"vpp", p.vpp},
                   {"sequence_parallel", p.sequence_parallel}, {"zero", p.zero}, {"micro_batch", p.micro_batch},
                   {"global_batch", p.global_batch}, {"microbatches", p.microbatches()}, {"recompute", to_string(p.recompute)},
                   {"schedule", to_string(p.schedule)}};
  j["precision"] = to_string(s.precision);
  j["profile"] = r.profile_name;
  j["defaults_applied"] = s.defaults_applied;
  j["step"] = {{"time_s", e.step.seconds()},
               {"tokens_per_s", e.tokens_per_s},
               {"tokens_per_gpu_s", e.tokens_per_s / gpus},
               {"model_tflops_per_gpu", e.model_flops.value / e.step.seconds() / gpus / 1e12},
               {"mfu", e.mfu},
               {"hfu", e.hfu},
               {"model_flops", e.model_flops.value},
               {"hardware_flops", e.hardware_flops.value}};
  const auto& m = e.memory;
  j["memory_per_gpu_gib"] = {{"stage", m.stage}, {"in_flight_microbatches", m.in_flight}, {"weights", m.weights.gib()},
                             {"gradients", m.gradients.gib()}, {"optimizer", m.optimizer.gib()},
                             {"activations", m.activations.gib()}, {"logits", m.logits.gib()}, {"workspace", m.workspace.gib()},
                             {"fragmentation", m.fragmentation.gib()}, {"total", m.total().gib()},
                             {"capacity", m.capacity.gib()}, {"fits", r.fits_memory}};
  const auto& b = e.breakdown;
  j["breakdown_s"] = {{"compute", b.compute.seconds()},   {"recompute", b.recompute.seconds()},
                      {"tp_comm", b.tp_comm.seconds()},   {"cp_comm", b.cp_comm.seconds()},
                      {"ep_comm", b.ep_comm.seconds()},   {"pp_comm", b.pp_comm.seconds()},
                      {"dp_comm", b.dp_comm.seconds()},   {"bubble", b.bubble.seconds()},
                      {"optimizer", b.optimizer.seconds()}, {"overhead", b.overhead.seconds()}};
  if (s.training.tokens > 0) {
    j["training"] = {{"tokens", s.training.tokens}, {"steps", r.steps}, {"days", r.train_seconds / 86400},
                     {"gpu_hours", r.gpu_hours}, {"node_hours", r.node_hours}};
  }
  if (!r.claims.empty()) {
    J claims = J::array();
    for (const auto& c : r.claims)
      claims.push_back({{"figure", c.figure}, {"claimed", c.claimed}, {"simulated", c.simulated}, {"verdict", c.verdict}});
    j["claims"] = claims;
  }
  j["feasible"] = r.fits_memory;
  return j;
}

}  // namespace flopcast::cli

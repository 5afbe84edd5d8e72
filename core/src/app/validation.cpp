#include "flopcast/app/validation.hpp"

#include <fmt/format.h>

#include <iterator>
#include <map>

#include "flopcast/compute/prediction_band.hpp"
#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/io/kernel_runs.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/step/step_simulation.hpp"

namespace flopcast::app {

InputFiles split_input_files(const std::vector<std::string>& files) {
  InputFiles in;
  for (const auto& f : files) {
    scenario::Diagnostics rd;
    auto text = io::read_text_file(f, rd);
    if (text && io::is_collective_run_file(*text))
      in.collectives.emplace_back(f, std::move(*text));
    else if (text && io::is_kernel_file(*text))
      in.kernels.emplace_back(f, std::move(*text));
    else
      in.runs.push_back(f);  // load_measured_runs reads it again and reports an unreadable one
  }
  return in;
}

std::vector<scenario::Scenario> load_measured_runs(const std::vector<std::string>& files, const io::Catalog& catalog,
                                                   InputProblems& problems) {
  std::vector<scenario::Scenario> runs;
  for (const auto& f : files) {
    scenario::Diagnostics diags;
    auto entries = io::load_run_file(f, catalog, diags);
    if (diags.has_errors()) {
      problems.text += diags.str();
      for (const auto& d : diags.items()) problems.errors.push_back(d.str());
      problems.status = io::any_unreadable_file(diags) ? InputStatus::Unreadable : InputStatus::BadInput;
    }
    for (auto& e : entries) {
      if (!e.diags.empty()) {
        problems.text += (e.id.empty() ? std::string("entry at ") + e.where.str() : "run " + e.id) + ":\n";
        for (const auto& d : e.diags.items()) problems.text += "  " + d.str() + "\n";
      }
      if (!e.scenario) {
        for (const auto& d : e.diags.items()) problems.errors.push_back((e.id.empty() ? "" : e.id + ": ") + d.str());
        problems.status = InputStatus::BadInput;
        continue;
      }
      runs.push_back(std::move(*e.scenario));
    }
  }
  return runs;
}

namespace {

/// Records a parsed file's diagnostics (warnings printed too; errors make the input bad).
void record(const scenario::Diagnostics& diags, InputProblems& problems) {
  if (diags.empty()) return;
  problems.text += diags.str();
  for (const auto& d : diags.items()) problems.errors.push_back(d.str());
  if (diags.has_errors()) problems.status = InputStatus::BadInput;
}

}  // namespace

std::vector<calibrate::KernelMeasurement> load_kernel_measurements(
    const std::vector<std::pair<std::string, std::string>>& files, const io::Catalog& catalog,
    InputProblems& problems) {
  std::vector<calibrate::KernelMeasurement> out;
  for (const auto& [file, text] : files) {
    scenario::Diagnostics diags;
    auto entries = io::parse_kernel_file(text, file, catalog, diags);
    record(diags, problems);
    std::move(entries.begin(), entries.end(), std::back_inserter(out));
  }
  return out;
}

std::vector<io::CollectiveRun> load_collective_points(const std::string& file, const std::string& text,
                                                      const io::Catalog& catalog, InputProblems& problems) {
  scenario::Diagnostics diags;
  auto points = io::parse_collective_runs(text, file, catalog, diags);
  record(diags, problems);
  return points;
}

std::string resolved_settings_text(const parallel::ResolvedSettings& r) {
  std::string out;
  for (const auto& [key, value] : r.chosen) {
    const auto dot = key.find('.');
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", dot == std::string::npos ? key : key.substr(dot + 1), value);
  }
  return out;
}

nlohmann::ordered_json resolved_settings_json(const parallel::ResolvedSettings& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, value] : r.chosen) j[key] = value;
  return j;
}

Validation validate_measurements(const ValidationRequest& request, const io::Catalog& catalog,
                                 const compute::ComputeProfile& profile) {
  Validation v;
  const auto inputs = split_input_files(request.files);
  v.runs = load_measured_runs(inputs.runs, catalog, v.problems);
  for (auto& s : v.runs) {
    estimate::resolve_open_settings(s, profile);
    step::StepSimOptions sim;
    sim.timeline = false;
    const auto e =
        request.estimate ? estimate::estimate_step(s, profile) : step::simulate_step(s, profile, sim).as_estimate();
    for (auto& c : calibrate::compare_run(s, e)) {
      // A run that says which peak memory it measured is compared with that one (allocated
      // tensors, or reserved with the allocator's slack, context and NCCL buffers: workload.hpp).
      if (c.figure == "memory_gib" && s.memory_kind != scenario::MemoryKind::Unstated) {
        c.predicted = workload::memory_of_kind(e.memory, s.memory_kind).gib();
        c.error_pct = (c.predicted - c.measured) / c.measured * 100.0;
      }
      v.rows.push_back(c);
    }
    if (const double factor = workload::convert_measured_flops(s); factor != 1.0)
      v.conversions.push_back({s.id, s.flops_convention, factor});
    if (!e.memory.fits())
      v.memory_failures.push_back({s.id, e.memory, s.resolved_settings.resolved && !s.resolved_settings.fits});
  }
  // nccl-tests points, predicted with core/comm (the model the step estimate uses): one
  // comparison per measured figure.
  for (const auto& [file, text] : inputs.collectives) {
    const auto points = load_collective_points(file, text, catalog, v.problems);
    for (const auto& pt : points) {
      std::string why;
      const auto c = calibrate::compare_collective(pt, profile, why);
      if (!why.empty()) v.problems.errors.push_back(pt.id + ": " + why);
      v.rows.insert(v.rows.end(), c.begin(), c.end());
    }
    v.collective_points += points.size();
  }
  v.kernels = validate_kernels(load_kernel_measurements(inputs.kernels, catalog, v.problems), profile);
  return v;
}

namespace {

nlohmann::ordered_json memory_json(const workload::MemoryBreakdown& m) {
  return {{"total_gib", m.total().gib()},
          {"capacity_gib", m.capacity.gib()},
          {"stage", m.stage},
          {"in_flight", m.in_flight},
          {"weights_gib", m.weights.gib()},
          {"gradients_gib", m.gradients.gib()},
          {"optimizer_gib", m.optimizer.gib()},
          {"activations_gib", m.activations.gib()},
          {"logits_gib", m.logits.gib()},
          {"workspace_gib", m.workspace.gib()},
          {"nccl_gib", m.nccl.gib()},
          {"fragmentation_gib", m.fragmentation.gib()}};
}

std::string memory_text(const workload::MemoryBreakdown& m) {
  return fmt::format(
      "{:.1f} GiB of {:.1f} (stage {}, {:g} micro-batches in flight: weights {:.1f}, gradients {:.1f}, optimizer "
      "{:.1f}, activations {:.1f}, logits {:.1f}, workspace {:.1f}, NCCL {:.1f}, fragmentation {:.1f})",
      m.total().gib(), m.capacity.gib(), m.stage, m.in_flight, m.weights.gib(), m.gradients.gib(), m.optimizer.gib(),
      m.activations.gib(), m.logits.gib(), m.workspace.gib(), m.nccl.gib(), m.fragmentation.gib());
}

/// The rows of validate's JSON document, each with its prediction's 80% band in the unit of
/// `measured`: a time scales by the band's factors, a speed (tokens/s, TFLOP/s, MFU) by their
/// inverses; memory has no band.
nlohmann::ordered_json rows_json(const compute::ComputeProfile& profile, const Validation& v) {
  auto rows = nlohmann::ordered_json::array();
  std::map<std::string, const scenario::Scenario*> by_id;
  for (const auto& s : v.runs) by_id[s.id] = &s;
  for (const auto& r : v.rows) {
    nlohmann::ordered_json row = {{"id", r.id},
                                  {"figure", r.figure},
                                  {"measured", r.measured},
                                  {"predicted", r.predicted},
                                  {"error_pct", r.error_pct}};
    const auto it = by_id.find(r.id);
    if (it != by_id.end() && r.figure != "memory_gib") {
      const compute::PredictionBand band = compute::band_of(profile.bands, *it->second);
      if (band.known) {
        const bool time = r.figure == "iteration_time_s";
        row["band_low"] = time ? r.predicted * band.p10 : r.predicted / band.p90;
        row["band_high"] = time ? r.predicted * band.p90 : r.predicted / band.p10;
        row["band_basis"] = band.basis;
      }
    }
    rows.push_back(row);
  }
  return rows;
}

/// The notes under validate's text summary: settings resolved, FLOP conversions, memory misfits.
std::string validation_notes(const Validation& v) {
  std::string out;
  std::vector<const scenario::Scenario*> resolved;
  for (const auto& s : v.runs)
    if (s.resolved_settings.resolved) resolved.push_back(&s);
  if (!resolved.empty()) {
    out += fmt::format(
        "\nSettings the runs do not state ({} runs), resolved as the fastest choice that fits (never chosen by the "
        "measurement):\n",
        resolved.size());
    for (const auto* s : resolved)
      out += fmt::format("  {}: {}{}\n", s->id, resolved_settings_text(s->resolved_settings),
                         s->resolved_settings.fits ? "" : " (no choice fits: the leanest)");
  }
  if (!v.conversions.empty()) {
    out += fmt::format(
        "\nTFLOP/s and MFU counted otherwise, converted to flopcast's count (model FLOPs, full attention; no "
        "recompute) before comparing ({} runs):\n",
        v.conversions.size());
    for (const auto& c : v.conversions)
      out += fmt::format("  {}: counted {}, x{:.4f}\n", c.id, to_string(c.convention), c.factor);
  }
  if (!v.memory_failures.empty()) {
    out += fmt::format("\nRuns that ran but the memory model says do not fit ({}):\n", v.memory_failures.size());
    for (const auto& f : v.memory_failures)
      out += fmt::format("  {}: {}{}\n", f.id, memory_text(f.memory),
                         f.open ? "; no choice of its unstated settings fits" : "");
  }
  return out;
}

}  // namespace

std::string validation_json(const compute::ComputeProfile& profile, const Validation& v, bool estimate) {
  nlohmann::ordered_json j;
  j["profile"] = profile.name;
  j["engine"] = estimate ? "estimate" : "simulation";
  j["runs"] = rows_json(profile, v);
  j["summary"] = nlohmann::ordered_json::object();
  for (const auto& s : summarize(v.rows))
    j["summary"][s.figure] = {{"count", s.count},
                              {"median_abs_error_pct", s.median_abs_error_pct},
                              {"p90_abs_error_pct", s.p90_abs_error_pct},
                              {"mean_abs_error_pct", s.mean_abs_error_pct}};
  j["memory"] = {{"runs", v.runs.size()},
                 {"fit", v.runs.size() - v.memory_failures.size()},
                 {"fit_fraction", v.runs.empty() ? 0.0
                                                 : static_cast<double>(v.runs.size() - v.memory_failures.size()) /
                                                       static_cast<double>(v.runs.size())}};
  j["resolved_settings"] = nlohmann::ordered_json::array();
  for (const auto& s : v.runs) {
    if (!s.resolved_settings.resolved) continue;
    const auto& r = s.resolved_settings;
    j["resolved_settings"].push_back({{"id", s.id},
                                      {"settings", resolved_settings_json(r)},
                                      {"fits", r.fits},
                                      {"memory_gib", r.memory_gib},
                                      {"capacity_gib", r.capacity_gib},
                                      {"candidates", r.candidates}});
  }
  j["memory_failures"] = nlohmann::ordered_json::array();
  for (const auto& f : v.memory_failures)
    j["memory_failures"].push_back({{"id", f.id}, {"no_choice_fits", f.open}, {"memory", memory_json(f.memory)}});
  if (!v.conversions.empty()) {
    j["flops_conversions"] = nlohmann::ordered_json::array();
    for (const auto& c : v.conversions)
      j["flops_conversions"].push_back(
          {{"id", c.id}, {"flops_convention", to_string(c.convention)}, {"factor", c.factor}});
  }
  if (v.kernels.entries() > 0) j.update(kernel_validation_json(v.kernels));
  j["errors"] = v.problems.errors;
  return j.dump(2) + "\n";
}

std::string validation_text(const compute::ComputeProfile& profile, const Validation& v, bool estimate,
                            bool summary_only) {
  std::string out;
  if (v.kernels.entries() > 0) {
    out += kernel_validation_text(v.kernels, summary_only);
    if (v.runs.empty() && v.collective_points == 0) return out;
    out += "\n";
  }
  if (!summary_only) {
    out += fmt::format("{:<52} {:<17} {:>12} {:>12} {:>9}\n", "id", "figure", "measured", "predicted", "error");
    for (const auto& r : v.rows)
      out += fmt::format("{:<52} {:<17} {:>12.4g} {:>12.4g} {:>+8.1f}%\n", r.id, r.figure, r.measured, r.predicted,
                         r.error_pct);
    out += "\n";
  }
  out += fmt::format("Summary (profile {}; {}; {} runs", profile.name, estimate ? "closed-form estimate" : "simulation",
                     v.runs.size());
  if (v.collective_points > 0) out += fmt::format(", {} collective points", v.collective_points);
  if (!v.problems.errors.empty()) out += fmt::format(", {} entries rejected", v.problems.errors.size());
  out += ")\n";
  out +=
      fmt::format("{:<17} {:>6} {:>14} {:>12} {:>12}\n", "figure", "count", "median |err|", "p90 |err|", "mean |err|");
  for (const auto& s : summarize(v.rows))
    out += fmt::format("{:<17} {:>6} {:>13.1f}% {:>11.1f}% {:>11.1f}%\n", s.figure, s.count, s.median_abs_error_pct,
                       s.p90_abs_error_pct, s.mean_abs_error_pct);
  if (!v.runs.empty()) {
    const std::size_t fit = v.runs.size() - v.memory_failures.size();
    out += fmt::format("memory: {} of {} runs predicted to fit ({:.1f}%)\n", fit, v.runs.size(),
                       100.0 * static_cast<double>(fit) / static_cast<double>(v.runs.size()));
  }
  if (!summary_only) out += validation_notes(v);
  return out;
}

}  // namespace flopcast::app

#include "flopcast/calibrate/cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "flopcast/estimate/setting_resolution.hpp"
#include "flopcast/estimate/step_estimate.hpp"
#include "flopcast/exec/thread_pool.hpp"
#include "flopcast/step/step_simulation.hpp"
#include "flopcast/units/assert.hpp"

namespace flopcast::calibrate {
namespace {

/// Fits the fold of `group` and predicts its runs.
CvFold fit_fold(const std::vector<scenario::Scenario>& runs, const std::string& group,
                const compute::ComputeProfile& start, const CrossValidationOptions& options,
                std::vector<CvPrediction>& out) {
  std::vector<scenario::Scenario> train, held;
  for (const auto& s : runs) (cv_group_of(s, options.by_regime) == group ? held : train).push_back(s);
  CalibrationOptions fit = options.fit;
  fit.run_weights.clear();  // each training group weighs the same
  CvFold fold;
  fold.group = group;
  fold.trained = train.size();
  fold.fit = calibrate_profile(train, start, fit);
  for (auto& s : held) {
    const auto figure = primary_figure(s);
    if (figure.empty()) continue;
    estimate::resolve_open_settings(s, fold.fit.profile);
    step::StepSimOptions sim;
    sim.timeline = false;
    const auto e = options.simulate_predictions ? step::simulate_step(s, fold.fit.profile, sim).as_estimate()
                                                : estimate::estimate_step(s, fold.fit.profile);
    for (const auto& c : compare_run(s, e)) {
      if (c.figure != figure) continue;
      out.push_back({s.id, group, s.cluster.gpu.arch, figure, c.measured, c.predicted, c.error_pct, s.resolved_settings,
                     e.memory.fits(), s.model.moe.has_value(), compute::band_regime(s), s.source_group});
    }
  }
  fold.held_out = out.size();
  return fold;
}

/// Predicted speed / measured speed: measured / predicted step time, the same number.
double speed_ratio(const CvPrediction& p) { return time_factor(p); }

/// The groups-equal weights of `preds` (1 / the run's group's count among them).
std::vector<double> group_weights(const std::vector<const CvPrediction*>& preds) {
  std::map<std::string, std::size_t> per_group;
  for (const auto* p : preds) ++per_group[p->source_group];
  std::vector<double> w;
  for (const auto* p : preds) w.push_back(1.0 / static_cast<double>(per_group[p->source_group]));
  return w;
}

/// The standard normal's 1 - `tail` quantile for each of kBandTails (NIST/SEMATECH e-Handbook of
/// Statistical Methods, 1.3.6.7.1, "Cumulative distribution function of the standard normal").
double normal_quantile_upper(double tail) {
  static constexpr std::pair<double, double> kZ[] = {
      {0.10, 1.2815515655}, {0.075, 1.4395314710}, {0.05, 1.6448536270}, {0.025, 1.9599639845}};
  for (const auto& [t, z] : kZ)
    if (std::fabs(t - tail) < 1e-12) return z;
  FLOPCAST_ASSERT(false, "log-normal band tail not in kBandTails");
  return 0;
}

std::optional<compute::BandQuantiles> quantiles_of(const std::vector<const CvPrediction*>& preds,
                                                   hardware::GpuArch arch, const std::string& regime,
                                                   const BandRule& rule) {
  if (preds.empty()) return std::nullopt;
  const auto w = group_weights(preds);
  std::vector<std::pair<double, double>> vw;
  std::map<std::string, int> groups;
  for (std::size_t i = 0; i < preds.size(); ++i) {
    vw.push_back({time_factor(*preds[i]), w[i]});
    ++groups[preds[i]->source_group];
  }
  compute::BandQuantiles q;
  q.arch = arch;
  q.regime = regime;
  q.runs = static_cast<int>(preds.size());
  q.groups = static_cast<int>(groups.size());
  q.p50 = weighted_quantile(vw, 0.5);
  if (rule.shape == BandShape::LogNormal) {
    std::tie(q.p10, q.p90) = log_normal_ends(vw, q.groups, rule.tail);
  } else {
    q.p10 = weighted_quantile(vw, rule.tail);
    q.p90 = weighted_quantile(vw, 1 - rule.tail);
  }
  return q;
}

CvSummary summarize(const std::string& name, const std::vector<const CvPrediction*>& preds) {
  CvSummary s;
  s.name = name;
  s.runs = preds.size();
  std::map<std::string, std::size_t> per_group;
  for (const auto* p : preds) ++per_group[p->source_group];
  s.groups = per_group.size();
  std::vector<std::pair<double, double>> weighted, ratios;
  std::vector<double> plain;
  for (const auto* p : preds) {
    const double w = 1.0 / static_cast<double>(per_group[p->source_group]);
    weighted.push_back({std::fabs(p->error_pct), w});
    ratios.push_back({speed_ratio(*p), w});
    plain.push_back(std::fabs(p->error_pct));
    if (p->fits_memory) ++s.memory_fits;
  }
  s.median_abs_pct = weighted_quantile(weighted, 0.5);
  s.p90_abs_pct = weighted_quantile(weighted, 0.9);
  s.median_abs_runs_pct = quantile(plain, 0.5);
  s.p90_abs_runs_pct = quantile(plain, 0.9);
  s.median_speed_ratio = weighted_quantile(ratios, 0.5);
  return s;
}

}  // namespace

double time_factor(const CvPrediction& p) {
  // Every speed figure but the step time grows with speed.
  return p.figure == "iteration_time_s" ? p.measured / p.predicted : p.predicted / p.measured;
}

std::string to_string(const BandRule& r) {
  return fmt::format("{}{:g}", r.shape == BandShape::LogNormal ? "lognormal " : "", r.tail);
}

std::pair<double, double> log_normal_ends(const std::vector<std::pair<double, double>>& vw, int groups, double tail) {
  double total = 0, mean = 0;
  for (const auto& [v, w] : vw) {
    FLOPCAST_ASSERT(v > 0, "a band factor must be positive");
    total += w;
    mean += w * std::log(v);
  }
  if (total <= 0) return {1, 1};
  mean /= total;
  double var = 0;
  for (const auto& [v, w] : vw) var += w * (std::log(v) - mean) * (std::log(v) - mean);
  var /= total;
  if (groups >= 2) var *= static_cast<double>(groups) / (groups - 1);
  const double spread = normal_quantile_upper(tail) * std::sqrt(var);
  return {std::exp(mean - spread), std::exp(mean + spread)};
}

std::vector<BandRule> band_rules() {
  std::vector<BandRule> out;
  for (BandShape shape : {BandShape::Empirical, BandShape::LogNormal})
    for (double t : kBandTails) out.push_back({shape, t});
  return out;
}

std::vector<compute::BandQuantiles> cv_band_quantiles(const CrossValidationResult& r, const std::string& exclude,
                                                      const BandTails& tails, const CrossValidationResult* loro) {
  std::vector<compute::BandQuantiles> out;
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    std::vector<const CvPrediction*> all, dense, moe;
    std::map<std::string, std::vector<const CvPrediction*>> regimes;
    for (const auto& p : r.predictions) {
      if (p.arch != a || (!exclude.empty() && p.source_group == exclude)) continue;
      all.push_back(&p);
      (p.moe ? moe : dense).push_back(&p);
      regimes[p.regime.key()].push_back(&p);
    }
    const BandRule& rule = tails[static_cast<std::size_t>(a)];
    for (auto [preds, regime] : {std::pair{&all, compute::kBandRegimeAll}, std::pair{&dense, compute::kBandRegimeDense},
                                 std::pair{&moe, compute::kBandRegimeMoe}})
      if (auto q = quantiles_of(*preds, a, regime, rule)) out.push_back(*q);
    if (!loro) continue;
    for (const auto& [key, preds] : regimes)
      if (auto q = quantiles_of(preds, a, key, rule)) out.push_back(*q);
  }
  if (!loro) return out;
  // Each generation's novel-regime spread: its runs predicted with their regime left out.
  const BandRule novel_rule{BandShape::LogNormal, 0.10};
  std::vector<const CvPrediction*> pooled;
  for (const auto& p : loro->predictions)
    if (exclude.empty() || p.source_group != exclude) pooled.push_back(&p);
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    std::vector<const CvPrediction*> own;
    for (const auto* p : pooled)
      if (p->arch == a) own.push_back(p);
    if (own.empty()) continue;
    auto q = quantiles_of(own, a, compute::kBandRegimeNovel, novel_rule);
    if (q && (q->runs < compute::kRegimeMinRuns || q->groups < compute::kRegimeMinGroups))
      q = quantiles_of(pooled, a, compute::kBandRegimeNovel, novel_rule);
    if (q) out.push_back(*q);
  }
  return out;
}

std::vector<BandCoverage> cv_band_coverage(const CrossValidationResult& r, const BandTails& tails,
                                           const CrossValidationResult* loro) {
  // Each run's band, from the other source groups' residuals.
  std::map<std::string, std::vector<compute::BandQuantiles>> without;
  for (const auto& p : r.predictions)
    if (!without.count(p.source_group)) without[p.source_group] = cv_band_quantiles(r, p.source_group, tails, loro);
  auto cover = [&](const std::string& name, const std::vector<const CvPrediction*>& preds) {
    BandCoverage c;
    c.name = name;
    c.runs = preds.size();
    const auto w = group_weights(preds);
    std::map<std::string, int> groups;
    double total = 0, in = 0, below = 0, above = 0;
    std::size_t in_runs = 0;
    for (std::size_t i = 0; i < preds.size(); ++i) {
      const auto& p = *preds[i];
      ++groups[p.source_group];
      total += w[i];
      const auto band =
          loro ? compute::widened_for_open_settings(compute::find_band(without[p.source_group], p.arch, p.regime),
                                                    p.settings.spread_p50, p.settings.spread_p90)
               : compute::find_band(without[p.source_group], p.arch, p.moe);
      const double f = time_factor(p);
      if (!band.known) {
        ++c.no_band;
      } else if (f < band.p10) {
        below += w[i];
      } else if (f > band.p90) {
        above += w[i];
      } else {
        in += w[i];
        ++in_runs;
      }
    }
    c.groups = groups.size();
    if (total > 0) {
      c.covered_pct = 100 * in / total;
      c.below_pct = 100 * below / total;
      c.above_pct = 100 * above / total;
      c.covered_runs_pct = 100 * static_cast<double>(in_runs) / static_cast<double>(preds.size());
    }
    return c;
  };
  std::vector<BandCoverage> out;
  std::vector<const CvPrediction*> everything;
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    std::vector<const CvPrediction*> preds;
    for (const auto& p : r.predictions)
      if (p.arch == a) preds.push_back(&p);
    if (!preds.empty()) out.push_back(cover(to_string(a), preds));
  }
  for (const auto& p : r.predictions) everything.push_back(&p);
  out.push_back(cover("overall", everything));
  return out;
}

BandTails choose_band_tails(const CrossValidationResult& r, const CrossValidationResult* loro) {
  BandTails best = kTenNinety;
  std::array<double, hardware::kGpuArchCount> gap;
  gap.fill(1e9);
  for (const BandRule& rule : band_rules()) {
    // A generation's coverage depends only on its own rule: one pass per candidate serves all three.
    for (const auto& c : cv_band_coverage(r, uniform_band_tails(rule), loro)) {
      for (hardware::GpuArch a : hardware::kGpuArchs) {
        const auto i = static_cast<std::size_t>(a);
        if (c.name != to_string(a)) continue;
        const double g = std::fabs(c.covered_pct - 80.0);
        if (g < gap[i] - 1e-9) best[i] = rule, gap[i] = g;
      }
    }
  }
  return best;
}

double weighted_quantile(std::vector<std::pair<double, double>> vw, double q) {
  if (vw.empty()) return 0;
  std::sort(vw.begin(), vw.end());
  if (vw.size() == 1) return vw[0].first;
  // Value i sits at (weight before it) / (total - last weight): 0 for the first, 1 for the last,
  // i / (n - 1) when the weights are equal (numpy's linear rule, as quantile()); linear between.
  double total = 0;
  for (const auto& [v, w] : vw) total += w;
  const double span = total - vw.back().second;
  double before = 0;
  double prev_pos = 0, prev_val = vw[0].first;
  for (std::size_t i = 0; i < vw.size(); ++i) {
    const double pos = span > 0 ? before / span : static_cast<double>(i) / static_cast<double>(vw.size() - 1);
    if (pos >= q) {
      if (i == 0 || pos <= prev_pos) return vw[i].first;
      return prev_val + (vw[i].first - prev_val) * (q - prev_pos) / (pos - prev_pos);
    }
    prev_pos = pos;
    prev_val = vw[i].first;
    before += vw[i].second;
  }
  return vw.back().first;
}

std::string cv_group_of(const scenario::Scenario& s, bool by_regime) {
  return by_regime ? std::string(to_string(s.cluster.gpu.arch)) + "." + compute::band_regime(s).key() : s.source_group;
}

CrossValidationResult cross_validate(const std::vector<scenario::Scenario>& runs, const compute::ComputeProfile& start,
                                     const CrossValidationOptions& options) {
  CrossValidationResult res;
  for (const auto& s : runs) {
    const std::string g = cv_group_of(s, options.by_regime);
    if (std::find(res.groups.begin(), res.groups.end(), g) == res.groups.end()) res.groups.push_back(g);
    if (primary_figure(s).empty()) res.skipped.push_back(s.id + ": no speed figure measured (memory only)");
  }
  if (res.groups.size() < 2) {
    res.error = "cross-validation needs at least two source groups; the runs form " +
                std::to_string(res.groups.size()) + (res.groups.empty() ? "" : " ('" + res.groups[0] + "')");
    return res;
  }
  const std::size_t n = res.groups.size();
  std::vector<CvFold> folds(n);
  std::vector<std::vector<CvPrediction>> preds(n);
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs =
      static_cast<int>(std::min<std::size_t>(n, static_cast<std::size_t>(options.jobs > 0 ? options.jobs : hw)));
  exec::parallel_for(n, jobs,
                     [&](std::size_t i, int) { folds[i] = fit_fold(runs, res.groups[i], start, options, preds[i]); });
  res.folds = std::move(folds);
  for (auto& p : preds) res.predictions.insert(res.predictions.end(), p.begin(), p.end());
  return res;
}

std::vector<CvSummary> cv_by_group(const CrossValidationResult& r) {
  std::vector<CvSummary> out;
  for (const auto& g : r.groups) {
    std::vector<const CvPrediction*> preds;
    for (const auto& p : r.predictions)
      if (p.group == g) preds.push_back(&p);
    out.push_back(summarize(g, preds));
  }
  return out;
}

std::vector<CvSummary> cv_by_generation(const CrossValidationResult& r) {
  std::vector<CvSummary> out;
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    std::vector<const CvPrediction*> preds;
    for (const auto& p : r.predictions)
      if (p.arch == a) preds.push_back(&p);
    if (!preds.empty()) out.push_back(summarize(to_string(a), preds));
  }
  return out;
}

CvSummary cv_overall(const CrossValidationResult& r) {
  std::vector<const CvPrediction*> preds;
  for (const auto& p : r.predictions) preds.push_back(&p);
  return summarize("overall", preds);
}

}  // namespace flopcast::calibrate

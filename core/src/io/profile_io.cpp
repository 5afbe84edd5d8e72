#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "flopcast/io/catalog.hpp"
#include "yaml_util.hpp"

namespace flopcast::io {

using detail::child;
using detail::Reader;

namespace {

/// `prediction_bands:` {provenance: TEXT, GENERATION[.REGIME]: {runs, groups, p10, p50, p90}}.
void parse_bands(Reader& r, const YAML::Node& node, compute::ComputeProfile& p) {
  if (!r.expect_map(node, "prediction_bands")) return;
  p.bands.clear();
  p.bands_provenance.clear();
  std::vector<std::string> keys{"provenance"};
  for (hardware::GpuArch a : hardware::kGpuArchs)
    for (const char* regime : {"", ".dense", ".moe", ".novel"}) keys.push_back(std::string(to_string(a)) + regime);
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const std::string path = child("prediction_bands", key);
    if (key == "provenance") {
      if (auto v = r.string(kv.second, path)) p.bands_provenance = *v;
      continue;
    }
    // GENERATION.REGIME with a regime key (dense.full.16bit.megatron) is a regime's own band.
    const auto first_dot = key.find('.');
    const bool regime_key = first_dot != std::string::npos && hardware::parse_gpu_arch(key.substr(0, first_dot)) &&
                            compute::is_regime_key(key.substr(first_dot + 1));
    if (!regime_key && std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string hint =
          "keys are provenance, GENERATION, GENERATION.dense / .moe / .novel, or GENERATION.REGIME with a regime "
          "dense|moe . full|finetune . 16bit|8bit|4bit . megatron|torchtitan, e.g. hopper.dense.full.8bit.megatron";
      if (auto dm = detail::did_you_mean(key, keys)) hint = "did you mean '" + *dm + "'?";
      r.error(kv.first, path, "unknown band '" + key + "'", hint);
      continue;
    }
    if (!r.expect_map(kv.second, path)) continue;
    r.check_keys(kv.second, path, {"runs", "groups", "p10", "p50", "p90"});
    compute::BandQuantiles q;
    const auto dot = key.find('.');
    const std::string arch = key.substr(0, dot);
    for (hardware::GpuArch a : hardware::kGpuArchs)
      if (arch == to_string(a)) q.arch = a;
    q.regime = dot == std::string::npos ? compute::kBandRegimeAll : key.substr(dot + 1);
    bool ok = true;
    auto count = [&](const char* k, int& slot) {
      if (!kv.second[k]) {
        r.error(kv.second, child(path, k), std::string("missing '") + k + "'",
                "as written by calibrate --cv source -o");
        ok = false;
      } else if (auto v = r.integer(kv.second[k], child(path, k), 1, 100000000)) {
        slot = static_cast<int>(*v);
      } else {
        ok = false;
      }
    };
    auto factor = [&](const char* k, double& slot) {
      if (!kv.second[k]) {
        r.error(kv.second, child(path, k), std::string("missing '") + k + "'",
                "as written by calibrate --cv source -o");
        ok = false;
      } else if (auto v = r.number(kv.second[k], child(path, k), 0.01, 100.0)) {
        slot = *v;
      } else {
        ok = false;
      }
    };
    count("runs", q.runs);
    count("groups", q.groups);
    factor("p10", q.p10);
    factor("p50", q.p50);
    factor("p90", q.p90);
    if (ok && !(q.p10 <= q.p50 && q.p50 <= q.p90)) {
      r.error(kv.second, path, "p10, p50 and p90 must not decrease", "they are quantiles of one distribution");
      ok = false;
    }
    if (ok) p.bands.push_back(q);
  }
}

/// The coefficients every generation shares (gemm_k_half ... fragmentation), each within its
/// physical range.
void read_shared_coefficients(const YAML::Node& root, Reader& r, compute::ComputeProfile& p) {
  auto num = [&](const char* key, double lo, double hi, double& slot) {
    if (root[key])
      if (auto v = r.number(root[key], key, lo, hi)) slot = *v;
  };
  num("gemm_k_half", 0, 4096, p.gemm_k_half);
  num("gemm_epilogue_exposed", 0, 1, p.gemm_epilogue_exposed);
  num("attention_kv_half", 0, 65536, p.attention_kv_half);
  num("kernel_overhead_us", 0, 1000, p.kernel_overhead_us);
  num("benchmark_overhead_us", 0, 1000, p.benchmark_overhead_us);
  num("host_overhead_us", 0, 1000, p.host_overhead_us);
  num("microbatch_overhead_ms", 0, 10000, p.microbatch_overhead_ms);
  num("iteration_overhead_ms", 0, 60000, p.iteration_overhead_ms);
  num("nic_efficiency", 0.05, 1.0, p.nic_efficiency);
  num("nvlink_efficiency", 0.05, 1.0, p.nvlink_efficiency);
  num("collective_latency_us", 0, compute::kCollectiveLatencyMaxUs, p.collective_latency_us);
  num("dispatch_efficiency", 0.05, 1.0, p.dispatch_efficiency);
  num("dispatch_rdma_efficiency", 0.05, 1.0, p.dispatch_rdma_efficiency);
  num("dispatch_sm_gbps", 0, 1000, p.dispatch_sm_gbps);
  num("dispatch_copy_ns", 0, 100000, p.dispatch_copy_ns);
  num("workspace_gib", 0, 1024, p.workspace_gib);
  num("fragmentation", 0, 1, p.fragmentation);
}

}  // namespace

std::optional<compute::ComputeProfile> parse_profile(const std::string& text, const std::string& file,
                                                     const compute::ComputeProfile& base,
                                                     scenario::Diagnostics& diags) {
  const YAML::Node root = detail::load_yaml(text, file, diags);
  if (!root.IsDefined()) return std::nullopt;
  Reader r(file, diags, nullptr);
  const auto before = diags.items().size();
  if (!r.expect_map(root, "")) return std::nullopt;
  r.check_keys(root, "",
               {"base",
                "name",
                "provenance",
                "sources",
                "ampere",
                "hopper",
                "blackwell",
                "blackwell_ultra",
                "ada",
                "gemm_k_half",
                "gemm_epilogue_exposed",
                "attention_kv_half",
                "kernel_overhead_us",
                "benchmark_overhead_us",
                "host_overhead_us",
                "microbatch_overhead_ms",
                "iteration_overhead_ms",
                "nic_efficiency",
                "nvlink_efficiency",
                "collective_latency_us",
                "dispatch_efficiency",
                "dispatch_rdma_efficiency",
                "dispatch_sm_gbps",
                "dispatch_copy_ns",
                "workspace_gib",
                "fragmentation",
                "fitted_runs",
                "held",
                "kernel_fitted",
                "prediction_bands"});
  // `base: builtin` starts from the built-in defaults (ComputeProfile{}) instead of the catalog's
  // profile: a starting profile for calibrate whose meaning does not depend on the shipped one.
  compute::ComputeProfile p = base;
  if (const auto b = root["base"]) {
    if (auto v = r.choice(b, "base", {"builtin"})) p = compute::ComputeProfile{};
  }
  if (root["name"]) p.name = root["name"].as<std::string>();
  if (root["provenance"]) p.provenance = root["provenance"].as<std::string>();
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    const std::string key = to_string(a);
    const auto n = root[key];
    if (!n) continue;
    if (!r.expect_map(n, key)) continue;
    // A generation the base ran on a stand-in for: what these coefficients rest on is not known
    // unless fitted_runs says.
    if (!p.listed[static_cast<std::size_t>(a)]) p.fitted_runs[static_cast<std::size_t>(a)] = -1;
    p.listed[static_cast<std::size_t>(a)] = true;
    // The generation's coefficients (profile_parameters(): Ampere has no 8-bit path, so no
    // gemm_fp8 or attention_fp8; only Blackwell's generations have 4-bit ones).
    std::vector<std::string> allowed;
    const std::string prefix = key + ".";
    for (const auto& q : compute::profile_parameters())
      if (q.name.rfind(prefix, 0) == 0) allowed.push_back(q.name.substr(prefix.size()));
    r.check_keys(n, key, allowed);
    for (const auto& q : compute::profile_parameters()) {
      if (q.name.rfind(prefix, 0) != 0) continue;
      const std::string coefficient = q.name.substr(prefix.size());
      if (!n[coefficient]) continue;
      // A grouped GEMM may outpace a dense one; the collective floor is microseconds; every other
      // coefficient is a fraction of a peak.
      const bool latency = coefficient == "collective_latency_us";
      if (auto v = r.number(n[coefficient], child(key, coefficient), latency ? 0.0 : 0.01,
                            latency                                     ? compute::kCollectiveLatencyMaxUs
                            : coefficient.rfind("grouped_gemm", 0) == 0 ? 2.0
                                                                        : 1.0)) {
        *q.slot(p) = *v;
        // Without a figure of its own an 8-bit GEMM reaches what a 16-bit one does (tied).
        if (coefficient == "gemm_fp8") p.of(a).fp8_apart = true;
      }
    }
  }
  // A list of coefficient names (held, kernel_fitted).
  auto names_of = [&](const char* key, std::vector<std::string>& out) {
    const auto list = root[key];
    if (!list) return;
    if (!list.IsSequence()) {
      r.error(list, key, "expected a list of coefficient names",
              std::string("e.g. ") + key + ": [kernel_overhead_us, hopper.hbm]");
      return;
    }
    std::vector<std::string> names;
    for (const auto& q : compute::profile_parameters()) names.push_back(q.name);
    out.clear();
    for (const auto& h : list) {
      const auto name = h.IsScalar() ? h.Scalar() : std::string();
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        std::string hint = "a coefficient calibrate fits: " + detail::join(names);
        if (auto dm = detail::did_you_mean(name, names)) hint = "did you mean '" + *dm + "'?";
        r.error(h, key, "unknown coefficient '" + name + "'", hint);
        continue;
      }
      out.push_back(name);
    }
  };
  names_of("held", p.held);
  names_of("kernel_fitted", p.kernel_fitted);
  if (const auto fr = root["fitted_runs"]) {
    if (r.expect_map(fr, "fitted_runs")) {
      r.check_keys(fr, "fitted_runs", {"ampere", "hopper", "blackwell", "blackwell_ultra", "ada"});
      for (hardware::GpuArch a : hardware::kGpuArchs) {
        const auto v = fr[to_string(a)];
        if (!v) continue;
        // A generation the profile gives no coefficients of runs on its stand-in's: it was
        // fitted on nothing.
        if (!p.listed[static_cast<std::size_t>(a)]) {
          r.error(
              v, child("fitted_runs", to_string(a)),
              std::string("the profile gives no ") + to_string(a) + " coefficients",
              std::string("add ") + to_string(a) + ": {gemm: ..., flash_attention: ..., hbm: ...} or remove this key");
          continue;
        }
        if (auto n = r.integer(v, child("fitted_runs", to_string(a)), 0, 100000000))
          p.fitted_runs[static_cast<std::size_t>(a)] = static_cast<int>(*n);
      }
    }
  }
  if (const auto bands = root["prediction_bands"]) parse_bands(r, bands, p);
  read_shared_coefficients(root, r, p);
  for (std::size_t i = before; i < diags.items().size(); ++i)
    if (diags.items()[i].severity == scenario::Severity::Error) return std::nullopt;
  p.fill_stand_ins();
  return p;
}

std::optional<compute::ComputeProfile> load_profile(const std::string& name_or_path, const Catalog& catalog,
                                                    scenario::Diagnostics& diags) {
  std::ifstream in(name_or_path, std::ios::binary);
  if (in) {
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_profile(ss.str(), name_or_path, catalog.profile, diags);
  }
  if (auto text = read_data_file(catalog.data_dir, "profiles/" + name_or_path + ".yaml"))
    return parse_profile(*text, "profiles/" + name_or_path + ".yaml", catalog.profile, diags);
  diags.error({}, "calibration", "profile '" + name_or_path + "' not found",
              "give a profile file path (as written by `flopcast calibrate -o FILE`) or a name in data/profiles/");
  return std::nullopt;
}

std::string profile_to_yaml(const compute::ComputeProfile& p) {
  std::ostringstream o;
  char buf[64];
  auto f = [&](double v) {
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  o << "# flopcast calibration profile (format: docs/calibration.md)\n";
  o << "name: " << p.name << "\n";
  o << "provenance: |\n";
  std::istringstream prov(p.provenance.empty() ? std::string("(none)") : p.provenance);
  for (std::string line; std::getline(prov, line);) o << "  " << line << "\n";
  // A generation the profile does not list stays unlisted (it takes its stand-in's coefficients
  // when read back).
  for (hardware::GpuArch a : hardware::kGpuArchs) {
    if (!p.listed[static_cast<std::size_t>(a)]) continue;
    // Every coefficient the generation has, but a tied one (gemm_fp8 not apart, NaN).
    const std::string prefix = std::string(to_string(a)) + ".";
    compute::ComputeProfile copy = p;
    const char* sep = "";
    o << to_string(a) << ": {";
    for (const auto& q : compute::profile_parameters()) {
      if (q.name.rfind(prefix, 0) != 0) continue;
      const std::string coefficient = q.name.substr(prefix.size());
      const double v = *q.slot(copy);
      if (std::isnan(v) || (coefficient == "gemm_fp8" && !p.of(a).fp8_apart)) continue;
      o << sep << coefficient << ": " << f(v);
      sep = ", ";
    }
    o << "}\n";
  }
  o << "gemm_k_half: " << f(p.gemm_k_half) << "\n";
  if (p.gemm_epilogue_exposed > 0) o << "gemm_epilogue_exposed: " << f(p.gemm_epilogue_exposed) << "\n";
  o << "attention_kv_half: " << f(p.attention_kv_half) << "\n";
  o << "kernel_overhead_us: " << f(p.kernel_overhead_us) << "\n";
  o << "benchmark_overhead_us: " << f(p.benchmark_overhead_us) << "\n";
  o << "host_overhead_us: " << f(p.host_overhead_us) << "\n";
  o << "microbatch_overhead_ms: " << f(p.microbatch_overhead_ms) << "\n";
  o << "iteration_overhead_ms: " << f(p.iteration_overhead_ms) << "\n";
  o << "nic_efficiency: " << f(p.nic_efficiency) << "\n";
  o << "nvlink_efficiency: " << f(p.nvlink_efficiency) << "\n";
  o << "collective_latency_us: " << f(p.collective_latency_us) << "\n";
  o << "dispatch_efficiency: " << f(p.dispatch_efficiency) << "\n";
  if (p.dispatch_rdma_efficiency > 0) o << "dispatch_rdma_efficiency: " << f(p.dispatch_rdma_efficiency) << "\n";
  o << "dispatch_sm_gbps: " << f(p.dispatch_sm_gbps) << "\n";
  o << "dispatch_copy_ns: " << f(p.dispatch_copy_ns) << "\n";
  o << "workspace_gib: " << f(p.workspace_gib) << "\n";
  o << "fragmentation: " << f(p.fragmentation) << "\n";
  const auto write_names = [&o](const char* key, const std::vector<std::string>& names) {
    if (names.empty()) return;
    o << key << ": [";
    for (std::size_t i = 0; i < names.size(); ++i) o << (i ? ", " : "") << names[i];
    o << "]\n";
  };
  write_names("held", p.held);
  write_names("kernel_fitted", p.kernel_fitted);
  const auto recorded = [&](hardware::GpuArch a) {
    return p.listed[static_cast<std::size_t>(a)] && p.fitted_runs[static_cast<std::size_t>(a)] >= 0;
  };
  if (std::any_of(hardware::kGpuArchs.begin(), hardware::kGpuArchs.end(), recorded)) {
    // Runs each generation's coefficients were fitted on (0: prior only).
    o << "fitted_runs: {";
    const char* sep = "";
    for (hardware::GpuArch a : hardware::kGpuArchs) {
      if (!recorded(a)) continue;
      const int n = p.fitted_runs[static_cast<std::size_t>(a)];
      o << sep << to_string(a) << ": " << n;
      sep = ", ";
    }
    o << "}\n";
  }
  if (!p.bands.empty()) {
    // Cross-validated residual quantiles: measured / predicted step time (prediction_band.hpp).
    o << "prediction_bands:\n";
    if (!p.bands_provenance.empty()) o << "  provenance: \"" << p.bands_provenance << "\"\n";
    for (const auto& b : p.bands)
      o << "  " << to_string(b.arch) << (b.regime == compute::kBandRegimeAll ? std::string() : "." + b.regime)
        << ": {runs: " << b.runs << ", groups: " << b.groups << ", p10: " << f(b.p10) << ", p50: " << f(b.p50)
        << ", p90: " << f(b.p90) << "}\n";
  }
  return o.str();
}

}  // namespace flopcast::io

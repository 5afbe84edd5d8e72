#include "flopcast/io/kernel_runs.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>

#include "yaml_util.hpp"

namespace flopcast::io {

using detail::child;
using detail::Reader;

namespace {

/// The element types an entry may name: the precisions flopcast knows, and `none` for untyped
/// bytes (a copy, a collective of raw bytes).
const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = {"fp32", "tf32",  "fp16",  "bf16", "fp8",
                                                 "fp4",  "mxfp8", "nvfp4", "none"};
  return names;
}

/// A YAML scalar as a finite number, or nullopt ("2.7x", "73.7% peak BW" are not numbers).
std::optional<double> as_number(const YAML::Node& n) {
  if (!n.IsScalar()) return std::nullopt;
  const std::string& s = n.Scalar();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end == s.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

/// A measured figure under the name and unit compare_kernel reads: time_ms and gpu_time_us as
/// time_us, terabytes per second as gigabytes per second.
std::pair<std::string, double> normalised(const std::string& key, double v) {
  if (key == "time_ms") return {"time_us", v * 1e3};
  if (key == "gpu_time_us") return {"time_us", v};
  if (const auto at = key.find("_tbytes_s"); at != std::string::npos)
    return {key.substr(0, at) + "_gbytes_s" + key.substr(at + 9), v * 1e3};
  return {key, v};
}

void read_shape(const YAML::Node& shape, const std::string& p, Reader& r, calibrate::KernelMeasurement& k) {
  if (!shape || !shape.IsMap()) {
    r.error(shape ? shape : YAML::Node(), child(p, "shape"), "missing shape", "give the kernel's dimensions");
    return;
  }
  for (const auto& kv : shape) {
    const std::string key = kv.first.Scalar();
    if (kv.second.IsSequence()) {
      for (const auto& d : kv.second) {
        const auto v = as_number(d);
        if (!v || *v <= 0) {
          r.error(d, child(p, "shape." + key), "expected a list of positive dimensions");
          k.dims.clear();
          break;
        }
        k.dims.push_back(*v);
      }
    } else if (kv.second.IsScalar()) {
      k.shape[key] = kv.second.Scalar();
    }
  }
}

void read_measured(const YAML::Node& m, const std::string& p, Reader& r, calibrate::KernelMeasurement& k) {
  if (!m || !m.IsMap()) {
    r.error(m ? m : YAML::Node(), child(p, "measured"), "missing measured figures", "give at least one figure");
    return;
  }
  for (const auto& kv : m) {
    const auto v = as_number(kv.second);
    if (!v) continue;  // "2.7x", "73.7% peak BW": metadata printed beside the figure
    const std::string key = kv.first.Scalar();
    if (*v <= 0) {
      r.error(kv.second, child(p, "measured." + key), "a measured figure must be positive");
      continue;
    }
    const auto [name, value] = normalised(key, *v);
    k.measured.emplace(name, value);  // a figure given twice (time_ms and gpu_time_us): the first
  }
}

void read_entry(const YAML::Node& n, const std::string& p, Reader& r, const Catalog& catalog,
                calibrate::KernelMeasurement& k) {
  r.check_keys(n, p, {"id", "source", "kind", "gpu", "dtype", "shape", "measured", "notes"});
  k.where = detail::loc_of(n, r.file());
  if (auto v = r.string(n["id"], child(p, "id"))) k.id = *v;
  if (!n["id"]) r.error(n, child(p, "id"), "missing required key 'id'", "every measurement needs a unique id");
  if (n["source"]) k.source = n["source"].as<std::string>("");
  if (!n["source"])
    r.error(n, child(p, "source"), "missing required key 'source'", "cite where the measurement comes from");
  if (const auto kind = r.string(n["kind"], child(p, "kind"))) {
    if (const auto kk = calibrate::parse_kernel_kind(*kind)) {
      k.kind = *kk;
    } else {
      std::string hint = "expected one of gemm, grouped_gemm, attention, collective, memory_bound, step_breakdown";
      if (auto dm = detail::did_you_mean(*kind, calibrate::kernel_kind_names()))
        hint = "did you mean '" + *dm + "'? (" + hint + ")";
      r.error(n["kind"], child(p, "kind"), "unknown kernel kind '" + *kind + "'", hint);
    }
  } else if (!n["kind"]) {
    r.error(n, child(p, "kind"), "missing required key 'kind'");
  }
  if (const auto gpu = r.string(n["gpu"], child(p, "gpu"))) {
    if (const auto* g = catalog.find_gpu(*gpu)) {
      k.gpu = *g;
      if (const auto* f = catalog.find_fabric(g->default_fabric)) k.fabric = *f;
    } else {
      r.error(n["gpu"], child(p, "gpu"), "unknown GPU '" + *gpu + "'", unknown_gpu_hint(catalog, *gpu));
    }
  } else if (!n["gpu"]) {
    r.error(n, child(p, "gpu"), "missing required key 'gpu'");
  }
  if (const auto dtype = r.string(n["dtype"], child(p, "dtype"))) {
    if (*dtype != "none") {
      if (const auto pr = hardware::parse_precision(*dtype)) {
        k.dtype = *pr;
      } else {
        std::string hint = "expected fp32, tf32, fp16, bf16, fp8, fp4, mxfp8, nvfp4 or none";
        if (auto dm = detail::did_you_mean(*dtype, dtype_names())) hint = "did you mean '" + *dm + "'? (" + hint + ")";
        r.error(n["dtype"], child(p, "dtype"), "unknown dtype '" + *dtype + "'", hint);
      }
    }
  } else if (!n["dtype"]) {
    r.error(n, child(p, "dtype"), "missing required key 'dtype'");
  }
  read_shape(n["shape"], p, r, k);
  read_measured(n["measured"], p, r, k);
  if (const auto notes = n["notes"]) {
    if (notes.IsSequence())
      for (const auto& x : notes) k.notes.push_back(x.as<std::string>(""));
    else if (notes.IsScalar())
      k.notes.push_back(notes.Scalar());
  }
}

}  // namespace

bool is_kernel_file(const std::string& text) {
  try {
    const auto root = YAML::Load(text);
    return root.IsSequence() && root.size() > 0 && root[0].IsMap() && root[0]["shape"] && !root[0]["model"];
  } catch (const YAML::Exception&) {
    return false;
  }
}

std::vector<calibrate::KernelMeasurement> parse_kernel_file(const std::string& text, const std::string& file,
                                                            const Catalog& catalog, scenario::Diagnostics& diags) {
  std::vector<calibrate::KernelMeasurement> out;
  const YAML::Node root = detail::load_yaml(text, file, diags);
  if (!root.IsDefined()) return out;
  if (!root.IsSequence()) {
    diags.error(detail::loc_of(root, file), "", "a kernel measurement file must be a YAML list");
    return out;
  }
  for (std::size_t i = 0; i < root.size(); ++i) {
    const auto n = root[i];
    Reader r(file, diags, nullptr);
    const auto before = diags.items().size();
    const std::string p = n.IsMap() && n["id"] && n["id"].IsScalar() ? n["id"].Scalar() : "[" + std::to_string(i) + "]";
    if (!r.expect_map(n, p)) continue;
    calibrate::KernelMeasurement k;
    read_entry(n, p, r, catalog, k);
    if (diags.items().size() == before) out.push_back(std::move(k));
  }
  return out;
}

}  // namespace flopcast::io

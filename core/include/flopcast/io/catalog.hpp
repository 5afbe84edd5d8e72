#pragma once
/// The catalogs (data/gpus.yaml, fabrics.yaml, models.yaml, profiles/) loaded from the
/// binary's embedded copy or from `--data-dir DIR`.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/hardware/gpu_spec.hpp"
#include "flopcast/scenario/diagnostic.hpp"
#include "flopcast/workload/model_spec.hpp"

namespace flopcast::io {

/// Everything the loaders resolve names against.
struct Catalog {
  std::vector<hardware::GpuSpec> gpus;
  std::vector<hardware::FabricSpec> fabrics;
  std::vector<workload::ModelSpec> models;
  compute::ComputeProfile profile;  ///< data/profiles/default.yaml
  std::string data_dir;             ///< "" = the embedded copy

  /// Case-insensitive match on name or alias; nullptr when unknown.
  const hardware::GpuSpec* find_gpu(std::string_view name) const;
  const hardware::FabricSpec* find_fabric(std::string_view name) const;
  const workload::ModelSpec* find_model(std::string_view name) const;
  std::vector<std::string> gpu_names() const;
  std::vector<std::string> fabric_names() const;
  std::vector<std::string> model_names() const;
};

/// The catalog GPU of the same part family as `name` nearest to it (by edit distance), or
/// nullopt when none is. A part family is a part number, letters then digits ("H20", "A100",
/// "RTX4090", spaces, dashes and a leading "NVIDIA" or "GeForce" ignored, a letter O inside the
/// digits read as 0): two names share it when their digits are equal and one's letters end with
/// the other's ("GB300x" and "B300" do, "H20" and "H200" do not: a different part).
std::optional<std::string> same_family_gpu(const Catalog& catalog, std::string_view name);
/// The hint of an unknown GPU: a same-family suggestion when there is one, the known GPUs, and
/// how to add one (a gpus.yaml entry in a catalog folder given as --data-dir).
std::string unknown_gpu_hint(const Catalog& catalog, std::string_view name);

/// Reads a catalog file: from `data_dir` when not empty, else the embedded copy.
/// nullopt when it exists in neither.
std::optional<std::string> read_data_file(const std::string& data_dir, const std::string& relative_path);

/// Loads every catalog. Problems go to `diags`; nullopt when any is fatal.
std::optional<Catalog> load_catalog(const std::string& data_dir, scenario::Diagnostics& diags);

/// Parses a calibration profile (YAML text) over `base`.
std::optional<compute::ComputeProfile> parse_profile(const std::string& text, const std::string& file,
                                                     const compute::ComputeProfile& base, scenario::Diagnostics& diags);
/// Loads a profile by file path, or by name from data/profiles/<name>.yaml.
std::optional<compute::ComputeProfile> load_profile(const std::string& name_or_path, const Catalog& catalog,
                                                    scenario::Diagnostics& diags);
/// Writes a profile as YAML text (the format parse_profile reads).
std::string profile_to_yaml(const compute::ComputeProfile& p);

}  // namespace flopcast::io

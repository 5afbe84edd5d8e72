#include "flopcast/io/collective_runs.hpp"

#include <yaml-cpp/yaml.h>

#include "yaml_util.hpp"

namespace flopcast::io {

using detail::child;
using detail::Reader;

bool is_collective_run_file(const std::string& text) {
  try {
    const auto root = YAML::Load(text);
    return root.IsSequence() && root.size() > 0 && root[0].IsMap() && root[0]["collective"];
  } catch (const YAML::Exception&) {
    return false;
  }
}

std::vector<CollectiveRun> parse_collective_runs(const std::string& text, const std::string& file,
                                                 const Catalog& catalog, scenario::Diagnostics& diags) {
  std::vector<CollectiveRun> out;
  const YAML::Node root = detail::load_yaml(text, file, diags);
  if (!root.IsDefined()) return out;
  if (!root.IsSequence()) {
    diags.error(detail::loc_of(root, file), "", "a collective benchmark file must be a YAML list");
    return out;
  }
  for (std::size_t i = 0; i < root.size(); ++i) {
    const auto n = root[i];
    Reader r(file, diags, nullptr);
    const auto before = diags.items().size();
    const std::string p = "[" + std::to_string(i) + "]";
    if (!r.expect_map(n, p)) continue;
    r.check_keys(n, p,
                 {"id", "source", "gpu", "gpus", "gpus_per_node", "fabric", "collective", "message_bytes", "measured",
                  "notes", "kind"});
    CollectiveRun run;
    run.where = detail::loc_of(n, file);
    if (n["id"]) run.id = n["id"].as<std::string>("");
    if (n["source"]) run.source = n["source"].as<std::string>("");
    if (!n["gpu"] || !n["gpus"] || !n["collective"]) {
      r.error(n, p, "a collective point needs gpu, gpus and collective");
      continue;
    }
    if (const auto* g = catalog.find_gpu(n["gpu"].as<std::string>("")))
      run.gpu = *g;
    else
      r.error(n["gpu"], child(p, "gpu"), "unknown GPU '" + n["gpu"].as<std::string>("") + "'",
              unknown_gpu_hint(catalog, n["gpu"].as<std::string>("")));
    if (auto v = r.integer(n["gpus"], child(p, "gpus"), 1, 1'000'000)) run.gpus = *v;
    if (n["gpus_per_node"]) {
      if (auto v = r.integer(n["gpus_per_node"], child(p, "gpus_per_node"), 1, 1024))
        run.gpus_per_node = static_cast<int>(*v);
    }
    if (const auto* f = catalog.find_fabric(run.gpu.default_fabric)) run.fabric = *f;
    if (const auto fab = n["fabric"]; fab && fab.IsMap()) {
      if (fab["kind"])
        if (auto v = r.choice(fab["kind"], child(p, "fabric.kind"), {"infiniband", "roce", "ethernet"}))
          run.fabric.kind = *hardware::parse_net_kind(*v);
      if (fab["nic_gbps"])
        if (auto v = r.number(fab["nic_gbps"], child(p, "fabric.nic_gbps"), 1, 1e5)) run.fabric.nic_gbps = *v;
      if (fab["nics_per_node"])
        if (auto v = r.integer(fab["nics_per_node"], child(p, "fabric.nics_per_node"), 1, 1024))
          run.fabric.nics_per_node = static_cast<int>(*v);
    }
    // A node-sized NVLink domain follows the node size given here; a rack-scale one (NVL72) stays.
    if (run.fabric.nvlink_domain <= run.fabric.gpus_per_node || run.fabric.nvlink_domain < run.gpus_per_node)
      run.fabric.nvlink_domain = run.gpus_per_node;
    run.fabric.gpus_per_node = run.gpus_per_node;
    if (auto op = comm::parse_collective(n["collective"].as<std::string>("")))
      run.op = *op;
    else
      r.error(n["collective"], child(p, "collective"),
              "unknown collective '" + n["collective"].as<std::string>("") + "'");
    if (n["message_bytes"] && !n["message_bytes"].IsNull()) {
      if (auto v = r.number(n["message_bytes"], child(p, "message_bytes"), 1, 1e15)) run.message_bytes = *v;
    }
    if (n["notes"] && n["notes"].IsScalar() && n["notes"].Scalar().find("NCCL_ALGO=RING") != std::string::npos)
      run.force_ring = true;
    if (const auto m = n["measured"]; m && m.IsMap()) {
      for (const auto& kv : m) {
        const auto key = kv.first.Scalar();
        if (key != "busbw_gbytes_s" && key != "algbw_gbytes_s" && key != "time_us") {
          r.error(kv.first, child(p, "measured." + key), "unknown measured figure '" + key + "'",
                  "expected busbw_gbytes_s, algbw_gbytes_s or time_us");
          continue;
        }
        if (auto v = r.number(kv.second, child(p, "measured." + key), 1e-9, 1e12)) run.measured[key] = *v;
      }
    } else {
      r.error(n, child(p, "measured"), "missing measured figures");
    }
    if (diags.items().size() == before) out.push_back(std::move(run));
  }
  return out;
}

}  // namespace flopcast::io

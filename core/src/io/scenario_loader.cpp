#include "flopcast/io/scenario_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "flopcast/io/price_catalog_io.hpp"  // reliability: and pricing: blocks
#include "flopcast/io/units_parse.hpp"
#include "flopcast/scenario/scenario_check.hpp"
#include "training_block.hpp"
#include "unit_reader.hpp"
#include "yaml_util.hpp"

namespace flopcast::io {

void read_model_fields(const YAML::Node& n, const std::string& path, detail::Reader& r, workload::ModelSpec& m,
                       bool catalog_entry, std::vector<std::string>* defaults);

namespace {

using detail::child;
using detail::Reader;

void read_model(const YAML::Node& n, Reader& r, const Catalog& cat, scenario::Scenario& s) {
  r.note("model", n);
  if (!n) {
    r.error(n, "model", "missing required key 'model'",
            "give a preset name (see `flopcast catalog models`) or a mapping of layers, hidden, heads, vocab, seq_len");
    return;
  }
  auto from_preset = [&](const YAML::Node& name_node, const std::string& key) -> bool {
    const auto name = name_node.as<std::string>();
    if (const auto* m = cat.find_model(name)) {
      s.model = *m;
      return true;
    }
    std::string hint = "known presets: " + detail::join(cat.model_names());
    if (auto dm = detail::did_you_mean(name, cat.model_names())) hint = "did you mean '" + *dm + "'?";
    r.error(name_node, key, "unknown model preset '" + name + "'", hint);
    return false;
  };
  if (n.IsScalar()) {
    from_preset(n, "model");
    return;
  }
  if (!r.expect_map(n, "model")) return;
  r.check_keys(n, "model", {"preset",   "name",    "layers",  "hidden",   "heads",      "kv_heads",      "ffn",
                            "ffn_kind", "vocab",   "seq_len", "head_dim", "embeddings", "position",      "norm",
                            "bias",     "dropout", "moe",     "mla",      "mtp_layers", "sliding_window"});
  if (n["preset"]) {
    r.note("model.preset", n["preset"]);
    if (!from_preset(n["preset"], "model.preset")) return;
  } else {
    s.model.name = "custom";
  }
  if (n["name"]) s.model.display = n["name"].as<std::string>();
  read_model_fields(n, "model", r, s.model, false, &s.defaults_applied);
  if (s.model.display.empty()) s.model.display = s.model.name;
}

/// A number as a scenario would write it ("400", "1.5").
std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

/// A `cluster.fabric` mapping: a preset or the GPU's usual node (`base`), with the keys it gives
/// replacing the base's. A partial block (a kind without a rate, say) takes the rest from the
/// base, each such value listed as a default.
/// Returns where the values it did not state came from ("" when nothing was taken from a base).
std::string read_fabric_block(const YAML::Node& fab, Reader& r, const Catalog& cat, const hardware::FabricSpec* base,
                              scenario::Scenario& s) {
  auto& c = s.cluster;
  r.note("cluster.fabric", fab);
  r.check_keys(fab, "cluster.fabric", {"preset", "kind", "nic_gbps", "nic", "nics_per_node", "oversubscription"});
  if (fab["preset"]) {
    if (const auto* f = cat.find_fabric(fab["preset"].as<std::string>()))
      base = f;
    else
      r.error(fab["preset"], "cluster.fabric.preset", "unknown fabric '" + fab["preset"].as<std::string>() + "'",
              "known fabrics: " + detail::join(cat.fabric_names()));
  }
  if (base) c.fabric = *base;
  c.fabric.name = "custom";
  c.fabric.description = "from the scenario's cluster.fabric";
  if (fab["kind"]) {
    if (auto v = r.choice(fab["kind"], "cluster.fabric.kind", {"infiniband", "roce", "ethernet"}))
      c.fabric.kind = *hardware::parse_net_kind(*v);
  }
  // NIC line rate, Gb/s per NIC. Today's fastest port is InfiniBand XDR at 800 Gb/s (IB lane
  // rates EDR 100, HDR 200, NDR 400, XDR 800: SB, NCCL src/transport/net_ib/init.cc);
  // 1 Gb/s to 10^5 Gb/s (125x XDR) leaves room for any real or planned NIC while keeping the
  // transfer times of a 10^13-parameter model's gradients (1.6e14 B at 1 Gb/s: 1.3e6 s) far
  // inside Time's int64-nanosecond range (292 years).
  constexpr double kMinNicGbps = 1, kMaxNicGbps = 1e5;
  if (fab["nic_gbps"]) {
    if (auto v = detail::read_quantity(r, fab["nic_gbps"], "cluster.fabric.nic_gbps", detail::kGbitPerS, kMinNicGbps,
                                       kMaxNicGbps))
      c.fabric.nic_gbps = *v;
  }
  if (fab["nic"]) {  // unit string, e.g. "400 Gbps"
    r.note("cluster.fabric.nic", fab["nic"]);
    const auto bw = fab["nic"].IsScalar() ? parse_bandwidth(fab["nic"].Scalar()) : std::nullopt;
    const double gbps = bw ? bw->bytes_per_s * 8 / 1e9 : 0.0;
    if (!bw) {
      r.error(fab["nic"], "cluster.fabric.nic", "bad bandwidth " + detail::describe(fab["nic"]),
              "write a finite number with a unit, e.g. \"400 Gbps\" or \"50 GB/s\"");
    } else if (!(gbps >= kMinNicGbps && gbps <= kMaxNicGbps)) {
      r.error(fab["nic"], "cluster.fabric.nic",
              "bandwidth " + detail::describe(fab["nic"]) + " is out of range: expected 1 Gbps to 100000 Gbps",
              "a NIC's line rate, e.g. \"400 Gbps\" (NDR InfiniBand) or \"800 Gbps\" (XDR)");
    } else {
      c.fabric.nic_gbps = gbps;
    }
  }
  if (fab["nics_per_node"]) {
    if (auto v = r.integer(fab["nics_per_node"], "cluster.fabric.nics_per_node", 1, 1024))
      c.fabric.nics_per_node = static_cast<int>(*v);
  }
  if (fab["oversubscription"]) {
    if (auto v = r.number(fab["oversubscription"], "cluster.fabric.oversubscription", 1, 100))
      c.fabric.oversubscription = *v;
  }
  if (!base) return "";
  const std::string from =
      base == cat.find_fabric(c.gpu.default_fabric) ? base->name + ", the GPU's usual node" : base->name;
  if (!fab["nic_gbps"] && !fab["nic"])
    s.defaults_applied.push_back("cluster.fabric.nic_gbps = " + number_text(c.fabric.nic_gbps) + " (from " + from +
                                 ")");
  if (!fab["oversubscription"])
    s.defaults_applied.push_back("cluster.fabric.oversubscription = " + number_text(c.fabric.oversubscription) +
                                 " (from " + from + ")");
  return fab["nics_per_node"] ? "" : from;
}

/// cluster.gpus_per_node, and what follows from it: a node-sized NVLink domain follows the
/// node size, and NICs the scenario did not count keep the base node's NICs per GPU (a GB200
/// tray of 4 GPUs out of a 72-GPU NVL72 rack has 4 of its 72 NICs). `nics_from` names the
/// base node the NIC count came from ("" when the scenario stated it); `node_type` the catalog's
/// node type the scenario runs on ("" for a node it describes itself), which holds at most its
/// gpus_per_node GPUs.
void read_node_size(const YAML::Node& n, Reader& r, scenario::Scenario& s, const std::string& nics_from,
                    bool from_block, const std::string& node_type) {
  auto& c = s.cluster;
  if (n["gpus_per_node"]) {
    if (auto v = r.integer(n["gpus_per_node"], "cluster.gpus_per_node", 1, 1024)) {
      c.gpus_per_node = static_cast<int>(*v);
      const int holds = c.fabric.gpus_per_node;
      if (!node_type.empty() && holds > 0 && c.gpus_per_node > holds)
        r.error(n["gpus_per_node"], "cluster.gpus_per_node",
                std::to_string(c.gpus_per_node) + " GPUs per node, but the node type '" + node_type + "' holds " +
                    std::to_string(holds),
                "write gpus_per_node: " + std::to_string(holds) +
                    " or fewer, or describe a larger node in a cluster.fabric mapping without a preset");
    }
  } else {
    c.gpus_per_node = c.fabric.gpus_per_node > 0 ? c.fabric.gpus_per_node : 8;
    s.defaults_applied.push_back("cluster.gpus_per_node = " + std::to_string(c.gpus_per_node));
  }
  // A job spread over part of its last node is legal but rarely meant: say so (a job smaller than
  // one node, a single-node experiment, is common and not warned about).
  if (c.gpus > c.gpus_per_node && c.gpus_per_node > 0 && c.gpus % c.gpus_per_node != 0) {
    const std::int64_t below = c.gpus / c.gpus_per_node * c.gpus_per_node, above = below + c.gpus_per_node;
    r.diags().warning(detail::loc_of(n["gpus"], r.file()), "cluster.gpus",
                      std::to_string(c.gpus) + " GPUs are not a multiple of gpus_per_node " +
                          std::to_string(c.gpus_per_node) + ": the last node is only partly used",
                      "use whole nodes, e.g. gpus: " + std::to_string(below) + " or " + std::to_string(above));
  }
  if (!nics_from.empty()) {
    const int base_nics = c.fabric.nics_per_node, base_gpus = std::max(1, c.fabric.gpus_per_node);
    const bool scaled = c.gpus_per_node != base_gpus;
    if (scaled)
      c.fabric.nics_per_node =
          std::max(1, static_cast<int>(std::lround(static_cast<double>(base_nics) * c.gpus_per_node / base_gpus)));
    if (scaled || from_block)
      s.defaults_applied.push_back("cluster.fabric.nics_per_node = " + std::to_string(c.fabric.nics_per_node) +
                                   " (from " + nics_from + ": " + std::to_string(base_nics) + " NICs per " +
                                   std::to_string(base_gpus) + " GPUs)");
  }
  // A node-sized NVLink domain follows the node size; a rack-scale one stays: HGX/DGX boards
  // join 8 GPUs through their NVSwitches, a GB200 NVL72 rack 72 over its 18 trays of 4
  // (NV-GB200TBL), so a domain above 8 spans nodes.
  constexpr int kBoardDomain = 8;
  const bool rack_scale = c.fabric.nvlink_domain > kBoardDomain;
  if ((!rack_scale && c.fabric.nvlink_domain <= c.fabric.gpus_per_node) || c.fabric.nvlink_domain < c.gpus_per_node)
    c.fabric.nvlink_domain = c.gpus_per_node;
  c.fabric.gpus_per_node = c.gpus_per_node;
}

void read_cluster(const YAML::Node& n, Reader& r, const Catalog& cat, scenario::Scenario& s) {
  r.note("cluster", n);
  if (!n) {
    r.error(n, "cluster", "missing required key 'cluster'", "add cluster: {gpu: H100, gpus: 64}");
    return;
  }
  if (!r.expect_map(n, "cluster")) return;
  r.check_keys(n, "cluster", {"gpu", "gpus", "gpus_per_node", "fabric"});
  auto& c = s.cluster;
  if (!n["gpu"]) {
    r.error(n, "cluster.gpu", "missing required key 'gpu'", "one of: " + detail::join(cat.gpu_names()));
  } else if (auto name = r.string(n["gpu"], "cluster.gpu")) {
    if (const auto* g = cat.find_gpu(*name)) {
      c.gpu = *g;
    } else {
      r.error(n["gpu"], "cluster.gpu", "unknown GPU '" + *name + "'", unknown_gpu_hint(cat, *name));
    }
  }
  if (!n["gpus"]) {
    r.error(n, "cluster.gpus", "missing required key 'gpus'", "the number of GPUs of the job, e.g. gpus: 64");
  } else if (auto v = r.integer(n["gpus"], "cluster.gpus", 1, kMaxGpus)) {
    c.gpus = *v;
  }
  const hardware::FabricSpec* base = c.gpu.default_fabric.empty() ? nullptr : cat.find_fabric(c.gpu.default_fabric);
  const auto fab = n["fabric"];
  std::string nics_from;  // where an unstated NIC count came from
  std::string node_type;  // the catalog's node type the cluster is made of, if any
  if (!fab) {
    if (base) {
      c.fabric = *base;
      s.defaults_applied.push_back("cluster.fabric = " + base->name + " (the GPU's usual node)");
      nics_from = base->name + ", the GPU's usual node";
      node_type = base->name;
    }
  } else if (fab.IsScalar()) {
    r.note("cluster.fabric", fab);
    if (const auto* f = cat.find_fabric(fab.Scalar())) {
      c.fabric = *f;
      nics_from = f->name;
      node_type = f->name;
    } else {
      std::string hint = "known fabrics: " + detail::join(cat.fabric_names());
      if (auto dm = detail::did_you_mean(fab.Scalar(), cat.fabric_names())) hint = "did you mean '" + *dm + "'?";
      r.error(fab, "cluster.fabric", "unknown fabric '" + fab.Scalar() + "'", hint);
    }
  } else if (r.expect_map(fab, "cluster.fabric")) {
    nics_from = read_fabric_block(fab, r, cat, base, s);
    if (fab["preset"] && fab["preset"].IsScalar() && cat.find_fabric(fab["preset"].Scalar()))
      node_type = cat.find_fabric(fab["preset"].Scalar())->name;
  }
  read_node_size(n, r, s, nics_from, fab && fab.IsMap(), node_type);
}

bool is_auto(const YAML::Node& n) { return n && n.IsScalar() && n.Scalar() == "auto"; }

/// The degrees tp, pp, cp, ep, etp, dp (derived when absent).
void read_degrees(const YAML::Node& n, Reader& r, scenario::Scenario& s) {
  auto& p = s.plan;
  auto deg = [&](const char* key, auto& slot, std::int64_t hi) {
    if (n[key]) {
      if (auto v = r.integer(n[key], child("parallel", key), 1, hi))
        slot = static_cast<std::remove_reference_t<decltype(slot)>>(*v);
    } else if (std::string_view(key) != "dp") {
      s.defaults_applied.push_back(std::string("parallel.") + key + " = 1");
    }
  };
  deg("tp", p.tp, kMaxGpus);
  deg("pp", p.pp, kMaxGpus);
  deg("cp", p.cp, kMaxGpus);
  deg("ep", p.ep, kMaxGpus);
  if (n["etp"]) {
    if (auto v = r.integer(n["etp"], "parallel.etp", 1, kMaxGpus)) p.etp = static_cast<int>(*v);
  } else if (s.model.moe) {
    s.defaults_applied.push_back("parallel.etp = tp = " + std::to_string(p.tp));
  }
  if (n["dp"]) {
    if (auto v = r.integer(n["dp"], "parallel.dp", 1, kMaxGpus)) p.dp = *v;
  } else {
    const std::int64_t denom = static_cast<std::int64_t>(p.tp) * p.pp * p.cp;
    p.dp = denom > 0 && s.cluster.gpus % denom == 0 ? s.cluster.gpus / denom : 0;
    if (p.dp == 0) {
      r.error(n, "parallel.dp",
              "cannot derive dp: tp*pp*cp = " + std::to_string(denom) + " does not divide gpus " +
                  std::to_string(s.cluster.gpus),
              "choose tp, pp, cp whose product divides cluster.gpus, or give dp");
      p.dp = 1;
    } else {
      s.defaults_applied.push_back("parallel.dp = gpus/(tp*pp*cp) = " + std::to_string(p.dp));
    }
  }
}

/// The settings a source often leaves out (run-schema.md): micro_batch, zero, recompute,
/// sequence_parallel, vpp. Each is stated, `auto`, or absent. Absent in a measured run it is
/// unknown (left open, like `auto`); absent in a scenario it takes its default. Open settings
/// keep a valid placeholder until resolved (core/estimate/setting_resolution.hpp).
void read_open_settings(const YAML::Node& n, Reader& r, scenario::Scenario& s, bool run_entry) {
  auto& p = s.plan;
  auto& open = s.open_settings;
  // Returns true when the key is to be read as written; false when it is open or defaulted.
  auto stated = [&](const char* key, bool& open_slot, const std::string& default_text) {
    const auto node = n[key];
    if (is_auto(node) || (!node && run_entry)) {
      r.note(child("parallel", key), node ? node : n);
      open_slot = true;
      return false;
    }
    if (!node) {
      s.defaults_applied.push_back("parallel." + std::string(key) + " = " + default_text);
      return false;
    }
    return true;
  };
  if (stated("vpp", open.vpp, "1")) {
    if (auto v = r.integer(n["vpp"], "parallel.vpp", 1, 1024)) p.vpp = static_cast<int>(*v);
  }
  if (stated("sequence_parallel", open.sequence_parallel, "false")) {
    if (auto v = r.boolean(n["sequence_parallel"], "parallel.sequence_parallel")) p.sequence_parallel = *v;
  }
  if (stated("zero", open.zero, "0")) {
    if (auto v = r.integer(n["zero"], "parallel.zero", 0, 3)) p.zero = static_cast<int>(*v);
  }
  if (stated("micro_batch", open.micro_batch, "1")) {
    if (auto v = r.integer(n["micro_batch"], "parallel.micro_batch", 1, 1'000'000'000)) p.micro_batch = *v;
  }
  if (stated("recompute", open.recompute, "none")) {
    if (auto v = r.choice(n["recompute"], "parallel.recompute", {"none", "selective", "full", "auto"}))
      p.recompute = *parallel::parse_recompute(*v);
  }
  open.schedule_stated = static_cast<bool>(n["schedule"]);
  if (n["schedule"]) {
    if (auto v = r.choice(n["schedule"], "parallel.schedule",
                          {"gpipe", "1f1b", "interleaved", "zero-bubble", "dualpipe", "dualpipev"}))
      p.schedule = *parallel::parse_schedule(*v);
    // An open vpp under a stated interleaved schedule starts at 2 (the resolution picks).
    if (open.vpp && p.schedule == parallel::Schedule::Interleaved) p.vpp = 2;
  } else {
    p.schedule = p.vpp > 1 ? parallel::Schedule::Interleaved : parallel::Schedule::OneFOneB;
    if (!open.vpp) s.defaults_applied.push_back(std::string("parallel.schedule = ") + to_string(p.schedule));
  }
}

/// parallel.pipeline_layout, parallel.moe_dispatcher and parallel.fsdp (the run schema's 2026 keys).
/// The layout's fit to the layers, pp and vpp is check_scenario's.
void read_parallel_2026(const YAML::Node& n, Reader& r, scenario::Scenario& s) {
  auto& p = s.plan;
  if (const auto l = n["pipeline_layout"]) {
    r.note("parallel.pipeline_layout", l);
    if (r.expect_map(l, "parallel.pipeline_layout")) {
      r.check_keys(l, "parallel.pipeline_layout",
                   {"first_stage_layers", "last_stage_layers", "account_for_embedding", "account_for_loss"});
      parallel::PipelineLayout layout;
      const int layers = s.model.layers;
      auto stage_layers = [&](const char* key, int& slot, const char* which) {
        if (!l[key]) return;
        const std::string path = std::string("parallel.pipeline_layout.") + key;
        const auto v = r.integer(l[key], path, INT32_MIN, INT32_MAX);
        if (!v) return;
        if (*v < 1)
          r.error(l[key], path, std::string(key) + " must be at least 1, got " + std::to_string(*v),
                  std::string("the layers of the ") + which + " pipeline rank, over all its virtual stages");
        else if (layers > 0 && *v > layers)
          r.error(l[key], path,
                  std::string(key) + " " + std::to_string(*v) + " exceeds layers " + std::to_string(layers),
                  std::string("the layers of the ") + which +
                      " pipeline rank, over all its virtual stages (Megatron-LM --decoder-" + which +
                      "-pipeline-num-layers); the other ranks share the rest evenly");
        else
          slot = static_cast<int>(*v);
      };
      stage_layers("first_stage_layers", layout.first_stage_layers, "first");
      stage_layers("last_stage_layers", layout.last_stage_layers, "last");
      if (l["account_for_embedding"]) {
        if (auto v = r.boolean(l["account_for_embedding"], "parallel.pipeline_layout.account_for_embedding"))
          layout.account_for_embedding = *v;
      }
      if (l["account_for_loss"]) {
        if (auto v = r.boolean(l["account_for_loss"], "parallel.pipeline_layout.account_for_loss"))
          layout.account_for_loss = *v;
      }
      p.pipeline_layout = layout;
    }
  }
  if (n["moe_dispatcher"] && !is_auto(n["moe_dispatcher"])) {
    if (auto v =
            r.choice(n["moe_dispatcher"], "parallel.moe_dispatcher", {"alltoall", "allgather", "deepep", "hybridep"}))
      p.moe_dispatcher = *parallel::parse_moe_dispatcher(*v);
  }
  // Its fit to the model, the precision and the dispatcher is check_scenario's.
  if (n["moe_dispatch_dtype"]) {
    if (auto v = r.choice(n["moe_dispatch_dtype"], "parallel.moe_dispatch_dtype", {"bf16", "fp8", "mxfp8"}))
      p.dispatch_dtype = *parallel::parse_dispatch_dtype(*v);
  }
  if (const auto f = n["fsdp"]) {
    r.note("parallel.fsdp", f);
    if (r.expect_map(f, "parallel.fsdp")) {
      r.check_keys(f, "parallel.fsdp", {"reshard_after_forward"});
      parallel::FsdpSpec fsdp;
      if (f["reshard_after_forward"]) {
        if (auto v = r.boolean(f["reshard_after_forward"], "parallel.fsdp.reshard_after_forward"))
          fsdp.reshard_after_forward = *v;
      } else {
        s.defaults_applied.push_back("parallel.fsdp.reshard_after_forward = true");
      }
      p.fsdp = fsdp;
      // FSDP2 shards parameters, gradients and optimizer state: ZeRO-3. An unstated (or auto)
      // zero is that; a stated other stage contradicts it.
      if (!n["zero"] || is_auto(n["zero"])) {
        s.open_settings.zero = false;
        p.zero = 3;
        std::erase(s.defaults_applied, std::string("parallel.zero = 0"));
        s.defaults_applied.push_back("parallel.zero = 3 (fsdp: full shard)");
      } else if (p.zero != 3) {
        r.error(n["zero"], "parallel.zero",
                "zero " + std::to_string(p.zero) +
                    " contradicts parallel.fsdp, which shards parameters, gradients "
                    "and optimizer state (ZeRO-3)",
                "write zero: 3 (or leave zero out) with fsdp, or drop fsdp");
      }
    }
  }
}

void read_parallel(const YAML::Node& n, Reader& r, scenario::Scenario& s, bool run_entry) {
  r.note("parallel", n);
  if (!n) {
    r.error(n, "parallel", "missing required key 'parallel'", "at least parallel: {global_batch: N}");
    return;
  }
  if (!r.expect_map(n, "parallel")) return;
  r.check_keys(n, "parallel",
               {"tp",
                "pp",
                "dp",
                "cp",
                "ep",
                "etp",
                "vpp",
                "sequence_parallel",
                "zero",
                "micro_batch",
                "global_batch",
                "recompute",
                "schedule",
                "overlap_dp_comm",
                "overlap_tp_comm",
                "overlap_ep_comm",
                "overlap_pp_comm",
                "pipeline_layout",
                "moe_dispatcher",
                "moe_dispatch_dtype",
                "fsdp"});
  auto& p = s.plan;
  read_degrees(n, r, s);
  if (!n["global_batch"]) {
    r.error(n, "parallel.global_batch", "missing required key 'global_batch'",
            "sequences per optimizer step, e.g. global_batch: 512");
  } else if (auto v = r.integer(n["global_batch"], "parallel.global_batch", 1, 1'000'000'000'000)) {
    p.global_batch = *v;
  }
  read_open_settings(n, r, s, run_entry);
  read_parallel_2026(n, r, s);
  auto flag = [&](const char* key, bool& slot, bool dflt) {
    if (n[key]) {
      if (auto v = r.boolean(n[key], child("parallel", key))) slot = *v;
    } else {
      slot = dflt;
    }
  };
  // Megatron-LM leaves --overlap-grad-reduce off by default and runs TP collectives in the
  // critical path unless --tp-comm-overlap is given (megatron/training/arguments.py). Its
  // pipeline send/recv block the stage until done (p2p_communication.py waits on the
  // requests) unless --overlap-p2p-communication is given, which is off by default and
  // applies to the interleaved schedule only.
  flag("overlap_dp_comm", p.overlap_dp_comm, false);
  flag("overlap_pp_comm", p.overlap_pp_comm, false);
  // overlap_tp_comm is a setting a source often leaves out (NeMo and Megatron-Bridge recipes set
  // tp_comm_overlap per model): `auto`, or absent from a measured run with tp > 1 whose sequence
  // parallelism is not stated off, it is open (Megatron-LM allows the overlap only with sequence
  // parallelism, arguments.py); otherwise as written, default false.
  const auto tp_overlap = n["overlap_tp_comm"];
  const bool sp_possible = s.open_settings.sequence_parallel || p.sequence_parallel;
  if (is_auto(tp_overlap) || (!tp_overlap && run_entry && p.tp > 1 && sp_possible)) {
    r.note(child("parallel", "overlap_tp_comm"), tp_overlap ? tp_overlap : n);
    s.open_settings.overlap_tp_comm = true;
    p.overlap_tp_comm = false;
  } else {
    flag("overlap_tp_comm", p.overlap_tp_comm, false);
  }
  // overlap_ep_comm (Megatron-core --overlap-moe-expert-parallel-comm, Megatron-Bridge's
  // moe_a2a_overlap) is set per recipe and rarely published: `auto`, or absent from a measured
  // run with ep > 1, it is open; otherwise as written, default false.
  const auto ep_overlap = n["overlap_ep_comm"];
  if (is_auto(ep_overlap) || (!ep_overlap && run_entry && p.ep > 1)) {
    r.note(child("parallel", "overlap_ep_comm"), ep_overlap ? ep_overlap : n);
    s.open_settings.overlap_ep_comm = true;
    p.overlap_ep_comm = false;
  } else {
    flag("overlap_ep_comm", p.overlap_ep_comm, false);
  }
  // moe_dispatcher: recipes pick it per model and GPU (Megatron-Bridge's performance recipes:
  // HybridEP on GB200 and B200, alltoall for Qwen3 235B on H100) and sources rarely say which:
  // `auto`, or absent from a measured run with ep > 1, it is open (alltoall, DeepEP, Hybrid-EP).
  const auto dispatcher = n["moe_dispatcher"];
  if (is_auto(dispatcher) || (!dispatcher && run_entry && p.ep > 1)) {
    r.note(child("parallel", "moe_dispatcher"), dispatcher ? dispatcher : n);
    s.open_settings.moe_dispatcher = true;
    p.moe_dispatcher.reset();
  }
}

void read_claimed(const YAML::Node& n, Reader& r, scenario::Scenario& s) {
  r.note("claimed", n);
  if (!r.expect_map(n, "claimed")) return;
  r.check_keys(n, "claimed",
               {"mfu", "days", "memory_gb", "tokens_per_day", "bubble_fraction", "step_time_s", "tflops_per_gpu",
                "gpu_hours", "cost", "note"});
  for (const auto& kv : n) {
    const auto key = kv.first.Scalar();
    if (key == "note") {
      s.claimed.note = kv.second.as<std::string>();
      continue;
    }
    if (key == "cost") {  // free text such as "$10,900": carried, not checked
      s.claimed.note +=
          (s.claimed.note.empty() ? "" : "; ") + std::string("claimed cost ") + kv.second.as<std::string>();
      continue;
    }
    const double hi = key == "mfu" || key == "bubble_fraction" ? 1.0 : 1e18;
    if (auto v = r.number(kv.second, "claimed." + key, 0, hi)) s.claimed.figures[key] = *v;
  }
}

void read_measured(const YAML::Node& n, Reader& r, scenario::Scenario& s) {
  r.note("measured", n);
  if (!r.expect_map(n, "measured")) return;
  r.check_keys(n, "measured",
               {"iteration_time_s", "tokens_per_gpu_s", "mfu", "tflops_per_gpu", "memory_gib", "memory_kind",
                "flops_convention"});
  for (const auto& kv : n) {
    const auto key = kv.first.Scalar();
    if (key == "memory_kind" || key == "flops_convention") continue;
    const double hi = key == "mfu" ? 1.0 : 1e12;
    if (auto v = r.number(kv.second, "measured." + key, 1e-12, hi)) s.measured[key] = *v;
  }
  for (const char* key : {"mfu", "tflops_per_gpu"})
    if (s.measured.count(key)) s.measured_as_stated[key] = s.measured[key];
  if (const auto k = n["memory_kind"]) {
    if (auto v = r.choice(k, "measured.memory_kind", {"allocated", "reserved"}))
      s.memory_kind = *v == "allocated" ? scenario::MemoryKind::Allocated : scenario::MemoryKind::Reserved;
    if (!n["memory_gib"])
      r.error(k, "measured.memory_kind", "memory_kind says what memory_gib counts, but the run gives no memory_gib",
              "add memory_gib (the peak memory per GPU), or remove memory_kind");
  }
  if (const auto c = n["flops_convention"]) {
    if (auto v = r.choice(c, "measured.flops_convention", {"model", "model_full_attention", "hardware", "megatron"})) {
      s.flops_convention = *scenario::parse_flops_convention(*v);
      s.flops_convention_stated = true;
    }
    if (!n["mfu"] && !n["tflops_per_gpu"])
      r.error(c, "measured.flops_convention",
              "flops_convention says how mfu and tflops_per_gpu were counted, but the run gives neither",
              "add the run's mfu or tflops_per_gpu, or remove flops_convention");
  }
  const std::size_t figures = n.size() - (n["memory_kind"] ? 1 : 0) - (n["flops_convention"] ? 1 : 0);
  if (figures == 0)
    r.error(n, "measured", "no measured figure",
            "give at least one of iteration_time_s, tokens_per_gpu_s, mfu, tflops_per_gpu, memory_gib");
}

/// bf16_layers: {first, last}, the transformer blocks an 8- or 4-bit recipe keeps in BF16
/// (Megatron-core's first_last_layers_bf16 with num_layers_at_start_in_bf16 and
/// num_layers_at_end_in_bf16). Needs the model, the precision and the training block.
void read_bf16_layers(const YAML::Node& n, Reader& r, scenario::Scenario& s) {
  r.note("bf16_layers", n);
  if (!r.expect_map(n, "bf16_layers")) return;
  r.check_keys(n, "bf16_layers", {"first", "last"});
  if (!n["first"] && !n["last"]) {
    r.error(n, "bf16_layers", "bf16_layers names no layers", "give first, last or both: {first: 1, last: 1}");
    return;
  }
  const int layers = s.model.layers;
  if (layers < 1) return;  // the model's own error is reported
  auto count = [&](const char* key) {
    if (!n[key]) return 0;
    const auto v = r.integer(n[key], std::string("bf16_layers.") + key, 0, layers);
    return v ? static_cast<int>(*v) : 0;
  };
  s.bf16_layers.first = count("first");
  s.bf16_layers.last = count("last");
  const int kept = s.bf16_layers.first + s.bf16_layers.last;
  if (hardware::bytes_per_element(s.precision) >= 2) {
    r.error(n, "bf16_layers",
            std::string("bf16_layers keeps layers of an 8- or 4-bit run in BF16, but the precision is ") +
                to_string(s.precision),
            "use precision fp8, mxfp8 or nvfp4, or drop bf16_layers");
  } else if (s.training.method != workload::TrainingMethod::Full) {
    r.error(n, "bf16_layers", "bf16_layers applies to full training",
            "a fine-tuning's base weights take their format from training.lora.base_weights; drop bf16_layers");
  } else if (kept > layers) {
    r.error(n, "bf16_layers",
            "bf16_layers keeps " + std::to_string(kept) + " layers in BF16 but the model has " + std::to_string(layers),
            "keep at most " + std::to_string(layers) + " in all (every layer in BF16 is precision: bf16)");
  }
}

/// fp8_params and grad_reduce: stated, `auto`, or absent (open in a measured run, as the
/// parallel settings a source leaves out; the default in a scenario); and the MoE dispatch's dtype
/// listed among the defaults where it could be quantized but is not stated. Needs the precision.
void read_state_dtypes(const YAML::Node& root, Reader& r, scenario::Scenario& s, bool run_entry) {
  const bool fp8 = hardware::bytes_per_element(s.precision) < 2;
  const auto f = root["fp8_params"];
  if (is_auto(f) || (!f && run_entry && fp8)) {
    if (f) r.note("fp8_params", f);
    s.open_settings.fp8_params = true;
    if (!fp8)
      r.error(f, "fp8_params", std::string("fp8_params needs an FP8 precision, got ") + to_string(s.precision),
              "use precision fp8 (or mxfp8, nvfp4 on Blackwell), or drop fp8_params");
  } else if (!f && fp8) {
    s.defaults_applied.push_back("fp8_params = false");
  } else if (f) {
    if (auto v = r.boolean(f, "fp8_params")) {
      s.fp8_params = *v;
      if (*v && !fp8)
        r.error(f, "fp8_params", std::string("fp8_params needs an FP8 precision, got ") + to_string(s.precision),
                "use precision fp8 (or mxfp8, nvfp4 on Blackwell), or drop fp8_params");
    }
  }
  // An 8-bit MoE run with expert parallelism that does not say how its dispatch travels sends
  // 16-bit tokens, every framework's default (Megatron-core moe_dispatch_fwd_dtype 'bf16';
  // DeepEP's dispatch of a BF16 tensor).
  const auto parallel = root["parallel"];
  if (fp8 && s.model.moe && s.plan.ep > 1 && !(parallel.IsMap() && parallel["moe_dispatch_dtype"]))
    s.defaults_applied.push_back("parallel.moe_dispatch_dtype = bf16");
  // Megatron-LM: --accumulate-allreduce-grads-in-fp32 (on for bf16, arguments.py) or
  // --grad-reduce-in-bf16; NeMo / Megatron-Bridge: grad_reduce_in_fp32.
  const bool fp32_params = s.precision == hardware::Precision::FP32 || s.precision == hardware::Precision::TF32;
  const std::string half = s.precision == hardware::Precision::FP16 ? "fp16" : "bf16";
  const bool fp16_grads = s.precision == hardware::Precision::FP16;
  const auto g = root["grad_reduce"];
  if (is_auto(g) || (!g && run_entry && !fp32_params)) {
    if (g) r.note("grad_reduce", g);
    s.open_settings.grad_reduce = !fp32_params;
    return;
  }
  if (!g) {
    // Megatron-LM's defaults: fp32 main grads for bf16 and FP8 (arguments.py), fp16 for fp16.
    if (!fp32_params) s.defaults_applied.push_back(std::string("grad_reduce = ") + (fp16_grads ? "fp16" : "fp32"));
    return;
  }
  if (auto v = r.choice(g, "grad_reduce", {"fp32", "bf16", "fp16", "auto"})) {
    if (*v == "fp32") {
      s.grad_reduce = scenario::GradReduce::FP32;
    } else if (fp32_params || *v != half) {
      r.error(g, "grad_reduce",
              "grad_reduce " + *v + " needs " + *v + " parameters, got precision " + to_string(s.precision),
              fp32_params ? "fp32 training reduces fp32 gradients: drop grad_reduce or write fp32"
                          : "write grad_reduce: " + half + " (the parameters' 16-bit dtype) or fp32");
    } else {
      s.grad_reduce = scenario::GradReduce::Half;
    }
  }
}

std::optional<scenario::Scenario> read_scenario(const YAML::Node& root, const std::string& file, const Catalog& cat,
                                                scenario::Diagnostics& diags, bool run_entry, bool run_checks = true) {
  scenario::Scenario s;
  s.locations[""] = {file, 0, 0};
  Reader r(file, diags, &s.locations);
  const auto before = diags.items().size();
  if (!root.IsMap()) {
    r.error(root, "", run_entry ? "a measured run must be a mapping" : "a scenario file must be a YAML mapping",
            "see scenarios/quickstart.yaml for the format");
    return std::nullopt;
  }
  r.note("", root);
  if (run_entry) {
    r.check_keys(root, "",
                 {"id",         "source",      "source_group", "model",       "cluster",   "parallel",    "precision",
                  "fp8_params", "grad_reduce", "bf16_layers",  "measured",    "kind",      "reliability", "notes",
                  "training",   "name",        "description",  "calibration", "attention", "elementwise"});
  } else {
    r.check_keys(root, "", {"name",       "description",  "model",       "cluster",    "parallel",    "precision",
                            "training",   "reliability",  "pricing",     "claimed",    "calibration", "id",
                            "source",     "source_group", "measured",    "kind",       "notes",       "attention",
                            "fp8_params", "grad_reduce",  "elementwise", "bf16_layers"});
  }
  if (root["name"]) s.name = root["name"].as<std::string>("");
  if (root["description"]) s.description = root["description"].as<std::string>("");
  read_model(root["model"], r, cat, s);
  read_cluster(root["cluster"], r, cat, s);
  read_parallel(root["parallel"], r, s, run_entry);
  if (!root["precision"]) {
    r.error(root, "precision", "missing required key 'precision'", "one of fp32, fp16, bf16, fp8, mxfp8, nvfp4");
  } else if (auto v = r.choice(root["precision"], "precision", {"fp32", "fp16", "bf16", "fp8", "mxfp8", "nvfp4"})) {
    s.precision = *hardware::parse_precision(*v);
  }
  read_state_dtypes(root, r, s, run_entry);
  if (root["attention"]) {
    if (auto v = r.choice(root["attention"], "attention", {"flash", "unfused"})) s.plan.flash_attention = *v == "flash";
  } else {
    s.defaults_applied.push_back("attention = flash");
  }
  if (root["elementwise"]) {
    if (auto v = r.choice(root["elementwise"], "elementwise", {"fused", "eager"}))
      s.plan.fused_elementwise = *v == "fused";
  } else if (s.plan.fsdp) {
    // Under FSDP2 (torchtitan) fusing is the user's choice (torch.compile): say which was taken.
    s.defaults_applied.push_back("elementwise = fused (torch.compile; without it: elementwise: eager)");
  }
  if (const auto t = root["training"]) detail::read_training(t, r, s);  // training_block.cpp
  if (const auto k = root["bf16_layers"]) read_bf16_layers(k, r, s);
  if (root["calibration"]) {
    if (auto v = r.string(root["calibration"], "calibration")) s.calibration = *v;
  }
  if (const auto rel = root["reliability"]) {
    if (rel.IsScalar()) {
      s.reliability_grade = rel.Scalar();  // run-schema metadata grade (A/B/C)
    } else {
      r.note("reliability", rel);
      parse_reliability_block(rel, file, diags, s.reliability, s.locations);
      s.has_reliability = true;
    }
  }
  if (const auto pr = root["pricing"]) {
    r.note("pricing", pr);
    parse_pricing_block(pr, file, diags, s.pricing, s.locations);
    s.has_pricing = true;
  }
  if (root["claimed"]) read_claimed(root["claimed"], r, s);
  if (root["id"]) s.id = root["id"].as<std::string>("");
  if (root["source"]) s.source = root["source"].as<std::string>("");
  if (root["source_group"]) {
    if (auto v = r.string(root["source_group"], "source_group")) s.source_group = *v;
  } else if (run_entry) {
    // Cross-validation groups runs by publication; a file without the key is one publication.
    s.source_group = std::filesystem::path(file).stem().string();
  }
  if (root["kind"]) s.kind = root["kind"].as<std::string>("");
  if (const auto notes = root["notes"]) {
    if (notes.IsSequence())
      for (const auto& x : notes) s.notes.push_back(x.as<std::string>(""));
    else if (notes.IsScalar())
      s.notes.push_back(notes.Scalar());
  }
  if (run_entry) {
    if (s.id.empty()) r.error(root, "id", "missing required key 'id'", "every measured run needs a unique id");
    if (!root["source"])
      r.error(root, "source", "missing required key 'source'", "cite where the measurement comes from");
    if (!root["measured"])
      r.error(root, "measured", "missing required key 'measured'", "give at least one measured figure");
  }
  if (root["measured"]) read_measured(root["measured"], r, s);

  bool structural_errors = false;
  for (std::size_t i = before; i < diags.items().size(); ++i)
    if (diags.items()[i].severity == scenario::Severity::Error) structural_errors = true;
  if (structural_errors) return std::nullopt;
  if (!run_checks) return s;
  scenario::check_scenario(s, diags);
  for (std::size_t i = before; i < diags.items().size(); ++i)
    if (diags.items()[i].severity == scenario::Severity::Error) return std::nullopt;
  // Open settings (`auto`, or unstated in a measured run) stay open: they are resolved where the
  // scenario is evaluated, with the profile it is evaluated with (app::ScenarioSession,
  // resolve_open_settings).
  return s;
}

YAML::Node parse_yaml(const std::string& text, const std::string& file, scenario::Diagnostics& diags) {
  return detail::load_yaml(text, file, diags);
}

}  // namespace

namespace {
// read_text_file's refusals (is_unreadable_file knows them by these messages).
constexpr const char* kFileNotFound = "file not found";
constexpr const char* kIsDirectory = "is a directory, not a file";
constexpr const char* kTooLarge = "file is larger than 64 MiB";
constexpr const char* kCannotRead = "cannot read file";
}  // namespace

std::optional<std::string> read_text_file(const std::string& path, scenario::Diagnostics& diags) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    diags.error({path, 0, 0}, "", kFileNotFound, "check the path");
    return std::nullopt;
  }
  if (std::filesystem::is_directory(path, ec)) {
    diags.error({path, 0, 0}, "", kIsDirectory, "name a file inside it");
    return std::nullopt;
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > 64u * 1024 * 1024) {
    diags.error({path, 0, 0}, "", kTooLarge, "scenario and run files are small YAML documents");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error({path, 0, 0}, "", kCannotRead, "check its permissions");
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_unreadable_file(const scenario::Diagnostic& d) {
  if (d.severity != scenario::Severity::Error || !d.key.empty() || d.where.line != 0) return false;
  for (const char* m : {kFileNotFound, kIsDirectory, kTooLarge, kCannotRead})
    if (d.message == m) return true;
  return false;
}

bool any_unreadable_file(const scenario::Diagnostics& diags) {
  for (const auto& d : diags.items())
    if (is_unreadable_file(d)) return true;
  return false;
}

std::optional<scenario::Scenario> scenario_from_node(const YAML::Node& node, const std::string& file,
                                                     const Catalog& catalog, scenario::Diagnostics& diags) {
  try {
    return read_scenario(node, file, catalog, diags, false);
  } catch (const YAML::Exception& e) {
    diags.error({file, e.mark.line + 1, e.mark.column + 1}, "", std::string("invalid value: ") + e.msg);
    return std::nullopt;
  }
}

std::optional<scenario::Scenario> parse_scenario(const std::string& text, const std::string& file,
                                                 const Catalog& catalog, scenario::Diagnostics& diags) {
  const auto root = parse_yaml(text, file, diags);
  if (!root.IsDefined()) return std::nullopt;
  if (root.IsNull()) {
    diags.error({file, 1, 1}, "", "the file is empty", "see scenarios/quickstart.yaml for the format");
    return std::nullopt;
  }
  return scenario_from_node(root, file, catalog, diags);
}

std::optional<scenario::Scenario> load_scenario_file(const std::string& path, const Catalog& catalog,
                                                     scenario::Diagnostics& diags) {
  const auto text = read_text_file(path, diags);
  if (!text) return std::nullopt;
  return parse_scenario(*text, path, catalog, diags);
}

std::vector<RunEntry> parse_run_file(const std::string& text, const std::string& file, const Catalog& catalog,
                                     scenario::Diagnostics& diags) {
  std::vector<RunEntry> out;
  const auto root = parse_yaml(text, file, diags);
  if (!root.IsDefined()) return out;
  if (!root.IsSequence()) {
    diags.error(detail::loc_of(root, file), "", "a measured-run file must be a YAML list of runs",
                "see docs/run-schema.md; each entry starts with '- id: ...'");
    return out;
  }
  for (std::size_t i = 0; i < root.size(); ++i) {
    RunEntry e;
    const auto node = root[i];
    e.where = detail::loc_of(node, file);
    if (node.IsMap() && node["id"] && node["id"].IsScalar()) e.id = node["id"].Scalar();
    try {
      e.scenario = read_scenario(node, file, catalog, e.diags, true);
    } catch (const YAML::Exception& ex) {
      e.diags.error({file, ex.mark.line + 1, ex.mark.column + 1}, "", std::string("invalid value: ") + ex.msg);
      e.scenario.reset();
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<RunEntry> load_run_file(const std::string& path, const Catalog& catalog, scenario::Diagnostics& diags) {
  const auto text = read_text_file(path, diags);
  if (!text) return {};
  return parse_run_file(*text, path, catalog, diags);
}

std::optional<scenario::Scenario> load_scenario_unchecked(const std::string& path,
                                                          const std::vector<std::pair<std::string, std::string>>& set,
                                                          const Catalog& catalog, scenario::Diagnostics& diags) {
  const auto text = read_text_file(path, diags);
  if (!text) return std::nullopt;
  YAML::Node root = parse_yaml(*text, path, diags);
  if (!root.IsDefined()) return std::nullopt;
  if (!root.IsMap()) {
    diags.error({path, 1, 1}, "", "a scenario file must be a YAML mapping",
                "see scenarios/quickstart.yaml for the format");
    return std::nullopt;
  }
  for (const auto& [key, value] : set) {
    if (!detail::set_key(root, key, value)) {
      diags.error({path, 0, 0}, key, "cannot set '" + key + "': a part of it is a value or list in the scenario",
                  "set the enclosing key instead");
      return std::nullopt;
    }
  }
  try {
    return read_scenario(root, path, catalog, diags, false, false);
  } catch (const YAML::Exception& e) {
    diags.error({path, e.mark.line + 1, e.mark.column + 1}, "", std::string("invalid value: ") + e.msg);
    return std::nullopt;
  }
}

}  // namespace flopcast::io

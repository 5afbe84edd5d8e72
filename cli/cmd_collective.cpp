// `flopcast collective`: an nccl-tests-style table of predicted collective costs (size, count,
// type, time, algbw, busbw, algorithm/protocol) for a cluster given by flags or a scenario.
// The table's flags are checked and the table made and rendered by app/collective_table.hpp.
#include <algorithm>
#include <optional>
#include <ostream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/collective_table.hpp"
#include "flopcast/comm/profile_efficiency.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/topology/rank_layout.hpp"

namespace flopcast::cli {

namespace {

struct Opts {
  std::string scenario;
  std::string gpu;
  std::int64_t gpus = 0;
  int gpus_per_node = 0;
  std::string fabric;
  app::CollectiveTableFlags table;
  std::int64_t ranks = 0;
  int ranks_per_node = 0;
  std::int64_t node_stride = 1;
  std::int64_t concurrent = 0;
  std::string group;
  std::string order{topology::kMegatronRankOrder};
  std::string profile;
  int nodes_per_leaf = 0;
  bool json = false;
  OutputFile out;
};

using Cluster = app::CollectiveCluster;

bool fail(CliContext& ctx, int code, const std::string& msg) {
  ctx.fail(code, msg);
  return false;
}

bool resolve_cluster(CliContext& ctx, const Opts& o, Cluster& c, comm::CommEfficiency& eff) {
  if (!o.scenario.empty()) {
    auto loaded = load_scenario_for_command(ctx, o.scenario, o.profile);
    if (!loaded) return false;
    const scenario::Scenario& s = loaded->scenario;
    c.gpu = s.cluster.gpu;
    c.fabric = s.cluster.fabric;
    if (s.cluster.gpus_per_node > 0 && s.cluster.gpus_per_node != c.fabric.gpus_per_node) {
      if (c.fabric.nvlink_domain == c.fabric.gpus_per_node) c.fabric.nvlink_domain = s.cluster.gpus_per_node;
      c.fabric.gpus_per_node = s.cluster.gpus_per_node;
    }
    c.gpus = s.cluster.gpus;
    c.plan = s.plan;
    if (!o.profile.empty() || !s.calibration.empty()) {
      eff = comm::comm_efficiency(loaded->profile, c.gpu.arch);
    }
  } else {
    const auto* cat = ctx.catalog();
    if (!cat) return false;
    if (o.gpu.empty()) return fail(ctx, kUsage, "--gpu is required without a scenario file");
    if (o.gpus <= 0) return fail(ctx, kUsage, "--gpus N (N >= 1) is required without a scenario file");
    const hardware::GpuSpec* g = cat->find_gpu(o.gpu);
    if (!g) return fail(ctx, kUsage, "unknown GPU '" + o.gpu + "' (" + io::unknown_gpu_hint(*cat, o.gpu) + ")");
    c.gpu = *g;
    const std::string fabric_name = o.fabric.empty() ? g->default_fabric : o.fabric;
    const hardware::FabricSpec* f = cat->find_fabric(fabric_name);
    if (!f) {
      std::string names;
      for (const auto& n : cat->fabric_names()) names += (names.empty() ? "" : ", ") + n;
      return fail(ctx, kUsage, "unknown fabric '" + fabric_name + "' (known: " + names + ")");
    }
    c.fabric = *f;
    c.gpus = o.gpus;
    if (!o.profile.empty()) {
      scenario::Diagnostics pd;
      const auto p = io::load_profile(o.profile, *cat, pd);
      if (!p) {
        ctx.err << pd.str();
        ctx.exit_code = kBadInput;
        return false;
      }
      eff = comm::comm_efficiency(*p, c.gpu.arch);
    }
  }
  if (o.gpus_per_node > 0) {
    if (c.fabric.nvlink_domain == c.fabric.gpus_per_node) c.fabric.nvlink_domain = o.gpus_per_node;
    c.fabric.gpus_per_node = o.gpus_per_node;
  }
  return true;
}

// The group the table is for, and how many such groups run at once.
bool resolve_group(CliContext& ctx, const Opts& o, const Cluster& c, topology::GroupShape& shape,
                   std::int64_t& concurrent) {
  const int gpn = std::max(1, c.fabric.gpus_per_node);
  concurrent = 1;
  if (!o.group.empty()) {
    if (!c.plan) return fail(ctx, kUsage, "--group needs a scenario file (its parallel plan defines the groups)");
    const auto dim = topology::parse_parallel_dim(o.group);
    if (!dim) return fail(ctx, kUsage, "--group '" + o.group + "': expected tp, cp, ep, dp or pp");
    std::string err;
    const auto layout = topology::RankLayout::create(*c.plan, o.order, &err);
    if (!layout) return fail(ctx, kUsage, err);
    shape = layout->shape(*dim, gpn);
    concurrent = layout->group_count(*dim);
  } else {
    shape.ranks = o.ranks > 0 ? o.ranks : c.gpus;
    shape.ranks_per_node =
        o.ranks_per_node > 0 ? o.ranks_per_node : static_cast<int>(std::min<std::int64_t>(shape.ranks, gpn));
    shape.node_stride = o.node_stride;
  }
  if (o.concurrent > 0) concurrent = o.concurrent;
  return true;
}

/// `flopcast collective`: checks the flags, builds the cluster and the group, prints the table.
void run_collective(CliContext& ctx, const Opts& o) {
  std::string error;
  const auto req = app::collective_table_request(o.table, error);
  if (!req) return ctx.fail(kUsage, error);
  Cluster cl;
  comm::CommOptions opts;
  if (!resolve_cluster(ctx, o, cl, opts.efficiency)) return;
  if (o.nodes_per_leaf > 0) opts.topology.nodes_per_leaf = o.nodes_per_leaf;
  topology::GroupShape shape;
  std::int64_t concurrent = 1;
  if (!resolve_group(ctx, o, cl, shape, concurrent)) return;
  if (req->op == comm::Collective::SendRecv && o.ranks <= 0 && o.group.empty()) {
    // A pair: inside one node when it holds two GPUs, else one GPU on each of two nodes.
    shape = topology::GroupShape{2, cl.gpus > cl.fabric.gpus_per_node || cl.fabric.gpus_per_node < 2 ? 1 : 2, 1};
  }
  const comm::CommModel model(cl.gpu, cl.fabric, cl.gpus, opts);
  if (const std::string why = model.check(req->op, shape); !why.empty()) return ctx.fail(kUsage, why);
  const auto t = app::collective_table(*req, model, shape, concurrent);
  write_output(ctx, o.out,
               o.json ? app::collective_table_json(*req, cl, model, shape, t)
                      : app::collective_table_text(*req, cl, model, shape, t));
}

}  // namespace

void register_collective(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "collective", "Predicted NCCL collective costs as an nccl-tests style table (size, time, algbw, busbw, algo)");
  cmd->add_option("scenario", o->scenario, "Scenario YAML file (cluster and plan) instead of --gpu/--gpus");
  cmd->add_option("--gpu", o->gpu, "GPU catalog name, e.g. H800")->type_name("GPU");
  add_count_flag(*cmd, "--gpus", o->gpus, "GPUs in the cluster", "GPUs", 1, io::kMaxGpus);
  cmd->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node (default: the fabric's)");
  cmd->add_option("--fabric", o->fabric, "Node/fabric catalog name (default: the GPU's default fabric)");
  cmd->add_option("--op", o->table.op, "all_reduce | all_gather | reduce_scatter | all_to_all | broadcast | send_recv")
      ->capture_default_str();
  cmd->add_option("-b,--min", o->table.min_size, "Smallest size in bytes (K/M/G suffixes are powers of 1024)")
      ->capture_default_str();
  cmd->add_option("-e,--max", o->table.max_size, "Largest size in bytes")->capture_default_str();
  cmd->add_option("-f,--step-factor", o->table.step_factor, "Multiply the size by this between rows")
      ->capture_default_str();
  cmd->add_option("--dtype", o->table.dtype, "float | half | bfloat16 | double | int8 ... (count = size / type size)")
      ->capture_default_str();
  cmd->add_option("--ranks", o->ranks, "Ranks in the group (default: every GPU of the cluster)");
  cmd->add_option("--ranks-per-node", o->ranks_per_node, "Group members per node (default: as many as fit)");
  cmd->add_option("--node-stride", o->node_stride, "Nodes between consecutive nodes of the group")
      ->capture_default_str();
  cmd->add_option("--concurrent", o->concurrent,
                  "Groups of this shape communicating at once (default 1; all with --group)");
  cmd->add_option("--group", o->group,
                  "tp | cp | ep | dp | pp: the scenario plan's group of rank 0 (all such groups at once)");
  cmd->add_option("--order", o->order, "Rank order for --group, innermost first")->capture_default_str();
  cmd->add_option("--algo", o->table.algo, "Force an algorithm like NCCL_ALGO: Ring | Tree | NVLS | NVLSTree | PAT");
  cmd->add_option("--proto", o->table.proto, "Force a protocol like NCCL_PROTO: LL | LL128 | Simple");
  cmd->add_option("--profile", o->profile, "Calibration profile (file or name): its NIC and NVLink efficiencies");
  cmd->add_option("--nodes-per-leaf", o->nodes_per_leaf, "Nodes per rail-aligned scalable unit (default 32)");
  cmd->add_flag("--json", o->json, "Print one JSON document");
  add_out_flag(*cmd, o->out, "Write the table to FILE instead of standard output");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE if it exists");
  cmd->callback([&ctx, o] { run_collective(ctx, *o); });
}

}  // namespace flopcast::cli

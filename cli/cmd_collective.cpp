// `flopcast collective`: an nccl-tests-style table of predicted collective costs (size, count,
// type, time, algbw, busbw, algorithm/protocol) for a cluster given by flags or a scenario.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/comm/comm_model.hpp"
#include "flopcast/comm/profile_efficiency.hpp"
#include "flopcast/io/units_parse.hpp"
#include "flopcast/topology/rank_layout.hpp"

namespace flopcast::cli {

namespace {

struct Opts {
  std::string scenario;
  std::string gpu;
  std::int64_t gpus = 0;
  int gpus_per_node = 0;
  std::string fabric;
  std::string op = "all_reduce";
  std::string min_size = "8";
  std::string max_size = "8G";
  double step_factor = 2.0;
  std::string dtype = "float";
  std::int64_t ranks = 0;
  int ranks_per_node = 0;
  std::int64_t node_stride = 1;
  std::int64_t concurrent = 0;
  std::string group;
  std::string order{kMegatronRankOrder};
  std::string algo;
  std::string proto;
  std::string profile;
  int nodes_per_leaf = 0;
  bool json = false;
  OutputFile out;
};

// nccl-tests data types and their sizes in bytes.
std::optional<double> dtype_bytes(const std::string& t) {
  if (t == "float" || t == "int32" || t == "uint32") return 4.0;
  if (t == "half" || t == "bfloat16") return 2.0;
  if (t == "double" || t == "int64" || t == "uint64") return 8.0;
  if (t == "int8" || t == "uint8" || t == "fp8_e4m3" || t == "fp8_e5m2") return 1.0;
  return std::nullopt;
}

// nccl-tests' -b/-e sizes: a number with an optional K, M, G or T suffix (powers of 1024), or
// any byte string io::parse_bytes accepts ("512 MiB", "1GB").
std::optional<double> parse_size(const std::string& s) {
  if (!s.empty()) {
    const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(s.back())));
    double mult = 0.0;
    if (last == 'K') mult = 1024.0;
    if (last == 'M') mult = 1024.0 * 1024.0;
    if (last == 'G') mult = 1024.0 * 1024.0 * 1024.0;
    if (last == 'T') mult = 1024.0 * 1024.0 * 1024.0 * 1024.0;
    if (mult > 0.0) {
      if (const auto v = io::parse_count(s.substr(0, s.size() - 1)); v && *v >= 0.0 && std::isfinite(*v * mult))
        return *v * mult;
    }
  }
  if (const auto b = io::parse_bytes(s); b && b->value >= 0.0) return b->value;
  return std::nullopt;
}

// The cluster the table is for: from the scenario, or the catalog entries the flags name.
struct Cluster {
  GpuSpec gpu;
  FabricSpec fabric;
  std::int64_t gpus = 0;
  std::optional<ParallelPlan> plan;
};

bool fail(CliContext& ctx, int code, const std::string& msg) {
  ctx.fail(code, msg);
  return false;
}

bool resolve_cluster(CliContext& ctx, const Opts& o, Cluster& c, CommEfficiency& eff) {
  if (!o.scenario.empty()) {
    auto loaded = load_scenario_for_command(ctx, o.scenario, o.profile);
    if (!loaded) return false;
    const Scenario& s = loaded->scenario;
    c.gpu = s.cluster.gpu;
    c.fabric = s.cluster.fabric;
    if (s.cluster.gpus_per_node > 0 && s.cluster.gpus_per_node != c.fabric.gpus_per_node) {
      if (c.fabric.nvlink_domain == c.fabric.gpus_per_node) c.fabric.nvlink_domain = s.cluster.gpus_per_node;
      c.fabric.gpus_per_node = s.cluster.gpus_per_node;
    }
    c.gpus = s.cluster.gpus;
    c.plan = s.plan;
    if (!o.profile.empty() || !s.calibration.empty()) {
      eff = comm_efficiency(loaded->profile);
    }
  } else {
    const auto* cat = ctx.catalog();
    if (!cat) return false;
    if (o.gpu.empty()) return fail(ctx, kUsage, "--gpu is required without a scenario file");
    if (o.gpus <= 0) return fail(ctx, kUsage, "--gpus N (N >= 1) is required without a scenario file");
    const GpuSpec* g = cat->find_gpu(o.gpu);
    if (!g) return fail(ctx, kUsage, "unknown GPU '" + o.gpu + "' (" + io::unknown_gpu_hint(*cat, o.gpu) + ")");
    c.gpu = *g;
    const std::string fabric_name = o.fabric.empty() ? g->default_fabric : o.fabric;
    const FabricSpec* f = cat->find_fabric(fabric_name);
    if (!f) {
      std::string names;
      for (const auto& n : cat->fabric_names()) names += (names.empty() ? "" : ", ") + n;
      return fail(ctx, kUsage, "unknown fabric '" + fabric_name + "' (known: " + names + ")");
    }
    c.fabric = *f;
    c.gpus = o.gpus;
    if (!o.profile.empty()) {
      Diagnostics pd;
      const auto p = io::load_profile(o.profile, *cat, pd);
      if (!p) {
        ctx.err << pd.str();
        ctx.exit_code = kBadInput;
        return false;
      }
      eff = comm_efficiency(*p);
    }
  }
  if (o.gpus_per_node > 0) {
    if (c.fabric.nvlink_domain == c.fabric.gpus_per_node) c.fabric.nvlink_domain = o.gpus_per_node;
    c.fabric.gpus_per_node = o.gpus_per_node;
  }
  return true;
}

// The group the table is for, and how many such groups run at once.
bool resolve_group(CliContext& ctx, const Opts& o, const Cluster& c, GroupShape& shape, std::int64_t& concurrent) {
  const int gpn = std::max(1, c.fabric.gpus_per_node);
  concurrent = 1;
  if (!o.group.empty()) {
    if (!c.plan) return fail(ctx, kUsage, "--group needs a scenario file (its parallel plan defines the groups)");
    const auto dim = parse_parallel_dim(o.group);
    if (!dim) return fail(ctx, kUsage, "--group '" + o.group + "': expected tp, cp, ep, dp or pp");
    std::string err;
    const auto layout = RankLayout::create(*c.plan, o.order, &err);
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

/// The table's flags, checked: the collective, the element type, the sizes and any forced
/// algorithm or protocol.
struct TableRequest {
  Collective op = Collective::AllReduce;
  double type_bytes = 4.0;
  double min_bytes = 8.0, max_bytes = 8.0;
  CommOverride force;
};

/// Parses and checks the table's flags; false (with the usage error printed) when one is wrong.
bool parse_table_request(CliContext& ctx, const Opts& o, TableRequest& req) {
  const auto op = parse_collective(o.op);
  if (!op) {
    fail(ctx, kUsage,
         "--op '" + o.op + "': expected all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send_recv");
    return false;
  }
  req.op = *op;
  const auto type_bytes = dtype_bytes(o.dtype);
  if (!type_bytes) {
    fail(ctx, kUsage,
         "--dtype '" + o.dtype + "': expected float, half, bfloat16, double, int32, int64, int8, uint8, fp8_e4m3");
    return false;
  }
  req.type_bytes = *type_bytes;
  const auto lo = parse_size(o.min_size), hi = parse_size(o.max_size);
  if (!lo || !hi || *hi < *lo) {
    fail(ctx, kUsage,
         "--min/--max: expected sizes like 8, 1M, 8G or '512 MiB' with min <= max (got '" + o.min_size + "', '" +
             o.max_size + "')");
    return false;
  }
  if (!(o.step_factor > 1.0)) {
    fail(ctx, kUsage, "--step-factor must be > 1");
    return false;
  }
  // The table has floor(log(max/min)/log(step)) + 1 rows: a zero --min would never grow and a
  // tiny step over a wide range would not end in practice, so both are refused up front.
  constexpr double kMaxRows = 10'000;
  if (!(*lo > 0.0)) {
    fail(ctx, kUsage,
         "--min must be > 0 bytes (got '" + o.min_size + "'): the sizes grow by multiplying with --step-factor");
    return false;
  }
  if (const double rows = std::floor(std::log(*hi / *lo) / std::log(o.step_factor)) + 1; !(rows <= kMaxRows)) {
    fail(ctx, kUsage,
         fmt::format("--min {} to --max {} by --step-factor {} gives {:.3g} rows, more than {}: raise --step-factor "
                     "or narrow the range",
                     o.min_size, o.max_size, o.step_factor, rows, kMaxRows));
    return false;
  }
  req.min_bytes = *lo;
  req.max_bytes = *hi;
  if (!o.algo.empty() && !(req.force.algorithm = parse_comm_algorithm(o.algo))) {
    fail(ctx, kUsage, "--algo '" + o.algo + "': expected Ring, Tree, NVLS, NVLSTree or PAT");
    return false;
  }
  if (!o.proto.empty() && !(req.force.protocol = parse_comm_protocol(o.proto))) {
    fail(ctx, kUsage, "--proto '" + o.proto + "': expected LL, LL128 or Simple");
    return false;
  }
  return true;
}

/// The table's rows, as text lines and as JSON objects.
struct Table {
  std::string text;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::int64_t groups_used = 1;
};

Table cost_table(const Opts& o, const TableRequest& req, const CommModel& model, const GroupShape& shape,
                 std::int64_t concurrent) {
  // Per-rank element counts as nccl-tests prints them: AG/RS/A2A sizes are whole arrays of n pieces.
  const bool per_rank =
      req.op == Collective::AllGather || req.op == Collective::ReduceScatter || req.op == Collective::AllToAll;
  const double granule = req.type_bytes * (per_rank ? static_cast<double>(shape.ranks) : 1.0);
  Table t;
  for (double size = req.min_bytes; size <= req.max_bytes * (1.0 + 1e-12); size *= o.step_factor) {
    const double bytes = std::floor(size / granule) * granule;
    if (bytes <= 0.0 && size > 0.0) continue;
    const auto c = model.cost(req.op, shape, Bytes{bytes}, concurrent, req.force);
    t.groups_used = c.concurrent_groups;
    const double count = bytes / req.type_bytes / (per_rank ? static_cast<double>(shape.ranks) : 1.0);
    const std::string algo = fmt::format("{}/{}", to_string(c.algorithm), to_string(c.protocol));
    t.text += fmt::format("{:>12.0f}  {:>12.0f}  {:>8}  {:>10.2f}  {:>7.2f}  {:>7.2f}  {}\n", bytes, count, o.dtype,
                          c.time.us(), c.algbw.gbytes_per_s(), c.busbw.gbytes_per_s(), algo);
    t.rows.push_back({{"size_bytes", bytes},
                      {"count", count},
                      {"type", o.dtype},
                      {"time_us", c.time.us()},
                      {"algbw_gbytes_s", c.algbw.gbytes_per_s()},
                      {"busbw_gbytes_s", c.busbw.gbytes_per_s()},
                      {"algorithm", to_string(c.algorithm)},
                      {"protocol", to_string(c.protocol)},
                      {"channels", c.channels}});
    if (size <= 0.0) size = 1.0;  // a zero minimum still advances
  }
  return t;
}

void print_table_json(std::ostream& out, Collective op, const Cluster& cl, const CommModel& model,
                      const GroupShape& shape, std::int64_t domains_spanned, const Table& t) {
  const ClusterTopology& topo = model.topology();
  nlohmann::ordered_json doc;
  doc["nccl_version"] = nccl::kVersion;
  doc["collective"] = to_string(op);
  doc["gpu"] = cl.gpu.name;
  doc["fabric"] = cl.fabric.name;
  doc["gpus"] = cl.gpus;
  doc["gpus_per_node"] = topo.gpus_per_node();
  doc["nvlink_domain"] = topo.domain_size();
  doc["host_cpu"] = nccl::to_string(model.host_cpu());
  doc["group"] = {{"ranks", shape.ranks},
                  {"ranks_per_node", shape.ranks_per_node},
                  {"node_stride", shape.node_stride},
                  {"nodes", domains_spanned},
                  {"concurrent_groups", t.groups_used}};
  doc["rows"] = t.rows;
  out << doc.dump(2) << "\n";
}

void print_table_text(std::ostream& out, Collective op, const Cluster& cl, const CommModel& model,
                      const GroupShape& shape, std::int64_t domains_spanned, const Table& t) {
  const ClusterTopology& topo = model.topology();
  out << fmt::format(
      "# flopcast collective: {} on {} x {} ({} nodes of {}, fabric {}: {} x {:.0f} Gb/s {}, {:.1f}:1 spine)\n",
      to_string(op), cl.gpus, cl.gpu.name, topo.nodes(), topo.gpus_per_node(), cl.fabric.name, topo.nics_per_node(),
      cl.fabric.nic_gbps, to_string(cl.fabric.kind), std::max(1.0, cl.fabric.oversubscription));
  out << fmt::format("# group: {} ranks, {} per node, node stride {}, {} NVLink domain(s); {} group(s) at once\n",
                     shape.ranks, shape.ranks_per_node, shape.node_stride, domains_spanned, t.groups_used);
  // A node without NVLink: its GPUs' PCIe links instead (docs/simulation.md, PCIe-only servers).
  const std::string intra = topo.intra() == IntraNode::PCIe
                                ? fmt::format("no NVLink: PCIe {:.1f} GB/s per GPU", topo.rates().pcie.gbytes_per_s())
                                : fmt::format("NVLink {:.1f} GB/s per GPU", topo.rates().nvlink_per_gpu.gbytes_per_s());
  out << fmt::format(
      "# model: algorithm chosen by {} tuning; bandwidth from the topology ({}, NIC {:.1f} GB/s, host {})\n",
      nccl::kVersion, intra, topo.rates().nic_path.gbytes_per_s(), nccl::to_string(model.host_cpu()));
  out << fmt::format("#{:>11}  {:>12}  {:>8}  {:>10}  {:>7}  {:>7}  {}\n", "size", "count", "type", "time", "algbw",
                     "busbw", "algo/proto");
  out << fmt::format("#{:>11}  {:>12}  {:>8}  {:>10}  {:>7}  {:>7}\n", "(B)", "(elements)", "", "(us)", "(GB/s)",
                     "(GB/s)");
  out << t.text;
}

/// `flopcast collective`: checks the flags, builds the cluster and the group, prints the table.
void run_collective(CliContext& ctx, const Opts& o) {
  TableRequest req;
  if (!parse_table_request(ctx, o, req)) return;
  Cluster cl;
  CommOptions opts;
  if (!resolve_cluster(ctx, o, cl, opts.efficiency)) return;
  if (o.nodes_per_leaf > 0) opts.topology.nodes_per_leaf = o.nodes_per_leaf;
  GroupShape shape;
  std::int64_t concurrent = 1;
  if (!resolve_group(ctx, o, cl, shape, concurrent)) return;
  if (req.op == Collective::SendRecv && o.ranks <= 0 && o.group.empty()) {
    // A pair: inside one node when it holds two GPUs, else one GPU on each of two nodes.
    shape = GroupShape{2, cl.gpus > cl.fabric.gpus_per_node || cl.fabric.gpus_per_node < 2 ? 1 : 2, 1};
  }
  const CommModel model(cl.gpu, cl.fabric, cl.gpus, opts);
  if (const std::string why = model.check(req.op, shape); !why.empty()) {
    fail(ctx, kUsage, why);
    return;
  }
  const Table t = cost_table(o, req, model, shape, concurrent);
  const std::int64_t domains_spanned = model.cost(req.op, shape, Bytes{0.0}, concurrent, req.force).nodes;
  std::ostringstream text;
  if (o.json)
    print_table_json(text, req.op, cl, model, shape, domains_spanned, t);
  else
    print_table_text(text, req.op, cl, model, shape, domains_spanned, t);
  write_output(ctx, o.out, text.str());
}

}  // namespace

void register_collective(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "collective", "Predicted NCCL collective costs as an nccl-tests style table (size, time, algbw, busbw, algo)");
  cmd->add_option("scenario", o->scenario, "Scenario YAML file (cluster and plan) instead of --gpu/--gpus");
  cmd->add_option("--gpu", o->gpu, "GPU catalog name, e.g. H800")->type_name("GPU");
  cmd->add_option("--gpus", o->gpus, "GPUs in the cluster");
  cmd->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node (default: the fabric's)");
  cmd->add_option("--fabric", o->fabric, "Node/fabric catalog name (default: the GPU's default fabric)");
  cmd->add_option("--op", o->op, "all_reduce | all_gather | reduce_scatter | all_to_all | broadcast | send_recv")
      ->capture_default_str();
  cmd->add_option("-b,--min", o->min_size, "Smallest size in bytes (K/M/G suffixes are powers of 1024)")
      ->capture_default_str();
  cmd->add_option("-e,--max", o->max_size, "Largest size in bytes")->capture_default_str();
  cmd->add_option("-f,--step-factor", o->step_factor, "Multiply the size by this between rows")->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "float | half | bfloat16 | double | int8 ... (count = size / type size)")
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
  cmd->add_option("--algo", o->algo, "Force an algorithm like NCCL_ALGO: Ring | Tree | NVLS | NVLSTree | PAT");
  cmd->add_option("--proto", o->proto, "Force a protocol like NCCL_PROTO: LL | LL128 | Simple");
  cmd->add_option("--profile", o->profile, "Calibration profile (file or name): its NIC and NVLink efficiencies");
  cmd->add_option("--nodes-per-leaf", o->nodes_per_leaf, "Nodes per rail-aligned scalable unit (default 32)");
  cmd->add_flag("--json", o->json, "Print one JSON document");
  add_out_flag(*cmd, o->out, "Write the table to FILE instead of standard output");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE if it exists");
  cmd->callback([&ctx, o] { run_collective(ctx, *o); });
}

}  // namespace flopcast::cli

#include "flopcast/app/collective_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "flopcast/io/units_parse.hpp"

namespace flopcast::app {

std::optional<double> nccl_dtype_bytes(const std::string& t) {
  if (t == "float" || t == "int32" || t == "uint32") return 4.0;
  if (t == "half" || t == "bfloat16") return 2.0;
  if (t == "double" || t == "int64" || t == "uint64") return 8.0;
  if (t == "int8" || t == "uint8" || t == "fp8_e4m3" || t == "fp8_e5m2") return 1.0;
  return std::nullopt;
}

std::optional<double> nccl_size_bytes(const std::string& s) {
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

std::optional<CollectiveTableRequest> collective_table_request(const CollectiveTableFlags& f, std::string& error) {
  CollectiveTableRequest req;
  const auto op = comm::parse_collective(f.op);
  if (!op) {
    error = "--op '" + f.op + "': expected all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send_recv";
    return std::nullopt;
  }
  req.op = *op;
  const auto type_bytes = nccl_dtype_bytes(f.dtype);
  if (!type_bytes) {
    error = "--dtype '" + f.dtype + "': expected float, half, bfloat16, double, int32, int64, int8, uint8, fp8_e4m3";
    return std::nullopt;
  }
  req.dtype = f.dtype;
  req.type_bytes = *type_bytes;
  const auto lo = nccl_size_bytes(f.min_size), hi = nccl_size_bytes(f.max_size);
  if (!lo || !hi || *hi < *lo) {
    error = "--min/--max: expected sizes like 8, 1M, 8G or '512 MiB' with min <= max (got '" + f.min_size + "', '" +
            f.max_size + "')";
    return std::nullopt;
  }
  if (!(f.step_factor > 1.0)) {
    error = "--step-factor must be > 1";
    return std::nullopt;
  }
  // The table has floor(log(max/min)/log(step)) + 1 rows: a zero --min would never grow and a
  // tiny step over a wide range would not end in practice, so both are refused up front.
  constexpr double kMaxRows = 10'000;
  if (!(*lo > 0.0)) {
    error = "--min must be > 0 bytes (got '" + f.min_size + "'): the sizes grow by multiplying with --step-factor";
    return std::nullopt;
  }
  if (const double rows = std::floor(std::log(*hi / *lo) / std::log(f.step_factor)) + 1; !(rows <= kMaxRows)) {
    error = fmt::format(
        "--min {} to --max {} by --step-factor {} gives {:.3g} rows, more than {}: raise --step-factor or narrow the "
        "range",
        f.min_size, f.max_size, f.step_factor, rows, kMaxRows);
    return std::nullopt;
  }
  req.min_bytes = *lo;
  req.max_bytes = *hi;
  req.step_factor = f.step_factor;
  if (!f.algo.empty() && !(req.force.algorithm = comm::parse_comm_algorithm(f.algo))) {
    error = "--algo '" + f.algo + "': expected Ring, Tree, NVLS, NVLSTree or PAT";
    return std::nullopt;
  }
  if (!f.proto.empty() && !(req.force.protocol = comm::parse_comm_protocol(f.proto))) {
    error = "--proto '" + f.proto + "': expected LL, LL128 or Simple";
    return std::nullopt;
  }
  return req;
}

CollectiveTable collective_table(const CollectiveTableRequest& req, const comm::CommModel& model,
                                 const topology::GroupShape& shape, std::int64_t concurrent) {
  // Per-rank element counts as nccl-tests prints them: AG/RS/A2A sizes are whole arrays of n pieces.
  const bool per_rank = req.op == comm::Collective::AllGather || req.op == comm::Collective::ReduceScatter ||
                        req.op == comm::Collective::AllToAll;
  const double granule = req.type_bytes * (per_rank ? static_cast<double>(shape.ranks) : 1.0);
  CollectiveTable t;
  for (double size = req.min_bytes; size <= req.max_bytes * (1.0 + 1e-12); size *= req.step_factor) {
    const double bytes = std::floor(size / granule) * granule;
    if (bytes <= 0.0 && size > 0.0) continue;
    const auto c = model.cost(req.op, shape, units::Bytes{bytes}, concurrent, req.force);
    t.groups_used = c.concurrent_groups;
    const double count = bytes / req.type_bytes / (per_rank ? static_cast<double>(shape.ranks) : 1.0);
    const std::string algo = fmt::format("{}/{}", to_string(c.algorithm), to_string(c.protocol));
    t.rows_text += fmt::format("{:>12.0f}  {:>12.0f}  {:>8}  {:>10.2f}  {:>7.2f}  {:>7.2f}  {}\n", bytes, count,
                               req.dtype, c.time.us(), c.algbw.gbytes_per_s(), c.busbw.gbytes_per_s(), algo);
    t.rows.push_back({{"size_bytes", bytes},
                      {"count", count},
                      {"type", req.dtype},
                      {"time_us", c.time.us()},
                      {"algbw_gbytes_s", c.algbw.gbytes_per_s()},
                      {"busbw_gbytes_s", c.busbw.gbytes_per_s()},
                      {"algorithm", to_string(c.algorithm)},
                      {"protocol", to_string(c.protocol)},
                      {"channels", c.channels}});
    if (size <= 0.0) size = 1.0;  // a zero minimum still advances
  }
  t.domains_spanned = model.cost(req.op, shape, units::Bytes{0.0}, concurrent, req.force).nodes;
  return t;
}

std::string collective_table_json(const CollectiveTableRequest& req, const CollectiveCluster& cl,
                                  const comm::CommModel& model, const topology::GroupShape& shape,
                                  const CollectiveTable& t) {
  const topology::ClusterTopology& topo = model.topology();
  nlohmann::ordered_json doc;
  doc["nccl_version"] = comm::nccl::kVersion;
  doc["collective"] = to_string(req.op);
  doc["gpu"] = cl.gpu.name;
  doc["fabric"] = cl.fabric.name;
  doc["gpus"] = cl.gpus;
  doc["gpus_per_node"] = topo.gpus_per_node();
  doc["nvlink_domain"] = topo.domain_size();
  doc["host_cpu"] = comm::nccl::to_string(model.host_cpu());
  doc["group"] = {{"ranks", shape.ranks},
                  {"ranks_per_node", shape.ranks_per_node},
                  {"node_stride", shape.node_stride},
                  {"nodes", t.domains_spanned},
                  {"concurrent_groups", t.groups_used}};
  doc["rows"] = t.rows;
  return doc.dump(2) + "\n";
}

std::string collective_table_text(const CollectiveTableRequest& req, const CollectiveCluster& cl,
                                  const comm::CommModel& model, const topology::GroupShape& shape,
                                  const CollectiveTable& t) {
  const topology::ClusterTopology& topo = model.topology();
  std::string out = fmt::format(
      "# flopcast collective: {} on {} x {} ({} nodes of {}, fabric {}: {} x {:.0f} Gb/s {}, {:.1f}:1 spine)\n",
      to_string(req.op), cl.gpus, cl.gpu.name, topo.nodes(), topo.gpus_per_node(), cl.fabric.name, topo.nics_per_node(),
      cl.fabric.nic_gbps, to_string(cl.fabric.kind), std::max(1.0, cl.fabric.oversubscription));
  out += fmt::format("# group: {} ranks, {} per node, node stride {}, {} NVLink domain(s); {} group(s) at once\n",
                     shape.ranks, shape.ranks_per_node, shape.node_stride, t.domains_spanned, t.groups_used);
  // A node without NVLink: its GPUs' PCIe links instead (docs/simulation.md, PCIe-only servers).
  const std::string intra = topo.intra() == hardware::IntraNode::PCIe
                                ? fmt::format("no NVLink: PCIe {:.1f} GB/s per GPU", topo.rates().pcie.gbytes_per_s())
                                : fmt::format("NVLink {:.1f} GB/s per GPU", topo.rates().nvlink_per_gpu.gbytes_per_s());
  out += fmt::format(
      "# model: algorithm chosen by {} tuning; bandwidth from the topology ({}, NIC {:.1f} GB/s, host {})\n",
      comm::nccl::kVersion, intra, topo.rates().nic_path.gbytes_per_s(), comm::nccl::to_string(model.host_cpu()));
  out += fmt::format("#{:>11}  {:>12}  {:>8}  {:>10}  {:>7}  {:>7}  {}\n", "size", "count", "type", "time", "algbw",
                     "busbw", "algo/proto");
  out += fmt::format("#{:>11}  {:>12}  {:>8}  {:>10}  {:>7}  {:>7}\n", "(B)", "(elements)", "", "(us)", "(GB/s)",
                     "(GB/s)");
  return out + t.rows_text;
}

}  // namespace flopcast::app

// Collective claims: the collective model on the named cluster, the same CommModel and the
// same default options as `flopcast collective` (no calibration profile): latency at the
// smallest message, bus (or algorithm) bandwidth at the largest, in the claim's units.
#include <fmt/format.h>

#include "claim_checks.hpp"
#include "claim_format.hpp"
#include "flopcast/comm/comm_model.hpp"

namespace flopcast::claims::detail {
namespace {

std::string size_text(units::Bytes b) {
  const double v = b.value;
  if (v >= 1073741824.0) return fmt::format("{:g} GiB", v / 1073741824.0);
  if (v >= 1048576.0) return fmt::format("{:g} MiB", v / 1048576.0);
  if (v >= 1024.0) return fmt::format("{:g} KiB", v / 1024.0);
  return fmt::format("{:g} B", v);
}

/// The `flopcast collective` command line that prints the same figure.
std::string command_of(const CollectiveNeeds& n) {
  return fmt::format("flopcast collective --gpu {} --gpus {} --fabric {} --op {} --ranks {} --ranks-per-node {}",
                     n.gpu.name, n.gpus, n.fabric.name, to_string(n.op), n.group.ranks, n.group.ranks_per_node);
}

}  // namespace

Verdict judge_collective(const Claim& c, const CollectiveNeeds& n) {
  const comm::CommModel model(n.gpu, n.fabric, n.gpus, comm::CommOptions{});
  if (const std::string why = model.check(n.op, n.group); !why.empty()) return cannot_judge(why);
  const std::string where =
      fmt::format("{} of {} ranks ({} per node) on {} x {} ({}: {} x {:.0f} Gb/s {})", to_string(n.op), n.group.ranks,
                  n.group.ranks_per_node, n.gpus, n.gpu.name, n.fabric.name, n.fabric.nics_per_node, n.fabric.nic_gbps,
                  to_string(n.fabric.kind));
  const ClaimedValue& claimed = *c.claimed;
  Verdict v;
  if (n.figure == "latency") {
    const comm::CollectiveCost cost = model.cost(n.op, n.group, n.min_size);
    v = compare(claimed.value, cost.time.seconds(), Better::Lower, claimed.bound);
    const std::string unit = claimed.unit.empty() ? "us" : claimed.unit;
    v.figure = {true, in_claim_unit(cost.time, unit), unit, duration(cost.time)};
    v.how = fmt::format("{}: {} message takes {} ({}/{}, {} channel(s); NCCL's latency model, {}); `{}`", where,
                        size_text(n.min_size), duration(cost.time), to_string(cost.algorithm), to_string(cost.protocol),
                        cost.channels, comm::nccl::kVersion, command_of(n));
  } else {
    const comm::CollectiveCost cost = model.cost(n.op, n.group, n.max_size);
    const bool bus = n.figure == "busbw";
    const units::Bandwidth got = bus ? cost.busbw : cost.algbw;
    v = compare(claimed.value, got.bytes_per_s, Better::Higher, claimed.bound);
    v.figure = {true, in_claim_unit(got, claimed.unit), claimed.unit, bandwidth(got, claimed.unit)};
    v.how = fmt::format(
        "{}: {} message, {} = {}{} ({}/{}); the claim's unit is {} ({}); `{}`", where, size_text(n.max_size),
        bus ? "bus bandwidth" : "algorithm bandwidth", bandwidth(got, "GB/s"),
        bus ? fmt::format(", algbw x {:.3g} (nccl-tests' factor for {} ranks)",
                          comm::bus_bandwidth_factor(n.op, n.group.ranks), n.group.ranks)
            : "",
        to_string(cost.algorithm), to_string(cost.protocol), claimed.unit,
        claimed.unit.find('b') != std::string::npos ? "bits per second: 1 GB/s = 8 Gb/s" : "bytes per second",
        command_of(n));
  }
  settle(v, c, "the collective model gives " + v.figure.text + ", not " + claimed.text);
  return v;
}

}  // namespace flopcast::claims::detail

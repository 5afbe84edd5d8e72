// Measured collective points (data/calibration/collectives.yaml and collectives-vtrain-a100.yaml)
// against CommModel. Every point of collectives.yaml that names its configuration must be
// predicted within 10% of its bus bandwidth; the vTrain sweep is reported (median).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/comm/comm_model.hpp"

using namespace flopcast;

namespace {

// GPU figures of data/gpus.yaml's sources (NCCL-effective NVLink = links x topo.h
// per-link constant: SM80 20.0, SM90 20.6, SM100 40.1 GB/s; NVLS on Hopper and later).
std::optional<hardware::GpuSpec> gpu_named(const std::string& name) {
  hardware::GpuSpec g;
  g.name = name;
  if (name == "A100-80G" || name == "A100-40G") {
    g.arch = hardware::GpuArch::Ampere;
    g.nvlink_links = 12;
    g.nccl_nvlink = units::Bandwidth::from_gbytes_per_s(240.0);
  } else if (name == "H100" || name == "H200") {
    g.arch = hardware::GpuArch::Hopper;
    g.nvlink_links = 18;
    g.nccl_nvlink = units::Bandwidth::from_gbytes_per_s(370.8);
    g.nvls = true;
  } else if (name == "H800") {
    g.arch = hardware::GpuArch::Hopper;
    g.nvlink_links = 8;
    g.nccl_nvlink = units::Bandwidth::from_gbytes_per_s(164.8);
    g.nvls = true;
  } else if (name == "B200") {
    g.arch = hardware::GpuArch::Blackwell;
    g.nvlink_links = 18;
    g.nccl_nvlink = units::Bandwidth::from_gbytes_per_s(721.8);
    g.nvls = true;
  } else {
    return std::nullopt;
  }
  return g;
}

struct Row {
  std::string id;
  std::string config;
  double measured = 0.0;
  double predicted = 0.0;
  std::string algo;
  double error() const { return predicted / measured - 1.0; }
};

// A large-message plateau (message_bytes: null) is evaluated at nccl-tests' -e 8G.
constexpr double kPlateauBytes = 8.0 * 1073741824.0;

Row evaluate(const YAML::Node& r) {
  Row row;
  row.id = r["id"].as<std::string>();
  const auto gpu = gpu_named(r["gpu"].as<std::string>());
  REQUIRE_MESSAGE(gpu, "no GPU figures for " << r["gpu"].as<std::string>());
  const auto gpus = r["gpus"].as<std::int64_t>();
  const int per_node = r["gpus_per_node"].as<int>();
  hardware::FabricSpec f;
  f.gpus_per_node = per_node;
  f.nvlink_domain = per_node;
  f.intra = hardware::IntraNode::NVSwitch;
  if (const auto fab = r["fabric"]) {
    f.nic_gbps = fab["nic_gbps"].as<double>();
    f.nics_per_node = fab["nics_per_node"].as<int>();
    f.kind = fab["kind"].as<std::string>() == "roce" ? hardware::NetKind::RoCE : hardware::NetKind::InfiniBand;
  }
  const auto op = comm::parse_collective(r["collective"].as<std::string>());
  REQUIRE(op);
  const double bytes = r["message_bytes"].IsNull() ? kPlateauBytes : r["message_bytes"].as<double>();
  // Points recorded with NCCL_ALGO=RING (stated in their notes) are evaluated the same way.
  comm::CommOverride force;
  if (r["notes"] && r["notes"].as<std::string>().find("NCCL_ALGO=RING") != std::string::npos)
    force.algorithm = comm::CommAlgorithm::Ring;

  const comm::CommModel m(*gpu, f, gpus);
  // Send/recv pairs two GPUs: in one node, or (more GPUs than a node) in two.
  const topology::GroupShape shape =
      *op == comm::Collective::SendRecv
          ? topology::GroupShape{2, gpus > per_node ? 1 : 2, 1}
          : topology::GroupShape{gpus, static_cast<int>(std::min<std::int64_t>(gpus, per_node)), 1};
  const auto c = m.cost(*op, shape, units::Bytes{bytes}, 1, force);
  const auto& meas = r["measured"];
  const bool alg = static_cast<bool>(meas["algbw_gbytes_s"]);
  row.measured = alg ? meas["algbw_gbytes_s"].as<double>() : meas["busbw_gbytes_s"].as<double>();
  row.predicted = alg ? c.algbw.gbytes_per_s() : c.busbw.gbytes_per_s();
  row.algo = std::string(to_string(c.algorithm)) + "/" + to_string(c.protocol);
  row.config = r["gpu"].as<std::string>() + " x" + std::to_string(gpus) + " " + r["collective"].as<std::string>() +
               (alg ? " algbw" : " busbw");
  return row;
}

}  // namespace

TEST_CASE("comm: every measured point of collectives.yaml within 10% of its bus bandwidth") {
  const YAML::Node doc = YAML::LoadFile(std::string(FLOPCAST_DATA_DIR) + "/calibration/collectives.yaml");
  REQUIRE(doc.IsSequence());
  std::string table =
      "\n  id                                          config                          measured  predicted   error  algo\n";
  int checked = 0;
  for (const auto& r : doc) {
    const Row row = evaluate(r);
    char line[256];
    std::snprintf(line, sizeof line, "  %-43s %-30s %9.1f %10.1f %+6.1f%%  %s\n", row.id.c_str(), row.config.c_str(),
                  row.measured, row.predicted, 100.0 * row.error(), row.algo.c_str());
    table += line;
    CAPTURE(row.id);
    CHECK(std::fabs(row.error()) <= 0.10);
    ++checked;
  }
  CHECK(checked >= 11);
  MESSAGE(table);
}

TEST_CASE("comm: vTrain A100 all-reduce sweep (1 MiB - 1 GiB, 2-8 GPUs), median busbw error") {
  const YAML::Node doc = YAML::LoadFile(std::string(FLOPCAST_DATA_DIR) + "/calibration/collectives-vtrain-a100.yaml");
  REQUIRE(doc.IsSequence());
  std::vector<double> all;
  std::vector<double> large;  // >= 256 MiB
  std::string table = "\n  GPUs  median |err|  (1 MiB-1 GiB)   at 1 GiB: measured predicted\n";
  for (int n = 2; n <= 8; ++n) {
    std::vector<double> errs;
    double meas_1g = 0.0, pred_1g = 0.0;
    for (const auto& r : doc) {
      if (r["gpus"].as<int>() != n) continue;
      const Row row = evaluate(r);
      errs.push_back(std::fabs(row.error()));
      all.push_back(std::fabs(row.error()));
      if (r["message_bytes"].as<double>() >= 268435456.0) large.push_back(std::fabs(row.error()));
      if (r["message_bytes"].as<double>() == 1073741824.0) {
        meas_1g = row.measured;
        pred_1g = row.predicted;
      }
    }
    std::sort(errs.begin(), errs.end());
    char line[160];
    std::snprintf(line, sizeof line, "  %4d  %12.1f%%  %27.1f %9.1f\n", n, 100.0 * errs[errs.size() / 2], meas_1g,
                  pred_1g);
    table += line;
  }
  std::sort(all.begin(), all.end());
  std::sort(large.begin(), large.end());
  const double median = all[all.size() / 2];
  const double median_large = large[large.size() / 2];
  char line[160];
  std::snprintf(line, sizeof line, "  all   %12.1f%%  (%zu points); >= 256 MiB: %.1f%%\n", 100.0 * median, all.size(),
                100.0 * median_large);
  table += line;
  MESSAGE(table);
  CHECK(all.size() == 77);
  // With NCCL's own constants and no fitted overhead the model is optimistic at mid sizes on
  // this testbed (measured 1 MiB all-reduces take 44-93 us; NCCL's model says 20-36 us). These
  // bounds guard against regressions; a calibration profile (CommEfficiency) closes the gap.
  CHECK(median < 0.30);
  CHECK(median_large < 0.15);
}

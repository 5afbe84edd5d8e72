// Hardware claims, read against data/gpus.yaml (dense tensor-core peaks, one-way NVLink) and
// data/fabrics.yaml, naming the usual traps: the 2:4 sparse figure (twice the dense peak) and
// bidirectional NVLink (twice the one-way figure a collective is limited by).
#include <fmt/format.h>

#include <cmath>

#include "claim_checks.hpp"
#include "claim_format.hpp"

namespace flopcast::claims::detail {
namespace {

bool near(double a, double b) { return b > 0 && std::fabs(a / b - 1.0) <= kTolerance; }

Verdict dense_tflops(const Claim& c, const hardware::GpuSpec& g, hardware::Precision p) {
  const auto peak = g.peak(p);
  if (!peak) {
    Verdict v;
    v.kind = VerdictKind::Impossible;
    v.reason = fmt::format("the {} has no dense tensor-core {} path (data/gpus.yaml)", g.name, to_string(p));
    return v;
  }
  const double claimed = c.claimed->value;
  Verdict v = compare(claimed, peak->flops_per_s, Better::Higher, c.claimed->bound);
  v.figure = {true, peak->tflops(), "TFLOP/s", fmt::format("{:.1f} TFLOP/s dense {}", peak->tflops(), to_string(p))};
  v.how = fmt::format("data/gpus.yaml: {} dense {} tensor-core peak {:.1f} TFLOP/s ({})", g.name, to_string(p),
                      peak->tflops(), g.source.substr(0, g.source.find(" (")));
  const double sparse = 2 * peak->flops_per_s;
  if (near(claimed, sparse))
    v.notes.push_back(
        fmt::format("{:.0f} TFLOP/s is the 2:4 structured-sparsity figure (2 x dense), which dense "
                    "training does not reach",
                    sparse / 1e12));
  else if (claimed > peak->flops_per_s * (1 + kTolerance))
    v.notes.push_back(
        fmt::format("it is not the 2:4 sparse figure either ({:.0f} TFLOP/s = 2 x dense)", sparse / 1e12));
  return v;
}

Verdict peak_vs(const Claim& c, const hardware::GpuSpec& g, const hardware::GpuSpec& other, hardware::Precision p) {
  const auto a = g.peak(p), b = other.peak(p);
  if (!a || !b)
    return cannot_judge(fmt::format("no dense {} peak for both the {} and the {}", to_string(p), g.name, other.name));
  const double ratio = a->flops_per_s / b->flops_per_s;
  const double claimed_ratio = 1.0 + c.claimed->value;
  Verdict v = compare(claimed_ratio, ratio, Better::Higher, c.claimed->bound);
  v.figure = {true, (ratio - 1) * 100, "%", fmt::format("{:.2f}x ({:+.0f}%)", ratio, (ratio - 1) * 100)};
  v.how = fmt::format("data/gpus.yaml dense {}: {} {:.1f} / {} {:.1f} TFLOP/s = {:.2f}x; the claim says {:.2f}x",
                      to_string(p), g.name, a->tflops(), other.name, b->tflops(), ratio, claimed_ratio);
  settle(v, c,
         fmt::format("the ratio follows from the other claims' figures, not from the dense peaks ({:.2f}x)", ratio));
  return v;
}

Verdict nvlink(const Claim& c, const hardware::GpuSpec& g) {
  const units::Bandwidth one_way = g.nvlink_one_way;
  if (one_way.bytes_per_s <= 0) return cannot_judge("data/gpus.yaml gives the " + g.name + " no NVLink");
  Verdict v = compare(c.claimed->value, one_way.bytes_per_s, Better::Higher, c.claimed->bound);
  v.figure = {true, in_claim_unit(one_way, c.claimed->unit), c.claimed->unit,
              bandwidth(one_way, c.claimed->unit) + " one way"};
  v.how =
      fmt::format("data/gpus.yaml: {} NVLink{} {} links, {:.0f} GB/s one way per GPU (NCCL reaches {:.1f} GB/s)",
                  g.name, g.nvlink_generation, g.nvlink_links, one_way.gbytes_per_s(), g.nccl_nvlink.gbytes_per_s());
  if (near(c.claimed->value, 2 * one_way.bytes_per_s))
    v.notes.push_back(
        fmt::format("{} adds both directions (NVIDIA's headline figure); a collective is limited by one "
                    "direction: {:.0f} GB/s",
                    c.claimed->text, one_way.gbytes_per_s()));
  return v;
}

}  // namespace

Verdict judge_hardware(const Claim& c, const HardwareNeeds& n) {
  const std::string& f = n.figure;
  if (f == "software") {
    Verdict v =
        cannot_judge("flopcast's catalogs hold no driver, CUDA or framework versions: nothing to check them with");
    v.how = "no figure: data/gpus.yaml holds datasheet figures (peaks, memory, NVLink, power) only";
    return v;
  }
  if (f == "nic_bandwidth") {
    const hardware::FabricSpec& fab = *n.fabric;
    const units::Bandwidth nic = fab.nic_line_rate();
    Verdict v;
    if (cites_source(fab.source, c.source)) {
      v = cannot_judge("data/fabrics.yaml takes this figure from " + c.source +
                       " itself: reading it back would only repeat the claim");
    } else {
      v = compare(c.claimed->value, nic.bytes_per_s, Better::Higher, c.claimed->bound);
    }
    v.figure = {true, in_claim_unit(nic, c.claimed->unit), c.claimed->unit,
                bandwidth(nic, c.claimed->unit) + " per NIC"};
    v.how = fmt::format("data/fabrics.yaml: {}: {} x {:.0f} Gb/s {} per node", fab.name, fab.nics_per_node,
                        fab.nic_gbps, to_string(fab.kind));
    return v;
  }
  const hardware::GpuSpec& g = *n.gpu;
  if (f == "dense_tflops") return dense_tflops(c, g, n.precision.value_or(hardware::Precision::BF16));
  if (f == "peak_vs") return peak_vs(c, g, *n.compared_with, n.precision.value_or(hardware::Precision::BF16));
  if (f == "nvlink_bandwidth") return nvlink(c, g);
  Verdict v;
  if (f == "memory") {
    v = compare(c.claimed->value, g.hbm.value, Better::Higher, c.claimed->bound);
    v.figure = {true, g.hbm.gib(), "GiB", fmt::format("{:.2f} GiB ({:.1f} GB)", g.hbm.gib(), g.hbm.gb())};
    v.how = fmt::format("data/gpus.yaml: {} HBM {:.2f} GiB, what nvidia-smi reports a job can allocate", g.name,
                        g.hbm.gib());
  } else if (f == "memory_bandwidth") {
    v = compare(c.claimed->value, g.hbm_bandwidth.bytes_per_s, Better::Higher, c.claimed->bound);
    v.figure = {true, in_claim_unit(g.hbm_bandwidth, c.claimed->unit), c.claimed->unit,
                bandwidth(g.hbm_bandwidth, c.claimed->unit)};
    v.how = fmt::format("data/gpus.yaml: {} HBM peak bandwidth", g.name);
  } else {  // power
    v = compare(c.claimed->value, g.tdp_w, Better::Lower, c.claimed->bound);
    v.figure = {true, g.tdp_w, "W", fmt::format("{:.0f} W board power (TDP)", g.tdp_w)};
    v.how = fmt::format("data/gpus.yaml: {} board power {:.0f} W at full load", g.name, g.tdp_w);
  }
  settle(v, c, "data/gpus.yaml gives " + v.figure.text + ", not " + c.claimed->text);
  return v;
}

}  // namespace flopcast::claims::detail

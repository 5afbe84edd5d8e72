#include <fmt/format.h>

#include <ostream>

#include "cli_context.hpp"
#include "flopcast/units/format.hpp"
#include "flopcast/workload/workload.hpp"

namespace flopcast::cli {

void register_catalog(CLI::App& app, CliContext& ctx) {
  auto what = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("catalog", "List the built-in catalogs: gpus, fabrics, models");
  cmd->add_option("what", *what, "gpus | fabrics | models")
      ->required()
      ->check(CLI::IsMember({"gpus", "fabrics", "models"}));
  cmd->callback([&ctx, what] {
    const auto* cat = ctx.catalog();
    if (!cat) return;
    auto& o = ctx.out;
    if (*what == "gpus") {
      o << fmt::format("{:<10} {:<9} {:>4} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>10} {:>6}  {}\n", "name", "arch",
                       "SMs", "fp32", "tf32", "bf16", "fp8", "HBM GiB", "HBM TB/s", "NVLink GB/s", "TDP W",
                       "default fabric");
      for (const auto& g : cat->gpus) {
        auto tf = [&](Precision p) {
          return g.peak(p) ? fmt::format("{:.1f}", g.peak(p)->tflops()) : std::string("-");
        };
        o << fmt::format("{:<10} {:<9} {:>4} {:>8} {:>8} {:>8} {:>8} {:>9.1f} {:>8.2f} {:>10.0f} {:>6.0f}  {}\n",
                         g.name, to_string(g.arch), g.sm_count, tf(Precision::FP32), tf(Precision::TF32),
                         tf(Precision::BF16), tf(Precision::FP8), g.hbm.gib(), g.hbm_bandwidth.bytes_per_s / 1e12,
                         g.nvlink_one_way.gbytes_per_s(), g.tdp_w, g.default_fabric);
      }
      o << "(dense tensor-core TFLOP/s; NVLink one-way per GPU)\n";
    } else if (*what == "fabrics") {
      o << fmt::format("{:<20} {:>5} {:<10} {:>6} {:>5} {:>9} {:>7}  {}\n", "name", "gpus", "net", "NICs", "Gb/s",
                       "oversub", "kW", "description");
      for (const auto& f : cat->fabrics)
        o << fmt::format("{:<20} {:>5} {:<10} {:>6} {:>5.0f} {:>9.1f} {:>7.1f}  {}\n", f.name, f.gpus_per_node,
                         to_string(f.kind), f.nics_per_node, f.nic_gbps, f.oversubscription, f.node_power_kw,
                         f.description);
    } else {
      o << fmt::format("{:<16} {:<22} {:>9} {:>6} {:>7} {:>6} {:>6} {:>7} {:>7}  {}\n", "name", "display", "params",
                       "layers", "hidden", "heads", "kv", "ffn", "vocab", "ffn kind");
      for (const auto& m : cat->models)
        o << fmt::format("{:<16} {:<22} {:>9} {:>6} {:>7} {:>6} {:>6} {:>7} {:>7}  {}{}\n", m.name, m.display,
                         format_count(parameter_count(m).total), m.layers, m.hidden, m.heads, m.kv_heads, m.ffn,
                         m.vocab, m.ffn_kind == FfnKind::SwiGlu ? "swiglu" : "gelu", m.moe ? " (MoE)" : "");
    }
  });
}

}  // namespace flopcast::cli

// Plan-search throughput (`bench_plan [threads] [case]`: a case whose title contains the text). The anchor is
// Calculon's (Isaev et al., SC'23, "Calculon: a methodology and tool for high-level co-design of systems and large
// language models") search of Megatron-Turing NLG 530B on 5,128 A100 with global batch 2,520: 8,112 plans in 29.9 s =
// 278 plans/s on a 2-core machine. The model: 105 layers, hidden 20480, 128 heads, sequence 2048 (Smith et al. 2022,
// arXiv 2201.11990, Table 1; data/models.yaml megatron-530b). flopcast searches every GPU count up to 5,128 (multiples
// of the 8-GPU node) x TP x CP x PP x DP x micro-batch x schedule/VPP x SP x ZeRO x recompute, prunes, estimates,
// prices each count's fastest plan and re-simulates the best (whole-run Monte Carlo); the
// rate printed counts estimated plans over the whole wall time, re-simulation included.
// Second case: a 70B model on 1T tokens over A100-80G, H800 and B200 (scenarios/plan-70b-1t.yaml's job).
// Third: the whole `flopcast plan scenarios/plan-72b-2t-h800.yaml --deadline 45d --gpu H800
// --gpus-max 2048` search, re-simulation of the ranked candidates (DES + whole-run Monte Carlo)
// included (target <= 5 s on 2 cores; 0.15-0.4 s). Fourth: Llama 3 405B over A100-80G, H100, H800,
// H200, B200 and GB200 up to 16,384 GPUs (target <= 5 s; not met): 19.4 s before the bound pruning,
// 10.8-11.1 s wall and 20.1-20.9 CPU-s on a quiet 2-core machine before the process-wide network-share
// memo and the second pruning pass against every count's lists; after them 643,145 plans estimated
// instead of 1,222,578, 17-20 CPU-s with the machine loaded 3x (8.6-16 s wall), where the earlier
// build took 23-28 CPU-s on the same `plan` (about a third less CPU). With the memory and step
// model of 6,030,288 enumerated plans (707,353 estimated): 16.7-20.2 CPU-s (8.5-11.4 s wall)
// with the machine loaded 2x, then 14.6-16.8 CPU-s (7.4-11.7 s) once a plan whose first pipeline
// stage does not fit, or whose ZeRO-2 form with sequence parallelism does not, is counted without
// its other stages or its own memory, and the trials of one seed share their failure draws.
// What is left is the re-simulation's discrete-event steps and trials and the search's network
// shares, step estimates and bounds. Then, with the step engine's arrays kept from one simulated
// step to the next, the second pruning pass reading the first's bound order, a trial's pending
// events in a fixed array and the allocator set up as `flopcast` sets it (of 5,875,752 plans
// enumerated, 687,748 estimated): 13.4-14.6 CPU-s where the build before took 16.4-18.0, the
// re-simulation 4.8-5.1 s where it took 6.8-8.1 s, runs alternated with the machine loaded 2-3x
// (13.5-14.7 s wall against 16.3-18.2 s: about one core free).
#include <chrono>
#include <cstdio>
#include <cstdlib>  // defines __GLIBC__ on glibc
#include <ctime>
#include <optional>
#include <string>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/search/planner.hpp"

using namespace flopcast;

namespace {

std::int64_t pruned_by_bound(const search::PlanResult& r) {
  for (const auto& p : r.pruned)
    if (p.reason.find("lower bound") != std::string::npos) return p.count;
  return 0;
}

/// Only the cases whose title contains this (the second argument; empty: every case).
std::string g_only;

int bench(const char* title, const char* yaml, const std::vector<std::string>& gpus, std::int64_t gpus_max,
          const io::Catalog& cat, const std::vector<std::shared_ptr<const pricing::PriceCatalog>>& prices, int threads,
          std::optional<units::Time> deadline = std::nullopt, const char* currency = "USD") {
  if (!g_only.empty() && std::string(title).find(g_only) == std::string::npos) return 0;
  scenario::Diagnostics diags;
  auto s = io::parse_scenario(yaml, "bench", cat, diags);
  if (!s) {
    std::fprintf(stderr, "%s", diags.str().c_str());
    return 1;
  }
  search::PlanSpace space;
  space.gpus_max = gpus_max;
  for (const auto& g : gpus) {
    const hardware::GpuSpec* spec = cat.find_gpu(g);
    const hardware::FabricSpec* fab = spec ? cat.find_fabric(spec->default_fabric) : nullptr;
    if (!spec || !fab) {
      std::fprintf(stderr, "unknown GPU %s\n", g.c_str());
      return 1;
    }
    scenario::ClusterSpec c;
    c.gpu = *spec;
    c.fabric = *fab;
    c.gpus_per_node = fab->gpus_per_node;
    space.clusters.push_back(c);
  }
  search::PlannerOptions opt;
  opt.threads = threads;
  opt.catalogs = prices;
  opt.currency = currency;
  opt.deadline = deadline;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  const auto r = search::search_plans(*s, cat.profile, space, opt);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Process CPU time (all threads): the machine is shared, so wall time alone overstates the cost.
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.errors.front().c_str());
    return 1;
  }
  const auto& x = r.result;
  std::printf(
      "bench_plan: %s, %d thread(s): %lld plans enumerated, %lld pruned for memory, %lld estimated in %.2f s "
      "(search %.2f s + re-simulation %.2f s) = %.0f estimated plans/s (%.0f enumerated/s)\n",
      title, threads, static_cast<long long>(x.enumerated), static_cast<long long>(x.enumerated - x.estimated),
      static_cast<long long>(x.estimated), wall, x.seconds, x.resimulate_seconds,
      static_cast<double>(x.estimated) / wall, static_cast<double>(x.enumerated) / wall);
  std::printf("  CPU time %.2f s (all threads) = %.0f estimated plans per CPU-second\n", cpu,
              cpu > 0 ? static_cast<double>(x.estimated) / cpu : 0.0);
  std::printf("  %zu candidates re-simulated in %d round(s); %lld shapes skipped by the lower bound\n",
              x.resimulated.size(), x.rounds, static_cast<long long>(pruned_by_bound(x)));
  if (x.chosen)
    std::printf(
        "  recommended: %lld x %s %s, %.1f / %.1f days P50/P90 (simulated); checked at %s: %.1f days, %s under %s\n",
        static_cast<long long>(x.chosen->plan.candidate.gpus), x.chosen->plan.candidate.gpu.c_str(),
        parallel::plan_label(x.chosen->plan.candidate.plan).c_str(), x.chosen->wall_p50.days(),
        x.chosen->wall_p90.days(),
        search::confidence_words(search::Confidence::P90, x.chosen->band, x.chosen->arch).c_str(),
        x.chosen->wall.days(), x.chosen->cost.str().c_str(), x.chosen->plan.price_option.c_str());
  if (!x.top.empty())
    std::printf("  fewest GPU-hours: %lld x %s %s, step %.2f s, MFU %.1f%%\n",
                static_cast<long long>(x.top.front().gpus), x.top.front().gpu.c_str(),
                parallel::plan_label(x.top.front().plan).c_str(), x.top.front().step.seconds(),
                100 * x.top.front().mfu);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // The allocator as `flopcast` sets it up for its short runs (cli/process_setup.cpp), so that
  // the figures are those of `flopcast plan`: large blocks from the heap, its top not trimmed.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
  const int threads =
      argc > 1 ? std::atoi(argv[1]) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (argc > 2) g_only = argv[2];  // e.g. "405B": that case alone
  scenario::Diagnostics diags;
  const auto cat = io::load_catalog("", diags);
  if (!cat) {
    std::fprintf(stderr, "%s", diags.str().c_str());
    return 1;
  }
  std::vector<std::shared_ptr<const pricing::PriceCatalog>> prices;
  for (const auto& n : io::price_catalog_names()) {
    auto pc = io::load_price_catalog(n, "", diags);
    if (pc) prices.push_back(std::make_shared<const pricing::PriceCatalog>(std::move(*pc)));
  }
  // The base plan only has to be valid (no plan uses exactly 5,128 = 8 x 641 GPUs with global
  // batch 2,520); the search replaces it and goes up to 5,128.
  const char* mtnlg = R"(
model: megatron-530b
cluster: {gpu: A100-80G, gpus: 5040}
parallel: {tp: 8, pp: 35, dp: 18, micro_batch: 1, global_batch: 2520}
precision: bf16
training: {tokens: 270B}
)";
  const char* llama70 = R"(
model: llama3-70b
cluster: {gpu: H800, gpus: 1024}
parallel: {tp: 8, pp: 1, dp: 128, micro_batch: 1, global_batch: 512}
precision: bf16
training: {tokens: 1T}
)";
  int rc = bench("Megatron-Turing NLG 530B, <= 5,128 A100-80G, global batch 2,520", mtnlg, {"A100-80G"}, 5128, *cat,
                 prices, threads);
  if (threads != 1)
    rc |= bench("Megatron-Turing NLG 530B, <= 5,128 A100-80G, global batch 2,520", mtnlg, {"A100-80G"}, 5128, *cat,
                prices, 1);
  rc |= bench("Llama 3 70B, 1T tokens, <= 1,024 x {A100-80G, H800, B200}", llama70, {"A100-80G", "H800", "B200"}, 1024,
              *cat, prices, threads);
  // The 72B / 2T / H800 case (scenarios/plan-72b-2t-h800.yaml), priced under the billable plans.
  const char* q72 = R"(
model: {layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn: 29568, ffn_kind: swiglu, vocab: 152064,
        seq_len: 4096, embeddings: untied, position: rope, norm: rmsnorm, bias: false}
cluster: {gpu: H800, gpus: 512, gpus_per_node: 8, fabric: hgx-h800-roce200}
parallel: {tp: 8, pp: 4, dp: 16, sequence_parallel: true, zero: 1, micro_batch: 1, global_batch: 1024,
           recompute: selective, schedule: 1f1b}
precision: bf16
training: {tokens: 2T}
reliability: {failures_per_gpu_hour: 1.97e-5, restart_time: 10min, checkpoint_interval: auto,
              async_checkpoint: true, storage_write: 5 GB/s, trials: 100, seed: 1}
pricing: {catalog: seed-vendor}
)";
  std::vector<std::shared_ptr<const pricing::PriceCatalog>> billable;
  for (const auto& pc : prices) {
    pricing::PriceCatalog c = *pc;
    std::erase_if(c.plans, [](const pricing::Plan& p) { return !pricing::billable_by_default(p.kind); });
    billable.push_back(std::make_shared<const pricing::PriceCatalog>(std::move(c)));
  }
  rc |= bench("72B dense, 2T tokens, <= 2,048 H800, deadline 45 days (whole plan command)", q72, {"H800"}, 2048, *cat,
              billable, threads, units::Time::from_seconds(45 * 86400.0), "CNY");
  const char* l405 = R"(
model: llama3-405b
cluster: {gpu: H100, gpus: 14336}
parallel: {tp: 8, pp: 14, dp: 128, micro_batch: 1, global_batch: 2048}
precision: bf16
training: {tokens: 15T}
)";
  rc |= bench("Llama 3 405B, <= 16,384 x {A100-80G, H100, H800, H200, B200, GB200}", l405,
              {"A100-80G", "H100", "H800", "H200", "B200", "GB200"}, 16384, *cat, billable, threads);
  std::printf("bench_plan: anchor Calculon 278 plans/s (8,112 plans in 29.9 s); 100x = 27,800 plans/s\n");
  return rc;
}

// Negative tests (STYLE.md "one bad input file per kind of mistake, each with its exact expected
// message"): each file in tests/negative/ is loaded under its bare file name, so the message
// does not depend on where the tree is checked out, and its first error must read exactly as
// written here: "file:line:col: error: key: message (hint: ...)".
#include <doctest/doctest.h>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../support/shipped_catalog.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/io/claims_loader.hpp"
#include "flopcast/io/collective_runs.hpp"
#include "flopcast/io/fleet_loader.hpp"
#include "flopcast/io/price_catalog_io.hpp"
#include "flopcast/io/scenario_loader.hpp"
#include "flopcast/io/sweep_loader.hpp"

using namespace flopcast;
using namespace flopcast::io;

namespace {

struct NegativeCase {
  const char* file;      ///< under tests/negative/
  const char* expected;  ///< the first error's Diagnostic::str()
};

// Scenario files (parse_scenario).
const NegativeCase kScenarioCases[] = {
    {"malformed-yaml.yaml",
     "malformed-yaml.yaml:4:9: error: malformed YAML: end of map flow not found (hint: check indentation, colons and quoting near this line)"},
    {"wrong-type-tp.yaml",
     "wrong-type-tp.yaml:7:7: error: parallel.tp: expected an integer, got 'eight' (hint: write a whole number such as 8 or 16K)"},
    {"unknown-top-level-key.yaml",
     "unknown-top-level-key.yaml:9:1: error: trainig: unknown key 'trainig' (hint: did you mean 'training'?)"},
    {"unknown-nested-key.yaml",
     "unknown-nested-key.yaml:9:3: error: parallel.micro_bach: unknown key 'micro_bach' (hint: did you mean 'micro_batch'?)"},
    {"unknown-gpu.yaml",
     "unknown-gpu.yaml:4:8: error: cluster.gpu: unknown GPU 'H10O' (hint: did you mean 'H100'? (known GPUs: A100-40G, A100-80G, H100, H100-96G-HBM2e, H800, H200, B200, GB200, B300, GB300, H20, A800-80G, L40S, L20, RTX4090; to add one, copy the catalog folder (data/ of the source, share/flopcast/data of an installation), add its entry to gpus.yaml there (dense TFLOP/s per precision, hbm_gib in GiB, hbm_tbps in TB/s, NVLink one way in GB/s or none, PCIe generation and lanes, tdp_w in W, a source) and pass --data-dir (docs/architecture.md, \"Where to add things\")))"},
    // A different part of a similar name gets no suggestion (H30 is neither the H20 nor the H200).
    {"unknown-gpu-other-part.yaml",
     "unknown-gpu-other-part.yaml:4:8: error: cluster.gpu: unknown GPU 'H30' (hint: known GPUs: A100-40G, A100-80G, H100, H100-96G-HBM2e, H800, H200, B200, GB200, B300, GB300, H20, A800-80G, L40S, L20, RTX4090; to add one, copy the catalog folder (data/ of the source, share/flopcast/data of an installation), add its entry to gpus.yaml there (dense TFLOP/s per precision, hbm_gib in GiB, hbm_tbps in TB/s, NVLink one way in GB/s or none, PCIe generation and lanes, tdp_w in W, a source) and pass --data-dir (docs/architecture.md, \"Where to add things\"))"},
    {"unknown-model-preset.yaml",
     "unknown-model-preset.yaml:2:8: error: model: unknown model preset 'llama3-8bb' (hint: did you mean 'llama3-8b'?)"},
    {"unknown-fabric.yaml",
     "unknown-fabric.yaml:6:11: error: cluster.fabric: unknown fabric 'dgx-h100-ndr400' (hint: did you mean 'dgx-h100-ndr'?)"},
    {"tp-not-dividing-heads.yaml",
     "tp-not-dividing-heads.yaml:7:7: error: parallel.tp: tp 5 does not divide heads 96 (hint: tensor parallelism splits attention heads: choose tp dividing 96)"},
    {"product-mismatch.yaml",
     "product-mismatch.yaml:7:3: error: parallel: tp*pp*dp*cp = 8*4*4*1 = 128 but cluster.gpus is 64 (hint: for 64 GPUs with tp 8, pp 4, cp 1 use dp 2)"},
    {"global-batch-not-divisible.yaml",
     "global-batch-not-divisible.yaml:9:17: error: parallel.global_batch: global_batch 100 is not divisible by micro_batch*dp = 2*8 = 16 (hint: use a multiple of 16, e.g. 96)"},
    {"zero-gpus.yaml", "zero-gpus.yaml:5:9: error: cluster.gpus: value 0 is out of range: expected 1 to 1000000"},
    {"negative-layers.yaml",
     "negative-layers.yaml:3:11: error: model.layers: value -4 is out of range: expected 1 to 100000"},
    {"absurd-gpus.yaml",
     "absurd-gpus.yaml:5:9: error: cluster.gpus: value 1e12 is out of range: expected 1 to 1000000"},
    {"missing-precision.yaml",
     "missing-precision.yaml:2:1: error: precision: missing required key 'precision' (hint: one of fp32, fp16, bf16, fp8, mxfp8, nvfp4)"},
    {"missing-cluster-gpus.yaml",
     "missing-cluster-gpus.yaml:4:3: error: cluster.gpus: missing required key 'gpus' (hint: the number of GPUs of the job, e.g. gpus: 64)"},
    {"bad-unit-tokens.yaml",
     "bad-unit-tokens.yaml:10:11: error: training.tokens: expected a number, got 'lots' (hint: write e.g. 0.45, 1.4e12 or 1.4T)"},
    {"bad-bandwidth-unit.yaml",
     "bad-bandwidth-unit.yaml:8:10: error: cluster.fabric.nic: bad bandwidth '400' (hint: write a finite number with a unit, e.g. \"400 Gbps\" or \"50 GB/s\")"},
    {"nic-not-finite.yaml",
     "nic-not-finite.yaml:8:10: error: cluster.fabric.nic: bad bandwidth '1e308 Tbps' (hint: write a finite number with a unit, e.g. \"400 Gbps\" or \"50 GB/s\")"},
    {"nic-out-of-range.yaml",
     "nic-out-of-range.yaml:8:10: error: cluster.fabric.nic: bandwidth '1 Mbps' is out of range: expected 1 Gbps to 100000 Gbps "
     "(hint: a NIC's line rate, e.g. \"400 Gbps\" (NDR InfiniBand) or \"800 Gbps\" (XDR))"},
    {"parallel-product-overflow.yaml",
     "parallel-product-overflow.yaml:7:3: error: parallel: tp*pp*dp*cp = 1000000*1000000*1000000*1000000 exceeds 2^63 "
     "(far above the 10^6-GPU planning limit); cluster.gpus is 1000000 (hint: make the product of the degrees equal cluster.gpus (at most 1000000))"},
    {"tokens-per-step-too-large.yaml",
     "tokens-per-step-too-large.yaml:8:17: error: parallel.global_batch: global_batch*seq_len = 1000000000000*100000 = 1e+17 "
     "tokens per step, above the 10^16 limit (hint: lower global_batch (sequences per step) or model.seq_len)"},
    {"bad-choice-recompute.yaml",
     "bad-choice-recompute.yaml:8:14: error: parallel.recompute: unknown value 'ful' (hint: did you mean 'full'? (expected one of: none, selective, full, auto))"},
    {"bad-choice-elementwise.yaml",
     "bad-choice-elementwise.yaml:9:14: error: elementwise: unknown value 'eagre' (hint: did you mean 'eager'? (expected one of: fused, eager))"},
    {"fp8-on-a100.yaml",
     "fp8-on-a100.yaml:8:12: error: precision: the A100-80G has no dense tensor-core fp8 path (hint: use bf16 or fp16 on this GPU)"},
    {"vpp-without-interleaved.yaml",
     "vpp-without-interleaved.yaml:9:13: error: parallel.schedule: vpp > 1 needs schedule interleaved, got 1f1b"},
    {"vpp-without-pp.yaml", "vpp-without-pp.yaml:8:8: error: parallel.vpp: vpp 2 needs pipeline parallelism (pp > 1)"},
    {"mxfp8-on-h100.yaml",
     "mxfp8-on-h100.yaml:8:12: error: precision: the H100 has no dense tensor-core mxfp8 path (hint: mxfp8 and nvfp4 "
     "are Blackwell formats (B200, GB200, B300, GB300); use fp8 or bf16 on this GPU)"},
    {"fp8-on-a800.yaml",
     "fp8-on-a800.yaml:8:12: error: precision: the A800-80G has no dense tensor-core fp8 path (hint: use bf16 or fp16 on this GPU)"},
    {"bf16-layers-on-bf16.yaml",
     "bf16-layers-on-bf16.yaml:9:14: error: bf16_layers: bf16_layers keeps layers of an 8- or 4-bit run in BF16, but "
     "the precision is bf16 (hint: use precision fp8, mxfp8 or nvfp4, or drop bf16_layers)"},
    {"bf16-layers-too-many.yaml",
     "bf16-layers-too-many.yaml:9:14: error: bf16_layers: bf16_layers keeps 33 layers in BF16 but the model has 32 "
     "(hint: keep at most 32 in all (every layer in BF16 is precision: bf16))"},
    {"fp4-on-h20.yaml",
     "fp4-on-h20.yaml:8:12: error: precision: the H20 has no dense tensor-core nvfp4 path (hint: mxfp8 and nvfp4 "
     "are Blackwell formats (B200, GB200, B300, GB300); use fp8 or bf16 on this GPU)"},
    {"etp-ep-not-dividing.yaml",
     "etp-ep-not-dividing.yaml:14:8: error: parallel.etp: etp*ep = 4*4 = 16 does not divide tp*dp*cp = 8 (hint: choose "
     "etp and ep whose product divides 8 (the expert layers regroup each pipeline stage's tp*dp*cp GPUs as etp x ep x "
     "expert-dp))"},
    {"training-method-lora.yaml", "training-method-lora.yaml:10:11: error: training.lora: method lora needs a lora block: the adapters' rank sets their cost (hint: add lora: {rank: 16} under training (targets default to qkv, proj, fc1, fc2))"},
    {"lora-rank-zero.yaml",
     "lora-rank-zero.yaml:12:11: error: training.lora.rank: rank must be 1 to the model's hidden size (4096), got 0 (hint: a typical rank is 8 to 64 (MLPerf's Llama 2 70B LoRA benchmark uses 16))"},
    {"lora-rank-negative.yaml",
     "lora-rank-negative.yaml:12:11: error: training.lora.rank: rank must be 1 to the model's hidden size (4096), got -4 (hint: a typical rank is 8 to 64 (MLPerf's Llama 2 70B LoRA benchmark uses 16))"},
    {"lora-rank-above-hidden.yaml",
     "lora-rank-above-hidden.yaml:12:11: error: training.lora.rank: rank must be 1 to the model's hidden size (4096), got 8192 (hint: a typical rank is 8 to 64 (MLPerf's Llama 2 70B LoRA benchmark uses 16))"},
    {"lora-unknown-target.yaml",
     "lora-unknown-target.yaml:13:15: error: training.lora.targets[0]: unknown LoRA target 'q_prj' (hint: did you mean 'q_proj'? (targets are the model's GEMMs: qkv (or q, k, v), proj, fc1 (or gate, up), fc2; Hugging Face names (q_proj ... down_proj) are accepted))"},
    {"lora-with-method-full.yaml",
     "lora-with-method-full.yaml:12:5: error: training.lora: a lora block needs method lora or qlora (method is full) (hint: set training.method: lora (or qlora), or remove the lora block)"},
    {"qlora-bf16-base.yaml",
     "qlora-bf16-base.yaml:13:19: error: training.lora.base_weights: method qlora stores the frozen base weights in 4-bit NF4, got base_weights bf16 (hint: use base_weights: nf4 (or leave it out), or method: lora for bf16 base weights)"},
    {"ep-on-dense-model.yaml",
     "ep-on-dense-model.yaml:8:7: error: parallel.ep: ep 4 needs a mixture-of-experts model (hint: set ep: 1 for dense models)"},
    {"empty.yaml", "empty.yaml:1:1: error: the file is empty (hint: see scenarios/quickstart.yaml for the format)"},
    {"list-not-mapping.yaml",
     "list-not-mapping.yaml:2:1: error: a scenario file must be a YAML mapping (hint: see scenarios/quickstart.yaml for the format)"},
    // Once "not caught yet" (scenario_check.cpp and model_io.cpp check them now): heads and
    // kv_heads divisibility, a moe block without experts, dense_layers above layers.
    {"heads-not-dividing-hidden.yaml",
     "heads-not-dividing-hidden.yaml:5:10: error: model.heads: heads 3 does not divide hidden 1000 "
     "(hint: the head dimension hidden/heads must be a whole number, or give model.head_dim)"},
    {"kv-heads-not-dividing-heads.yaml",
     "kv-heads-not-dividing-heads.yaml:6:13: error: model.kv_heads: kv_heads 16 does not divide heads 8 "
     "(hint: grouped-query attention shares each key/value head among heads/kv_heads query heads: choose a divisor of 8)"},
    {"missing-moe-experts.yaml",
     "missing-moe-experts.yaml:10:5: error: model.moe.experts: missing required key 'experts' "
     "(hint: routed experts per MoE layer, e.g. experts: 8)"},
    {"moe-dense-layers-exceed-layers.yaml",
     "moe-dense-layers-exceed-layers.yaml:12:19: error: model.moe.dense_layers: dense_layers 9 exceeds layers 4 "
     "(hint: dense_layers counts the leading layers that keep a dense FFN)"},
    // The run schema's 2026 keys out of range (model.mla, moe.layer_freq, parallel.pipeline_layout,
    // training.base_weights, schedule dualpipe, parallel.fsdp).
    {"mla-kv-lora-rank-zero.yaml",
     "mla-kv-lora-rank-zero.yaml:8:41: error: model.mla.kv_lora_rank: kv_lora_rank (the width keys and values are "
     "compressed to) must be at least 1, got 0 (hint: MLA compresses each token's keys and values to a latent of "
     "kv_lora_rank values (DeepSeek-V3: 512); for uncompressed attention drop model.mla and give kv_heads)"},
    {"mla-with-kv-heads.yaml",
     "mla-with-kv-heads.yaml:6:13: error: model.kv_heads: kv_heads does not apply with model.mla: each of the 8 "
     "heads has its own key and value from the kv up projection, of qk_nope_head_dim + qk_rope_head_dim and "
     "v_head_dim (hint: remove kv_heads (or model.mla, for grouped-query attention))"},
    {"moe-layer-freq-zero.yaml",
     "moe-layer-freq-zero.yaml:8:61: error: model.moe.layer_freq: layer_freq must be at least 1, got 0 (hint: an "
     "MoE layer every N layers after the dense ones: 1 for every layer, 2 for every other (Llama 4 Maverick))"},
    {"pipeline-first-stage-exceeds-layers.yaml",
     "pipeline-first-stage-exceeds-layers.yaml:8:25: error: parallel.pipeline_layout.first_stage_layers: "
     "first_stage_layers 40 exceeds layers 32 (hint: the layers of the first pipeline rank, over all its virtual "
     "stages (Megatron-LM --decoder-first-pipeline-num-layers); the other ranks share the rest evenly)"},
    {"nvfp4-base-weights-on-h100.yaml",
     "nvfp4-base-weights-on-h100.yaml:9:17: error: training.base_weights: the H100 has no NVFP4 tensor cores: "
     "NVFP4 base weights are a Blackwell format (B200, GB200, B300, GB300) (hint: use base_weights: fp8 or bf16 "
     "on this GPU (or method: qlora for 4-bit NF4 weights))"},
    {"dualpipe-odd-pp.yaml",
     "dualpipe-odd-pp.yaml:4:47: error: parallel.schedule: schedule dualpipe needs an even pp of at least 2, got "
     "pp 3 (hint: DualPipe feeds micro-batches from both ends of an even pipeline)"},
    {"fsdp-with-zero-1.yaml",
     "fsdp-with-zero-1.yaml:4:18: error: parallel.zero: zero 1 contradicts parallel.fsdp, which shards parameters, "
     "gradients and optimizer state (ZeRO-3) (hint: write zero: 3 (or leave zero out) with fsdp, or drop fsdp)"},
    // Once accepted: 9 GPUs per node on an 8-GPU board (a warning, then simulated as 8 per node),
    // an interval of zero read as the Young/Daly one, and files not in UTF-8 (GBK: 训 = D1 B5 happens to
    // be a UTF-8 character, 练 = C1 B7 is not).
    {"gpus-per-node-above-node-type.yaml",
     "gpus-per-node-above-node-type.yaml:6:18: error: cluster.gpus_per_node: 9 GPUs per node, but the node type "
     "'hgx-h800-roce200' holds 8 (hint: write gpus_per_node: 8 or fewer, or describe a larger node in a "
     "cluster.fabric mapping without a preset)"},
    {"checkpoint-interval-zero.yaml",
     "checkpoint-interval-zero.yaml:12:24: error: reliability.checkpoint_interval: an interval of 0min is no interval "
     "(hint: write auto for the Young/Daly interval, or a duration above zero, e.g. 30min)"},
    {"utf16-scenario.yaml",
     "utf16-scenario.yaml:1:1: error: the file is UTF-16 (little-endian, with a byte-order mark), not UTF-8 (hint: "
     "save it as UTF-8, e.g. iconv -f UTF-16 -t UTF-8 utf16-scenario.yaml > utf8.yaml)"},
    {"gbk-scenario.yaml",
     "gbk-scenario.yaml:2:9: error: the file is not UTF-8: byte 0xC1 here starts no UTF-8 character (hint: save it as "
     "UTF-8; a file from a Chinese Windows editor is often GBK: iconv -f GBK -t UTF-8 gbk-scenario.yaml > utf8.yaml)"},
};

// Catalog files (load_catalog over a copy of data/ with one file replaced): the bad entry's first
// error, the file named as it is inside the catalog folder.
struct CatalogCase {
  const char* file;      ///< under tests/negative/
  const char* replaces;  ///< gpus.yaml or fabrics.yaml
  const char* expected;
};
const CatalogCase kCatalogCases[] = {
    {"catalog-gpu-without-source.yaml", "gpus.yaml",
     "gpus.yaml:3:5: error: gpus[0].source: the GPU 'X100' cites no source for its figures (hint: add source: the "
     "datasheet, whitepaper or vendor page each figure comes from (keys of docs/references.md, or the page's address))"},
    {"catalog-gpu-sparse-peak.yaml", "gpus.yaml",
     "gpus.yaml:6:64: error: gpus[0].dense_tflops.bf16: '1979 sparse' is marked sparse; dense_tflops holds dense "
     "peaks only (hint: give the dense peak: half of NVIDIA's 'with sparsity' figure, as a plain number of TFLOP/s)"},
    {"catalog-gpu-sparse-key.yaml", "gpus.yaml",
     "gpus.yaml:6:58: error: gpus[0].dense_tflops.bf16_sparse: 'bf16_sparse' is a sparse figure; dense_tflops holds "
     "dense peaks only (hint: give bf16: half of the sparse figure)"},
    {"catalog-gpu-bidirectional-nvlink.yaml", "gpus.yaml",
     "gpus.yaml:9:54: error: gpus[0].nvlink.one_way_gbps: one_way_gbps 900 is more than 18 NVLink 4 links carry one "
     "way (450 GB/s): it reads as the bidirectional figure (hint: give one way: half of NVIDIA's figure (450))"},
    {"catalog-gpu-bidirectional-key.yaml", "gpus.yaml",
     "gpus.yaml:9:60: error: gpus[0].nvlink.bidirectional_gbps: NVLink bandwidth is given one way (hint: give "
     "one_way_gbps: half of the bidirectional figure (H100: 900 GB/s both ways = 450 one way))"},
    {"catalog-fabric-sockets-without-cpu.yaml", "fabrics.yaml",
     "fabrics.yaml:10:18: error: fabrics[0].cpu: 2 CPU sockets need the CPU family: the link between them depends on "
     "it (hint: add cpu: intel-skylake, intel-sapphire-rapids, intel-emerald-rapids, amd or arm)"},
};

// Measured-run files (parse_run_file): the bad entry's first error; the other entries load.
const NegativeCase kRunFileCases[] = {
    {"run-entry-flops-convention-without-figure.yaml",
     "run-entry-flops-convention-without-figure.yaml:15:54: error: measured.flops_convention: flops_convention says how "
     "mfu and tflops_per_gpu were counted, but the run gives neither (hint: add the run's mfu or tflops_per_gpu, or "
     "remove flops_convention)"},
    {"run-entry-without-id.yaml",
     "run-entry-without-id.yaml:9:3: error: id: missing required key 'id' (hint: every measured run needs a unique id)"},
    {"run-entry-bad-open-setting.yaml",
     "run-entry-bad-open-setting.yaml:13:28: error: parallel.global_batch: expected an integer, got 'auto' (hint: "
     "write a whole number such as 8 or 16K)"},
};

// Claims files (parse_claims_file, `flopcast check`): the bad claim's first error; the other claim
// of each file (a hardware claim) still loads and is judged.
const NegativeCase kClaimsCases[] = {
    {"claims-unknown-kind.yaml",
     "claims-unknown-kind.yaml:13:11: error: claims.a100-hourly-price.kind: unknown claim kind 'pricing' "
     "(hint: expected one of: training, price, collective, hardware, energy, checkpoint)"},
    {"claims-missing-needs.yaml",
     "claims-missing-needs.yaml:18:7: error: claims.a100-hourly-price.needs.plan: missing required key 'plan' "
     "(hint: a plan id of catalog seed-vendor (or cpu_instance: ID))"},
    {"claims-unit-mismatch.yaml",
     "claims-unit-mismatch.yaml:15:14: error: claims.allreduce-190gbps.claimed: '190 ms' is a time, but figure "
     "'busbw' needs a bandwidth (hint: write e.g. \"190 Gbps\" or \"24 GB/s\")"},
    {"claims-unknown-plan.yaml",
     "claims-unknown-plan.yaml:17:19: error: claims.h800-day-price.needs.plan: unknown plan 'h800-dayly' in catalog "
     "seed-vendor (hint: did you mean 'h800-daily'? (plans of catalog seed-vendor: a100-80g-hourly, "
     "a100-80g-hourly-usd, a100-80g-monthly-node, a100-80g-daily, a100-80g-single-monthly, h800-daily, h100-hourly, "
     "idc-node-monthly, big-cloud-node-monthly))"},
    {"claims-unknown-key.yaml",
     "claims-unknown-key.yaml:14:5: error: claims.h800-330w.quoet: unknown key 'quoet' (hint: did you mean 'quote'?)"},
    {"claims-relies-on-unknown.yaml",
     "claims-relies-on-unknown.yaml:16:16: error: claims.restart-from-last-step.relies_on: no claim "
     "'async-checkpoint-30mins' in this file (hint: did you mean 'async-checkpoint-30min'?)"},
    {"claims-missing-scenario.yaml",
     "claims-missing-scenario.yaml:15:23: error: claims.65b-mfu.needs.scenario: scenario file 'no-such-scenario.yaml' "
     "not found (hint: paths are relative to the claims file's folder)"},
    {"claims-unknown-figure.yaml",
     "claims-unknown-figure.yaml:13:13: error: claims.a100-fp16-1075.figure: unknown figure 'tflops' (hint: figures of "
     "a hardware claim: dense_tflops, peak_vs, nvlink_bandwidth, memory, memory_bandwidth, power, nic_bandwidth, "
     "software)"},
    {"claims-missing-claimed.yaml",
     "claims-missing-claimed.yaml:11:5: error: claims.allreduce-latency-3us.claimed: missing required key 'claimed' "
     "(hint: the claimed figure, e.g. claimed: \"< 3 us\")"},
};

// Sweep files (parse_sweep, then check_sweep_keys: a swept key the scenario does not have is refused
// before any point runs).
const NegativeCase kSweepCases[] = {
    {"sweep-unknown-axis-key.yml",
     "sweep-unknown-axis-key.yml:8:10: error: axes[0].key: unknown scenario key 'parallel.micro_bacth' (hint: did you "
     "mean 'parallel.micro_batch'?)"},
    {"sweep-unreadable-axis-value.yml",
     "sweep-unreadable-axis-value.yml:12:20: error: axes[1] (parallel.recompute): value 2 'selectiv': unknown value "
     "'selectiv' (hint: did you mean 'selective'? (expected one of: none, selective, full, auto))"},
    {"sweep-zipped-decimal-comma.yml",
     "sweep-zipped-decimal-comma.yml:11:29: error: axes[0] (training.tokens): value 2 '1,5T': expected a number, got "
     "'1,5T' (hint: write e.g. 0.45, 1.4e12 or 1.4T)"},
};

// A key written twice, in each kind of file flopcast reads: the whole file is refused (yaml-cpp
// keeps both pairs and a lookup would take one of them silently), the message names the second
// key's file:line:col, the first's line, the key path and the fix. `fix` is the text whose removal
// makes the file load: the duplicate is its only mistake.
enum class FileKind { Scenario, RunFile, Sweep, Fleet, PriceCatalog, Profile, Claims, CollectiveRuns };
struct DuplicateKeyCase {
  const char* file;
  FileKind kind;
  const char* expected;
  const char* fix;
};
#define FLOPCAST_DUP_HINT " (hint: keep one of the two; a YAML mapping holds each key once)"
const DuplicateKeyCase kDuplicateKeyCases[] = {
    {"dup-key-scenario.yaml", FileKind::Scenario,
     "dup-key-scenario.yaml:9:1: error: precision: duplicate key 'precision' (first at line 7)" FLOPCAST_DUP_HINT,
     "precision: fp8\n"},
    {"dup-key-flow-mapping.yaml", FileKind::Scenario,
     "dup-key-flow-mapping.yaml:6:19: error: parallel.tp: duplicate key 'tp' (first at line 6, column 12)" FLOPCAST_DUP_HINT,
     "tp: 2, "},
    {"dup-key-nested.yaml", FileKind::Scenario,
     "dup-key-nested.yaml:9:5: error: cluster.fabric.nic: duplicate key 'nic' (first at line 8)" FLOPCAST_DUP_HINT,
     "    nic: 400 Gbps\n"},
    {"dup-key-run-file.yaml", FileKind::RunFile,
     "dup-key-run-file.yaml:15:3: error: [1].precision: duplicate key 'precision' (first at line 14)" FLOPCAST_DUP_HINT,
     "  precision: fp8\n"},
    {"dup-key-sweep.yml", FileKind::Sweep,
     "dup-key-sweep.yml:10:5: error: axes[0].values: duplicate key 'values' (first at line 9)" FLOPCAST_DUP_HINT,
     "    values: [4, 8]\n"},
    {"dup-key-fleet.yaml", FileKind::Fleet,
     "dup-key-fleet.yaml:8:5: error: pools[0].nodes: duplicate key 'nodes' (first at line 7)" FLOPCAST_DUP_HINT,
     "    nodes: 8\n"},
    {"dup-key-price-catalog.yaml", FileKind::PriceCatalog,
     "dup-key-price-catalog.yaml:10:5: error: plans[0].price: duplicate key 'price' (first at line 9)" FLOPCAST_DUP_HINT,
     "    price: 15\n"},
    {"dup-key-profile.yaml", FileKind::Profile,
     "dup-key-profile.yaml:3:45: error: hopper.gemm: duplicate key 'gemm' (first at line 3, column 10)" FLOPCAST_DUP_HINT,
     ", gemm: 0.7"},
    {"dup-key-claims.yaml", FileKind::Claims,
     "dup-key-claims.yaml:9:5: error: claims[0].claimed: duplicate key 'claimed' (first at line 8)" FLOPCAST_DUP_HINT,
     "    claimed: \"300 W\"\n"},
    {"dup-key-collective-runs.yaml", FileKind::CollectiveRuns,
     "dup-key-collective-runs.yaml:11:5: error: [0].measured.busbw_gbytes_s: duplicate key 'busbw_gbytes_s' (first at "
     "line 10)" FLOPCAST_DUP_HINT,
     "    busbw_gbytes_s: 360\n"},
};
#undef FLOPCAST_DUP_HINT

const io::Catalog& catalog() { return test::shipped_catalog(); }

std::string negative_dir() { return std::string(FLOPCAST_TESTS_DIR) + "/negative"; }

std::string read(const std::string& name) {
  std::ifstream in(negative_dir() + "/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read tests/negative/" << name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const scenario::Diagnostic* first_error(const scenario::Diagnostics& d) {
  for (const auto& x : d.items())
    if (x.severity == scenario::Severity::Error) return &x;
  return nullptr;
}

}  // namespace

TEST_CASE("negative scenario files: each is rejected with its exact first error") {
  for (const auto& c : kScenarioCases) {
    const std::string file = c.file;
    CAPTURE(file);
    scenario::Diagnostics d;
    const auto s = parse_scenario(read(c.file), c.file, catalog(), d);
    CHECK_FALSE(s.has_value());
    const auto* e = first_error(d);
    REQUIRE(e != nullptr);
    CHECK(e->str() == std::string(c.expected));
    // Every message names the file and a line.
    CHECK(e->where.file == c.file);
    CHECK(e->where.line > 0);
  }
}

TEST_CASE("negative catalog files: a GPU or fabric entry is rejected with its exact first error") {
  namespace fs = std::filesystem;
  const fs::path data = fs::path(FLOPCAST_SOURCE_DIR) / "data";
  for (const auto& c : kCatalogCases) {
    const std::string file = c.file;
    CAPTURE(file);
    // A catalog folder: the shipped files, the one under test replaced by the bad file.
    const fs::path dir =
        fs::temp_directory_path() / ("flopcast-negative-catalog-" + std::to_string(::getpid()) + "-" + file);
    fs::remove_all(dir);
    fs::create_directories(dir / "profiles");
    for (const char* f : {"gpus.yaml", "fabrics.yaml", "models.yaml", "profiles/default.yaml"})
      fs::copy_file(data / f, dir / f);
    { std::ofstream(dir / c.replaces, std::ios::binary | std::ios::trunc) << read(c.file); }
    scenario::Diagnostics d;
    CHECK_FALSE(load_catalog(dir.string(), d).has_value());
    const auto* e = first_error(d);
    REQUIRE(e != nullptr);
    std::string message = e->str();
    const std::string prefix = dir.string() + "/";
    if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
    CHECK(message == std::string(c.expected));
    fs::remove_all(dir);
  }
}

TEST_CASE("negative run files: the bad entry is rejected with its exact first error, the others load") {
  for (const auto& c : kRunFileCases) {
    const std::string file = c.file;
    CAPTURE(file);
    scenario::Diagnostics d;
    const auto entries = parse_run_file(read(c.file), c.file, catalog(), d);
    CHECK(d.empty());
    const RunEntry* bad = nullptr;
    std::size_t good = 0;
    for (const auto& e : entries) {
      if (e.scenario)
        ++good;
      else if (!bad)
        bad = &e;
    }
    CHECK(good + 1 == entries.size());
    REQUIRE(bad != nullptr);
    const auto* e = first_error(bad->diags);
    REQUIRE(e != nullptr);
    CHECK(e->str() == std::string(c.expected));
    CHECK(e->where.line > 0);
  }
}

TEST_CASE("negative claims files: the bad claim is rejected with its exact first error, the other is judged") {
  for (const auto& c : kClaimsCases) {
    const std::string file = c.file;
    CAPTURE(file);
    scenario::Diagnostics d;
    const auto claims = parse_claims_file(read(c.file), c.file, catalog(), "", d);
    REQUIRE(claims.has_value());
    const auto* e = first_error(d);
    REQUIRE(e != nullptr);
    CHECK(e->str() == std::string(c.expected));
    CHECK(e->where.file == c.file);
    CHECK(e->where.line > 0);
    // The bad claim is left out and named; the good one (a100-400w, or async-checkpoint-30min) loads.
    CHECK(claims->claims.size() == 1);
    CHECK(claims->rejected.size() == 1);
  }
}

namespace {

/// Loads `text` as a file of `kind` named `name`; true when it loads without an error.
bool load_as(FileKind kind, const std::string& text, const std::string& name, scenario::Diagnostics& d) {
  switch (kind) {
    case FileKind::Scenario:
      return parse_scenario(text, name, catalog(), d).has_value() && !d.has_errors();
    case FileKind::RunFile: {
      const auto runs = parse_run_file(text, name, catalog(), d);
      bool all = !runs.empty();
      for (const auto& r : runs) all = all && r.scenario.has_value();
      return all && !d.has_errors();
    }
    case FileKind::Sweep:
      return parse_sweep(text, name, d).has_value() && !d.has_errors();
    case FileKind::Fleet:
      return parse_fleet(text, name, catalog(), d).has_value() && !d.has_errors();
    case FileKind::PriceCatalog:
      return parse_price_catalog(text, name, d).has_value() && !d.has_errors();
    case FileKind::Profile:
      return parse_profile(text, name, catalog().profile, d).has_value() && !d.has_errors();
    case FileKind::Claims: {
      const auto c = parse_claims_file(text, name, catalog(), "", d);
      return c.has_value() && c->rejected.empty() && !d.has_errors();
    }
    case FileKind::CollectiveRuns:
      return !parse_collective_runs(text, name, catalog(), d).empty() && !d.has_errors();
  }
  return false;
}

}  // namespace

TEST_CASE("negative files with a key written twice: each kind of file refuses them, naming both lines") {
  for (const auto& c : kDuplicateKeyCases) {
    const std::string file = c.file;
    CAPTURE(file);
    const std::string text = read(c.file);
    scenario::Diagnostics d;
    CHECK_FALSE(load_as(c.kind, text, c.file, d));
    const auto* e = first_error(d);
    REQUIRE(e != nullptr);
    CHECK(e->str() == std::string(c.expected));
    // The duplicate is the file's only mistake: without the second key it loads (read from its
    // place in tests/negative/, so that the paths it names resolve).
    const auto at = text.find(c.fix);
    REQUIRE(at != std::string::npos);
    REQUIRE(text.find(c.fix, at + 1) == std::string::npos);
    std::string fixed = text;
    fixed.erase(at, std::string(c.fix).size());
    scenario::Diagnostics fd;
    CHECK_MESSAGE(load_as(c.kind, fixed, negative_dir() + "/" + c.file, fd), fd.str());
  }
}

TEST_CASE("negative sweep files: each is rejected with its exact first error") {
  for (const auto& c : kSweepCases) {
    const std::string file = c.file;
    CAPTURE(file);
    scenario::Diagnostics d;
    const auto spec = parse_sweep(read(c.file), c.file, d);
    REQUIRE_MESSAGE(spec, d.str());
    CHECK_FALSE(check_sweep_keys(*spec, catalog(), d));
    const auto* e = first_error(d);
    REQUIRE(e != nullptr);
    CHECK(e->str() == std::string(c.expected));
  }
}

TEST_CASE("every file in tests/negative/ has an expected message, one kind of mistake each") {
  std::set<std::string> listed;
  for (const auto& c : kScenarioCases) listed.insert(c.file);
  for (const auto& c : kRunFileCases) listed.insert(c.file);
  for (const auto& c : kClaimsCases) listed.insert(c.file);
  for (const auto& c : kDuplicateKeyCases) listed.insert(c.file);
  for (const auto& c : kSweepCases) listed.insert(c.file);
  for (const auto& c : kCatalogCases) listed.insert(c.file);
  CHECK(listed.size() == std::size(kScenarioCases) + std::size(kRunFileCases) + std::size(kClaimsCases) +
                             std::size(kDuplicateKeyCases) + std::size(kSweepCases) + std::size(kCatalogCases));
  std::set<std::string> on_disk;
  for (const auto& e : std::filesystem::directory_iterator(negative_dir()))
    if (e.path().extension() == ".yaml" || e.path().extension() == ".yml") on_disk.insert(e.path().filename().string());
  CHECK(on_disk == listed);
  CHECK(on_disk.size() >= 18);
  // No two files share an expected message: each covers its own mistake.
  std::set<std::string> messages;
  for (const auto& c : kScenarioCases) messages.insert(c.expected);
  for (const auto& c : kRunFileCases) messages.insert(c.expected);
  for (const auto& c : kClaimsCases) messages.insert(c.expected);
  for (const auto& c : kDuplicateKeyCases) messages.insert(c.expected);
  for (const auto& c : kSweepCases) messages.insert(c.expected);
  for (const auto& c : kCatalogCases) messages.insert(c.expected);
  CHECK(messages.size() == listed.size());
}

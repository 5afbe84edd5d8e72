// Training logs read into measured-run keys (io/training_log.hpp): the Megatron-LM and torchtitan
// logs of tests/io/data/ (written in the formats the frameworks' sources print, see the readers'
// headers), the TOML subset of job configs, and the draft's YAML.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "../../core/src/io/training_log_detail.hpp"
#include "flopcast/io/run_draft.hpp"
#include "flopcast/io/training_log.hpp"
#include "test_files.hpp"

using namespace flopcast;
using namespace flopcast::io;

namespace {

std::string test_data(const std::string& name) { return std::string(FLOPCAST_TESTS_DIR) + "/io/data/" + name; }

LoggedRun read_ok(const std::string& name, const TrainingLogOptions& options = {}) {
  scenario::Diagnostics diags;
  auto run = read_training_log(test_data(name), options, diags);
  REQUIRE_MESSAGE(run.has_value(), diags.str());
  CHECK_MESSAGE(diags.empty(), diags.str());
  return std::move(*run);
}

/// A DeepSeek-V3-shaped Megatron-LM job (61 layers, 3 dense, 256 experts of 2048, top 8, one
/// shared expert, MLA) on 1024 GPUs: tp 2 x pp 16 x dp 32, EP 64, FP8 blockwise with FP8 weights.
std::vector<std::pair<std::string, std::string>> deepseek_args() {
  return {{"num_layers", "61"},
          {"hidden_size", "7168"},
          {"ffn_hidden_size", "18432"},
          {"num_attention_heads", "128"},
          {"group_query_attention", "False"},
          {"num_query_groups", "None"},
          {"seq_length", "4096"},
          {"padded_vocab_size", "129280"},
          {"swiglu", "True"},
          {"num_experts", "256"},
          {"moe_router_topk", "8"},
          {"moe_ffn_hidden_size", "2048"},
          {"moe_shared_expert_intermediate_size", "2048"},
          {"moe_layer_freq", "[0, 0, 0, 1, 1, 1, 1]"},
          {"multi_latent_attention", "True"},
          {"q_lora_rank", "1536"},
          {"kv_lora_rank", "512"},
          {"qk_head_dim", "128"},
          {"qk_pos_emb_head_dim", "64"},
          {"v_head_dim", "128"},
          {"mtp_num_layers", "1"},
          {"tensor_model_parallel_size", "2"},
          {"pipeline_model_parallel_size", "16"},
          {"expert_model_parallel_size", "64"},
          {"expert_tensor_parallel_size", "1"},
          {"data_parallel_size", "32"},
          {"world_size", "1024"},
          {"micro_batch_size", "1"},
          {"global_batch_size", "8192"},
          {"bf16", "True"},
          {"fp8", "e4m3"},
          {"fp8_recipe", "blockwise"},
          {"fp8_param_gather", "True"},
          {"recompute_granularity", "full"},
          {"recompute_method", "block"},
          {"recompute_num_layers", "2"},
          {"moe_token_dispatcher_type", "alltoall"},
          {"decoder_first_pipeline_num_layers", "4"},
          {"accumulate_allreduce_grads_in_fp32", "True"},
          {"a_name_of_forty_eight_characters_or_more_here_xyz", "kept"}};
}

}  // namespace

TEST_CASE("training log: a Megatron-LM Llama-3-70B log on 64 H100 gives its shape, plan and precision") {
  const auto run = read_ok("megatron-llama3-70b-h100x64.log");
  const auto& d = run.draft;
  CHECK(run.framework == LogFramework::MegatronLm);
  // The arguments block (lines 8-189): num_layers 80, hidden_size 8192, num_attention_heads 64,
  // num_query_groups 8 (group_query_attention True), ffn_hidden_size 28672, swiglu True,
  // seq_length 8192; padded_vocab_size is None there, the " > padded vocab" line gives 128256.
  CHECK(d.get("model.layers") == "80");
  CHECK(d.get("model.hidden") == "8192");
  CHECK(d.get("model.heads") == "64");
  CHECK(d.get("model.kv_heads") == "8");
  CHECK(d.get("model.ffn") == "28672");
  CHECK(d.get("model.ffn_kind") == "swiglu");
  CHECK(d.get("model.vocab") == "128256");
  CHECK(d.get("model.seq_len") == "8192");
  CHECK_FALSE(d.has("model.head_dim"));  // kv_channels 128 = 8192 / 64
  CHECK(d.get("model.embeddings") == "untied");
  CHECK(d.get("model.norm") == "rmsnorm");
  // world_size 64 = tp 8 x pp 4 x dp 2 x cp 1; virtual_pipeline_model_parallel_size 5.
  CHECK(run.gpus == 64);
  CHECK(d.get("cluster.gpus") == "64");
  CHECK(d.get("parallel.tp") == "8");
  CHECK(d.get("parallel.pp") == "4");
  CHECK(d.get("parallel.dp") == "2");
  CHECK(d.get("parallel.cp") == "1");
  CHECK(d.get("parallel.vpp") == "5");
  CHECK(d.get("parallel.zero") == "1");  // use_distributed_optimizer True
  CHECK(d.get("parallel.micro_batch") == "1");
  CHECK(d.get("parallel.global_batch") == "128");
  CHECK(d.get("parallel.recompute") == "selective");
  CHECK(d.get("parallel.sequence_parallel") == "true");
  CHECK(d.get("parallel.overlap_dp_comm") == "true");
  CHECK(d.get("precision") == "bf16");
  CHECK(d.get("grad_reduce") == "fp32");  // accumulate_allreduce_grads_in_fp32 True
  CHECK_FALSE(d.has("fp8_params"));       // not an FP8 run
  CHECK_FALSE(d.has("cluster.gpu"));      // Megatron-LM does not print its GPU
  // 30 iteration lines (log_interval 1), the 17th 29811.4 ms.
  REQUIRE(run.intervals.size() == 30);
  CHECK(run.intervals[16].iteration == 17);
  CHECK(run.intervals[16].seconds == doctest::Approx(29.8114));
  CHECK(*run.intervals[16].tflops_per_gpu == doctest::Approx(246.3));
  CHECK(run.intervals[16].global_batch == 128);
  // Peak memory: the highest "max reserved" of the 64 reports (32 model-parallel ranks after
  // iterations 1 and 2), 70114.00 MB on [Rank 3] after iteration 2, line 218; MB = 2^20 B.
  REQUIRE(run.memory);
  CHECK(run.memory->kind == "reserved");
  CHECK(run.memory->reports == 64);
  CHECK(run.memory->line == 218);
  CHECK(run.memory->gib == doctest::Approx(70114.0 / 1024.0));
  // The highest "max allocated": first stage, tp rank 7, after iteration 2: 60984.12 + 412 + 7 x 0.25 MB.
  CHECK(*run.memory->allocated_gib == doctest::Approx(61397.87 / 1024.0));
  CHECK(run.flops_convention == "megatron");
}

TEST_CASE("training log: a torchtitan Llama 3 70B log gives its shape, mesh, batch and steps") {
  const auto run = read_ok("torchtitan-llama3-70b-h100x64.log");
  const auto& d = run.draft;
  CHECK(run.framework == LogFramework::Torchtitan);
  // "Building llama3 70Bwith {...}": dim 8192, n_layers 80, n_heads 64, n_kv_heads 8,
  // multiple_of 4096, ffn_dim_multiplier 1.3: FeedForward's int(2*4*8192/3) = 21845,
  // int(1.3 x 21845) = 28398, rounded up to a multiple of 4096: 28672.
  CHECK(d.get("model.layers") == "80");
  CHECK(d.get("model.hidden") == "8192");
  CHECK(d.get("model.kv_heads") == "8");
  CHECK(d.get("model.ffn") == "28672");
  CHECK(d.get("model.vocab") == "128256");
  CHECK(d.get("model.seq_len") == "8192");
  // "Building device mesh with parallelism: pp=1, dp_replicate=1, dp_shard=8, cp=1, tp=8".
  CHECK(run.gpus == 64);
  CHECK(d.get("parallel.tp") == "8");
  CHECK(d.get("parallel.dp") == "8");
  CHECK(d.get("parallel.zero") == "3");  // FSDP
  // "Trainer is initialized with local batch size 8, global batch size 64, ...".
  CHECK(d.get("parallel.micro_batch") == "8");
  CHECK(d.get("parallel.global_batch") == "64");
  CHECK(d.get("parallel.recompute") == "full");  // "Applied full activation checkpointing"
  CHECK(d.get("precision") == "bf16");
  CHECK(run.device_name == "NVIDIA H100 80GB HBM3");
  // 11 coloured step lines (1, 10, ..., 100); step 50: tps 512.
  REQUIRE(run.intervals.size() == 11);
  CHECK(run.intervals[5].iteration == 50);
  CHECK(*run.intervals[5].tokens_per_gpu_s == 512);
  // Its time: 64 sequences x 8192 tokens / (512 tokens/s x 64 GPUs) = 16 s.
  CHECK(run.intervals[5].seconds == doctest::Approx(16.0));
  REQUIRE(run.memory);
  CHECK(run.memory->gib == doctest::Approx(61.38));  // the highest "memory: ...GiB" (steps 60 and 90)
  CHECK(run.flops_convention == "model_full_attention");
  // No printed config and no --config: the precision is torchtitan's default, and says so.
  CHECK(test::contains(d.notes().back(), "default training.mixed_precision_param"));
}

TEST_CASE("training log: a torchtitan job config given with the log agrees with it, or is refused") {
  TrainingLogOptions options;
  options.torchtitan_config = test_data("torchtitan-llama3-70b.toml");
  const auto run = read_ok("torchtitan-llama3-70b-h100x64.log", options);
  CHECK(run.draft.get("precision") == "bf16");
  CHECK(run.draft.get("fp8_params").empty());
  CHECK(run.draft.notes().empty());  // the precision is the config's
  // [compile] enable = false: the model's elementwise ops ran eagerly.
  CHECK(run.draft.get("elementwise") == "eager");

  test::TempDir dir("import");
  const auto other = (dir.path / "other.toml").string();
  std::ofstream(other) << "[parallelism]\ntensor_parallel_degree = 4\n";
  options.torchtitan_config = other;
  scenario::Diagnostics diags;
  CHECK_FALSE(read_training_log(test_data("torchtitan-llama3-70b-h100x64.log"), options, diags));
  REQUIRE(diags.has_errors());
  CHECK(diags.items().front().str() ==
        test_data("torchtitan-llama3-70b-h100x64.log") +
            ":4: error: parallelism.tensor_parallel_degree: the log says tp 8 but the job config (line 2) says 4 "
            "(hint: --config names another job's config: give the one this job ran with, or none)");
}

TEST_CASE("training log: torchtitan v0.2.0's forms: the printed config, the N-D mesh, the model's repr") {
  const std::string log =
      "[titan] 2025-10-20 08:00:00,000 - root - INFO - Running with configs: {\n"
      "  \"model\": {\"name\": \"llama3\", \"flavor\": \"8B\", \"converters\": [\"float8\"]},\n"
      "  \"training\": {\"local_batch_size\": 2, \"global_batch_size\": -1, \"seq_len\": 8192},\n"
      "  \"parallelism\": {\"data_parallel_replicate_degree\": 1, \"data_parallel_shard_degree\": -1,\n"
      "                  \"tensor_parallel_degree\": 2, \"pipeline_parallel_degree\": 2,\n"
      "                  \"pipeline_parallel_schedule\": \"Interleaved1F1B\", \"pipeline_parallel_microbatch_size\": 1},\n"
      "  \"activation_checkpoint\": {\"mode\": \"selective\"},\n"
      "  \"quantize\": {\"linear\": {\"float8\": {\"enable_fsdp_float8_all_gather\": true}}}\n"
      "}\n"
      "[titan] 2025-10-20 08:00:01,000 - root - INFO - Building 3-D device mesh with ['pp', 'dp_shard', 'tp'], [2, 4, 2]\n"
      "[titan] 2025-10-20 08:00:02,000 - root - INFO - Building llama3 8B with TransformerModelArgs(_enforced='This "
      "field is used to enforce all fields have defaults.', dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, "
      "vocab_size=128256, multiple_of=1024, ffn_dim_multiplier=1.3, norm_eps=1e-05, rope_theta=500000, "
      "max_seq_len=8192, depth_init=True)\n"
      "[titan] 2025-10-20 08:00:03,000 - root - INFO - Float8 training active with recipe rowwise\n"
      "[titan] 2025-10-20 08:01:00,000 - root - INFO - step:  1  loss: 12.0000  memory: 30.00GiB(37.93%)  tps: 100  "
      "tflops: 4.00  mfu: N/A\n";
  scenario::Diagnostics diags;
  const auto run = parse_training_log(log, "titan.log", {}, diags);
  REQUIRE_MESSAGE(run, diags.str());
  const auto& d = run->draft;
  // llama3 8B: int(1.3 x int(2*4*4096/3)) = int(1.3 x 10922) = 14198 -> 14336 (a multiple of 1024).
  CHECK(d.get("model.ffn") == "14336");
  CHECK(d.get("parallel.pp") == "2");
  CHECK(d.get("parallel.dp") == "4");
  CHECK(d.get("cluster.gpus") == "16");
  CHECK(d.get("parallel.schedule") == "interleaved");
  CHECK(d.get("parallel.micro_batch") == "1");
  CHECK(d.get("parallel.global_batch") == "8");  // local 2 x dp 4 (global_batch_size -1)
  CHECK(d.get("parallel.recompute") == "selective");
  CHECK(d.get("precision") == "fp8");
  CHECK(d.get("fp8_params") == "true");
  REQUIRE(run->intervals.size() == 1);
  CHECK_FALSE(run->intervals[0].mfu);  // "mfu: N/A"
}

TEST_CASE("training log: the TOML subset reads tables, numbers, strings and arrays, and refuses the rest") {
  detail::Settings s;
  scenario::Diagnostics diags;
  const std::string toml =
      "# comment\n[training]\nseq_len = 8_192 # eight K\nname = \"a # b\"\nlit = 'x'\nok = true\n"
      "[a.b]\nlist = [\n  \"x\",\n  \"y\",\n]\n";
  CHECK(detail::read_toml_subset(toml, "c.toml", s, diags));
  CHECK(diags.empty());
  CHECK(s.integer("training.seq_len") == 8192);
  CHECK(s.text("training.name") == "a # b");
  CHECK(s.text("training.lit") == "x");
  CHECK(s.flag("training.ok") == true);
  CHECK(s.line("a.b.list") == 8);
  CHECK(!detail::read_toml_subset("[t]\nx = {a = 1}\n", "c.toml", s, diags));
  CHECK(diags.items().front().str() ==
        "c.toml:2:5: error: t.x: a value the job config reader does not read: '{a = 1}' (hint: write a string, a "
        "number, true/false or an array (inline tables and multi-line strings are not read))");
}

TEST_CASE("run draft: keys nest in the run schema's order, pending keys as comments, notes quoted") {
  RunDraft d;
  d.set("measured.iteration_time_s", 17.4765);
  d.set_pending("measured.memory_kind", "reserved");
  d.set("model.layers", std::int64_t{80});
  d.set_raw("model.moe.experts", "8");
  d.set_text("id", "run-1");
  d.set_text("source", "a log: line 3");
  d.add_note("median of 27");
  CHECK(d.yaml() ==
        "- id: run-1\n"
        "  source: \"a log: line 3\"\n"
        "  model:\n"
        "    layers: 80\n"
        "    moe:\n"
        "      experts: 8\n"
        "  measured:\n"
        "    iteration_time_s: 17.4765\n"
        "    # memory_kind: reserved\n"
        "  notes:\n"
        "    - \"median of 27\"\n");
  CHECK(yaml_string("yes") == "\"yes\"");
  CHECK(yaml_string("H100") == "H100");
  CHECK(yaml_number(128) == "128");
  CHECK(yaml_number(0.381849) == "0.381849");
}

namespace {

/// A Megatron-LM arguments block as _print_args prints it (name, dots to column 50, value),
/// sorted by name, followed by three iteration lines.
std::string megatron_log(std::vector<std::pair<std::string, std::string>> args) {
  std::sort(args.begin(), args.end());
  std::string log = "------------------------ arguments ------------------------\n";
  for (const auto& [k, v] : args)
    log += "  " + k + " " + std::string(k.size() < 48 ? 48 - k.size() : 0, '.') + " " + v + "\n";
  log += "-------------------- end of arguments ---------------------\n";
  for (int i = 1; i <= 3; ++i)
    log += " [2026-03-02 10:1" + std::to_string(i) + ":00.000000] iteration        " + std::to_string(i) +
           "/       3 | consumed samples:         8192 | elapsed time per iteration (ms): 30000.0 | global batch "
           "size:  8192 |\n";
  return log;
}

}  // namespace

TEST_CASE("training log: the flex dispatcher with the Hybrid-EP backend is written as moe_dispatcher: hybridep") {
  auto args = deepseek_args();
  for (auto& [key, value] : args)
    if (key == "moe_token_dispatcher_type") value = "flex";
  args.emplace_back("moe_flex_dispatcher_backend", "hybridep");
  const std::string log = megatron_log(args);
  scenario::Diagnostics diags;
  const auto run = parse_training_log(log, "ds.log", {}, diags);
  REQUIRE_MESSAGE(run, diags.str());
  CHECK(run->draft.get("parallel.moe_dispatcher") == "hybridep");
}

TEST_CASE("training log: Megatron-LM's first and last layers in BF16 are the draft's bf16_layers") {
  // --first-last-layers-bf16 with 2 blocks at the end and the start's default of 1.
  auto args = deepseek_args();
  args.emplace_back("first_last_layers_bf16", "True");
  args.emplace_back("num_layers_at_end_in_bf16", "2");
  scenario::Diagnostics diags;
  const auto run = parse_training_log(megatron_log(args), "ds.log", {}, diags);
  REQUIRE_MESSAGE(run, diags.str());
  CHECK(run->draft.get("bf16_layers") == "{first: 1, last: 2}");
  // Off (the deepseek arguments' default): no key.
  const auto plain = parse_training_log(megatron_log(deepseek_args()), "ds.log", {}, diags);
  REQUIRE_MESSAGE(plain, diags.str());
  CHECK_FALSE(plain->draft.has("bf16_layers"));
}

TEST_CASE("training log: a Megatron-LM MoE job with latent attention and FP8 writes the newest keys as keys") {
  // DeepSeek-V3's shape (61 layers, 3 dense, 256 experts of 2048, top 8, one shared expert, MLA)
  // on 1024 GPUs: tp 2 x pp 16 x dp 32, EP 64, FP8 blockwise with FP8 weights.
  const std::string log = megatron_log(deepseek_args());
  scenario::Diagnostics diags;
  const auto run = parse_training_log(log, "ds.log", {}, diags);
  REQUIRE_MESSAGE(run, diags.str());
  const auto& d = run->draft;
  CHECK(d.get("model.moe.experts") == "256");
  CHECK(d.get("model.moe.top_k") == "8");
  CHECK(d.get("model.moe.expert_ffn") == "2048");
  CHECK(d.get("model.moe.shared_experts") == "1");  // 2048 / 2048
  CHECK(d.get("model.moe.dense_layers") == "3");    // the leading zeros of moe_layer_freq
  CHECK(d.get("model.head_dim").empty());           // MLA: head widths are model.mla's, no head_dim or kv_heads
  CHECK(d.get("model.kv_heads").empty());
  CHECK(d.get("model.mla") ==
        "{q_lora_rank: 1536, kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128}");
  CHECK(d.get("model.mtp_layers") == "1");
  CHECK(d.get("parallel.ep") == "64");
  CHECK(d.get("parallel.etp") == "1");
  CHECK(d.get("parallel.moe_dispatcher") == "alltoall");
  CHECK(d.get("parallel.pipeline_layout") ==
        "{first_stage_layers: 4, account_for_embedding: false, account_for_loss: false}");
  CHECK(d.get("precision") == "fp8");
  CHECK(d.get("fp8_params") == "true");
  CHECK(d.get("parallel.recompute") == "full");
  // 61 layers / pp 16 = 3 per stage; 2 recomputed (--recompute-method block): said in a note.
  bool partial = false;
  for (const auto& n : d.notes()) partial |= test::contains(n, "recomputes 2 of the 3 layers");
  CHECK(partial);
  // The 2026 keys the run-file loader reads are written as keys, none as comments.
  const auto yaml = d.yaml();
  CHECK(test::contains(yaml, "    mla: {q_lora_rank: 1536,"));
  CHECK(test::contains(yaml, "    mtp_layers: 1\n"));
  CHECK(test::contains(yaml, "    moe_dispatcher: alltoall\n"));
  CHECK(test::contains(yaml, "    pipeline_layout: {first_stage_layers: 4,"));
  CHECK(!test::contains(yaml, "# "));
  CHECK(test::contains(yaml, "    ep: 64\n"));
}

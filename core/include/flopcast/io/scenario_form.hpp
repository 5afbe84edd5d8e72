#pragma once
/// What a scenario editor shows: one plain value per form field. The GUI's undo/redo stores
/// these; scenario_writer.hpp turns one into the YAML text the scenario loader reads.
#include <cstdint>
#include <string>

#include "flopcast/parallel/parallel_plan.hpp"
#include "flopcast/workload/model_spec.hpp"

namespace flopcast::io {

/// Fabric combo value meaning "keep the scenario file's own `cluster.fabric` mapping".
inline constexpr const char* kFabricFromFile = "(from file)";

/// Every value of the editor's form. Numbers are kept as the spin boxes hold them; text
/// fields (tokens) as typed, so the loader sees exactly what the user wrote.
struct ScenarioForm {
  std::string name;  ///< scenario name ("" = none)

  // Model: a preset (shape fields that differ from it are written as overrides) or custom.
  std::string model_preset;  ///< catalog preset name; "" = custom shape
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t ffn = 0;
  std::int64_t vocab = 0;
  std::int64_t seq_len = 0;
  /// For a custom shape: the preset it was made from, whose architecture (FFN kind, norm,
  /// embeddings, MoE) it keeps; "" = the file's own custom model, or the loader's defaults.
  std::string model_base;

  // Cluster.
  std::string gpu;  ///< catalog GPU name
  std::int64_t gpus = 0;
  std::int64_t gpus_per_node = 8;
  std::string fabric;  ///< catalog fabric name; "" = the GPU's usual node; kFabricFromFile

  // Parallel plan.
  std::int64_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1, vpp = 1;
  bool dp_auto = false;  ///< omit dp: the loader derives gpus/(tp*pp*cp)
  bool sequence_parallel = false;
  std::int64_t zero = 0;
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 1;
  std::string recompute = "none";  ///< none | selective | full
  std::string schedule = "1f1b";   ///< gpipe | 1f1b | interleaved | zero-bubble | dualpipe | dualpipev
  /// parallel.pipeline_layout: the first and last pipeline ranks' layers (0 = not set) and whether
  /// the embedding and the loss count as a layer; all unset = no layout (the even split).
  std::int64_t first_stage_layers = 0, last_stage_layers = 0;
  bool account_for_embedding = false, account_for_loss = false;
  std::string moe_dispatcher;      ///< "" = not stated | alltoall | allgather | deepep | hybridep
  std::string moe_dispatch_dtype;  ///< "" = not stated (bf16) | bf16 | fp8 | mxfp8
  /// parallel.fsdp: "" = none | "reshard" (reshard_after_forward true) | "keep" (false).
  std::string fsdp;

  std::string precision = "bf16";  ///< fp32 | fp16 | bf16 | fp8
  std::string tokens;              ///< training.tokens as typed ("1T", "3e11"); "" = not given
  std::string pricing_catalog;     ///< pricing.catalog ("seed-vendor"); "" = no pricing block

  bool operator==(const ScenarioForm&) const = default;
};

/// Sets the form's parallel-plan fields (tp ... schedule, pipeline layout) to `p`, dp written out
/// (dp_auto off); the MoE dispatcher and FSDP stay the form's when `p` states none (FSDP only while
/// `p` is ZeRO-3).
void set_parallel_plan(ScenarioForm& form, const parallel::ParallelPlan& p);

/// Sets the form's model-shape fields (layers ... seq_len) to `m`'s; the preset name is left as it is.
void set_model_shape(ScenarioForm& form, const workload::ModelSpec& m);

}  // namespace flopcast::io

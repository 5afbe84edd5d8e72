#pragma once
/// Transformer shape (data/models.yaml presets or a scenario's inline `model:`).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace flopcast::workload {

/// Feed-forward block: GeLU MLP (2 matrices) or SwiGLU (3 matrices).
enum class FfnKind { Gelu, SwiGlu };

/// Mixture-of-experts layers (DeepSeek/Mixtral style).
struct MoeSpec {
  int experts = 0;              ///< routed experts per MoE layer
  int top_k = 1;                ///< routed experts per token
  std::int64_t expert_ffn = 0;  ///< intermediate size of one expert
  int shared_experts = 0;       ///< always-active experts of size shared_ffn()
  int dense_layers = 0;         ///< leading layers that keep a dense FFN
  /// An MoE layer every layer_freq layers after the dense ones, the others dense: layer l >=
  /// dense_layers is MoE when (l - dense_layers) % layer_freq == 0 (Megatron-LM --moe-layer-freq N:
  /// `1 if (i % moe_layer_freq == 0)`, megatron/training/training.py; Llama 4 Maverick interleaves
  /// dense and MoE layers, dense_layers 1 and layer_freq 2). At least 1.
  int layer_freq = 1;
  /// Width of one shared expert when it differs from expert_ffn (Qwen2-57B-A14B: 20480 beside
  /// experts of 2560); 0 = expert_ffn.
  std::int64_t shared_expert_ffn = 0;
  /// Node-limited routing: a token's experts span at most node_limit nodes (DeepSeek-V3 §2.1.2:
  /// 4); 0 = no limit.
  int node_limit = 0;
  /// Expert capacity factor: 0 = dropless (every routed token computed); > 0 = each expert takes
  /// at most capacity_factor x tokens x top_k / experts tokens, the rest dropped (GShard, Switch).
  double capacity_factor = 0;
  std::int64_t shared_ffn() const { return shared_expert_ffn > 0 ? shared_expert_ffn : expert_ffn; }
};

/// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 §2.1; DeepSeek-V3, arXiv 2412.19437
/// §2.1.1): queries through a low-rank down projection (h -> q_lora_rank) and an up projection
/// (q_lora_rank -> heads x (qk_nope + qk_rope)); keys and values through one shared down projection
/// (h -> kv_lora_rank + qk_rope: the latent and the decoupled rope key, shared by all heads) and
/// an up projection (kv_lora_rank -> heads x (qk_nope + v)); attention over query/key heads of
/// qk_nope + qk_rope and value heads of v_head_dim; the output projection heads x v -> h.
struct MlaSpec {
  std::int64_t q_lora_rank = 0;       ///< d'_c; 0 = queries not compressed (h -> heads x qk directly)
  std::int64_t kv_lora_rank = 0;      ///< d_c, the compressed key/value latent
  std::int64_t qk_nope_head_dim = 0;  ///< d_h, the per-head query/key part without rotary embedding
  std::int64_t qk_rope_head_dim = 0;  ///< d^R_h, the decoupled rotary part of queries and the shared key
  std::int64_t v_head_dim = 0;        ///< width of one value head (and of the output before its projection)
  std::int64_t qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
};

/// Windowed (local) attention on some layers: each query attends to the `size` keys before it.
/// Layer l is windowed when l % every == 0 (GPT-OSS alternates banded-window and full layers,
/// starting with a windowed one: every 2, size 128; every 1 windows every layer, as Mistral 7B).
struct SlidingWindow {
  std::int64_t size = 0;  ///< keys a query attends to
  int every = 1;          ///< a windowed layer every `every` layers
};

/// A decoder-only transformer.
struct ModelSpec {
  std::string name;                  ///< preset name or "custom"
  std::string display;               ///< human name, e.g. "Llama 3 8B"
  std::vector<std::string> aliases;  ///< other names accepted on input (data/models.yaml `aliases`)
  int layers = 0;
  std::int64_t hidden = 0;
  int heads = 0;
  int kv_heads = 0;      ///< key/value heads (GQA when < heads)
  std::int64_t ffn = 0;  ///< intermediate size of the dense FFN
  FfnKind ffn_kind = FfnKind::Gelu;
  std::int64_t vocab = 0;
  std::int64_t seq_len = 0;
  bool tied_embeddings = true;    ///< output head shares the input embedding
  bool learned_positions = true;  ///< learned absolute positions (GPT) vs RoPE
  bool rmsnorm = false;           ///< RMSNorm (no bias) vs LayerNorm
  bool bias = true;               ///< linear layers carry bias vectors
  /// Hidden and attention dropout (Megatron-LM's defaults, 0.1 each, for GPT-style models);
  /// Llama-style models train without (Meta's llama reference model has none). Dropout keeps a
  /// 1-byte mask per element it drops from (Korthikanti et al. 2022, Table 2).
  bool dropout = true;
  /// Width of one attention head; 0 = hidden / heads. Qwen3 and Gemma set it wider than
  /// hidden / heads (Qwen3-30B-A3B: hidden 2048, 32 heads of 128), so attention is heads x
  /// head_dim wide while the residual stream stays `hidden` (Megatron-core's kv_channels).
  std::int64_t attention_head_dim = 0;
  std::optional<MoeSpec> moe;
  /// Multi-head latent attention in place of (grouped-query) multi-head attention; kv_heads and
  /// head_dim then do not apply (kv_heads is set to heads, every head having its own key and value).
  std::optional<MlaSpec> mla;
  /// Multi-token-prediction modules (DeepSeek-V3 §2.2), after the last layer on the last pipeline
  /// stage: each one transformer layer (of the last layer's kind), a projection 2h -> h with two
  /// RMSNorms, and the shared output head once more.
  int mtp_layers = 0;
  std::optional<SlidingWindow> sliding_window;
  double params_published = 0.0;  ///< the figure the source states; 0 = none
  std::string source;

  /// Width of one query/key head: head_dim (hidden / heads unless set); MLA: qk_nope + qk_rope.
  std::int64_t head_dim() const {
    if (mla) return mla->qk_head_dim();
    if (attention_head_dim > 0) return attention_head_dim;
    return heads > 0 ? hidden / heads : 0;
  }
  /// Width of one value head: head_dim; MLA: v_head_dim (DeepSeek-V3: 128 against 192 for q/k).
  std::int64_t v_head_dim() const { return mla ? mla->v_head_dim : head_dim(); }
  /// Width of the queries: heads x head_dim.
  std::int64_t q_dim() const { return head_dim() * heads; }
  /// Width of the keys: kv_heads x head_dim (MLA: heads x (qk_nope + qk_rope) after the up projection).
  std::int64_t kv_dim() const { return head_dim() * kv_heads; }
  /// Width of the values: kv_heads x v_head_dim.
  std::int64_t v_dim() const { return v_head_dim() * kv_heads; }
  /// Width of the attention output before its projection: heads x v_head_dim.
  std::int64_t attn_out_dim() const { return v_head_dim() * heads; }
  int ffn_matrices() const { return ffn_kind == FfnKind::SwiGlu ? 3 : 2; }
  /// Layers at or past `layers` are the MTP modules' and take the last layer's kind.
  bool is_moe_layer(int layer) const {
    if (!moe) return false;
    if (layer >= layers) layer = layers - 1;
    const int freq = moe->layer_freq > 0 ? moe->layer_freq : 1;
    return layer >= moe->dense_layers && (layer - moe->dense_layers) % freq == 0;
  }
  bool is_windowed_layer(int layer) const {
    if (!sliding_window) return false;
    if (layer >= layers) layer = layers - 1;
    const int every = sliding_window->every > 0 ? sliding_window->every : 1;
    return layer % every == 0;
  }
  /// MoE layers among [first, first + n) (MTP layers included past `layers`).
  int moe_layers_in(int first, int n) const {
    int c = 0;
    if (moe)
      for (int l = first; l < first + n; ++l) c += is_moe_layer(l) ? 1 : 0;
    return c;
  }
  /// MoE layers of the main stack (MTP modules not counted).
  int moe_layers() const { return moe_layers_in(0, layers); }
};

}  // namespace flopcast::workload

#pragma once
/// Transformer shape (data/models.yaml presets or a scenario's inline `model:`).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace flopcast {

/// Feed-forward block: GeLU MLP (2 matrices) or SwiGLU (3 matrices).
enum class FfnKind { Gelu, SwiGlu };

/// Mixture-of-experts layers (DeepSeek/Mixtral style).
struct MoeSpec {
  int experts = 0;              ///< routed experts per MoE layer
  int top_k = 1;                ///< routed experts per token
  std::int64_t expert_ffn = 0;  ///< intermediate size of one expert
  int shared_experts = 0;       ///< always-active experts of size expert_ffn
  int dense_layers = 0;         ///< leading layers that keep a dense FFN
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
  double params_published = 0.0;  ///< the figure the source states; 0 = none
  std::string source;

  std::int64_t head_dim() const {
    if (attention_head_dim > 0) return attention_head_dim;
    return heads > 0 ? hidden / heads : 0;
  }
  /// Width of the queries (and of the attention output before its projection): heads x head_dim.
  std::int64_t q_dim() const { return head_dim() * heads; }
  /// Width of the keys (and of the values): kv_heads x head_dim.
  std::int64_t kv_dim() const { return head_dim() * kv_heads; }
  int ffn_matrices() const { return ffn_kind == FfnKind::SwiGlu ? 3 : 2; }
  bool is_moe_layer(int layer) const { return moe && layer >= moe->dense_layers; }
  int moe_layers() const { return moe ? layers - moe->dense_layers : 0; }
};

}  // namespace flopcast

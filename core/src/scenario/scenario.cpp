#include "flopcast/scenario/scenario.hpp"

namespace flopcast::scenario {

const char* to_string(FlopsConvention c) {
  switch (c) {
    case FlopsConvention::Model:
      return "model";
    case FlopsConvention::ModelFullAttention:
      return "model_full_attention";
    case FlopsConvention::Hardware:
      return "hardware";
    case FlopsConvention::Megatron:
      return "megatron";
  }
  return "model";
}

std::optional<FlopsConvention> parse_flops_convention(std::string_view s) {
  for (FlopsConvention c : {FlopsConvention::Model, FlopsConvention::ModelFullAttention, FlopsConvention::Hardware,
                            FlopsConvention::Megatron})
    if (s == to_string(c)) return c;
  return std::nullopt;
}

const char* to_string(MemoryKind k) {
  switch (k) {
    case MemoryKind::Unstated:
      return "unstated";
    case MemoryKind::Allocated:
      return "allocated";
    case MemoryKind::Reserved:
      return "reserved";
  }
  return "unstated";
}

}  // namespace flopcast::scenario

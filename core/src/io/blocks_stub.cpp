// TEMPORARY until price_catalog_io.cpp lands: reject the blocks rather than ignore them.
#include <yaml-cpp/yaml.h>
#include "flopcast/job/reliability_spec.hpp"
#include "flopcast/pricing/pricing_spec.hpp"
#include "flopcast/scenario/diagnostic.hpp"
namespace flopcast::io {
void parse_reliability_block(const YAML::Node& node, const std::string& file, Diagnostics& diags, ReliabilitySpec&, LocationMap&) {
  diags.error({file, node.Mark().line + 1, node.Mark().column + 1}, "reliability", "not supported yet");
}
void parse_pricing_block(const YAML::Node& node, const std::string& file, Diagnostics& diags, PricingSpec&, LocationMap&) {
  diags.error({file, node.Mark().line + 1, node.Mark().column + 1}, "pricing", "not supported yet");
}
}  // namespace flopcast::io

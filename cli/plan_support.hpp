#pragma once
/// Helpers of `flopcast plan`: GPU types to cluster specs, budgets.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/scenario.hpp"
#include "flopcast/units/money.hpp"

namespace flopcast::cli {

/// One cluster spec per GPU name: the scenario's cluster for its own GPU, else the GPU's usual
/// fabric (data/gpus.yaml default_fabric). Empty `gpus` = the scenario's GPU only. False with
/// `why` (known names, did-you-mean) for an unknown GPU.
bool plan_clusters(const io::Catalog& cat, const Scenario& s, const std::vector<std::string>& gpus,
                   std::vector<ClusterSpec>& out, std::string& why);

/// "2.5M USD", "1500000", "800k CNY": an amount with an optional count suffix and currency
/// (else `currency`, else `fallback`). nullopt when not an amount.
std::optional<Money> parse_budget(const std::string& text, const std::string& currency, const std::string& fallback);

}  // namespace flopcast::cli

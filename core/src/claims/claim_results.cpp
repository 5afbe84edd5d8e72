#include "flopcast/claims/claim_results.hpp"

namespace flopcast::claims {

std::size_t ClaimsReport::count(VerdictKind k) const {
  std::size_t n = 0;
  for (const auto& r : results)
    if (r.verdict.kind == k) ++n;
  return n;
}

const ClaimResult* ClaimsReport::find(const std::string& id) const {
  for (const auto& r : results)
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace flopcast::claims

#pragma once
/// The verdicts on every claim of a claims file, in file order, and the claims that could not
/// be read (bad input), for the renderers (text, JSON, Markdown, HTML) and the GUI.
#include <cstddef>
#include <string>
#include <vector>

#include "flopcast/claims/claim.hpp"
#include "flopcast/claims/verdict.hpp"
#include "flopcast/scenario/diagnostic.hpp"

namespace flopcast::claims {

/// One claim and its verdict.
struct ClaimResult {
  std::string id;
  ClaimKind kind = ClaimKind::Training;
  std::string figure;
  std::string quote;
  std::string source;
  std::string claimed;  ///< the claimed figure as written (training: as the scenario states it)
  /// How the claims file reads the claim where its source leaves something open (its `note:`).
  std::string reading;
  scenario::SourceLocation where;
  Verdict verdict;
};

/// Every verdict of a file.
struct ClaimsReport {
  std::string file;
  std::string title;
  std::vector<ClaimResult> results;
  std::vector<scenario::Diagnostic> errors;  ///< problems of the claims that were not judged (bad input)

  /// Verdicts of kind `k`.
  std::size_t count(VerdictKind k) const;
  /// The result with that id, or nullptr.
  const ClaimResult* find(const std::string& id) const;
};

}  // namespace flopcast::claims

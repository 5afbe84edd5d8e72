#pragma once
/// A customer quote for a scenario's training run, as `flopcast quote` and the GUI's export
/// make it: the whole run and bills of the simulate report (add_whole_run), the checks a quote
/// needs, then the quote document (core/quote). A problem is typed, so that each front words it
/// and the CLI maps it to its exit code.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/app/evaluation.hpp"
#include "flopcast/quote/quote.hpp"

namespace flopcast::app {

/// Why there is no quote.
enum class QuoteProblem {
  None,
  CatalogUnreadable,  ///< the scenario's price catalog cannot be loaded (the diagnostics say why): bad input
  DoesNotFit,         ///< the plan does not fit the GPU's memory: infeasible
  NoTokens,           ///< the scenario gives no training.tokens: bad input
  RunNotSimulated,    ///< the whole run cannot be simulated (too big, bad reliability): infeasible
  NoPricing,          ///< the scenario has no `pricing:` block: bad input
  QuoteInvalid,       ///< the quote's own checks failed (`details`): bad input
  BadDeadline,        ///< the deadline is not a duration with its unit (`details` say what to write): usage
  BadBudget,          ///< the budget is not an amount with its currency, or cannot be converted: usage
};

/// What the customer asked for and how the quote is to be made.
struct QuoteOptions {
  std::string customer;
  std::string issuer;         ///< who quotes; "" = the catalog's provider, if it issues quotes
  std::string date;           ///< "YYYY-MM-DD"
  std::string deadline_text;  ///< "45d"; "" = none (a unit is required)
  std::string budget_text;    ///< "5M CNY"; "" = none (a currency is required)
  bool p50 = false;           ///< check the requirements at P50 instead of P90
  bool compare = false;       ///< show competitors' prices beside the provider's plans
  std::string frameworks;     ///< "" = the frameworks that run the scenario's plan
  quote::QuoteLanguage language = quote::QuoteLanguage::En;  ///< the language the quote is written in
  /// The spot plan the planner chose (its id in the scenario's catalog; "" = none): the run is
  /// simulated with its interruptions and the quote may recommend it.
  std::string spot_plan;
  /// The other GPU types the plan search considered (QuotePlanChoice::alternatives).
  std::vector<quote::QuoteAlternative> alternatives;
};

/// A quote, or the problem that stops it.
struct QuoteOutcome {
  std::optional<quote::Quote> quote;
  QuoteProblem problem = QuoteProblem::None;
  /// RunNotSimulated: the run's errors; QuoteInvalid: the quote's and the comparison's errors.
  std::vector<std::string> details;
  /// The catalog loader's diagnostics (warnings too); errors when CatalogUnreadable.
  scenario::Diagnostics diags;
  bool ok() const { return quote.has_value(); }
};

/// The quote of `r`'s scenario (a report from make_report) for `customer`, issued on `date`
/// ("YYYY-MM-DD"): adds the whole run and the bills to `r` with the scenario's price catalog
/// from `data_dir`, checks them in the order of QuoteProblem, and lays out the quote.
QuoteOutcome prepare_quote(SimReport& r, const std::string& data_dir, const std::string& customer,
                           const std::string& date);
/// The same with the customer's requirements (checked against the run and the bill), tax and
/// payment terms from the catalog, and competitors' prices only with `compare`.
QuoteOutcome prepare_quote(SimReport& r, const std::string& data_dir, const QuoteOptions& options);

/// The words both fronts use for `problem` (None and QuoteInvalid have none: details say it):
/// "no quote for a plan that does not fit: it needs 90.1 GiB per GPU, the H800 has 79.7 GiB",
/// "the scenario gives no training.tokens; a quote needs the length of the run",
/// "the scenario has no pricing: block". RunNotSimulated: "the whole run cannot be simulated: ",
/// followed by each of the details.
std::string quote_problem_text(QuoteProblem problem, const SimReport& r);

/// The quote as a document of `format`: "md" (Markdown), "html" or "xlsx" (the workbook's bytes);
/// nullopt with `error` when the workbook cannot be made (or the format is none of these). PDF is
/// made from the HTML by the fronts' Qt module.
std::optional<std::string> quote_document(const quote::Quote& q, const std::string& format, std::string& error);

}  // namespace flopcast::app

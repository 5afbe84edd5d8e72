#include "flopcast/app/quote_request.hpp"

#include "flopcast/units/format.hpp"

namespace flopcast::app {

QuoteOutcome prepare_quote(SimReport& r, const std::string& data_dir, const std::string& customer,
                           const std::string& date) {
  QuoteOutcome out;
  if (!add_whole_run(r, data_dir, out.diags)) {
    out.problem = QuoteProblem::CatalogUnreadable;
    return out;
  }
  if (!r.fits_memory) {
    out.problem = QuoteProblem::DoesNotFit;
    return out;
  }
  if (!r.run) {
    out.problem = QuoteProblem::NoTokens;
    return out;
  }
  if (!r.run->ok()) {
    out.problem = QuoteProblem::RunNotSimulated;
    out.details = r.run->errors;
    return out;
  }
  if (!r.bills) {
    out.problem = QuoteProblem::NoPricing;
    return out;
  }
  QuoteInput in = quote_input_of(r);
  in.customer = customer;
  in.issue_date = date;
  Quote q = make_quote(std::move(in));
  if (!q.ok()) {
    out.problem = QuoteProblem::QuoteInvalid;
    out.details = q.errors;
    out.details.insert(out.details.end(), q.input.plans.errors.begin(), q.input.plans.errors.end());
    return out;
  }
  out.quote = std::move(q);
  return out;
}

std::string quote_problem_text(QuoteProblem problem, const SimReport& r) {
  switch (problem) {
    case QuoteProblem::DoesNotFit:
      return "no quote for a plan that does not fit: it needs " + format_gib(r.est.memory.total()) + " per GPU, the " +
             r.scenario->cluster.gpu.name + " has " + format_gib(r.est.memory.capacity);
    case QuoteProblem::NoTokens:
      return "the scenario gives no training.tokens; a quote needs the length of the run";
    case QuoteProblem::RunNotSimulated:
      return "the whole run cannot be simulated: ";
    case QuoteProblem::NoPricing:
      return "the scenario has no pricing: block";
    case QuoteProblem::CatalogUnreadable:
      return "the scenario's price catalog cannot be loaded";
    case QuoteProblem::None:
    case QuoteProblem::QuoteInvalid:
      break;
  }
  return "";
}

}  // namespace flopcast::app

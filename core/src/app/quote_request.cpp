#include "flopcast/app/quote_request.hpp"

#include "flopcast/app/plan_request.hpp"
#include "flopcast/io/units_parse.hpp"
#include "flopcast/quote/quote_render.hpp"
#include "flopcast/quote/quote_xlsx.hpp"
#include "flopcast/search/framework_rules.hpp"
#include "flopcast/units/format.hpp"

namespace flopcast::app {

namespace {

/// The requirements of `o` in the bill's currency; false with `why` when one cannot be read.
bool read_requirements(const QuoteOptions& o, const pricing::PriceCatalog& cat, units::Currency bill,
                       quote::QuoteRequirements& rq, QuoteProblem& problem, std::string& why) {
  rq.p50 = o.p50;
  io::UnitProblem up = io::UnitProblem::None;
  if (!o.deadline_text.empty()) {
    rq.deadline = io::parse_duration_with_unit(o.deadline_text, &up);
    if (!rq.deadline) {
      problem = QuoteProblem::BadDeadline;
      why = "--deadline: " + deadline_problem_text(o.deadline_text, up);
      return false;
    }
  }
  if (!o.budget_text.empty()) {
    const auto b = io::parse_money(o.budget_text, &up);
    if (!b) {
      problem = QuoteProblem::BadBudget;
      why = "--budget: " + money_problem_text(o.budget_text, up, bill.str());
      return false;
    }
    const auto micro = pricing::convert_micro(cat, b->minor * 10'000, b->currency, bill);
    if (!micro) {
      problem = QuoteProblem::BadBudget;
      why = "--budget: '" + o.budget_text + "' is in " + b->currency.str() + " but the bill is in " + bill.str() +
            " and the price list states no rate between them";
      return false;
    }
    rq.budget = units::Money::of_minor((*micro + (*micro >= 0 ? 5'000 : -5'000)) / 10'000, bill);
  }
  return true;
}

/// The run of the model band at `factor` as a quote shows it (`done`: that run, when simulated already).
std::optional<quote::QuoteBandRun> band_run_of(const SimReport& r, double factor, const BandedRun* done) {
  std::optional<BandedRun> run;
  if (!done) {
    run = banded_run(r, factor);
    if (!run) return std::nullopt;
    done = &*run;
  }
  const job::JobResult& j = done->result;
  return quote::QuoteBandRun{factor,         j.wall_p50,      j.wall_p90,      j.gpu_span_p50,
                             j.gpu_span_p90, j.gpu_hours_p50, j.gpu_hours_p90, done->bills};
}

}  // namespace

QuoteOutcome prepare_quote(SimReport& r, const std::string& data_dir, const std::string& customer,
                           const std::string& date) {
  QuoteOptions o;
  o.customer = customer;
  o.date = date;
  return prepare_quote(r, data_dir, o);
}

QuoteOutcome prepare_quote(SimReport& r, const std::string& data_dir, const QuoteOptions& o) {
  const std::string& customer = o.customer;
  const std::string& date = o.date;
  QuoteOutcome out;
  r.spot_plan = o.spot_plan;
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
  quote::QuoteInput in = quote_input_of(r);
  in.customer = customer;
  in.issuer = o.issuer;
  in.issue_date = date;
  const pricing::PriceCatalog& cat = *r.bills->catalog;
  std::string why;
  if (!read_requirements(o, cat, in.plans.currency, in.requirements, out.problem, why)) {
    out.details.push_back(why);
    return out;
  }
  // With the model's band known, the requirements are checked on the run at the band's factor
  // for the percentile, as the planner checks them (search/plan_choice.cpp).
  if (r.band.known) {
    const double factor = in.requirements.p50 ? r.band.p50 : r.band.p90;
    if (auto b = banded_run(r, factor)) {
      quote::QuoteBandCheck check{factor, r.band.basis, b->result.wall_p50, b->result.wall_p90, b->bills, {}, {}};
      // The band's ends, shown beside P50 and P90: the slow end is the checked run at P90.
      check.low = band_run_of(r, r.band.p10, nullptr);
      check.high = band_run_of(r, r.band.p90, factor == r.band.p90 ? &*b : nullptr);
      if (!check.low || !check.high) check.low.reset(), check.high.reset();
      in.band_check = std::move(check);
    }
  }
  in.tax = cat.tax;
  in.payment_terms = cat.payment_terms;
  in.compare = o.compare;
  in.allow_spot = !o.spot_plan.empty();
  in.language = o.language;
  in.alternatives = o.alternatives;
  if (!o.frameworks.empty()) {
    in.frameworks = o.frameworks;
  } else {
    const auto& sc = *r.scenario;
    const search::FrameworkSet fw = search::frameworks_for(sc.plan, sc.model, sc.training.method);
    if (!fw.empty())
      in.frameworks = fw.str();
    else  // none runs it: name the family flopcast models for this training method
      in.frameworks_modelled = search::FrameworkSet::all(fw.adapters).str();
  }
  // Customer-facing words: the calibration profile's name is an internal key.
  for (auto& a : in.extra_assumptions)
    if (a.rfind("Step time from flopcast's step model", 0) == 0)
      a = "Step time from flopcast's step model, calibrated on published training runs.";
  quote::Quote q = quote::make_quote(std::move(in));
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
      return "no quote for a plan that does not fit: it needs " + units::format_gib(r.est.memory.total()) +
             " per GPU, the " + r.scenario->cluster.gpu.name + " has " + units::format_gib(r.est.memory.capacity);
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
    case QuoteProblem::BadDeadline:
    case QuoteProblem::BadBudget:
      break;
  }
  return "";
}

std::optional<std::string> quote_document(const quote::Quote& q, const std::string& format, std::string& error) {
  if (format == "md") return quote::render_quote_markdown(q);
  if (format == "html") return quote::render_quote_html(q);
  if (format == "xlsx") return quote::render_quote_xlsx(q, error);
  error = "no document format '" + format + "' (md, html or xlsx)";
  return std::nullopt;
}

}  // namespace flopcast::app

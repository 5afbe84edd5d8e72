#pragma once
/// A customer quote for a training job: the job, the expected duration (P50/P90), the
/// recommended plan with its line items, the comparison of every plan, the assumptions, a
/// validity date and an id derived from the inputs (same inputs -> same quote, byte for byte).
/// Rendered to Markdown and HTML by quote_render.hpp; PDF comes from the HTML in the Qt layer.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flopcast/job/job_result.hpp"
#include "flopcast/pricing/plan_comparison.hpp"
#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/quote/quote_text.hpp"

namespace flopcast::quote {

/// The customer's job as the caller (CLI, GUI) worked it out.
struct QuoteJob {
  std::string model_name;  ///< e.g. "Llama 3 8B"
  double params = 0.0;     ///< parameter count
  double tokens = 0.0;     ///< training tokens
  std::string gpu_name;    ///< GPU catalog name, e.g. "H100"
  std::int64_t gpus = 0;
  int gpus_per_node = 8;
  std::string parallel_plan;  ///< e.g. "TP8 PP2 DP4, 1F1B" (may be empty)
  units::Time step_time;      ///< simulated step time
  double mfu = 0.0;           ///< simulated model FLOPs utilisation, 0..1
  /// Parameters a checkpoint holds when not `params` (LoRA: the adapters'); 0 = params.
  double checkpoint_params = 0.0;
  /// The model's shape as the quote states it (layers 0 = not stated): layers, hidden size,
  /// attention and key/value heads, sequence length in tokens; for a mixture of experts the routed
  /// experts, those each token uses, the shared ones and the parameters active per token.
  int layers = 0;
  std::int64_t hidden = 0;
  int heads = 0, kv_heads = 0;
  std::int64_t seq_len = 0;
  int experts = 0, experts_per_token = 0, shared_experts = 0;
  double active_params = 0.0;
};

/// Another GPU type a plan search considered (`quote --plan best` over several): its cheapest
/// simulated plan that meets the requirements, else its closest, on the footing the requirements
/// are checked on (their percentile, the step at the model band's factor).
struct QuoteAlternative {
  std::string gpu;  ///< GPU catalog name, e.g. "H800"
  std::int64_t gpus = 0;
  std::string plan;   ///< the parallel plan, e.g. "TP1 PP7 DP8 CP4 mb1 ZeRO-2 rc-none zero-bubble"
  std::string price;  ///< the price plan's name
  units::Time wall;   ///< calendar time of that run
  units::Money cost;  ///< its total before tax
  bool meets_deadline = true;
  bool meets_budget = true;
};

/// What the quote says about the price catalog it used.
struct QuoteCatalog {
  std::string name;
  std::string provider;
  std::string date;
  std::string source;
  std::vector<std::string> fx;  ///< "1 USD = 7.2 CNY (assumption, not sourced ...)"
  bool issues_quotes = true;    ///< PriceCatalog::issues_quotes: the provider is the default issuer
  /// The catalog's own Chinese for its texts (plan, add-on and CPU instance names, add-on notes):
  /// (text, Chinese), the longest text first. A quote in zh-CN writes them into its bill lines.
  std::vector<std::pair<std::string, std::string>> zh;
  /// Catalog facts the quote should repeat (name, provider, date, source, rates).
  static QuoteCatalog of(const pricing::PriceCatalog& catalog);
};

/// What the customer asked for. The deadline is compared with the calendar time and the budget
/// with the recommended plan's total before tax, both at P90 (P50 when `p50`), on the run of
/// QuoteInput::band_check when it is set.
struct QuoteRequirements {
  double tokens = 0;  ///< training tokens asked (0 = the job's)
  std::optional<units::Time> deadline;
  std::optional<units::Money> budget;
  bool p50 = false;
};

/// One run of the model band: the whole run again (same seed, same failure draws) with the step
/// time at `step_factor` x the prediction; its figures at the P50 and P90 trials and its bills
/// there (same rows as QuoteInput::plans).
struct QuoteBandRun {
  double step_factor = 1;
  units::Time wall_p50, wall_p90;  ///< calendar time
  units::Time span_p50, span_p90;  ///< paid GPU time
  double gpu_hours_p50 = 0, gpu_hours_p90 = 0;
  pricing::PlanComparison plans;
};

/// The run the requirements are checked on when the model band (the step time's 80% interval
/// from cross-validation) is known: the whole run again (same seed, same failure draws) with the
/// step time at `step_factor` x the prediction -- the band's P90 factor (its slow end) for a P90
/// check, its median for P50 -- and its bills. A run slower than predicted, as about one in ten
/// are, still meets what the quote says it meets.
struct QuoteBandCheck {
  double step_factor = 1;
  std::string basis;               ///< what the band rests on, e.g. "hopper: 21 held-out runs of 7 source groups"
  units::Time wall_p50, wall_p90;  ///< calendar time of that run
  pricing::PlanComparison plans;   ///< its bills at its P50 and P90 trials (same rows as QuoteInput::plans)
  /// The band's ends at the same failure draws: the step at its P10 factor (the fast end) and at
  /// its P90 factor (the slow end). The quote shows them beside P50 and P90 (which spread the run
  /// over failures only), named apart from them. Both or neither.
  std::optional<QuoteBandRun> low, high;
};

/// Everything a quote is made from. Plain data; the caller fills it.
struct QuoteInput {
  std::string customer;    ///< who the quote is for
  std::string issuer;      ///< who quotes (default: the catalog's provider)
  std::string issue_date;  ///< "YYYY-MM-DD", from the caller: core never reads the clock
  int validity_days = 30;  ///< the quote is valid until issue_date + validity_days
  QuoteJob job;
  job::JobResult run;             ///< the whole-run simulation (samples are not needed)
  pricing::PlanComparison plans;  ///< bills at P50/P90 of every plan; the cheapest is recommended
  QuoteCatalog catalog;
  std::vector<std::string> extra_assumptions;  ///< appended to the generated ones
  std::vector<std::string> claims;             ///< "claimed vs simulated" lines with verdicts (may be empty)
  QuoteRequirements requirements;
  std::optional<pricing::Tax> tax;  ///< added to the totals (none: the quote says taxes are extra)
  std::string payment_terms;        ///< "" = to be agreed in the contract
  std::string frameworks;           ///< training frameworks that run the plan (may be empty)
  /// When none of the frameworks flopcast models runs the plan as stated (frameworks empty):
  /// their names ("Megatron-core, DeepSpeed, torchtitan (FSDP2)"), for the quote to say so.
  std::string frameworks_modelled;
  /// The run the requirements are checked on (none: the point prediction's run).
  std::optional<QuoteBandCheck> band_check;
  bool compare = false;  ///< show competitors' prices beside the provider's plans
  /// Spot plans may be recommended (the run was simulated with their interruptions).
  bool allow_spot = false;
  /// The language the quote is written in. Not part of the id: the same offer in English and
  /// in Chinese carries the same quote id.
  QuoteLanguage language = QuoteLanguage::En;
  /// The other GPU types the plan search considered (may be empty), shown in their own section.
  std::vector<QuoteAlternative> alternatives;
};

/// One requirement against the plan: what was asked, what the plan gives, whether it is met.
struct RequirementCheck {
  std::string what;   ///< "Training tokens", "Deadline", "Budget"
  std::string asked;  ///< as the customer put it
  std::string plan;   ///< what the plan gives (at the percentile)
  bool met = true;
};

/// A quote ready to render.
struct Quote {
  std::string id;           ///< "Q-" + 16 hex digits of FNV-1a 64 of the canonical inputs
  std::string valid_until;  ///< "YYYY-MM-DD"
  QuoteInput input;
  std::optional<std::size_t> recommended;  ///< row of input.plans (its cheapest)
  std::vector<std::string> assumptions;    ///< generated from the inputs, then the extra ones
  std::vector<RequirementCheck> requirements;
  units::Money tax_p50, tax_p90;    ///< the tax on the recommended plan's totals
  std::vector<std::string> errors;  ///< e.g. a malformed issue date; empty = usable
  bool ok() const { return errors.empty(); }
  /// Whether every requirement the customer stated is met.
  bool meets() const;
};

/// Whether a plan of `kind` is priced in the quote: offers, list and contract prices; spot
/// prices too when `input.allow_spot`.
bool quoted_kind(const QuoteInput& input, pricing::PriceKind kind);

/// Builds the quote: id, validity date, recommendation, requirement checks, tax, assumptions.
Quote make_quote(QuoteInput input);

/// `amount` x `rate_bp` / 10,000 rounded half away from zero to the minor unit.
units::Money tax_on(const units::Money& amount, std::int64_t rate_bp);

/// The canonical text the id hashes: every input that shows in the quote, one "key=value"
/// per line, numbers in round-trip precision ("%.17g"), times in ns, money in minor units.
std::string canonical_quote_string(const QuoteInput& input);

/// FNV-1a 64-bit hash (Fowler, Noll, Vo; offset basis 14695981039346656037, prime
/// 1099511628211, from the FNV reference at isthe.com/chongo/tech/comp/fnv).
std::uint64_t fnv1a64(std::string_view bytes);

/// "Q-" + 16 upper-case hex digits of fnv1a64(canonical_quote_string(input)).
std::string quote_id(const QuoteInput& input);

/// `date` ("YYYY-MM-DD") plus `days`, or nullopt when `date` is not a valid calendar date.
std::optional<std::string> add_days(const std::string& date, int days);

}  // namespace flopcast::quote

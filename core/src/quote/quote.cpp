#include "flopcast/quote/quote.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "quote_format.hpp"

namespace flopcast::quote {
namespace {

using namespace detail;

/// Llama 3 405B interruption rate (L3 Table 5: 419 / (16,384 x 1,296 h)), the ReliabilitySpec default.
constexpr double kLlama3FailuresPerGpuHour = 1.97e-5;

void line(std::string& out, const std::string& key, const std::string& value) {
  out += key;
  out += '=';
  // Keep one record per line whatever the value holds.
  for (char c : value) out += c == '\n' ? ' ' : c;
  out += '\n';
}

std::string money_key(const units::Money& m) { return std::to_string(m.minor) + ' ' + m.currency.str(); }

std::string checkpoint_assumption(const QuoteInput& in, QuoteLanguage l) {
  const job::JobResult& r = in.run;
  std::string per_param;
  const double checkpointed = in.job.checkpoint_params > 0.0 ? in.job.checkpoint_params : in.job.params;
  if (checkpointed > 0.0) {
    const double bpp = r.checkpoint_size.value / checkpointed;
    per_param = tr(l, "a.ckpt.per_param", fmt::arg("bpp", units::format_fixed(bpp, 0)),
                   fmt::arg("optimizer", bpp == 14.0 ? quote_text(l, "a.ckpt.optimizer") : ""));
  }
  const auto suggested = quote_units(l, units::format_duration_with_hours(r.advice.suggested));
  const std::string suggest =
      r.advice.write_bound ? tr(l, "a.ckpt.suggest.write", fmt::arg("suggested", suggested),
                                fmt::arg("daly", quote_units(l, units::format_duration_with_hours(r.advice.daly))))
                           : tr(l, "a.ckpt.suggest", fmt::arg("suggested", suggested));
  return tr(l, r.steps_per_checkpoint == 1 ? "a.ckpt.one" : "a.ckpt.many",
            fmt::arg("mode", quote_text(l, r.async_checkpoint ? "a.ckpt.async" : "a.ckpt.sync")),
            fmt::arg("interval", quote_units(l, units::format_duration_with_hours(r.checkpoint_interval))),
            fmt::arg("steps", units::format_grouped(r.steps_per_checkpoint)),
            fmt::arg("size", units::format_fixed(r.checkpoint_size.gb(), 1)), fmt::arg("per_param", per_param),
            fmt::arg("write", units::format_fixed(r.checkpoint_write.seconds(), 1)), fmt::arg("suggest", suggest));
}

std::vector<std::string> make_assumptions(const QuoteInput& in) {
  const job::JobResult& r = in.run;
  const QuoteLanguage l = in.language;
  std::vector<std::string> a;
  a.push_back(tr(l, "a.mfu", fmt::arg("mfu", percent(in.job.mfu)),
                 fmt::arg("step", units::format_fixed(in.job.step_time.seconds(), 3))));
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.3g", r.failures_per_gpu_hour);
  std::string mtbf;
  if (r.advice.job_mtbf_hours > 0.0)
    mtbf = tr(l, "a.failures.mtbf",
              fmt::arg("hours", r.advice.job_mtbf_hours >= 100.0
                                    ? units::format_grouped(static_cast<std::int64_t>(r.advice.job_mtbf_hours + 0.5))
                                    : units::format_fixed(r.advice.job_mtbf_hours, 1)));
  a.push_back(tr(
      l, "a.failures", fmt::arg("rate", rate),
      fmt::arg("source", r.failures_per_gpu_hour == kLlama3FailuresPerGpuHour ? quote_text(l, "a.failures.llama3")
                                                                              : std::string_view()),
      fmt::arg("mtbf", mtbf), fmt::arg("restart", quote_units(l, units::format_duration_with_hours(r.restart_time)))));
  a.push_back(checkpoint_assumption(in, l));
  a.push_back(tr(l, "a.duration", fmt::arg("trials", r.trials), fmt::arg("seed", r.seed)));
  if (r.provisioning.ns > 0)
    a.push_back(
        tr(l, "a.provisioning", fmt::arg("time", quote_units(l, units::format_duration_with_hours(r.provisioning)))));
  if (r.debug_phase.ns > 0)
    a.push_back(tr(l, "a.debug", fmt::arg("time", quote_units(l, units::format_duration_with_hours(r.debug_phase)))));
  const std::string provider =
      in.catalog.provider.empty() ? std::string(quote_text(l, "a.provider")) : quote_provider(l, in.catalog.provider);
  const std::string dated = in.catalog.date.empty()
                                ? std::string()
                                : tr(l, "a.prices.dated", fmt::arg("date", quote_date(l, in.catalog.date)));
  a.push_back(tr(l, "a.prices", fmt::arg("provider", provider), fmt::arg("dated", dated)));
  if (in.band_check) {
    const bool p50 = in.requirements.p50;
    a.push_back(tr(
        l, "a.band", fmt::arg("factor", units::format_fixed(in.band_check->step_factor, 2)),
        fmt::arg("which", quote_text(l, p50 ? "a.band.median" : "a.band.slow")), fmt::arg("pct", p50 ? "P50" : "P90"),
        fmt::arg("wall", quote_units(l, units::format_days_or_hours_half_up(p50 ? in.band_check->wall_p50
                                                                                : in.band_check->wall_p90)))));
  }
  a.push_back(std::string(quote_text(l, "a.billing")));
  if (r.energy.facility_kwh > 0.0)
    a.push_back(tr(l, "a.energy", fmt::arg("mwh", units::format_fixed(r.energy.facility_kwh / 1000.0, 1)),
                   fmt::arg("pue", units::format_fixed(r.energy.pue, 2)),
                   fmt::arg("cost", quote_money(l, r.energy.cost))));
  for (const std::string& s : in.extra_assumptions) a.push_back(quote_phrase(l, s));
  return a;
}

}  // namespace

QuoteCatalog QuoteCatalog::of(const pricing::PriceCatalog& catalog) {
  QuoteCatalog q;
  q.name = catalog.name;
  q.provider = catalog.provider;
  q.date = catalog.date;
  q.source = catalog.source;
  q.issues_quotes = catalog.issues_quotes;
  for (const units::FxRate& r : catalog.fx) q.fx.push_back(r.str() + (r.note.empty() ? "" : " (" + r.note + ")"));
  auto zh = [&](const std::string& text, const std::string& chinese) {
    if (!text.empty() && !chinese.empty()) q.zh.emplace_back(text, chinese);
  };
  for (const pricing::Plan& p : catalog.plans) {
    zh(p.name, p.name_zh);
    for (const pricing::AddOn& a : p.add_ons) {
      zh(a.name, a.name_zh);
      zh(a.note, a.note_zh);
    }
  }
  for (const pricing::CpuInstance& c : catalog.cpu_instances) zh(c.name, c.name_zh);
  std::stable_sort(q.zh.begin(), q.zh.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  return q;
}

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a 64 offset basis
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;  // FNV 64 prime
  }
  return h;
}

std::string canonical_quote_string(const QuoteInput& in) {
  std::string s;
  line(s, "format", "flopcast-quote-1");
  line(s, "customer", in.customer);
  line(s, "issuer", in.issuer);
  line(s, "issue_date", in.issue_date);
  line(s, "validity_days", std::to_string(in.validity_days));
  const QuoteJob& j = in.job;
  line(s, "job.model", j.model_name);
  line(s, "job.params", exact(j.params));
  line(s, "job.tokens", exact(j.tokens));
  line(s, "job.gpu", j.gpu_name);
  line(s, "job.gpus", std::to_string(j.gpus));
  line(s, "job.gpus_per_node", std::to_string(j.gpus_per_node));
  line(s, "job.plan", j.parallel_plan);
  line(s, "job.step_ns", std::to_string(j.step_time.ns));
  line(s, "job.mfu", exact(j.mfu));
  if (j.checkpoint_params > 0.0) line(s, "job.checkpoint_params", exact(j.checkpoint_params));
  if (j.layers > 0)
    line(s, "job.shape",
         fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}", j.layers, j.hidden, j.heads, j.kv_heads, j.seq_len, j.experts,
                     j.experts_per_token, j.shared_experts, exact(j.active_params)));
  const job::JobResult& r = in.run;
  line(s, "run.trials", std::to_string(r.trials));
  line(s, "run.seed", std::to_string(r.seed));
  line(s, "run.steps", std::to_string(r.steps));
  line(s, "run.failures_per_gpu_hour", exact(r.failures_per_gpu_hour));
  line(s, "run.restart_ns", std::to_string(r.restart_time.ns));
  line(s, "run.async_checkpoint", r.async_checkpoint ? "1" : "0");
  line(s, "run.checkpoint_interval_ns", std::to_string(r.checkpoint_interval.ns));
  line(s, "run.checkpoint_bytes", exact(r.checkpoint_size.value));
  line(s, "run.provisioning_ns", std::to_string(r.provisioning.ns));
  line(s, "run.debug_ns", std::to_string(r.debug_phase.ns));
  line(s, "run.wall_p50_ns", std::to_string(r.wall_p50.ns));
  line(s, "run.wall_p90_ns", std::to_string(r.wall_p90.ns));
  line(s, "run.span_p50_ns", std::to_string(r.gpu_span_p50.ns));
  line(s, "run.span_p90_ns", std::to_string(r.gpu_span_p90.ns));
  line(s, "run.span_mean_ns", std::to_string(r.gpu_span_mean.ns));
  line(s, "run.goodput", exact(r.goodput_mean));
  line(s, "run.failures_mean", exact(r.failures_mean));
  line(s, "run.energy_kwh", exact(r.energy.facility_kwh));
  line(s, "run.energy_cost", money_key(r.energy.cost));
  line(s, "catalog.name", in.catalog.name);
  line(s, "catalog.provider", in.catalog.provider);
  line(s, "catalog.date", in.catalog.date);
  line(s, "catalog.source", in.catalog.source);
  for (const auto& fx : in.catalog.fx) line(s, "catalog.fx", fx);
  line(s, "plans.currency", in.plans.currency.str());
  for (const pricing::ComparisonRow& row : in.plans.rows) {
    line(s, "plan", row.option.id + (row.cheapest ? " *" : ""));
    for (const pricing::Bill* b : {&row.p50, &row.p90}) {
      line(s, "bill.total", money_key(b->total));
      line(s, "bill.deposit", money_key(b->deposit));
      for (const pricing::LineItem& i : b->items)
        line(s, "item", i.label + '|' + i.quantity + '|' + i.unit_price + '|' + money_key(i.amount) + '|' + i.note);
      for (const auto& n : b->notes) line(s, "bill.note", n);
      for (const auto& e : b->errors) line(s, "bill.error", e);
    }
  }
  for (const auto& a : in.extra_assumptions) line(s, "assumption", a);
  for (const auto& c : in.claims) line(s, "claim", c);
  const QuoteRequirements& rq = in.requirements;
  line(s, "req.tokens", exact(rq.tokens));
  line(s, "req.deadline_ns", rq.deadline ? std::to_string(rq.deadline->ns) : "-");
  line(s, "req.budget", rq.budget ? money_key(*rq.budget) : "-");
  line(s, "req.p50", rq.p50 ? "1" : "0");
  if (in.tax)
    line(s, "tax", in.tax->name + '|' + std::to_string(in.tax->rate_bp) + '|' + in.tax->basis + '|' + in.tax->source);
  line(s, "payment_terms", in.payment_terms);
  // "none" as before the modelled frameworks were named: a quote's identity does not move.
  line(s, "frameworks", in.frameworks.empty() && !in.frameworks_modelled.empty() ? "none" : in.frameworks);
  if (const auto& b = in.band_check) {
    line(s, "band.factor", exact(b->step_factor));
    line(s, "band.basis", b->basis);
    line(s, "band.wall_p50_ns", std::to_string(b->wall_p50.ns));
    line(s, "band.wall_p90_ns", std::to_string(b->wall_p90.ns));
    for (const pricing::ComparisonRow& row : b->plans.rows)
      line(s, "band.plan", row.option.id + '|' + money_key(row.p50.total) + '|' + money_key(row.p90.total));
    for (const auto* end : {&b->low, &b->high}) {
      if (!*end) continue;
      const QuoteBandRun& e = **end;
      line(s, "band.end.factor", exact(e.step_factor));
      line(s, "band.end.wall_ns", std::to_string(e.wall_p50.ns) + '|' + std::to_string(e.wall_p90.ns));
      line(s, "band.end.span_ns", std::to_string(e.span_p50.ns) + '|' + std::to_string(e.span_p90.ns));
      line(s, "band.end.gpu_hours", exact(e.gpu_hours_p50) + '|' + exact(e.gpu_hours_p90));
      for (const pricing::ComparisonRow& row : e.plans.rows)
        line(s, "band.end.plan", row.option.id + '|' + money_key(row.p50.total) + '|' + money_key(row.p90.total));
    }
  }
  for (const QuoteAlternative& a : in.alternatives)
    line(s, "alternative",
         fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", a.gpu, a.gpus, a.plan, a.price, a.wall.ns, money_key(a.cost),
                     a.meets_deadline ? 1 : 0, a.meets_budget ? 1 : 0));
  line(s, "compare", in.compare ? "1" : "0");
  if (in.allow_spot) line(s, "allow_spot", "1");  // absent when off: earlier quotes keep their ids
  return s;
}

std::string quote_id(const QuoteInput& input) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "Q-%016llX", static_cast<unsigned long long>(fnv1a64(canonical_quote_string(input))));
  return buf;
}

std::optional<std::string> add_days(const std::string& date, int days) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') return std::nullopt;
  int y = 0, m = 0, d = 0;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u})
    if (date[i] < '0' || date[i] > '9') return std::nullopt;
  y = std::stoi(date.substr(0, 4));
  m = std::stoi(date.substr(5, 2));
  d = std::stoi(date.substr(8, 2));
  using namespace std::chrono;
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(m)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  const year_month_day out{sys_days{ymd} + std::chrono::days{days}};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(out.year()), static_cast<unsigned>(out.month()),
                static_cast<unsigned>(out.day()));
  return std::string(buf);
}

units::Money tax_on(const units::Money& amount, std::int64_t rate_bp) {
  const std::int64_t num = amount.minor * rate_bp;
  const std::int64_t q = (num >= 0 ? num + 5'000 : num - 5'000) / 10'000;
  return units::Money::of_minor(q, amount.currency);
}

bool Quote::meets() const {
  for (const auto& r : requirements)
    if (!r.met) return false;
  return true;
}

namespace {

/// The customer's requirements against the run and the recommended plan (a row of in.plans).
std::vector<RequirementCheck> check_requirements(const QuoteInput& in, const std::optional<std::size_t>& recommended) {
  const QuoteRequirements& q = in.requirements;
  const char* pct = q.p50 ? "P50" : "P90";
  std::vector<RequirementCheck> out;
  const double asked = q.tokens > 0 ? q.tokens : in.job.tokens;
  out.push_back({"Training tokens", units::format_count_fixed(asked), units::format_count_fixed(in.job.tokens),
                 in.job.tokens >= asked * (1 - 1e-9)});
  const QuoteBandCheck* band = in.band_check ? &*in.band_check : nullptr;
  // P50 and P90 spread the run over failures; the model band is named apart ("slow end of the
  // model band (x1.09)"), never folded into a bare "P90".
  const std::string at = std::string(" at ") + pct +
                         (band ? fmt::format(", {} of the model band (x{})", q.p50 ? "median" : "slow end",
                                             units::format_fixed(band->step_factor, 2))
                               : std::string());
  if (q.deadline) {
    const units::Time wall =
        band ? (q.p50 ? band->wall_p50 : band->wall_p90) : (q.p50 ? in.run.wall_p50 : in.run.wall_p90);
    out.push_back({"Deadline", units::format_days_or_hours_half_up(*q.deadline),
                   units::format_days_or_hours_half_up(wall) + at, wall <= *q.deadline});
  }
  if (q.budget) {
    RequirementCheck c{"Budget (before tax)", q.budget->str(), "no plan can be billed", false};
    const pricing::ComparisonRow* best =
        recommended && *recommended < in.plans.rows.size() ? &in.plans.rows[*recommended] : nullptr;
    // The recommended plan's row in the band's bills (same catalog, so the same option id).
    if (best && band) {
      const std::string& id = best->option.id;
      best = nullptr;
      for (const pricing::ComparisonRow& row : band->plans.rows)
        if (row.option.id == id && row.p50.ok() && row.p90.ok()) best = &row;
    }
    if (best) {
      const units::Money& total = q.p50 ? best->p50.total : best->p90.total;
      c.plan = total.str() + at;
      c.met = total.currency == q.budget->currency && total.minor <= q.budget->minor;
      if (total.currency != q.budget->currency) c.plan += " (another currency than the budget's)";
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

bool quoted_kind(const QuoteInput& input, pricing::PriceKind kind) {
  return pricing::billable_by_default(kind) || (input.allow_spot && kind == pricing::PriceKind::Spot);
}

namespace {

/// The spot plan's interruptions, their source and what they cost the simulated run.
void spot_assumption(const QuoteInput& in, const pricing::ComparisonRow& best, Quote& q) {
  const QuoteLanguage l = in.language;
  const pricing::Plan& p = *best.option.plan;
  const int gpn = std::max(1, p.gpus_per_node);
  const job::JobResult& r = in.run;
  q.assumptions.push_back(
      tr(l, "a.spot", fmt::arg("plan", quote_phrase(l, best.option.label)),
         fmt::arg("rate", fmt::format("{:.3g}", p.interruptions_per_hour)), fmt::arg("gpus", gpn),
         fmt::arg("source", p.interruption_source.empty() ? std::string() : " (" + p.interruption_source + ")"),
         fmt::arg("per_gpu", fmt::format("{:.3g}", p.interruptions_per_hour / gpn)),
         fmt::arg("restart", quote_units(l, units::format_duration_with_hours(p.interruption_restart))),
         fmt::arg("failures", units::format_fixed(r.failures_mean, 1)),
         fmt::arg("lost", quote_units(l, units::format_duration_with_hours(r.lost_work_mean))),
         fmt::arg("restarts", quote_units(l, units::format_duration_with_hours(r.restart_mean)))));
}

/// `text` with every catalog text the catalog translates replaced by its Chinese, the longest first.
std::string with_catalog_chinese(const QuoteCatalog& c, std::string text) {
  for (const auto& [en, zh] : c.zh)
    for (auto at = text.find(en); at != std::string::npos; at = text.find(en, at + zh.size()))
      text.replace(at, en.size(), zh);
  return text;
}

/// A quote in Chinese: the price options' labels and the bill lines' labels and notes in the
/// catalog's own Chinese where it gives one (after the id, which does not depend on the language).
void use_catalog_chinese(QuoteInput& in) {
  if (in.catalog.zh.empty()) return;
  auto bills = [&](pricing::PlanComparison& plans) {
    for (pricing::ComparisonRow& row : plans.rows) {
      row.option.label = with_catalog_chinese(in.catalog, row.option.label);
      for (pricing::Bill* bill : {&row.p50, &row.p90}) {
        bill->label = with_catalog_chinese(in.catalog, bill->label);
        for (pricing::LineItem& i : bill->items) {
          i.label = with_catalog_chinese(in.catalog, i.label);
          i.note = with_catalog_chinese(in.catalog, i.note);
        }
      }
    }
  };
  bills(in.plans);
  for (QuoteAlternative& a : in.alternatives) a.price = with_catalog_chinese(in.catalog, a.price);
  if (in.band_check) {
    bills(in.band_check->plans);
    for (auto* end : {&in.band_check->low, &in.band_check->high})
      if (*end) bills((*end)->plans);
  }
}

}  // namespace

Quote make_quote(QuoteInput input) {
  Quote q;
  if (input.issuer.empty() && input.catalog.issues_quotes) input.issuer = input.catalog.provider;
  q.id = quote_id(input);
  if (input.language == QuoteLanguage::ZhCn) use_catalog_chinese(input);
  if (auto until = add_days(input.issue_date, input.validity_days)) {
    q.valid_until = *until;
  } else {
    q.errors.push_back("issue date '" + input.issue_date + "' is not a valid YYYY-MM-DD date");
  }
  if (input.plans.rows.empty()) q.errors.push_back("no plan to quote: the comparison has no rows");
  // The issuer's quote recommends the cheapest plan it bills at (an offer, a list or a contract
  // price, and a spot price only when the customer allows it), never a competitor's price or an
  // assumption.
  for (std::size_t i = 0; i < input.plans.rows.size(); ++i) {
    const pricing::ComparisonRow& row = input.plans.rows[i];
    if (!row.option.plan || row.option.plan->competitor || !quoted_kind(input, row.option.plan->kind) ||
        !row.p50.ok() || !row.p90.ok())
      continue;
    if (row.option.overflow && !quoted_kind(input, row.option.overflow->kind)) continue;
    const pricing::ComparisonRow* cur = q.recommended ? &input.plans.rows[*q.recommended] : nullptr;
    if (!cur || row.p50.total.minor < cur->p50.total.minor ||
        (row.p50.total.minor == cur->p50.total.minor && row.p90.total.minor < cur->p90.total.minor))
      q.recommended = i;
  }
  if (!q.recommended && !input.plans.rows.empty())
    q.errors.push_back("no plan of the provider's own can be billed for this job (only competitor plans apply)");
  const pricing::ComparisonRow* best =
      q.recommended && *q.recommended < input.plans.rows.size() ? &input.plans.rows[*q.recommended] : nullptr;
  q.requirements = check_requirements(input, q.recommended);
  if (best && input.tax) {
    q.tax_p50 = tax_on(best->p50.total, input.tax->rate_bp);
    q.tax_p90 = tax_on(best->p90.total, input.tax->rate_bp);
  }
  q.assumptions = make_assumptions(input);
  if (best && best->option.plan && best->option.plan->kind == pricing::PriceKind::Spot)
    spot_assumption(input, *best, q);
  q.input = std::move(input);
  return q;
}

}  // namespace flopcast::quote

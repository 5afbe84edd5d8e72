#include "flopcast/quote/quote_render.hpp"

#include "flopcast/units/text.hpp"
#include "quote_format.hpp"

namespace flopcast::quote {
namespace {

using namespace detail;

/// The HTML's font families. Chinese needs a CJK font: WenQuanYi Micro Hei (Debian's
/// fonts-wqy-microhei), else Noto Sans CJK SC (fonts-noto-cjk); Latin text keeps DejaVu Sans.
constexpr const char* kLatinFonts = "'DejaVu Sans', Arial, sans-serif";
constexpr const char* kCjkFonts = "'WenQuanYi Micro Hei', 'Noto Sans CJK SC', 'DejaVu Sans', sans-serif";

/// A format-neutral document: the quote is laid out once and written as Markdown or HTML.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> strong;    ///< per row: emphasised (totals, the recommended plan)
  std::vector<bool> right;     ///< per column: right-aligned (amounts)
  std::vector<int> width_pct;  ///< per column: share of the page width in HTML (empty = auto)
};

struct Block {
  enum class Kind { Heading, Paragraph, List, Table } kind = Kind::Paragraph;
  std::string text;
  std::vector<std::string> items;
  Table table;
};

using Doc = std::vector<Block>;

void heading(Doc& d, std::string text) { d.push_back({Block::Kind::Heading, std::move(text), {}, {}}); }
void para(Doc& d, std::string text) { d.push_back({Block::Kind::Paragraph, std::move(text), {}, {}}); }
void list(Doc& d, std::vector<std::string> items) {
  if (!items.empty()) d.push_back({Block::Kind::List, {}, std::move(items), {}});
}
void table(Doc& d, Table t) {
  if (t.strong.size() < t.rows.size()) t.strong.resize(t.rows.size(), false);
  if (t.right.size() < t.header.size()) t.right.resize(t.header.size(), false);
  d.push_back({Block::Kind::Table, {}, {}, std::move(t)});
}

std::string gpu_hours(QuoteLanguage l, double h) {
  return tr(l, "dur.gpu_hours.value", fmt::arg("hours", units::format_grouped(static_cast<std::int64_t>(h + 0.5))));
}

/// A duration as `l` writes it.
std::string dur(QuoteLanguage l, units::Time t) { return quote_units(l, units::format_duration_with_hours(t)); }

/// A bill note in the customer's words: the plan's catalog id becomes "this plan".
std::string customer_note(std::string note, const std::string& plan_id) {
  for (const std::string& key : {"plan '" + plan_id + "'", "'" + plan_id + "'"}) {
    for (auto at = note.find(key); at != std::string::npos; at = note.find(key))
      note.replace(at, key.size(), "this plan");
  }
  return note;
}

/// The tax's name as `l` writes it: "VAT", "增值税".
std::string tax_name(QuoteLanguage l, const pricing::Tax& t) { return quote_phrase(l, t.name); }

std::string tax_label(QuoteLanguage l, const pricing::Tax& t) {
  return tr(l, "bill.tax", fmt::arg("tax", tax_name(l, t)),
            fmt::arg("rate", units::format_fixed(static_cast<double>(t.rate_bp) / 100, 0)));
}

/// A list flopcast wrote with ", " between its items, with `zh_separator` between them in Chinese.
std::string list_separators(QuoteLanguage l, std::string text, const std::string& zh_separator) {
  if (l != QuoteLanguage::ZhCn) return text;
  for (auto at = text.find(", "); at != std::string::npos; at = text.find(", ", at + zh_separator.size()))
    text.replace(at, 2, zh_separator);
  return text;
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

/// The model band's two ends at the requirements' percentile, when the quote has them: shown in
/// their own column beside P50 and P90 (which spread the run over failures only).
struct BandEnds {
  const QuoteBandRun* low = nullptr;
  const QuoteBandRun* high = nullptr;
  bool p50 = false;  ///< the ends at the P50 trial (a P50 check), else at the P90 trial
  const char* pct() const { return p50 ? "P50" : "P90"; }
  template <class T>
  T at(T QuoteBandRun::*p50_field, T QuoteBandRun::*p90_field, const QuoteBandRun& r) const {
    return r.*(p50 ? p50_field : p90_field);
  }
};

std::optional<BandEnds> band_ends(const QuoteInput& in) {
  if (!in.band_check || !in.band_check->low || !in.band_check->high) return std::nullopt;
  return BandEnds{&*in.band_check->low, &*in.band_check->high, in.requirements.p50};
}

/// The total of option `id` in a band run's bills at the ends' percentile, when it could be billed.
std::optional<units::Money> band_total(const BandEnds& b, const QuoteBandRun& r, const std::string& id) {
  for (const pricing::ComparisonRow& row : r.plans.rows)
    if (row.option.id == id && row.p50.ok() && row.p90.ok()) return b.p50 ? row.p50.total : row.p90.total;
  return std::nullopt;
}

std::string range(QuoteLanguage l, const std::string& low, const std::string& high) {
  return tr(l, "band.range", fmt::arg("low", low), fmt::arg("high", high));
}

void layout_header(const Quote& q, Doc& d) {
  const QuoteInput& in = q.input;
  const QuoteLanguage l = in.language;
  Table head{{"", ""}, {}, {}, {}, {}};
  head.rows.push_back({std::string(quote_text(l, "head.quote")), q.id});
  head.rows.push_back({std::string(quote_text(l, "head.customer")), or_dash(in.customer)});
  head.rows.push_back({std::string(quote_text(l, "head.issuer")), or_dash(quote_provider(l, in.issuer))});
  head.rows.push_back({std::string(quote_text(l, "head.date")), quote_date(l, in.issue_date)});
  head.rows.push_back({std::string(quote_text(l, "head.valid_until")), or_dash(quote_date(l, q.valid_until))});
  table(d, head);
  if (!q.meets()) {
    std::string missed;
    for (const auto& r : q.requirements)
      if (!r.met)
        missed += (missed.empty() ? std::string() : std::string(quote_text(l, "miss.separator"))) +
                  tr(l, "miss.item", fmt::arg("what", quote_phrase(l, r.what)),
                     fmt::arg("asked", quote_phrase(l, r.asked)), fmt::arg("plan", quote_phrase(l, r.plan)));
    para(d, tr(l, "miss.text", fmt::arg("missed", missed)));
  }
  heading(d, std::string(quote_text(l, "req.heading")));
  Table req{{std::string(quote_text(l, "req.col.what")), std::string(quote_text(l, "req.col.asked")),
             std::string(quote_text(l, "req.col.plan")), std::string(quote_text(l, "req.col.met"))},
            {},
            {},
            {},
            {28, 24, 36, 12}};
  for (const auto& r : q.requirements) {
    req.rows.push_back({quote_phrase(l, r.what), quote_phrase(l, r.asked), quote_phrase(l, r.plan),
                        std::string(quote_text(l, r.met ? "req.met" : "req.not_met"))});
    req.strong.push_back(!r.met);
  }
  table(d, req);
}

void layout_job(const Quote& q, Doc& d) {
  const QuoteInput& in = q.input;
  const QuoteLanguage l = in.language;
  const QuoteJob& j = in.job;
  const job::JobResult& r = in.run;
  heading(d, std::string(quote_text(l, "job.heading")));
  std::vector<std::string> job;
  // A model written inline without a name is "custom" in the scenario: the quote says so in
  // words and states its shape, as it does for every model.
  const std::string model =
      j.model_name.empty() || j.model_name == "custom" ? std::string(quote_text(l, "job.model.custom")) : j.model_name;
  job.push_back(
      tr(l, "job.model", fmt::arg("model", model),
         fmt::arg("params", j.params > 0 ? tr(l, "job.params", fmt::arg("count", units::format_count_fixed(j.params)))
                                         : std::string())));
  if (j.layers > 0) {
    std::string moe;
    if (j.experts > 0)
      moe = tr(l, "job.shape.moe", fmt::arg("experts", j.experts), fmt::arg("per_token", j.experts_per_token),
               fmt::arg("shared", j.shared_experts > 0 ? tr(l, "job.shape.shared", fmt::arg("n", j.shared_experts))
                                                       : std::string()),
               fmt::arg("active", units::format_count_fixed(j.active_params)));
    job.push_back(tr(l, "job.shape", fmt::arg("layers", j.layers), fmt::arg("hidden", j.hidden),
                     fmt::arg("heads", j.heads), fmt::arg("kv", j.kv_heads), fmt::arg("seq", j.seq_len),
                     fmt::arg("moe", moe)));
  }
  if (j.tokens > 0) job.push_back(tr(l, "job.tokens", fmt::arg("count", units::format_count_fixed(j.tokens))));
  const std::int64_t gpn = j.gpus_per_node > 0 ? j.gpus_per_node : 1;
  const std::int64_t nodes = (j.gpus + gpn - 1) / gpn;
  job.push_back(tr(l, nodes == 1 ? "job.cluster.one" : "job.cluster.many",
                   fmt::arg("gpus", units::format_grouped(j.gpus)), fmt::arg("gpu", j.gpu_name),
                   fmt::arg("nodes", units::format_grouped(nodes)), fmt::arg("per_node", gpn)));
  if (!j.parallel_plan.empty())
    job.push_back(tr(l, "job.plan", fmt::arg("plan", list_separators(l, quote_phrase(l, j.parallel_plan), "，"))));
  if (!in.frameworks.empty())
    job.push_back(tr(l, "job.frameworks", fmt::arg("frameworks", list_separators(l, in.frameworks, "、"))));
  else if (!in.frameworks_modelled.empty())
    job.push_back(
        tr(l, "job.frameworks.none", fmt::arg("frameworks", list_separators(l, in.frameworks_modelled, "、"))));
  job.push_back(tr(l, "job.step", fmt::arg("step", units::format_fixed(j.step_time.seconds(), 3)),
                   fmt::arg("steps", units::format_grouped(r.steps)), fmt::arg("mfu", percent(j.mfu))));
  list(d, job);

  heading(d, std::string(quote_text(l, "dur.heading")));
  const auto band = band_ends(in);
  Table dur_t{{"", "P50", "P90"}, {}, {}, {false, true, true}, {}};
  dur_t.rows.push_back({std::string(quote_text(l, "dur.calendar")), dur(l, r.wall_p50), dur(l, r.wall_p90)});
  dur_t.rows.push_back({std::string(quote_text(l, "dur.paid")), dur(l, r.gpu_span_p50), dur(l, r.gpu_span_p90)});
  dur_t.rows.push_back(
      {std::string(quote_text(l, "dur.gpu_hours")), gpu_hours(l, r.gpu_hours_p50), gpu_hours(l, r.gpu_hours_p90)});
  if (band) {
    // The days as the requirements row writes them, so its figure is found here.
    auto days = [&](units::Time t) { return quote_units(l, units::format_days_or_hours_half_up(t)); };
    const QuoteBandRun &lo = *band->low, &hi = *band->high;
    dur_t.header.push_back(tr(l, "dur.band", fmt::arg("pct", band->pct())));
    dur_t.right.push_back(true);
    dur_t.rows[0].push_back(range(l, days(band->at(&QuoteBandRun::wall_p50, &QuoteBandRun::wall_p90, lo)),
                                  days(band->at(&QuoteBandRun::wall_p50, &QuoteBandRun::wall_p90, hi))));
    dur_t.rows[1].push_back(range(l, days(band->at(&QuoteBandRun::span_p50, &QuoteBandRun::span_p90, lo)),
                                  days(band->at(&QuoteBandRun::span_p50, &QuoteBandRun::span_p90, hi))));
    dur_t.rows[2].push_back(
        range(l, gpu_hours(l, band->at(&QuoteBandRun::gpu_hours_p50, &QuoteBandRun::gpu_hours_p90, lo)),
              gpu_hours(l, band->at(&QuoteBandRun::gpu_hours_p50, &QuoteBandRun::gpu_hours_p90, hi))));
  }
  table(d, dur_t);
  para(d, tr(l, "dur.summary", fmt::arg("useful", dur(l, r.useful)), fmt::arg("goodput", percent(r.goodput_mean)),
             fmt::arg("failures", units::format_fixed(r.failures_mean, 1)), fmt::arg("lost", dur(l, r.lost_work_mean)),
             fmt::arg("restarts", dur(l, r.restart_mean))));
  if (band)
    para(d, tr(l, "dur.band_note", fmt::arg("pct", band->pct()),
               fmt::arg("low", units::format_fixed(band->low->step_factor, 2)),
               fmt::arg("high", units::format_fixed(band->high->step_factor, 2))));
}

void layout_bill_items(const Quote& q, const pricing::ComparisonRow& best, Doc& d) {
  const QuoteInput& in = q.input;
  const QuoteLanguage l = in.language;
  const std::string cur = best.p50.currency.str();
  Table items{{std::string(quote_text(l, "bill.col.item")), std::string(quote_text(l, "bill.col.quantity")),
               std::string(quote_text(l, "bill.col.unit_price")), tr(l, "bill.col.amount", fmt::arg("currency", cur)),
               std::string(quote_text(l, "bill.col.note"))},
              {},
              {},
              {false, false, true, true, false},
              {28, 16, 20, 16, 20}};
  const std::string id = best.option.plan ? best.option.plan->id : best.option.id;
  for (const pricing::LineItem& i : best.p50.items) {
    const std::string label = quote_phrase(l, i.label);
    items.rows.push_back({i.in_total ? label : "  " + label, quote_phrase(l, i.quantity), quote_phrase(l, i.unit_price),
                          i.in_total ? quote_amount(l, i.amount) : "(" + quote_amount(l, i.amount) + ")",
                          quote_phrase(l, customer_note(i.note, id))});
    items.strong.push_back(false);
  }
  items.rows.push_back({std::string(quote_text(l, "bill.total_p50")), "", "", quote_amount(l, best.p50.total), ""});
  items.strong.push_back(!in.tax);
  if (in.tax) {
    items.rows.push_back(
        {tax_label(l, *in.tax), "", "", quote_amount(l, q.tax_p50), std::string(quote_text(l, "bill.tax_note"))});
    items.strong.push_back(false);
    items.rows.push_back({tr(l, "bill.total_tax_p50", fmt::arg("tax", tax_name(l, *in.tax))), "", "",
                          quote_amount(l, best.p50.total + q.tax_p50), ""});
    items.strong.push_back(true);
  }
  if (best.p50.deposit.minor != 0) {
    items.rows.push_back({std::string(quote_text(l, "bill.deposit")), "", "", quote_amount(l, best.p50.deposit), ""});
    items.strong.push_back(false);
  }
  table(d, items);
  std::vector<std::string> notes;
  for (const auto& n : best.p50.notes) notes.push_back(quote_phrase(l, customer_note(n, id)));
  list(d, notes);
}

void layout_bill(const Quote& q, const pricing::ComparisonRow& best, Doc& d) {
  const QuoteInput& in = q.input;
  const QuoteLanguage l = in.language;
  std::string text =
      tr(l, "bill.summary", fmt::arg("plan", best.option.label), fmt::arg("p50", quote_money(l, best.p50.total)),
         fmt::arg("p90", quote_money(l, best.p90.total)));
  // The model band's bills of this plan, named apart from P50 and P90.
  const auto band = band_ends(in);
  std::optional<units::Money> band_lo, band_hi;
  if (band) {
    band_lo = band_total(*band, *band->low, best.option.id);
    band_hi = band_total(*band, *band->high, best.option.id);
  }
  const bool show_band = band_lo && band_hi;
  if (show_band)
    text += tr(l, "bill.summary.band", fmt::arg("pct", band->pct()), fmt::arg("low", quote_money(l, *band_lo)),
               fmt::arg("high", quote_money(l, *band_hi)));
  if (best.p50.deposit.minor != 0)
    text += tr(l, "bill.deposit_due", fmt::arg("deposit", quote_money(l, best.p50.deposit)));
  para(d, text);
  layout_bill_items(q, best, d);
  const std::string cur = best.p50.currency.str();
  Table tot{
      {"", tr(l, "bill.totals.p50", fmt::arg("currency", cur)), tr(l, "bill.totals.p90", fmt::arg("currency", cur))},
      {},
      {},
      {false, true, true},
      {}};
  tot.rows.push_back(
      {std::string(quote_text(l, "bill.total")), quote_amount(l, best.p50.total), quote_amount(l, best.p90.total)});
  if (in.tax) {
    tot.rows.push_back({tax_label(l, *in.tax), quote_amount(l, q.tax_p50), quote_amount(l, q.tax_p90)});
    tot.rows.push_back({tr(l, "bill.total_tax", fmt::arg("tax", tax_name(l, *in.tax))),
                        quote_amount(l, best.p50.total + q.tax_p50), quote_amount(l, best.p90.total + q.tax_p90)});
  }
  if (show_band) {
    tot.header.push_back(tr(l, "bill.totals.band", fmt::arg("pct", band->pct()), fmt::arg("currency", cur)));
    tot.right.push_back(true);
    auto amounts = [&](const units::Money& lo, const units::Money& hi) {
      return range(l, quote_amount(l, lo), quote_amount(l, hi));
    };
    tot.rows[0].push_back(amounts(*band_lo, *band_hi));
    if (in.tax) {
      const units::Money tax_lo = tax_on(*band_lo, in.tax->rate_bp), tax_hi = tax_on(*band_hi, in.tax->rate_bp);
      tot.rows[1].push_back(amounts(tax_lo, tax_hi));
      tot.rows[2].push_back(amounts(*band_lo + tax_lo, *band_hi + tax_hi));
    }
  }
  tot.strong.assign(tot.rows.size(), false);
  tot.strong.back() = true;
  table(d, tot);
}

void layout_comparison(const Quote& q, Doc& d) {
  const QuoteInput& in = q.input;
  const QuoteLanguage l = in.language;
  const auto& rows = in.plans.rows;
  const std::string cur = in.plans.currency.str();
  Table cmp{{std::string(quote_text(l, "cmp.col.plan")), tr(l, "cmp.col.p50", fmt::arg("currency", cur)),
             tr(l, "cmp.col.p90", fmt::arg("currency", cur)), tr(l, "cmp.col.deposit", fmt::arg("currency", cur))},
            {},
            {},
            {false, true, true, true},
            {46, 19, 19, 16}};
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const pricing::ComparisonRow& row = rows[ri];
    const bool recommended = q.recommended && *q.recommended == ri;
    const bool competitor = row.option.plan && row.option.plan->competitor;
    if (competitor ? !in.compare : !(row.option.plan && quoted_kind(in, row.option.plan->kind))) continue;
    const std::string label = row.option.label + (competitor ? std::string(quote_text(l, "cmp.another")) : "") +
                              (recommended ? std::string(quote_text(l, "cmp.recommended")) : "");
    if (!row.p50.ok() || !row.p90.ok()) continue;
    cmp.rows.push_back({label, quote_amount(l, row.p50.total), quote_amount(l, row.p90.total),
                        row.p50.deposit.minor != 0 ? quote_amount(l, row.p50.deposit) : "-"});
    cmp.strong.push_back(recommended);
  }
  if (cmp.rows.size() < 2) return;
  heading(d, std::string(quote_text(l, in.compare ? "cmp.heading.compare" : "cmp.heading")));
  table(d, cmp);
  para(d, std::string(quote_text(l, "cmp.note")));
}

/// The other GPU types a plan search considered, each with its cheapest plan meeting the
/// requirements (else its closest), on the footing the requirements are checked on.
void layout_alternatives(const Quote& q, Doc& d) {
  const QuoteInput& in = q.input;
  const QuoteLanguage l = in.language;
  if (in.alternatives.empty()) return;
  heading(d, std::string(quote_text(l, "alt.heading")));
  Table t{{std::string(quote_text(l, "alt.col.gpu")), std::string(quote_text(l, "alt.col.plan")),
           std::string(quote_text(l, "alt.col.time")), std::string(quote_text(l, "alt.col.cost")),
           std::string(quote_text(l, "alt.col.met"))},
          {},
          {},
          {false, false, true, true, false},
          {12, 40, 14, 18, 16}};
  for (const QuoteAlternative& a : in.alternatives) {
    const char* met = a.meets_deadline && a.meets_budget     ? "alt.met"
                      : !a.meets_deadline && !a.meets_budget ? "alt.miss.both"
                      : !a.meets_deadline                    ? "alt.miss.deadline"
                                                             : "alt.miss.budget";
    t.rows.push_back({a.gpu,
                      quote_phrase(l, units::format_grouped(a.gpus) + " x " + a.gpu + ", " + a.plan + ", " + a.price),
                      quote_units(l, units::format_days_or_hours_half_up(a.wall)), quote_money(l, a.cost),
                      std::string(quote_text(l, met))});
  }
  table(d, t);
  para(d, tr(l, "alt.note", fmt::arg("pct", in.requirements.p50 ? "P50" : "P90"),
             fmt::arg("which", quote_text(l, in.requirements.p50 ? "alt.which.median" : "alt.which.slow"))));
}

void layout_terms(const Quote& q, Doc& d) {
  const QuoteInput& in = q.input;
  const QuoteLanguage l = in.language;
  heading(d, std::string(quote_text(l, "terms.heading")));
  std::vector<std::string> t;
  if (in.tax)
    t.push_back(
        tr(l, "terms.tax", fmt::arg("tax", tax_name(l, *in.tax)),
           fmt::arg("rate", units::format_fixed(static_cast<double>(in.tax->rate_bp) / 100, 0)),
           fmt::arg("basis",
                    in.tax->basis.empty() ? std::string() : tr(l, "terms.tax.basis", fmt::arg("basis", in.tax->basis))),
           fmt::arg("source", quote_phrase(l, in.tax->source))));
  else
    t.push_back(std::string(quote_text(l, "terms.no_tax")));
  t.push_back(tr(l, "terms.payment",
                 fmt::arg("terms", in.payment_terms.empty() ? std::string(quote_text(l, "terms.payment.default"))
                                                            : in.payment_terms)));
  t.push_back(tr(l, "terms.validity", fmt::arg("date", or_dash(quote_date(l, q.valid_until)))));
  t.push_back(std::string(quote_text(l, "terms.estimate")));
  list(d, t);
  heading(d, std::string(quote_text(l, "sig.heading")));
  const std::string provider =
      in.issuer.empty() ? std::string(quote_text(l, "sig.provider.default")) : quote_provider(l, in.issuer);
  const std::string customer = in.customer.empty() ? std::string(quote_text(l, "sig.customer.default")) : in.customer;
  Table sig{{"", tr(l, "sig.provider", fmt::arg("name", provider)), tr(l, "sig.customer", fmt::arg("name", customer))},
            {},
            {},
            {},
            {20, 40, 40}};
  for (const char* key : {"sig.name", "sig.title", "sig.signature", "sig.date", "sig.seal"}) {
    const std::string row(quote_text(l, key));
    if (!row.empty()) sig.rows.push_back({row, "", ""});
  }
  table(d, sig);
}

Doc layout(const Quote& q) {
  const QuoteInput& in = q.input;
  const QuoteLanguage l = in.language;
  Doc d;
  layout_header(q, d);
  layout_job(q, d);
  heading(d, std::string(quote_text(l, "heading.recommended")));
  if (q.recommended && *q.recommended < in.plans.rows.size())
    layout_bill(q, in.plans.rows[*q.recommended], d);
  else
    para(d, std::string(quote_text(l, "no_plan")));
  layout_comparison(q, d);
  layout_alternatives(q, d);
  if (!in.claims.empty()) {
    heading(d, std::string(quote_text(l, "claims.heading")));
    std::vector<std::string> claims;
    for (const auto& c : in.claims) claims.push_back(quote_phrase(l, c));
    list(d, claims);
  }
  heading(d, std::string(quote_text(l, "heading.assumptions")));
  list(d, q.assumptions);
  layout_terms(q, d);
  para(d, tr(l, "foot", fmt::arg("id", q.id)));
  return d;
}

}  // namespace

std::string render_quote_markdown(const Quote& q) {
  std::string out = "# " + quote_title(q) + "\n";
  for (const Block& b : layout(q)) {
    out += '\n';
    switch (b.kind) {
      case Block::Kind::Heading:
        out += "## " + b.text + "\n";
        break;
      case Block::Kind::Paragraph:
        out += b.text + "\n";
        break;
      case Block::Kind::List:
        for (const auto& i : b.items) out += "- " + units::markdown_cell(i) + "\n";
        break;
      case Block::Kind::Table: {
        const Table& t = b.table;
        out += '|';
        for (const auto& h : t.header) out += ' ' + units::markdown_cell(h) + " |";
        out += "\n|";
        for (std::size_t c = 0; c < t.header.size(); ++c) out += t.right[c] ? "---:|" : "---|";
        out += '\n';
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          out += '|';
          for (const auto& cell : t.rows[r]) {
            const std::string v = units::markdown_cell(cell);
            out += ' ' + (t.strong[r] && !v.empty() ? "**" + v + "**" : v) + " |";
          }
          out += '\n';
        }
        break;
      }
    }
  }
  return out;
}

std::string render_quote_html(const Quote& q) {
  const QuoteLanguage l = q.input.language;
  const std::string title = quote_title(q);
  std::string out = "<!DOCTYPE html>\n<html lang=\"" + std::string(to_string(l)) +
                    "\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + units::html_escape(title) +
                    "</title>\n<style>\n"
                    "@page { size: A4; margin: 18mm; }\n"
                    "body { font-family: " +
                    std::string(l == QuoteLanguage::ZhCn ? kCjkFonts : kLatinFonts) +
                    "; font-size: 10pt; color: #111; max-width: 180mm; margin: auto; }\n"
                    "h1 { font-size: 16pt; margin: 0 0 8pt 0; }\n"
                    "h2 { font-size: 12pt; margin: 14pt 0 4pt 0; border-bottom: 1px solid #888; }\n"
                    "table { border-collapse: collapse; margin: 4pt 0; }\n"
                    "th, td { border: 1px solid #999; padding: 3pt 6pt; vertical-align: top; font-size: 9pt; }\n"
                    "th { background-color: #e8e8e8; text-align: left; }\n"
                    "td.num { text-align: right; }\n"
                    "tr.strong td { font-weight: bold; background-color: #f3f7ff; }\n"
                    "ul { margin: 2pt 0; }\n"
                    "p.foot { color: #555; font-size: 8pt; margin-top: 14pt; }\n"
                    "tr, li { page-break-inside: avoid; }\n"
                    "</style>\n</head>\n<body>\n<h1>" +
                    units::html_escape(title) + "</h1>\n";
  const Doc doc = layout(q);
  for (std::size_t k = 0; k < doc.size(); ++k) {
    const Block& b = doc[k];
    switch (b.kind) {
      case Block::Kind::Heading:
        out += "<h2>" + units::html_escape(b.text) + "</h2>\n";
        break;
      case Block::Kind::Paragraph:
        out += (k + 1 == doc.size() ? "<p class=\"foot\">" : "<p>") + units::html_escape(b.text) + "</p>\n";
        break;
      case Block::Kind::List:
        out += "<ul>\n";
        for (const auto& i : b.items) out += "<li>" + units::html_escape(i) + "</li>\n";
        out += "</ul>\n";
        break;
      case Block::Kind::Table: {
        const Table& t = b.table;
        // border/cellpadding attributes: QTextDocument (the PDF path) ignores most table CSS.
        // Wide tables take the page width so the text columns can wrap less.
        out += std::string("<table border=\"1\" cellspacing=\"0\" cellpadding=\"4\"") +
               (t.header.size() >= 4 ? " width=\"100%\"" : "") + ">\n";
        bool has_header = false;
        for (const auto& h : t.header) has_header = has_header || !h.empty();
        if (has_header) {
          // <thead>: Qt's HTML import makes it the table's header rows, repeated on each PDF page.
          out += "<thead><tr>";
          for (std::size_t c = 0; c < t.header.size(); ++c) {
            out += "<th";
            if (c < t.width_pct.size()) out += " width=\"" + std::to_string(t.width_pct[c]) + "%\"";
            if (t.right[c]) out += " align=\"right\"";
            out += ">" + units::html_escape(t.header[c]) + "</th>";
          }
          out += "</tr></thead>\n";
        }
        out += "<tbody>\n";
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          out += t.strong[r] ? "<tr class=\"strong\">" : "<tr>";
          for (std::size_t c = 0; c < t.rows[r].size(); ++c) {
            const bool right = c < t.right.size() && t.right[c];
            std::string cell = units::html_escape(t.rows[r][c]);
            if (t.strong[r] && !cell.empty()) cell = "<b>" + cell + "</b>";
            out += std::string(right ? "<td class=\"num\" align=\"right\">" : "<td>") + cell + "</td>";
          }
          out += "</tr>\n";
        }
        out += "</tbody></table>\n";
        break;
      }
    }
  }
  out += "</body>\n</html>\n";
  return out;
}

std::string quote_title(const Quote& q) { return tr(q.input.language, "title", fmt::arg("id", q.id)); }

std::string pdf_with_creation_date(std::string pdf, const std::string& date) {
  if (!add_days(date, 0)) return pdf;
  const std::string key = "/CreationDate (D:";
  const auto at = pdf.find(key);
  constexpr std::size_t kDigits = 14;  // YYYYMMDDHHMMSS
  if (at == std::string::npos || at + key.size() + kDigits > pdf.size()) return pdf;
  const std::size_t from = at + key.size();
  for (std::size_t i = 0; i < kDigits; ++i)
    if (pdf[from + i] < '0' || pdf[from + i] > '9') return pdf;
  const std::string stamp = date.substr(0, 4) + date.substr(5, 2) + date.substr(8, 2) + "000000";
  pdf.replace(from, kDigits, stamp);
  return pdf;
}

}  // namespace flopcast::quote

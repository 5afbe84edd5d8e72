#include "flopcast/claims/claims_evaluation.hpp"

#include <cctype>
#include <variant>

#include "claim_checks.hpp"

namespace flopcast::claims {
namespace detail {

const ScenarioOutcome& EvalContext::run(const ScenarioRef& ref) {
  const std::string key = ref.key();
  auto it = runs_.find(key);
  if (it == runs_.end()) it = runs_.emplace(key, runner_ ? runner_(ref) : ScenarioOutcome{}).first;
  if (!runner_ && it->second.problems.empty())
    it->second.problems.push_back("no scenario runner: this front cannot simulate scenarios");
  return it->second;
}

std::vector<std::string> EvalContext::rate_claims_of(const std::string& catalog, const std::string& plan_id) const {
  std::vector<std::string> ids;
  for (const Claim& c : file_.claims) {
    const auto* p = std::get_if<PriceNeeds>(&c.needs);
    if (p == nullptr || p->figure != PriceFigure::Rate || !p->catalog || p->catalog->name != catalog) continue;
    for (const PriceOption& o : p->options)
      if (o.plan != nullptr && o.plan->id == plan_id) ids.push_back(c.id);
  }
  return ids;
}

void settle(Verdict& v, const Claim& c, const std::string& arithmetic) {
  if (c.relies_on.empty()) return;
  const bool disagrees = v.kind == VerdictKind::Optimistic || v.kind == VerdictKind::Pessimistic ||
                         (v.kind == VerdictKind::Impossible && v.reason.empty());
  if (!disagrees) return;
  v.kind = VerdictKind::Contradicts;
  v.percent = 0.0;
  v.others = c.relies_on;
  v.reason = arithmetic;
}

Verdict cannot_judge(std::string why) {
  Verdict v;
  v.kind = VerdictKind::CannotJudge;
  v.reason = std::move(why);
  return v;
}

bool cites_source(const std::string& catalog_source, const std::string& claim_source) {
  if (claim_source.empty()) return false;
  auto word_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_'; };
  for (std::size_t at = catalog_source.find(claim_source); at != std::string::npos;
       at = catalog_source.find(claim_source, at + 1)) {
    const std::size_t end = at + claim_source.size();
    const bool starts = at == 0 || !word_char(catalog_source[at - 1]);
    const bool ends = end == catalog_source.size() || !word_char(catalog_source[end]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace detail

ClaimsReport evaluate_claims(const ClaimsFile& file, const ScenarioRunner& runner) {
  ClaimsReport report;
  report.file = file.file;
  report.title = file.title;
  detail::EvalContext ctx(file, runner);
  for (const Claim& c : file.claims) {
    ClaimResult r;
    r.id = c.id;
    r.kind = c.kind;
    r.figure = c.figure;
    r.quote = c.quote;
    r.source = c.source;
    r.where = c.where;
    r.reading = c.note;
    if (c.claimed) r.claimed = c.claimed->text;
    r.verdict = std::visit(
        [&](const auto& needs) -> Verdict {
          using T = std::decay_t<decltype(needs)>;
          if constexpr (std::is_same_v<T, TrainingNeeds>)
            return detail::judge_training(c, needs, ctx, r.claimed);
          else if constexpr (std::is_same_v<T, PriceNeeds>)
            return detail::judge_price(c, needs, ctx);
          else if constexpr (std::is_same_v<T, CollectiveNeeds>)
            return detail::judge_collective(c, needs);
          else if constexpr (std::is_same_v<T, HardwareNeeds>)
            return detail::judge_hardware(c, needs);
          else if constexpr (std::is_same_v<T, EnergyNeeds>)
            return detail::judge_energy(c, needs);
          else
            return detail::judge_checkpoint(c, needs);
        },
        c.needs);
    report.results.push_back(std::move(r));
  }
  return report;
}

}  // namespace flopcast::claims

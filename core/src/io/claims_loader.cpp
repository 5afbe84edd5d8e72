#include "flopcast/io/claims_loader.hpp"

#include <algorithm>
#include <set>

#include "claims_loader_detail.hpp"
#include "flopcast/io/scenario_loader.hpp"

namespace flopcast::io {
namespace {

using namespace claims;
using claims_detail::FigureRule;
using claims_detail::Loader;
using detail::child;
using detail::describe;
using detail::did_you_mean;
using detail::join;

std::vector<std::string> kind_names() {
  return {"training", "price", "collective", "hardware", "energy", "checkpoint"};
}

/// "a time", "an amount of money".
std::string with_article(const std::string& noun) {
  const bool vowel = !noun.empty() && std::string("aeiou").find(noun.front()) != std::string::npos;
  return (vowel ? "an " : "a ") + noun;
}

/// The claimed value, checked against the figure's dimension.
bool read_claimed(Loader& l, const YAML::Node& node, const std::string& key, const FigureRule& rule,
                  std::optional<ClaimedValue>& out) {
  const auto text = l.r.string(node, key);
  if (!text) return false;
  if (rule.dims.empty()) {  // free text (software versions): carried, not parsed
    ClaimedValue v;
    v.text = *text;
    out = v;
    return true;
  }
  const auto v = parse_claimed_value(*text);
  if (!v) {
    l.error(node, key, "cannot read '" + *text + "' as a figure", std::string("write e.g. ") + rule.example);
    return false;
  }
  if (std::find(rule.dims.begin(), rule.dims.end(), v->dimension) == rule.dims.end()) {
    std::vector<std::string> wanted;
    for (Dimension d : rule.dims) wanted.push_back(to_string(d));
    l.error(node, key,
            "'" + *text + "' is " + with_article(to_string(v->dimension)) + ", but figure '" + rule.name + "' needs " +
                with_article(join(wanted, " or ")),
            std::string("write e.g. ") + rule.example);
    return false;
  }
  out = v;
  return true;
}

/// One claim; nullopt (with diagnostics) when it is bad input.
std::optional<Claim> read_claim(Loader& l, const YAML::Node& n, std::size_t index, std::set<std::string>& ids) {
  Claim c;
  c.where = detail::loc_of(n, l.r.file());
  std::string key = "claims[" + std::to_string(index) + "]";
  if (!n.IsMap()) {
    l.error(n, key, "expected a claim (a mapping with id, kind, quote, ...), got " + describe(n),
            "see docs/claims.md for the format");
    return std::nullopt;
  }
  if (n["id"] && n["id"].IsScalar() && !n["id"].Scalar().empty()) {
    c.id = n["id"].Scalar();
    key = "claims." + c.id;
  }
  const std::size_t before = l.r.diags().items().size();
  l.r.check_keys(n, key, {"id", "kind", "quote", "source", "figure", "claimed", "relies_on", "note", "needs"});
  if (c.id.empty())
    l.missing(n, key, "id", "a unique name for the claim, e.g. id: a100-hourly-price");
  else if (!ids.insert(c.id).second)
    l.error(n["id"], child(key, "id"), "duplicate claim id '" + c.id + "'", "give every claim its own id");
  std::optional<ClaimKind> kind;
  if (!n["kind"]) {
    l.missing(n, key, "kind", "one of " + join(kind_names()));
  } else if (const auto k = l.r.string(n["kind"], child(key, "kind"))) {
    kind = parse_claim_kind(*k);
    if (!kind) {
      std::string hint = "expected one of: " + join(kind_names());
      if (auto m = did_you_mean(*k, kind_names())) hint = "did you mean '" + *m + "'? (" + hint + ")";
      l.error(n["kind"], child(key, "kind"), "unknown claim kind '" + *k + "'", hint);
    }
  }
  if (!n["quote"]) l.missing(n, key, "quote", "the claim as its source words it, in quotes");
  if (n["quote"]) c.quote = l.r.string(n["quote"], child(key, "quote")).value_or("");
  if (n["source"])
    c.source = l.r.string(n["source"], child(key, "source")).value_or("");
  else if (!l.default_source.empty())
    c.source = l.default_source;
  else
    l.missing(n, key, "source", "a key of docs/references.md or a citation, e.g. source: SEED");
  if (n["note"]) c.note = l.r.string(n["note"], child(key, "note")).value_or("");
  if (const auto rel = n["relies_on"]) {
    if (!rel.IsSequence()) {
      l.error(rel, child(key, "relies_on"), "expected a list of claim ids, got " + describe(rel),
              "e.g. relies_on: [a100-hourly-price]");
    } else {
      for (const auto& x : rel) c.relies_on.push_back(x.IsScalar() ? x.Scalar() : "");
    }
  }
  if (!kind) return std::nullopt;
  c.kind = *kind;
  const auto& rules = claims_detail::figure_rules().at(c.kind);
  const FigureRule* rule = nullptr;
  if (!n["figure"]) {
    std::vector<std::string> names;
    for (const auto& r : rules) names.push_back(r.name);
    l.missing(n, key, "figure", "what the " + std::string(to_string(c.kind)) + " claim states: one of " + join(names));
  } else if (const auto f = l.r.string(n["figure"], child(key, "figure"))) {
    for (const auto& r : rules)
      if (*f == r.name) rule = &r;
    if (rule == nullptr) {
      std::vector<std::string> names;
      for (const auto& r : rules) names.push_back(r.name);
      std::string hint = "figures of a " + std::string(to_string(c.kind)) + " claim: " + join(names);
      if (auto m = did_you_mean(*f, names)) hint = "did you mean '" + *m + "'? (" + hint + ")";
      l.error(n["figure"], child(key, "figure"), "unknown figure '" + *f + "'", hint);
    } else {
      c.figure = *f;
    }
  }
  if (rule == nullptr) return std::nullopt;
  if (c.kind == ClaimKind::Training && n["claimed"]) {
    l.error(n["claimed"], child(key, "claimed"), "a training claim takes its claimed figure from the scenario",
            "write the figure in the scenario's claimed: block and drop it here");
  } else if (n["claimed"]) {
    read_claimed(l, n["claimed"], child(key, "claimed"), *rule, c.claimed);
  } else if (!rule->dims.empty()) {
    l.missing(n, key, "claimed", std::string("the claimed figure, e.g. claimed: ") + rule->example);
  }
  if (!n["needs"]) {
    l.missing(n, key, "needs", "what judging the claim needs (see docs/claims.md for each kind)");
  } else {
    if (auto needs = claims_detail::read_needs(l, c.kind, c.figure, n["needs"], child(key, "needs"), c.claimed))
      c.needs = std::move(*needs);
  }
  for (std::size_t i = before; i < l.r.diags().items().size(); ++i)
    if (l.r.diags().items()[i].severity == scenario::Severity::Error) return std::nullopt;
  return c;
}

/// relies_on names claims of the file, never the claim itself; a claim naming an unknown one is
/// rejected.
void check_relies_on(Loader& l, const YAML::Node& list, ClaimsFile& out, const std::set<std::string>& ids) {
  std::vector<std::string> all(ids.begin(), ids.end());
  std::vector<Claim> kept;
  for (Claim& c : out.claims) {
    bool ok = true;
    for (const std::string& id : c.relies_on) {
      if (id != c.id && ids.count(id)) continue;
      YAML::Node at;  // yaml-cpp: `node = other` assigns contents; reset() rebinds the handle
      at.reset(list);
      for (const auto& n : list)
        if (n.IsMap() && n["id"] && n["id"].IsScalar() && n["id"].Scalar() == c.id) at.reset(n["relies_on"]);
      std::string hint = id == c.id ? "a claim cannot rely on itself" : "relies_on names other claims of this file";
      if (id != c.id)
        if (auto m = did_you_mean(id, all)) hint = "did you mean '" + *m + "'?";
      l.error(at, "claims." + c.id + ".relies_on", "no claim '" + id + "' in this file", hint);
      ok = false;
    }
    if (ok)
      kept.push_back(std::move(c));
    else
      out.rejected.emplace_back(c.id, c.where);
  }
  out.claims = std::move(kept);
}

YAML::Node parse_yaml(const std::string& text, const std::string& file, scenario::Diagnostics& diags) {
  return detail::load_yaml(text, file, diags);
}

}  // namespace

std::optional<ClaimsFile> parse_claims_file(const std::string& text, const std::string& file, const Catalog& catalog,
                                            const std::string& data_dir, scenario::Diagnostics& diags) {
  const YAML::Node root = parse_yaml(text, file, diags);
  if (!root.IsDefined()) return std::nullopt;
  const char* format_hint = "see docs/claims.md and scenarios/seed-claims/claims.yaml for the format";
  if (root.IsNull()) {
    diags.error({file, 1, 1}, "", "the file is empty", format_hint);
    return std::nullopt;
  }
  if (!root.IsMap()) {
    diags.error(detail::loc_of(root, file), "", "a claims file must be a YAML mapping", format_hint);
    return std::nullopt;
  }
  detail::Reader reader(file, diags, nullptr);
  Loader l{reader, catalog, data_dir, std::filesystem::path(file).parent_path(), {}, {}, {}};
  reader.check_keys(root, "", {"title", "source", "catalog", "claims"});
  ClaimsFile out;
  out.file = file;
  try {
    if (root["title"]) out.title = reader.string(root["title"], "title").value_or("");
    if (root["source"]) l.default_source = reader.string(root["source"], "source").value_or("");
    if (root["catalog"]) l.default_catalog = reader.string(root["catalog"], "catalog").value_or("");
    const YAML::Node list = root["claims"];
    if (!list || !list.IsSequence() || list.size() == 0) {
      diags.error(detail::loc_of(list ? list : root, file), "claims",
                  list ? "expected a list of claims, got " + describe(list) : "missing required key 'claims'",
                  format_hint);
      return std::nullopt;
    }
    std::set<std::string> ids;
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto c = read_claim(l, list[i], i, ids);
      if (c)
        out.claims.push_back(std::move(*c));
      else
        out.rejected.emplace_back(list[i].IsMap() && list[i]["id"] ? list[i]["id"].as<std::string>("") : "",
                                  detail::loc_of(list[i], file));
    }
    check_relies_on(l, list, out, ids);
  } catch (const YAML::Exception& e) {
    diags.error({file, e.mark.line + 1, e.mark.column + 1}, "", std::string("invalid value: ") + e.msg);
    return std::nullopt;
  }
  return out;
}

std::optional<ClaimsFile> load_claims_file(const std::string& path, const Catalog& catalog, const std::string& data_dir,
                                           scenario::Diagnostics& diags) {
  const auto text = read_text_file(path, diags);
  if (!text) return std::nullopt;
  return parse_claims_file(*text, path, catalog, data_dir, diags);
}

}  // namespace flopcast::io

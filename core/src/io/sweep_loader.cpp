#include "flopcast/io/sweep_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "flopcast/io/scenario_loader.hpp"
#include "yaml_util.hpp"

namespace flopcast::io {
namespace {

/// Most values one axis may have (a range that is a typo stops here, not in memory).
constexpr std::int64_t kMaxAxisValues = 1'000'000;

std::string value_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

/// A dotted key: non-empty parts of letters, digits and '_'.
bool valid_key(const std::string& k) {
  if (k.empty() || k.front() == '.' || k.back() == '.') return false;
  for (std::size_t i = 0; i < k.size(); ++i) {
    const char c = k[i];
    if (c == '.' && k[i - 1] == '.') return false;
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
  }
  return true;
}

std::string format_number(double v) {
  if (std::fabs(v) < 9e15 && v == std::floor(v)) return fmt::format("{}", static_cast<std::int64_t>(v));
  return fmt::format("{}", v);
}

/// A `zip:` axis: its keys' lists taken side by side.
bool read_zip_axis(const YAML::Node& item, const std::string& file, const std::string& path, scenario::Diagnostics& d,
                   SweepAxis& axis) {
  const auto z = item["zip"];
  if (item["key"] || item["values"] || item["range"]) {
    d.error(axis.where, path, "an axis has either 'zip' or 'key' with 'values'/'range', not both");
    return false;
  }
  if (!z.IsMap() || z.size() == 0) {
    d.error(detail::loc_of(z, file), path + ".zip", "zip must map keys to lists of equal length",
            "e.g. zip: {parallel.tp: [1, 2], parallel.sequence_parallel: [false, true]}");
    return false;
  }
  axis.zipped = true;
  std::size_t len = 0;
  std::string first_key;
  std::vector<std::vector<std::string>> columns;
  std::vector<std::vector<scenario::SourceLocation>> columns_where;
  for (const auto& kv : z) {
    const std::string k = kv.first.as<std::string>();
    const scenario::SourceLocation at = detail::loc_of(kv.second, file);
    if (!valid_key(k)) {
      d.error(detail::loc_of(kv.first, file), path + ".zip", "'" + k + "' is not a scenario key",
              "use a dotted key such as parallel.tp or cluster.gpus");
      return false;
    }
    if (!kv.second.IsSequence() || kv.second.size() == 0) {
      d.error(at, path + ".zip." + k, "expected a non-empty list of values", "e.g. [1, 2, 4]");
      return false;
    }
    if (columns.empty()) {
      len = kv.second.size();
      first_key = k;
    } else if (kv.second.size() != len) {
      d.error(at, path + ".zip." + k,
              fmt::format("has {} values but {} has {}: zipped lists are taken side by side", kv.second.size(),
                          first_key, len),
              "give every zipped key the same number of values");
      return false;
    }
    axis.keys.push_back(k);
    axis.key_where.push_back(detail::loc_of(kv.first, file));
    std::vector<std::string> col;
    std::vector<scenario::SourceLocation> col_where;
    for (const auto& v : kv.second) {
      col.push_back(value_text(v));
      col_where.push_back(detail::loc_of(v, file));
    }
    columns.push_back(std::move(col));
    columns_where.push_back(std::move(col_where));
  }
  for (std::size_t i = 0; i < len; ++i) {
    std::vector<std::string> row;
    std::vector<scenario::SourceLocation> row_where;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      row.push_back(columns[c][i]);
      row_where.push_back(columns_where[c][i]);
    }
    axis.values.push_back(std::move(row));
    axis.value_where.push_back(std::move(row_where));
  }
  return true;
}

bool read_axis(const YAML::Node& item, const std::string& file, std::size_t index, scenario::Diagnostics& d,
               SweepAxis& axis) {
  const std::string path = fmt::format("axes[{}]", index);
  axis.where = detail::loc_of(item, file);
  if (!item.IsMap()) {
    d.error(
        axis.where, path, "an axis must be a map",
        "write '- key: parallel.tp' with 'values: [...]' or 'range: {from, to, step}', or '- zip: {key: [...], ...}'");
    return false;
  }
  for (const auto& kv : item) {
    const std::string k = kv.first.as<std::string>();
    if (k != "key" && k != "values" && k != "range" && k != "zip") {
      std::string hint = "allowed: key, values, range, zip";
      if (auto dm = detail::did_you_mean(k, {"key", "values", "range", "zip"})) hint = "did you mean '" + *dm + "'?";
      d.error(detail::loc_of(kv.first, file), detail::child(path, k), "unknown key '" + k + "'", hint);
      return false;
    }
  }
  if (item["zip"]) return read_zip_axis(item, file, path, d, axis);
  const auto key = item["key"];
  if (!key || !key.IsScalar() || !valid_key(key.Scalar())) {
    d.error(key ? detail::loc_of(key, file) : axis.where, path + ".key",
            key ? "'" + detail::describe(key) + "' is not a scenario key" : "missing 'key'",
            "name the swept scenario key, e.g. key: parallel.tp");
    return false;
  }
  axis.keys.push_back(key.Scalar());
  axis.key_where.push_back(detail::loc_of(key, file));
  const std::string kp = path + " (" + key.Scalar() + ")";
  if (item["values"] && item["range"]) {
    d.error(axis.where, kp, "give either 'values' or 'range', not both");
    return false;
  }
  if (const auto v = item["values"]) {
    if (!v.IsSequence() || v.size() == 0) {
      d.error(detail::loc_of(v, file), kp + ".values", "expected a non-empty list", "e.g. values: [1, 2, 4]");
      return false;
    }
    for (const auto& x : v) {
      axis.values.push_back({value_text(x)});
      axis.value_where.push_back({detail::loc_of(x, file)});
    }
    return true;
  }
  const auto r = item["range"];
  if (!r) {
    d.error(axis.where, kp, "missing 'values' or 'range'",
            "e.g. values: [64, 128] or range: {from: 64, to: 512, step: 64}");
    return false;
  }
  if (!r.IsMap()) {
    d.error(detail::loc_of(r, file), kp + ".range", "range must be a map",
            "range: {from: 64, to: 512, step: 64} or {from: 64, to: 1024, factor: 2}");
    return false;
  }
  detail::Reader rd(file, d, nullptr);
  rd.check_keys(r, kp + ".range", {"from", "to", "step", "factor"});
  if (!r["from"] || !r["to"]) {
    d.error(detail::loc_of(r, file), kp + ".range", "range needs 'from' and 'to'",
            "range: {from: 64, to: 512, step: 64}");
    return false;
  }
  const auto from = rd.number(r["from"], kp + ".range.from", -1e15, 1e15);
  const auto to = rd.number(r["to"], kp + ".range.to", -1e15, 1e15);
  if (!from || !to) return false;
  if (r["step"].IsDefined() == r["factor"].IsDefined()) {
    d.error(detail::loc_of(r, file), kp + ".range", "range needs exactly one of 'step' or 'factor'",
            "step adds (64, 128, 192, ...), factor multiplies (64, 128, 256, ...)");
    return false;
  }
  if (*to < *from) {
    d.error(detail::loc_of(r["to"], file), kp + ".range.to", fmt::format("to ({}) is below from ({})", *to, *from),
            "ranges count upwards");
    return false;
  }
  if (r["step"]) {
    const auto step = rd.number(r["step"], kp + ".range.step", 1e-12, 1e15);
    if (!step) return false;
    const double count = std::floor((*to - *from) / *step + 1e-9) + 1;
    if (count > static_cast<double>(kMaxAxisValues)) {
      d.error(detail::loc_of(r["step"], file), kp + ".range.step",
              fmt::format("the range has {:.0f} values, more than {}", count, kMaxAxisValues), "use a larger step");
      return false;
    }
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i)
      axis.values.push_back({format_number(*from + static_cast<double>(i) * *step)});
  } else {
    const auto factor = rd.number(r["factor"], kp + ".range.factor", 1.0 + 1e-9, 1e6);
    if (!factor) return false;
    if (*from <= 0) {
      d.error(detail::loc_of(r["from"], file), kp + ".range.from", "a range with a factor must start above 0");
      return false;
    }
    for (double x = *from; x <= *to * (1 + 1e-12); x *= *factor) axis.values.push_back({format_number(x)});
  }
  return true;
}

/// Appends the leaves of `n` at `path` to `out` as (dotted key, value), skipping `skip` (the
/// swept keys) and what lies under them.
void flatten(const YAML::Node& n, const std::string& path, const std::set<std::string>& skip,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (skip.count(path)) return;
  if (n.IsMap()) {
    if (n.size() == 0) out.emplace_back(path, "{}");
    for (const auto& kv : n)
      flatten(kv.second, detail::child(path, kv.first.IsScalar() ? kv.first.Scalar() : value_text(kv.first)), skip,
              out);
  } else if (n.IsSequence()) {
    if (n.size() == 0) out.emplace_back(path, "[]");
    for (std::size_t i = 0; i < n.size(); ++i) flatten(n[i], fmt::format("{}[{}]", path, i), skip, out);
  } else {
    out.emplace_back(path, n.IsScalar() ? n.Scalar() : "null");
  }
}

/// The did-you-mean of a swept key from the scenario loader's "unknown key" diagnostic `e` (at
/// key path `unknown`, the swept key itself or a section above it): the whole dotted key with the
/// unknown part replaced ("parallel.micro_batch"), else the loader's own hint.
std::string swept_key_hint(const std::string& key, const std::string& unknown, const scenario::Diagnostic& e) {
  const std::string lead = "did you mean '";
  if (e.hint.rfind(lead, 0) == 0 && e.hint.size() > lead.size() + 2) {
    const std::string word = e.hint.substr(lead.size(), e.hint.find('\'', lead.size()) - lead.size());
    const std::size_t dot = unknown.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : unknown.substr(0, dot + 1);
    return "did you mean '" + parent + word + key.substr(unknown.size()) + "'?";
  }
  return e.hint;
}

}  // namespace

std::int64_t SweepSpec::points() const {
  std::int64_t n = 1;
  for (const auto& a : axes) n *= static_cast<std::int64_t>(a.size());
  return n;
}

std::vector<std::pair<std::string, std::string>> SweepSpec::point_values(std::int64_t index) const {
  std::vector<std::size_t> pick(axes.size(), 0);
  for (std::size_t i = axes.size(); i-- > 0;) {
    const auto n = static_cast<std::int64_t>(axes[i].size());
    pick[i] = static_cast<std::size_t>(index % n);
    index /= n;
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t k = 0; k < axes[i].keys.size(); ++k) out.emplace_back(axes[i].keys[k], axes[i].values[pick[i]][k]);
  return out;
}

std::vector<std::string> SweepSpec::keys() const {
  std::vector<std::string> out;
  for (const auto& a : axes) out.insert(out.end(), a.keys.begin(), a.keys.end());
  return out;
}

std::optional<SweepSpec> parse_sweep(const std::string& text, const std::string& file, scenario::Diagnostics& d) {
  const YAML::Node root = detail::load_yaml(text, file, d);
  if (!root.IsDefined()) return std::nullopt;
  const std::size_t before = d.items().size();
  auto failed = [&] {
    for (std::size_t i = before; i < d.items().size(); ++i)
      if (d.items()[i].severity == scenario::Severity::Error) return true;
    return false;
  };
  if (!root.IsMap()) {
    d.error({file, 1, 1}, "", root.IsNull() ? "the sweep file is empty" : "a sweep file must be a map",
            "give 'base: SCENARIO.yaml' (or 'scenario: {...}') and 'axes: [...]'; see scenarios/sweeps/");
    return std::nullopt;
  }
  SweepSpec spec;
  spec.file = file;
  YAML::Node base;  // the base scenario, for base_values
  try {
    detail::Reader rd(file, d, nullptr);
    rd.check_keys(root, "", {"name", "description", "base", "scenario", "axes"});
    if (root["base"] && root["scenario"]) {
      d.error(detail::loc_of(root["scenario"], file), "scenario",
              "give either 'base' (a file) or 'scenario' (inline), not both");
    } else if (const auto b = root["base"]) {
      if (!b.IsScalar() || b.Scalar().empty()) {
        d.error(detail::loc_of(b, file), "base", "expected the path of a scenario file",
                "e.g. base: ../quickstart.yaml");
      } else {
        std::filesystem::path p(b.Scalar());
        if (p.is_relative()) p = std::filesystem::path(file).parent_path() / p;
        spec.base_file = p.lexically_normal().string();
        scenario::Diagnostics rdiags;
        if (auto t = read_text_file(spec.base_file, rdiags)) {
          spec.base_text = *t;
          const auto n = detail::load_yaml(spec.base_text, spec.base_file, d);
          base = n;
          if (n.IsDefined() && !n.IsMap())
            d.error(detail::loc_of(b, file), "base", "'" + spec.base_file + "' is not a scenario (not a YAML map)");
        } else {
          d.error(detail::loc_of(b, file), "base", "cannot read the base scenario '" + spec.base_file + "'",
                  "the path is relative to the sweep file's folder");
        }
      }
    } else if (const auto s = root["scenario"]) {
      if (!s.IsMap())
        d.error(detail::loc_of(s, file), "scenario", "expected the base scenario as a map");
      else
        spec.base_text = YAML::Dump(s);
      base = s;
    } else {
      d.error({file, 1, 1}, "base", "missing the base scenario", "add 'base: SCENARIO.yaml' or 'scenario: {...}'");
    }
    const auto axes = root["axes"];
    if (!axes) {
      d.error({file, 1, 1}, "axes", "missing 'axes'",
              "list the swept keys, e.g. axes: [{key: parallel.tp, values: [1, 2, 4]}]");
    } else if (!axes.IsSequence()) {
      d.error(detail::loc_of(axes, file), "axes", "axes must be a list",
              "axes:\n  - key: parallel.tp\n    values: [1, 2, 4]");
    } else {
      std::set<std::string> seen;
      double points = 1;
      for (std::size_t i = 0; i < axes.size(); ++i) {
        SweepAxis a;
        if (!read_axis(axes[i], file, i, d, a)) continue;
        for (const auto& k : a.keys) {
          if (!seen.insert(k).second)
            d.error(a.where, fmt::format("axes[{}]", i), "key '" + k + "' is swept twice",
                    "sweep each key on one axis (zip keys that change together)");
        }
        points *= static_cast<double>(a.size());
        spec.axes.push_back(std::move(a));
      }
      if (points > static_cast<double>(kMaxSweepPoints))
        d.error(detail::loc_of(axes, file), "axes",
                fmt::format("the sweep has {:.0f} points, more than {}", points, kMaxSweepPoints),
                "split it into several sweeps or coarsen a range");
    }
  } catch (const YAML::Exception& e) {
    d.error({file, e.mark.line + 1, e.mark.column + 1}, "", std::string("invalid value: ") + e.msg);
    return std::nullopt;
  }
  if (failed()) return std::nullopt;
  // The swept keys' base values are never used; a scenario's name and description are its title
  // and prose, in no figure of a row.
  std::set<std::string> skip = {"name", "description"};
  for (const auto& k : spec.keys()) skip.insert(k);
  flatten(base, "", skip, spec.base_values);
  std::sort(spec.base_values.begin(), spec.base_values.end());
  return spec;
}

std::optional<SweepSpec> load_sweep_file(const std::string& path, scenario::Diagnostics& diags) {
  const auto text = read_text_file(path, diags);
  if (!text) return std::nullopt;
  return parse_sweep(*text, path, diags);
}

namespace {

/// The problems of the base scenario with `values` set; nullopt when the base does not parse or a
/// value cannot be set (the points report those).
std::optional<scenario::Diagnostics> problems_with(const SweepSpec& spec, const Catalog& catalog,
                                                   const std::vector<std::pair<std::string, std::string>>& values) {
  YAML::Node root;
  try {
    root = YAML::Load(spec.base_text);
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  for (const auto& [key, value] : values)
    if (!detail::set_key(root, key, value)) return std::nullopt;
  scenario::Diagnostics inner;
  (void)scenario_from_node(root, spec.base_file.empty() ? spec.file : spec.base_file, catalog, inner);
  return inner;
}

/// Whether `e` says a value cannot be read at all (a word where a number goes, a choice the key
/// does not have, a GPU or model the catalog does not know): no other key's value can make it right.
bool unreadable_value(const scenario::Diagnostic& e) {
  const auto starts = [&e](const char* s) { return e.message.rfind(s, 0) == 0; };
  return e.severity == scenario::Severity::Error &&
         (starts("expected ") || starts("unknown value '") || starts("unknown GPU '") ||
          starts("unknown model preset '") || starts("unknown fabric '"));
}

/// Each value written in the sweep file, with the other axes at their first value: one its key
/// cannot read is an error at the value's line. A range's values (numbers flopcast wrote, up to
/// kMaxAxisValues of them) are left to the points, and so are `auto` and `young_daly`, which are
/// resolved per point.
bool check_sweep_values(const SweepSpec& spec, const Catalog& catalog, scenario::Diagnostics& d) {
  bool ok = true;
  const auto first = spec.point_values(0);
  for (std::size_t ai = 0, at = 0; ai < spec.axes.size(); at += spec.axes[ai].keys.size(), ++ai) {
    const SweepAxis& axis = spec.axes[ai];
    for (std::size_t i = 0; i < axis.value_where.size(); ++i) {
      auto values = first;
      bool resolved_later = false;
      for (std::size_t k = 0; k < axis.keys.size(); ++k) {
        values[at + k].second = axis.values[i][k];
        resolved_later = resolved_later || axis.values[i][k] == "auto" || axis.values[i][k] == "young_daly";
      }
      const auto inner = resolved_later ? std::nullopt : problems_with(spec, catalog, values);
      for (std::size_t k = 0; inner && k < axis.keys.size(); ++k) {
        const auto bad = std::find_if(inner->items().begin(), inner->items().end(),
                                      [&](const auto& e) { return e.key == axis.keys[k] && unreadable_value(e); });
        if (bad == inner->items().end()) continue;
        const bool located = k < axis.value_where[i].size();
        d.error(located ? axis.value_where[i][k] : axis.key_where[k], fmt::format("axes[{}] ({})", ai, axis.keys[k]),
                fmt::format("value {} '{}': {}", i + 1, axis.values[i][k], bad->message), bad->hint);
        ok = false;
      }
    }
  }
  return ok;
}

}  // namespace

bool check_sweep_keys(const SweepSpec& spec, const Catalog& catalog, scenario::Diagnostics& d) {
  if (spec.axes.empty()) return true;
  const auto point0 = problems_with(spec, catalog, spec.point_values(0));
  if (!point0) return true;  // the points report it
  const scenario::Diagnostics& inner = *point0;
  bool ok = true;
  for (std::size_t ai = 0; ai < spec.axes.size(); ++ai) {
    const SweepAxis& axis = spec.axes[ai];
    for (std::size_t k = 0; k < axis.keys.size(); ++k) {
      const std::string& key = axis.keys[k];
      for (const auto& e : inner.items()) {
        const bool above = e.key == key || key.rfind(e.key + ".", 0) == 0;
        if (e.severity != scenario::Severity::Error || !above || e.message.rfind("unknown key '", 0) != 0) continue;
        d.error(k < axis.key_where.size() ? axis.key_where[k] : axis.where,
                fmt::format("axes[{}].{}", ai, axis.zipped ? "zip" : "key"), "unknown scenario key '" + key + "'",
                swept_key_hint(key, e.key, e));
        ok = false;
        break;
      }
    }
  }
  return ok && check_sweep_values(spec, catalog, d);
}

std::optional<scenario::Scenario> sweep_point_scenario(const SweepSpec& spec, std::int64_t index,
                                                       const Catalog& catalog, scenario::Diagnostics& d,
                                                       std::vector<std::string>* used) {
  const auto values = spec.point_values(index);
  if (used) {
    used->clear();
    // An `auto` (or checkpoint_interval's `young_daly`) is resolved below or by the caller.
    for (const auto& [k, v] : values) used->push_back(v == "auto" || v == "young_daly" ? "" : v);
  }
  std::string what;
  for (const auto& [k, v] : values) what += (what.empty() ? "" : ", ") + k + "=" + v;
  const std::string base_name = spec.base_file.empty() ? spec.file : spec.base_file;
  scenario::SourceLocation where{spec.file, 0, 0};
  if (!spec.axes.empty()) where = spec.axes.front().where;
  YAML::Node root;
  try {
    root = YAML::Load(spec.base_text);
  } catch (const YAML::Exception& e) {
    d.error({base_name, e.mark.line + 1, e.mark.column + 1}, "", "malformed YAML: " + e.msg);
    return std::nullopt;
  }
  for (std::size_t ai = 0, vi = 0; ai < spec.axes.size(); ++ai) {
    for (std::size_t k = 0; k < spec.axes[ai].keys.size(); ++k, ++vi) {
      if (!detail::set_key(root, values[vi].first, values[vi].second)) {
        d.error(spec.axes[ai].where, values[vi].first,
                "cannot set '" + values[vi].first + "': a part of it is a value or list in the base scenario",
                "sweep the enclosing key instead");
        return std::nullopt;
      }
    }
  }
  // parallel.dp: auto -> gpus / (tp * pp * cp).
  try {
    auto par = root["parallel"];
    if (par && par.IsMap() && par["dp"] && par["dp"].IsScalar() && par["dp"].Scalar() == "auto") {
      auto num = [](const YAML::Node& n, std::int64_t dflt) { return n && n.IsScalar() ? n.as<std::int64_t>() : dflt; };
      const std::int64_t gpus = root["cluster"] && root["cluster"].IsMap() ? num(root["cluster"]["gpus"], 0) : 0;
      const std::int64_t tp = num(par["tp"], 1), pp = num(par["pp"], 1), cp = num(par["cp"], 1);
      for (const auto& [name, degree] : {std::pair{"tp", tp}, std::pair{"pp", pp}, std::pair{"cp", cp}}) {
        if (degree < 1) {
          d.error(where, std::string("parallel.") + name,
                  fmt::format("point {} ({}): {} = {} (dp auto divides cluster.gpus by tp*pp*cp)", index, what, name,
                              degree),
                  "parallel degrees are at least 1");
          return std::nullopt;
        }
      }
      // Degrees come from the user's file: a product past int64 (tp: 8888888888888888888) is an
      // error like any other shape that does not divide the GPUs, not undefined behaviour.
      std::int64_t shape = 0;
      const bool overflow = __builtin_mul_overflow(tp, pp, &shape) || __builtin_mul_overflow(shape, cp, &shape);
      if (overflow || gpus <= 0 || gpus % shape != 0) {
        const std::string product =
            overflow ? fmt::format("{}*{}*{} (beyond 64 bits)", tp, pp, cp) : std::to_string(shape);
        d.error(where, "parallel.dp",
                fmt::format("point {} ({}): dp auto needs tp*pp*cp = {} to divide cluster.gpus = {}", index, what,
                            product, gpus),
                "restrict the axes so every GPU count is a multiple of tp*pp*cp");
        return std::nullopt;
      }
      par["dp"] = gpus / shape;
      if (used)
        for (std::size_t i = 0; i < values.size(); ++i)
          if (values[i].first == "parallel.dp") (*used)[i] = std::to_string(gpus / shape);
    }
  } catch (const YAML::Exception& e) {
    d.error(where, "parallel", fmt::format("point {} ({}): {}", index, what, e.msg));
    return std::nullopt;
  }
  scenario::Diagnostics inner;
  auto s = scenario_from_node(root, base_name, catalog, inner);
  if (!s) {
    d.error(where, "", fmt::format("point {} ({}) is not a valid scenario", index, what),
            "the problems follow; restrict the axes or fix the base");
    d.append(inner);
    return std::nullopt;
  }
  return s;
}

}  // namespace flopcast::io

#include "flopcast/sweep/sweep_meta.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace flopcast::sweep {
namespace {

using Json = nlohmann::ordered_json;

/// The oldest sidecar format read (1: flopcast 0.6, a hash of the base scenario's text only).
constexpr int kOldestSidecarFormat = 1;

const char* type_name(CellType t) {
  switch (t) {
    case CellType::Integer:
      return "integer";
    case CellType::Number:
      return "number";
    case CellType::Boolean:
      return "boolean";
    case CellType::Text:
      return "text";
    case CellType::Value:
      return "value";
  }
  return "text";
}

std::optional<CellType> type_of(const std::string& s) {
  for (const CellType t : {CellType::Integer, CellType::Number, CellType::Boolean, CellType::Text, CellType::Value})
    if (s == type_name(t)) return t;
  return std::nullopt;
}

/// "parallel.tp (4 values) x parallel.pp (3 values)"; zipped keys joined with '+'.
std::string axes_words(const std::vector<AxisValues>& axes) {
  if (axes.empty()) return "none";
  std::string out;
  for (const auto& a : axes) {
    std::string keys;
    for (const auto& k : a.keys) keys += (keys.empty() ? "" : "+") + k;
    out += fmt::format("{}{} ({} value{})", out.empty() ? "" : " x ", keys, a.values.size(),
                       a.values.size() == 1 ? "" : "s");
  }
  return out;
}

/// "[1, 2, 4]" (zipped values as "1/false"), cut after 12 values.
std::string values_words(const AxisValues& a) {
  std::string out = "[";
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (i == 12) {
      out += fmt::format(", ... {} more", a.values.size() - 12);
      break;
    }
    std::string v;
    for (const auto& x : a.values[i]) v += (v.empty() ? "" : "/") + x;
    out += (i ? ", " : "") + v;
  }
  return out + "]";
}

Json column_json(const Column& c) {
  Json j = {{"name", c.name}, {"type", type_name(c.type)}};
  if (c.better != Better::None) j["better"] = better_name(c.better);
  if (c.compare) j["compare"] = true;
  return j;
}

/// The sidecar's fields into `m`; "" or what is wrong.
std::string meta_from_json(const Json& root, SweepMeta& m) {
  if (!root.is_object() || !root.contains("flopcast_sweep")) return "not a flopcast sweep sidecar";
  const Json& s = root["flopcast_sweep"];
  const int version = s.is_object() ? s.value("format_version", 0) : 0;
  if (version < kOldestSidecarFormat || version > kSidecarFormat)
    return fmt::format("a sidecar of another format (flopcast reads format_version {} to {})", kOldestSidecarFormat,
                       kSidecarFormat);
  m.format_version = version;
  m.identity.id = s.at("id").get<std::string>();
  m.identity.scenario_hash = s.at("scenario_hash").get<std::string>();
  m.identity.flopcast_version = s.at("flopcast_version").get<std::string>();
  m.identity.points = s.at("points").get<std::int64_t>();
  for (const auto& a : s.at("axes")) {
    AxisValues av;
    av.keys = a.at("keys").get<std::vector<std::string>>();
    av.values = a.at("values").get<std::vector<std::vector<std::string>>>();
    m.identity.axes.push_back(std::move(av));
  }
  if (version >= 2) {
    for (const auto& [key, value] : s.at("base").items()) m.identity.base.emplace_back(key, value.get<std::string>());
    std::sort(m.identity.base.begin(), m.identity.base.end());
    m.command = s.at("command").get<std::vector<std::string>>();
  } else {
    m.identity.base_known = false;
  }
  m.shard = s.at("shard").get<int>();
  m.shards = s.at("shards").get<int>();
  const std::string format = s.at("format").get<std::string>();
  if (format != "csv" && format != "jsonl") return "unknown format '" + format + "'";
  m.format = format == "csv" ? Format::Csv : Format::Jsonl;
  const Json& cols = s.at("columns");
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (i == 0) continue;  // "point"
    Column c;
    c.name = cols[i].at("name").get<std::string>();
    const auto t = type_of(cols[i].at("type").get<std::string>());
    if (!t) return "column '" + c.name + "' has an unknown type";
    c.type = *t;
    const std::string better = cols[i].value("better", "");
    c.better = better == "lower" ? Better::Lower : better == "higher" ? Better::Higher : Better::None;
    c.compare = cols[i].value("compare", false);
    m.columns.push_back(std::move(c));
  }
  if (m.identity.points < 0 || m.shards < 1 || m.shard < 1 || m.shard > m.shards)
    return "its points or shard are out of range";
  return "";
}

}  // namespace

Format format_of_path(const std::string& path) {
  return path.size() >= 6 && path.compare(path.size() - 6, 6, ".jsonl") == 0 ? Format::Jsonl : Format::Csv;
}

std::string meta_path(const std::string& out_path) { return out_path + ".meta.json"; }

const char* better_name(Better b) {
  switch (b) {
    case Better::Lower:
      return "lower";
    case Better::Higher:
      return "higher";
    case Better::None:
      break;
  }
  return "";
}

std::string meta_json(const SweepMeta& m) {
  // One field per line, each axis and column on one line of its own: a reader sees the sweep at
  // a glance, and a diff between two sidecars shows the axis or column that changed.
  const Json fields = {{"format_version", kSidecarFormat},
                       {"id", m.identity.id},
                       {"scenario_hash", m.identity.scenario_hash},
                       {"flopcast_version", m.identity.flopcast_version},
                       {"points", m.identity.points},
                       {"shard", m.shard},
                       {"shards", m.shards},
                       {"format", m.format == Format::Csv ? "csv" : "jsonl"}};
  std::string out = "{\"flopcast_sweep\": {\n";
  for (const auto& [key, value] : fields.items()) out += "  " + Json(key).dump() + ": " + value.dump() + ",\n";
  out += "  \"command\": " + Json(m.command).dump() + ",\n";
  out += "  \"axes\": [";
  for (std::size_t i = 0; i < m.identity.axes.size(); ++i) {
    const auto& a = m.identity.axes[i];
    out += std::string(i ? "," : "") + "\n    " + Json({{"keys", a.keys}, {"values", a.values}}).dump();
  }
  out += m.identity.axes.empty() ? "],\n" : "\n  ],\n";
  out += "  \"base\": {";
  for (std::size_t i = 0; i < m.identity.base.size(); ++i)
    out += std::string(i ? "," : "") + "\n    " + Json(m.identity.base[i].first).dump() + ": " +
           Json(m.identity.base[i].second).dump();
  out += m.identity.base.empty() ? "},\n" : "\n  },\n";
  out += "  \"columns\": [\n    " + Json({{"name", "point"}, {"type", "integer"}}).dump();
  for (const auto& c : m.columns) out += ",\n    " + column_json(c).dump();
  return out + "\n  ]\n}}\n";
}

std::optional<SweepMeta> read_meta(const std::string& out_path, std::string& error) {
  const std::string path = meta_path(out_path);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format(
        "{}: cannot read the sweep's sidecar ({}): flopcast sweep writes it beside {}, with the sweep's identity; "
        "keep the two files together (copy both, e.g. as one CI artifact), or run the sweep again",
        path, std::strerror(errno), out_path);
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  SweepMeta m;
  std::string why;
  try {
    why = meta_from_json(Json::parse(ss.str()), m);
  } catch (const Json::exception& e) {
    why = std::string("not valid (") + e.what() + ")";
  }
  if (!why.empty()) {
    error = path + ": " + why + "; it should be the sidecar flopcast sweep wrote beside " + out_path +
            ": run the sweep again to rewrite both";
    return std::nullopt;
  }
  return m;
}

std::string other_points_reason(const SweepIdentity& theirs, const SweepIdentity& ours) {
  std::vector<std::string> keys_t, keys_o;
  for (const auto& a : theirs.axes) keys_t.insert(keys_t.end(), a.keys.begin(), a.keys.end());
  for (const auto& a : ours.axes) keys_o.insert(keys_o.end(), a.keys.begin(), a.keys.end());
  const std::string points = fmt::format("; {} points there, {} here", theirs.points, ours.points);
  if (keys_t != keys_o || theirs.axes.size() != ours.axes.size())
    return "its axes are " + axes_words(theirs.axes) + ", this sweep's " + axes_words(ours.axes) + points;
  for (std::size_t i = 0; i < ours.axes.size(); ++i) {
    if (theirs.axes[i] == ours.axes[i]) continue;
    std::string keys;
    for (const auto& k : ours.axes[i].keys) keys += (keys.empty() ? "" : "+") + k;
    return fmt::format("axis {} has the values {} there, {} here{}", keys, values_words(theirs.axes[i]),
                       values_words(ours.axes[i]), theirs.points != ours.points ? points : "");
  }
  if (theirs.points != ours.points) return points.substr(2);
  return "";
}

std::vector<BaseChange> base_changes(const SweepIdentity& theirs, const SweepIdentity& ours) {
  std::vector<BaseChange> out;
  if (!theirs.base_known || !ours.base_known) return out;
  std::map<std::string, BaseChange> by_key;
  for (const auto& [k, v] : theirs.base) by_key[k] = {k, v, "", true, false};
  for (const auto& [k, v] : ours.base) {
    auto [it, fresh] = by_key.try_emplace(k, BaseChange{k, "", v, false, true});
    if (!fresh) {
      it->second.ours = v;
      it->second.in_ours = true;
    }
  }
  for (auto& [k, c] : by_key)
    if (!(c.in_theirs && c.in_ours && c.theirs == c.ours)) out.push_back(std::move(c));
  return out;
}

std::string other_sweep_reason(const SweepIdentity& theirs, const SweepIdentity& ours) {
  if (auto why = other_points_reason(theirs, ours); !why.empty()) return why;
  if (theirs.base_known != ours.base_known)
    return "its sidecar was written by an older flopcast (sidecar format 1), which kept only a hash of the base "
           "scenario's text";
  if (const auto changes = base_changes(theirs, ours); !changes.empty()) {
    std::string words;
    for (std::size_t i = 0; i < changes.size() && i < 3; ++i) {
      const auto& c = changes[i];
      words += fmt::format("{}{} {} there, {} here", i ? "; " : "", c.key, c.in_theirs ? c.theirs : "absent",
                           c.in_ours ? c.ours : "absent");
    }
    if (changes.size() > 3) words += fmt::format("; and {} more", changes.size() - 3);
    return "its base scenario differs: " + words;
  }
  if (theirs.scenario_hash != ours.scenario_hash)
    return fmt::format("its base scenario differs (scenario hash {} there, {} here)", theirs.scenario_hash,
                       ours.scenario_hash);
  if (theirs.id != ours.id) return fmt::format("its sweep id is {}, this sweep's {}", theirs.id, ours.id);
  return "";
}

std::string shell_line(const std::vector<std::string>& command) {
  std::string out;
  for (const auto& w : command) {
    const bool plain = !w.empty() && w.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-+=./,:@%") == std::string::npos;
    std::string q = w;
    if (!plain) {
      q = "'";
      for (const char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      q += "'";
    }
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

}  // namespace flopcast::sweep

#include "flopcast/io/yaml_patch.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "flopcast/io/scenario_writer.hpp"

namespace flopcast::io {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(start));
      return lines;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) out += '\n';
    out += lines[i];
  }
  return out;
}

int indent_of(const std::string& line) {
  const std::size_t first = line.find_first_not_of(' ');
  return first == std::string::npos ? static_cast<int>(line.size()) : static_cast<int>(first);
}

/// A line that holds YAML content: not blank, not a comment, not a document marker.
bool is_content(const std::string& line) {
  const std::size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos || line[first] == '#' || line[first] == '%') return false;
  const std::string_view rest(line.c_str() + first);
  return !(rest.rfind("---", 0) == 0 || rest.rfind("...", 0) == 0);
}

bool is_sequence_item(const std::string& line) {
  const std::size_t i = static_cast<std::size_t>(indent_of(line));
  return i < line.size() && line[i] == '-' && (i + 1 == line.size() || line[i + 1] == ' ');
}

/// The key of a `key: value` line and the index just after its colon; kNone when the line is
/// no mapping entry.
std::size_t parse_key(const std::string& line, std::string& key) {
  std::size_t pos = static_cast<std::size_t>(indent_of(line));
  if (pos >= line.size() || is_sequence_item(line)) return kNone;
  std::size_t colon = kNone;
  if (line[pos] == '"' || line[pos] == '\'') {
    const char quote = line[pos];
    const std::size_t close = line.find(quote, pos + 1);
    if (close == std::string::npos) return kNone;
    key = line.substr(pos + 1, close - pos - 1);
    colon = line.find_first_not_of(' ', close + 1);
    if (colon == std::string::npos || line[colon] != ':') return kNone;
  } else {
    for (std::size_t i = pos; i < line.size(); ++i) {
      if (line[i] == '#' && i > pos && line[i - 1] == ' ') return kNone;
      if (line[i] == ':' && (i + 1 == line.size() || line[i + 1] == ' ' || line[i + 1] == '\t')) {
        colon = i;
        break;
      }
    }
    if (colon == kNone) return kNone;
    key = line.substr(pos, colon - pos);
    while (!key.empty() && key.back() == ' ') key.pop_back();
  }
  if (colon + 1 < line.size() && line[colon + 1] != ' ' && line[colon + 1] != '\t') return kNone;
  return colon + 1;
}

/// Where the inline value after a key's colon starts and ends, and where a trailing comment
/// starts (kNone: none). An empty value (begin == end) means a nested block or null.
struct ValueSpan {
  std::size_t begin = 0, end = 0, comment = kNone;
};

ValueSpan value_span(const std::string& line, std::size_t after_colon) {
  ValueSpan v;
  std::size_t i = line.find_first_not_of(" \t", after_colon);
  if (i == std::string::npos) {
    v.begin = v.end = line.size();
    return v;
  }
  v.begin = i;
  if (line[i] == '#') {
    v.end = i;
    v.comment = i;
    while (v.end > after_colon && line[v.end - 1] == ' ') --v.end;
    v.begin = v.end;
    return v;
  }
  if (line[i] == '"' || line[i] == '\'') {
    const char quote = line[i];
    for (++i; i < line.size(); ++i) {
      if (quote == '"' && line[i] == '\\') {
        ++i;
      } else if (line[i] == quote) {
        if (quote == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
          ++i;
        } else {
          break;
        }
      }
    }
  }
  for (; i < line.size(); ++i)
    if (line[i] == '#' && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
      v.comment = i;
      break;
    }
  v.end = v.comment == kNone ? line.size() : v.comment;
  while (v.end > v.begin && (line[v.end - 1] == ' ' || line[v.end - 1] == '\t' || line[v.end - 1] == '\r')) --v.end;
  return v;
}

/// One past the last content line nested under line `i` (indentation `indent`).
std::size_t block_end(const std::vector<std::string>& lines, std::size_t i, int indent) {
  std::size_t last = i;
  for (std::size_t j = i + 1; j < lines.size(); ++j) {
    if (!is_content(lines[j])) continue;
    if (indent_of(lines[j]) <= indent) break;
    last = j;
  }
  return last + 1;
}

/// The indentation step of the text: its smallest positive indentation (2 when none).
int indent_step(const std::vector<std::string>& lines) {
  int step = 0;
  for (const auto& l : lines)
    if (is_content(l) && indent_of(l) > 0 && (step == 0 || indent_of(l) < step)) step = indent_of(l);
  return step == 0 ? 2 : step;
}

std::string key_text(const std::string& key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  if (plain) return key;
  YAML::Emitter em;
  em << YAML::DoubleQuoted << key;
  return em.c_str();
}

/// The lines writing `key: value` at indentation `indent`.
std::vector<std::string> entry_lines(const std::string& key, const std::string& value, int indent, int step) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (value.find('\n') == std::string::npos) return {pad + key_text(key) + ": " + value};
  std::vector<std::string> out = {pad + key_text(key) + ":"};
  for (const auto& l : split_lines(value))
    if (!l.empty()) out.push_back(pad + std::string(static_cast<std::size_t>(step), ' ') + l);
  return out;
}

/// A key located in the text: its line, one past its block, its indentation.
struct Located {
  std::size_t line = kNone;
  std::size_t end = 0;
  int indent = 0;
};

/// Walks `path` through the block mappings of `lines`. On success `found` is the key (or,
/// when it is missing, `depth` is how many leading keys exist and `parent_*` say where the
/// missing key goes). Returns false with `why` when the path cannot be walked in block style.
struct Walk {
  Located found;
  std::size_t depth = 0;
  std::size_t insert_at = 0;
  int child_indent = 0;
};

bool walk(const std::vector<std::string>& lines, const YamlPath& path, int step, Walk& w, std::string& why) {
  std::size_t begin = 0;
  std::size_t end = 0;
  for (std::size_t j = 0; j < lines.size(); ++j)
    if (is_content(lines[j])) end = j + 1;
  int parent_indent = -1;
  for (std::size_t k = 0; k < path.size(); ++k) {
    int ci = -1;
    for (std::size_t j = begin; j < end && ci < 0; ++j)
      if (is_content(lines[j])) ci = indent_of(lines[j]);
    std::size_t hit = kNone;
    for (std::size_t j = begin; j < end && hit == kNone; ++j) {
      if (!is_content(lines[j]) || indent_of(lines[j]) != ci) continue;
      if (is_sequence_item(lines[j])) {
        why = "'" + path[k] + "' is under a sequence";
        return false;
      }
      std::string key;
      if (parse_key(lines[j], key) != kNone && key == path[k]) hit = j;
    }
    if (hit == kNone) {
      w.depth = k;
      w.insert_at = end;
      w.child_indent = ci > parent_indent ? ci : parent_indent + (parent_indent < 0 ? 1 : step);
      return true;
    }
    w.found = {hit, block_end(lines, hit, ci), ci};
    if (k + 1 == path.size()) {
      w.depth = path.size();
      return true;
    }
    std::string key;
    const ValueSpan v = value_span(lines[hit], parse_key(lines[hit], key));
    if (v.begin != v.end) {
      why = "'" + path[k] + "' holds an inline value (" + lines[hit].substr(v.begin, v.end - v.begin) + ")";
      return false;
    }
    begin = hit + 1;
    end = w.found.end;
    parent_indent = ci;
  }
  return true;
}

void replace_value(std::vector<std::string>& lines, const Located& at, const std::string& value, int step) {
  std::string& line = lines[at.line];
  std::string key;
  const ValueSpan v = value_span(line, parse_key(line, key));
  const std::string comment = v.comment == kNone ? std::string() : line.substr(v.comment);
  const std::string gap =
      v.comment == kNone || v.begin == v.end ? std::string("  ") : line.substr(v.end, v.comment - v.end);
  int child = at.indent + step;
  for (std::size_t j = at.line + 1; j < at.end; ++j)
    if (is_content(lines[j])) {
      child = indent_of(lines[j]);
      break;
    }
  std::vector<std::string> nested;
  const std::string head =
      line.substr(0, v.begin == v.end ? std::min(v.begin, line.find(':', at.indent) + 1) : v.begin);
  if (value.find('\n') == std::string::npos) {
    std::string h = head;
    while (!h.empty() && h.back() == ' ') h.pop_back();
    line = h + " " + value + (comment.empty() ? std::string() : gap + comment);
  } else {
    std::string h = head;
    while (!h.empty() && h.back() == ' ') h.pop_back();
    line = h + (comment.empty() ? std::string() : gap + comment);
    for (const auto& l : split_lines(value))
      if (!l.empty()) nested.push_back(std::string(static_cast<std::size_t>(child), ' ') + l);
  }
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at.line + 1),
              lines.begin() + static_cast<std::ptrdiff_t>(at.end));
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at.line + 1), nested.begin(), nested.end());
}

}  // namespace

bool yaml_set(std::string& text, const YamlPath& path, const std::string& value, std::string& why) {
  if (path.empty()) {
    why = "empty key path";
    return false;
  }
  std::vector<std::string> lines = split_lines(text);
  const int step = indent_step(lines);
  Walk w;
  if (!walk(lines, path, step, w, why)) return false;
  if (w.depth == path.size()) {
    replace_value(lines, w.found, value, step);
  } else {
    // The missing keys, nested, after the parent's last line.
    std::vector<std::string> add;
    int indent = w.child_indent;
    for (std::size_t k = w.depth; k + 1 < path.size(); ++k, indent += step)
      add.push_back(std::string(static_cast<std::size_t>(indent), ' ') + key_text(path[k]) + ":");
    for (auto& l : entry_lines(path.back(), value, indent, step)) add.push_back(std::move(l));
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(w.insert_at), add.begin(), add.end());
  }
  text = join_lines(lines);
  return true;
}

bool yaml_remove(std::string& text, const YamlPath& path, std::string& why) {
  if (path.empty()) {
    why = "empty key path";
    return false;
  }
  std::vector<std::string> lines = split_lines(text);
  Walk w;
  if (!walk(lines, path, indent_step(lines), w, why)) return false;
  if (w.depth < path.size()) return true;
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(w.found.line),
              lines.begin() + static_cast<std::ptrdiff_t>(w.found.end));
  text = join_lines(lines);
  return true;
}

namespace {

std::string emit(const YAML::Node& n) {
  YAML::Emitter em;
  em << n;
  return em.c_str();
}

YAML::Node node_at(const YAML::Node& root, const YamlPath& path) {
  YAML::Node cur = YAML::Clone(root);
  for (const auto& k : path) {
    if (!cur.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& c = cur;
    const YAML::Node next = c[k];
    if (!next) return YAML::Node(YAML::NodeType::Undefined);
    cur = next;
  }
  return cur;
}

struct Edit {
  YamlPath path;
  bool remove = false;
};

void diff(const YAML::Node& a, const YAML::Node& b, const YamlPath& path, std::vector<Edit>& edits) {
  if (a.IsMap() && b.IsMap() && !path.empty()) {
    for (const auto& kv : b) {
      YamlPath p = path;
      p.push_back(kv.first.Scalar());
      const YAML::Node& ca = a;
      if (!ca[p.back()])
        edits.push_back({p, false});
      else
        diff(ca[p.back()], kv.second, p, edits);
    }
    for (const auto& kv : a) {
      const YAML::Node& cb = b;
      if (!cb[kv.first.Scalar()]) {
        YamlPath p = path;
        p.push_back(kv.first.Scalar());
        edits.push_back({p, true});
      }
    }
    return;
  }
  if (path.empty()) {
    // The document: one level down, each top-level key.
    for (const auto& kv : b) {
      const YAML::Node& ca = a;
      const std::string k = kv.first.Scalar();
      if (!ca[k])
        edits.push_back({{k}, false});
      else
        diff(ca[k], kv.second, {k}, edits);
    }
    for (const auto& kv : a) {
      const YAML::Node& cb = b;
      if (!cb[kv.first.Scalar()]) edits.push_back({{kv.first.Scalar()}, true});
    }
    return;
  }
  if (emit(a) != emit(b)) edits.push_back({path, false});
}

/// Applies one edit; when its path cannot be patched in place, sets the nearest ancestor
/// that can be to its whole new value.
bool apply(std::string& text, Edit e, const YAML::Node& target, std::string& why) {
  while (!e.path.empty()) {
    std::string reason;
    const bool done =
        e.remove ? yaml_remove(text, e.path, reason) : yaml_set(text, e.path, emit(node_at(target, e.path)), reason);
    if (done) return true;
    why = reason;
    e.path.pop_back();
    e.remove = false;
  }
  return false;
}

}  // namespace

std::optional<std::string> patch_scenario_text(const std::string& base, const ScenarioForm& from,
                                               const ScenarioForm& to, const Catalog& catalog, std::string& why) {
  const std::string after = compose_scenario_yaml(base, to, catalog);
  if (base.empty()) return after;
  YAML::Node a, b;
  try {
    a = YAML::Load(compose_scenario_yaml(base, from, catalog));
    b = YAML::Load(after);
  } catch (const YAML::Exception& e) {
    why = e.what();
    return std::nullopt;
  }
  std::vector<Edit> edits;
  diff(a, b, {}, edits);
  std::string text = base;
  for (const auto& e : edits)
    if (!apply(text, e, b, why)) return std::nullopt;
  // The patched text must say what the composed text says at every edited path.
  try {
    const YAML::Node patched = YAML::Load(text);
    for (const auto& e : edits) {
      const YAML::Node got = node_at(patched, e.path);
      const bool ok = e.remove ? !got.IsDefined() : got.IsDefined() && emit(got) == emit(node_at(b, e.path));
      if (!ok) {
        why = "the patched text differs from the form at '" + e.path.front() + "'";
        return std::nullopt;
      }
    }
  } catch (const YAML::Exception& e) {
    why = std::string("the patched text is not YAML: ") + e.what();
    return std::nullopt;
  }
  return text;
}

}  // namespace flopcast::io

#include "yaml_util.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string_view>

#include "flopcast/io/units_parse.hpp"
#include "flopcast/units/text.hpp"

namespace flopcast::io::detail {
namespace {

/// Finds the keys written twice in one mapping from the parser's events. Each open mapping or
/// list is a frame; in a mapping, nodes alternate key, value. Only scalar keys are compared (a
/// list or mapping as a key is legal YAML that no flopcast file uses; the loaders refuse it).
class DuplicateKeyFinder : public YAML::EventHandler {
 public:
  DuplicateKeyFinder(const std::string& file, scenario::Diagnostics& diags) : file_(file), diags_(diags) {}
  int found() const { return found_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { scalar(mark, "null"); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { node_done(); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
    scalar(mark, value);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    bool map = false;
    std::string path;                        ///< the key path of this mapping or list
    bool at_key = true;                      ///< a mapping's next node is a key
    std::string key;                         ///< a mapping's current key
    std::size_t index = 0;                   ///< a list's next item
    std::map<std::string, YAML::Mark> keys;  ///< a mapping's keys so far, where first written
  };

  bool at_key() const { return !frames_.empty() && frames_.back().map && frames_.back().at_key; }

  /// The key path of the node that starts now.
  std::string next_path() const {
    if (frames_.empty()) return "";
    const Frame& f = frames_.back();
    if (!f.map) return f.path + "[" + std::to_string(f.index) + "]";
    return f.at_key ? child(f.path, "?") : child(f.path, f.key);
  }

  void scalar(const YAML::Mark& mark, const std::string& value) {
    if (!at_key()) return node_done();
    Frame& f = frames_.back();
    const auto [it, first] = f.keys.emplace(value, mark);
    if (!first) {
      ++found_;
      const YAML::Mark& was = it->second;
      std::string message = "duplicate key '" + value + "' (first at line " + std::to_string(was.line + 1);
      if (was.line == mark.line) message += ", column " + std::to_string(was.column + 1);
      diags_.error({file_, mark.line + 1, mark.column + 1}, child(f.path, value), message + ")",
                   "keep one of the two; a YAML mapping holds each key once");
    }
    f.key = value;
    f.at_key = false;
  }

  void open(bool map) {
    Frame f;
    f.map = map;
    f.path = next_path();
    frames_.push_back(std::move(f));
  }

  void close() {
    if (!frames_.empty()) frames_.pop_back();
    node_done();
  }

  /// A whole node (scalar, alias, mapping or list) ended: the enclosing frame moves on.
  void node_done() {
    if (frames_.empty()) return;
    Frame& f = frames_.back();
    if (!f.map)
      ++f.index;
    else if (f.at_key) {
      f.key = "?";  // a list or mapping used as a key: its value follows
      f.at_key = false;
    } else {
      f.at_key = true;
    }
  }

  const std::string& file_;
  scenario::Diagnostics& diags_;
  std::vector<Frame> frames_;
  int found_ = 0;
};

void report_malformed(const YAML::Exception& e, const std::string& file, scenario::Diagnostics& diags) {
  diags.error({file, e.mark.line + 1, e.mark.column + 1}, "", "malformed YAML: " + e.msg,
              "check indentation, colons and quoting near this line");
}

/// The encoding a byte-order mark or NUL bytes give away (UTF-16 or UTF-32), or "".
std::string wide_encoding(std::string_view t) {
  auto starts = [&](std::string_view bom) { return t.substr(0, bom.size()) == bom; };
  using namespace std::string_view_literals;
  if (starts("\xFF\xFE\0\0"sv)) return "UTF-32 (little-endian, with a byte-order mark)";
  if (starts("\0\0\xFE\xFF"sv)) return "UTF-32 (big-endian, with a byte-order mark)";
  if (starts("\xFF\xFE"sv)) return "UTF-16 (little-endian, with a byte-order mark)";
  if (starts("\xFE\xFF"sv)) return "UTF-16 (big-endian, with a byte-order mark)";
  const auto nul = t.find('\0');
  if (nul == std::string_view::npos) return "";
  return nul % 2 == 1 ? "UTF-16 or UTF-32 (little-endian, without a byte-order mark)"
                      : "UTF-16 or UTF-32 (big-endian, without a byte-order mark)";
}

/// The offset of the first byte of `t` that is not part of well-formed UTF-8 (RFC 3629, section
/// 4: no overlong forms, no surrogates, nothing above U+10FFFF), or npos.
std::size_t first_bad_utf8(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size()) {
    const auto b = static_cast<unsigned char>(t[i]);
    int extra = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the first continuation byte
    if (b < 0x80) {
      ++i;
      continue;
    } else if (b >= 0xC2 && b <= 0xDF) {
      extra = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      extra = 2;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      extra = 3;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    for (int k = 1; k <= extra; ++k) {
      if (i + k >= t.size()) return i;
      const auto c = static_cast<unsigned char>(t[i + k]);
      if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return i;
    }
    i += static_cast<std::size_t>(extra) + 1;
  }
  return std::string_view::npos;
}

/// False, with an error naming the encoding and the fix, when `text` is not UTF-8: every file
/// flopcast reads is UTF-8 (YAML 1.2, section 5.2, allows UTF-16 and UTF-32 too, but the
/// editor's save, --emit-scenario and the line and column of every message work on UTF-8 text).
bool check_encoding(const std::string& text, const std::string& file, scenario::Diagnostics& diags) {
  const std::string name = file.empty() ? "FILE" : file;
  if (const std::string wide = wide_encoding(text); !wide.empty()) {
    diags.error({file, 1, 1}, "", "the file is " + wide + ", not UTF-8",
                "save it as UTF-8, e.g. iconv -f UTF-16 -t UTF-8 " + name + " > utf8.yaml");
    return false;
  }
  const std::size_t bad = first_bad_utf8(text);
  if (bad == std::string_view::npos) return true;
  const std::size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
  const std::size_t from = line_start == std::string::npos || bad == 0 ? 0 : line_start + 1;
  const int line =
      1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
  int col = 1;  // characters, as the parser counts them: UTF-8 lead bytes
  for (std::size_t i = from; i < bad; ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++col;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
  diags.error({file, line, col}, "",
              std::string("the file is not UTF-8: byte ") + byte + " here starts no UTF-8 character",
              "save it as UTF-8; a file from a Chinese Windows editor is often GBK: iconv -f GBK -t UTF-8 " + name +
                  " > utf8.yaml");
  return false;
}

}  // namespace

YAML::Node load_yaml(const std::string& text, const std::string& file, scenario::Diagnostics& diags) {
  if (!check_encoding(text, file, diags)) return YAML::Node(YAML::NodeType::Undefined);
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DuplicateKeyFinder finder(file, diags);
    parser.HandleNextDocument(finder);
    if (finder.found() > 0) return YAML::Node(YAML::NodeType::Undefined);
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    report_malformed(e, file, diags);
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

scenario::SourceLocation loc_of(const YAML::Node& node, const std::string& file) {
  scenario::SourceLocation l{file, 0, 0};
  if (node.IsDefined()) {
    const auto m = node.Mark();
    if (m.line >= 0) {
      l.line = m.line + 1;
      l.col = m.column + 1;
    }
  }
  return l;
}

std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  return units::nearest_spelling(word, candidates, word.size());
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "null";
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "?";
}

void Reader::note(const std::string& path, const YAML::Node& node) {
  if (locs_) (*locs_)[path] = loc_of(node, file_);
}

void Reader::error(const YAML::Node& at, const std::string& path, std::string message, std::string hint) {
  diags_.error(loc_of(at, file_), path, std::move(message), std::move(hint));
}

bool Reader::expect_map(const YAML::Node& node, const std::string& path) {
  if (node.IsMap()) return true;
  error(node, path, "expected a mapping of keys, got " + describe(node));
  return false;
}

void Reader::check_keys(const YAML::Node& node, const std::string& path,
                        std::initializer_list<std::string_view> allowed) {
  check_keys(node, path, std::vector<std::string>(allowed.begin(), allowed.end()));
}

void Reader::check_keys(const YAML::Node& node, const std::string& path, const std::vector<std::string>& names) {
  if (!node.IsMap()) return;
  for (const auto& kv : node) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    std::string hint;
    if (auto m = did_you_mean(key, names))
      hint = "did you mean '" + *m + "'?";
    else
      hint = "allowed keys here: " + join(names);
    diags_.error(loc_of(kv.first, file_), child(path, key), "unknown key '" + key + "'", hint);
  }
}

std::optional<std::int64_t> Reader::integer(const YAML::Node& node, const std::string& path, std::int64_t lo,
                                            std::int64_t hi) {
  note(path, node);
  if (!node.IsScalar()) {
    error(node, path, "expected an integer, got " + describe(node));
    return std::nullopt;
  }
  const auto v = parse_count(node.Scalar());
  if (!v || std::floor(*v) != *v) {
    error(node, path, "expected an integer, got " + describe(node), "write a whole number such as 8 or 16K");
    return std::nullopt;
  }
  if (*v < static_cast<double>(lo) || *v > static_cast<double>(hi)) {
    error(node, path,
          "value " + node.Scalar() + " is out of range: expected " + std::to_string(lo) + " to " + std::to_string(hi));
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*v);
}

std::optional<double> Reader::number(const YAML::Node& node, const std::string& path, double lo, double hi) {
  note(path, node);
  if (!node.IsScalar()) {
    error(node, path, "expected a number, got " + describe(node));
    return std::nullopt;
  }
  const auto v = parse_count(node.Scalar());
  if (!v) {
    error(node, path, "expected a number, got " + describe(node), "write e.g. 0.45, 1.4e12 or 1.4T");
    return std::nullopt;
  }
  if (*v < lo || *v > hi) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "value %s is out of range: expected %g to %g", node.Scalar().c_str(), lo, hi);
    error(node, path, buf);
    return std::nullopt;
  }
  return *v;
}

std::optional<bool> Reader::boolean(const YAML::Node& node, const std::string& path) {
  note(path, node);
  if (node.IsScalar()) {
    const auto& s = node.Scalar();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  error(node, path, "expected true or false, got " + describe(node));
  return std::nullopt;
}

std::optional<std::string> Reader::string(const YAML::Node& node, const std::string& path) {
  note(path, node);
  if (!node.IsScalar()) {
    error(node, path, "expected a text value, got " + describe(node));
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<std::string> Reader::choice(const YAML::Node& node, const std::string& path,
                                          std::initializer_list<std::string_view> choices) {
  auto s = string(node, path);
  if (!s) return std::nullopt;
  std::vector<std::string> names(choices.begin(), choices.end());
  if (std::find(names.begin(), names.end(), *s) != names.end()) return s;
  std::string hint = "expected one of: " + join(names);
  if (auto m = did_you_mean(*s, names)) hint = "did you mean '" + *m + "'? (" + hint + ")";
  error(node, path, "unknown value '" + *s + "'", hint);
  return std::nullopt;
}

/// Sets `value` (YAML text) at dotted `key` of map `root`, creating maps on the way.
/// False when a part on the way is a scalar or list (the key cannot exist there).
bool set_key(YAML::Node root, const std::string& key, const std::string& value) {
  std::vector<std::string> parts;
  std::size_t s = 0;
  for (std::size_t i = 0; i <= key.size(); ++i)
    if (i == key.size() || key[i] == '.') {
      parts.push_back(key.substr(s, i - s));
      s = i + 1;
    }
  // yaml-cpp: `a = b` on nodes assigns contents; reset() rebinds the handle.
  YAML::Node cur;
  cur.reset(root);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next;
    next.reset(cur[parts[i]]);
    if (!next.IsDefined() || next.IsNull()) {
      cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next.reset(cur[parts[i]]);
    } else if (next.IsScalar()) {
      // A preset name written as a scalar (cluster.fabric: dgx-a100-hdr): expand it to {preset: name}.
      const std::string preset = next.Scalar();
      cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next.reset(cur[parts[i]]);
      next["preset"] = preset;
    }
    if (!next.IsMap()) return false;
    cur.reset(next);
  }
  YAML::Node v;
  try {
    v = YAML::Load(value);
  } catch (const YAML::Exception&) {
    v = YAML::Node(value);
  }
  cur[parts.back()] = v;
  return true;
}

}  // namespace flopcast::io::detail

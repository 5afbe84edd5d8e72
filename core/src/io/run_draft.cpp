#include "flopcast/io/run_draft.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <memory>
#include <string_view>

namespace flopcast::io {

void RunDraft::put(const std::string& path, std::string value, bool pending) {
  for (auto& k : keys_)
    if (k.path == path) {
      k.value = std::move(value);
      k.pending = pending;
      return;
    }
  keys_.push_back({path, std::move(value), pending});
}

void RunDraft::set(const std::string& path, std::int64_t v) { put(path, std::to_string(v), false); }
void RunDraft::set(const std::string& path, double v) { put(path, yaml_number(v), false); }
void RunDraft::set_bool(const std::string& path, bool v) { put(path, v ? "true" : "false", false); }
void RunDraft::set_text(const std::string& path, const std::string& v) { put(path, yaml_string(v), false); }
void RunDraft::set_raw(const std::string& path, const std::string& yaml) { put(path, yaml, false); }
void RunDraft::set_pending(const std::string& path, const std::string& yaml) { put(path, yaml, true); }

const DraftKey* RunDraft::find(const std::string& path) const {
  for (const auto& k : keys_)
    if (k.path == path) return &k;
  return nullptr;
}

std::string RunDraft::get(const std::string& path) const {
  const auto* k = find(path);
  return k ? k->value : std::string();
}

namespace {

/// A key of the YAML tree: a value, or a mapping of keys in the order they were first set.
struct Node {
  std::string name;
  const DraftKey* leaf = nullptr;
  std::vector<std::unique_ptr<Node>> children;

  Node& child(const std::string& n) {
    for (auto& c : children)
      if (c->name == n) return *c;
    children.push_back(std::make_unique<Node>());
    children.back()->name = n;
    return *children.back();
  }
};

// The run schema's order of sections (docs/run-schema.md); anything else follows them.
constexpr std::array<std::string_view, 14> kSectionOrder = {
    "id",        "source",     "kind",        "reliability", "model",       "cluster",  "parallel",
    "precision", "fp8_params", "bf16_layers", "grad_reduce", "elementwise", "measured", "notes"};

std::size_t section_rank(const std::string& name) {
  const auto it = std::find(kSectionOrder.begin(), kSectionOrder.end(), name);
  return static_cast<std::size_t>(it - kSectionOrder.begin());
}

void emit(const Node& n, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (n.leaf) {
    out += pad + (n.leaf->pending ? "# " : "") + n.name + ": " + n.leaf->value + "\n";
    return;
  }
  out += pad + n.name + ":\n";
  for (const auto& c : n.children) emit(*c, indent + 2, out);
}

}  // namespace

std::string RunDraft::yaml() const {
  Node root;
  for (const auto& k : keys_) {
    Node* at = &root;
    std::string_view rest = k.path;
    while (true) {
      const auto dot = rest.find('.');
      at = &at->child(std::string(rest.substr(0, dot)));
      if (dot == std::string_view::npos) break;
      rest.remove_prefix(dot + 1);
    }
    at->leaf = &k;
  }
  std::stable_sort(root.children.begin(), root.children.end(),
                   [](const auto& a, const auto& b) { return section_rank(a->name) < section_rank(b->name); });
  std::string out;
  for (const auto& c : root.children) {
    std::string block;
    emit(*c, 2, block);
    out += block;
  }
  if (!notes_.empty()) {
    out += "  notes:\n";
    for (const auto& n : notes_) out += "    - " + yaml_string(n) + "\n";
  }
  if (out.size() >= 2) out.replace(0, 2, "- ");
  return out;
}

std::string yaml_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.6g}", v);
}

std::string yaml_string(const std::string& s) {
  static constexpr std::array<std::string_view, 10> kReserved = {"true", "false", "yes", "no", "on",
                                                                 "off",  "null",  "y",   "n",  "~"};
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool reserved = std::find(kReserved.begin(), kReserved.end(), lower) != kReserved.end();
  const bool bare =
      !s.empty() && !reserved && std::isalpha(static_cast<unsigned char>(s[0])) &&
      std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/';
      });
  if (bare) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace flopcast::io

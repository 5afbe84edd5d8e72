#include "flopcast/scenario/diagnostic.hpp"

#include <algorithm>

namespace flopcast::scenario {

std::string SourceLocation::str() const {
  std::string s = file.empty() ? "<input>" : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (col > 0) s += ":" + std::to_string(col);
  }
  return s;
}

std::string Diagnostic::str() const {
  std::string s = where.str() + (severity == Severity::Error ? ": error: " : ": warning: ");
  if (!key.empty()) s += key + ": ";
  s += message;
  if (!hint.empty()) s += " (hint: " + hint + ")";
  return s;
}

void Diagnostics::error(SourceLocation where, std::string key, std::string message, std::string hint) {
  items_.push_back({Severity::Error, std::move(where), std::move(key), std::move(message), std::move(hint)});
}

void Diagnostics::warning(SourceLocation where, std::string key, std::string message, std::string hint) {
  items_.push_back({Severity::Warning, std::move(where), std::move(key), std::move(message), std::move(hint)});
}

void Diagnostics::error_at(const LocationMap& locs, const std::string& key, std::string message, std::string hint) {
  error(locate(locs, key), key, std::move(message), std::move(hint));
}

bool Diagnostics::has_errors() const {
  return std::any_of(items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

std::string Diagnostics::str() const {
  std::string s;
  for (const auto& d : items_) s += d.str() + "\n";
  return s;
}

SourceLocation locate(const LocationMap& locs, const std::string& key) {
  std::string k = key;
  while (true) {
    if (auto it = locs.find(k); it != locs.end()) return it->second;
    const auto dot = k.rfind('.');
    if (dot == std::string::npos) break;
    k.resize(dot);
  }
  if (auto it = locs.find(k); it != locs.end()) return it->second;
  if (auto it = locs.find(""); it != locs.end()) return it->second;
  return {};
}

}  // namespace flopcast::scenario

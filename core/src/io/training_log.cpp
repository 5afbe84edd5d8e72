// Training logs: reading the lines, telling the frameworks apart, and what their readers share.
#include "flopcast/io/training_log.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <istream>
#include <sstream>

#include "flopcast/io/scenario_loader.hpp"
#include "training_log_detail.hpp"

namespace flopcast::io {

const char* to_string(LogFramework f) { return f == LogFramework::MegatronLm ? "Megatron-LM" : "torchtitan"; }

namespace detail {

std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !(s[i] >= '@' && s[i] <= '~')) ++i;  // parameters, then the final byte
      continue;
    }
    if (s[i] != '\r') out += s[i];
  }
  return out;
}

std::optional<double> leading_number(std::string_view s, bool commas, std::size_t* used) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  std::string digits;
  std::size_t j = i;
  for (; j < s.size(); ++j) {
    const char c = s[j];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')
      digits += c;
    else if (!(commas && c == ','))
      break;
  }
  if (digits.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  if (used) *used = j;
  return v;
}

std::optional<double> number_after(std::string_view line, std::string_view label, bool commas) {
  const auto at = line.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  return leading_number(line.substr(at + label.size()), commas);
}

const Setting* Settings::find(const std::string& name) const {
  const auto it = map_.find(name);
  return it == map_.end() ? nullptr : &it->second;
}

bool Settings::has(const std::string& name) const {
  const auto* s = find(name);
  return s && s->value != "None" && s->value != "null";
}

std::optional<std::int64_t> Settings::integer(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  const auto& v = find(name)->value;
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return out;
}

std::optional<double> Settings::number(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  std::size_t used = 0;
  const auto& v = find(name)->value;
  const auto n = leading_number(v, false, &used);
  if (!n || used != v.size()) return std::nullopt;
  return n;
}

std::optional<bool> Settings::flag(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  const auto& v = find(name)->value;
  if (v == "True" || v == "true") return true;
  if (v == "False" || v == "false") return false;
  return std::nullopt;
}

std::string Settings::text(const std::string& name) const { return has(name) ? find(name)->value : std::string(); }

int Settings::line(const std::string& name) const {
  const auto* s = find(name);
  return s ? s->line : 0;
}

namespace {
void flatten(const nlohmann::json& j, const std::string& prefix, int line, Settings& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, line, out);
    return;
  }
  if (j.is_string())
    out.put(prefix, j.get<std::string>(), line);
  else if (j.is_null())
    out.put(prefix, "None", line);
  else
    out.put(prefix, j.dump(), line);
}
}  // namespace

bool read_json_settings(const std::string& text, const std::string& prefix, int line, Settings& out) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  flatten(j, prefix, line, out);
  return true;
}

}  // namespace detail

namespace {

// The markers that tell the frameworks apart: Megatron-LM's arguments block and iteration line
// (megatron/training/arguments.py _print_args, training.py training_log); torchtitan's logger
// prefix and step line (torchtitan/tools/logging.py init_logger, components/metrics.py log).
constexpr std::string_view kMegatronArguments = "------------------------ arguments ------------------------";
constexpr std::string_view kMegatronIteration = "elapsed time per iteration (ms):";
constexpr std::string_view kTitanPrefix = "[titan] ";

std::optional<LoggedRun> parse_lines(std::istream& in, const std::string& file, const TrainingLogOptions& options,
                                     scenario::Diagnostics& diags) {
  std::vector<detail::LogLine> lines;
  std::string raw;
  bool megatron = false, titan = false;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    detail::LogLine l{number, detail::strip_ansi(raw)};
    if (!megatron &&
        (l.text.find(kMegatronArguments) != std::string::npos || l.text.find(kMegatronIteration) != std::string::npos))
      megatron = true;
    if (!titan && !megatron && l.text.find(kTitanPrefix) != std::string::npos) titan = true;
    lines.push_back(std::move(l));
  }
  if (megatron) return detail::read_megatron_log(lines, file, diags);
  if (titan) return detail::read_torchtitan_log(lines, file, options, diags);
  diags.error({file, lines.empty() ? 0 : 1, 0}, "",
              "not a training log: it has no Megatron-LM arguments block (\"" + std::string(kMegatronArguments) +
                  "\") or iteration line (\"" + std::string(kMegatronIteration) +
                  "\"), and no torchtitan log line (\"[titan] ...\")",
              "give the standard output of a Megatron-LM or torchtitan training job");
  return std::nullopt;
}

}  // namespace

std::optional<LoggedRun> read_training_log(const std::string& path, const TrainingLogOptions& options,
                                           scenario::Diagnostics& diags) {
  std::error_code ec;
  std::ifstream in;
  if (std::filesystem::is_regular_file(path, ec)) in.open(path, std::ios::binary);
  if (!in.is_open() || !in) {
    read_text_file(path, diags);  // says why, as for any input file (is_unreadable_file)
    if (!diags.has_errors()) diags.error({path, 0, 0}, "", "cannot read file", "check its permissions");
    return std::nullopt;
  }
  return parse_lines(in, path, options, diags);
}

std::optional<LoggedRun> parse_training_log(const std::string& text, const std::string& file,
                                            const TrainingLogOptions& options, scenario::Diagnostics& diags) {
  std::istringstream in(text);
  return parse_lines(in, file, options, diags);
}

}  // namespace flopcast::io

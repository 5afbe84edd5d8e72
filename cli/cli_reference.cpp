#include "cli_reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "cli_context.hpp"

namespace flopcast::cli {
namespace {

/// "A:B:C" -> {"A", "B", "C"}.
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

/// The choices of a CLI11 IsMember validator's description, "{a,b,c}"; empty otherwise.
std::vector<std::string> choices_of(const std::string& description) {
  if (description.size() < 2 || description.front() != '{' || description.back() != '}') return {};
  return split(description.substr(1, description.size() - 2), ',');
}

bool is_number(const std::string& value) {
  return value == "INT" || value == "UINT" || value == "FLOAT" || value == "N" || value == "NUMBER";
}

ArgumentInfo info_of(const CLI::Option& opt) {
  ArgumentInfo a;
  for (const auto& s : opt.get_snames()) a.spellings.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) a.spellings.push_back("--" + l);
  if (opt.get_positional()) a.name = opt.get_name(true);
  a.help = opt.get_description();
  a.required = opt.get_required();
  a.repeats = opt.get_items_expected_max() > 1 || opt.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  if (opt.get_type_size() == 0) return a;  // a flag: no value
  const auto parts = split(opt.get_type_name(), ':');
  a.value = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i] == "DIR" || parts[i] == "FILE") a.value = parts[i];
    if (auto c = choices_of(parts[i]); !c.empty()) a.choices = std::move(c);
  }
  if (a.value == "TEXT") a.value = "VALUE";
  return a;
}

/// Roff text: backslashes and dashes escaped, a leading '.' or '\'' kept from being a request.
std::string roff(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out = "\\&" + out;
  return out;
}

/// "\fB\-o\fR, \fB\-\-out\fR \fIFILE\fR" (or "\fIscenario\fR" for a positional).
std::string roff_usage(const ArgumentInfo& a) {
  if (!a.name.empty()) return "\\fI" + roff(a.name) + "\\fR" + (a.repeats ? "..." : "");
  std::string out;
  for (const auto& s : a.spellings) out += (out.empty() ? "" : ", ") + std::string("\\fB") + roff(s) + "\\fR";
  if (!a.value.empty()) out += " \\fI" + roff(a.value) + "\\fR";
  return out;
}

void man_arguments(std::string& out, const std::vector<ArgumentInfo>& args) {
  for (const auto& a : args) {
    out += ".TP\n" + roff_usage(a) + "\n" + roff(a.help);
    if (!a.choices.empty()) {
      std::string c;
      for (const auto& v : a.choices) c += (c.empty() ? "" : ", ") + v;
      out += " (" + roff(c) + ")";
    }
    if (a.required) out += " Required.";
    out += "\n";
  }
}

/// "flopcast plan [OPTIONS] scenario"
std::string synopsis(const CLI::App& cmd) {
  std::string s = "flopcast " + cmd.get_name() + " [OPTIONS]";
  for (const auto& a : arguments_of(cmd))
    if (!a.name.empty()) s += a.required ? " " + a.name : " [" + a.name + "]";
  return s;
}

/// Words joined by spaces.
std::string words(const std::vector<std::string>& w) {
  std::string out;
  for (const auto& x : w) out += (out.empty() ? "" : " ") + x;
  return out;
}

/// Single-quoted for the shell ('it'\''s').
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The catalog names a value of kind `value` takes (GPU, GPUS, MODEL); empty otherwise.
const std::vector<std::string>& catalog_names(const std::string& value, const CompletionNames& names) {
  static const std::vector<std::string> none;
  if (value == "GPU" || value == "GPUS") return names.gpus;
  if (value == "MODEL") return names.models;
  return none;
}

/// File names, shown as paths (a slash after a folder): the only place bash completes files.
constexpr const char* kBashFiles = "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))";

/// The bash case arm completing one command's words.
std::string bash_command_arm(const CLI::App& cmd, const CompletionNames& names) {
  std::vector<std::string> flags;
  std::string value_arms, positional_choices;
  for (const auto& a : arguments_of(cmd)) {
    if (a.name.empty()) {
      flags.insert(flags.end(), a.spellings.begin(), a.spellings.end());
      if (a.value.empty()) continue;
      std::string pattern;
      for (const auto& s : a.spellings) pattern += (pattern.empty() ? "" : "|") + s;
      const auto& named = catalog_names(a.value, names);
      if (!a.choices.empty())
        value_arms += "        " + pattern + ") COMPREPLY=($(compgen -W " + shell_quote(words(a.choices)) +
                      " -- \"$cur\")); return ;;\n";
      else if (a.value == "GPUS")  // "A100-80G,H8": the last name of the list
        value_arms += "        " + pattern +
                      ") local pre=; [[ $cur == *,* ]] && pre=${cur%,*},; COMPREPLY=($(compgen -P \"$pre\" -W " +
                      shell_quote(words(named)) + " -- \"${cur##*,}\")); return ;;\n";
      else if (!named.empty())
        value_arms += "        " + pattern + ") COMPREPLY=($(compgen -W " + shell_quote(words(named)) +
                      " -- \"$cur\")); return ;;\n";
      else if (a.value == "DIR")
        value_arms += "        " + pattern +
                      ") compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n";
      else if (is_number(a.value) || a.value == "NAME" || a.value == "GPU" || a.value == "MODEL")
        value_arms += "        " + pattern + ") return ;;\n";  // a count or a name: never file names
      else
        value_arms += "        " + pattern + ") " + kBashFiles + "; return ;;\n";
    } else if (!a.choices.empty()) {
      positional_choices = words(a.choices);
    }
  }
  std::string arm = "    " + cmd.get_name() + ")\n";
  if (!value_arms.empty()) arm += "      case $prev in\n" + value_arms + "      esac\n";
  arm += "      if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W " + shell_quote(words(flags)) +
         " -- \"$cur\"))\n";
  if (!positional_choices.empty())
    arm += "      else\n        COMPREPLY=($(compgen -W " + shell_quote(positional_choices) + " -- \"$cur\"))\n";
  else
    arm += "      else\n        " + std::string(kBashFiles) + "\n";
  arm += "      fi\n      ;;\n";
  return arm;
}

/// `s` inside a single-quoted zsh word, with `special` characters backslash-escaped for
/// _arguments ("[]" in a flag's description, ":" in a message).
std::string zsh_text(const std::string& s, std::string_view special) {
  std::string out;
  for (const char c : s) {
    if (special.find(c) != std::string_view::npos) out += '\\';
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out;
}

/// The _arguments action for a value: its choices, the catalog's names (a comma-separated list
/// for GPUS), directories, nothing for a number or another name, files.
std::string zsh_action(const ArgumentInfo& a, const CompletionNames& names) {
  if (!a.choices.empty()) return "(" + words(a.choices) + ")";
  const auto& named = catalog_names(a.value, names);
  if (a.value == "GPUS" && !named.empty()) return "_sequence compadd - " + words(named);
  if (!named.empty()) return "(" + words(named) + ")";
  if (a.value == "DIR") return "_files -/";
  if (is_number(a.value) || a.value == "NAME" || a.value == "GPU" || a.value == "GPUS" || a.value == "MODEL")
    return " ";
  return "_files";
}

/// One _arguments spec per spelling group: '(-o --out)'{-o,--out}'[help]:FILE:_files'.
std::string zsh_spec(const ArgumentInfo& a, const CompletionNames& names) {
  if (!a.name.empty())
    return std::string(a.repeats ? "'*:" : "':") + zsh_text(a.name, ":") + ":" + zsh_action(a, names) + "'";
  std::string spec;
  const std::string help = "[" + zsh_text(a.help, "[]") + "]" +
                           (a.value.empty() ? "" : ":" + zsh_text(a.value, ":") + ":" + zsh_action(a, names));
  if (a.spellings.size() == 1) return std::string("'") + (a.repeats ? "*" : "") + a.spellings.front() + help + "'";
  std::string group, spellings;
  for (const auto& s : a.spellings) {
    group += (group.empty() ? "" : " ") + s;
    spellings += (spellings.empty() ? "" : ",") + s;
  }
  return std::string("'") + (a.repeats ? "*" : "(" + group + ")") + "'{" + spellings + "}'" + help + "'";
}

}  // namespace

bool ArgumentInfo::takes_path() const {
  if (!choices.empty()) return false;
  if (!name.empty()) return true;
  return value == "FILE" || value == "DIR";
}

std::vector<const CLI::App*> visible_commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
}

std::vector<ArgumentInfo> arguments_of(const CLI::App& cmd) {
  std::vector<ArgumentInfo> flags, positionals;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden (a deprecated spelling, a testing hook)
    (opt->get_positional() ? positionals : flags).push_back(info_of(*opt));
  }
  flags.insert(flags.end(), positionals.begin(), positionals.end());
  return flags;
}

std::string man_page(const CLI::App& app) {
  std::string out =
      ".\\\" The flopcast man page, generated by `flopcast reference man` from the program's command line.\n"
      ".TH FLOPCAST 1 \"\" \"flopcast " FLOPCAST_VERSION
      "\" \"User Commands\"\n"
      ".SH NAME\nflopcast \\- cost and capacity planner for LLM training on GPU clusters\n"
      ".SH SYNOPSIS\n.B flopcast\n[\\fB\\-\\-data\\-dir\\fR \\fIDIR\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] "
      "[\\fIARGUMENTS\\fR]\n.br\n.B flopcast help\n[\\fICOMMAND\\fR]\n"
      ".SH DESCRIPTION\nflopcast plans LLM training on GPU clusters: given a model, a cluster and a parallel plan "
      "(or a space of them) it simulates training and reports step time, MFU, memory per GPU, where the time goes, "
      "the whole run with failures and checkpoints, and its cost under the price lists of data/prices. It searches "
      "plans, runs sweeps, simulates fleets, writes quotes and judges claims.\n"
      ".PP\nEvery command prints its errors as \\fBflopcast\\fR \\fICOMMAND\\fR\\fB: error:\\fR \\fImessage\\fR; an "
      "input file's errors name \\fIfile:line:col\\fR, the key and a hint. \\fB\\-o\\fR, \\fB\\-\\-out\\fR "
      "\\fIFILE\\fR writes a command's output to a file, never over an existing one without \\fB\\-\\-force\\fR.\n"
      ".SH OPTIONS\n";
  man_arguments(out, arguments_of(app));
  out += ".SH COMMANDS\n";
  for (const CLI::App* cmd : visible_commands(app)) {
    out += ".SS \"" + roff(synopsis(*cmd)) + "\"\n" + roff(cmd->get_description()) + "\n";
    man_arguments(out, arguments_of(*cmd));
  }
  out += ".SH \"EXIT STATUS\"\n";
  for (const auto& e : kExitCodeMeanings) out += fmt::format(".TP\n.B {}\n{}\n", e.code, roff(e.meaning));
  out +=
      ".SH FILES\n.TP\n.I PREFIX/share/flopcast/data\nThe catalogs (GPUs, fabrics, models, profiles, price lists) an "
      "installed flopcast reads; \\fB\\-\\-data\\-dir\\fR reads another folder. Without it the built-in copy is "
      "used.\n.TP\n.I PREFIX/share/flopcast/scenarios\nReady scenarios, sweeps, fleets and claims files.\n.TP\n"
      ".I PREFIX/lib/flopcast/flopcast\\-quote\\-pdf.so\nThe PDF printer, loaded only by \\fBquote \\-\\-format "
      "pdf\\fR.\n"
      ".SH ENVIRONMENT\n.TP\n.B FLOPCAST_QUOTE_PDF_MODULE\nThe PDF module to load instead of the installed one.\n"
      ".SH \"SEE ALSO\"\nPREFIX/share/doc/flopcast: README.md, cli.md (conventions, exit codes), run\\-schema.md, "
      "fleet.md, claims.md.\n";
  return out;
}

std::string bash_completion(const CLI::App& app, const CompletionNames& names) {
  std::vector<std::string> commands, global_flags;
  for (const CLI::App* cmd : visible_commands(app)) commands.push_back(cmd->get_name());
  for (const auto& a : arguments_of(app))
    global_flags.insert(global_flags.end(), a.spellings.begin(), a.spellings.end());
  std::string out =
      "# bash completion for flopcast, generated by `flopcast reference bash` from the program's command line.\n"
      "_flopcast() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${COMP_WORDS[i]} in\n"
      "      --data-dir) ((i++)) ;;\n"
      "      -*) ;;\n"
      "      *) cmd=${COMP_WORDS[i]}; break ;;\n"
      "    esac\n"
      "  done\n"
      "  case $cmd in\n"
      "    '')\n"
      "      case $prev in\n"
      "        --data-dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
      "      esac\n"
      "      if [[ $cur == -* ]]; then\n"
      "        COMPREPLY=($(compgen -W " +
      shell_quote(words(global_flags)) +
      " -- \"$cur\"))\n"
      "      else\n"
      "        COMPREPLY=($(compgen -W " +
      shell_quote(words(commands)) +
      " -- \"$cur\"))\n"
      "      fi\n"
      "      ;;\n";
  for (const CLI::App* cmd : visible_commands(app)) out += bash_command_arm(*cmd, names);
  // No `-o default`: bash would offer file names wherever the script offers nothing (a GPU name, a count).
  out += "  esac\n}\ncomplete -F _flopcast flopcast\n";
  return out;
}

std::string zsh_completion(const CLI::App& app, const CompletionNames& names) {
  std::string out =
      "#compdef flopcast\n"
      "# zsh completion for flopcast, generated by `flopcast reference zsh` from the program's command line.\n"
      "_flopcast() {\n"
      "  local curcontext=$curcontext state line\n"
      "  typeset -A opt_args\n"
      "  _arguments -C \\\n";
  for (const auto& a : arguments_of(app)) out += "    " + zsh_spec(a, names) + " \\\n";
  out +=
      "    '1:command:->command' \\\n"
      "    '*::argument:->argument'\n"
      "  case $state in\n"
      "    command)\n"
      "      local -a commands\n"
      "      commands=(\n";
  for (const CLI::App* cmd : visible_commands(app))
    out += "        '" + cmd->get_name() + ":" + zsh_text(cmd->get_description(), "") + "'\n";
  out +=
      "      )\n"
      "      _describe -t commands 'flopcast command' commands\n"
      "      ;;\n"
      "    argument)\n"
      "      case $line[1] in\n";
  for (const CLI::App* cmd : visible_commands(app)) {
    out += "        " + cmd->get_name() + ")\n          _arguments \\\n";
    const auto args = arguments_of(*cmd);
    for (std::size_t i = 0; i < args.size(); ++i)
      out += "            " + zsh_spec(args[i], names) + (i + 1 < args.size() ? " \\\n" : "\n");
    out += "          ;;\n";
  }
  out +=
      "      esac\n"
      "      ;;\n"
      "  esac\n"
      "}\n"
      "_flopcast \"$@\"\n";
  return out;
}

}  // namespace flopcast::cli

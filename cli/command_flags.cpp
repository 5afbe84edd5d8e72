#include "command_flags.hpp"

#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "flopcast/io/atomic_file.hpp"
#include "flopcast/io/units_parse.hpp"

namespace flopcast::cli {

CLI::Option* add_out_flag(CLI::App& cmd, OutputFile& out, const std::string& what) {
  return cmd.add_option("-o,--out", out.path, what)->type_name("FILE");
}

CLI::Option* add_force_flag(CLI::App& cmd, bool& force, const std::string& what) {
  return cmd.add_flag("--force", force, what);
}

CLI::Option* add_jobs_flag(CLI::App& cmd, int& jobs, const std::string& what, int min_jobs) {
  return cmd.add_option("-j,--jobs", jobs, what)->type_name("N")->check(CLI::Range(min_jobs, 256));
}

CLI::Option* add_count_flag(CLI::App& cmd, const std::string& name, std::int64_t& value, const std::string& what,
                            const std::string& unit, std::int64_t min, std::int64_t max) {
  const CLI::Validator whole(
      [unit, min, max](std::string& text) -> std::string {
        const auto v = io::parse_count(text);
        if (!v || *v != std::floor(*v))
          return "'" + text + "' is not a whole number of " + unit + " (e.g. 2048, 2k or 2,048)";
        if (*v < static_cast<double>(min) || *v > static_cast<double>(max))
          return fmt::format("'{}' is outside {} to {} {}", text, min, max, unit);
        text = std::to_string(static_cast<std::int64_t>(*v));
        return {};
      },
      "COUNT");
  return cmd.add_option(name, value, what)->type_name("N")->transform(whole);
}

bool write_output(CliContext& ctx, const OutputFile& out, const std::string& content) {
  if (out.path.empty()) {
    ctx.out << content;
    return true;
  }
  std::string error;
  if (io::write_file_atomically(out.path, content, out.force, error)) return true;
  ctx.fail(kIoError, error);
  return false;
}

}  // namespace flopcast::cli

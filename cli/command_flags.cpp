#include "command_flags.hpp"

#include <ostream>

#include "flopcast/io/atomic_file.hpp"

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

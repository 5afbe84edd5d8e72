#pragma once
/// The flags every command spells the same way (docs/cli.md, "Conventions"): -o, --out FILE and
/// --force for the primary output, -j, --jobs N for worker threads, and former spellings kept
/// for one release with a warning naming the new one.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "cli_context.hpp"

namespace flopcast::cli {

/// Where a command's primary output goes: standard output, or the file -o names (written
/// atomically; an existing file is replaced only with --force; a folder never).
struct OutputFile {
  std::string path;  ///< "" = standard output
  bool force = false;
};

/// Adds `-o, --out FILE` (`what`: what the file receives, for the help) to `cmd`.
CLI::Option* add_out_flag(CLI::App& cmd, OutputFile& out, const std::string& what);
/// Adds `--force` (`what`: the files it lets the command replace, for the help).
CLI::Option* add_force_flag(CLI::App& cmd, bool& force, const std::string& what);
/// Adds `-j, --jobs N` (`what`: what runs in parallel, for the help), N from `min_jobs` to 256.
CLI::Option* add_jobs_flag(CLI::App& cmd, int& jobs, const std::string& what, int min_jobs);

/// Adds a whole-number option (`name`, e.g. "--gpus-max") read as counts are written elsewhere:
/// 2048, 2k, 2,048, 1e3. A fraction, a word or a value outside [min, max] is a usage error naming
/// the flag and what it takes (`unit`, e.g. "GPUs"), never a silent default.
CLI::Option* add_count_flag(CLI::App& cmd, const std::string& name, std::int64_t& value, const std::string& what,
                            const std::string& unit, std::int64_t min, std::int64_t max);

/// Keeps `old_name` (e.g. "--threads") working for one release: hidden from the help, it sets
/// `value` as `new_name` does and warns "'--threads' is deprecated: write '-j, --jobs'".
template <class T>
CLI::Option* add_deprecated_spelling(CLI::App& cmd, CliContext& ctx, const std::string& old_name, T& value,
                                     const std::string& new_name) {
  return cmd.add_option(old_name, value)->group("")->each([&ctx, old_name, new_name](const std::string&) {
    ctx.warn("'" + old_name + "' is deprecated: write '" + new_name +
             "' (the old spelling will be removed in the next release)");
  });
}

/// Writes `content` to `out.path`, or to ctx.out when it is empty. On failure prints
/// "flopcast CMD: error: cannot write ..." and sets exit 4; returns whether it was written.
bool write_output(CliContext& ctx, const OutputFile& out, const std::string& content);

}  // namespace flopcast::cli

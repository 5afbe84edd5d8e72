#pragma once
/// The CLI run in-process (cli::run) for the tests of tests/cli: exit code, stdout and stderr.
/// The file helpers (scenario paths, read_file, TempDir) come from the support library.
#include <sstream>
#include <string>
#include <vector>

#include "cli_context.hpp"
#include "test_files.hpp"

namespace flopcast::test {

struct CliResult {
  int code = -1;
  std::string out, err;
  bool operator==(const CliResult&) const = default;
};

/// `flopcast ARGS...` in-process: exit code, stdout and stderr.
inline CliResult run_cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"flopcast"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliResult r;
  r.code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace flopcast::test

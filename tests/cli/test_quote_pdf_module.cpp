// The PDF printer is a module (quote_pdf/quote_pdf_module.hpp) that the CLI loads only for
// `flopcast quote --format pdf`: every other command starts without Qt. Built only when
// quote_pdf/ is (Qt 6 Gui found); the PDF itself is checked in test_cmd_quote.cpp.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_context.hpp"
#include "cli_runner.hpp"
#include "quote_pdf_loader.hpp"

using namespace flopcast;

namespace {

/// Sets an environment variable for the life of the object, then removes it.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char* n, const std::string& value) : name(n) { ::setenv(n, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace

TEST_SUITE("cli-quote-pdf-module") {
  TEST_CASE("the PDF module is looked for beside the executable, then where this build made it") {
    ::unsetenv(cli::kQuotePdfModuleEnv);
    const auto where = cli::quote_pdf_module_candidates();
    REQUIRE(where.size() == 2);
    // An installed flopcast: <prefix>/bin/flopcast loads <prefix>/lib/flopcast/flopcast-quote-pdf.so.
    CHECK(std::filesystem::path(where[0]).filename() == "flopcast-quote-pdf.so");
    CHECK(std::filesystem::path(where[0]).parent_path().filename() == "flopcast");
    // The build tree's module exists (the CLI library depends on it) and loads.
    CHECK(std::filesystem::is_regular_file(where[1]));
    std::string error;
    const bool loaded = cli::load_quote_pdf_module(error) != nullptr;
    CHECK(loaded);
    CHECK(error.empty());
    // The variable replaces both places.
    const ScopedEnv env(cli::kQuotePdfModuleEnv, "/elsewhere/pdf.so");
    CHECK(cli::quote_pdf_module_candidates() == std::vector<std::string>{"/elsewhere/pdf.so"});
  }

  TEST_CASE("quote --format pdf without its module: a clear error naming the file, nothing written") {
    const test::TempDir tmp("quote-pdf-module");
    const auto file = tmp.path / "quote.pdf";
    const std::string missing = (tmp.path / "no-such-module.so").string();
    const ScopedEnv env(cli::kQuotePdfModuleEnv, missing);
    const auto r = test::run_cli({"quote", test::scenario_file("quickstart.yaml"), "--date", "2026-07-01", "--format",
                                  "pdf", "-o", file.string()});
    CHECK(r.code == cli::kIoError);
    CHECK(r.out.empty());
    CHECK(test::contains(r.err,
                         "flopcast quote: error: PDF support is not installed (the module flopcast-quote-pdf.so could "
                         "not be loaded: " +
                             missing));
    CHECK(test::contains(r.err, "use --format html or md"));
    CHECK(!std::filesystem::exists(file));
    // The other formats do not need it.
    const auto md = test::run_cli({"quote", test::scenario_file("quickstart.yaml"), "--date", "2026-07-01"});
    CHECK(md.code == cli::kOk);
  }

  TEST_CASE("a module without the entry point is refused, not called") {
    // libm is a shared object that loads but has no flopcast_quote_pdf_html_to_pdf_v1.
    const ScopedEnv env(cli::kQuotePdfModuleEnv, "libm.so.6");
    std::string error;
    const bool loaded = cli::load_quote_pdf_module(error) != nullptr;
    CHECK(!loaded);
    CHECK(test::contains(error, "libm.so.6: no flopcast_quote_pdf_html_to_pdf_v1"));
  }

  TEST_CASE("the flopcast executable does not link Qt (it would load it at every start)") {
    // ldd lists what the dynamic loader maps at start; skipped where ldd is missing.
    if (std::system("command -v ldd > /dev/null 2>&1") != 0) {
      MESSAGE("ldd is not installed: not checked");
      return;
    }
    const std::string cmd = std::string("ldd '") + FLOPCAST_CLI_PATH + "' 2>&1";
    std::string out;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      std::size_t n = 0;
      while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
      ::pclose(p);
    }
    REQUIRE(test::contains(out, "libc.so"));
    CHECK_MESSAGE(!test::contains(out, "libQt6"), out);
  }
}

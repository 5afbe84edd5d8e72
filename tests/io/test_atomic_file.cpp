// io::write_file_atomically: never overwrites without force, names a missing folder and an
// unwritable path, survives a write that fails midway (a full disk), and never leaves its
// temporary file behind.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "flopcast/io/atomic_file.hpp"
#include "test_files.hpp"

using namespace flopcast;
namespace fs = std::filesystem;

namespace {

/// A temporary folder named flopcast-test-outputs-<n>.
struct OutputsTempDir : test::TempDir {
  OutputsTempDir() : test::TempDir("outputs") {}

  /// The names in the folder, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

using test::read_file;

}  // namespace

TEST_CASE("outputs: an existing file is never overwritten without force") {
  OutputsTempDir tmp;
  const auto target = tmp.path / "report.json";
  std::ofstream(target) << "precious\n";
  std::string error;
  CHECK_FALSE(io::write_file_atomically(target.string(), "new\n", false, error));
  CHECK(error == target.string() + " already exists; pass --force to overwrite it");
  CHECK(read_file(target) == "precious\n");
  CHECK(tmp.names() == std::vector<std::string>{"report.json"});

  error.clear();
  CHECK(io::write_file_atomically(target.string(), "new\n", true, error));
  CHECK(error.empty());
  CHECK(read_file(target) == "new\n");
  CHECK(tmp.names() == std::vector<std::string>{"report.json"});
}

TEST_CASE("outputs: a new file is written whole, with nothing else left in the folder") {
  OutputsTempDir tmp;
  const auto target = tmp.path / "quote.md";
  const std::string content(1 << 20, 'x');  // 1 MiB: more than one write(2) on some systems
  std::string error;
  REQUIRE(io::write_file_atomically(target.string(), content, false, error));
  CHECK(read_file(target) == content);
  CHECK(tmp.names() == std::vector<std::string>{"quote.md"});
  // 0644 (atomic_file.cpp): readable by others like a file written with plain fopen.
  CHECK((fs::status(target).permissions() & fs::perms::others_read) == fs::perms::others_read);
}

TEST_CASE("outputs: a missing folder is named in the error") {
  OutputsTempDir tmp;
  const auto target = tmp.path / "no-such-folder" / "out.json";
  std::string error;
  CHECK_FALSE(io::write_file_atomically(target.string(), "{}\n", true, error));
  CHECK(error ==
        "cannot write " + target.string() + ": folder " + (tmp.path / "no-such-folder").string() + " does not exist");
  CHECK(tmp.names().empty());
}

TEST_CASE("outputs: an unwritable path gives a clear error and leaves nothing behind") {
  SUBCASE("a file in /proc (procfs accepts no new files, even for root)") {
    std::string error;
    CHECK_FALSE(io::write_file_atomically("/proc/flopcast-test-x", "{}\n", true, error));
    CHECK_MESSAGE(error.rfind("cannot write /proc/flopcast-test-x: ", 0) == 0, error);
    CHECK_FALSE(fs::exists("/proc/flopcast-test-x"));
  }
  SUBCASE("the target is a folder") {
    OutputsTempDir tmp;
    fs::create_directory(tmp.path / "out");
    std::string error;
    CHECK_FALSE(io::write_file_atomically((tmp.path / "out").string(), "{}\n", true, error));
    CHECK_MESSAGE(error.rfind("cannot write " + (tmp.path / "out").string() + ": ", 0) == 0, error);
    CHECK(tmp.names() == std::vector<std::string>{"out"});  // the temporary file was removed
    CHECK(fs::is_directory(tmp.path / "out"));
  }
  SUBCASE("a read-only folder (skipped as root, who may write anywhere)") {
    OutputsTempDir tmp;
    fs::permissions(tmp.path, fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::replace);
    const bool root_bypasses = [&] {
      std::ofstream probe(tmp.path / "probe");
      return static_cast<bool>(probe);
    }();
    if (!root_bypasses) {
      std::string error;
      CHECK_FALSE(io::write_file_atomically((tmp.path / "out.json").string(), "{}\n", false, error));
      CHECK_MESSAGE(error == "cannot write " + (tmp.path / "out.json").string() + ": Permission denied", error);
      fs::permissions(tmp.path, fs::perms::owner_all, fs::perm_options::replace);
      CHECK(tmp.names().empty());
    }
  }
}

TEST_CASE("outputs: a write that fails midway (like a full disk) keeps the old file and leaves no temporary") {
  // A file-size limit (setrlimit RLIMIT_FSIZE) makes write(2) fail part-way with EFBIG, the
  // same path through write_all as ENOSPC on a full disk, without needing a full filesystem.
  // SIGXFSZ, which the kernel sends with EFBIG, is ignored for the duration.
  OutputsTempDir tmp;
  const auto target = tmp.path / "report.json";
  std::ofstream(target) << "precious\n";
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 64 * 1024;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string error;
  const bool ok = io::write_file_atomically(target.string(), std::string(1 << 20, 'x'), true, error);
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  CHECK_FALSE(ok);
  CHECK_MESSAGE(error == "cannot write " + target.string() + ": " + std::strerror(EFBIG), error);
  CHECK(read_file(target) == "precious\n");                       // the old file is intact
  CHECK(tmp.names() == std::vector<std::string>{"report.json"});  // the partial temporary is gone
}

#include "flopcast/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace flopcast::io {
namespace {

bool write_all(int fd, const std::string& content, std::string& error, const std::string& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = "cannot write " + path + ": " + std::strerror(errno);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

bool write_file_atomically(const std::string& path, const std::string& content, bool force, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {  // with or without --force: a folder is never replaced by a file
    error = "cannot write " + path + ": it is a folder; name a file inside it";
    return false;
  }
  if (!force && fs::exists(path, ec)) {
    error = path + " already exists; pass --force to overwrite it";
    return false;
  }
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) {
    error = "cannot write " + path + ": folder " + dir.string() + " does not exist";
    return false;
  }
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = write_all(fd, content, error, path);
  if (ok && ::fsync(fd) != 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    ok = false;
  }
  ::fchmod(fd, 0644);
  ::close(fd);
  if (ok && std::rename(tmpl.c_str(), path.c_str()) != 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    ok = false;
  }
  if (!ok) ::unlink(tmpl.c_str());
  return ok;
}

bool append_line_durably(const std::string& path, const std::string& line, std::string& error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = write_all(fd, line, error, path);
  if (ok && ::fsync(fd) != 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    ok = false;
  }
  ::close(fd);
  return ok;
}

}  // namespace flopcast::io

#include "flopcast/sweep/sweep_runner.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "flopcast/exec/thread_pool.hpp"
#include "flopcast/io/atomic_file.hpp"
#include "sweep_rows.hpp"

namespace flopcast::sweep {
namespace {

using detail::header_lines;
using detail::row_line;
using detail::row_point;
using detail::shard_size;

/// Why an existing output (its sidecar `theirs`) cannot be continued as `ours`: "" when it can.
std::string resume_mismatch(const SweepMeta& theirs, const SweepMeta& ours) {
  if (theirs.format_version != kSidecarFormat)
    return fmt::format("sidecar format {} (an older flopcast), this flopcast writes format {}", theirs.format_version,
                       kSidecarFormat);
  if (auto why = other_sweep_reason(theirs.identity, ours.identity); !why.empty()) return "another sweep: " + why;
  if (theirs.shard != ours.shard || theirs.shards != ours.shards)
    return fmt::format("shard {}/{}, this run is shard {}/{}", theirs.shard, theirs.shards, ours.shard, ours.shards);
  if (theirs.identity.flopcast_version != ours.identity.flopcast_version)
    return fmt::format("rows of flopcast {}, this is flopcast {} (rows of two versions would mix)",
                       theirs.identity.flopcast_version, ours.identity.flopcast_version);
  if (theirs.format != ours.format) return "another format";
  std::vector<std::string> a, b;
  for (const auto& c : theirs.columns) a.push_back(c.name);
  for (const auto& c : ours.columns) b.push_back(c.name);
  if (a != b) return "another column set";
  // The flags after the sweep file (--estimate, --profile) decide the rows too; the file's path
  // may differ (another working folder).
  const auto& ct = theirs.command;
  const auto& co = ours.command;
  if (ct.size() >= 3 && co.size() >= 3 && !std::equal(ct.begin() + 3, ct.end(), co.begin() + 3, co.end()))
    return "rows computed by `" + shell_line(ct) + "`, this run is `" + shell_line(co) + "`";
  return "";
}

/// Checks that an existing output file continues this sweep and shard (sidecar, header, rows in
/// point order) and drops a torn last row; `start` is then the number of rows it holds.
bool resume_output(const std::string& out_path, const SweepMeta& meta, RunStats& st, std::int64_t& start) {
  const char* afresh = "run without --resume and with --force to start afresh";
  std::string err;
  const auto theirs = read_meta(out_path, err);
  if (!theirs) {
    st.errors.push_back(err + "; without it the rows cannot be matched to this sweep: " + afresh);
    return false;
  }
  if (const auto why = resume_mismatch(*theirs, meta); !why.empty()) {
    st.errors.push_back(out_path + ": cannot be continued: its sidecar says " + why + "; " + afresh);
    return false;
  }
  const detail::RowsFile rf = detail::read_rows(out_path);
  if (!rf.error.empty()) {
    st.errors.push_back(rf.error + "; " + afresh);
    return false;
  }
  const Format f = meta.format;
  std::vector<std::string> names;
  for (const auto& c : meta.columns) names.push_back(c.name);
  if (f == Format::Csv && rf.header != names) {
    st.errors.push_back(out_path + ":1: its header row does not match its sidecar's columns; " + afresh);
    return false;
  }
  const int k = meta.shard, n = meta.shards;
  for (std::size_t i = 0; i < rf.rows.size(); ++i) {
    const std::int64_t want = (k - 1) + static_cast<std::int64_t>(i) * n;
    if (row_point(f, rf.rows[i]) != want) {
      st.errors.push_back(fmt::format(
          "{}:{}: expected the row of point {} here; the file was edited or mixed, resume is not safe (re-run with "
          "--force)",
          out_path, header_lines(f) + 1 + i, want));
      return false;
    }
  }
  if (rf.torn) {
    st.torn_line_dropped = true;
    if (::truncate(out_path.c_str(), static_cast<off_t>(rf.complete_bytes)) != 0) {
      st.errors.push_back(out_path + ": cannot drop the torn last line (" + std::strerror(errno) + ")");
      return false;
    }
  }
  start = static_cast<std::int64_t>(rf.rows.size());
  st.resumed = start;
  return true;
}

/// Whether a sidecar at `out_path`'s place may be replaced by a fresh run without --force: only
/// a flopcast sweep sidecar whose output file is gone (a leftover of a removed run).
bool stale_sidecar(const std::string& out_path, std::string& error) {
  const std::string side = meta_path(out_path);
  if (::access(side.c_str(), F_OK) != 0) return true;
  std::string err;
  if (read_meta(out_path, err)) return true;
  error = side + " exists and is not a flopcast sweep sidecar; remove it or pass --force to overwrite it";
  return false;
}

/// The output file ready for appending rows: resumed (--resume on an existing file) or new
/// with its sidecar and header. False with st.errors when neither may be done.
bool prepare_output(const std::string& out_path, const SweepMeta& meta, const RunOptions& options, RunStats& st,
                    std::int64_t& start) {
  start = 0;
  const bool exists = ::access(out_path.c_str(), F_OK) == 0;
  if (exists && options.resume) return resume_output(out_path, meta, st, start);
  if (exists && !options.force) {
    st.errors.push_back(out_path + " exists; pass --resume to continue it or --force to overwrite it");
    return false;
  }
  std::string err;
  if ((!options.force && !stale_sidecar(out_path, err)) ||
      !io::write_file_atomically(meta_path(out_path), meta_json(meta), true, err) ||
      !io::write_file_atomically(out_path, detail::header_text(meta.format, meta.columns), true, err)) {
    st.errors.push_back(err);
    return false;
  }
  return true;
}

/// The rows between the workers, which evaluate positions in a bounded window ahead of the
/// writer, and the writer, which takes them in position order.
class RowQueue {
 public:
  RowQueue(std::int64_t start, std::int64_t end, std::int64_t window)
      : next_take_(start), next_write_(start), end_(end), window_(window) {}

  /// The next position to evaluate; false when there is none or the run stopped.
  bool take(std::int64_t& pos) {
    std::unique_lock lk(mu_);
    cv_space_.wait(lk, [&] { return stop_ || next_take_ >= end_ || next_take_ < next_write_ + window_; });
    if (stop_ || next_take_ >= end_) return false;
    pos = next_take_++;
    return true;
  }
  void put(std::int64_t pos, std::string line) {
    std::lock_guard lk(mu_);
    ready_.emplace(pos, std::move(line));
    cv_ready_.notify_all();
  }
  /// A worker failed: the first failure is kept and the run stops.
  void fail(std::string error) {
    std::lock_guard lk(mu_);
    if (error_.empty()) error_ = std::move(error);
    stop_ = true;
    cv_ready_.notify_all();
  }
  /// The row at the writer's position; false when the run stopped or `cancel` was set.
  bool next_row(std::string& line, const std::atomic<bool>* cancel) {
    std::unique_lock lk(mu_);
    const auto ready = [&] { return stop_ || ready_.count(next_write_) > 0; };
    if (cancel) {
      // A signal handler cannot notify a condition variable: poll its flag.
      while (!cv_ready_.wait_for(lk, std::chrono::milliseconds(50), ready))
        if (cancel->load()) return false;
      if (cancel->load()) return false;
    } else {
      cv_ready_.wait(lk, ready);
    }
    if (stop_) return false;
    auto it = ready_.find(next_write_);
    line = std::move(it->second);
    ready_.erase(it);
    return true;
  }
  /// The writer wrote its row: the window moves on. Returns the next position to write.
  std::int64_t advance() {
    std::lock_guard lk(mu_);
    ++next_write_;
    cv_space_.notify_all();
    return next_write_;
  }
  void stop() {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_space_.notify_all();
    cv_ready_.notify_all();
  }
  std::string error() {
    std::lock_guard lk(mu_);
    return error_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_ready_, cv_space_;
  std::map<std::int64_t, std::string> ready_;
  std::int64_t next_take_, next_write_, end_, window_;
  bool stop_ = false;
  std::string error_;
};

/// A worker: evaluates positions until none is left, the run stops, or a point throws.
void evaluate_rows(RowQueue& q, Format f, int k, int n, const std::vector<Column>& columns, const Evaluate& evaluate) {
  std::int64_t pos = 0;
  while (q.take(pos)) {
    const std::int64_t point = (k - 1) + pos * n;
    try {
      q.put(pos, row_line(f, point, columns, evaluate(point)));
    } catch (const std::exception& e) {
      q.fail(fmt::format("point {}: {}", point, e.what()));
      return;
    }
  }
}

/// One write(2) per row: the file holds whole rows, or a torn last one that --resume drops.
bool write_row(int fd, const std::string& line, const std::string& out_path, std::string& error) {
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      error = out_path + ": write failed (" + std::strerror(errno) + ")";
      return false;
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  return true;
}

/// "[#####.....] 12/108 points, 3.1/s, ETA 31 s" over itself.
void draw_progress(std::ostream& out, std::int64_t done, std::int64_t total, std::int64_t written, double elapsed_s) {
  const double rate = elapsed_s > 0 ? static_cast<double>(written) / elapsed_s : 0;
  const int width = 30;
  const int filled = total > 0 ? static_cast<int>(width * done / total) : width;
  const double eta = rate > 0 ? static_cast<double>(total - done) / rate : 0;
  out << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
      << std::string(static_cast<std::size_t>(width - filled), '.') << "] "
      << fmt::format("{}/{} points, {:.1f}/s, ETA {:.0f} s ", done, total, rate, eta) << std::flush;
}

/// The writer: appends the rows in position order from `start`, syncing every two seconds,
/// drawing progress, and stopping after options.stop_after rows.
void write_rows(RowQueue& q, int fd, const std::string& out_path, std::int64_t start, const RunOptions& options,
                std::ostream* progress_out, std::chrono::steady_clock::time_point t0, RunStats& st,
                std::string& write_error) {
  auto last_sync = std::chrono::steady_clock::now();
  auto last_draw = last_sync - std::chrono::seconds(1);
  std::int64_t next_write = start;
  while (next_write < st.in_shard) {
    std::string line;
    if (!q.next_row(line, options.cancel)) {
      st.interrupted = options.cancel && options.cancel->load();
      break;
    }
    if (!write_row(fd, line, out_path, write_error)) break;
    next_write = q.advance();
    ++st.written;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_sync > std::chrono::seconds(2)) {
      ::fsync(fd);
      last_sync = now;
    }
    if (options.progress && progress_out &&
        (now - last_draw > std::chrono::milliseconds(200) || next_write == st.in_shard)) {
      last_draw = now;
      draw_progress(*progress_out, next_write, st.in_shard, st.written,
                    std::chrono::duration<double>(now - t0).count());
    }
    if (options.stop_after >= 0 && st.written >= options.stop_after && next_write < st.in_shard) {
      st.stopped = true;
      break;
    }
  }
}

}  // namespace

RunStats run_sweep(const std::string& out_path, const SweepIdentity& identity, const std::vector<Column>& columns,
                   const Evaluate& evaluate, const RunOptions& options, std::ostream* progress_out) {
  RunStats st;
  const auto t0 = std::chrono::steady_clock::now();
  st.points = identity.points;
  const Format f = format_of_path(out_path);
  const int n = std::max(1, options.shards), k = options.shard;
  if (k < 1 || k > n) {
    st.errors.push_back(fmt::format("shard {}/{} is out of range (1..{})", k, n, n));
    return st;
  }
  st.in_shard = shard_size(identity.points, k, n);
  const SweepMeta meta{identity, k, n, f, columns, options.command, kSidecarFormat};
  std::int64_t start = 0;  // position within the shard
  if (!prepare_output(out_path, meta, options, st, start)) return st;
  const int fd = ::open(out_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    st.errors.push_back(out_path + ": cannot open for appending (" + std::strerror(errno) + ")");
    return st;
  }
  const int threads = std::max(1, options.threads);
  RowQueue queue(start, st.in_shard, 4 * threads + 4);
  std::string write_error;
  {
    exec::WorkerThreads workers(threads, [&](int) { evaluate_rows(queue, f, k, n, columns, evaluate); });
    write_rows(queue, fd, out_path, start, options, progress_out, t0, st, write_error);
    queue.stop();
  }  // the workers are joined here
  ::fsync(fd);
  ::close(fd);
  if (options.progress && progress_out) *progress_out << "\n";
  if (const std::string e = queue.error(); !e.empty()) st.errors.push_back(e);
  if (!write_error.empty()) st.errors.push_back(write_error);
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

}  // namespace flopcast::sweep

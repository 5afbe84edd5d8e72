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

namespace flopcast::sweep {
namespace {

// ---- cells -----------------------------------------------------------------------------------

std::string csv_cell(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (const char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_string(const std::string& v) {
  std::string out = "\"";
  for (const unsigned char c : v) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20)
          out += fmt::format("\\u{:04x}", c);
        else
          out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

/// A cell written as a JSON number when the column is numeric and the text is a finite number.
bool is_number(const std::string& v) {
  if (v.empty()) return false;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  return end == v.c_str() + v.size() && std::isfinite(d);
}

std::string header_line(Format f, const std::string& id, std::int64_t points, int shard, int shards,
                        const std::vector<Column>& cols) {
  if (f == Format::Csv) {
    std::string h = fmt::format("# flopcast-sweep id={} points={} shard={}/{}\n", id, points, shard, shards);
    h += "point";
    for (const auto& c : cols) h += "," + csv_cell(c.name);
    return h + "\n";
  }
  std::string h = fmt::format("{{\"flopcast_sweep\":{{\"id\":{},\"points\":{},\"shard\":\"{}/{}\",\"columns\":[",
                              json_string(id), points, shard, shards);
  for (std::size_t i = 0; i < cols.size(); ++i) h += (i ? "," : "") + json_string(cols[i].name);
  return h + "]}}\n";
}

std::string row_line(Format f, std::int64_t point, const std::vector<Column>& cols,
                     const std::vector<std::string>& cells) {
  std::string line;
  if (f == Format::Csv) {
    line = std::to_string(point);
    for (std::size_t i = 0; i < cols.size(); ++i) line += "," + csv_cell(i < cells.size() ? cells[i] : "");
  } else {
    line = "{\"point\":" + std::to_string(point);
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const std::string& v = i < cells.size() ? cells[i] : std::string();
      line += "," + json_string(cols[i].name) + ":" + (cols[i].numeric && is_number(v) ? v : json_string(v));
    }
    line += "}";
  }
  return line + "\n";
}

/// Lines of a header (CSV: comment + column names; JSONL: one).
int header_lines(Format f) { return f == Format::Csv ? 2 : 1; }

/// The point index a row starts with ("123," or {"point":123,); -1 when malformed.
std::int64_t row_point(Format f, std::string_view line) {
  std::size_t i = 0;
  if (f == Format::Jsonl) {
    constexpr std::string_view pre = "{\"point\":";
    if (line.substr(0, pre.size()) != pre) return -1;
    i = pre.size();
  }
  std::int64_t v = 0;
  const std::size_t start = i;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && i - start < 18) v = v * 10 + (line[i++] - '0');
  if (i == start || i >= line.size()) return -1;
  if (f == Format::Csv ? line[i] != ',' : (line[i] != ',' && line[i] != '}')) return -1;
  return v;
}

/// Splits one CSV record (our own writer's quoting).
std::vector<std::string> split_csv(std::string_view line) {
  std::vector<std::string> cells;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else
          quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  cells.push_back(std::move(cur));
  return cells;
}

/// Parses one JSONL row of our writer into (key, value-as-text) pairs; strings unescaped.
std::vector<std::pair<std::string, std::string>> split_jsonl(std::string_view line) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t i = 0;
  auto skip = [&] {
    while (i < line.size() && (line[i] == ' ')) ++i;
  };
  auto str = [&]() -> std::string {
    std::string s;
    ++i;  // opening quote
    while (i < line.size() && line[i] != '"') {
      if (line[i] == '\\' && i + 1 < line.size()) {
        ++i;
        switch (line[i]) {
          case 'n':
            s += '\n';
            break;
          case 'r':
            s += '\r';
            break;
          case 't':
            s += '\t';
            break;
          case 'u':
            if (i + 4 < line.size()) {
              s += static_cast<char>(std::strtol(std::string(line.substr(i + 1, 4)).c_str(), nullptr, 16));
              i += 4;
            }
            break;
          default:
            s += line[i];
        }
        ++i;
      } else {
        s += line[i++];
      }
    }
    ++i;  // closing quote
    return s;
  };
  if (line.empty() || line[0] != '{') return out;
  ++i;
  while (i < line.size()) {
    skip();
    if (line[i] != '"') break;
    std::string key = str();
    skip();
    if (i >= line.size() || line[i] != ':') break;
    ++i;
    skip();
    std::string val;
    if (i < line.size() && line[i] == '"') {
      val = str();
    } else {
      while (i < line.size() && line[i] != ',' && line[i] != '}') val += line[i++];
    }
    out.emplace_back(std::move(key), std::move(val));
    skip();
    if (i < line.size() && line[i] == ',')
      ++i;
    else
      break;
  }
  return out;
}

/// A sweep output file, read back.
struct ParsedFile {
  Format format = Format::Csv;
  std::vector<std::string> header;  ///< the header lines, without '\n'
  std::string id;
  std::int64_t points = -1;
  int shard = 0, shards = 0;
  std::vector<std::string> columns;  ///< output columns (after "point")
  std::vector<std::string> rows;     ///< complete rows, without '\n'
  std::size_t complete_bytes = 0;    ///< bytes up to the end of the last complete line
  bool torn = false;                 ///< a last line without '\n' was found (not in rows)
  std::string error;
};

ParsedFile parse_file(const std::string& path) {
  ParsedFile pf;
  pf.format = format_of_path(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    pf.error = path + ": cannot read (" + std::strerror(errno) + ")";
    return pf;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::size_t pos = 0;
  std::vector<std::string> lines;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      pf.torn = true;
      break;
    }
    lines.emplace_back(text.substr(pos, nl - pos));
    pos = nl + 1;
    pf.complete_bytes = pos;
  }
  const int hl = header_lines(pf.format);
  if (static_cast<int>(lines.size()) < hl) {
    pf.error = path + ": no complete sweep header (the file is empty or was cut before its header)";
    return pf;
  }
  pf.header.assign(lines.begin(), lines.begin() + hl);
  if (pf.format == Format::Csv) {
    char id[512] = {};
    long long points = 0;
    int k = 0, n = 0;
    if (std::sscanf(pf.header[0].c_str(), "# flopcast-sweep id=%511s points=%lld shard=%d/%d", id, &points, &k, &n) !=
        4) {
      pf.error = path + ":1: not a flopcast sweep file (expected '# flopcast-sweep id=... points=N shard=k/N')";
      return pf;
    }
    pf.id = id;
    pf.points = points;
    pf.shard = k;
    pf.shards = n;
    auto cols = split_csv(pf.header[1]);
    if (cols.empty() || cols[0] != "point") {
      pf.error = path + ":2: the column header must start with 'point'";
      return pf;
    }
    pf.columns.assign(cols.begin() + 1, cols.end());
  } else {
    // {"flopcast_sweep":{...}}: parse the inner object by hand.
    const std::string& h = pf.header[0];
    const std::string pre = "{\"flopcast_sweep\":";
    if (h.rfind(pre, 0) != 0 || h.size() < pre.size() + 2) {
      pf.error = path + ":1: not a flopcast sweep file (expected {\"flopcast_sweep\":{...}})";
      return pf;
    }
    const std::string inner = h.substr(pre.size(), h.size() - pre.size() - 1);
    for (const auto& [key, val] : split_jsonl(inner)) {
      if (key == "id")
        pf.id = val;
      else if (key == "points")
        pf.points = std::atoll(val.c_str());
      else if (key == "shard")
        std::sscanf(val.c_str(), "%d/%d", &pf.shard, &pf.shards);
    }
    const std::size_t c = inner.find("\"columns\":[");
    if (c != std::string::npos) {
      // The column names: a JSON array of strings; parse it as the values of a synthetic row.
      const std::size_t open = c + 10, close = inner.rfind(']');
      std::string row = "{";
      std::size_t idx = 0, i = open + 1;
      while (i < close) {
        if (inner[i] == '"') {
          std::size_t j = i + 1;
          while (j < close && inner[j] != '"') j += inner[j] == '\\' ? 2 : 1;
          row += (idx ? "," : "") + std::string("\"c") + std::to_string(idx) + "\":" + inner.substr(i, j + 1 - i);
          ++idx;
          i = j + 1;
        } else {
          ++i;
        }
      }
      for (auto& [key, val] : split_jsonl(row + "}")) pf.columns.push_back(val);
    }
    if (pf.points < 0 || pf.shards < 1) {
      pf.error = path + ":1: the sweep header lacks points or shard";
      return pf;
    }
  }
  pf.rows.assign(lines.begin() + hl, lines.end());
  return pf;
}

/// The points of shard k of n (1-based), in order: p with p % n == k - 1.
std::int64_t shard_size(std::int64_t points, int k, int n) {
  const std::int64_t first = k - 1;
  return first < points ? (points - 1 - first) / n + 1 : 0;
}

}  // namespace

Format format_of_path(const std::string& path) {
  return path.size() >= 6 && path.compare(path.size() - 6, 6, ".jsonl") == 0 ? Format::Jsonl : Format::Csv;
}

namespace {

/// Checks that an existing output file continues this sweep and shard (header, rows in point
/// order) and drops a torn last row; `start` is then the number of rows it holds.
bool resume_output(const std::string& out_path, Format f, const std::string& header, int k, int n, RunStats& st,
                   std::int64_t& start) {
  ParsedFile pf = parse_file(out_path);
  if (!pf.error.empty()) {
    st.errors.push_back(pf.error + "; remove it or run without --resume");
    return false;
  }
  std::string got;
  for (const auto& h : pf.header) got += h + "\n";
  if (got != header) {
    st.errors.push_back(out_path +
                        ": its header is for another sweep, shard or column set; --resume needs the same "
                        "sweep, shard and format (header found: '" +
                        pf.header[0] + "')");
    return false;
  }
  for (std::size_t i = 0; i < pf.rows.size(); ++i) {
    const std::int64_t want = (k - 1) + static_cast<std::int64_t>(i) * n;
    if (row_point(f, pf.rows[i]) != want) {
      st.errors.push_back(
          fmt::format("{}:{}: expected the row of point {} here; the file was edited or mixed, "
                      "resume is not safe (re-run with --force)",
                      out_path, header_lines(f) + 1 + i, want));
      return false;
    }
  }
  if (pf.torn) {
    st.torn_line_dropped = true;
    if (::truncate(out_path.c_str(), static_cast<off_t>(pf.complete_bytes)) != 0) {
      st.errors.push_back(out_path + ": cannot drop the torn last line (" + std::strerror(errno) + ")");
      return false;
    }
  }
  start = static_cast<std::int64_t>(pf.rows.size());
  st.resumed = start;
  return true;
}

/// The output file ready for appending rows: resumed (--resume on an existing file) or new
/// with its header. False with st.errors when neither may be done.
bool prepare_output(const std::string& out_path, Format f, const std::string& header, int k, int n,
                    const RunOptions& options, RunStats& st, std::int64_t& start) {
  start = 0;
  const bool exists = ::access(out_path.c_str(), F_OK) == 0;
  if (exists && options.resume) return resume_output(out_path, f, header, k, n, st, start);
  if (exists && !options.force) {
    st.errors.push_back(out_path + " exists; pass --resume to continue it or --force to overwrite it");
    return false;
  }
  std::string err;
  if (!io::write_file_atomically(out_path, header, true, err)) {
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
  /// The row at the writer's position; false when the run stopped.
  bool next_row(std::string& line) {
    std::unique_lock lk(mu_);
    cv_ready_.wait(lk, [&] { return stop_ || ready_.count(next_write_) > 0; });
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
    if (!q.next_row(line)) break;
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

RunStats run_sweep(const std::string& out_path, const std::string& sweep_id, std::int64_t points,
                   const std::vector<Column>& columns, const Evaluate& evaluate, const RunOptions& options,
                   std::ostream* progress_out) {
  RunStats st;
  const auto t0 = std::chrono::steady_clock::now();
  st.points = points;
  const Format f = format_of_path(out_path);
  const int n = std::max(1, options.shards), k = options.shard;
  if (k < 1 || k > n) {
    st.errors.push_back(fmt::format("shard {}/{} is out of range (1..{})", k, n, n));
    return st;
  }
  st.in_shard = shard_size(points, k, n);
  std::int64_t start = 0;  // position within the shard
  if (!prepare_output(out_path, f, header_line(f, sweep_id, points, k, n, columns), k, n, options, st, start))
    return st;
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

std::vector<std::string> merge_shards(const std::vector<std::string>& inputs, const std::string& out_path, bool force) {
  std::vector<std::string> errors;
  if (inputs.empty()) return {"no shard files to merge"};
  std::vector<ParsedFile> files;
  for (const auto& in : inputs) {
    files.push_back(parse_file(in));
    if (!files.back().error.empty())
      errors.push_back(files.back().error);
    else if (files.back().torn)
      errors.push_back(in + ": its last line is torn (the run was interrupted); finish it with --resume first");
  }
  if (!errors.empty()) return errors;
  const ParsedFile& a = files.front();
  const Format f = format_of_path(out_path);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& b = files[i];
    if (b.format != a.format)
      errors.push_back(inputs[i] + ": mixes CSV and JSONL shards");
    else if (b.id != a.id || b.points != a.points || b.shards != a.shards || b.columns != a.columns)
      errors.push_back(inputs[i] + ": from another sweep than " + inputs[0] +
                       " (id, points, shard count or columns differ)");
  }
  if (f != a.format)
    errors.push_back(out_path + ": the merged file must have the shards' format (" +
                     std::string(a.format == Format::Csv ? ".csv" : ".jsonl") + ")");
  if (!errors.empty()) return errors;
  std::vector<const std::string*> by_point(static_cast<std::size_t>(std::max<std::int64_t>(0, a.points)), nullptr);
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (std::size_t r = 0; r < files[i].rows.size(); ++r) {
      const std::int64_t p = row_point(a.format, files[i].rows[r]);
      if (p < 0 || p >= a.points) {
        errors.push_back(fmt::format("{}:{}: not a row of this sweep", inputs[i], header_lines(a.format) + 1 + r));
        continue;
      }
      if (by_point[static_cast<std::size_t>(p)]) {
        errors.push_back(fmt::format("{}: point {} appears twice (the same shard given twice?)", inputs[i], p));
        continue;
      }
      by_point[static_cast<std::size_t>(p)] = &files[i].rows[r];
    }
  }
  std::vector<std::int64_t> missing;
  for (std::size_t p = 0; p < by_point.size(); ++p)
    if (!by_point[p]) missing.push_back(static_cast<std::int64_t>(p));
  if (!missing.empty())
    errors.push_back(
        fmt::format("{} of {} points missing (first: point {}); every shard 1..{} must be given and complete",
                    missing.size(), a.points, missing.front(), a.shards));
  if (!errors.empty()) return errors;
  std::vector<Column> cols;
  for (const auto& c : a.columns) cols.push_back({c});
  std::string text = header_line(a.format, a.id, a.points, 1, 1, cols);
  for (const auto* row : by_point) text += *row + "\n";
  std::string err;
  if (!io::write_file_atomically(out_path, text, force, err)) errors.push_back(err);
  return errors;
}

CheckResult check_against_baseline(const std::string& current_path, const std::string& baseline_path,
                                   double tolerance) {
  CheckResult cr;
  const ParsedFile cur = parse_file(current_path), base = parse_file(baseline_path);
  if (!cur.error.empty()) cr.errors.push_back(cur.error);
  if (!base.error.empty()) cr.errors.push_back(base.error);
  if (!cr.errors.empty()) return cr;
  // Rows as column -> cell maps, by point.
  auto table = [](const ParsedFile& pf) {
    std::map<std::int64_t, std::map<std::string, std::string>> t;
    for (const auto& row : pf.rows) {
      std::map<std::string, std::string> cells;
      if (pf.format == Format::Csv) {
        const auto v = split_csv(row);
        for (std::size_t i = 1; i < v.size() && i - 1 < pf.columns.size(); ++i) cells[pf.columns[i - 1]] = v[i];
      } else {
        for (auto& [key, val] : split_jsonl(row)) cells[key] = val;
      }
      t[row_point(pf.format, row)] = std::move(cells);
    }
    return t;
  };
  const auto tc = table(cur), tb = table(base);
  // Compared columns: the figures a regression shows in.
  static const char* const kFigures[] = {"step_time_s", "mfu",      "memory_gib", "days_p50",
                                         "days_p90",    "cost_p50", "cost_p90",   "feasible"};
  for (const auto& [point, bcells] : tb) {
    const auto it = tc.find(point);
    if (it == tc.end()) {
      cr.findings.push_back({point, "(row)", "present", "missing", 0});
      continue;
    }
    ++cr.compared;
    for (const char* col : kFigures) {
      const auto b = bcells.find(col);
      if (b == bcells.end()) continue;
      const auto c = it->second.find(col);
      const std::string cv = c == it->second.end() ? "(missing)" : c->second;
      if (is_number(b->second) && is_number(cv)) {
        const double x = std::strtod(b->second.c_str(), nullptr), y = std::strtod(cv.c_str(), nullptr);
        const double rel = x != 0 ? std::fabs(y - x) / std::fabs(x) : (y != 0 ? 1.0 : 0.0);
        if (rel > tolerance) cr.findings.push_back({point, col, b->second, cv, rel});
      } else if (b->second != cv) {
        cr.findings.push_back({point, col, b->second, cv, 1.0});
      }
    }
  }
  for (const auto& [point, cells] : tc)
    if (!tb.count(point)) cr.findings.push_back({point, "(row)", "missing", "present", 0});
  return cr;
}

}  // namespace flopcast::sweep

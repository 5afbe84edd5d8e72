#pragma once
/// Writing output files safely: to a temporary file in the same folder, flushed, then
/// renamed over the target, so a reader never sees half a file; an existing file is only
/// replaced with `force`.
#include <string>

namespace flopcast::io {

/// Writes `content` to `path`. Returns false with a message in `error` when the file exists
/// and `force` is false, when `path` is a folder (whatever `force` says), or on any I/O failure
/// (folder missing, unwritable, disk full).
bool write_file_atomically(const std::string& path, const std::string& content, bool force, std::string& error);

/// Appends `line` (which should end in '\n') to `path` with one write(2) and fsync, so an
/// interrupted run leaves whole lines only. Creates the file when missing.
bool append_line_durably(const std::string& path, const std::string& line, std::string& error);

}  // namespace flopcast::io

#pragma once
// Internal to flopcast::io (not installed): the rows of a sweep output file, written and read
// back by the runner, merge and check. CSV: a header row ("point,<columns>"), then one record per
// point. JSONL: one object per point, typed by the column (sweep_meta.hpp CellType), null for an
// empty cell. Every row ends in '\n'; a last line without it is torn (an interrupted write).
// Read back as RFC 4180 reads CSV: a record may end in CRLF, and a line break inside a quoted
// field belongs to the field.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/sweep/sweep_meta.hpp"

namespace flopcast::sweep::detail {

/// The CSV header row "point,<names>\n"; "" for JSONL (no header line).
std::string header_text(Format f, const std::vector<Column>& cols);
/// Lines before the first row: 1 for CSV, 0 for JSONL.
int header_lines(Format f);

/// One row, ending in '\n'. `cells` has one cell per column (missing cells are empty).
std::string row_line(Format f, std::int64_t point, const std::vector<Column>& cols,
                     const std::vector<std::string>& cells);

/// The number of points of shard k of n (1-based): those p with p % n == k - 1.
std::int64_t shard_size(std::int64_t points, int k, int n);

/// Whether `v` is a JSON number (RFC 8259 grammar: no '+', no leading zeros, no inf/nan).
bool is_json_number(std::string_view v);

/// The point index a row starts with ("123," or {"point":123,); -1 when malformed.
std::int64_t row_point(Format f, std::string_view line);

/// A sweep output file's lines, read back.
struct RowsFile {
  Format format = Format::Csv;
  std::vector<std::string> header;  ///< CSV: the column names after "point" (from its first line)
  std::vector<std::string> rows;    ///< complete rows, without their '\n' or CRLF
  std::size_t complete_bytes = 0;   ///< bytes up to the end of the last complete line
  bool torn = false;                ///< a last line without '\n' was found (not in rows)
  std::string error;                ///< "" when read
};
/// Reads `path` (format by its extension). A CSV whose first line is a comment (the older
/// `# flopcast-sweep` layout) or lacks the "point" header is an error saying so.
RowsFile read_rows(const std::string& path);

/// The cells of one row for `columns` (the names after "point", in the file's order: the CSV
/// header's), as text: CSV fields unquoted; JSONL values by name (null or absent -> "",
/// true/false, numbers as written). False when the row cannot be parsed.
bool row_cells(Format f, const std::string& row, const std::vector<std::string>& columns,
               std::vector<std::string>& out);

}  // namespace flopcast::sweep::detail

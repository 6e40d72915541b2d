// A table of a SQLite database as CSV (`ampscope analyze ... --csv DIR`: one file per table of
// the analysis database, docs/sqlite_schema.md). The dialect is RFC 4180's:
//   - a header line with the table's column names, then one line per row, in rowid order (the
//     order the exporter inserted them); every line ends in CRLF;
//   - a field is quoted ("...") when it holds a comma, a double quote, CR or LF, and a double
//     quote inside it is doubled; an empty text is written as "" so that it differs from NULL,
//     which is an empty field;
//   - integers in decimal; reals in the shortest form that reads back to the same double, always
//     with a '.' or an exponent (so a column of reals stays one of reals: 100.0, 1e-05);
//   - text as stored (UTF-8); a blob's bytes as they are.
// Values are written as they are: a spreadsheet that evaluates a cell starting with '=' may do
// so (kernel and op names come from the trace).
#pragma once

#include <sqlite3.h>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ampscope::sqlite_export {

// The tables of `db` (its `main` schema, not SQLite's own sqlite_* tables), in creation order.
std::vector<std::string> ListTables(sqlite3* db);

// `table` as CSV into `out`. Fails on an unknown table, a SQLite error, or a failed stream.
Status WriteTableCsv(sqlite3* db, const std::string& table, std::ostream& out);

// One field, quoted as the dialect above says (exposed for the tests).
void AppendCsvField(std::string_view text, std::string& line);
// A REAL as the dialect writes it.
std::string CsvReal(double v);

}  // namespace ampscope::sqlite_export
